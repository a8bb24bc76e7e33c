//! Factories: `full`, `arange` (values computed as `start + i * step` in f64, then cast, as
//! PyTorch's CPU kernel does) and `scalar_tensor`. They read nothing.

use coil_graph::{FactoryKind, Tensor, TensorMeta, arange_len, arange_params, fill_value_of};

use crate::elem::{Elem, scalar_as, with_elem};
use crate::error::{OpError, fail};
use crate::interp::Args;

/// Runs a factory; `out` is the node's recorded meta (the dtype to make).
pub(crate) fn eval(kind: FactoryKind, a: &Args<'_>, out: &TensorMeta) -> Result<Tensor, OpError> {
    let dtype = out.dtype;
    match kind {
        FactoryKind::Full | FactoryKind::FullLike | FactoryKind::NewFull => {
            if let Some(s) =
                a.b.opt_int_list("size")
                    .unwrap_or_default()
                    .iter()
                    .find(|&&s| s < 0)
            {
                return fail(format!("{}: negative dimension {s}", a.b.schema().name));
            }
            let sizes = out.sizes.clone();
            let fill = fill_value_of(&a.b, &a.b.schema().name)?;
            let numel = sizes.iter().product();
            let data = with_elem!(dtype, D => D::into_data(vec![scalar_as::<D>(fill); numel]));
            Ok(Tensor::new(data, sizes)?)
        }
        FactoryKind::Arange => {
            let (start, end, step) = arange_params(&a.b)?;
            let len = arange_len(start, end, step)?;
            let data = with_elem!(dtype, D => D::into_data(
                (0..len).map(|i| D::from_f64(start + i as f64 * step)).collect()
            ));
            Ok(Tensor::new(data, vec![len])?)
        }
        FactoryKind::PhiloxRand | FactoryKind::PhiloxRandn | FactoryKind::PhiloxRandint => {
            random(kind, a, out)
        }
        FactoryKind::ScalarTensor => {
            let s = a.b.scalar("s")?;
            let data = with_elem!(dtype, D => D::into_data(vec![scalar_as::<D>(s)]));
            Ok(Tensor::new(data, vec![])?)
        }
    }
}

/// `coil.philox_*`: element `i`'s value is `coil_kernel::philox`'s for (seed, offset, i), each
/// computed as the kernels do (uniform and normal values in the opmath type, rounded once).
fn random(kind: FactoryKind, a: &Args<'_>, out: &TensorMeta) -> Result<Tensor, OpError> {
    use coil_kernel::philox;
    let seed_t = a.tensor("seed")?;
    let seed = match seed_t.storage().as_ref() {
        coil_graph::Data::I64(v) => v[seed_t.offset()],
        _ => return fail("philox: the seed must be int64"),
    };
    let offset = a.b.int("offset")? as u32;
    let dtype = out.dtype;
    let numel: usize = out.sizes.iter().product();
    let bits = philox::uniform_bits(dtype.mantissa_bits());
    let words = (0..numel as u64).map(|i| philox::words(seed, offset, i));
    let data = match kind {
        FactoryKind::PhiloxRandint => {
            let (low, high) = (a.b.int("low")?, a.b.int("high")?);
            let vals: Vec<i64> = words.map(|w| philox::int_in(w, low, high)).collect();
            with_elem!(dtype, D => D::into_data(vals.iter().map(|&v| D::from_i64(v)).collect()))
        }
        FactoryKind::PhiloxRandn => {
            // In f64, rounded once: the kernels' f32 log and cos differ from it (and from
            // each other) by a few ulp.
            let vals: Vec<f64> = words.map(|w| philox::normal(w, bits)).collect();
            with_elem!(dtype, D => D::into_data(vals.iter().map(|&v| D::from_f64(v)).collect()))
        }
        _ => {
            let vals: Vec<f64> = words.map(|w| philox::uniform(w, bits)).collect();
            with_elem!(dtype, D => D::into_data(vals.iter().map(|&v| D::from_f64(v)).collect()))
        }
    };
    Ok(Tensor::new(data, out.sizes.clone())?)
}
