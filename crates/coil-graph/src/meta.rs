//! Tensor metadata (dtype, sizes, strides) and the shape arithmetic PyTorch's ops share:
//! broadcasting, dim wrapping, contiguous strides, and view stride computation.

use std::fmt;

use crate::{DType, GraphError};

/// What is known about a tensor at compile time. Strides are in elements; a stride of 0 is a
/// broadcast. PyTorch never produces negative strides, and neither do we.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorMeta {
    /// Element type.
    pub dtype: DType,
    /// Size of each dimension.
    pub sizes: Vec<usize>,
    /// Stride of each dimension, in elements.
    pub strides: Vec<usize>,
}

impl TensorMeta {
    /// A contiguous (row-major) tensor.
    pub fn contiguous(dtype: DType, sizes: Vec<usize>) -> TensorMeta {
        let strides = contiguous_strides(&sizes);
        TensorMeta {
            dtype,
            sizes,
            strides,
        }
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.sizes.len()
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.sizes.iter().product()
    }

    /// Bytes of the elements (as if contiguous).
    pub fn nbytes(&self) -> usize {
        self.numel() * self.dtype.itemsize()
    }

    /// True when the strides are the row-major strides of the sizes (size-1 dims ignored).
    pub fn is_contiguous(&self) -> bool {
        is_contiguous(&self.sizes, &self.strides)
    }
}

/// `f32[1024, 1024]`, the FX annotation form.
impl fmt::Display for TensorMeta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.dtype, Dims(&self.sizes))
    }
}

/// Prints sizes as `[2, 3]`.
pub struct Dims<'a>(pub &'a [usize]);

impl fmt::Display for Dims<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{s}")?;
        }
        f.write_str("]")
    }
}

/// The most elements a tensor may have (2^60): any tensor's element count, strides, spans and
/// byte size then stay far from `usize` overflow, so shape arithmetic on user-written sizes
/// cannot panic.
pub(crate) const MAX_NUMEL: usize = 1 << 60;

/// The element count of `sizes`, or a shape error when the sizes (size-0 dims counted as 1, as
/// strides see them) exceed [`MAX_NUMEL`].
pub(crate) fn checked_numel(sizes: &[usize]) -> Result<usize, GraphError> {
    let mut span = 1usize;
    for &s in sizes {
        match span.checked_mul(s.max(1)) {
            Some(m) if m <= MAX_NUMEL => span = m,
            _ => {
                return Err(GraphError::Shape(format!(
                    "a tensor of size {} has more than 2^60 elements",
                    Dims(sizes)
                )));
            }
        }
    }
    Ok(sizes.iter().product())
}

/// Row-major strides for `sizes`.
pub fn contiguous_strides(sizes: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; sizes.len()];
    let mut acc = 1usize;
    for i in (0..sizes.len()).rev() {
        strides[i] = acc;
        // Saturating: only a tensor with a zero-size dim can have a product past usize, and
        // its strides address nothing.
        acc = acc.saturating_mul(sizes[i].max(1));
    }
    strides
}

/// The storage position of the last element of a strided view (`offset + sum((size - 1) *
/// stride)`, saturating), or `None` when the view has no elements: what must lie inside the
/// storage an `as_strided` reads or an `as_strided_scatter` writes.
pub fn last_position(sizes: &[usize], strides: &[usize], offset: usize) -> Option<usize> {
    if sizes.contains(&0) {
        return None;
    }
    Some(
        sizes
            .iter()
            .zip(strides)
            .map(|(&s, &st)| (s - 1).saturating_mul(st))
            .fold(offset, usize::saturating_add),
    )
}

/// True when `strides` are row-major for `sizes`, ignoring dims of size 1 (PyTorch's rule).
pub fn is_contiguous(sizes: &[usize], strides: &[usize]) -> bool {
    if sizes.contains(&0) {
        return true;
    }
    let mut expected = 1usize;
    for i in (0..sizes.len()).rev() {
        if sizes[i] == 1 {
            continue;
        }
        if strides[i] != expected {
            return false;
        }
        expected *= sizes[i];
    }
    true
}

/// Wraps a possibly negative dim into `0..rank` (a rank-0 tensor accepts 0 and -1).
pub fn normalize_dim(dim: i64, rank: usize) -> Result<usize, GraphError> {
    let r = rank.max(1) as i64;
    let d = if dim < 0 { dim + r } else { dim };
    if d < 0 || d >= r {
        return Err(GraphError::Shape(format!(
            "dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -r,
            r - 1
        )));
    }
    Ok(d as usize)
}

/// Wraps a list of dims, rejecting repeats. An empty list means every dim.
pub fn normalize_dims(dims: &[i64], rank: usize) -> Result<Vec<usize>, GraphError> {
    if dims.is_empty() {
        return Ok((0..rank).collect());
    }
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        let n = normalize_dim(d, rank)?;
        if out.contains(&n) {
            return Err(GraphError::Shape(format!(
                "dim {n} appears multiple times in the list of dims"
            )));
        }
        out.push(n);
    }
    Ok(out.into_iter().filter(|&d| d < rank).collect())
}

/// NumPy/PyTorch broadcasting of two shapes.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>, GraphError> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let x = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let y = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = match (x, y) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => {
                return Err(GraphError::Shape(format!(
                    "shapes {} and {} cannot be broadcast: the size of tensor a ({x}) must match \
                     the size of tensor b ({y}) at non-singleton dimension {i}",
                    Dims(a),
                    Dims(b)
                )));
            }
        };
    }
    Ok(out)
}

/// Strides that make `sizes` a stride-0-broadcast view of a tensor with `src_sizes`/`src_strides`
/// (`expand`): new leading dims and expanded size-1 dims get stride 0.
pub fn expand_strides(
    src_sizes: &[usize],
    src_strides: &[usize],
    sizes: &[usize],
) -> Result<Vec<usize>, GraphError> {
    if sizes.len() < src_sizes.len() {
        return Err(GraphError::Shape(format!(
            "expand: the number of sizes provided ({}) must be greater or equal to the number of \
             dimensions in the tensor ({})",
            sizes.len(),
            src_sizes.len()
        )));
    }
    let lead = sizes.len() - src_sizes.len();
    let mut strides = vec![0; sizes.len()];
    for i in 0..sizes.len() {
        if i < lead {
            continue;
        }
        let (s, st) = (src_sizes[i - lead], src_strides[i - lead]);
        if s == sizes[i] {
            strides[i] = st;
        } else if s == 1 {
            strides[i] = 0;
        } else {
            return Err(GraphError::Shape(format!(
                "expand: the expanded size of the tensor ({}) must match the existing size ({s}) \
                 at non-singleton dimension {i}; target sizes {}, tensor sizes {}",
                sizes[i],
                Dims(sizes),
                Dims(src_sizes)
            )));
        }
    }
    Ok(strides)
}

/// Resolves a `view`/`reshape` size list with at most one `-1` against `numel`.
pub fn infer_size(shape: &[i64], numel: usize) -> Result<Vec<usize>, GraphError> {
    let mut infer_at = None;
    let mut known = 1usize;
    for (i, &s) in shape.iter().enumerate() {
        if s == -1 {
            if infer_at.replace(i).is_some() {
                return Err(GraphError::Shape(
                    "only one dimension can be inferred".into(),
                ));
            }
        } else if s < 0 {
            return Err(GraphError::Shape(format!("invalid shape dimension {s}")));
        } else {
            known = known.checked_mul(s as usize).ok_or_else(|| {
                GraphError::Shape(format!("shape '{}' has too many elements", ListI64(shape)))
            })?;
        }
    }
    let mut out: Vec<usize> = shape.iter().map(|&s| s.max(0) as usize).collect();
    match infer_at {
        Some(i) if known != 0 && numel.is_multiple_of(known) => out[i] = numel / known,
        None if known == numel => {}
        _ => {
            return Err(GraphError::Shape(format!(
                "shape '{}' is invalid for input of size {numel}",
                ListI64(shape)
            )));
        }
    }
    Ok(out)
}

struct ListI64<'a>(&'a [i64]);

impl fmt::Display for ListI64<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{s}")?;
        }
        f.write_str("]")
    }
}

/// The layout of `view(dtype)` of a tensor of `from` with these sizes, strides and offset:
/// the same for a dtype of the same size; otherwise the last dim (which must have stride 1)
/// scales by the size ratio, the other strides and the offset with it (PyTorch's
/// `view_dtype`), or an error in PyTorch's words.
pub fn view_dtype_layout(
    sizes: &[usize],
    strides: &[usize],
    offset: usize,
    from: DType,
    to: DType,
) -> Result<(Vec<usize>, Vec<usize>, usize), GraphError> {
    let (old, new) = (from.itemsize(), to.itemsize());
    if old == new {
        return Ok((sizes.to_vec(), strides.to_vec(), offset));
    }
    let err = |m: String| Err(GraphError::Shape(m));
    let Some(last) = sizes.len().checked_sub(1) else {
        return err(format!(
            "self.dim() cannot be 0 to view {from} as {to} (different element sizes)"
        ));
    };
    if strides[last] != 1 {
        return err(format!(
            "self.stride(-1) must be 1 to view {from} as {to} (different element sizes),              but got {}",
            strides[last]
        ));
    }
    let (mut sizes, mut strides) = (sizes.to_vec(), strides.to_vec());
    if old > new {
        let r = old / new;
        for (i, st) in strides.iter_mut().enumerate() {
            *st = if i == last { 1 } else { *st * r };
        }
        sizes[last] *= r;
        return Ok((sizes, strides, offset * r));
    }
    let r = new / old;
    if !sizes[last].is_multiple_of(r) {
        return err(format!(
            "self.size(-1) must be divisible by {r} to view {from} as {to} (different element \
             sizes), but got {}",
            sizes[last]
        ));
    }
    if !offset.is_multiple_of(r) {
        return err(format!(
            "self.storage_offset() must be divisible by {r} to view {from} as {to} (different \
             element sizes), but got {offset}"
        ));
    }
    for (i, st) in strides.iter_mut().enumerate() {
        if i == last {
            *st = 1;
        } else if !st.is_multiple_of(r) {
            return err(format!(
                "self.stride({i}) must be divisible by {r} to view {from} as {to} (different \
                 element sizes), but got {st}"
            ));
        } else {
            *st /= r;
        }
    }
    sizes[last] /= r;
    Ok((sizes, strides, offset / r))
}

/// PyTorch's `computeStride`: the strides that let a tensor of `old_sizes`/`old_strides` be
/// viewed as `new_sizes` without copying, or `None` when only a copy (reshape) can do it.
pub fn view_strides(
    old_sizes: &[usize],
    old_strides: &[usize],
    new_sizes: &[usize],
) -> Option<Vec<usize>> {
    let numel: usize = old_sizes.iter().product();
    if numel == 0 {
        return Some(contiguous_strides(new_sizes));
    }
    let mut new_strides = vec![0usize; new_sizes.len()];
    if old_sizes.is_empty() {
        return Some(vec![1; new_sizes.len()]);
    }
    let mut view_d = new_sizes.len() as isize - 1;
    let mut chunk_base_stride = *old_strides.last().unwrap();
    let mut tensor_numel = 1usize;
    let mut view_numel = 1usize;
    for tensor_d in (0..old_sizes.len()).rev() {
        tensor_numel *= old_sizes[tensor_d];
        let chunk_end = tensor_d == 0
            || (old_sizes[tensor_d - 1] != 1
                && old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
        if chunk_end {
            while view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d as usize] == 1) {
                new_strides[view_d as usize] = view_numel * chunk_base_stride;
                view_numel *= new_sizes[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = old_strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(new_strides)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting() {
        assert_eq!(
            broadcast_shapes(&[4, 1, 3], &[5, 1]).unwrap(),
            vec![4, 5, 3]
        );
        assert_eq!(broadcast_shapes(&[], &[2]).unwrap(), vec![2]);
        assert!(broadcast_shapes(&[3], &[4]).is_err());
    }

    #[test]
    fn views_of_permuted_tensors() {
        // [2,1,16,64] permuted to [2,16,1,64]: still viewable as [2,16,64] (size-1 dim).
        let st = [1024, 64, 64, 1];
        assert_eq!(
            view_strides(&[2, 16, 1, 64], &st, &[2, 16, 64]),
            Some(vec![1024, 64, 1])
        );
        // A transpose cannot be flattened without a copy.
        assert_eq!(view_strides(&[4, 3], &[1, 4], &[12]), None);
        assert_eq!(view_strides(&[4, 3], &[3, 1], &[2, 6]), Some(vec![6, 1]));
        assert_eq!(infer_size(&[-1, 4], 8).unwrap(), vec![2, 4]);
        assert!(infer_size(&[-1, -1], 8).is_err());
        assert!(infer_size(&[3, 3], 8).is_err());
    }

    #[test]
    fn dims_wrap() {
        assert_eq!(normalize_dim(-1, 3).unwrap(), 2);
        assert_eq!(normalize_dim(0, 0).unwrap(), 0);
        assert!(normalize_dim(3, 3).is_err());
        assert_eq!(normalize_dims(&[], 2).unwrap(), vec![0, 1]);
        assert!(normalize_dims(&[1, -1], 2).is_err());
    }
}
