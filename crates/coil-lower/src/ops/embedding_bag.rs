//! `_embedding_bag` with `mode` sum or mean as kernels: no host call, no synchronisation.
//!
//! A bag is the run of indices from its offset to the next. Each index's bag comes from the
//! offsets in two kernels, whatever the bags' lengths: a one at each bag's start (a scatter of
//! the offsets after the first into `N + 1` zeros), then their running sum (a scan). The rows
//! the indices name, scaled by `per_sample_weights`, are added into their bag's row (a scatter
//! that adds, atomically on the GPU), accumulated in the compute dtype (f32 for 16-bit
//! weights) and cast once; `mean` divides by the number of indices each bag holds. Indices
//! equal to `padding_idx` add nothing and count for nothing. With `include_last_offset`, the
//! indices past the last offset fall into a spare bag that is dropped. So the work is
//! `O(N x D + B)`, as eager's loop; an index out of range is an error naming the op, as for
//! `embedding`.
//!
//! What stays on the host: `mode` max (a scatter that takes maxima, which coil runs on the
//! host as Inductor does), reads of the auxiliary outputs (`offset2bag`, `bag_size`,
//! `max_indices`, whose contents follow PyTorch's CPU kernel and feed only the backward), and
//! dtypes the backend cannot add atomically. Eager's checks of the offsets themselves (the
//! first is 0, they do not decrease) are not repeated: bags of offsets that break them are
//! what the running sum gives.

use coil_graph::{Bound, Call, DType, Node, NodeKind};

use crate::body::{Const, ReductionType};
use crate::ir::TensorId;
use crate::lowering::{BodyCx, Lowerer, Result, positional_index};
use crate::{Op, StoreMode};

/// What an embedding bag reads and how it combines.
struct Bag {
    w: TensorId,
    idx: TensorId,
    offsets: TensorId,
    psw: Option<TensorId>,
    mean: bool,
    last: bool,
    padding: i64,
}

impl Lowerer<'_> {
    /// Lowers `_embedding_bag` as kernels, or as a host call where they do not apply.
    pub(super) fn lower_embedding_bag(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let gerr = |e| Self::graph_err(node, e);
        let mode = b.int("mode").map_err(gerr)?;
        let last = b.bool("include_last_offset").map_err(gerr)?;
        let padding = b.int("padding_idx").map_err(gerr)?;
        let metas = node.outputs.clone();
        let dtype = metas[0].dtype;
        let acc = dtype.opmath();
        let atomic = |d| self.config.atomic_add.contains(&d);
        if mode == 2 || self.aux_outputs_read(node) || !atomic(acc) || !atomic(DType::I64) {
            return self.lower_fallback(node, call);
        }
        let w = self.tensor(node, b, "weight")?;
        let idx = self.tensor(node, b, "indices")?;
        let offsets = self.tensor(node, b, "offsets")?;
        let psw = b
            .opt_tensor("per_sample_weights")
            .map(|n| self.value(n, &node.name))
            .transpose()?;
        let rows = self.g.tensors[w].sizes[0];
        let n = self.g.tensors[idx].sizes[0];
        let (bags, d) = (metas[0].sizes[0], metas[0].sizes[1]);
        let bag = Bag {
            w,
            idx,
            offsets,
            psw,
            mean: mode == 1,
            last,
            padding,
        };
        let mut out = vec![self.embedding_bags(node, call, &bag)?];
        if bags == 0 || n == 0 || rows == 0 || d == 0 {
            out[0] = self.zeros_of(node, &metas[0]);
        } else {
            let value = out[0];
            let mut cx = BodyCx::new(&metas[0].sizes);
            let at = cx.idx.clone();
            let v = self.load_at(&mut cx, value, &at, None);
            let v = cx.body.to_dtype(v, dtype);
            out[0] = self.finish_pointwise(node, cx, v, dtype);
        }
        // Unread (checked above): zeros of their sizes.
        for meta in &metas[1..] {
            out.push(self.zeros_of(node, meta));
        }
        Ok(out)
    }

    /// The bags' sums (or means) in the compute dtype, `[bags, D]`.
    fn embedding_bags(&mut self, node: &Node, call: &Call, bag: &Bag) -> Result<TensorId> {
        let &Bag {
            w,
            idx,
            offsets,
            psw,
            mean,
            last,
            padding,
        } = bag;
        let meta = node.outputs[0].clone();
        let acc = meta.dtype.opmath();
        let rows = self.g.tensors[w].sizes[0];
        let n = self.g.tensors[idx].sizes[0];
        let (bags, d) = (meta.sizes[0], meta.sizes[1]);
        // With `include_last_offset`, a spare bag past the last offset takes what follows it.
        let slots = bags + usize::from(last);
        // 1. A one at each bag's start after the first (offsets[1..slots]), into N + 1 zeros
        // (an empty bag at the end starts at N).
        let (marks, marks_buf) = self.zeros_target(node, &[n + 1], DType::I64);
        if slots > 1 {
            let mut cx = BodyCx::new(&[slots - 1]);
            let at = [cx.idx[0].add_constant(1)];
            let start = self.indirect(&mut cx, node, call, offsets, &at, 0, n + 1, false);
            let one = cx.body.constant(Const::Int(1), DType::I64);
            self.push_scatter(node, cx, one, &[start], marks_buf, StoreMode::AtomicAdd);
        }
        // 2. Each index's bag: the running sum of the starts up to it.
        let first_n = self.make_view(node, marks, vec![n], positional_index(&[n]));
        let bag = self.scan_along(node, first_n, 0, ReductionType::Sum, DType::I64);
        // 3. The rows added into their bags.
        // (`padding_idx` is -1 when there is none; PyTorch checks it lies in the table.)
        let not_padding = |l: &mut Self, cx: &mut BodyCx, j| -> Option<crate::body::ExprId> {
            (0..rows as i64).contains(&padding).then(|| {
                let i = l.load_at(cx, idx, &[j], None);
                let i = cx.body.to_dtype(i, DType::I64);
                let p = cx.body.constant(Const::Int(padding), DType::I64);
                cx.body.binary(Op::Ne, i, p)
            })
        };
        let (sums, sums_buf) = self.zeros_target(node, &[slots, d], acc);
        {
            let mut cx = BodyCx::new(&[n, d]);
            let (j, k) = (cx.idx[0].clone(), cx.idx[1].clone());
            let r = self.indirect(
                &mut cx,
                node,
                call,
                idx,
                std::slice::from_ref(&j),
                0,
                rows,
                false,
            );
            let v = self.load_at(&mut cx, w, &[r, k.clone()], None);
            let mut v = cx.body.to_dtype(v, acc);
            if let Some(p) = psw {
                let s = self.load_at(&mut cx, p, std::slice::from_ref(&j), None);
                let s = cx.body.to_dtype(s, acc);
                v = cx.body.binary(Op::Mul, v, s);
            }
            if let Some(keep) = not_padding(self, &mut cx, j.clone()) {
                let zero = cx.body.constant(Const::Float(0.0), acc);
                v = cx.body.where_(keep, v, zero);
            }
            let slot = self.indirect(&mut cx, node, call, bag, &[j], 0, slots, false);
            self.push_scatter(node, cx, v, &[slot, k], sums_buf, StoreMode::AtomicAdd);
        }
        if !mean {
            return Ok(self.first_rows(node, sums, bags, d));
        }
        // 4. mean: each bag's sum over its count (an empty bag's sum, 0, over 1).
        let (counts, counts_buf) = self.zeros_target(node, &[slots], acc);
        {
            let mut cx = BodyCx::new(&[n]);
            let j = cx.idx[0].clone();
            let one = cx.body.constant(Const::Float(1.0), acc);
            let c = match not_padding(self, &mut cx, j.clone()) {
                Some(keep) => {
                    let zero = cx.body.constant(Const::Float(0.0), acc);
                    cx.body.where_(keep, one, zero)
                }
                None => one,
            };
            let slot = self.indirect(&mut cx, node, call, bag, &[j], 0, slots, false);
            self.push_scatter(node, cx, c, &[slot], counts_buf, StoreMode::AtomicAdd);
        }
        let mut cx = BodyCx::new(&[bags, d]);
        let at = cx.idx.clone();
        let s = self.load_at(&mut cx, sums, &at, None);
        let c = self.load_at(&mut cx, counts, &at[..1], None);
        let one = cx.body.constant(Const::Float(1.0), acc);
        let c = cx.body.binary(Op::Maximum, c, one);
        let mean = cx.body.binary(Op::TrueDiv, s, c);
        Ok(self.finish_pointwise(node, cx, mean, acc))
    }

    /// The first `bags` rows of `t` (`[slots, d]`).
    fn first_rows(&mut self, node: &Node, t: TensorId, bags: usize, d: usize) -> TensorId {
        if self.g.tensors[t].sizes[0] == bags {
            return t;
        }
        let sizes = vec![bags, d];
        let keep = positional_index(&sizes);
        self.make_view(node, t, sizes, keep)
    }

    /// Whether any of the node's outputs after the first is read.
    fn aux_outputs_read(&self, node: &Node) -> bool {
        let Some((id, _)) = self.graph.nodes().find(|(_, n)| n.name == node.name) else {
            return true;
        };
        let outputs = self.graph.outputs();
        self.users[id.index()].iter().any(|&u| {
            let user = self.graph.node(u);
            match user.kind {
                NodeKind::GetItem { index, .. } => {
                    index > 0 && (!self.users[u.index()].is_empty() || outputs.contains(&u))
                }
                _ => true,
            }
        })
    }
}
