//! `sort` and `topk` as kernels: a rank and a scatter. Each element's rank along the sorted
//! dim is how many elements come before it (a reduction over the row: smaller ones, NaN above
//! every number as ATen orders them, and equal ones at lower positions, so the order is
//! stable); then the value and its position are scattered to the rank (for `topk`, ranks from
//! `k` on all go to a spare slot past the `k` kept, which the result's view leaves out). The
//! ranks are a permutation, so every store has its own element and the result is exact.
//!
//! The rank costs `len` comparisons per element: rows longer than
//! [`LowerConfig::sort_kernel_max_len`] run on the host (as Inductor's CPU sort always does).
//! A `topk` of a few elements (at most 16, of a dtype of 32 bits or fewer) instead takes one
//! reduction per element picked, over rows of any length (a vocabulary's logits).
//!
//! [`LowerConfig::sort_kernel_max_len`]: crate::LowerConfig::sort_kernel_max_len

use coil_graph::{Bound, Call, DType, IndexingKind, Node, normalize_dim};

use crate::body::{Const, ExprId, Op, ReductionType};
use crate::index::IndexExpr;
use crate::ir::{BufferId, TensorId};
use crate::lowering::{BodyCx, Lowerer, Result};
use crate::{StoreMode, Var};

impl Lowerer<'_> {
    /// Lowers `sort` or `topk` along its dim as kernels, or as a host call for long rows.
    pub(super) fn lower_sort(
        &mut self,
        node: &Node,
        call: &Call,
        kind: IndexingKind,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let gerr = |e| Self::graph_err(node, e);
        let x = self.tensor(node, b, "self")?;
        let sizes = self.g.tensors[x].sizes.clone();
        let dtype = self.g.tensors[x].dtype;
        let d = if sizes.is_empty() {
            0
        } else {
            normalize_dim(b.int("dim").map_err(gerr)?, sizes.len()).map_err(gerr)?
        };
        let len = sizes.get(d).copied().unwrap_or(1);
        let (descending, k) = match kind {
            IndexingKind::Topk => (
                b.bool("largest").map_err(gerr)?,
                b.int("k").map_err(gerr)?.clamp(0, len as i64) as usize,
            ),
            _ => (b.bool("descending").map_err(gerr)?, len),
        };
        let selectable = matches!(
            dtype,
            DType::F32
                | DType::BF16
                | DType::F16
                | DType::I32
                | DType::I16
                | DType::I8
                | DType::U8
                | DType::Bool
        );
        if kind == IndexingKind::Topk
            && (1..=TOPK_SELECT_MAX_K).contains(&k)
            && k < len
            && selectable
            && len < u32::MAX as usize
        {
            return Ok(self.topk_by_selection(node, call, x, d, k, descending));
        }
        if len > self.config.sort_kernel_max_len {
            return self.lower_fallback(node, call);
        }
        let metas = node.outputs.clone();
        if len <= 1 || k == 0 || sizes.contains(&0) {
            // At most one element per row: the values themselves at position 0.
            let mut cx = BodyCx::new(&metas[0].sizes);
            let idx = cx.idx.clone();
            let at = &idx[..sizes.len()];
            let v = self.load_at(&mut cx, x, at, None);
            let values = self.finish_pointwise(node, cx, v, dtype);
            return Ok(vec![values, self.zeros_of(node, &metas[1])]);
        }
        let rank = self.sort_ranks(node, x, d, descending);
        // Targets: the row is `k` long, plus one spare slot for `topk`'s ranks from `k` on.
        let spare = usize::from(k < len);
        let mut tsizes = sizes.clone();
        tsizes[d] = k + spare;
        let (tv, vbuf) = self.zeros_target(node, &tsizes, dtype);
        let (ti, ibuf) = self.zeros_target(node, &tsizes, DType::I64);
        for (target, positions) in [(vbuf, false), (ibuf, true)] {
            let mut cx = BodyCx::new(&sizes);
            let idx = cx.idx.clone();
            let r = self.load_at(&mut cx, rank, &idx, None);
            let r = if spare == 1 {
                let kk = cx.body.constant(Const::Int(k as i64), DType::I64);
                cx.body.binary(Op::Minimum, r, kk)
            } else {
                r
            };
            let check = self.index_check(node, call, d, k + spare);
            let slot = cx.body.indirect_index(r, k + spare, false, check);
            let value = if positions {
                cx.body.index_expr(idx[d].clone(), DType::I64)
            } else {
                self.load_at(&mut cx, x, &idx, None)
            };
            let mut at = idx.clone();
            at[d] = slot;
            self.push_scatter(node, cx, value, &at, target, StoreMode::Set);
        }
        if spare == 0 {
            return Ok(vec![tv, ti]);
        }
        let out_sizes = metas[0].sizes.clone();
        let keep = crate::lowering::positional_index(&out_sizes);
        let values = self.make_view(node, tv, out_sizes.clone(), keep.clone());
        let indices = self.make_view(node, ti, out_sizes, keep);
        Ok(vec![values, indices])
    }

    /// `topk` for a small `k` as `k` reductions over the row (`k len` comparisons, not
    /// `len^2`): each element's key is one `i64` ordering the row as `topk` returns it (the
    /// value, made an order-preserving integer with NaN above everything and -0 as 0, above
    /// the position reversed, so equal values come lowest position first); the `t`-th pick is
    /// the largest key below the one before. The picks give the positions, which gather the
    /// values.
    fn topk_by_selection(
        &mut self,
        node: &Node,
        call: &Call,
        x: TensorId,
        d: usize,
        k: usize,
        largest: bool,
    ) -> Vec<TensorId> {
        let sizes = self.g.tensors[x].sizes.clone();
        let dtype = self.g.tensors[x].dtype;
        let len = sizes[d];
        let rows: Vec<usize> = sizes
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != d)
            .map(|(_, &s)| s)
            .collect();
        let mut picks: Vec<TensorId> = Vec::with_capacity(k);
        for _ in 0..k {
            // p0.. the row, p<r> the position along `d`.
            let r = rows.len();
            let mut all = rows.clone();
            all.push(len);
            let mut cx = BodyCx::new(&all);
            let row_idx: Vec<IndexExpr> = cx.idx[..r].to_vec();
            let mut at = row_idx.clone();
            at.insert(d, IndexExpr::var(Var::p(r)));
            let v = self.load_at(&mut cx, x, &at, None);
            let key = order_key(&mut cx, v, dtype, largest);
            let j = cx.body.index_expr(IndexExpr::var(Var::p(r)), DType::I64);
            let key = full_key(&mut cx, key, j);
            let candidate = match picks.last() {
                None => key,
                Some(&prev) => {
                    let p = self.load_at(&mut cx, prev, &row_idx, None);
                    let below = cx.body.binary(Op::Lt, key, p);
                    let none = cx.body.constant(Const::Int(i64::MIN), DType::I64);
                    cx.body.where_(below, key, none)
                }
            };
            let root = cx.body.reduction(ReductionType::Max, candidate, DType::I64);
            picks.push(self.realized_reduction(node, cx, root, rows.clone(), vec![len]));
        }
        // The outputs: pick t at position t along `d`, its position, the value there.
        let mut out_sizes = sizes.clone();
        out_sizes[d] = k;
        let mut cx = BodyCx::new(&out_sizes);
        let idx = cx.idx.clone();
        let row_idx: Vec<IndexExpr> = idx
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != d)
            .map(|(_, e)| e.clone())
            .collect();
        let t = cx.body.index_expr(idx[d].clone(), DType::I64);
        let mut key = self.load_at(&mut cx, picks[k - 1], &row_idx, None);
        for (c, &p) in picks.iter().enumerate().rev().skip(1) {
            let here = self.load_at(&mut cx, p, &row_idx, None);
            let cc = cx.body.constant(Const::Int(c as i64), DType::I64);
            let is = cx.body.binary(Op::Eq, t, cc);
            key = cx.body.where_(is, here, key);
        }
        let low = cx.body.constant(Const::Int(0xFFFF_FFFF), DType::I64);
        let bits = cx.body.binary(Op::BitAnd, key, low);
        let pos = cx.body.binary(Op::Sub, low, bits);
        let mut vcx = BodyCx::new(&out_sizes);
        let indices = self.finish_pointwise(node, cx, pos, DType::I64);
        let vidx = vcx.idx.clone();
        let p = self.load_at(&mut vcx, indices, &vidx, None);
        let check = self.index_check(node, call, d, len);
        let slot = vcx.body.indirect_index(p, len, false, check);
        let mut at = vidx.clone();
        at[d] = slot;
        let v = self.load_at(&mut vcx, x, &at, None);
        let values = self.finish_pointwise(node, vcx, v, dtype);
        vec![values, indices]
    }

    /// Each element's rank along dim `d` of `x`: the number of elements of its row that come
    /// before it (a realized `i64` reduction).
    fn sort_ranks(&mut self, node: &Node, x: TensorId, d: usize, descending: bool) -> TensorId {
        let sizes = self.g.tensors[x].sizes.clone();
        let r = sizes.len();
        let mut all = sizes.clone();
        all.push(sizes[d]);
        // p0..p<r> the element, p<r> the one compared with it.
        let mut cx = BodyCx::new(&all);
        let mine: Vec<IndexExpr> = cx.idx[..r].to_vec();
        let mut theirs = mine.clone();
        theirs[d] = IndexExpr::var(Var::p(r));
        let a = self.load_at(&mut cx, x, &mine, None);
        let o = self.load_at(&mut cx, x, &theirs, None);
        let (a, o) = if self.g.tensors[x].dtype == DType::Bool {
            (
                cx.body.to_dtype(a, DType::I32),
                cx.body.to_dtype(o, DType::I32),
            )
        } else {
            (a, o)
        };
        let float = self.g.tensors[x].dtype.is_float();
        // `o` strictly before `a`, and `o` equal to `a`.
        let (lt, eq) = if descending {
            (
                ordered_before(&mut cx, a, o, float),
                equal(&mut cx, o, a, float),
            )
        } else {
            (
                ordered_before(&mut cx, o, a, float),
                equal(&mut cx, o, a, float),
            )
        };
        let j = cx.body.index_expr(IndexExpr::var(Var::p(r)), DType::I64);
        let i = cx.body.index_expr(mine[d].clone(), DType::I64);
        let earlier = cx.body.binary(Op::Lt, j, i);
        let tie = cx.body.binary(Op::LogicalAnd, eq, earlier);
        let before = cx.body.binary(Op::LogicalOr, lt, tie);
        let one = cx.body.to_dtype(before, DType::I64);
        let root = cx.body.reduction(ReductionType::Sum, one, DType::I64);
        let len = sizes[d];
        self.realized_reduction(node, cx, root, sizes, vec![len])
    }

    /// A fresh buffer of zeros of `sizes`: a target every element of which a scatter writes.
    pub(super) fn zeros_target(
        &mut self,
        node: &Node,
        sizes: &[usize],
        dtype: DType,
    ) -> (TensorId, BufferId) {
        let mut cx = BodyCx::new(sizes);
        let z = cx.body.constant(Const::Int(0), dtype);
        let t = self.finish_pointwise(node, cx, z, dtype);
        (t, self.realized_buffer(t))
    }
}

/// `topk` of at most this many elements selects them one reduction each
/// (`Lowerer::topk_by_selection`); more take the rank and scatter of `sort`.
const TOPK_SELECT_MAX_K: usize = 16;

/// `v` (of `dtype`, at most 32 bits) as an integer in `0..2^32` in the order `topk` picks
/// (largest first, or smallest first): floats by their bits made monotonic (negative ones
/// reversed), NaN above every number and -0 equal to 0; integers offset by 2^31.
fn order_key(cx: &mut BodyCx, v: ExprId, dtype: DType, largest: bool) -> ExprId {
    let b = &mut cx.body;
    let c = |b: &mut crate::body::ExprGraph, x: i64| b.constant(Const::Int(x), DType::I64);
    let key = if dtype.is_float() {
        let f = b.to_dtype(v, DType::F32);
        let zero = b.constant(Const::Float(0.0), DType::F32);
        let is_zero = b.binary(Op::Eq, f, zero);
        let f = b.where_(is_zero, zero, f);
        let bits = b.bitcast(f, DType::I32);
        let w = b.to_dtype(bits, DType::I64);
        let mask = c(b, 0xFFFF_FFFF);
        let w = b.binary(Op::BitAnd, w, mask);
        let sign = c(b, 0x8000_0000);
        let negative = b.binary(Op::Ge, w, sign);
        let flipped = b.binary(Op::Sub, mask, w);
        let raised = b.binary(Op::BitOr, w, sign);
        let k = b.where_(negative, flipped, raised);
        let nan = b.binary(Op::Ne, f, f);
        b.where_(nan, mask, k)
    } else {
        let w = b.to_dtype(v, DType::I64);
        let off = c(b, 1 << 31);
        b.binary(Op::Add, w, off)
    };
    if largest {
        key
    } else {
        let mask = c(b, 0xFFFF_FFFF);
        b.binary(Op::Sub, mask, key)
    }
}

/// The row-wide key of an element: its order key above its position reversed (so among equal
/// values the lowest position is the largest key), as one `i64` (the order key less 2^31 in
/// the high half).
fn full_key(cx: &mut BodyCx, key: ExprId, j: ExprId) -> ExprId {
    let b = &mut cx.body;
    let half = b.constant(Const::Int(1 << 31), DType::I64);
    let hi = b.binary(Op::Sub, key, half);
    let shift = b.constant(Const::Int(32), DType::I64);
    let hi = b.binary(Op::Shl, hi, shift);
    let low = b.constant(Const::Int(0xFFFF_FFFF), DType::I64);
    let rev = b.binary(Op::Sub, low, j);
    b.binary(Op::BitOr, hi, rev)
}

/// `p` sorts strictly before `q` ascending: `p < q`, with NaN above every number.
fn ordered_before(cx: &mut BodyCx, p: ExprId, q: ExprId, float: bool) -> ExprId {
    let lt = cx.body.binary(Op::Lt, p, q);
    if !float {
        return lt;
    }
    let p_num = cx.body.binary(Op::Eq, p, p);
    let q_nan = cx.body.binary(Op::Ne, q, q);
    let below = cx.body.binary(Op::LogicalOr, q_nan, lt);
    cx.body.binary(Op::LogicalAnd, p_num, below)
}

/// `p` and `q` sort as equal: `p == q`, or both NaN.
fn equal(cx: &mut BodyCx, p: ExprId, q: ExprId, float: bool) -> ExprId {
    let eq = cx.body.binary(Op::Eq, p, q);
    if !float {
        return eq;
    }
    let p_nan = cx.body.binary(Op::Ne, p, p);
    let q_nan = cx.body.binary(Op::Ne, q, q);
    let both = cx.body.binary(Op::LogicalAnd, p_nan, q_nan);
    cx.body.binary(Op::LogicalOr, eq, both)
}
