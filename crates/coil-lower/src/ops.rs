//! Lowerings of ATen ops: pointwise ops (type promotion, broadcasting), reductions, views,
//! `cat`, factories and extern matmuls.

use coil_graph::{
    Bound, Call, DType, Node, OpKind, Operand, Scalar, ValueArg, arange_params, contiguous_strides,
    normalize_dim, reduction_dims, result_type, slice_range,
};

use crate::body::{Const, ExprId, Op, ReductionType};
use crate::error::LowerError;
use crate::index::{IndexExpr, Var};
use crate::ir::{ExternKind, MatmulOp, Reduction, StorageBox, StorageData, TensorBox, TensorId};
use crate::lowering::{BodyCx, Lowerer, Result, positional_index};

/// A pointwise operand: a tensor value or a Python number.
#[derive(Clone, Copy, Debug)]
enum Val {
    Tensor(TensorId),
    Scalar(Scalar),
}

fn scalar_const(s: Scalar) -> Const {
    match s {
        Scalar::Bool(b) => Const::Bool(b),
        Scalar::Int(i) => Const::Int(i),
        Scalar::Float(f) => Const::Float(f),
    }
}

impl Lowerer<'_> {
    fn unsupported(node: &Node, call: &Call, why: impl Into<String>) -> LowerError {
        LowerError::Unsupported {
            node: node.name.clone(),
            op: call.op,
            why: why.into(),
        }
    }

    fn operand(&self, node: &Node, b: &Bound<'_>, name: &str) -> Result<Val> {
        match b.value(name).map_err(|e| Self::graph_err(node, e))? {
            ValueArg::Tensor(n) => Ok(Val::Tensor(self.value(n, &node.name)?)),
            ValueArg::Scalar(s) => Ok(Val::Scalar(s)),
        }
    }

    fn opt_operand(&self, node: &Node, b: &Bound<'_>, name: &str) -> Result<Option<Val>> {
        match b.get(name) {
            coil_graph::Arg::None => Ok(None),
            _ => self.operand(node, b, name).map(Some),
        }
    }

    fn tensor(&self, node: &Node, b: &Bound<'_>, name: &str) -> Result<TensorId> {
        let n = b.tensor(name).map_err(|e| Self::graph_err(node, e))?;
        self.value(n, &node.name)
    }

    fn promotion_operand(&self, v: Val) -> Operand {
        match v {
            Val::Tensor(t) => {
                let tb = &self.g.tensors[t];
                Operand::Tensor {
                    dtype: tb.dtype,
                    rank: tb.sizes.len(),
                }
            }
            Val::Scalar(s) => Operand::Scalar(s.category()),
        }
    }

    /// Loads (or makes the constant for) an operand, cast to `dtype`.
    fn operand_expr(&mut self, cx: &mut BodyCx, v: Val, dtype: DType) -> ExprId {
        match v {
            Val::Tensor(t) => {
                let e = self.load_broadcast(cx, t);
                cx.body.to_dtype(e, dtype)
            }
            Val::Scalar(s) => cx.body.constant(scalar_const(s), dtype),
        }
    }

    /// A pointwise value over the node's output sizes: operands are loaded (broadcast) and cast
    /// to `compute`, `f` combines them, the result is cast to the node's dtype.
    fn elementwise(
        &mut self,
        node: &Node,
        operands: &[Val],
        compute: DType,
        f: impl FnOnce(&mut BodyCx, &[ExprId]) -> ExprId,
    ) -> TensorId {
        let meta = node.meta();
        let mut cx = BodyCx::new(&meta.sizes);
        let args: Vec<ExprId> = operands
            .iter()
            .map(|&v| self.operand_expr(&mut cx, v, compute))
            .collect();
        let root = f(&mut cx, &args);
        self.finish_pointwise(node, cx, root, meta.dtype)
    }

    pub(crate) fn lower_call(&mut self, node: &Node, call: &Call) -> Result<Vec<TensorId>> {
        let b = call
            .op
            .schema()
            .bind(&call.args, &call.kwargs)
            .map_err(|e| Self::graph_err(node, e))?;
        let meta = node.meta().clone();
        let out = meta.dtype;
        use OpKind as K;
        let one = |t: TensorId| Ok(vec![t]);
        match call.op.kind() {
            K::Add | K::Sub => {
                let x = self.operand(node, &b, "self")?;
                let y = self.operand(node, &b, "other")?;
                let alpha = b.opt_scalar("alpha").unwrap_or(Scalar::Int(1));
                let op = if call.op.kind() == K::Add {
                    Op::Add
                } else {
                    Op::Sub
                };
                let alpha_is_one = alpha.to_f64() == 1.0;
                one(self.elementwise(node, &[x, y], out, |cx, a| {
                    let mut rhs = a[1];
                    if !alpha_is_one {
                        let k = cx.body.constant(scalar_const(alpha), out);
                        rhs = cx.body.binary(Op::Mul, rhs, k);
                    }
                    cx.body.binary(op, a[0], rhs)
                }))
            }
            K::Mul | K::Maximum | K::Minimum | K::Pow => {
                let second = if call.op.kind() == K::Pow {
                    "exponent"
                } else {
                    "other"
                };
                let x = self.operand(node, &b, "self")?;
                let y = self.operand(node, &b, second)?;
                let op = match call.op.kind() {
                    K::Mul => Op::Mul,
                    K::Maximum => Op::Maximum,
                    K::Minimum => Op::Minimum,
                    _ => Op::Pow,
                };
                one(self.elementwise(node, &[x, y], out, |cx, a| cx.body.binary(op, a[0], a[1])))
            }
            K::Div => {
                let x = self.operand(node, &b, "self")?;
                let y = self.operand(node, &b, "other")?;
                let op = match b.opt_str("rounding_mode") {
                    None => Op::TrueDiv,
                    Some("floor") => Op::FloorDiv,
                    Some("trunc") => Op::TruncDiv,
                    Some(m) => {
                        return Err(Self::unsupported(
                            node,
                            call,
                            format!("rounding_mode '{m}'"),
                        ));
                    }
                };
                one(self.elementwise(node, &[x, y], out, |cx, a| cx.body.binary(op, a[0], a[1])))
            }
            K::Eq | K::Ne | K::Lt | K::Le | K::Gt | K::Ge => {
                let x = self.operand(node, &b, "self")?;
                let y = self.operand(node, &b, "other")?;
                let compute = result_type(&[self.promotion_operand(x), self.promotion_operand(y)]);
                let op = match call.op.kind() {
                    K::Eq => Op::Eq,
                    K::Ne => Op::Ne,
                    K::Lt => Op::Lt,
                    K::Le => Op::Le,
                    K::Gt => Op::Gt,
                    _ => Op::Ge,
                };
                one(self.elementwise(node, &[x, y], compute, |cx, a| {
                    cx.body.binary(op, a[0], a[1])
                }))
            }
            K::LogicalAnd | K::LogicalOr => {
                let x = self.operand(node, &b, "self")?;
                let y = self.operand(node, &b, "other")?;
                let op = if call.op.kind() == K::LogicalAnd {
                    Op::LogicalAnd
                } else {
                    Op::LogicalOr
                };
                one(self.elementwise(node, &[x, y], DType::Bool, |cx, a| {
                    cx.body.binary(op, a[0], a[1])
                }))
            }
            K::LogicalNot => {
                let x = self.operand(node, &b, "self")?;
                one(self.elementwise(node, &[x], DType::Bool, |cx, a| {
                    cx.body.unary(Op::LogicalNot, a[0])
                }))
            }
            K::BitwiseNot | K::Neg | K::Abs | K::Relu => {
                let x = self.operand(node, &b, "self")?;
                let op = match call.op.kind() {
                    K::BitwiseNot => Op::BitwiseNot,
                    K::Neg => Op::Neg,
                    K::Abs => Op::Abs,
                    _ => Op::Relu,
                };
                one(self.elementwise(node, &[x], out, |cx, a| cx.body.unary(op, a[0])))
            }
            K::Exp
            | K::Log
            | K::Log1p
            | K::Sqrt
            | K::Rsqrt
            | K::Sin
            | K::Cos
            | K::Tanh
            | K::Erf
            | K::Sigmoid
            | K::Reciprocal => {
                let x = self.operand(node, &b, "self")?;
                let op = match call.op.kind() {
                    K::Exp => Op::Exp,
                    K::Log => Op::Log,
                    K::Log1p => Op::Log1p,
                    K::Sqrt => Op::Sqrt,
                    K::Rsqrt => Op::Rsqrt,
                    K::Sin => Op::Sin,
                    K::Cos => Op::Cos,
                    K::Tanh => Op::Tanh,
                    K::Erf => Op::Erf,
                    K::Sigmoid => Op::Sigmoid,
                    _ => Op::Reciprocal,
                };
                one(self.elementwise(node, &[x], out, |cx, a| cx.body.unary(op, a[0])))
            }
            K::Gelu => {
                let x = self.operand(node, &b, "self")?;
                let tanh = b.opt_str("approximate") == Some("tanh");
                one(self.elementwise(node, &[x], out, |cx, a| {
                    let body = &mut cx.body;
                    let x = a[0];
                    let c = |body: &mut crate::body::ExprGraph, v: f64| {
                        body.constant(Const::Float(v), out)
                    };
                    let inner = if tanh {
                        // 0.5*x*(1 + tanh(sqrt(2/pi) * (x + 0.044715*x^3)))
                        let x2 = body.binary(Op::Mul, x, x);
                        let x3 = body.binary(Op::Mul, x2, x);
                        let k = c(body, 0.044715);
                        let kx3 = body.binary(Op::Mul, x3, k);
                        let s = body.binary(Op::Add, x, kx3);
                        let beta = c(
                            body,
                            std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2,
                        );
                        let z = body.binary(Op::Mul, s, beta);
                        body.unary(Op::Tanh, z)
                    } else {
                        // 0.5*x*(1 + erf(x / sqrt(2)))
                        let k = c(body, std::f64::consts::FRAC_1_SQRT_2);
                        let z = body.binary(Op::Mul, x, k);
                        body.unary(Op::Erf, z)
                    };
                    let one_ = c(body, 1.0);
                    let t = body.binary(Op::Add, inner, one_);
                    let half = c(body, 0.5);
                    let hx = body.binary(Op::Mul, x, half);
                    body.binary(Op::Mul, hx, t)
                }))
            }
            K::Silu => {
                let x = self.operand(node, &b, "self")?;
                one(self.elementwise(node, &[x], out, |cx, a| {
                    let s = cx.body.unary(Op::Sigmoid, a[0]);
                    cx.body.binary(Op::Mul, a[0], s)
                }))
            }
            K::Where => {
                let c = self.operand(node, &b, "condition")?;
                let x = self.operand(node, &b, "self")?;
                let y = self.operand(node, &b, "other")?;
                let meta_sizes = meta.sizes.clone();
                let mut cx = BodyCx::new(&meta_sizes);
                let cond = self.operand_expr(&mut cx, c, DType::Bool);
                let xe = self.operand_expr(&mut cx, x, out);
                let ye = self.operand_expr(&mut cx, y, out);
                let root = cx.body.where_(cond, xe, ye);
                one(self.finish_pointwise(node, cx, root, out))
            }
            K::Clamp => {
                let x = self.operand(node, &b, "self")?;
                let lo = self.opt_operand(node, &b, "min")?;
                let hi = self.opt_operand(node, &b, "max")?;
                let mut operands = vec![x];
                operands.extend(lo);
                operands.extend(hi);
                let (has_lo, has_hi) = (lo.is_some(), hi.is_some());
                one(self.elementwise(node, &operands, out, |cx, a| {
                    let mut r = a[0];
                    let mut k = 1;
                    if has_lo {
                        r = cx.body.binary(Op::Maximum, r, a[k]);
                        k += 1;
                    }
                    if has_hi {
                        r = cx.body.binary(Op::Minimum, r, a[k]);
                    }
                    r
                }))
            }
            K::ToCopy | K::Clone => {
                let x = self.operand(node, &b, "self")?;
                one(self.elementwise(node, &[x], out, |_, a| a[0]))
            }
            K::Sum | K::Prod => {
                let x = self.tensor(node, &b, "self")?;
                let rank = self.g.tensors[x].sizes.len();
                let (dims, keepdim) =
                    reduction_dims(&b, rank).map_err(|e| Self::graph_err(node, e))?;
                let rt = if call.op.kind() == K::Sum {
                    ReductionType::Sum
                } else {
                    ReductionType::Prod
                };
                one(self.reduce(node, x, &dims, keepdim, rt, out))
            }
            K::Amax | K::Amin => {
                let x = self.tensor(node, &b, "self")?;
                let rank = self.g.tensors[x].sizes.len();
                let (dims, keepdim) =
                    reduction_dims(&b, rank).map_err(|e| Self::graph_err(node, e))?;
                let rt = if call.op.kind() == K::Amax {
                    ReductionType::Max
                } else {
                    ReductionType::Min
                };
                one(self.reduce(node, x, &dims, keepdim, rt, out))
            }
            K::Argmax | K::Argmin => {
                let x = self.tensor(node, &b, "self")?;
                let rank = self.g.tensors[x].sizes.len();
                let keepdim = b.bool("keepdim").map_err(|e| Self::graph_err(node, e))?;
                let dims = match b.opt_int("dim") {
                    Some(d) => vec![normalize_dim(d, rank).map_err(|e| Self::graph_err(node, e))?],
                    None => (0..rank).collect(),
                };
                let rt = if call.op.kind() == K::Argmax {
                    ReductionType::Argmax
                } else {
                    ReductionType::Argmin
                };
                let r = self.reduce(
                    node,
                    x,
                    &dims,
                    keepdim && b.opt_int("dim").is_some(),
                    rt,
                    out,
                );
                if keepdim && b.opt_int("dim").is_none() {
                    // argmax(dim=None, keepdim=True) keeps every dim as 1.
                    let map = vec![];
                    return one(self.make_view(node, r, meta.sizes.clone(), map));
                }
                one(r)
            }
            K::Mean => {
                let x = self.tensor(node, &b, "self")?;
                let rank = self.g.tensors[x].sizes.len();
                let (dims, keepdim) =
                    reduction_dims(&b, rank).map_err(|e| Self::graph_err(node, e))?;
                one(self.mean(node, x, &dims, keepdim, out))
            }
            K::Var | K::VarMean => {
                let x = self.tensor(node, &b, "self")?;
                let rank = self.g.tensors[x].sizes.len();
                let (dims, keepdim) =
                    reduction_dims(&b, rank).map_err(|e| Self::graph_err(node, e))?;
                let correction = if b.has("correction") {
                    b.opt_scalar("correction").map_or(1.0, |s| s.to_f64())
                } else if b.bool("unbiased").map_err(|e| Self::graph_err(node, e))? {
                    1.0
                } else {
                    0.0
                };
                let (var, mean) = self.var_mean(node, x, &dims, keepdim, correction, out);
                if call.op.kind() == K::Var {
                    one(var)
                } else {
                    Ok(vec![var, mean])
                }
            }
            K::Softmax | K::LogSoftmax | K::NativeLayerNorm => {
                Err(LowerError::NeedsDecomposition {
                    node: node.name.clone(),
                    op: call.op,
                })
            }
            K::View | K::Reshape | K::UnsafeView => {
                let x = self.tensor(node, &b, "self")?;
                let old = self.g.tensors[x].sizes.clone();
                let map = reshape_indexer(&old, &meta.sizes);
                one(self.make_view(node, x, meta.sizes.clone(), map))
            }
            K::Permute | K::Transpose | K::T => {
                let x = self.tensor(node, &b, "self")?;
                let rank = self.g.tensors[x].sizes.len();
                let perm: Vec<usize> = match call.op.kind() {
                    K::Permute => {
                        let dims = b.int_list("dims").map_err(|e| Self::graph_err(node, e))?;
                        dims.iter()
                            .map(|&d| normalize_dim(d, rank))
                            .collect::<std::result::Result<_, _>>()
                            .map_err(|e| Self::graph_err(node, e))?
                    }
                    K::Transpose => {
                        let d0 = b.int("dim0").map_err(|e| Self::graph_err(node, e))?;
                        let d1 = b.int("dim1").map_err(|e| Self::graph_err(node, e))?;
                        let d0 = normalize_dim(d0, rank).map_err(|e| Self::graph_err(node, e))?;
                        let d1 = normalize_dim(d1, rank).map_err(|e| Self::graph_err(node, e))?;
                        let mut p: Vec<usize> = (0..rank).collect();
                        if rank > 0 {
                            p.swap(d0, d1);
                        }
                        p
                    }
                    _ => (0..rank).rev().collect(),
                };
                if perm.len() != rank {
                    return Err(LowerError::Invalid(format!(
                        "{}: permutation of {} dims for a rank-{rank} tensor",
                        node.name,
                        perm.len()
                    )));
                }
                // Old dim perm[i] is read at new position i.
                let mut map = vec![IndexExpr::zero(); rank];
                for (i, &d) in perm.iter().enumerate() {
                    map[d] = IndexExpr::var(Var::p(i));
                }
                one(self.make_view(node, x, meta.sizes.clone(), map))
            }
            K::Expand => {
                let x = self.tensor(node, &b, "self")?;
                let old = self.g.tensors[x].sizes.clone();
                let lead = meta.sizes.len() - old.len();
                let map = old
                    .iter()
                    .enumerate()
                    .map(|(j, &s)| {
                        if s == 1 {
                            IndexExpr::zero()
                        } else {
                            IndexExpr::var(Var::p(j + lead))
                        }
                    })
                    .collect();
                one(self.make_view(node, x, meta.sizes.clone(), map))
            }
            K::Unsqueeze => {
                let x = self.tensor(node, &b, "self")?;
                let rank = self.g.tensors[x].sizes.len();
                let d = normalize_dim(
                    b.int("dim").map_err(|e| Self::graph_err(node, e))?,
                    rank + 1,
                )
                .map_err(|e| Self::graph_err(node, e))?;
                let map = (0..rank)
                    .map(|j| IndexExpr::var(Var::p(if j < d { j } else { j + 1 })))
                    .collect();
                one(self.make_view(node, x, meta.sizes.clone(), map))
            }
            K::Squeeze => {
                let x = self.tensor(node, &b, "self")?;
                let old = self.g.tensors[x].sizes.clone();
                let rank = old.len();
                let dims: Vec<usize> = match b.opt_int_list("dim") {
                    Some(d) if b.has("dim") => d
                        .iter()
                        .map(|&d| normalize_dim(d, rank))
                        .collect::<std::result::Result<_, _>>()
                        .map_err(|e| Self::graph_err(node, e))?,
                    _ => (0..rank).collect(),
                };
                let mut map = Vec::with_capacity(rank);
                let mut k = 0;
                for (j, &s) in old.iter().enumerate() {
                    if dims.contains(&j) && s == 1 {
                        map.push(IndexExpr::zero());
                    } else {
                        map.push(IndexExpr::var(Var::p(k)));
                        k += 1;
                    }
                }
                one(self.make_view(node, x, meta.sizes.clone(), map))
            }
            K::Slice => {
                let x = self.tensor(node, &b, "self")?;
                let old = self.g.tensors[x].sizes.clone();
                if old.is_empty() {
                    return Err(Self::unsupported(node, call, "slice of a 0-dim tensor"));
                }
                let d = normalize_dim(
                    b.int("dim").map_err(|e| Self::graph_err(node, e))?,
                    old.len(),
                )
                .map_err(|e| Self::graph_err(node, e))?;
                let (start, _, step) =
                    slice_range(&b, old[d]).map_err(|e| Self::graph_err(node, e))?;
                let map = (0..old.len())
                    .map(|j| {
                        let v = IndexExpr::var(Var::p(j));
                        if j == d {
                            v.scale(step as i64).add_constant(start as i64)
                        } else {
                            v
                        }
                    })
                    .collect();
                one(self.make_view(node, x, meta.sizes.clone(), map))
            }
            K::Select => {
                let x = self.tensor(node, &b, "self")?;
                let old = self.g.tensors[x].sizes.clone();
                if old.is_empty() {
                    return Err(Self::unsupported(node, call, "select of a 0-dim tensor"));
                }
                let d = normalize_dim(
                    b.int("dim").map_err(|e| Self::graph_err(node, e))?,
                    old.len(),
                )
                .map_err(|e| Self::graph_err(node, e))?;
                let mut index = b.int("index").map_err(|e| Self::graph_err(node, e))?;
                if index < 0 {
                    index += old[d] as i64;
                }
                let map = (0..old.len())
                    .map(|j| match j.cmp(&d) {
                        std::cmp::Ordering::Less => IndexExpr::var(Var::p(j)),
                        std::cmp::Ordering::Equal => IndexExpr::constant(index),
                        std::cmp::Ordering::Greater => IndexExpr::var(Var::p(j - 1)),
                    })
                    .collect();
                one(self.make_view(node, x, meta.sizes.clone(), map))
            }
            K::SplitWithSizes => {
                let x = self.tensor(node, &b, "self")?;
                let old = self.g.tensors[x].sizes.clone();
                let d = normalize_dim(
                    b.int("dim").map_err(|e| Self::graph_err(node, e))?,
                    old.len(),
                )
                .map_err(|e| Self::graph_err(node, e))?;
                let mut start = 0i64;
                let mut parts = Vec::new();
                for m in &node.outputs {
                    let map = (0..old.len())
                        .map(|j| {
                            let v = IndexExpr::var(Var::p(j));
                            if j == d { v.add_constant(start) } else { v }
                        })
                        .collect();
                    parts.push(self.make_view(node, x, m.sizes.clone(), map));
                    start += m.sizes.get(d).copied().unwrap_or(0) as i64;
                }
                Ok(parts)
            }
            K::Alias => {
                let x = self.tensor(node, &b, "self")?;
                let rank = self.g.tensors[x].sizes.len();
                let map = positional_index(&self.g.tensors[x].sizes.clone());
                debug_assert_eq!(map.len(), rank);
                one(self.make_view(node, x, meta.sizes.clone(), map))
            }
            K::Cat => one(self.cat(node, &b)?),
            K::Full => {
                let fill = b
                    .scalar("fill_value")
                    .map_err(|e| Self::graph_err(node, e))?;
                let mut cx = BodyCx::new(&meta.sizes);
                let root = cx.body.constant(scalar_const(fill), out);
                one(self.finish_pointwise(node, cx, root, out))
            }
            K::ScalarTensor => {
                let s = b.scalar("s").map_err(|e| Self::graph_err(node, e))?;
                let mut cx = BodyCx::new(&meta.sizes);
                let root = cx.body.constant(scalar_const(s), out);
                one(self.finish_pointwise(node, cx, root, out))
            }
            K::Arange => {
                let (start, _, step) = arange_params(&b).map_err(|e| Self::graph_err(node, e))?;
                let mut cx = BodyCx::new(&meta.sizes);
                let i = cx.idx.first().cloned().unwrap_or_default();
                let ints = !out.is_float() && start.fract() == 0.0 && step.fract() == 0.0;
                let root = if ints {
                    let e = i.scale(step as i64).add_constant(start as i64);
                    cx.body.index_expr(e, DType::I64)
                } else {
                    // start + i*step in double, then cast (PyTorch's accscalar).
                    let ie = cx.body.index_expr(i, DType::I64);
                    let fi = cx.body.to_dtype(ie, DType::F64);
                    let st = cx.body.constant(Const::Float(step), DType::F64);
                    let s0 = cx.body.constant(Const::Float(start), DType::F64);
                    let m = cx.body.binary(Op::Mul, fi, st);
                    cx.body.binary(Op::Add, m, s0)
                };
                one(self.finish_pointwise(node, cx, root, out))
            }
            K::Mm | K::Bmm => {
                let x = self.tensor(node, &b, "self")?;
                let w = self.tensor(node, &b, "mat2")?;
                let op = if call.op.kind() == K::Mm {
                    MatmulOp::Mm
                } else {
                    MatmulOp::Bmm
                };
                one(self.extern_kernel(
                    node,
                    ExternKind::Matmul(op),
                    &[x, w],
                    meta.sizes.clone(),
                    out,
                ))
            }
            K::Addmm => {
                let bias = self.operand(node, &b, "self")?;
                let x = self.tensor(node, &b, "mat1")?;
                let w = self.tensor(node, &b, "mat2")?;
                let beta = b.opt_scalar("beta").unwrap_or(Scalar::Int(1));
                let alpha = b.opt_scalar("alpha").unwrap_or(Scalar::Int(1));
                let mm = self.extern_kernel(
                    node,
                    ExternKind::Matmul(MatmulOp::Mm),
                    &[x, w],
                    meta.sizes.clone(),
                    out,
                );
                let operands = if beta.to_f64() == 0.0 {
                    vec![Val::Tensor(mm)]
                } else {
                    vec![Val::Tensor(mm), bias]
                };
                one(self.elementwise(node, &operands, out, |cx, a| {
                    let mut r = a[0];
                    if alpha.to_f64() != 1.0 {
                        let k = cx.body.constant(scalar_const(alpha), out);
                        r = cx.body.binary(Op::Mul, r, k);
                    }
                    if let Some(&bias) = a.get(1) {
                        let mut bias = bias;
                        if beta.to_f64() != 1.0 {
                            let k = cx.body.constant(scalar_const(beta), out);
                            bias = cx.body.binary(Op::Mul, bias, k);
                        }
                        r = cx.body.binary(Op::Add, r, bias);
                    }
                    r
                }))
            }
        }
    }

    /// A reduction of `x` over `dims` (realized at once), or a pointwise value when nothing is
    /// actually reduced (every reduced dim has size 1).
    pub(crate) fn reduce(
        &mut self,
        node: &Node,
        x: TensorId,
        dims: &[usize],
        keepdim: bool,
        rt: ReductionType,
        dtype: DType,
    ) -> TensorId {
        let in_sizes = self.g.tensors[x].sizes.clone();
        let out_sizes: Vec<usize> = (0..in_sizes.len())
            .filter_map(|i| match (dims.contains(&i), keepdim) {
                (true, true) => Some(1),
                (true, false) => None,
                (false, _) => Some(in_sizes[i]),
            })
            .collect();
        let red_sizes: Vec<usize> = dims.iter().map(|&d| in_sizes[d]).collect();
        let k = out_sizes.len();
        // Positional variables: p0..p<k> over the output, p<k>.. over the reduced dims.
        let all: Vec<usize> = out_sizes.iter().chain(&red_sizes).copied().collect();
        let mut cx = BodyCx::new(&all);
        let mut out_pos = 0;
        let idx: Vec<IndexExpr> = (0..in_sizes.len())
            .map(|i| {
                if let Some(r) = dims.iter().position(|&d| d == i) {
                    if keepdim {
                        out_pos += 1;
                    }
                    cx.idx[k + r].clone()
                } else {
                    out_pos += 1;
                    cx.idx[out_pos - 1].clone()
                }
            })
            .collect();
        let value = self.load_at(&mut cx, x, &idx, None);
        if red_sizes.iter().product::<usize>() == 1 {
            // Nothing to combine: the value itself (argmax/argmin: position 0).
            let root = match rt {
                ReductionType::Argmax | ReductionType::Argmin => {
                    cx.body.constant(Const::Int(0), dtype)
                }
                _ => value,
            };
            let origins = self.gather_origins(node, &cx.reads);
            let root = cx.body.to_dtype(root, dtype);
            return self.new_lazy(out_sizes, dtype, cx.body, root, origins);
        }
        let root = cx.body.reduction(rt, value, dtype);
        let origins = self.gather_origins(node, &cx.reads);
        let s = self.g.storages.push(StorageBox {
            sizes: out_sizes.clone(),
            dtype,
            data: StorageData::Reduction(Reduction {
                ranges: out_sizes.clone(),
                reduction_ranges: red_sizes,
                reduction_type: rt,
                body: cx.body,
                root,
            }),
            origins,
        });
        self.realize(s);
        self.g.tensors.push(TensorBox {
            storage: s,
            view: None,
            sizes: out_sizes,
            dtype,
            view_origins: Vec::new(),
        })
    }

    /// `mean`: a sum (in f32 for half types) realized, divided by the count in the reader.
    fn mean(
        &mut self,
        node: &Node,
        x: TensorId,
        dims: &[usize],
        keepdim: bool,
        dtype: DType,
    ) -> TensorId {
        let acc = if matches!(dtype, DType::F16 | DType::BF16) {
            DType::F32
        } else {
            dtype
        };
        let sizes = self.g.tensors[x].sizes.clone();
        let n: usize = dims.iter().map(|&d| sizes[d]).product();
        let s = self.reduce(node, x, dims, keepdim, ReductionType::Sum, acc);
        self.divide_by(node, s, n as f64, acc, dtype)
    }

    /// A pointwise `t / n`, computed in `acc` and cast to `dtype`.
    fn divide_by(
        &mut self,
        node: &Node,
        t: TensorId,
        n: f64,
        acc: DType,
        dtype: DType,
    ) -> TensorId {
        let sizes = self.g.tensors[t].sizes.clone();
        let mut cx = BodyCx::new(&sizes);
        let v = self.load_broadcast(&mut cx, t);
        let v = cx.body.to_dtype(v, acc);
        let k = cx.body.constant(Const::Float(n), acc);
        let root = cx.body.binary(Op::TrueDiv, v, k);
        self.finish_pointwise(node, cx, root, dtype)
    }

    /// `var`/`var_mean` in two passes: the mean, then the sum of squared deviations.
    fn var_mean(
        &mut self,
        node: &Node,
        x: TensorId,
        dims: &[usize],
        keepdim: bool,
        correction: f64,
        dtype: DType,
    ) -> (TensorId, TensorId) {
        let acc = if matches!(dtype, DType::F16 | DType::BF16) {
            DType::F32
        } else {
            dtype
        };
        let sizes = self.g.tensors[x].sizes.clone();
        let n: usize = dims.iter().map(|&d| sizes[d]).product();
        let s = self.reduce(node, x, dims, true, ReductionType::Sum, acc);
        let mean_k = self.divide_by(node, s, n as f64, acc, acc);
        // (x - mean)^2, mean broadcast over the reduced dims.
        let mut cx = BodyCx::new(&sizes);
        let xv = self.load_broadcast(&mut cx, x);
        let xv = cx.body.to_dtype(xv, acc);
        let mv = self.load_broadcast(&mut cx, mean_k);
        let d = cx.body.binary(Op::Sub, xv, mv);
        let sq = cx.body.binary(Op::Mul, d, d);
        let sq = self.finish_pointwise(node, cx, sq, acc);
        let ss = self.reduce(node, sq, dims, keepdim, ReductionType::Sum, acc);
        let denom = (n as f64 - correction).max(0.0);
        let var = self.divide_by(node, ss, denom, acc, dtype);
        let mean = if keepdim {
            mean_k
        } else {
            let out: Vec<usize> = (0..sizes.len())
                .filter(|i| !dims.contains(i))
                .map(|i| sizes[i])
                .collect();
            let mut k = 0;
            let map = (0..sizes.len())
                .map(|i| {
                    if dims.contains(&i) {
                        IndexExpr::zero()
                    } else {
                        k += 1;
                        IndexExpr::var(Var::p(k - 1))
                    }
                })
                .collect();
            self.make_view(node, mean_k, out, map)
        };
        let mean = if dtype == acc {
            mean
        } else {
            let m_sizes = self.g.tensors[mean].sizes.clone();
            let mut cx = BodyCx::new(&m_sizes);
            let v = self.load_broadcast(&mut cx, mean);
            self.finish_pointwise(node, cx, v, dtype)
        };
        (var, mean)
    }

    /// `cat`: one pointwise body that reads input `i` (masked to its range along `dim`) and
    /// picks it with `where` on the index; nothing is copied into a temporary.
    fn cat(&mut self, node: &Node, b: &Bound<'_>) -> Result<TensorId> {
        let meta = node.meta().clone();
        let out = meta.dtype;
        let nodes = b.tensors("tensors").map_err(|e| Self::graph_err(node, e))?;
        let parts: Vec<TensorId> = nodes
            .iter()
            .map(|&n| self.value(n, &node.name))
            .collect::<Result<_>>()?;
        // Legacy rule: 1-D empty inputs are skipped.
        let parts: Vec<TensorId> = parts
            .into_iter()
            .filter(|&t| self.g.tensors[t].sizes != [0])
            .collect();
        let mut cx = BodyCx::new(&meta.sizes);
        let Some(&first) = parts.first() else {
            let root = cx.body.constant(Const::Int(0), out);
            return Ok(self.finish_pointwise(node, cx, root, out));
        };
        let rank = self.g.tensors[first].sizes.len();
        let d = normalize_dim(b.int("dim").map_err(|e| Self::graph_err(node, e))?, rank)
            .map_err(|e| Self::graph_err(node, e))?;
        let mut pieces: Vec<(TensorId, usize, usize)> = Vec::new();
        let mut start = 0;
        for &t in &parts {
            let len = self.g.tensors[t].sizes[d];
            if len > 0 {
                pieces.push((t, start, start + len));
            }
            start += len;
        }
        let pos = cx.idx[d].clone();
        let pos_e = cx.body.index_expr(pos.clone(), DType::I64);
        let mut values: Vec<(Option<ExprId>, ExprId)> = Vec::new();
        let n = pieces.len();
        for (k, &(t, lo, hi)) in pieces.iter().enumerate() {
            let mask = if n == 1 {
                None
            } else {
                let lt = (k + 1 < n).then(|| {
                    let c = cx.body.constant(Const::Int(hi as i64), DType::I64);
                    cx.body.binary(Op::Lt, pos_e, c)
                });
                let ge = (k > 0).then(|| {
                    let c = cx.body.constant(Const::Int(lo as i64), DType::I64);
                    cx.body.binary(Op::Ge, pos_e, c)
                });
                match (ge, lt) {
                    (Some(a), Some(b)) => Some(cx.body.binary(Op::LogicalAnd, a, b)),
                    (a, b) => a.or(b),
                }
            };
            let mut idx = cx.idx.clone();
            idx[d] = pos.add_constant(-(lo as i64)).simplify(&cx.ranges);
            let v = self.load_at(&mut cx, t, &idx, mask);
            let v = cx.body.to_dtype(v, out);
            values.push((mask, v));
        }
        let mut acc = values.last().expect("at least one piece").1;
        for &(mask, v) in values.iter().rev().skip(1) {
            let m = mask.expect("several pieces are masked");
            acc = cx.body.where_(m, v, acc);
        }
        Ok(self.finish_pointwise(node, cx, acc, out))
    }
}

/// For a reshape from `old` to `new` sizes (same element count): `old`'s index along each dim
/// as an expression over `new`'s positional variables (through the flat row-major position).
pub(crate) fn reshape_indexer(old: &[usize], new: &[usize]) -> Vec<IndexExpr> {
    if old.iter().product::<usize>() == 0 {
        return vec![IndexExpr::zero(); old.len()];
    }
    let new_strides = contiguous_strides(new);
    let flat = positional_index(new)
        .iter()
        .zip(&new_strides)
        .fold(IndexExpr::zero(), |acc, (e, &s)| {
            acc.add(&e.scale(s as i64))
        });
    let old_strides = contiguous_strides(old);
    old.iter()
        .zip(&old_strides)
        .enumerate()
        .map(|(j, (&size, &stride))| {
            if size == 1 {
                IndexExpr::zero()
            } else if j == 0 {
                flat.floor_div(stride as i64)
            } else {
                flat.modular(stride as i64, size as i64)
            }
        })
        .collect()
}
