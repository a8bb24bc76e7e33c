//! Reductions: sum, mean, prod, amax, amin, var, var_mean, argmax, argmin over any dims, with
//! keepdim and PyTorch's accumulation types (pairwise sums in f32 for f32, f64 for variances).

use coil_graph::{DType, ReductionKind, Tensor, TensorMeta, normalize_dim, reduction_dims};

use crate::elem::{Elem, Num, Src, finish, round_through, with_compute};
use crate::error::{OpError, fail};
use crate::interp::Args;
use crate::strided::Plan;

/// Runs a reduction; `out` is the node's recorded meta (of the first output).
pub(crate) fn eval(
    kind: ReductionKind,
    a: &Args<'_>,
    out: &TensorMeta,
) -> Result<Vec<Tensor>, OpError> {
    use ReductionKind::*;
    let x = a.tensor("self")?;
    let rank = x.sizes().len();
    let dtype = out.dtype;
    match kind {
        Any | All => {
            let (dims, keepdim) = coil_graph::any_all_dims(&a.b, rank)?;
            let sizes = reduced_sizes(x.sizes(), &dims, keepdim);
            let s = Src::<bool>::of(x)?;
            let v: Vec<bool> = if kind == Any {
                lanes(&s, x.sizes(), &dims, |l| l.iter().any(|&b| b))
            } else {
                lanes(&s, x.sizes(), &dims, |l| l.iter().all(|&b| b))
            };
            Ok(vec![finish(v, dtype, sizes)?])
        }
        Sum | Mean | Prod | Amax | Amin => {
            let (dims, keepdim) = reduction_dims(&a.b, rank)?;
            let sizes = reduced_sizes(x.sizes(), &dims, keepdim);
            let t = with_compute!(dtype, T => {
                let s = Src::<T>::of(x)?;
                let v: Vec<T> = match kind {
                    Sum => lanes(&s, x.sizes(), &dims, pairwise_sum),
                    Mean => {
                        // ATen's mean is `sum(...).div_(n)`: the sum is a tensor of the output
                        // dtype before the division.
                        let n = T::from_i64(lane_len(x.sizes(), &dims) as i64);
                        let narrow = matches!(dtype, DType::F16 | DType::BF16);
                        lanes(&s, x.sizes(), &dims, |l| {
                            let sum = pairwise_sum(l);
                            let sum = if narrow { round_through(dtype, sum) } else { sum };
                            sum.div(n)
                        })
                    }
                    Prod => lanes(&s, x.sizes(), &dims, |l| {
                        l.iter().fold(T::ONE, |p, &q| p.mul(q))
                    }),
                    _ => {
                        if lane_len(x.sizes(), &dims) == 0 && sizes.iter().product::<usize>() > 0 {
                            return fail(format!(
                                "{}(): expected a non-empty reduction (reducing a zero-size dim)",
                                if kind == Amax { "amax" } else { "amin" }
                            ));
                        }
                        if kind == Amax {
                            lanes(&s, x.sizes(), &dims, |l| fold_nan(l, Num::max_nan))
                        } else {
                            lanes(&s, x.sizes(), &dims, |l| fold_nan(l, Num::min_nan))
                        }
                    }
                };
                finish(v, dtype, sizes)
            })?;
            Ok(vec![t])
        }
        Var | VarMean => {
            let (dims, keepdim) = reduction_dims(&a.b, rank)?;
            let sizes = reduced_sizes(x.sizes(), &dims, keepdim);
            let correction = if a.b.has("correction") {
                a.b.opt_scalar("correction").map_or(1.0, |c| c.to_f64())
            } else {
                f64::from(u8::from(a.b.bool("unbiased")?))
            };
            let s = Src::<f64>::of(x)?;
            let stats = lanes(&s, x.sizes(), &dims, |l| var_mean(l, correction));
            let var = finish(stats.iter().map(|p| p.0).collect(), dtype, sizes.clone())?;
            if kind == Var {
                return Ok(vec![var]);
            }
            let mean = finish(stats.iter().map(|p| p.1).collect(), dtype, sizes)?;
            Ok(vec![var, mean])
        }
        Argmax | Argmin => {
            let keepdim = a.b.bool("keepdim")?;
            let (dims, sizes) = match a.b.opt_int("dim") {
                Some(d) => {
                    let d = normalize_dim(d, rank)?;
                    let d = if rank == 0 { vec![] } else { vec![d] };
                    let sizes = reduced_sizes(x.sizes(), &d, keepdim);
                    (d, sizes)
                }
                None => {
                    let sizes = if keepdim { vec![1; rank] } else { vec![] };
                    ((0..rank).collect(), sizes)
                }
            };
            if x.numel() == 0 {
                return fail("expected a non-empty input");
            }
            let max = kind == Argmax;
            let v: Vec<i64> = with_compute!(x.dtype(), T => {
                let s = Src::<T>::of(x)?;
                lanes(&s, x.sizes(), &dims, |l| arg_extreme(l, max))
            });
            Ok(vec![finish(v, dtype, sizes)?])
        }
    }
}

/// The output sizes of reducing `dims` of `sizes`.
pub(crate) fn reduced_sizes(sizes: &[usize], dims: &[usize], keepdim: bool) -> Vec<usize> {
    (0..sizes.len())
        .filter_map(|d| match (dims.contains(&d), keepdim) {
            (true, true) => Some(1),
            (true, false) => None,
            (false, _) => Some(sizes[d]),
        })
        .collect()
}

fn lane_len(sizes: &[usize], dims: &[usize]) -> usize {
    dims.iter().map(|&d| sizes[d]).product()
}

/// Calls `f` on each lane of `s` (its elements along `dims`, in row-major order), for each
/// position of the other dims in row-major order. Lanes that are contiguous in memory are
/// passed in place. Others are gathered into a scratch buffer; when neighbouring outputs are
/// neighbours in memory (a reduction over outer dims), a tile of them is gathered at once so
/// every read is a contiguous run.
pub(crate) fn lanes<T: Copy, O>(
    s: &Src<'_, T>,
    sizes: &[usize],
    dims: &[usize],
    mut f: impl FnMut(&[T]) -> O,
) -> Vec<O> {
    let kept: Vec<usize> = (0..sizes.len()).filter(|d| !dims.contains(d)).collect();
    let outer_sizes: Vec<usize> = kept.iter().map(|&d| sizes[d]).collect();
    let outer_strides: Vec<usize> = kept.iter().map(|&d| s.strides[d]).collect();
    let inner_sizes: Vec<usize> = dims.iter().map(|&d| sizes[d]).collect();
    let inner_strides: Vec<usize> = dims.iter().map(|&d| s.strides[d]).collect();
    let len: usize = inner_sizes.iter().product();
    let inner = Plan::new(&inner_sizes, [&inner_strides]);
    let in_place = len > 0 && inner.is_one_row() && (len == 1 || inner.inner_strides[0] == 1);
    let (n, [st]) = (inner.inner_len, inner.inner_strides);

    let outer = Plan::new(&outer_sizes, [&outer_strides]);
    let (m, [ost]) = (outer.inner_len, outer.inner_strides);
    let tiled = !in_place && len > 0 && ost == 1 && m > 1;
    // Up to 256 lanes per tile, keeping the tile's scratch near 1 MiB of elements.
    let tile = (262_144 / len.max(1)).clamp(8, 256);
    let data = &*s.data;
    let mut out = Vec::with_capacity(outer_sizes.iter().product());
    let mut scratch: Vec<T> = Vec::new();
    outer.for_each_row([s.offset], |[row]| {
        if in_place {
            out.extend((0..m).map(|i| {
                let base = row + i * ost;
                f(&data[base..base + len])
            }));
        } else if tiled {
            let mut i0 = 0;
            while i0 < m {
                let w = tile.min(m - i0);
                // Lanes sit `pitch` apart; the odd padding keeps the tile's write streams
                // from aliasing in the cache when `len` is a power of two.
                let pitch = len + 17;
                scratch.clear();
                scratch.resize(w * pitch, data[row + i0]);
                let mut pos = 0;
                inner.for_each_row([row + i0], |[r]| {
                    // Transpose in blocks of 8 lane elements, so reads stay in a few cache
                    // lines and writes are runs of 8.
                    let mut j = 0;
                    while j < n {
                        let h = 8.min(n - j);
                        for b in 0..w {
                            let dst = &mut scratch[b * pitch + pos + j..][..h];
                            for (jj, d) in dst.iter_mut().enumerate() {
                                *d = data[r + (j + jj) * st + b];
                            }
                        }
                        j += h;
                    }
                    pos += n;
                });
                out.extend((0..w).map(|b| f(&scratch[b * pitch..b * pitch + len])));
                i0 += w;
            }
        } else {
            for i in 0..m {
                scratch.clear();
                inner.for_each_row([row + i * ost], |[r]| {
                    scratch.extend((0..n).map(|j| data[r + j * st]));
                });
                out.push(f(&scratch));
            }
        }
    });
    out
}

/// Pairwise (cascade) summation: 32 running sums over blocks of at most 1024 elements,
/// blocks combined as a balanced tree. The error grows with log(n), as in PyTorch's cascade
/// sum, and the running sums vectorize.
pub(crate) fn pairwise_sum<T: Num>(x: &[T]) -> T {
    const BLOCK: usize = 1024;
    const LANES: usize = 32;
    if x.len() > BLOCK {
        let mid = x.len() / 2 / LANES * LANES;
        return pairwise_sum(&x[..mid]).add(pairwise_sum(&x[mid..]));
    }
    let mut acc = [T::ZERO; LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for j in 0..LANES {
            acc[j] = acc[j].add(c[j]);
        }
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for j in 0..width {
            acc[j] = acc[j].add(acc[j + width]);
        }
    }
    let mut s = acc[0];
    for &r in rest {
        s = s.add(r);
    }
    s
}

/// Folds with a NaN-propagating `max`/`min`; the lane is non-empty.
pub(crate) fn fold_nan<T: Num>(l: &[T], op: impl Fn(T, T) -> T) -> T {
    let mut acc = [l[0]; 8];
    let chunks = l.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for j in 0..8 {
            acc[j] = op(acc[j], c[j]);
        }
    }
    let mut r = acc.into_iter().fold(l[0], &op);
    for &x in rest {
        r = op(r, x);
    }
    r
}

/// Two-pass variance (divided by `n - correction`, floored at 0) and mean, in f64.
fn var_mean(l: &[f64], correction: f64) -> (f64, f64) {
    let n = l.len() as f64;
    let mean = pairwise_sum(l) / n;
    let m2: f64 = l.iter().map(|&x| (x - mean) * (x - mean)).sum();
    (m2 / (n - correction).max(0.0), mean)
}

/// The first index of the largest (smallest) element; a NaN counts as the extreme.
fn arg_extreme<T: Num>(l: &[T], max: bool) -> i64 {
    let (mut best, mut value) = (0usize, l[0]);
    if value.is_nan() {
        return 0;
    }
    for (i, &x) in l.iter().enumerate().skip(1) {
        if x.is_nan() {
            return i as i64;
        }
        if (max && x > value) || (!max && x < value) {
            best = i;
            value = x;
        }
    }
    best as i64
}
