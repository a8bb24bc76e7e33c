//! Meta inference of pointwise ops: broadcasting, type promotion (`result_type` with Python
//! scalars), and the dtype rules of each op (comparisons give bool, transcendental functions of
//! integers give the default float).

use super::{Cx, dtype_err, shape_err};
use crate::DtypeRule;
use crate::meta::broadcast_shapes;
use crate::{DEFAULT_FLOAT, DType, FloatFn, GraphError, PointwiseKind, TensorMeta};

/// The output of a kind whose body is one kernel op: its operands broadcast, its dtype by the
/// table's rule.
pub(super) fn kernel_op(cx: &Cx<'_>, rule: DtypeRule) -> Result<Vec<TensorMeta>, GraphError> {
    let name = &cx.schema.name;
    let operands = cx.schema.value_operands();
    // A one-operand op takes a tensor (`relu(1)` is an error); a two-operand one may take a
    // number for either, as `mul.Tensor(x, 2)` does.
    if let [only] = operands[..] {
        cx.meta(only)?;
    }
    let (sizes, dtype) = cx.pointwise(&operands)?;
    let dtype = match rule {
        DtypeRule::Promote | DtypeRule::Same => dtype,
        DtypeRule::Bool => DType::Bool,
        DtypeRule::NoBool if dtype == DType::Bool => {
            return dtype_err(format!("{name} is not supported on bool tensors"));
        }
        DtypeRule::NoBool => dtype,
        DtypeRule::NoFloat if dtype.is_float() => {
            return dtype_err(format!(
                "{name} is only defined for integer and bool tensors, got {dtype}"
            ));
        }
        DtypeRule::NoFloat => dtype,
        DtypeRule::ToFloat if dtype.is_float() => dtype,
        DtypeRule::ToFloat => DEFAULT_FLOAT,
    };
    Ok(vec![TensorMeta::contiguous(dtype, sizes)])
}

/// The outputs of a call of `kind`, an op of this family.
pub(super) fn infer(cx: &Cx<'_>, kind: PointwiseKind) -> Result<Vec<TensorMeta>, GraphError> {
    let b = cx.b;
    let schema = cx.schema;
    let one = |m: TensorMeta| Ok(vec![m]);
    use PointwiseKind::*;
    match kind {
        Add | Sub => {
            let (sizes, dtype) = cx.pointwise(&["self", "other"])?;
            if kind == Sub && dtype == DType::Bool {
                return dtype_err(
                    "subtraction, the `-` operator, with two bool tensors is not supported",
                );
            }
            one(TensorMeta::contiguous(dtype, sizes))
        }
        Div => {
            let (sizes, dtype) = cx.pointwise(&["self", "other"])?;
            let dtype = match b.opt_str("rounding_mode") {
                None if !dtype.is_float() => DEFAULT_FLOAT,
                None => dtype,
                Some("trunc" | "floor") => dtype,
                Some(m) => {
                    return Err(GraphError::Arg {
                        op: schema.qualified_name(),
                        msg: format!("rounding_mode must be 'trunc', 'floor' or None, got '{m}'"),
                    });
                }
            };
            one(TensorMeta::contiguous(dtype, sizes))
        }
        CopyValues => {
            let m = cx.meta("self")?;
            let src = cx.meta("src")?;
            if broadcast_shapes(&m.sizes, &src.sizes)? != m.sizes {
                return shape_err(format!(
                    "copy: src of sizes {:?} cannot be broadcast to {:?}",
                    src.sizes, m.sizes
                ));
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        Fmod | Remainder => {
            let (sizes, dtype) = cx.pointwise(&["self", "other"])?;
            if dtype == DType::Bool {
                return dtype_err(format!("{} is not defined for bool tensors", schema.name));
            }
            one(TensorMeta::contiguous(dtype, sizes))
        }
        Hardswish | Hardsigmoid | Softplus | LeakyRelu | Elu => {
            let m = cx.meta("self")?;
            if !m.dtype.is_float() {
                return dtype_err(format!(
                    "{} needs a floating-point input, got {}",
                    schema.name, m.dtype
                ));
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        Hardtanh => {
            let m = cx.meta("self")?;
            if m.dtype == DType::Bool {
                return dtype_err("hardtanh is not supported on bool tensors");
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        MaskedFill => {
            let m = cx.meta("self")?;
            let mask = cx.meta("mask")?;
            if mask.dtype != DType::Bool {
                return dtype_err(format!(
                    "masked_fill only supports boolean masks, but got mask with dtype {}",
                    mask.dtype
                ));
            }
            if let crate::schema::ValueArg::Tensor(v) = b.value("value")?
                && cx.graph.node(v).meta().rank() != 0
            {
                return shape_err(format!(
                    "masked_fill only supports a 0-dimensional value tensor, but got tensor with {} dimension(s)",
                    cx.graph.node(v).meta().rank()
                ));
            }
            one(TensorMeta::contiguous(
                m.dtype,
                broadcast_shapes(&m.sizes, &mask.sizes)?,
            ))
        }
        Tril | Triu => {
            let m = cx.meta("self")?;
            if m.rank() < 2 {
                return shape_err(format!(
                    "{}: input tensor must have at least 2 dimensions, got {}",
                    schema.name,
                    m.rank()
                ));
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        Gelu | Silu => {
            let m = cx.meta("self")?;
            if !m.dtype.is_float() {
                return dtype_err(format!(
                    "{} needs a floating-point input, got {}",
                    schema.name, m.dtype
                ));
            }
            if let Some(a) = b.opt_str("approximate")
                && a != "none"
                && a != "tanh"
            {
                return Err(GraphError::Arg {
                    op: schema.qualified_name(),
                    msg: format!("approximate must be 'none' or 'tanh', got '{a}'"),
                });
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        RoundDecimals => {
            let m = cx.meta("self")?;
            b.int("decimals")?;
            if !m.dtype.is_float() {
                return dtype_err(format!(
                    "round with decimals is only defined for floating-point tensors, got {}",
                    m.dtype
                ));
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        Where => {
            let cond = cx.meta("condition")?;
            if cond.dtype != DType::Bool {
                return dtype_err(format!(
                    "where expected condition to be a boolean tensor, but got {}",
                    cond.dtype
                ));
            }
            let (sizes, dtype) = cx.pointwise(&["self", "other"])?;
            one(TensorMeta::contiguous(
                dtype,
                broadcast_shapes(&sizes, &cond.sizes)?,
            ))
        }
        Clamp => {
            let names: Vec<&str> = ["self", "min", "max"]
                .into_iter()
                .filter(|n| !matches!(b.get(n), crate::Arg::None))
                .collect();
            if names.len() == 1 {
                return Err(GraphError::Arg {
                    op: schema.qualified_name(),
                    msg: "at least one of 'min' or 'max' must not be None".into(),
                });
            }
            let (sizes, dtype) = cx.pointwise(&names)?;
            one(TensorMeta::contiguous(dtype, sizes))
        }
        ToCopy => {
            let m = cx.meta("self")?;
            one(TensorMeta::contiguous(
                b.opt_dtype("dtype").unwrap_or(m.dtype),
                m.sizes,
            ))
        }
    }
}

/// The output of a float function of the table: its operands broadcast, a float result.
pub(super) fn float(cx: &Cx<'_>, f: FloatFn) -> Result<Vec<TensorMeta>, GraphError> {
    let names = f.params();
    if let Some(i) = f.constant_operand() {
        let n = cx.b.scalar(names[i])?.to_f64();
        if f == FloatFn::Polygamma && n < 0.0 {
            return dtype_err("polygamma(n, x) does not support negative n.");
        }
        if f.polynomial().is_some() && n > crate::special::poly::MAX_DEGREE as f64 {
            return shape_err(format!(
                "{}: degree {n} is above the {} coil unrolls",
                f.name(),
                crate::special::poly::MAX_DEGREE
            ));
        }
    }
    let (sizes, dtype) = cx.pointwise(names)?;
    if f.floats_only() && !dtype.is_float() {
        return dtype_err(format!("\"{}\" not implemented for {dtype}", f.name()));
    }
    let dtype = if dtype.is_float() {
        dtype
    } else {
        DEFAULT_FLOAT
    };
    Ok(vec![TensorMeta::contiguous(dtype, sizes)])
}
