//! Lowerings of views: index transforms over the viewed tensor (`view`, `permute`, `expand`,
//! `slice`, `select`, ...), realized only where a layout cannot be expressed.

use coil_graph::ViewKind;
use coil_graph::{Bound, Call, Node, contiguous_strides, normalize_dim, slice_range};

use super::Val;
use crate::error::LowerError;
use crate::index::{IndexExpr, Var};
use crate::ir::TensorId;
use crate::lowering::{BodyCx, Lowerer, Result, positional_index};

impl Lowerer<'_> {
    /// Lowers a call of a view.
    pub(super) fn lower_view(
        &mut self,
        node: &Node,
        call: &Call,
        kind: ViewKind,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let meta = node.meta().clone();
        let _out = meta.dtype;
        use ViewKind as K;
        let one = |t: TensorId| Ok(vec![t]);
        match kind {
            K::AsStrided => self.lower_as_strided(node, call, b),
            K::View | K::Reshape | K::UnsafeView => {
                let x = self.tensor(node, b, "self")?;
                let old = self.g.tensors[x].sizes.clone();
                let map = reshape_indexer(&old, &meta.sizes);
                one(self.make_view(node, x, meta.sizes.clone(), map))
            }
            K::Permute | K::Transpose | K::T => {
                let x = self.tensor(node, b, "self")?;
                let rank = self.g.tensors[x].sizes.len();
                let perm: Vec<usize> = match kind {
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
                let x = self.tensor(node, b, "self")?;
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
                let x = self.tensor(node, b, "self")?;
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
                let x = self.tensor(node, b, "self")?;
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
                let x = self.tensor(node, b, "self")?;
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
                    slice_range(b, old[d]).map_err(|e| Self::graph_err(node, e))?;
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
                let x = self.tensor(node, b, "self")?;
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
                let x = self.tensor(node, b, "self")?;
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
            K::ViewDtype => {
                let x = self.tensor(node, b, "self")?;
                let from = self.g.tensors[x].dtype;
                if from.itemsize() != meta.dtype.itemsize() {
                    // Another element size reinterprets the storage: a host view, as
                    // Inductor's fallback.
                    return self.lower_fallback(node, call);
                }
                let to = meta.dtype;
                let mut cx = BodyCx::new(&meta.sizes);
                let e = self.load_broadcast(&mut cx, x);
                let root = cx.body.bitcast(e, to);
                one(self.finish_pointwise(node, cx, root, to))
            }
            K::Alias => {
                let x = self.tensor(node, b, "self")?;
                let rank = self.g.tensors[x].sizes.len();
                let map = positional_index(&self.g.tensors[x].sizes.clone());
                debug_assert_eq!(map.len(), rank);
                one(self.make_view(node, x, meta.sizes.clone(), map))
            }
        }
    }

    /// `as_strided`: element `p` reads flat position `offset + sum(p_i * stride_i)` of the
    /// storage behind the input's views ([`coil_graph::Graph::storage_base`], whose elements
    /// row-major are that storage in coil's model, as they are in eager's for a graph whose
    /// non-view results are contiguous). The offset defaults to the input's own, as
    /// PyTorch's does.
    pub(super) fn lower_as_strided(
        &mut self,
        node: &Node,
        _call: &Call,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let src = b.tensor("self").map_err(|e| Self::graph_err(node, e))?;
        let base_node = self.graph.storage_base(src);
        let x = self.value(src, &node.name)?;
        let mut base = self.value(base_node, &node.name)?;
        let meta = node.meta().clone();
        let base_sizes = self.g.tensors[base].sizes.clone();
        let offset = match b.opt_int("storage_offset") {
            Some(o) => o,
            None => self.storage_offset(node, x, base)?,
        };
        if self.g.tensors[base].view.is_some() {
            // The base is itself a view in coil's lowering (a reshape PyTorch copies, lowered
            // as an index map): its elements become a storage of their own first.
            let dtype = self.g.tensors[base].dtype;
            let mut cx = BodyCx::new(&base_sizes);
            let e = self.operand_expr(&mut cx, Val::Tensor(base), dtype);
            base = self.finish_pointwise(node, cx, e, dtype);
        }
        let numel: usize = base_sizes.iter().product();
        let last = coil_graph::last_position(&meta.sizes, &meta.strides, offset.max(0) as usize);
        if let Some(last) = last.filter(|&l| offset < 0 || l >= numel) {
            return Err(LowerError::Invalid(format!(
                "{}: as_strided reads storage positions {offset}..={last} of a storage of \
                 {numel} elements",
                node.name
            )));
        }
        let flat = positional_index(&meta.sizes)
            .iter()
            .zip(&meta.strides)
            .fold(IndexExpr::constant(offset), |acc, (e, &st)| {
                acc.add(&e.scale(st as i64))
            });
        let map = coords_of(&flat, &base_sizes);
        Ok(vec![self.make_view(node, base, meta.sizes, map)])
    }

    /// Where `x`'s first element lies in the storage of `base` (which its views lead to):
    /// PyTorch's `storage_offset()`.
    fn storage_offset(&self, node: &Node, x: TensorId, base: TensorId) -> Result<i64> {
        let (xb, bb) = (&self.g.tensors[x], &self.g.tensors[base]);
        if x == base || xb.sizes.iter().product::<usize>() == 0 {
            return Ok(0);
        }
        if xb.storage != bb.storage || bb.view.is_some() {
            return Err(LowerError::Invalid(format!(
                "{}: as_strided without a storage offset of a view whose storage coil does \
                 not hold as eager does (give the offset)",
                node.name
            )));
        }
        let Some(v) = &xb.view else { return Ok(0) };
        let storage_sizes = &self.g.storages[xb.storage].sizes;
        Ok(flat_index(&v.reindex, storage_sizes).eval(&|_| 0))
    }
}

/// For a reshape from `old` to `new` sizes (same element count): `old`'s index along each dim
/// as an expression over `new`'s positional variables (through the flat row-major position).
pub(crate) fn reshape_indexer(old: &[usize], new: &[usize]) -> Vec<IndexExpr> {
    coords_of(&flat_index(&positional_index(new), new), old)
}

/// The row-major flat position of coordinates `p` in a box of `sizes`.
pub(crate) fn flat_index(p: &[IndexExpr], sizes: &[usize]) -> IndexExpr {
    p.iter()
        .zip(sizes)
        .fold(IndexExpr::zero(), |acc, (e, &s)| acc.scale(s as i64).add(e))
}

/// The coordinates in a box of `sizes` of the flat row-major position `flat`, which lies inside
/// it (all zero for an empty box).
pub(crate) fn coords_of(flat: &IndexExpr, sizes: &[usize]) -> Vec<IndexExpr> {
    if sizes.iter().product::<usize>() == 0 {
        return vec![IndexExpr::zero(); sizes.len()];
    }
    let strides = contiguous_strides(sizes);
    sizes
        .iter()
        .zip(&strides)
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
