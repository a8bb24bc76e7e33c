//! Helpers of the ops written over f64 values (floats) or i64 values (integers) and cast once
//! to the result dtype: the window, indexing and scan ops, whose cost is in the index
//! arithmetic rather than in the element type. PyTorch's CPU kernels accumulate these ops'
//! floats in double too (`acc_type` of float on the CPU is double), so results agree.

use coil_graph::{DType, Data, Tensor, contiguous_strides};

use crate::error::{OpError, fail};

/// The elements of `t` in logical order as f64.
pub(crate) fn values(t: &Tensor) -> Vec<f64> {
    t.to_f64_vec()
}

/// The elements of an index tensor as i64 (exact for every integer dtype).
pub(crate) fn indices(t: &Tensor) -> Vec<i64> {
    let c = t.contiguous();
    match &**c.storage() {
        Data::I64(v) => v.clone(),
        Data::I32(v) => v.iter().map(|&x| x as i64).collect(),
        Data::Bool(v) => v.iter().map(|&x| x as i64).collect(),
        _ => c.to_f64_vec().into_iter().map(|x| x as i64).collect(),
    }
}

/// A contiguous tensor of `dtype` and `sizes` from f64 values.
pub(crate) fn tensor(dtype: DType, sizes: Vec<usize>, v: Vec<f64>) -> Result<Tensor, OpError> {
    Ok(Tensor::new(Data::from_f64(dtype, v.into_iter()), sizes)?)
}

/// A contiguous i64 tensor.
pub(crate) fn i64_tensor(sizes: Vec<usize>, v: Vec<i64>) -> Result<Tensor, OpError> {
    Ok(Tensor::new(Data::I64(v), sizes)?)
}

/// Row-major strides of `sizes`.
pub(crate) fn strides(sizes: &[usize]) -> Vec<usize> {
    contiguous_strides(sizes)
}

/// Every multi-index of `sizes` in row-major order.
pub(crate) fn for_each_index(sizes: &[usize], mut f: impl FnMut(&[usize])) {
    if sizes.contains(&0) {
        return;
    }
    let mut idx = vec![0usize; sizes.len()];
    loop {
        f(&idx);
        let mut d = sizes.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < sizes[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// `i` wrapped into `0..size` as PyTorch wraps a negative index, or an error naming the op,
/// the bad index and the size.
pub(crate) fn wrap_index(op: &str, i: i64, size: usize) -> Result<usize, OpError> {
    let s = size as i64;
    let w = if i < 0 { i + s } else { i };
    if w < 0 || w >= s {
        return fail(format!(
            "{op}: index {i} is out of bounds for dimension with size {size}"
        ));
    }
    Ok(w as usize)
}

/// An index that must already lie in `0..size` (`embedding` does not wrap negatives).
pub(crate) fn plain_index(op: &str, i: i64, size: usize) -> Result<usize, OpError> {
    if i < 0 || i >= size as i64 {
        return fail(format!(
            "{op}: index {i} is out of range (the table has {size} rows)"
        ));
    }
    Ok(i as usize)
}

/// `flip`, `roll` and `constant_pad_nd`: each result element reads one element of `x` at a
/// moved position (or, for padding, none: the fill value).
pub(crate) fn moved(
    kind: coil_graph::OpKind,
    a: &crate::interp::Args<'_>,
    x: &Tensor,
    out: &coil_graph::TensorMeta,
) -> Result<Tensor, OpError> {
    use coil_graph::OpKind;
    let sizes = x.sizes().to_vec();
    let xv = values(x);
    let xs = strides(&sizes);
    let rank = sizes.len();
    let mut o = Vec::with_capacity(out.sizes.iter().product());
    match kind {
        OpKind::Flip => {
            let dims = coil_graph::normalize_dims(&a.b.int_list("dims")?, rank)?;
            let dims = if a.b.int_list("dims")?.is_empty() {
                vec![]
            } else {
                dims
            };
            for_each_index(&sizes, |p| {
                let off: usize = (0..rank)
                    .map(|d| if dims.contains(&d) { sizes[d] - 1 - p[d] } else { p[d] } * xs[d])
                    .sum();
                o.push(xv[off]);
            });
        }
        OpKind::Roll => {
            let shifts = a.b.int_list("shifts")?;
            let dims = a.b.int_list("dims")?;
            if dims.is_empty() {
                let n = xv.len() as i64;
                for i in 0..n {
                    o.push(xv[(i - shifts[0]).rem_euclid(n.max(1)) as usize]);
                }
            } else {
                let mut shift = vec![0i64; rank.max(1)];
                for (&s, &d) in shifts.iter().zip(&dims) {
                    shift[coil_graph::normalize_dim(d, rank)?] += s;
                }
                for_each_index(&sizes, |p| {
                    let off: usize = (0..rank)
                        .map(|d| {
                            (p[d] as i64 - shift[d]).rem_euclid(sizes[d] as i64) as usize * xs[d]
                        })
                        .sum();
                    o.push(xv[off]);
                });
                if rank == 0 {
                    o.push(xv[0]);
                }
            }
        }
        _ => {
            let pad = a.b.int_list("pad")?;
            let fill = a.b.scalar("value")?.to_f64();
            let mut before = vec![0i64; rank];
            for (i, p) in pad.chunks(2).enumerate() {
                before[rank - 1 - i] = p[0];
            }
            for_each_index(&out.sizes, |p| {
                let mut off = 0usize;
                for d in 0..rank {
                    let q = p[d] as i64 - before[d];
                    if q < 0 || q >= sizes[d] as i64 {
                        o.push(fill);
                        return;
                    }
                    off += q as usize * xs[d];
                }
                o.push(xv[off]);
            });
        }
    }
    if rank == 0 && o.is_empty() {
        o.push(xv[0]);
    }
    tensor(out.dtype, out.sizes.clone(), o)
}
