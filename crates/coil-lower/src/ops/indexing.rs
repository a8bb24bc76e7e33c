//! Lowerings of the gathering ops with indirect indexing (Inductor's `indirect_indexing`):
//! `embedding`, `index_select`, `gather` and `index.Tensor` load their index tensor, turn each
//! value into a checked index variable ([`crate::Expr::IndirectIndex`], `ind<n>`), and read
//! the indexed tensor at an index expression using it. The result is a lazy pointwise value:
//! it inlines into its readers, and the indexed tensor, if lazy, is computed at the gathered
//! positions only. A read through an indirect index is a whole-buffer dependency (`StarDep`)
//! for the scheduler.
//!
//! Writes at indirect positions (`scatter`, `index_put`) are in `scatter.rs`, `sort` and
//! `topk` in `sort.rs`; `_embedding_bag` stays a host fallback.

use coil_graph::IndexingKind;
use coil_graph::{Bound, Call, DType, Node, advanced_index, normalize_dim};

use crate::body::{Const, Op};
use crate::index::IndexExpr;
use crate::ir::{IndexCheck, TensorId};
use crate::lowering::{BodyCx, Lowerer, Result};

impl Lowerer<'_> {
    /// A new check of indices into dim `dim` (of size `size`) of the tensor `node` indexes.
    pub(super) fn index_check(&mut self, node: &Node, call: &Call, dim: usize, size: usize) -> u32 {
        self.g.index_checks.push(IndexCheck {
            node: node.name.clone(),
            op: call.op.to_string(),
            dim,
            size,
        });
        (self.g.index_checks.len() - 1) as u32
    }

    /// Loads `index` at `at` and makes it a checked index into a dim of `size`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn indirect(
        &mut self,
        cx: &mut BodyCx,
        node: &Node,
        call: &Call,
        index: TensorId,
        at: &[IndexExpr],
        dim: usize,
        size: usize,
        wrap_negative: bool,
    ) -> IndexExpr {
        let v = self.load_at(cx, index, at, None);
        let check = self.index_check(node, call, dim, size);
        cx.body.indirect_index(v, size, wrap_negative, check)
    }

    /// The index tensors of `index.Tensor` or `index_put` (`None` for a `:`) into a tensor of
    /// `sizes`, and where their broadcast result goes.
    pub(super) fn index_tensors(
        &self,
        node: &Node,
        b: &Bound<'_>,
        sizes: &[usize],
    ) -> Result<(Vec<Option<TensorId>>, coil_graph::AdvancedIndex)> {
        let gerr = |e| Self::graph_err(node, e);
        let list = b.opt_tensors("indices").map_err(gerr)?;
        let idx: Vec<Option<TensorId>> = list
            .iter()
            .map(|n| n.map(|n| self.value(n, &node.name)).transpose())
            .collect::<Result<_>>()?;
        let shapes: Vec<Option<Vec<usize>>> = idx
            .iter()
            .map(|t| t.map(|t| self.g.tensors[t].sizes.clone()))
            .collect();
        let adv = advanced_index(sizes, &shapes).map_err(gerr)?;
        Ok((idx, adv))
    }

    /// Advanced indexing (`x[i0, :, i2]`) at the point of `cx` (over the indexing result's
    /// sizes, `adv.sizes`): the element of `x` (of `sizes`) it names, one index expression per
    /// dim, the index tensors loaded and checked (negatives wrap).
    pub(super) fn advanced_positions(
        &mut self,
        cx: &mut BodyCx,
        node: &Node,
        call: &Call,
        sizes: &[usize],
        idx: &[Option<TensorId>],
        adv: &coil_graph::AdvancedIndex,
    ) -> Vec<IndexExpr> {
        let out_idx = cx.idx.clone();
        let nb = adv.broadcast.len();
        let bpos = out_idx[adv.at..adv.at + nb].to_vec();
        // Kept dims fill the result's other positions, in order.
        let mut rest = (0..out_idx.len()).filter(|&k| k < adv.at || k >= adv.at + nb);
        let mut xi: Vec<IndexExpr> = vec![IndexExpr::zero(); sizes.len()];
        for (d, slot) in xi.iter_mut().enumerate() {
            if !adv.indexed.contains(&d) {
                *slot = out_idx[rest.next().unwrap_or(0)].clone();
            }
        }
        for &d in &adv.indexed {
            let Some(t) = idx[d] else { continue };
            let isz = self.g.tensors[t].sizes.clone();
            let lead = nb - isz.len();
            let at: Vec<IndexExpr> = isz
                .iter()
                .enumerate()
                .map(|(k, &s)| {
                    if s == 1 {
                        IndexExpr::zero()
                    } else {
                        bpos[lead + k].clone()
                    }
                })
                .collect();
            xi[d] = self.indirect(cx, node, call, t, &at, d, sizes[d], true);
        }
        xi
    }

    /// `index_put(x, [mask], v)` with one boolean mask over `x`'s leading dims and a
    /// one-element `v`: a masked fill, `where(mask, v, x)` (`x + where(mask, v, 0)` when
    /// accumulating), fused like any pointwise op (Inductor's rewrite of it too). `None` for
    /// every other `index_put`, which stays a host call.
    pub(super) fn try_index_put_as_where(
        &mut self,
        node: &Node,
        b: &Bound<'_>,
    ) -> Result<Option<TensorId>> {
        let gerr = |e| Self::graph_err(node, e);
        let list = b.opt_tensors("indices").map_err(gerr)?;
        let [Some(mask_node)] = list[..] else {
            return Ok(None);
        };
        let x = self.tensor(node, b, "self")?;
        let v = self.tensor(node, b, "values")?;
        let mask = self.value(mask_node, &node.name)?;
        let (mt, vt) = (&self.g.tensors[mask], &self.g.tensors[v]);
        if mt.dtype != DType::Bool || vt.sizes.iter().product::<usize>() != 1 {
            return Ok(None);
        }
        let k = mt.sizes.len();
        let v_rank = vt.sizes.len();
        let accumulate = b.bool("accumulate").map_err(gerr)?;
        let meta = node.meta().clone();
        let out = meta.dtype;
        if accumulate && out == DType::Bool {
            return Ok(None);
        }
        let mut cx = BodyCx::new(&meta.sizes);
        let idx = cx.idx.clone();
        let m = self.load_at(&mut cx, mask, &idx[..k], None);
        let zeros = vec![IndexExpr::zero(); v_rank];
        let value = self.load_at(&mut cx, v, &zeros, None);
        let value = cx.body.to_dtype(value, out);
        let old = self.load_at(&mut cx, x, &idx, None);
        let root = if accumulate {
            let zero = cx.body.constant(Const::Int(0), out);
            let add = cx.body.where_(m, value, zero);
            cx.body.binary(Op::Add, old, add)
        } else {
            cx.body.where_(m, value, old)
        };
        Ok(Some(self.finish_pointwise(node, cx, root, out)))
    }

    pub(super) fn lower_indexing(
        &mut self,
        node: &Node,
        call: &Call,
        kind: IndexingKind,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        use IndexingKind as I;
        let meta = node.meta().clone();
        let gerr = |e| Self::graph_err(node, e);
        let mut cx = BodyCx::new(&meta.sizes);
        let out_idx = cx.idx.clone();
        let root = match kind {
            I::Embedding => {
                // out[i..., j...] = weight[indices[i...], j...]
                let w = self.tensor(node, b, "weight")?;
                let idx = self.tensor(node, b, "indices")?;
                let rank_i = self.g.tensors[idx].sizes.len();
                let rows = self.g.tensors[w].sizes[0];
                let r = self.indirect(&mut cx, node, call, idx, &out_idx[..rank_i], 0, rows, false);
                let mut at = vec![r];
                at.extend_from_slice(&out_idx[rank_i..]);
                self.load_at(&mut cx, w, &at, None)
            }
            I::IndexSelect => {
                let x = self.tensor(node, b, "self")?;
                let idx = self.tensor(node, b, "index")?;
                let sizes = self.g.tensors[x].sizes.clone();
                let zero = [IndexExpr::zero()];
                if sizes.is_empty() {
                    // A 0-d tensor takes one index, which must be 0.
                    let i_rank = self.g.tensors[idx].sizes.len();
                    let _ = self.indirect(&mut cx, node, call, idx, &zero[..i_rank], 0, 1, false);
                    self.load_at(&mut cx, x, &[], None)
                } else {
                    let d =
                        normalize_dim(b.int("dim").map_err(gerr)?, sizes.len()).map_err(gerr)?;
                    let i_rank = self.g.tensors[idx].sizes.len();
                    let at = if i_rank == 0 {
                        vec![]
                    } else {
                        vec![out_idx[d].clone()]
                    };
                    let r = self.indirect(&mut cx, node, call, idx, &at, d, sizes[d], false);
                    let mut xi = out_idx.clone();
                    xi[d] = r;
                    self.load_at(&mut cx, x, &xi, None)
                }
            }
            I::Gather => {
                // out[p] = self[p with dim d replaced by index[p]]
                let x = self.tensor(node, b, "self")?;
                let idx = self.tensor(node, b, "index")?;
                let sizes = self.g.tensors[x].sizes.clone();
                let d =
                    normalize_dim(b.int("dim").map_err(gerr)?, sizes.len().max(1)).map_err(gerr)?;
                let size = sizes.get(d).copied().unwrap_or(1);
                let r = self.indirect(&mut cx, node, call, idx, &out_idx, d, size, false);
                let mut xi = out_idx.clone();
                if sizes.is_empty() {
                    xi.clear();
                } else {
                    xi[d] = r;
                }
                self.load_at(&mut cx, x, &xi, None)
            }
            I::Index => {
                let x = self.tensor(node, b, "self")?;
                let sizes = self.g.tensors[x].sizes.clone();
                let (idx, adv) = self.index_tensors(node, b, &sizes)?;
                let xi = self.advanced_positions(&mut cx, node, call, &sizes, &idx, &adv);
                self.load_at(&mut cx, x, &xi, None)
            }
            I::Scatter | I::ScatterAdd | I::ScatterReduce | I::IndexPut => {
                return self.lower_scatter(node, call, kind, b);
            }
            I::Sort | I::Topk => return self.lower_sort(node, call, kind, b),
            I::EmbeddingBag => return self.lower_embedding_bag(node, call, b),
        };
        let dtype: DType = meta.dtype;
        Ok(vec![self.finish_pointwise(node, cx, root, dtype)])
    }
}
