//! Factories: `full`, `arange` (values computed as `start + i * step` in f64, then cast, as
//! PyTorch's CPU kernel does) and `scalar_tensor`. They read nothing.

use coil_graph::{OpKind, Tensor, TensorMeta, arange_len, arange_params};

use crate::elem::{Elem, scalar_as, with_elem};
use crate::error::{OpError, fail};
use crate::interp::Args;

/// Runs a factory; `out` is the node's recorded meta (the dtype to make).
pub(crate) fn eval(kind: OpKind, a: &Args<'_>, out: &TensorMeta) -> Result<Tensor, OpError> {
    let dtype = out.dtype;
    match kind {
        OpKind::Full => {
            let size = a.b.int_list("size")?;
            if let Some(s) = size.iter().find(|&&s| s < 0) {
                return fail(format!("full: negative dimension {s}"));
            }
            let sizes: Vec<usize> = size.iter().map(|&s| s as usize).collect();
            let fill = a.b.scalar("fill_value")?;
            let numel = sizes.iter().product();
            let data = with_elem!(dtype, D => D::into_data(vec![scalar_as::<D>(fill); numel]));
            Ok(Tensor::new(data, sizes)?)
        }
        OpKind::Arange => {
            let (start, end, step) = arange_params(&a.b)?;
            let len = arange_len(start, end, step)?;
            let data = with_elem!(dtype, D => D::into_data(
                (0..len).map(|i| D::from_f64(start + i as f64 * step)).collect()
            ));
            Ok(Tensor::new(data, vec![len])?)
        }
        OpKind::ScalarTensor => {
            let s = a.b.scalar("s")?;
            let data = with_elem!(dtype, D => D::into_data(vec![scalar_as::<D>(s)]));
            Ok(Tensor::new(data, vec![])?)
        }
        other => fail(format!("{other:?} is not a factory")),
    }
}
