//! Meta inference of views (`view`, `permute`, `expand`, `slice`, ...: strides computed as PyTorch
//! does) and copies (`clone`, `cat`).

use super::slice_range;
use super::{Cx, shape_err};
use crate::meta::{
    checked_numel, expand_strides, infer_size, last_position, normalize_dim, normalize_dims,
    view_strides,
};
use crate::{CopyKind, Dims, GraphError, Operand, TensorMeta, ViewKind, result_type};

/// The outputs of a call of `kind`, an op of this family.
pub(super) fn infer(cx: &Cx<'_>, kind: ViewKind) -> Result<Vec<TensorMeta>, GraphError> {
    let b = cx.b;
    let graph = cx.graph;
    let one = |m: TensorMeta| Ok(vec![m]);
    use ViewKind::*;
    match kind {
        View | UnsafeView | Reshape => {
            let m = cx.meta("self")?;
            let shape = b.int_list(if b.has("size") { "size" } else { "shape" })?;
            let sizes = infer_size(&shape, m.numel())?;
            match view_strides(&m.sizes, &m.strides, &sizes) {
                Some(strides) => one(TensorMeta {
                    dtype: m.dtype,
                    sizes,
                    strides,
                }),
                // A `view` whose input coil lays out otherwise than eager did (coil's results
                // are contiguous where eager's keep their input's strides: a `slice_scatter`
                // of a transposed tensor) is the reshape it means: the same values, and a
                // graph of values does not tell a copy from a view.
                None => one(TensorMeta::contiguous(m.dtype, sizes)),
            }
        }
        Permute => {
            let m = cx.meta("self")?;
            let dims = b.int_list("dims")?;
            if dims.len() != m.rank() {
                return shape_err(format!(
                    "permute: number of dims don't match in permute: input has {} dims, {} given",
                    m.rank(),
                    dims.len()
                ));
            }
            let dims = normalize_dims(&dims, m.rank())?;
            one(TensorMeta {
                dtype: m.dtype,
                sizes: dims.iter().map(|&d| m.sizes[d]).collect(),
                strides: dims.iter().map(|&d| m.strides[d]).collect(),
            })
        }
        Transpose | T => {
            let mut m = cx.meta("self")?;
            let (d0, d1) = if kind == T {
                if m.rank() > 2 {
                    return shape_err(format!(
                        "t() expects a tensor with <= 2 dimensions, but self is {}D",
                        m.rank()
                    ));
                }
                (0, m.rank().saturating_sub(1))
            } else {
                (
                    normalize_dim(b.int("dim0")?, m.rank())?,
                    normalize_dim(b.int("dim1")?, m.rank())?,
                )
            };
            if m.rank() > 0 {
                m.sizes.swap(d0, d1);
                m.strides.swap(d0, d1);
            }
            one(m)
        }
        Expand => {
            let m = cx.meta("self")?;
            let req = b.int_list("size")?;
            if req.len() < m.rank() {
                return shape_err(format!(
                    "expand: the number of sizes provided ({}) must be greater or equal to the number of \
                     dimensions in the tensor ({})",
                    req.len(),
                    m.rank()
                ));
            }
            let lead = req.len() - m.rank();
            let mut sizes = Vec::with_capacity(req.len());
            for (i, &s) in req.iter().enumerate() {
                sizes.push(match s {
                    -1 if i >= lead => m.sizes[i - lead],
                    s if s < 0 => {
                        return shape_err(format!("expand: invalid size {s} at dimension {i}"));
                    }
                    s => s as usize,
                });
            }
            checked_numel(&sizes)?;
            let strides = expand_strides(&m.sizes, &m.strides, &sizes)?;
            one(TensorMeta {
                dtype: m.dtype,
                sizes,
                strides,
            })
        }
        Unsqueeze => {
            let mut m = cx.meta("self")?;
            let d = normalize_dim(b.int("dim")?, m.rank() + 1)?;
            let stride = if d < m.rank() {
                m.sizes[d] * m.strides[d]
            } else {
                1
            };
            m.sizes.insert(d, 1);
            m.strides.insert(d, stride);
            one(m)
        }
        Squeeze => {
            let m = cx.meta("self")?;
            let dims: Vec<usize> = match b.opt_int_list("dim") {
                Some(d) if b.has("dim") => d
                    .iter()
                    .map(|&d| normalize_dim(d, m.rank()))
                    .collect::<Result<Vec<_>, _>>()?,
                _ => (0..m.rank()).collect(),
            };
            let keep: Vec<usize> = (0..m.rank())
                .filter(|i| !(dims.contains(i) && m.sizes[*i] == 1))
                .collect();
            one(TensorMeta {
                dtype: m.dtype,
                sizes: keep.iter().map(|&i| m.sizes[i]).collect(),
                strides: keep.iter().map(|&i| m.strides[i]).collect(),
            })
        }
        Slice => {
            let mut m = cx.meta("self")?;
            let d = normalize_dim(b.int("dim")?, m.rank())?;
            if m.rank() == 0 {
                return shape_err("slice() cannot be applied to a 0-dim tensor");
            }
            let (start, len, step) = slice_range(b, m.sizes[d])?;
            let _ = start;
            m.sizes[d] = len;
            // A huge step over a dim it leaves one element of: that stride is never used.
            m.strides[d] = if len <= 1 {
                m.strides[d]
            } else {
                m.strides[d].checked_mul(step).ok_or_else(|| {
                    GraphError::Shape(format!("slice: step {step} makes the stride overflow"))
                })?
            };
            one(m)
        }
        Select => {
            let mut m = cx.meta("self")?;
            if m.rank() == 0 {
                return shape_err("select() cannot be applied to a 0-dim tensor");
            }
            let d = normalize_dim(b.int("dim")?, m.rank())?;
            let idx = b.int("index")?;
            let size = m.sizes[d] as i64;
            if idx < -size || idx >= size {
                return shape_err(format!(
                    "select(): index {idx} out of range for tensor of size {} at dimension {d}",
                    Dims(&m.sizes)
                ));
            }
            m.sizes.remove(d);
            m.strides.remove(d);
            one(m)
        }
        SplitWithSizes => {
            let m = cx.meta("self")?;
            let d = normalize_dim(b.int("dim")?, m.rank())?;
            let splits = b.int_list("split_sizes")?;
            let total = splits.iter().try_fold(0i64, |acc, &s| acc.checked_add(s));
            if splits.iter().any(|&s| s < 0) || m.rank() == 0 || total != Some(m.sizes[d] as i64) {
                return shape_err(format!(
                    "split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at dimension \
                     {d}), but got split_sizes={splits:?}",
                    m.sizes.get(d).copied().unwrap_or(0)
                ));
            }
            Ok(splits
                .iter()
                .map(|&s| {
                    let mut part = m.clone();
                    part.sizes[d] = s as usize;
                    part
                })
                .collect())
        }
        Alias => one(cx.meta("self")?),
        ViewDtype => {
            let m = cx.meta("self")?;
            let dtype = b.dtype("dtype")?;
            let (sizes, strides, _) =
                crate::view_dtype_layout(&m.sizes, &m.strides, 0, m.dtype, dtype)?;
            one(TensorMeta {
                dtype,
                sizes,
                strides,
            })
        }
        AsStrided => {
            let m = cx.meta("self")?;
            let size = b.int_list("size")?;
            let stride = b.int_list("stride")?;
            if size.len() != stride.len() {
                return shape_err(format!(
                    "as_strided: mismatch in length of strides and shape ({} and {})",
                    stride.len(),
                    size.len()
                ));
            }
            if size.iter().chain(&stride).any(|&v| v < 0) {
                return shape_err(format!(
                    "as_strided: negative sizes or strides are not supported (size {size:?}, stride {stride:?})"
                ));
            }
            let sizes: Vec<usize> = size.iter().map(|&v| v as usize).collect();
            checked_numel(&sizes)?;
            let strides: Vec<usize> = stride.iter().map(|&v| v as usize).collect();
            let offset = b.opt_int("storage_offset").unwrap_or(0);
            if offset < 0 {
                return shape_err(format!("as_strided: negative storage offset {offset}"));
            }
            // The view reads the storage behind the input's views (in coil's model the
            // storage base's elements, row-major): it must stay inside them. An implicit
            // offset (the input's own) is checked where it is known, in the lowering.
            let base = graph.node(graph.storage_base(b.tensor("self")?)).meta();
            let last = last_position(&sizes, &strides, offset as usize);
            if let Some(extent) = last.filter(|&l| l >= base.numel()) {
                return shape_err(format!(
                    "as_strided: size {} with stride {} at offset {offset} reads past the storage \
                     of {} elements behind the input {} (its last element would be at {extent})",
                    Dims(&sizes),
                    Dims(&strides),
                    base.numel(),
                    Dims(&m.sizes)
                ));
            }
            one(TensorMeta {
                dtype: m.dtype,
                sizes,
                strides,
            })
        }
    }
}

/// The outputs of a call of `kind`, an op of this family.
pub(super) fn infer_copy(cx: &Cx<'_>, kind: CopyKind) -> Result<Vec<TensorMeta>, GraphError> {
    let b = cx.b;
    let graph = cx.graph;
    let one = |m: TensorMeta| Ok(vec![m]);
    use CopyKind::*;
    match kind {
        Clone => {
            let m = cx.meta("self")?;
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        Flip => {
            let m = cx.meta("self")?;
            let dims = b.int_list("dims")?;
            let wrapped = normalize_dims(&dims, m.rank())?;
            let mut seen = wrapped.clone();
            seen.sort_unstable();
            seen.dedup();
            if seen.len() != wrapped.len() && !dims.is_empty() {
                return shape_err(format!("flip: dims has duplicates: {dims:?}"));
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        Roll => {
            let m = cx.meta("self")?;
            let shifts = b.int_list("shifts")?;
            let dims = b.int_list("dims")?;
            if dims.is_empty() && shifts.len() != 1 {
                return shape_err(format!(
                    "roll: shifts must have one entry when dims is empty (the tensor is flattened), got {shifts:?}"
                ));
            }
            if !dims.is_empty() && shifts.len() != dims.len() {
                return shape_err(format!(
                    "roll: shifts and dimensions must align. shifts: {}, dims: {}",
                    shifts.len(),
                    dims.len()
                ));
            }
            for &d in &dims {
                normalize_dim(d, m.rank())?;
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        SliceScatter => {
            // `self` with `self[..., start:end:step, ...]` (on `dim`) replaced by `src`, cast.
            let m = cx.meta("self")?;
            let src = cx.meta("src")?;
            let d = normalize_dim(b.int("dim")?, m.rank())?;
            let (_, len, _) = slice_range(b, m.sizes.get(d).copied().unwrap_or(1))?;
            let mut want = m.sizes.clone();
            if let Some(s) = want.get_mut(d) {
                *s = len;
            }
            if src.sizes != want {
                return shape_err(format!(
                    "slice_scatter: expected src to have a size equal to the slice of self, \
                     {want:?}, got {:?}",
                    src.sizes
                ));
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        AsStridedScatter => {
            let m = cx.meta("self")?;
            let src = cx.meta("src")?;
            let size = b.int_list("size")?;
            let stride = b.int_list("stride")?;
            let offset = b.opt_int("storage_offset").unwrap_or(0);
            if size.len() != stride.len()
                || size.iter().chain(&stride).any(|&v| v < 0)
                || offset < 0
            {
                return shape_err(format!(
                    "as_strided_scatter: size {size:?} and stride {stride:?} at offset {offset} \
                     do not describe a view"
                ));
            }
            let sizes: Vec<usize> = size.iter().map(|&v| v as usize).collect();
            if src.sizes != sizes {
                return shape_err(format!(
                    "as_strided_scatter: expected src to have a size equal to the view, {}, got {}",
                    Dims(&sizes),
                    Dims(&src.sizes)
                ));
            }
            let strides: Vec<usize> = stride.iter().map(|&v| v as usize).collect();
            let last = last_position(&sizes, &strides, offset as usize);
            if let Some(last) = last.filter(|&l| l >= m.numel()) {
                return shape_err(format!(
                    "as_strided_scatter: the view reaches element {last} of a copy of {} elements",
                    m.numel()
                ));
            }
            one(TensorMeta::contiguous(m.dtype, m.sizes))
        }
        ConstantPadNd => {
            let m = cx.meta("self")?;
            let sizes = padded_sizes(&m.sizes, &b.int_list("pad")?)?;
            checked_numel(&sizes)?;
            one(TensorMeta::contiguous(m.dtype, sizes))
        }
        Cat => {
            let parts = b.tensors("tensors")?;
            if parts.is_empty() {
                return shape_err("cat expects a non-empty list of tensors");
            }
            let metas: Vec<&TensorMeta> = parts.iter().map(|&n| graph.node(n).meta()).collect();
            // Legacy rule: 1-D empty tensors are skipped.
            let real: Vec<&&TensorMeta> = metas
                .iter()
                .filter(|m| !(m.rank() == 1 && m.sizes[0] == 0))
                .collect();
            let dtype = result_type(
                &metas
                    .iter()
                    .map(|m| Operand::Tensor {
                        dtype: m.dtype,
                        rank: m.rank(),
                    })
                    .collect::<Vec<_>>(),
            );
            let Some(first) = real.first() else {
                return one(TensorMeta::contiguous(dtype, vec![0]));
            };
            let d = normalize_dim(b.int("dim")?, first.rank())?;
            if first.rank() == 0 {
                return shape_err("zero-dimensional tensor cannot be concatenated");
            }
            let mut sizes = first.sizes.clone();
            sizes[d] = 0;
            for (i, m) in real.iter().enumerate() {
                if m.rank() != first.rank() {
                    return shape_err(format!(
                        "tensors must have same number of dimensions: got {} and {}",
                        first.rank(),
                        m.rank()
                    ));
                }
                for k in 0..m.rank() {
                    if k != d && m.sizes[k] != first.sizes[k] {
                        return shape_err(format!(
                            "sizes of tensors must match except in dimension {d}. Expected size {} but got size {} \
                             for tensor number {i} in the list",
                            first.sizes[k], m.sizes[k]
                        ));
                    }
                }
                sizes[d] = sizes[d].saturating_add(m.sizes[d]);
            }
            checked_numel(&sizes)?;
            one(TensorMeta::contiguous(dtype, sizes))
        }
    }
}

/// `constant_pad_nd`'s result sizes: `pad` holds (before, after) pairs from the last dim
/// backwards; negative pads crop.
pub fn padded_sizes(sizes: &[usize], pad: &[i64]) -> Result<Vec<usize>, GraphError> {
    if !pad.len().is_multiple_of(2) || pad.len() / 2 > sizes.len() {
        return shape_err(format!(
            "constant_pad_nd: padding length must be even and at most twice the input's rank ({}), got {}",
            sizes.len(),
            pad.len()
        ));
    }
    let mut out = sizes.to_vec();
    for (i, p) in pad.chunks(2).enumerate() {
        let d = sizes.len() - 1 - i;
        let n = (sizes[d] as i64)
            .checked_add(p[0])
            .and_then(|v| v.checked_add(p[1]))
            .filter(|&v| v >= 0)
            .ok_or_else(|| {
                GraphError::Shape(format!(
                    "constant_pad_nd: the input size {}, plus padding {} and {}, is not a valid \
                     output size (negative or too large). Check dimension {d} of your input.",
                    sizes[d], p[0], p[1]
                ))
            })?;
        out[d] = n as usize;
    }
    Ok(out)
}
