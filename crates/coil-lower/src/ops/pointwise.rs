//! Lowerings of pointwise ops (type promotion, broadcasting, each op's body) and of copies
//! (`clone`, `_to_copy`, `cat`).

use coil_graph::{Bound, Call, DType, Node, Scalar, normalize_dim, result_type};
use coil_graph::{FloatFn, PointwiseKind};

use super::scalar_const;
use crate::body::{Const, ExprId, Op};
use crate::ir::TensorId;
use crate::lowering::{BodyCx, Lowerer, Result};

impl Lowerer<'_> {
    /// Lowers a call of a pointwise op or a copy.
    pub(super) fn lower_pointwise(
        &mut self,
        node: &Node,
        call: &Call,
        kind: PointwiseKind,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let meta = node.meta().clone();
        let out = meta.dtype;
        use PointwiseKind as K;
        let one = |t: TensorId| Ok(vec![t]);
        match kind {
            K::Add | K::Sub => {
                let x = self.operand(node, b, "self")?;
                let y = self.operand(node, b, "other")?;
                let alpha = b.opt_scalar("alpha").unwrap_or(Scalar::Int(1));
                let op = if kind == K::Add { Op::Add } else { Op::Sub };
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
            K::Div => {
                let x = self.operand(node, b, "self")?;
                let y = self.operand(node, b, "other")?;
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
            K::CopyValues => {
                let y = self.operand(node, b, "src")?;
                one(self.elementwise(node, &[y], out, |_, a| a[0]))
            }
            K::Fmod | K::Remainder if out.is_float() => {
                // Exact, in integer ops (`math/fmod.rs`): `a - trunc(a / b) * b` is not.
                let x = self.operand(node, b, "self")?;
                let y = self.operand(node, b, "other")?;
                let t = crate::math::compute_dtype(out);
                let native = self.config.native_fmod;
                one(self.elementwise(node, &[x, y], t, |cx, a| {
                    if kind == K::Fmod {
                        crate::math::fmod::fmod_of(&mut cx.body, a[0], a[1], t, native)
                    } else {
                        crate::math::fmod::remainder(&mut cx.body, a[0], a[1], t, native)
                    }
                }))
            }
            K::Fmod | K::Remainder => {
                let x = self.operand(node, b, "self")?;
                let y = self.operand(node, b, "other")?;
                one(self.elementwise(node, &[x, y], out, |cx, a| {
                    let (p, q) = (a[0], a[1]);
                    let quotient = cx.body.binary(Op::TruncDiv, p, q);
                    let back = cx.body.binary(Op::Mul, quotient, q);
                    let m = cx.body.binary(Op::Sub, p, back);
                    if kind == K::Fmod {
                        return m;
                    }
                    // remainder takes the divisor's sign: add it back when the signs differ.
                    let zero = cx.body.constant(Const::Int(0), out);
                    let m_neg = cx.body.binary(Op::Lt, m, zero);
                    let m_pos = cx.body.binary(Op::Gt, m, zero);
                    let q_neg = cx.body.binary(Op::Lt, q, zero);
                    let q_pos = cx.body.binary(Op::Gt, q, zero);
                    let below = cx.body.binary(Op::LogicalAnd, m_neg, q_pos);
                    let above = cx.body.binary(Op::LogicalAnd, m_pos, q_neg);
                    let differ = cx.body.binary(Op::LogicalOr, below, above);
                    let shifted = cx.body.binary(Op::Add, m, q);
                    cx.body.where_(differ, shifted, m)
                }))
            }
            K::Gelu => {
                let x = self.operand(node, b, "self")?;
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
                let x = self.operand(node, b, "self")?;
                one(self.elementwise(node, &[x], out, |cx, a| {
                    let s = cx.body.unary(Op::Sigmoid, a[0]);
                    cx.body.binary(Op::Mul, a[0], s)
                }))
            }
            K::RoundDecimals => {
                let x = self.operand(node, b, "self")?;
                let d = b.int("decimals").map_err(|e| Self::graph_err(node, e))?;
                let (scale, divide_first) = coil_kernel::scalar::round_decimals_scale(d);
                let t = out.opmath();
                one(self.elementwise(node, &[x], t, |cx, a| {
                    let p = cx.body.constant(Const::Float(scale), t);
                    let (first, then) = if divide_first {
                        (Op::TrueDiv, Op::Mul)
                    } else {
                        (Op::Mul, Op::TrueDiv)
                    };
                    let scaled = cx.body.binary(first, a[0], p);
                    let r = cx.body.unary(Op::Round, scaled);
                    cx.body.binary(then, r, p)
                }))
            }
            K::Where => {
                let c = self.operand(node, b, "condition")?;
                let x = self.operand(node, b, "self")?;
                let y = self.operand(node, b, "other")?;
                let meta_sizes = meta.sizes.clone();
                let mut cx = BodyCx::new(&meta_sizes);
                let cond = self.operand_expr(&mut cx, c, DType::Bool);
                let xe = self.operand_expr(&mut cx, x, out);
                let ye = self.operand_expr(&mut cx, y, out);
                let root = cx.body.where_(cond, xe, ye);
                one(self.finish_pointwise(node, cx, root, out))
            }
            K::Clamp => {
                let x = self.operand(node, b, "self")?;
                let lo = self.opt_operand(node, b, "min")?;
                let hi = self.opt_operand(node, b, "max")?;
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
            K::ToCopy => {
                let x = self.operand(node, b, "self")?;
                one(self.elementwise(node, &[x], out, |_, a| a[0]))
            }
            K::Hardswish | K::Hardsigmoid | K::Hardtanh | K::Softplus | K::LeakyRelu | K::Elu => {
                let x = self.operand(node, b, "self")?;
                let s = |n: &str, d: f64| b.opt_scalar(n).map_or(d, |v| v.to_f64());
                let params = match kind {
                    K::Hardtanh => [s("min_val", -1.0), s("max_val", 1.0), 0.0],
                    K::Softplus => [s("beta", 1.0), s("threshold", 20.0), 0.0],
                    K::LeakyRelu => [s("negative_slope", 0.01), 0.0, 0.0],
                    K::Elu => [s("alpha", 1.0), s("scale", 1.0), s("input_scale", 1.0)],
                    _ => [0.0; 3],
                };
                let compute = out.opmath();
                one(self.elementwise(node, &[x], compute, |cx, a| {
                    activation(&mut cx.body, kind, a[0], params, compute)
                }))
            }
            K::MaskedFill => {
                let x = self.operand(node, b, "self")?;
                let m = self.operand(node, b, "mask")?;
                let v = self.operand(node, b, "value")?;
                let mut cx = BodyCx::new(&meta.sizes);
                let cond = self.operand_expr(&mut cx, m, DType::Bool);
                let xe = self.operand_expr(&mut cx, x, out);
                let ve = self.operand_expr(&mut cx, v, out);
                let root = cx.body.where_(cond, ve, xe);
                one(self.finish_pointwise(node, cx, root, out))
            }
            K::Tril | K::Triu => {
                let x = self.operand(node, b, "self")?;
                let diag = b.int("diagonal").map_err(|e| Self::graph_err(node, e))?;
                let rank = meta.sizes.len();
                let mut cx = BodyCx::new(&meta.sizes);
                let xe = self.operand_expr(&mut cx, x, out);
                // Keep (row r, col c) where c - r <= diagonal (tril) or >= diagonal (triu).
                let d = cx.idx[rank - 1].add(&cx.idx[rank - 2].scale(-1));
                let dv = cx.body.index_expr(d, DType::I64);
                let k = cx.body.constant(Const::Int(diag), DType::I64);
                let keep = cx
                    .body
                    .binary(if kind == K::Tril { Op::Le } else { Op::Ge }, dv, k);
                let zero = cx.body.constant(Const::Int(0), out);
                let root = cx.body.where_(keep, xe, zero);
                one(self.finish_pointwise(node, cx, root, out))
            }
        }
    }

    /// Lowers a float function of the table through its expansion into kernel ops
    /// ([`crate::math::expand`]), computed in f32 for the 16-bit types.
    pub(super) fn lower_float(
        &mut self,
        node: &Node,
        f: FloatFn,
        b: &Bound<'_>,
    ) -> Result<TensorId> {
        let out = node.meta().dtype;
        let names = f.params();
        let xs = names
            .iter()
            .map(|n| self.operand(node, b, n))
            .collect::<Result<Vec<_>>>()?;
        let t = if f.wide() && self.config.f64_math {
            DType::F64
        } else {
            crate::math::compute_dtype(out)
        };
        Ok(self.elementwise(node, &xs, t, |cx, a| {
            crate::math::expand(f, &mut cx.body, a, t)
        }))
    }

    /// Lowers a `clone`: its input, materialized.
    pub(super) fn lower_clone(&mut self, node: &Node, b: &Bound<'_>) -> Result<TensorId> {
        let x = self.operand(node, b, "self")?;
        Ok(self.elementwise(node, &[x], node.meta().dtype, |_, a| a[0]))
    }

    /// A kind whose body is one kernel op ([`coil_graph::OpKind::kernel_op`]) over its tensor and scalar
    /// operands in schema order: computed in the result's dtype; comparisons in their
    /// operands' promoted dtype (the Python number rounded to a 16-bit dtype first, as ATen's
    /// kernels take it: `x > 0.3` in bf16 is `x > 0.30078125`); the logical ops on bools;
    /// `floor`, `ceil`, `round` and `trunc` are the identity on integers.
    pub(super) fn lower_kernel_op(
        &mut self,
        node: &Node,
        call: &Call,
        op: Op,
        b: &Bound<'_>,
    ) -> Result<TensorId> {
        let out = node.meta().dtype;
        let names = call.op.schema().value_operands();
        let xs = names
            .iter()
            .map(|n| self.operand(node, b, n))
            .collect::<Result<Vec<_>>>()?;
        if xs.len() != op.arity() {
            return Err(Self::unsupported(
                node,
                call,
                format!("{} operands for {op}, which takes {}", xs.len(), op.arity()),
            ));
        }
        let compute = match op {
            Op::LogicalAnd | Op::LogicalOr | Op::LogicalNot => DType::Bool,
            _ if op.returns_bool() => result_type(
                &xs.iter()
                    .map(|&v| self.promotion_operand(v))
                    .collect::<Vec<_>>(),
            ),
            _ => out,
        };
        if matches!(op, Op::Floor | Op::Ceil | Op::Round | Op::Trunc) && !out.is_float() {
            return Ok(self.elementwise(node, &xs, out, |_, a| a[0]));
        }
        let xs: Vec<_> = if op.returns_bool() && compute != DType::Bool {
            xs.into_iter()
                .map(|v| match v {
                    super::Val::Scalar(s) => super::Val::Scalar(s.compared_in(compute)),
                    t => t,
                })
                .collect()
        } else {
            xs
        };
        Ok(self.elementwise(node, &xs, compute, |cx, a| {
            if a.len() == 2 {
                cx.body.binary(op, a[0], a[1])
            } else {
                cx.body.unary(op, a[0])
            }
        }))
    }

    /// `cat`: one pointwise body that reads input `i` (masked to its range along `dim`) and
    /// picks it with `where` on the index; nothing is copied into a temporary.
    pub(super) fn cat(&mut self, node: &Node, b: &Bound<'_>) -> Result<TensorId> {
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
        // Every piece empty along `dim`: the result has no elements, and any body will do.
        let Some(&(_, mut acc)) = values.last() else {
            let root = cx.body.constant(Const::Int(0), out);
            return Ok(self.finish_pointwise(node, cx, root, out));
        };
        for &(mask, v) in values.iter().rev().skip(1) {
            // Every piece but the last is masked to its range (`k > 0` or `hi < len`).
            let Some(m) = mask else { continue };
            acc = cx.body.where_(m, v, acc);
        }
        Ok(self.finish_pointwise(node, cx, acc, out))
    }
}

/// The body of a piecewise activation of `x` (in `dt`), from the ops every backend has:
/// hardswish `x * clamp(x + 3, 0, 6) / 6`, hardsigmoid `clamp(x + 3, 0, 6) / 6`, hardtanh
/// `clamp(x, lo, hi)`, softplus `x if x * beta > threshold else log1p(exp(x * beta)) / beta`,
/// leaky_relu `x if x > 0 else x * slope`, elu `scale * (x if x > 0 else alpha * (exp(x *
/// input_scale) - 1))`. NaN stays NaN (`maximum`/`minimum` propagate it; the comparisons pick
/// the branch that computes with it).
fn activation(
    body: &mut crate::body::ExprGraph,
    kind: PointwiseKind,
    x: ExprId,
    p: [f64; 3],
    dt: DType,
) -> ExprId {
    let c = |body: &mut crate::body::ExprGraph, v: f64| body.constant(Const::Float(v), dt);
    let hard = |body: &mut crate::body::ExprGraph| {
        let three = c(body, 3.0);
        let s = body.binary(Op::Add, x, three);
        let zero = c(body, 0.0);
        let six = c(body, 6.0);
        let lo = body.binary(Op::Maximum, s, zero);
        let r = body.binary(Op::Minimum, lo, six);
        body.binary(Op::TrueDiv, r, six)
    };
    match kind {
        PointwiseKind::Hardswish => {
            let h = hard(body);
            body.binary(Op::Mul, x, h)
        }
        PointwiseKind::Hardsigmoid => hard(body),
        PointwiseKind::Hardtanh => {
            let lo = c(body, p[0]);
            let hi = c(body, p[1]);
            let r = body.binary(Op::Maximum, x, lo);
            body.binary(Op::Minimum, r, hi)
        }
        PointwiseKind::Softplus => {
            let beta = c(body, p[0]);
            let threshold = c(body, p[1]);
            let xb = body.binary(Op::Mul, x, beta);
            let big = body.binary(Op::Gt, xb, threshold);
            let e = body.unary(Op::Exp, xb);
            let l = body.unary(Op::Log1p, e);
            let soft = body.binary(Op::TrueDiv, l, beta);
            body.where_(big, x, soft)
        }
        PointwiseKind::LeakyRelu => {
            let zero = c(body, 0.0);
            let slope = c(body, p[0]);
            let pos = body.binary(Op::Gt, x, zero);
            let neg = body.binary(Op::Mul, x, slope);
            body.where_(pos, x, neg)
        }
        _ => {
            let zero = c(body, 0.0);
            let (alpha, scale, input_scale) = (c(body, p[0]), c(body, p[1]), c(body, p[2]));
            let pos = body.binary(Op::Gt, x, zero);
            let xs = body.binary(Op::Mul, x, input_scale);
            let e = body.unary(Op::Exp, xs);
            let one_ = c(body, 1.0);
            let em1 = body.binary(Op::Sub, e, one_);
            let neg = body.binary(Op::Mul, em1, alpha);
            let v = body.where_(pos, x, neg);
            body.binary(Op::Mul, v, scale)
        }
    }
}
