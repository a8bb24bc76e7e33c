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
        FactoryKind::ScalarTensor => {
            let s = a.b.scalar("s")?;
            let data = with_elem!(dtype, D => D::into_data(vec![scalar_as::<D>(s)]));
            Ok(Tensor::new(data, vec![])?)
        }
    }
}
