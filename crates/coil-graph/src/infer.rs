//! Meta inference (FakeTensor's job): the dtype, sizes and strides of every op's outputs,
//! with PyTorch's broadcasting, type promotion, dim wrapping and view rules.

use crate::meta::{
    broadcast_shapes, checked_numel, contiguous_strides, expand_strides, infer_size, normalize_dim,
    normalize_dims, view_strides,
};
use crate::schema::{Bound, ValueArg};
use crate::{
    Call, DEFAULT_FLOAT, DType, Dims, Graph, GraphError, OpKind, Operand, TensorMeta, result_type,
};

fn shape_err<T>(msg: impl Into<String>) -> Result<T, GraphError> {
    Err(GraphError::Shape(msg.into()))
}

fn dtype_err<T>(msg: impl Into<String>) -> Result<T, GraphError> {
    Err(GraphError::DType(msg.into()))
}

/// Infers the outputs of `call` from the metas of its inputs, which must already be in `graph`.
pub fn infer_call(graph: &Graph, call: &Call) -> Result<Vec<TensorMeta>, GraphError> {
    let schema = call.op.schema();
    let b = schema.bind(&call.args, &call.kwargs)?;
    let cx = Cx { graph, b: &b };
    use OpKind::*;
    let one = |m: TensorMeta| Ok(vec![m]);
    match call.op.kind() {
        Add | Sub | Mul | Maximum | Minimum => {
            let (sizes, dtype) = cx.pointwise(&["self", "other"])?;
            if call.op.kind() == Sub && dtype == DType::Bool {
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
        Exp | Log | Log1p | Sqrt | Rsqrt | Sin | Cos | Tanh | Erf | Sigmoid | Reciprocal => {
            let m = cx.meta("self")?;
            let dtype = if m.dtype.is_float() {
                m.dtype
            } else {
                DEFAULT_FLOAT
            };
            one(TensorMeta::contiguous(dtype, m.sizes))
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
        Sum | Prod => {
            let m = cx.meta("self")?;
            let (dims, keepdim) = reduction_dims(&b, m.rank())?;
            let dtype = b.opt_dtype("dtype").unwrap_or(if m.dtype.is_float() {
                m.dtype
            } else {
                DType::I64
            });
            one(reduced(&m, &dims, keepdim, dtype))
        }
        Mean => {
            let m = cx.meta("self")?;
            let (dims, keepdim) = reduction_dims(&b, m.rank())?;
            let dtype = b.opt_dtype("dtype").unwrap_or(m.dtype);
            if !dtype.is_float() {
                return dtype_err(format!(
                    "mean(): could not infer output dtype. Input dtype must be either a floating point or \
                     complex dtype. Got: {}",
                    m.dtype
                ));
            }
            one(reduced(&m, &dims, keepdim, dtype))
        }
        Amax | Amin => {
            let m = cx.meta("self")?;
            let (dims, keepdim) = reduction_dims(&b, m.rank())?;
            one(reduced(&m, &dims, keepdim, m.dtype))
        }
        Var | VarMean => {
            let m = cx.meta("self")?;
            if !m.dtype.is_float() {
                return dtype_err(format!(
                    "{} needs a floating-point input, got {}",
                    schema.name, m.dtype
                ));
            }
            let (dims, keepdim) = reduction_dims(&b, m.rank())?;
            let out = reduced(&m, &dims, keepdim, m.dtype);
            if call.op.kind() == Var {
                one(out)
            } else {
                Ok(vec![out.clone(), out])
            }
        }
        Argmax | Argmin => {
            let m = cx.meta("self")?;
            let keepdim = b.bool("keepdim")?;
            let out = match b.opt_int("dim") {
                Some(d) => reduced(&m, &[normalize_dim(d, m.rank())?], keepdim, DType::I64),
                None if keepdim => TensorMeta::contiguous(DType::I64, vec![1; m.rank()]),
                None => TensorMeta::contiguous(DType::I64, vec![]),
            };
            if m.numel() == 0 {
                return shape_err(format!("{}(): expected a non-empty input", schema.name));
            }
            one(out)
        }
        Softmax | LogSoftmax => {
            let m = cx.meta("self")?;
            normalize_dim(b.int("dim")?, m.rank())?;
            if !m.dtype.is_float() {
                return dtype_err(format!(
                    "{} needs a floating-point input, got {}",
                    schema.name, m.dtype
                ));
            }
            let dtype = if b.bool("half_to_float")? {
                DType::F32
            } else {
                m.dtype
            };
            one(TensorMeta::contiguous(dtype, m.sizes))
        }
        NativeLayerNorm => {
            let m = cx.meta("input")?;
            let normalized: Vec<usize> = b
                .int_list("normalized_shape")?
                .iter()
                .map(|&s| s.max(0) as usize)
                .collect();
            let k = normalized.len();
            if k > m.rank() || m.sizes[m.rank() - k..] != normalized[..] {
                return shape_err(format!(
                    "layer_norm: given normalized_shape={}, expected input with shape [*, {}], but got input \
                     of size {}",
                    Dims(&normalized),
                    Dims(&normalized).to_string().trim_matches(['[', ']']),
                    Dims(&m.sizes)
                ));
            }
            for name in ["weight", "bias"] {
                if let Some(n) = b.opt_tensor(name) {
                    let w = graph.node(n).meta();
                    if w.sizes != normalized {
                        return shape_err(format!(
                            "layer_norm: expected {name} of shape {}, got {}",
                            Dims(&normalized),
                            Dims(&w.sizes)
                        ));
                    }
                }
            }
            if !m.dtype.is_float() {
                return dtype_err(format!(
                    "layer_norm needs a floating-point input, got {}",
                    m.dtype
                ));
            }
            let axis = m.rank() - k;
            let stat_sizes: Vec<usize> = m.sizes[..axis]
                .iter()
                .copied()
                .chain(std::iter::repeat_n(1, k))
                .collect();
            let stat_dtype = if matches!(m.dtype, DType::F16 | DType::BF16) {
                DType::F32
            } else {
                m.dtype
            };
            Ok(vec![
                TensorMeta::contiguous(m.dtype, m.sizes.clone()),
                TensorMeta::contiguous(stat_dtype, stat_sizes.clone()),
                TensorMeta::contiguous(stat_dtype, stat_sizes),
            ])
        }
        View | UnsafeView | Reshape => {
            let m = cx.meta("self")?;
            let shape = b.int_list(if b.has("size") { "size" } else { "shape" })?;
            let sizes = infer_size(&shape, m.numel())?;
            match view_strides(&m.sizes, &m.strides, &sizes) {
                Some(strides) => one(TensorMeta {
                    dtype: m.dtype,
                    sizes,
                    strides,
                }),
                None if call.op.kind() == Reshape => one(TensorMeta::contiguous(m.dtype, sizes)),
                None => shape_err(format!(
                    "view size {} is not compatible with input tensor's size {} and stride {} (at least one \
                     dimension spans across two contiguous subspaces); use reshape instead",
                    Dims(&sizes),
                    Dims(&m.sizes),
                    Dims(&m.strides)
                )),
            }
        }
        Permute => {
            let m = cx.meta("self")?;
            let dims = b.int_list("dims")?;
            if dims.len() != m.rank() {
                return shape_err(format!(
                    "permute: number of dims don't match in permute: input has {} dims, {} given",
                    m.rank(),
                    dims.len()
                ));
            }
            let dims = normalize_dims(&dims, m.rank())?;
            one(TensorMeta {
                dtype: m.dtype,
                sizes: dims.iter().map(|&d| m.sizes[d]).collect(),
                strides: dims.iter().map(|&d| m.strides[d]).collect(),
            })
        }
        Transpose | T => {
            let mut m = cx.meta("self")?;
            let (d0, d1) = if call.op.kind() == T {
                if m.rank() > 2 {
                    return shape_err(format!(
                        "t() expects a tensor with <= 2 dimensions, but self is {}D",
                        m.rank()
                    ));
                }
                (0, m.rank().saturating_sub(1))
            } else {
                (
                    normalize_dim(b.int("dim0")?, m.rank())?,
                    normalize_dim(b.int("dim1")?, m.rank())?,
                )
            };
            if m.rank() > 0 {
                m.sizes.swap(d0, d1);
                m.strides.swap(d0, d1);
            }
            one(m)
        }
        Expand => {
            let m = cx.meta("self")?;
            let req = b.int_list("size")?;
            if req.len() < m.rank() {
                return shape_err(format!(
                    "expand: the number of sizes provided ({}) must be greater or equal to the number of \
                     dimensions in the tensor ({})",
                    req.len(),
                    m.rank()
                ));
            }
            let lead = req.len() - m.rank();
            let mut sizes = Vec::with_capacity(req.len());
            for (i, &s) in req.iter().enumerate() {
                sizes.push(match s {
                    -1 if i >= lead => m.sizes[i - lead],
                    s if s < 0 => {
                        return shape_err(format!("expand: invalid size {s} at dimension {i}"));
                    }
                    s => s as usize,
                });
            }
            checked_numel(&sizes)?;
            let strides = expand_strides(&m.sizes, &m.strides, &sizes)?;
            one(TensorMeta {
                dtype: m.dtype,
                sizes,
                strides,
            })
        }
        Unsqueeze => {
            let mut m = cx.meta("self")?;
            let d = normalize_dim(b.int("dim")?, m.rank() + 1)?;
            let stride = if d < m.rank() {
                m.sizes[d] * m.strides[d]
            } else {
                1
            };
            m.sizes.insert(d, 1);
            m.strides.insert(d, stride);
            one(m)
        }
        Squeeze => {
            let m = cx.meta("self")?;
            let dims: Vec<usize> = match b.opt_int_list("dim") {
                Some(d) if b.has("dim") => d
                    .iter()
                    .map(|&d| normalize_dim(d, m.rank()))
                    .collect::<Result<Vec<_>, _>>()?,
                _ => (0..m.rank()).collect(),
            };
            let keep: Vec<usize> = (0..m.rank())
                .filter(|i| !(dims.contains(i) && m.sizes[*i] == 1))
                .collect();
            one(TensorMeta {
                dtype: m.dtype,
                sizes: keep.iter().map(|&i| m.sizes[i]).collect(),
                strides: keep.iter().map(|&i| m.strides[i]).collect(),
            })
        }
        Slice => {
            let mut m = cx.meta("self")?;
            let d = normalize_dim(b.int("dim")?, m.rank())?;
            if m.rank() == 0 {
                return shape_err("slice() cannot be applied to a 0-dim tensor");
            }
            let (start, len, step) = slice_range(&b, m.sizes[d])?;
            let _ = start;
            m.sizes[d] = len;
            m.strides[d] *= step;
            one(m)
        }
        Select => {
            let mut m = cx.meta("self")?;
            if m.rank() == 0 {
                return shape_err("select() cannot be applied to a 0-dim tensor");
            }
            let d = normalize_dim(b.int("dim")?, m.rank())?;
            let idx = b.int("index")?;
            let size = m.sizes[d] as i64;
            if idx < -size || idx >= size {
                return shape_err(format!(
                    "select(): index {idx} out of range for tensor of size {} at dimension {d}",
                    Dims(&m.sizes)
                ));
            }
            m.sizes.remove(d);
            m.strides.remove(d);
            one(m)
        }
        SplitWithSizes => {
            let m = cx.meta("self")?;
            let d = normalize_dim(b.int("dim")?, m.rank())?;
            let splits = b.int_list("split_sizes")?;
            let total = splits.iter().try_fold(0i64, |acc, &s| acc.checked_add(s));
            if splits.iter().any(|&s| s < 0) || m.rank() == 0 || total != Some(m.sizes[d] as i64) {
                return shape_err(format!(
                    "split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at dimension \
                     {d}), but got split_sizes={splits:?}",
                    m.sizes.get(d).copied().unwrap_or(0)
                ));
            }
            Ok(splits
                .iter()
                .map(|&s| {
                    let mut part = m.clone();
                    part.sizes[d] = s as usize;
                    part
                })
                .collect())
        }
        Alias => one(cx.meta("self")?),
        Clone => {
            let m = cx.meta("self")?;
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        Cat => {
            let parts = b.tensors("tensors")?;
            if parts.is_empty() {
                return shape_err("cat expects a non-empty list of tensors");
            }
            let metas: Vec<&TensorMeta> = parts.iter().map(|&n| graph.node(n).meta()).collect();
            // Legacy rule: 1-D empty tensors are skipped.
            let real: Vec<&&TensorMeta> = metas
                .iter()
                .filter(|m| !(m.rank() == 1 && m.sizes[0] == 0))
                .collect();
            let dtype = result_type(
                &metas
                    .iter()
                    .map(|m| Operand::Tensor {
                        dtype: m.dtype,
                        rank: m.rank(),
                    })
                    .collect::<Vec<_>>(),
            );
            let Some(first) = real.first() else {
                return one(TensorMeta::contiguous(dtype, vec![0]));
            };
            let d = normalize_dim(b.int("dim")?, first.rank())?;
            if first.rank() == 0 {
                return shape_err("zero-dimensional tensor cannot be concatenated");
            }
            let mut sizes = first.sizes.clone();
            sizes[d] = 0;
            for (i, m) in real.iter().enumerate() {
                if m.rank() != first.rank() {
                    return shape_err(format!(
                        "tensors must have same number of dimensions: got {} and {}",
                        first.rank(),
                        m.rank()
                    ));
                }
                for k in 0..m.rank() {
                    if k != d && m.sizes[k] != first.sizes[k] {
                        return shape_err(format!(
                            "sizes of tensors must match except in dimension {d}. Expected size {} but got size {} \
                             for tensor number {i} in the list",
                            first.sizes[k], m.sizes[k]
                        ));
                    }
                }
                sizes[d] = sizes[d].saturating_add(m.sizes[d]);
            }
            checked_numel(&sizes)?;
            one(TensorMeta::contiguous(dtype, sizes))
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
            let (start, end, step) = arange_params(&b)?;
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
        ScalarTensor => {
            b.scalar("s")?;
            one(TensorMeta::contiguous(
                b.opt_dtype("dtype").unwrap_or(DEFAULT_FLOAT),
                vec![],
            ))
        }
        Mm | Bmm | Addmm => {
            let (a, w) = match call.op.kind() {
                Addmm => (cx.meta("mat1")?, cx.meta("mat2")?),
                _ => (cx.meta("self")?, cx.meta("mat2")?),
            };
            let rank = if call.op.kind() == Bmm { 3 } else { 2 };
            if a.rank() != rank || w.rank() != rank {
                return shape_err(format!(
                    "{} expects {rank}-D tensors, got {} and {}",
                    schema.name,
                    Dims(&a.sizes),
                    Dims(&w.sizes)
                ));
            }
            if a.dtype != w.dtype {
                return dtype_err(format!(
                    "expected m1 and m2 to have the same dtype, but got: {} != {}",
                    a.dtype, w.dtype
                ));
            }
            let (r, c) = (rank - 2, rank - 1);
            if a.sizes[c] != w.sizes[r] || (rank == 3 && a.sizes[0] != w.sizes[0]) {
                return shape_err(format!(
                    "mat1 and mat2 shapes cannot be multiplied ({} and {})",
                    Dims(&a.sizes),
                    Dims(&w.sizes)
                ));
            }
            let mut sizes = a.sizes.clone();
            sizes[c] = w.sizes[c];
            if call.op.kind() == Addmm {
                let bias = cx.meta("self")?;
                if bias.dtype != a.dtype {
                    return dtype_err(format!(
                        "addmm: bias has dtype {}, matrices {}",
                        bias.dtype, a.dtype
                    ));
                }
                if broadcast_shapes(&bias.sizes, &sizes)? != sizes {
                    return shape_err(format!(
                        "addmm: bias of shape {} cannot broadcast to {}",
                        Dims(&bias.sizes),
                        Dims(&sizes)
                    ));
                }
            }
            one(TensorMeta::contiguous(a.dtype, sizes))
        }
    }
}

struct Cx<'a> {
    graph: &'a Graph,
    b: &'a Bound<'a>,
}

impl Cx<'_> {
    fn meta(&self, name: &str) -> Result<TensorMeta, GraphError> {
        Ok(self.graph.node(self.b.tensor(name)?).meta().clone())
    }

    /// Broadcast sizes and promoted dtype of the named operands.
    fn pointwise(&self, names: &[&str]) -> Result<(Vec<usize>, DType), GraphError> {
        let mut sizes: Vec<usize> = vec![];
        let mut operands = Vec::with_capacity(names.len());
        for name in names {
            match self.b.value(name)? {
                ValueArg::Tensor(n) => {
                    let m = self.graph.node(n).meta();
                    sizes = broadcast_shapes(&sizes, &m.sizes)?;
                    operands.push(Operand::Tensor {
                        dtype: m.dtype,
                        rank: m.rank(),
                    });
                }
                ValueArg::Scalar(s) => operands.push(Operand::Scalar(s.category())),
            }
        }
        Ok((sizes, result_type(&operands)))
    }
}

/// The reduced dims (sorted, wrapped) and `keepdim` of a reduction call; `None`, `[]` or an
/// absent `dim` mean every dim.
pub fn reduction_dims(b: &Bound<'_>, rank: usize) -> Result<(Vec<usize>, bool), GraphError> {
    let keepdim = if b.has("keepdim") {
        b.bool("keepdim")?
    } else {
        false
    };
    let mut dims = match (b.has("dim"), b.opt_int_list("dim")) {
        (true, Some(d)) => normalize_dims(&d, rank)?,
        _ => (0..rank).collect(),
    };
    dims.sort_unstable();
    Ok((dims, keepdim))
}

fn reduced(m: &TensorMeta, dims: &[usize], keepdim: bool, dtype: DType) -> TensorMeta {
    let sizes = (0..m.rank())
        .filter_map(|i| match (dims.contains(&i), keepdim) {
            (true, true) => Some(1),
            (true, false) => None,
            (false, _) => Some(m.sizes[i]),
        })
        .collect::<Vec<_>>();
    let strides = contiguous_strides(&sizes);
    TensorMeta {
        dtype,
        sizes,
        strides,
    }
}

/// `slice.Tensor`'s effective (start, length, step) on a dim of `size`, PyTorch's clamping.
pub fn slice_range(b: &Bound<'_>, size: usize) -> Result<(usize, usize, usize), GraphError> {
    let step = b.int("step")?;
    if step <= 0 {
        return shape_err("slice step must be positive");
    }
    let size = size as i64;
    let clamp = |v: i64| {
        let v = if v < 0 { v + size } else { v };
        v.clamp(0, size)
    };
    let start = clamp(b.opt_int("start").unwrap_or(0));
    let end = clamp(b.opt_int("end").unwrap_or(size)).max(start);
    // Written so that a huge step cannot overflow.
    let len = if end == start {
        0
    } else {
        (end - start - 1) / step + 1
    };
    Ok((start as usize, len as usize, step as usize))
}

/// `arange`'s (start, end, step) as f64.
pub fn arange_params(b: &Bound<'_>) -> Result<(f64, f64, f64), GraphError> {
    let start = b.opt_scalar("start").map(|s| s.to_f64()).unwrap_or(0.0);
    let end = b.scalar("end")?.to_f64();
    let step = b.opt_scalar("step").map(|s| s.to_f64()).unwrap_or(1.0);
    Ok((start, end, step))
}

/// The number of elements `arange(start, end, step)` makes.
pub fn arange_len(start: f64, end: f64, step: f64) -> Result<usize, GraphError> {
    if step == 0.0 || !step.is_finite() || !start.is_finite() || !end.is_finite() {
        return shape_err("arange: step must be nonzero and bounds finite");
    }
    if (end - start) * step < 0.0 {
        return shape_err("arange: upper bound and larger bound inconsistent with step sign");
    }
    Ok(((end - start) / step).ceil() as usize)
}
