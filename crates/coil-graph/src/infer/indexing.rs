//! Meta inference of indexing ops (`embedding`, `_embedding_bag`, `index.Tensor`,
//! `index_select`, `gather`, `scatter`, `index_put`) and scans (`cumsum`, `cumprod`). Index
//! tensors must hold integers; their values are checked at run time, not here.

use super::{Cx, dtype_err, shape_err};
use crate::meta::{broadcast_shapes, normalize_dim};
use crate::{DType, Dims, GraphError, IndexingKind, ScanKind, TensorMeta};

fn is_index_dtype(d: DType) -> bool {
    matches!(d, DType::I64 | DType::I32)
}

/// Where `index.Tensor`'s advanced indices put their broadcast shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdvancedIndex {
    /// The dims of `self` that are indexed (those with a tensor).
    pub indexed: Vec<usize>,
    /// The broadcast shape of the index tensors.
    pub broadcast: Vec<usize>,
    /// Where the broadcast dims go in the result: at the first indexed dim when the indexed
    /// dims are adjacent, else at the front (NumPy's rule).
    pub at: usize,
    /// The result's sizes.
    pub sizes: Vec<usize>,
}

/// The result of indexing a tensor of `sizes` with `indices` (`None` keeps a dim whole).
pub fn advanced_index(
    sizes: &[usize],
    indices: &[Option<Vec<usize>>],
) -> Result<AdvancedIndex, GraphError> {
    if indices.len() > sizes.len() {
        return shape_err(format!(
            "index: too many indices for tensor of dimension {} (got {})",
            sizes.len(),
            indices.len()
        ));
    }
    let indexed: Vec<usize> = (0..indices.len())
        .filter(|&i| indices[i].is_some())
        .collect();
    if indexed.is_empty() {
        return shape_err("index: at least one index must be a tensor");
    }
    let mut broadcast = vec![];
    for s in indices.iter().flatten() {
        broadcast = broadcast_shapes(&broadcast, s)?;
    }
    let adjacent = indexed.windows(2).all(|w| w[1] == w[0] + 1);
    let kept: Vec<usize> = (0..sizes.len()).filter(|d| !indexed.contains(d)).collect();
    let at = if adjacent { indexed[0] } else { 0 };
    let before: Vec<usize> = if adjacent {
        kept.iter()
            .filter(|&&d| d < at)
            .map(|&d| sizes[d])
            .collect()
    } else {
        vec![]
    };
    let after: Vec<usize> = kept
        .iter()
        .filter(|&&d| !adjacent || d > at)
        .map(|&d| sizes[d])
        .collect();
    let mut out = before.clone();
    out.extend(&broadcast);
    out.extend(after);
    Ok(AdvancedIndex {
        at: before.len(),
        indexed,
        broadcast,
        sizes: out,
    })
}

/// The outputs of a call of `kind`, an op of this family.
pub(super) fn infer(cx: &Cx<'_>, kind: IndexingKind) -> Result<Vec<TensorMeta>, GraphError> {
    let b = cx.b;
    let graph = cx.graph;
    let name = cx.schema.name.as_str();
    let one = |m: TensorMeta| Ok(vec![m]);
    let index_meta = |arg: &str| -> Result<TensorMeta, GraphError> {
        let m = cx.meta(arg)?;
        if !is_index_dtype(m.dtype) {
            return dtype_err(format!(
                "{name}: expected {arg} to hold integers (Long or Int), but got {}",
                m.dtype
            ));
        }
        Ok(m)
    };
    use IndexingKind::*;
    match kind {
        Sort | Topk => {
            let m = cx.meta("self")?;
            let d = if m.rank() == 0 {
                0
            } else {
                normalize_dim(b.int("dim")?, m.rank())?
            };
            let len = m.sizes.get(d).copied().unwrap_or(1);
            let mut sizes = m.sizes.clone();
            if kind == Topk {
                let k = b.int("k")?;
                if k < 0 || k as usize > len {
                    return shape_err(format!(
                        "topk: selected index k = {k} out of range for a dim of size {len}"
                    ));
                }
                if let Some(s) = sizes.get_mut(d) {
                    *s = k as usize;
                }
            }
            Ok(vec![
                TensorMeta::contiguous(m.dtype, sizes.clone()),
                TensorMeta::contiguous(DType::I64, sizes),
            ])
        }
        Embedding => {
            let w = cx.meta("weight")?;
            let idx = index_meta("indices")?;
            if w.rank() != 2 {
                return shape_err(format!(
                    "embedding: 'weight' must be 2-D, got {}",
                    Dims(&w.sizes)
                ));
            }
            let mut sizes = idx.sizes.clone();
            sizes.push(w.sizes[1]);
            one(TensorMeta::contiguous(w.dtype, sizes))
        }
        EmbeddingBag => {
            let w = cx.meta("weight")?;
            let idx = index_meta("indices")?;
            let off = index_meta("offsets")?;
            if w.rank() != 2 {
                return shape_err(format!(
                    "embedding_bag: 'weight' must be 2-D, got {}",
                    Dims(&w.sizes)
                ));
            }
            if idx.rank() != 1 || off.rank() != 1 {
                return shape_err(format!(
                    "embedding_bag: expected 1-D indices and offsets, got {} and {}",
                    Dims(&idx.sizes),
                    Dims(&off.sizes)
                ));
            }
            let mode = b.int("mode")?;
            if !(0..=2).contains(&mode) {
                return shape_err(format!(
                    "embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max), got {mode}"
                ));
            }
            if let Some(p) = b.opt_tensor("per_sample_weights") {
                let pm = graph.node(p).meta();
                if mode != 0 || pm.sizes != idx.sizes {
                    return shape_err(format!(
                        "embedding_bag: per_sample_weights are only supported for mode='sum' and must have \
                         the indices' shape {}, got {}",
                        Dims(&idx.sizes),
                        Dims(&pm.sizes)
                    ));
                }
            }
            let last = b.bool("include_last_offset")?;
            let bags = if last {
                if off.sizes[0] == 0 {
                    return shape_err(
                        "embedding_bag: include_last_offset needs at least one offset",
                    );
                }
                off.sizes[0] - 1
            } else {
                off.sizes[0]
            };
            let d = w.sizes[1];
            let max_idx = if mode == 2 { vec![bags, d] } else { vec![bags] };
            // PyTorch's CPU kernel leaves offset2bag empty in sum mode without a padding_idx.
            let offset2bag = if mode == 0 && b.int("padding_idx")? < 0 {
                0
            } else {
                idx.sizes[0]
            };
            Ok(vec![
                TensorMeta::contiguous(w.dtype, vec![bags, d]),
                TensorMeta::contiguous(DType::I64, vec![offset2bag]),
                TensorMeta::contiguous(DType::I64, vec![bags]),
                TensorMeta::contiguous(DType::I64, max_idx),
            ])
        }
        Index => {
            let m = cx.meta("self")?;
            let mut shapes = vec![];
            for i in b.opt_tensors("indices")? {
                match i {
                    None => shapes.push(None),
                    Some(n) => {
                        let im = graph.node(n).meta();
                        if im.dtype == DType::Bool {
                            return shape_err(
                                "index: a boolean mask index gives a result whose size depends on the \
                                 mask's values; coil needs static shapes (use where/masked_fill instead)",
                            );
                        }
                        if !is_index_dtype(im.dtype) {
                            return dtype_err(format!(
                                "index: tensors used as indices must be long, int, byte or bool tensors, got {}",
                                im.dtype
                            ));
                        }
                        shapes.push(Some(im.sizes.clone()));
                    }
                }
            }
            let a = advanced_index(&m.sizes, &shapes)?;
            one(TensorMeta::contiguous(m.dtype, a.sizes))
        }
        IndexSelect => {
            let m = cx.meta("self")?;
            let idx = index_meta("index")?;
            if idx.rank() > 1 {
                return shape_err(format!(
                    "index_select(): Index is supposed to be a vector, got {}",
                    Dims(&idx.sizes)
                ));
            }
            let d = normalize_dim(b.int("dim")?, m.rank())?;
            let mut sizes = m.sizes.clone();
            if sizes.is_empty() {
                return one(TensorMeta::contiguous(m.dtype, vec![]));
            }
            sizes[d] = idx.numel();
            one(TensorMeta::contiguous(m.dtype, sizes))
        }
        Gather => {
            let m = cx.meta("self")?;
            let idx = index_meta("index")?;
            let d = normalize_dim(b.int("dim")?, m.rank())?;
            check_same_rank(name, &m, &idx, d, false)?;
            one(TensorMeta::contiguous(m.dtype, idx.sizes))
        }
        Scatter | ScatterAdd | ScatterReduce => {
            let m = cx.meta("self")?;
            if kind == ScatterReduce {
                let reduce = b.opt_str("reduce").unwrap_or_default();
                let known: &[&str] = if name == "scatter" {
                    &["add", "multiply"]
                } else {
                    &["sum", "prod", "mean", "amax", "amin"]
                };
                if !known.contains(&reduce) {
                    return shape_err(format!(
                        "{name}(): reduce argument must be one of {}, got '{reduce}'",
                        known.join(", ")
                    ));
                }
            }
            let idx = index_meta("index")?;
            let d = normalize_dim(b.int("dim")?, m.rank())?;
            check_same_rank(name, &m, &idx, d, false)?;
            if b.has("src") {
                let src = cx.meta("src")?;
                if src.dtype != m.dtype {
                    return dtype_err(format!(
                        "{name}(): expected self.dtype to be equal to src.dtype, got {} and {}",
                        m.dtype, src.dtype
                    ));
                }
                check_same_rank(name, &src, &idx, d, true)?;
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        IndexPut => {
            let m = cx.meta("self")?;
            let v = cx.meta("values")?;
            let mut shapes = vec![];
            // A boolean mask covers as many dims as it has, with their sizes; how many
            // elements it selects is known at run time only, so the values' shape is
            // checked then (coil-eager) against the selection's.
            let mut masked = false;
            let mut dim = 0;
            for i in b.opt_tensors("indices")? {
                shapes.push(match i {
                    None => {
                        dim += 1;
                        None
                    }
                    Some(n) => {
                        let im = graph.node(n).meta();
                        if im.dtype == DType::Bool {
                            let k = im.rank();
                            if m.sizes.get(dim..dim + k) != Some(&im.sizes[..]) {
                                return shape_err(format!(
                                    "index_put: the shape of the mask {} at index {dim} does not \
                                     match the shape of the indexed tensor {}",
                                    Dims(&im.sizes),
                                    Dims(&m.sizes)
                                ));
                            }
                            masked = true;
                            dim += k;
                            None
                        } else if !is_index_dtype(im.dtype) {
                            return dtype_err(format!(
                                "index_put: tensors used as indices must be long, int, byte or \
                                 bool tensors, got {}",
                                im.dtype
                            ));
                        } else {
                            dim += 1;
                            Some(im.sizes.clone())
                        }
                    }
                });
            }
            if masked {
                return one(TensorMeta::contiguous(m.dtype, m.sizes));
            }
            let a = advanced_index(&m.sizes, &shapes)?;
            if broadcast_shapes(&a.sizes, &v.sizes).ok().as_deref() != Some(&a.sizes[..]) {
                return shape_err(format!(
                    "index_put: shape mismatch: value tensor of shape {} cannot be broadcast to indexing \
                     result of shape {}",
                    Dims(&v.sizes),
                    Dims(&a.sizes)
                ));
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
    }
}

/// The outputs of a call of `kind`, an op of this family.
pub(super) fn infer_scan(cx: &Cx<'_>, kind: ScanKind) -> Result<Vec<TensorMeta>, GraphError> {
    let b = cx.b;
    let one = |m: TensorMeta| Ok(vec![m]);
    use ScanKind::*;
    match kind {
        Cumsum | Cumprod => {
            let m = cx.meta("self")?;
            normalize_dim(b.int("dim")?, m.rank())?;
            let dtype = b.opt_dtype("dtype").unwrap_or(if m.dtype.is_float() {
                m.dtype
            } else {
                DType::I64
            });
            one(TensorMeta::contiguous(dtype, m.sizes))
        }
        Logcumsumexp => {
            let m = cx.meta("self")?;
            normalize_dim(b.int("dim")?, m.rank())?;
            if !m.dtype.is_float() {
                return dtype_err(format!(
                    "\"logcumsumexp\" is not implemented for {}",
                    m.dtype.torch_name()
                ));
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
    }
}

/// `gather`/`scatter`'s rule: `index` has `self`'s rank (0-d and 1-d mix), and
/// `index.size(d) <= self.size(d)` for every `d != dim` (every `d` for a `src`).
fn check_same_rank(
    name: &str,
    m: &TensorMeta,
    idx: &TensorMeta,
    dim: usize,
    all_dims: bool,
) -> Result<(), GraphError> {
    if m.rank().max(1) != idx.rank().max(1) {
        return shape_err(format!(
            "{name}(): Index tensor must have the same number of dimensions as the input tensor \
             ({} vs {})",
            Dims(&idx.sizes),
            Dims(&m.sizes)
        ));
    }
    for d in 0..idx.rank() {
        if (all_dims || d != dim) && idx.sizes[d] > m.sizes.get(d).copied().unwrap_or(1) {
            return shape_err(format!(
                "{name}(): Size does not match at dimension {d}: expected index {} to be no larger than \
                 {} apart from dimension {dim}",
                Dims(&idx.sizes),
                Dims(&m.sizes)
            ));
        }
    }
    Ok(())
}
