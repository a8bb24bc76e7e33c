//! Meta inference of pointwise ops: broadcasting, type promotion (`result_type` with Python
//! scalars), and the dtype rules of each op (comparisons give bool, transcendental functions of
//! integers give the default float).

use super::{Cx, dtype_err, shape_err};
use crate::meta::broadcast_shapes;
use crate::{DEFAULT_FLOAT, DType, GraphError, OpKind, TensorMeta};

/// The outputs of a call of `kind`, an op of this family.
pub(super) fn infer(cx: &Cx<'_>, kind: OpKind) -> Result<Vec<TensorMeta>, GraphError> {
    let b = cx.b;
    let schema = cx.schema;
    let one = |m: TensorMeta| Ok(vec![m]);
    use OpKind::*;
    match kind {
        Add | Sub | Mul | Maximum | Minimum => {
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
        Pow => {
            let (sizes, dtype) = cx.pointwise(&["self", "exponent"])?;
            one(TensorMeta::contiguous(dtype, sizes))
        }
        Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr => {
            let (sizes, _) = cx.pointwise(&["self", "other"])?;
            one(TensorMeta::contiguous(DType::Bool, sizes))
        }
        LogicalNot => one(TensorMeta::contiguous(DType::Bool, cx.meta("self")?.sizes)),
        BitwiseNot => {
            let m = cx.meta("self")?;
            if m.dtype.is_float() {
                return dtype_err(format!(
                    "bitwise_not is only defined for integer and bool tensors, got {}",
                    m.dtype
                ));
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        BitwiseAnd | BitwiseOr | BitwiseXor => {
            let (sizes, dtype) = cx.pointwise(&["self", "other"])?;
            if dtype.is_float() {
                return dtype_err(format!(
                    "{} is only defined for integer and bool tensors, got {dtype}",
                    schema.name
                ));
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
        Neg | Relu => {
            let m = cx.meta("self")?;
            if m.dtype == DType::Bool {
                return dtype_err(format!("{} is not supported on bool tensors", schema.name));
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        Abs => {
            let m = cx.meta("self")?;
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        Floor | Ceil | Round | Trunc => {
            let m = cx.meta("self")?;
            if m.dtype == DType::Bool {
                return dtype_err(format!(
                    "{} is not implemented for bool tensors",
                    schema.name
                ));
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        Exp | Log | Log1p | Sqrt | Rsqrt | Sin | Cos | Tanh | Erf | Sigmoid | Reciprocal => {
            let m = cx.meta("self")?;
            let dtype = if m.dtype.is_float() {
                m.dtype
            } else {
                DEFAULT_FLOAT
            };
            one(TensorMeta::contiguous(dtype, m.sizes))
        }
        Float(f) => {
            let names: &[&str] = if f.arity() == 2 {
                &["self", "other"]
            } else {
                &["self"]
            };
            let (sizes, dtype) = cx.pointwise(names)?;
            if f.floats_only() && !dtype.is_float() {
                return dtype_err(format!("\"{}\" not implemented for {dtype}", f.name()));
            }
            let dtype = if dtype.is_float() {
                dtype
            } else {
                DEFAULT_FLOAT
            };
            one(TensorMeta::contiguous(dtype, sizes))
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
        other => Err(GraphError::Invalid(format!(
            "{other:?} is not an op of pointwise.rs's family"
        ))),
    }
}
