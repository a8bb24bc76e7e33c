//! Views (new sizes, strides and offset over the same storage: no copy) and the copying ops
//! `clone`, `cat` and the `reshape` that cannot be a view.

use coil_graph::{
    CopyKind, DType, Dims, Tensor, TensorMeta, ViewKind, contiguous_strides, expand_strides,
    infer_size, normalize_dim, normalize_dims, slice_range, view_strides,
};

use crate::elem::{Elem, convert, gather, with_elem};
use crate::error::{OpError, fail};
use crate::interp::Args;

/// Runs a view op.
pub(crate) fn eval(kind: ViewKind, a: &Args<'_>) -> Result<Vec<Tensor>, OpError> {
    use ViewKind::*;
    let x = a.tensor("self")?;
    let rank = x.sizes().len();
    let mut sizes = x.sizes().to_vec();
    let mut strides = x.strides().to_vec();
    let offset = x.offset();
    let view = |sizes: Vec<usize>, strides: Vec<usize>, offset: usize| {
        Ok::<_, OpError>(vec![x.view(sizes, strides, offset)?])
    };
    match kind {
        View | UnsafeView | Reshape => {
            let shape =
                a.b.int_list(if a.b.has("size") { "size" } else { "shape" })?;
            let new = infer_size(&shape, x.numel())?;
            match view_strides(&sizes, &strides, &new) {
                Some(st) => view(new, st, offset),
                // (A `view` coil's layouts make incompatible is the reshape it means: see
                // coil-graph's views inference.)
                None => {
                    let copy = convert(x, x.dtype())?;
                    let st = contiguous_strides(&new);
                    Ok(vec![copy.view(new, st, 0)?])
                }
            }
        }
        Permute => {
            let dims = a.b.int_list("dims")?;
            if dims.len() != rank {
                return fail(format!(
                    "permute: input has {rank} dims but {} were given",
                    dims.len()
                ));
            }
            let dims = normalize_dims(&dims, rank)?;
            view(
                dims.iter().map(|&d| sizes[d]).collect(),
                dims.iter().map(|&d| strides[d]).collect(),
                offset,
            )
        }
        Transpose | T => {
            let (d0, d1) = if kind == T {
                if rank > 2 {
                    return fail(format!(
                        "t() expects a tensor with <= 2 dimensions, got {rank}"
                    ));
                }
                (0, rank.saturating_sub(1))
            } else {
                (
                    normalize_dim(a.b.int("dim0")?, rank)?,
                    normalize_dim(a.b.int("dim1")?, rank)?,
                )
            };
            if rank > 0 {
                sizes.swap(d0, d1);
                strides.swap(d0, d1);
            }
            view(sizes, strides, offset)
        }
        Expand => {
            let req = a.b.int_list("size")?;
            if req.len() < rank {
                return fail(format!(
                    "expand: {} sizes given for a tensor of {rank} dims",
                    req.len()
                ));
            }
            let lead = req.len() - rank;
            let new = req
                .iter()
                .enumerate()
                .map(|(i, &s)| match s {
                    -1 if i >= lead => Ok(sizes[i - lead]),
                    s if s < 0 => fail(format!("expand: invalid size {s} at dimension {i}")),
                    s => Ok(s as usize),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let st = expand_strides(&sizes, &strides, &new)?;
            view(new, st, offset)
        }
        Unsqueeze => {
            let d = normalize_dim(a.b.int("dim")?, rank + 1)?;
            let stride = if d < rank { sizes[d] * strides[d] } else { 1 };
            sizes.insert(d, 1);
            strides.insert(d, stride);
            view(sizes, strides, offset)
        }
        Squeeze => {
            let dims: Vec<usize> = match a.b.opt_int_list("dim") {
                Some(d) if a.b.has("dim") => d
                    .iter()
                    .map(|&d| normalize_dim(d, rank))
                    .collect::<Result<_, _>>()?,
                _ => (0..rank).collect(),
            };
            let keep: Vec<usize> = (0..rank)
                .filter(|i| !(dims.contains(i) && sizes[*i] == 1))
                .collect();
            view(
                keep.iter().map(|&i| sizes[i]).collect(),
                keep.iter().map(|&i| strides[i]).collect(),
                offset,
            )
        }
        Slice => {
            if rank == 0 {
                return fail("slice() cannot be applied to a 0-dim tensor");
            }
            let d = normalize_dim(a.b.int("dim")?, rank)?;
            let (start, len, step) = slice_range(&a.b, sizes[d])?;
            let offset = offset + start * strides[d];
            sizes[d] = len;
            // As inference: a dim the slice leaves at most one element of keeps its stride.
            if len > 1 {
                strides[d] = strides[d]
                    .checked_mul(step)
                    .ok_or_else(|| OpError::new("slice: the step makes the stride overflow"))?;
            }
            view(sizes, strides, offset)
        }
        Select => {
            if rank == 0 {
                return fail("select() cannot be applied to a 0-dim tensor");
            }
            let d = normalize_dim(a.b.int("dim")?, rank)?;
            let idx = a.b.int("index")?;
            let size = sizes[d] as i64;
            if idx < -size || idx >= size {
                return fail(format!(
                    "select(): index {idx} out of range for tensor of size {} at dimension {d}",
                    Dims(&sizes)
                ));
            }
            let idx = if idx < 0 { idx + size } else { idx } as usize;
            let offset = offset + idx * strides[d];
            sizes.remove(d);
            strides.remove(d);
            view(sizes, strides, offset)
        }
        SplitWithSizes => {
            if rank == 0 {
                return fail("split_with_sizes cannot be applied to a 0-dim tensor");
            }
            let d = normalize_dim(a.b.int("dim")?, rank)?;
            let splits = a.b.int_list("split_sizes")?;
            if splits.iter().any(|&s| s < 0) || splits.iter().sum::<i64>() != sizes[d] as i64 {
                return fail(format!(
                    "split_with_sizes expects split_sizes to sum exactly to {}, got {splits:?}",
                    sizes[d]
                ));
            }
            let mut start = 0usize;
            splits
                .iter()
                .map(|&s| {
                    let mut part = sizes.clone();
                    part[d] = s as usize;
                    let t = x.view(part, strides.clone(), offset + start * strides[d])?;
                    start += s as usize;
                    Ok(t)
                })
                .collect()
        }
        Alias => view(sizes, strides, offset),
        ViewDtype => Ok(vec![x.view_dtype(a.b.dtype("dtype")?)?]),
        AsStrided => {
            let size = a.b.int_list("size")?;
            let stride = a.b.int_list("stride")?;
            let at = a.b.opt_int("storage_offset").map_or(offset, |o| o as usize);
            view(
                size.iter().map(|&v| v as usize).collect(),
                stride.iter().map(|&v| v as usize).collect(),
                at,
            )
        }
    }
}

/// Runs a copy op; `out` is the node's recorded meta.
pub(crate) fn eval_copy(
    kind: CopyKind,
    a: &Args<'_>,
    out: &TensorMeta,
) -> Result<Vec<Tensor>, OpError> {
    use CopyKind::*;
    let x = || a.tensor("self");
    match kind {
        Cat => Ok(vec![cat(a, out.dtype)?]),
        Clone => Ok(vec![convert(x()?, x()?.dtype())?]),
        Flip | Roll | ConstantPadNd => Ok(vec![crate::host::moved(kind, a, x()?, out)?]),
        SliceScatter => {
            let src = convert(a.tensor("src")?, x()?.dtype())?;
            Ok(vec![crate::host::slice_scatter(a, x()?, &src, out)?])
        }
        AsStridedScatter => {
            let src = convert(a.tensor("src")?, x()?.dtype())?;
            Ok(vec![crate::host::as_strided_scatter(a, x()?, &src, out)?])
        }
    }
}

/// `cat`: a contiguous copy of the parts side by side along `dim`, promoted to `dtype`.
/// 1-D empty tensors are skipped (PyTorch's legacy rule).
fn cat(a: &Args<'_>, dtype: DType) -> Result<Tensor, OpError> {
    let parts: Vec<&Tensor> = a
        .tensors("tensors")?
        .into_iter()
        .filter(|t| !(t.sizes().len() == 1 && t.sizes()[0] == 0))
        .collect();
    let Some(first) = parts.first() else {
        let empty = with_elem!(dtype, D => D::into_data(Vec::<D>::new()));
        return Ok(Tensor::new(empty, vec![0])?);
    };
    let rank = first.sizes().len();
    if rank == 0 {
        return fail("zero-dimensional tensor cannot be concatenated");
    }
    let d = normalize_dim(a.b.int("dim")?, rank)?;
    let mut sizes = first.sizes().to_vec();
    sizes[d] = 0;
    for (i, p) in parts.iter().enumerate() {
        let ok = p.sizes().len() == rank
            && (0..rank).all(|k| k == d || p.sizes()[k] == first.sizes()[k]);
        if !ok {
            return fail(format!(
                "sizes of tensors must match except in dimension {d}: tensor 0 is {}, \
                 tensor {i} is {}",
                Dims(first.sizes()),
                Dims(p.sizes())
            ));
        }
        sizes[d] += p.sizes()[d];
    }
    let outer: usize = sizes[..d].iter().product();
    let inner: usize = sizes[d + 1..].iter().product();
    let data = with_elem!(dtype, D => {
        let blocks: Vec<(Vec<D>, usize)> = parts
            .iter()
            .map(|p| (gather::<D>(p), p.sizes()[d] * inner))
            .collect();
        let mut out: Vec<D> = Vec::with_capacity(sizes.iter().product());
        for o in 0..outer {
            for (values, block) in &blocks {
                out.extend_from_slice(&values[o * block..(o + 1) * block]);
            }
        }
        D::into_data(out)
    });
    Ok(Tensor::new(data, sizes)?)
}
