//! `sort` and `topk` as kernels: a rank and a scatter. Each element's rank along the sorted
//! dim is how many elements come before it (a reduction over the row: smaller ones, NaN above
//! every number as ATen orders them, and equal ones at lower positions, so the order is
//! stable); then the value and its position are scattered to the rank (for `topk`, ranks from
//! `k` on all go to a spare slot past the `k` kept, which the result's view leaves out). The
//! ranks are a permutation, so every store has its own element and the result is exact.
//!
//! The rank costs `len` comparisons per element: rows longer than
//! [`LowerConfig::sort_kernel_max_len`] run on the host (as Inductor's CPU sort always does).
//!
//! [`LowerConfig::sort_kernel_max_len`]: crate::LowerConfig::sort_kernel_max_len

use coil_graph::{Bound, Call, DType, IndexingKind, Node, normalize_dim};

use crate::body::{Const, ExprId, Op, ReductionType};
use crate::index::IndexExpr;
use crate::ir::{BufRef, BufferId, Reduction, StorageBox, StorageData, TensorBox, TensorId};
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
        let origins = self.gather_origins(node, &cx.reads);
        let s = self.g.storages.push(StorageBox {
            sizes: sizes.clone(),
            dtype: DType::I64,
            data: StorageData::Reduction(Reduction {
                scan_dim: None,
                ranges: sizes.clone(),
                reduction_ranges: vec![sizes[d]],
                reduction_type: ReductionType::Sum,
                body: cx.body,
                root,
            }),
            origins,
        });
        self.realize(s);
        self.g.tensors.push(TensorBox {
            storage: s,
            view: None,
            sizes,
            dtype: DType::I64,
            view_origins: Vec::new(),
        })
    }

    /// A fresh buffer of zeros of `sizes`: a target every element of which a scatter writes.
    fn zeros_target(&mut self, node: &Node, sizes: &[usize], dtype: DType) -> (TensorId, BufferId) {
        let mut cx = BodyCx::new(sizes);
        let z = cx.body.constant(Const::Int(0), dtype);
        let t = self.finish_pointwise(node, cx, z, dtype);
        let s = self.g.tensors[t].storage;
        self.realize(s);
        let Some(BufRef::Buffer(id)) = self.g.storages[s].buffer() else {
            unreachable!("a realized pointwise value is a computed buffer")
        };
        (t, id)
    }
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
