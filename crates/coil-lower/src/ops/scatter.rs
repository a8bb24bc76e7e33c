//! Lowerings of the writes at indirect positions (Inductor's `ir.Scatter`): `scatter`,
//! `scatter_add`, `scatter_reduce` with `sum`, and `index_put` with integer indices. Each
//! copies `self` into a fresh buffer (the target, an ordinary pointwise buffer that fuses with
//! what computes `self`), then adds a scatter buffer ([`crate::Scatter`]): a loop nest over the
//! source's points that stores each value into the target at an index expression using the
//! loaded, checked indices, setting the element or adding to it atomically. The op's value is
//! the target, which readers read after the scatter (the scheduler orders them by its writes).
//!
//! What Inductor also runs on the host stays a host fallback: the reductions other than a sum
//! (`prod`, `mean`, `amax`, `amin`, `multiply`), boolean masks (which need `nonzero`), and
//! additions the backend cannot do atomically in that dtype ([`LowerConfig::atomic_add`]).
//!
//! [`LowerConfig::atomic_add`]: crate::LowerConfig::atomic_add

use std::collections::HashMap;

use coil_graph::{Bound, Call, DType, IndexingKind, Node, normalize_dim};

use crate::body::{Const, ExprGraph, ExprId, LoopBody};
use crate::deps::{Dep, StarDep, body_deps};
use crate::index::{IndexExpr, VarRanges};
use crate::ir::{BufRef, Buffer, BufferId, BufferKind, ComputedBuffer, Scatter, TensorId};
use crate::lowering::{BodyCx, Lowerer, Result, positional_subst};
use crate::{Idx, StoreMode, Var};

/// What a scatter-like node asks for, once its arguments are read.
enum Plan {
    /// `scatter`/`scatter_add`/`scatter_reduce(sum)` along `dim`: `add` adds; `zero_first`
    /// clears the scattered-to elements first (`include_self=False`).
    AlongDim {
        dim: i64,
        add: bool,
        zero_first: bool,
    },
    /// `index_put` with integer indices.
    IndexPut { accumulate: bool },
    /// Runs on the host.
    Host,
}

/// What a scatter along a dim writes: `src`'s elements, or one number (`scatter.value`, the
/// zeros that clear elements first).
enum Source {
    Tensor(TensorId),
    Const(Const),
}

impl Lowerer<'_> {
    /// Lowers a scatter-like node as kernels, or as a host fallback where Inductor has one.
    pub(super) fn lower_scatter(
        &mut self,
        node: &Node,
        call: &Call,
        kind: IndexingKind,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let gerr = |e| Self::graph_err(node, e);
        let out = node.meta().dtype;
        let plan = match kind {
            IndexingKind::Scatter => Plan::AlongDim {
                dim: b.int("dim").map_err(gerr)?,
                add: false,
                zero_first: false,
            },
            IndexingKind::ScatterAdd => Plan::AlongDim {
                dim: b.int("dim").map_err(gerr)?,
                add: true,
                zero_first: false,
            },
            IndexingKind::ScatterReduce => match b.opt_str("reduce") {
                Some("sum" | "add") => Plan::AlongDim {
                    dim: b.int("dim").map_err(gerr)?,
                    add: true,
                    zero_first: b.has("include_self") && !b.bool("include_self").map_err(gerr)?,
                },
                _ => Plan::Host,
            },
            IndexingKind::IndexPut => {
                let list = b.opt_tensors("indices").map_err(gerr)?;
                let masked = list
                    .iter()
                    .flatten()
                    .any(|&n| self.graph.node(n).meta().dtype == DType::Bool);
                if masked {
                    Plan::Host
                } else {
                    Plan::IndexPut {
                        accumulate: b.bool("accumulate").map_err(gerr)?,
                    }
                }
            }
            _ => Plan::Host,
        };
        let adds = matches!(
            plan,
            Plan::AlongDim { add: true, .. } | Plan::IndexPut { accumulate: true }
        );
        if matches!(plan, Plan::Host) || adds && !self.config.atomic_add.contains(&out) {
            return self.lower_fallback(node, call);
        }
        let x = self.tensor(node, b, "self")?;
        let (result, target) = self.scatter_target(node, x, out);
        match plan {
            Plan::AlongDim {
                dim,
                add,
                zero_first,
            } => {
                if zero_first {
                    let zero = Source::Const(Const::Int(0));
                    self.scatter_along(node, call, b, dim, target, zero, StoreMode::Set)?;
                }
                let mode = if add {
                    StoreMode::AtomicAdd
                } else {
                    StoreMode::Set
                };
                let src = if b.has("src") {
                    Source::Tensor(self.tensor(node, b, "src")?)
                } else {
                    Source::Const(super::scalar_const(b.scalar("value").map_err(gerr)?))
                };
                self.scatter_along(node, call, b, dim, target, src, mode)?;
            }
            Plan::IndexPut { accumulate } => {
                let mode = if accumulate {
                    StoreMode::AtomicAdd
                } else {
                    StoreMode::Set
                };
                self.index_put_scatter(node, call, b, target, mode)?;
            }
            Plan::Host => unreachable!("host plans returned above"),
        }
        Ok(vec![result])
    }

    /// `self` copied into a fresh contiguous buffer of `dtype`: the scatter's target, and the
    /// tensor that is the op's value.
    fn scatter_target(&mut self, node: &Node, x: TensorId, dtype: DType) -> (TensorId, BufferId) {
        let sizes = self.g.tensors[x].sizes.clone();
        let mut cx = BodyCx::new(&sizes);
        let idx = cx.idx.clone();
        let v = self.load_at(&mut cx, x, &idx, None);
        let t = self.finish_pointwise(node, cx, v, dtype);
        (t, self.realized_buffer(t))
    }

    /// Realizes `t`'s storage (a lazy pointwise value) and gives its buffer.
    pub(super) fn realized_buffer(&mut self, t: TensorId) -> BufferId {
        let s = self.g.tensors[t].storage;
        self.realize(s);
        let Some(BufRef::Buffer(id)) = self.g.storages[s].buffer() else {
            unreachable!("a realized pointwise value is a computed buffer")
        };
        id
    }

    /// `target[i with dim d replaced by index[i]] = src[i]` (or `+=`) over `index`'s points.
    #[allow(clippy::too_many_arguments)]
    fn scatter_along(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
        dim: i64,
        target: BufferId,
        src: Source,
        mode: StoreMode,
    ) -> Result<()> {
        let dtype = self.g.buffers[target].layout.dtype;
        let (mut cx, at) = self.along_dim_positions(node, call, b, dim, target)?;
        let idx = cx.idx.clone();
        let value = match src {
            Source::Tensor(s) => {
                self.load_at(&mut cx, s, &idx[..self.g.tensors[s].sizes.len()], None)
            }
            Source::Const(c) => cx.body.constant(c, dtype),
        };
        let value = cx.body.to_dtype(value, dtype);
        self.push_scatter(node, cx, value, &at, target, mode);
        Ok(())
    }

    /// The points of `index` and, at each, the target element it names along `dim`.
    fn along_dim_positions(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
        dim: i64,
        target: BufferId,
    ) -> Result<(BodyCx, Vec<IndexExpr>)> {
        let gerr = |e| Self::graph_err(node, e);
        let idx_t = self.tensor(node, b, "index")?;
        let sizes = self.g.buffers[target].layout.sizes.clone();
        let d = normalize_dim(dim, sizes.len().max(1)).map_err(gerr)?;
        let isz = self.g.tensors[idx_t].sizes.clone();
        let mut cx = BodyCx::new(&isz);
        let p = cx.idx.clone();
        let size = sizes.get(d).copied().unwrap_or(1);
        let r = self.indirect(&mut cx, node, call, idx_t, &p, d, size, false);
        let mut at = p;
        if sizes.is_empty() {
            at.clear();
        } else {
            at.truncate(sizes.len());
            at[d] = r;
        }
        Ok((cx, at))
    }

    /// `target[indices] = values` (or `+=`) over the indexing result's points.
    fn index_put_scatter(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
        target: BufferId,
        mode: StoreMode,
    ) -> Result<()> {
        let dtype = self.g.buffers[target].layout.dtype;
        let sizes = self.g.buffers[target].layout.sizes.clone();
        let (idx, adv) = self.index_tensors(node, b, &sizes)?;
        let mut cx = BodyCx::new(&adv.sizes);
        let at = self.advanced_positions(&mut cx, node, call, &sizes, &idx, &adv);
        let v = self.tensor(node, b, "values")?;
        let value = self.load_broadcast(&mut cx, v);
        let value = cx.body.to_dtype(value, dtype);
        self.push_scatter(node, cx, value, &at, target, mode);
        Ok(())
    }

    /// Adds the scatter buffer storing `value` (over `cx`'s points) into `target` at `at` (one
    /// index expression per target dim). Nothing is added for an empty source.
    pub(super) fn push_scatter(
        &mut self,
        node: &Node,
        cx: BodyCx,
        value: ExprId,
        at: &[IndexExpr],
        target: BufferId,
        mode: StoreMode,
    ) {
        if cx.sizes.contains(&0) {
            return;
        }
        let layout = self.g.buffers[target].layout.clone();
        let flat = layout.flat_index(at).simplify(&cx.ranges);
        // Loop variables: the positional ones, without size-1 dims.
        let mut var_ranges = Vec::new();
        let mut subst_to = Vec::new();
        for &size in &cx.sizes {
            if size == 1 {
                subst_to.push(IndexExpr::zero());
            } else {
                let v = Var::p(var_ranges.len());
                var_ranges.push((v, size));
                subst_to.push(IndexExpr::var(v));
            }
        }
        let vr = VarRanges::new(var_ranges.clone());
        let ind = flat.indirect_nodes();
        let mut roots = vec![value];
        roots.extend(ind.iter().map(|&n| ExprId::new(n)));
        let mut exprs = ExprGraph::new();
        let copies = exprs.inline_all(
            &cx.body,
            &roots,
            &mut positional_subst(&subst_to),
            &vr,
            None,
        );
        let renamed: HashMap<usize, usize> = ind
            .iter()
            .zip(&copies[1..])
            .map(|(&n, c)| (n, c.index()))
            .collect();
        let store_index = flat
            .subst(&mut positional_subst(&subst_to))
            .rename_indirect(&mut |n| renamed.get(&n).copied().unwrap_or(n))
            .simplify(&vr);
        let body = LoopBody {
            var_ranges,
            num_reduction_vars: 0,
            exprs,
            value: copies[0],
            store_index,
        };
        let id = self.g.buffers.next_id();
        let target_ref = BufRef::Buffer(target);
        let (mut reads, _) = body_deps(&body, BufRef::Buffer(id), layout.dtype, |b| {
            let l = self.buf_layout(b);
            (l.dtype, l.storage_len())
        });
        // It keeps the elements it does not write: a read of the whole target, and a write.
        let whole = Dep::Star(StarDep {
            buffer: target_ref,
            numel: layout.numel(),
            dtype: layout.dtype,
        });
        if !reads.contains(&whole) {
            reads.push(whole.clone());
        }
        let origins = self.gather_origins(node, &cx.reads);
        tracing::debug!(target: "lowering", node = %node.name, %target, ?mode, "scatter");
        self.g.buffers.push(Buffer {
            id,
            layout,
            origins,
            kind: BufferKind::Computed(ComputedBuffer {
                ranges: cx.sizes.clone(),
                reduction_ranges: Vec::new(),
                reduction_type: None,
                body,
                scatter: Some(Scatter { target, mode }),
            }),
            reads,
            writes: vec![whole],
        });
    }
}
