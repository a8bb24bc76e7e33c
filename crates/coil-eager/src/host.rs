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

/// An index that must already lie in `0..size`: only `index.Tensor` wraps negatives in
/// PyTorch; `embedding`, `index_select`, `gather` and `scatter` refuse them.
pub(crate) fn plain_index(op: &str, i: i64, size: usize) -> Result<usize, OpError> {
    if i < 0 || i >= size as i64 {
        return fail(format!(
            "{op}: index {i} is out of bounds for dimension with size {size}"
        ));
    }
    Ok(i as usize)
}

/// `flip`, `roll` and `constant_pad_nd`: each result element reads one element of `x` at a
/// moved position (or, for padding, none: the fill value).
pub(crate) fn moved(
    kind: coil_graph::CopyKind,
    a: &crate::interp::Args<'_>,
    x: &Tensor,
    out: &coil_graph::TensorMeta,
) -> Result<Tensor, OpError> {
    use coil_graph::CopyKind;
    let sizes = x.sizes().to_vec();
    let n_el = x.numel();
    let xs = strides(&sizes);
    let rank = sizes.len();
    let mut o = Vec::with_capacity(out.sizes.iter().product());
    match kind {
        CopyKind::Flip => {
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
                o.push(Some(off));
            });
        }
        CopyKind::Roll => {
            let shifts = a.b.int_list("shifts")?;
            let dims = a.b.int_list("dims")?;
            if dims.is_empty() {
                let n = n_el as i64;
                for i in 0..n {
                    let s = shifts[0].rem_euclid(n.max(1));
                    o.push(Some((i - s).rem_euclid(n.max(1)) as usize));
                }
            } else {
                // Shifts taken modulo their dim's size first, so no sum overflows.
                let mut shift = vec![0i64; rank.max(1)];
                for (&s, &d) in shifts.iter().zip(&dims) {
                    let d = coil_graph::normalize_dim(d, rank)?;
                    let n = sizes.get(d).copied().unwrap_or(1).max(1) as i64;
                    shift[d] = (shift[d] + s.rem_euclid(n)) % n;
                }
                for_each_index(&sizes, |p| {
                    let off: usize = (0..rank)
                        .map(|d| {
                            (p[d] as i64 - shift[d]).rem_euclid(sizes[d] as i64) as usize * xs[d]
                        })
                        .sum();
                    o.push(Some(off));
                });
            }
        }
        _ => {
            let pad = a.b.int_list("pad")?;
            let mut before = vec![0i64; rank];
            for (i, p) in pad.chunks(2).enumerate() {
                before[rank - 1 - i] = p[0];
            }
            for_each_index(&out.sizes, |p| {
                let mut off = 0usize;
                for d in 0..rank {
                    let q = p[d] as i64 - before[d];
                    if q < 0 || q >= sizes[d] as i64 {
                        o.push(None);
                        return;
                    }
                    off += q as usize * xs[d];
                }
                o.push(Some(off));
            });
        }
    }
    if rank == 0 && o.is_empty() && n_el == 1 {
        o.push(Some(0));
    }
    let fill = match kind {
        CopyKind::ConstantPadNd => a.b.scalar("value")?,
        _ => coil_graph::Scalar::Int(0),
    };
    take(x, &o, fill, out.sizes.clone())
}

/// `slice_scatter`: `x` with its slice `start:end:step` on `dim` replaced by `src` (already
/// of `x`'s dtype), every bit kept.
pub(crate) fn slice_scatter(
    a: &crate::interp::Args<'_>,
    x: &Tensor,
    src: &Tensor,
    out: &coil_graph::TensorMeta,
) -> Result<Tensor, OpError> {
    let sizes = x.sizes().to_vec();
    let rank = sizes.len();
    let d = coil_graph::normalize_dim(a.b.int("dim")?, rank)?;
    let (start, len, step) = coil_graph::slice_range(&a.b, sizes.get(d).copied().unwrap_or(1))?;
    // x's elements, then src's: one tensor to take from.
    let mut bytes = x.contiguous().to_bytes();
    bytes.extend(src.contiguous().to_bytes());
    let both = Tensor::from_bytes(x.dtype(), vec![x.numel() + src.numel()], &bytes)?;
    let (xs, ss) = (strides(&sizes), strides(src.sizes()));
    let mut o = Vec::with_capacity(x.numel());
    for_each_index(&sizes, |p| {
        let k = p.get(d).map(|&i| i.checked_sub(start));
        let in_slice = match k {
            Some(Some(k)) => k % step == 0 && k / step < len,
            _ => false,
        };
        let off = if in_slice {
            let k = (p[d] - start) / step;
            x.numel()
                + (0..rank)
                    .map(|e| if e == d { k } else { p[e] } * ss[e])
                    .sum::<usize>()
        } else {
            (0..rank).map(|e| p[e] * xs[e]).sum()
        };
        o.push(Some(off));
    });
    if rank == 0 {
        o = vec![Some(0)];
    }
    take(&both, &o, coil_graph::Scalar::Int(0), out.sizes.clone())
}

/// `as_strided_scatter`: `x`'s elements row-major (the storage of a contiguous copy of it),
/// with `src`'s written at the positions `offset + sum(p_i * stride_i)` (a later element of
/// `src` wins where positions repeat, as a sequential `copy_` would).
pub(crate) fn as_strided_scatter(
    a: &crate::interp::Args<'_>,
    x: &Tensor,
    src: &Tensor,
    out: &coil_graph::TensorMeta,
) -> Result<Tensor, OpError> {
    let size = a.b.int_list("size")?;
    let stride = a.b.int_list("stride")?;
    let offset = a.b.opt_int("storage_offset").unwrap_or(0);
    let n = x.numel();
    let mut bytes = x.contiguous().to_bytes();
    bytes.extend(src.contiguous().to_bytes());
    let both = Tensor::from_bytes(x.dtype(), vec![n + src.numel()], &bytes)?;
    let sizes: Vec<usize> = size.iter().map(|&v| v.max(0) as usize).collect();
    let ss = strides(&sizes);
    let mut o: Vec<Option<usize>> = (0..n).map(Some).collect();
    let mut bad = None;
    for_each_index(&sizes, |p| {
        let q = p
            .iter()
            .zip(&stride)
            .fold(offset, |acc, (&i, &st)| acc + i as i64 * st);
        let from = n + p.iter().zip(&ss).map(|(i, s)| i * s).sum::<usize>();
        match usize::try_from(q).ok().filter(|&q| q < n) {
            Some(q) => o[q] = Some(from),
            None => bad = Some(q),
        }
    });
    if let Some(q) = bad {
        return Err(OpError::new(format!(
            "as_strided_scatter writes position {q} of a copy of {n} elements"
        )));
    }
    take(&both, &o, coil_graph::Scalar::Int(0), out.sizes.clone())
}

/// A tensor of `sizes` whose element `i` is element `offs[i]` of `x` (in `x`'s logical
/// order) or, for `None`, `fill`: data moved without converting it, so 64-bit integers keep
/// every bit.
pub(crate) fn take(
    x: &Tensor,
    offs: &[Option<usize>],
    fill: coil_graph::Scalar,
    sizes: Vec<usize>,
) -> Result<Tensor, OpError> {
    let c = x.contiguous();
    fn pick<T: Copy>(v: &[T], offs: &[Option<usize>], fill: T) -> Vec<T> {
        offs.iter().map(|o| o.map_or(fill, |o| v[o])).collect()
    }
    let f = fill.to_f64();
    let fi = match fill {
        coil_graph::Scalar::Int(i) => i,
        coil_graph::Scalar::Bool(b) => b as i64,
        coil_graph::Scalar::Float(v) => v as i64,
    };
    let data = match &**c.storage() {
        Data::Bool(v) => Data::Bool(pick(v, offs, f != 0.0)),
        Data::U8(v) => Data::U8(pick(v, offs, fi as u8)),
        Data::I8(v) => Data::I8(pick(v, offs, fi as i8)),
        Data::I16(v) => Data::I16(pick(v, offs, fi as i16)),
        Data::I32(v) => Data::I32(pick(v, offs, fi as i32)),
        Data::I64(v) => Data::I64(pick(v, offs, fi)),
        Data::F16(v) => Data::F16(pick(v, offs, half::f16::from_f64(f))),
        Data::BF16(v) => Data::BF16(pick(v, offs, half::bf16::from_f64(f))),
        Data::F32(v) => Data::F32(pick(v, offs, f as f32)),
        Data::F64(v) => Data::F64(pick(v, offs, f)),
    };
    Ok(Tensor::new(data, sizes)?)
}

/// [`take`] with every element present (a pure gather: `index`, `index_select`, `gather`).
pub(crate) fn take_at(x: &Tensor, offs: &[usize], sizes: Vec<usize>) -> Result<Tensor, OpError> {
    let offs: Vec<Option<usize>> = offs.iter().map(|&o| Some(o)).collect();
    take(x, &offs, coil_graph::Scalar::Int(0), sizes)
}

/// One element, exact for 64-bit integers.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Val {
    F(f64),
    I(i64),
}

impl Val {
    pub(crate) fn of_scalar(s: coil_graph::Scalar) -> Val {
        match s {
            coil_graph::Scalar::Float(f) => Val::F(f),
            coil_graph::Scalar::Int(i) => Val::I(i),
            coil_graph::Scalar::Bool(b) => Val::I(b as i64),
        }
    }
}

/// A tensor's elements in logical order as f64 (floats) or i64 (integers and bools), for the
/// ops that write into a copy of a tensor (`scatter`, `index_put`).
pub(crate) enum Vals {
    F(Vec<f64>),
    I(Vec<i64>),
}

impl Vals {
    pub(crate) fn of(t: &Tensor) -> Vals {
        if t.dtype().is_float() {
            Vals::F(values(t))
        } else {
            Vals::I(indices(t))
        }
    }

    pub(crate) fn get(&self, i: usize) -> Val {
        match self {
            Vals::F(v) => Val::F(v[i]),
            Vals::I(v) => Val::I(v[i]),
        }
    }

    /// Writes `v` at `i`, converted to this tensor's kind.
    pub(crate) fn set(&mut self, i: usize, v: Val) {
        self.put(i, v, false);
    }

    /// Writes (or, with `add`, adds) `v` at `i`, converted to this tensor's kind.
    pub(crate) fn put(&mut self, i: usize, v: Val, add: bool) {
        match self {
            Vals::F(o) => {
                let v = match v {
                    Val::F(f) => f,
                    Val::I(n) => n as f64,
                };
                o[i] = if add { o[i] + v } else { v };
            }
            Vals::I(o) => {
                let v = match v {
                    Val::F(f) => f as i64,
                    Val::I(n) => n,
                };
                o[i] = if add { o[i].wrapping_add(v) } else { v };
            }
        }
    }

    /// The values as a contiguous tensor of `dtype` (integers convert exactly).
    pub(crate) fn into_tensor(self, dtype: DType, sizes: Vec<usize>) -> Result<Tensor, OpError> {
        match self {
            Vals::F(v) => tensor(dtype, sizes, v),
            Vals::I(v) => Ok(Tensor::new(Data::I64(v), sizes)?.to_dtype(dtype)),
        }
    }
}
