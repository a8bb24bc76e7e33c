//! Lowerings of batch norm in eval form (pointwise: `(x - mean[c]) * rsqrt(var[c] + eps) *
//! w[c] + b[c]`, which fuses with its neighbours), of pooling (a pointwise body with the window
//! unrolled, masked at the padding, for at most 25 taps as Inductor; a reduction over the taps
//! for larger windows), of scans (a masked reduction), and of the index-moving copies `flip`,
//! `roll` and `constant_pad_nd` (one load at a moved index, masked for padding).

use coil_graph::{Bound, Call, DType, Node, OpKind, normalize_dim, normalize_dims, pool_window};

use super::scalar_const;
use crate::body::{Const, ExprGraph, ExprId, Op};
use crate::index::{IndexExpr, VarRanges};
use crate::ir::TensorId;
use crate::lowering::{BodyCx, Lowerer, Result};

/// Windows with more taps than this are not unrolled (Inductor's pooling fallback size).
pub(super) const MAX_UNROLLED_WINDOW: usize = 25;

/// `lo <= e < hi` as a bool value, or `None` when it always holds over `ranges`.
fn in_range(body: &mut ExprGraph, e: &IndexExpr, hi: usize, ranges: &VarRanges) -> Option<ExprId> {
    let (min, max) = e.bounds(ranges);
    let low = (min < 0).then(|| {
        let v = body.index_expr(e.clone(), DType::I64);
        let z = body.constant(Const::Int(0), DType::I64);
        body.binary(Op::Ge, v, z)
    });
    let high = (max >= hi as i128).then(|| {
        let v = body.index_expr(e.clone(), DType::I64);
        let h = body.constant(Const::Int(hi as i64), DType::I64);
        body.binary(Op::Lt, v, h)
    });
    match (low, high) {
        (Some(a), Some(b)) => Some(body.binary(Op::LogicalAnd, a, b)),
        (a, b) => a.or(b),
    }
}

fn and(body: &mut ExprGraph, a: Option<ExprId>, b: Option<ExprId>) -> Option<ExprId> {
    match (a, b) {
        (Some(a), Some(b)) => Some(body.binary(Op::LogicalAnd, a, b)),
        (a, b) => a.or(b),
    }
}

/// One spatial dim of a window: the first tap's index as a function of the output index, the
/// tap count, the tap step, and for adaptive windows the (exclusive) end of each window.
struct Tap {
    start: IndexExpr,
    taps: usize,
    step: i64,
    end: Option<IndexExpr>,
}

/// What a large-window pooling needs besides its taps.
struct Pool {
    kind: OpKind,
    include_pad: bool,
    divisor: Option<i64>,
    pads: Vec<usize>,
    kernel: Vec<usize>,
}

/// Advances a multi-index over the windows' taps (row-major); false once it wraps around.
fn next_tap(tap: &mut [usize], dims: &[Tap]) -> bool {
    for d in (0..tap.len()).rev() {
        tap[d] += 1;
        if tap[d] < dims[d].taps {
            return true;
        }
        tap[d] = 0;
    }
    false
}

/// Where one tap of `x`'s window reads: the input index (the `lead` dims as the output's, then
/// `start + offset * step` per spatial dim, `offset` a constant tap or a reduction variable),
/// the mask that keeps it inside the input (and, for adaptive windows, before the window's
/// end), and its flat spatial index (max pooling's indices).
fn tap_index(
    cx: &mut BodyCx,
    dims: &[Tap],
    offsets: &[IndexExpr],
    input: &[usize],
    lead: usize,
) -> (Vec<IndexExpr>, Option<ExprId>, IndexExpr) {
    let ranges = cx.ranges.clone();
    let mut idx: Vec<IndexExpr> = cx.idx[..lead].to_vec();
    let mut mask = None;
    let mut flat = IndexExpr::zero();
    for (d, dim) in dims.iter().enumerate() {
        let pos = dim.start.add(&offsets[d].scale(dim.step)).simplify(&ranges);
        let m = in_range(&mut cx.body, &pos, input[d], &ranges);
        mask = and(&mut cx.body, mask, m);
        if let Some(end) = &dim.end {
            let pv = cx.body.index_expr(pos.clone(), DType::I64);
            let ev = cx.body.index_expr(end.clone(), DType::I64);
            let lt = cx.body.binary(Op::Lt, pv, ev);
            mask = and(&mut cx.body, mask, Some(lt));
        }
        flat = flat.scale(input[d] as i64).add(&pos);
        idx.push(pos);
    }
    (idx, mask, flat.simplify(&ranges))
}

/// The value padding has in a max: -inf, or the least integer.
fn lowest(body: &mut ExprGraph, dt: DType) -> ExprId {
    let c = if dt.is_float() {
        Const::Float(f64::NEG_INFINITY)
    } else {
        Const::Int(i64::MIN)
    };
    body.constant(c, dt)
}

/// Whether tap value `v` replaces the running max `best`: PyTorch takes a later tap when it is
/// greater or NaN, and never one in the padding.
fn takes_over(body: &mut ExprGraph, v: ExprId, best: ExprId, mask: Option<ExprId>) -> ExprId {
    let gt = body.binary(Op::Gt, v, best);
    let nan = body.binary(Op::Ne, v, v);
    let take = body.binary(Op::LogicalOr, gt, nan);
    match mask {
        Some(m) => body.binary(Op::LogicalAnd, take, m),
        None => take,
    }
}

/// `count_include_pad`'s divisor at each output position: the product over the spatial dims
/// of the window clipped to the padded input, `min(start + kernel, size + pad) - start`.
fn padded_window_count(
    body: &mut ExprGraph,
    dims: &[Tap],
    kernel: &[usize],
    pads: &[usize],
    input: &[usize],
    compute: DType,
) -> ExprId {
    let mut total: Option<ExprId> = None;
    for (d, dim) in dims.iter().enumerate() {
        let sv = body.index_expr(dim.start.clone(), DType::I64);
        let kv = body.constant(Const::Int(kernel[d] as i64), DType::I64);
        let e = body.binary(Op::Add, sv, kv);
        let lim = body.constant(Const::Int((input[d] + pads[d]) as i64), DType::I64);
        let end = body.binary(Op::Minimum, e, lim);
        let len = body.binary(Op::Sub, end, sv);
        total = Some(match total {
            Some(t) => body.binary(Op::Mul, t, len),
            None => len,
        });
    }
    let t = total.expect("a spatial dim");
    body.to_dtype(t, compute)
}

impl Lowerer<'_> {
    /// Loads tap `tap` of `x`'s window (0 outside the input, which `mask` says), cast to
    /// `compute`; also gives the tap's flat spatial index (max pooling's indices).
    #[allow(clippy::too_many_arguments)]
    fn load_tap(
        &mut self,
        cx: &mut BodyCx,
        x: TensorId,
        dims: &[Tap],
        tap: &[usize],
        input: &[usize],
        lead: usize,
        compute: DType,
    ) -> (ExprId, Option<ExprId>, IndexExpr) {
        let offsets: Vec<IndexExpr> = tap.iter().map(|&t| IndexExpr::constant(t as i64)).collect();
        let (idx, mask, flat) = tap_index(cx, dims, &offsets, input, lead);
        let v = self.load_at(cx, x, &idx, mask);
        (cx.body.to_dtype(v, compute), mask, flat)
    }

    /// `_native_batch_norm_legit_no_training` and the eval forms of `_native_batch_norm_legit`
    /// / `native_batch_norm`; the training form runs as a host fallback.
    pub(super) fn lower_batch_norm(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let training =
            b.has("training") && b.bool("training").map_err(|e| Self::graph_err(node, e))?;
        let (Some(mean), Some(var)) = (b.opt_tensor("running_mean"), b.opt_tensor("running_var"))
        else {
            return self.lower_fallback(node, call);
        };
        if training {
            return self.lower_fallback(node, call);
        }
        let eps = b.float("eps").map_err(|e| Self::graph_err(node, e))?;
        let x = self.tensor(node, b, "input")?;
        let mean = self.value(mean, &node.name)?;
        let var = self.value(var, &node.name)?;
        let w = b
            .opt_tensor("weight")
            .map(|n| self.value(n, &node.name))
            .transpose()?;
        let bias = b
            .opt_tensor("bias")
            .map(|n| self.value(n, &node.name))
            .transpose()?;
        let meta = node.outputs[0].clone();
        let out = meta.dtype;
        let compute = out.opmath();
        let mut cx = BodyCx::new(&meta.sizes);
        let c_idx = vec![cx.idx[1].clone()];
        let all = cx.idx.clone();
        let xv = self.load_at(&mut cx, x, &all, None);
        let xv = cx.body.to_dtype(xv, compute);
        let per_channel = |l: &mut Self, cx: &mut BodyCx, t: TensorId| {
            let v = l.load_at(cx, t, &c_idx, None);
            cx.body.to_dtype(v, compute)
        };
        let m = per_channel(self, &mut cx, mean);
        let v = per_channel(self, &mut cx, var);
        let e = cx.body.constant(Const::Float(eps), compute);
        let ve = cx.body.binary(Op::Add, v, e);
        let inv = cx.body.unary(Op::Rsqrt, ve);
        let centered = cx.body.binary(Op::Sub, xv, m);
        let mut r = cx.body.binary(Op::Mul, centered, inv);
        if let Some(w) = w {
            let wv = per_channel(self, &mut cx, w);
            r = cx.body.binary(Op::Mul, r, wv);
        }
        if let Some(bias) = bias {
            let bv = per_channel(self, &mut cx, bias);
            r = cx.body.binary(Op::Add, r, bv);
        }
        let y = self.finish_pointwise(node, cx, r, out);
        // The saved statistics of the eval form are empty.
        let mut outs = vec![y];
        for m in &node.outputs[1..] {
            outs.push(self.zeros_of(node, m));
        }
        Ok(outs)
    }

    /// Max and average pooling, and adaptive average pooling, with the window unrolled.
    pub(super) fn lower_pool(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let kind = call.op.kind();
        let name = &call.op.schema().name;
        let x = self.tensor(node, b, "self")?;
        let sizes = self.g.tensors[x].sizes.clone();
        let meta = node.outputs[0].clone();
        let out = meta.dtype;
        let n = coil_graph::spatial_dims(name);
        let lead = sizes.len() - n;
        let input = sizes[lead..].to_vec();
        let mut cx = BodyCx::new(&meta.sizes);
        let mut dims = Vec::with_capacity(n);
        let (mut include_pad, mut divisor, mut pads, mut kernel) =
            (true, None, vec![0; n], vec![0; n]);
        if kind == OpKind::AdaptiveAvgPool {
            for (d, &size) in input.iter().enumerate() {
                let (i, o) = (size as i64, meta.sizes[lead + d] as i64);
                let p = cx.idx[lead + d].clone();
                let start = p.scale(i).floor_div(o.max(1));
                let end = p
                    .add_constant(1)
                    .scale(i)
                    .add_constant(o - 1)
                    .floor_div(o.max(1));
                // The widest window: ceil(I / O) + 1 bounds every [start, end).
                let taps = ((i + o - 1) / o.max(1) + 1).min(i) as usize;
                dims.push(Tap {
                    start,
                    taps,
                    step: 1,
                    end: Some(end),
                });
            }
        } else {
            let w = pool_window(b, name, &sizes).map_err(|e| Self::graph_err(node, e))?;
            if kind == OpKind::AvgPool {
                include_pad = b
                    .bool("count_include_pad")
                    .map_err(|e| Self::graph_err(node, e))?;
                divisor = b.opt_int("divisor_override");
            }
            for d in 0..n {
                let p = cx.idx[lead + d].clone();
                let start = p
                    .scale(w.stride[d] as i64)
                    .add_constant(-(w.padding[d] as i64));
                dims.push(Tap {
                    start,
                    taps: w.kernel[d],
                    step: w.dilation[d] as i64,
                    end: None,
                });
                pads[d] = w.padding[d];
                kernel[d] = w.kernel[d];
            }
        }
        let taps: usize = dims.iter().map(|d| d.taps).product();
        if taps == 0 {
            return self.lower_fallback(node, call);
        }
        if taps > MAX_UNROLLED_WINDOW {
            let pool = Pool {
                kind,
                include_pad,
                divisor,
                pads,
                kernel,
            };
            return self.pool_as_reduction(node, x, &dims, &input, lead, &pool);
        }
        // Each output reads `taps` inputs: a lazy input that reads several buffers is computed
        // once instead of per tap (Inductor's `realize_hint` in its pooling lowerings; a
        // batch norm and relu inlined into a 3x3 max pool made a kernel ptxas took 0.6 s on).
        if taps > 1 {
            self.realize_hint(x);
        }
        let compute = out.opmath();
        let is_max = kind == OpKind::MaxPoolWithIndices;
        let mut acc: Option<ExprId> = None;
        let mut count: Option<ExprId> = None;
        let mut tap = vec![0usize; n];
        loop {
            let (v, mask, _) = self.load_tap(&mut cx, x, &dims, &tap, &input, lead, compute);
            if is_max {
                let v = match mask {
                    Some(m) => {
                        let lo = lowest(&mut cx.body, compute);
                        cx.body.where_(m, v, lo)
                    }
                    None => v,
                };
                acc = Some(match acc {
                    Some(a) => {
                        let take = takes_over(&mut cx.body, v, a, mask);
                        cx.body.where_(take, v, a)
                    }
                    None => v,
                });
            } else {
                let zero = cx.body.constant(Const::Float(0.0), compute);
                let v = match mask {
                    Some(m) => cx.body.where_(m, v, zero),
                    None => v,
                };
                acc = Some(match acc {
                    Some(a) => cx.body.binary(Op::Add, a, v),
                    None => v,
                });
                if kind == OpKind::AdaptiveAvgPool || !include_pad {
                    let one_ = cx.body.constant(Const::Float(1.0), compute);
                    let c = match mask {
                        Some(m) => cx.body.where_(m, one_, zero),
                        None => one_,
                    };
                    count = Some(match count {
                        Some(k) => cx.body.binary(Op::Add, k, c),
                        None => c,
                    });
                }
            }
            if !next_tap(&mut tap, &dims) {
                break;
            }
        }
        let acc = acc.expect("at least one tap");
        if is_max {
            let values = self.finish_pointwise(node, cx, acc, out);
            // The indices: the same taps again in a body of their own (inlined where read).
            let idx_out = self.max_pool_indices(node, x, &dims, &input, lead)?;
            return Ok(vec![values, idx_out]);
        }
        let div = match (divisor, count) {
            (Some(d), _) => cx.body.constant(Const::Float(d as f64), compute),
            (None, Some(c)) => c,
            (None, None) => {
                padded_window_count(&mut cx.body, &dims, &kernel, &pads, &input, compute)
            }
        };
        let r = cx.body.binary(Op::TrueDiv, acc, div);
        Ok(vec![self.finish_pointwise(node, cx, r, out)])
    }

    /// Pooling with a window of more than [`MAX_UNROLLED_WINDOW`] taps: a reduction over the
    /// taps (the window dims appended to the output's), masked at the padding; average
    /// pooling divides by PyTorch's count, max pooling's indices are an argmax over the taps
    /// mapped back to the input's flat spatial index.
    fn pool_as_reduction(
        &mut self,
        node: &Node,
        x: TensorId,
        dims: &[Tap],
        input: &[usize],
        lead: usize,
        pool: &Pool,
    ) -> Result<Vec<TensorId>> {
        use crate::body::ReductionType as R;
        let meta = node.outputs[0].clone();
        let out = meta.dtype;
        let compute = out.opmath();
        let rank = meta.sizes.len();
        let n = dims.len();
        let mut ext = meta.sizes.clone();
        ext.extend(dims.iter().map(|d| d.taps));
        let red: Vec<usize> = (rank..rank + n).collect();
        // The window's taps over `ext`: value (masked) and mask.
        // The window's taps over `ext` (the taps' offsets are the reduction variables): `x`
        // there, or 1 with `ones`; `fill` (or the lowest value, for a max) in the padding.
        let taps_body = |l: &mut Self, max: bool, ones: bool| -> TensorId {
            let mut cx = BodyCx::new(&ext);
            let offsets = cx.idx[rank..].to_vec();
            let (idx, mask, _) = tap_index(&mut cx, dims, &offsets, input, lead);
            let v = if ones {
                cx.body.constant(Const::Float(1.0), compute)
            } else {
                let v = l.load_at(&mut cx, x, &idx, mask);
                cx.body.to_dtype(v, compute)
            };
            let root = match mask {
                Some(m) => {
                    let f = if max {
                        lowest(&mut cx.body, compute)
                    } else {
                        cx.body.constant(Const::Float(0.0), compute)
                    };
                    cx.body.where_(m, v, f)
                }
                None => v,
            };
            l.finish_pointwise(node, cx, root, compute)
        };
        if pool.kind == OpKind::MaxPoolWithIndices {
            let y = taps_body(self, true, false);
            let values = self.reduce(node, y, &red, false, R::Max, out);
            let used = self.used_outputs(node, 2);
            let indices = if used[1] {
                // The argmax's position r over the taps (row-major), back to the input's flat
                // spatial index: tap t_d of dim d reads start_d + t_d * step_d.
                let r = self.reduce(node, y, &red, false, R::Argmax, DType::I64);
                let mut cx = BodyCx::new(&meta.sizes);
                let all = cx.idx.clone();
                let mut rem = self.load_at(&mut cx, r, &all, None);
                let mut flat: Option<ExprId> = None;
                let mut pos = vec![None; n];
                for d in (0..n).rev() {
                    let k = cx
                        .body
                        .constant(Const::Int(dims[d].taps as i64), DType::I64);
                    let q = cx.body.binary(Op::FloorDiv, rem, k);
                    let qk = cx.body.binary(Op::Mul, q, k);
                    let t = cx.body.binary(Op::Sub, rem, qk);
                    rem = q;
                    let step = cx.body.constant(Const::Int(dims[d].step), DType::I64);
                    let st = cx.body.index_expr(dims[d].start.clone(), DType::I64);
                    let off = cx.body.binary(Op::Mul, t, step);
                    pos[d] = Some(cx.body.binary(Op::Add, st, off));
                }
                for (d, p) in pos.into_iter().enumerate() {
                    let p = p.expect("every dim");
                    flat = Some(match flat {
                        Some(f) => {
                            let w = cx.body.constant(Const::Int(input[d] as i64), DType::I64);
                            let fw = cx.body.binary(Op::Mul, f, w);
                            cx.body.binary(Op::Add, fw, p)
                        }
                        None => p,
                    });
                }
                let root = flat.expect("a spatial dim");
                self.finish_pointwise(node, cx, root, DType::I64)
            } else {
                self.zeros_of(node, &node.outputs[1])
            };
            return Ok(vec![values, indices]);
        }
        let y = taps_body(self, false, false);
        let sum = self.reduce(node, y, &red, false, R::Sum, compute);
        let count = if pool.divisor.is_none()
            && (pool.kind == OpKind::AdaptiveAvgPool || !pool.include_pad)
        {
            let ones = taps_body(self, false, true);
            Some(self.reduce(node, ones, &red, false, R::Sum, compute))
        } else {
            None
        };
        let mut cx = BodyCx::new(&meta.sizes);
        let all = cx.idx.clone();
        let sv = self.load_at(&mut cx, sum, &all, None);
        let div = match (pool.divisor, count) {
            (Some(d), _) => cx.body.constant(Const::Float(d as f64), compute),
            (None, Some(c)) => self.load_at(&mut cx, c, &all, None),
            (None, None) => {
                padded_window_count(&mut cx.body, dims, &pool.kernel, &pool.pads, input, compute)
            }
        };
        let r = cx.body.binary(Op::TrueDiv, sv, div);
        Ok(vec![self.finish_pointwise(node, cx, r, out)])
    }

    /// `max_pool`'s indices output: the flat spatial index of each window's max.
    fn max_pool_indices(
        &mut self,
        node: &Node,
        x: TensorId,
        dims: &[Tap],
        input: &[usize],
        lead: usize,
    ) -> Result<TensorId> {
        let meta = node.outputs[1].clone();
        let compute = self.g.tensors[x].dtype;
        let compute = compute.opmath();
        let mut cx = BodyCx::new(&meta.sizes);
        let mut tap = vec![0usize; dims.len()];
        let (mut best, mut at): (Option<ExprId>, Option<ExprId>) = (None, None);
        loop {
            let (v, mask, flat) = self.load_tap(&mut cx, x, dims, &tap, input, lead, compute);
            let i = cx.body.index_expr(flat, DType::I64);
            match (best, at) {
                (Some(bv), Some(bi)) => {
                    let take = takes_over(&mut cx.body, v, bv, mask);
                    best = Some(cx.body.where_(take, v, bv));
                    at = Some(cx.body.where_(take, i, bi));
                }
                _ => {
                    best = Some(match mask {
                        Some(m) => {
                            let lo = lowest(&mut cx.body, compute);
                            cx.body.where_(m, v, lo)
                        }
                        None => v,
                    });
                    at = Some(i);
                }
            }
            if !next_tap(&mut tap, dims) {
                break;
            }
        }
        let root = at.expect("a tap");
        Ok(self.finish_pointwise(node, cx, root, DType::I64))
    }

    /// `flip`, `roll` and `constant_pad_nd`: one load at a moved index.
    pub(super) fn lower_moved(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let kind = call.op.kind();
        let x = self.tensor(node, b, "self")?;
        let sizes = self.g.tensors[x].sizes.clone();
        let rank = sizes.len();
        let meta = node.meta().clone();
        let out = meta.dtype;
        let mut cx = BodyCx::new(&meta.sizes);
        let ranges = cx.ranges.clone();
        let gerr = |e| Self::graph_err(node, e);
        let root = match kind {
            OpKind::Flip => {
                let list = b.int_list("dims").map_err(gerr)?;
                let dims = if list.is_empty() {
                    vec![]
                } else {
                    normalize_dims(&list, rank).map_err(gerr)?
                };
                let idx: Vec<IndexExpr> = (0..rank)
                    .map(|d| {
                        if dims.contains(&d) && sizes[d] > 1 {
                            cx.idx[d]
                                .scale(-1)
                                .add_constant(sizes[d] as i64 - 1)
                                .simplify(&ranges)
                        } else {
                            cx.idx[d].clone()
                        }
                    })
                    .collect();
                self.load_at(&mut cx, x, &idx, None)
            }
            OpKind::Roll => {
                let shifts = b.int_list("shifts").map_err(gerr)?;
                let dims = b.int_list("dims").map_err(gerr)?;
                if dims.is_empty() {
                    // A roll of the flattened tensor: no cheap index; run it on the host.
                    return self.lower_fallback(node, call);
                }
                let mut shift = vec![0i64; rank];
                for (&s, &d) in shifts.iter().zip(&dims) {
                    let d = normalize_dim(d, rank).map_err(gerr)?;
                    let n = sizes[d].max(1) as i64;
                    shift[d] = (shift[d] + s.rem_euclid(n)) % n;
                }
                let idx: Vec<IndexExpr> = (0..rank)
                    .map(|d| {
                        let n = sizes[d] as i64;
                        let s = if n == 0 { 0 } else { shift[d].rem_euclid(n) };
                        if s == 0 {
                            cx.idx[d].clone()
                        } else {
                            cx.idx[d]
                                .add_constant(n - s)
                                .modular(1, n)
                                .simplify(&ranges)
                        }
                    })
                    .collect();
                self.load_at(&mut cx, x, &idx, None)
            }
            _ => {
                let pad = b.int_list("pad").map_err(gerr)?;
                let fill = b.scalar("value").map_err(gerr)?;
                let mut before = vec![0i64; rank];
                for (i, p) in pad.chunks(2).enumerate() {
                    before[rank - 1 - i] = p[0];
                }
                let mut mask = None;
                let mut idx = Vec::with_capacity(rank);
                for d in 0..rank {
                    let pos = cx.idx[d].add_constant(-before[d]).simplify(&ranges);
                    let m = in_range(&mut cx.body, &pos, sizes[d], &ranges);
                    mask = and(&mut cx.body, mask, m);
                    idx.push(pos);
                }
                let v = self.load_at(&mut cx, x, &idx, mask);
                let v = cx.body.to_dtype(v, out);
                match mask {
                    Some(m) => {
                        let f = cx.body.constant(scalar_const(fill), out);
                        cx.body.where_(m, v, f)
                    }
                    None => v,
                }
            }
        };
        Ok(vec![self.finish_pointwise(node, cx, root, out)])
    }
}

impl Lowerer<'_> {
    /// `slice_scatter(self, src, dim, start, end, step)`: a pointwise buffer that reads `src`
    /// at `(i - start) / step` where `i` on `dim` is in the slice (a masked load) and `self`
    /// elsewhere, so both producers inline and readers fuse (Inductor lowers it the same way).
    pub(super) fn lower_slice_scatter(
        &mut self,
        node: &Node,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let gerr = |e| Self::graph_err(node, e);
        let x = self.tensor(node, b, "self")?;
        let src = self.tensor(node, b, "src")?;
        let meta = node.meta().clone();
        let out = meta.dtype;
        let rank = meta.sizes.len();
        let d = normalize_dim(b.int("dim").map_err(gerr)?, rank).map_err(gerr)?;
        let (start, len, step) =
            coil_graph::slice_range(b, meta.sizes.get(d).copied().unwrap_or(1)).map_err(gerr)?;
        let mut cx = BodyCx::new(&meta.sizes);
        let ranges = cx.ranges.clone();
        let mut idx = cx.idx.clone();
        let kept = self.load_at(&mut cx, x, &idx, None);
        let kept = cx.body.to_dtype(kept, out);
        if rank == 0 || len == 0 {
            return Ok(vec![self.finish_pointwise(node, cx, kept, out)]);
        }
        let (start, step) = (start as i64, step as i64);
        let pos = cx.idx[d].add_constant(-start).simplify(&ranges);
        let span = (len - 1) * step as usize + 1;
        let mut mask = in_range(&mut cx.body, &pos, span, &ranges);
        if step > 1 {
            let phase = pos.modular(1, step).simplify(&ranges);
            let phase = cx.body.index_expr(phase, DType::I64);
            let zero = cx.body.constant(Const::Int(0), DType::I64);
            let on_step = cx.body.binary(Op::Eq, phase, zero);
            mask = and(&mut cx.body, mask, Some(on_step));
        }
        idx[d] = pos.floor_div(step).simplify(&ranges);
        let put = self.load_at(&mut cx, src, &idx, mask);
        let put = cx.body.to_dtype(put, out);
        let root = match mask {
            Some(m) => cx.body.where_(m, put, kept),
            None => put, // the slice covers the whole dim
        };
        Ok(vec![self.finish_pointwise(node, cx, root, out)])
    }

    /// `cumsum` / `cumprod` along `dim` as a scan (Inductor's `ops.scan`): a buffer whose loop
    /// nest runs over the other dims and, inside, along the scanned dim in order, storing the
    /// running sum (product) at every point. Pointwise producers inline into its body; pointwise
    /// readers of every element fuse into its kernel as a reduction's readers do. A scan of a
    /// dim of length 0 or 1 (or of a 0-d tensor) is a cast.
    pub(super) fn lower_scan(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let x = self.tensor(node, b, "self")?;
        let sizes = self.g.tensors[x].sizes.clone();
        let rank = sizes.len();
        let meta = node.meta().clone();
        let out = meta.dtype;
        let d = normalize_dim(
            b.int("dim").map_err(|e| Self::graph_err(node, e))?,
            rank.max(1),
        )
        .map_err(|e| Self::graph_err(node, e))?;
        let scan_type = match call.op.kind() {
            OpKind::Cumprod => crate::body::ReductionType::Prod,
            OpKind::Logcumsumexp => crate::body::ReductionType::LogAddExp,
            _ => crate::body::ReductionType::Sum,
        };
        Ok(vec![self.scan_along(node, x, d, scan_type, out)])
    }

    /// `x` scanned along `d` by `scan_type` into `out` (realized): the loop nest runs over the
    /// other dims and, inside, along `d` in order. A dim of length 0 or 1 (or a 0-d `x`) is
    /// a cast.
    pub(crate) fn scan_along(
        &mut self,
        node: &Node,
        x: TensorId,
        d: usize,
        scan_type: crate::body::ReductionType,
        out: DType,
    ) -> TensorId {
        let sizes = self.g.tensors[x].sizes.clone();
        let rank = sizes.len();
        let len = sizes.get(d).copied().unwrap_or(1);
        if rank == 0 || len <= 1 || sizes.contains(&0) {
            let mut cx = BodyCx::new(&sizes);
            let idx = cx.idx.clone();
            let v = self.load_at(&mut cx, x, &idx, None);
            return self.finish_pointwise(node, cx, v, out);
        }
        // Positional variables: the other dims in order, then the scanned one.
        let mut loop_sizes: Vec<usize> = sizes.clone();
        loop_sizes.remove(d);
        loop_sizes.push(len);
        let mut cx = BodyCx::new(&loop_sizes);
        let mut idx = cx.idx[..rank - 1].to_vec();
        idx.insert(d, cx.idx[rank - 1].clone());
        let v = self.load_at(&mut cx, x, &idx, None);
        let root = cx.body.scan(scan_type, v, out);
        let origins = self.gather_origins(node, &cx.reads);
        let s = self.g.storages.push(crate::ir::StorageBox {
            sizes: sizes.clone(),
            dtype: out,
            data: crate::ir::StorageData::Reduction(crate::ir::Reduction {
                scan_dim: Some(d),
                ranges: loop_sizes[..rank - 1].to_vec(),
                reduction_ranges: vec![len],
                reduction_type: scan_type,
                body: cx.body,
                root,
            }),
            origins,
        });
        self.realize(s);
        self.g.tensors.push(crate::ir::TensorBox {
            storage: s,
            view: None,
            sizes,
            dtype: out,
            view_origins: Vec::new(),
        })
    }
}
