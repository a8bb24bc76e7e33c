//! Meta inference of factories: `full`, `arange`, `scalar_tensor`.

use super::{Cx, shape_err};
use super::{arange_len, arange_params};
use crate::meta::checked_numel;
use crate::{DEFAULT_FLOAT, DType, FactoryKind, GraphError, TensorMeta};

/// The outputs of a call of `kind`, an op of this family.
pub(super) fn infer(cx: &Cx<'_>, kind: FactoryKind) -> Result<Vec<TensorMeta>, GraphError> {
    let b = cx.b;
    let one = |m: TensorMeta| Ok(vec![m]);
    use FactoryKind::*;
    match kind {
        FullLike => {
            let m = cx.meta("self")?;
            fill_value(cx)?;
            one(TensorMeta::contiguous(
                b.opt_dtype("dtype").unwrap_or(m.dtype),
                m.sizes,
            ))
        }
        NewFull => {
            let m = cx.meta("self")?;
            let sizes = sizes_arg(cx)?;
            fill_value(cx)?;
            one(TensorMeta::contiguous(
                b.opt_dtype("dtype").unwrap_or(m.dtype),
                sizes,
            ))
        }
        Full if cx.schema.name != "full" => {
            let sizes = sizes_arg(cx)?;
            one(TensorMeta::contiguous(
                b.opt_dtype("dtype").unwrap_or(DEFAULT_FLOAT),
                sizes,
            ))
        }
        Full => {
            let size = b.int_list("size")?;
            if size.iter().any(|&s| s < 0) {
                return shape_err(format!("full: negative dimension in size {size:?}"));
            }
            let sizes: Vec<usize> = size.iter().map(|&s| s as usize).collect();
            checked_numel(&sizes)?;
            let fill = b.scalar("fill_value")?;
            let dtype = b.opt_dtype("dtype").unwrap_or(match fill {
                crate::Scalar::Bool(_) => DType::Bool,
                crate::Scalar::Int(_) => DType::I64,
                crate::Scalar::Float(_) => DEFAULT_FLOAT,
            });
            one(TensorMeta::contiguous(dtype, sizes))
        }
        Arange => {
            let (start, end, step) = arange_params(b)?;
            let any_float = ["start", "end", "step"]
                .iter()
                .any(|n| matches!(b.opt_scalar(n), Some(crate::Scalar::Float(_))));
            let dtype =
                b.opt_dtype("dtype")
                    .unwrap_or(if any_float { DEFAULT_FLOAT } else { DType::I64 });
            let len = arange_len(start, end, step)?;
            checked_numel(&[len])?;
            one(TensorMeta::contiguous(dtype, vec![len]))
        }
        PhiloxRand | PhiloxRandn | PhiloxRandint => {
            let seed = cx.meta("seed")?;
            if seed.dtype != DType::I64 || seed.numel() != 1 {
                return super::dtype_err(format!(
                    "{}: the seed must be one int64 element, got {}{:?}",
                    cx.schema.name, seed.dtype, seed.sizes
                ));
            }
            let offset = b.int("offset")?;
            if !(0..=u32::MAX as i64).contains(&offset) {
                return shape_err(format!(
                    "{}: offset {offset} is outside 0..2^32",
                    cx.schema.name
                ));
            }
            let sizes = sizes_arg(cx)?;
            let dtype = b.dtype("dtype")?;
            if kind == PhiloxRandint {
                let (low, high) = (b.int("low")?, b.int("high")?);
                if high.checked_sub(low).is_none() {
                    return shape_err(format!(
                        "philox_randint: the range [{low}, {high}) is wider than int64 holds"
                    ));
                }
                if low >= high {
                    return shape_err(format!(
                        "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
                    ));
                }
                if dtype == DType::Bool {
                    return super::dtype_err("philox_randint: bool is not an integer range");
                }
            } else if !dtype.is_float() {
                return super::dtype_err(format!(
                    "{}: expected a floating point dtype, got {dtype}",
                    cx.schema.name
                ));
            }
            one(TensorMeta::contiguous(dtype, sizes))
        }
        ScalarTensor => {
            b.scalar("s")?;
            one(TensorMeta::contiguous(
                b.opt_dtype("dtype").unwrap_or(DEFAULT_FLOAT),
                vec![],
            ))
        }
    }
}

/// The value a filling factory writes: `fill_value` for `full`, `full_like` and `new_full`;
/// 1 for the `ones` forms; 0 for `zeros` and `empty` (coil's empty memory is zeroed).
pub(super) fn fill_value(cx_or: &Cx<'_>) -> Result<crate::Scalar, GraphError> {
    fill_value_of(cx_or.b, &cx_or.schema.name)
}

/// [`fill_value`] from a bound call and its op's name (`ones_like`).
pub fn fill_value_of(b: &crate::Bound<'_>, op_name: &str) -> Result<crate::Scalar, GraphError> {
    if b.has("fill_value") {
        b.scalar("fill_value")
    } else if op_name.starts_with("ones") || op_name == "new_ones" {
        Ok(crate::Scalar::Int(1))
    } else {
        Ok(crate::Scalar::Int(0))
    }
}

fn sizes_arg(cx: &Cx<'_>) -> Result<Vec<usize>, GraphError> {
    let size = cx.b.int_list("size")?;
    if size.iter().any(|&s| s < 0) {
        return shape_err(format!(
            "{}: negative dimension in size {size:?}",
            cx.schema.name
        ));
    }
    let sizes: Vec<usize> = size.iter().map(|&s| s as usize).collect();
    checked_numel(&sizes)?;
    Ok(sizes)
}
