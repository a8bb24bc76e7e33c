//! f32 products of one row by a matrix, `[1, k] @ [k, n]` (a decode step's projections): the
//! row's dot product with each column where the matrix's columns are contiguous (a linear
//! layer's transposed weight), or the rows scaled and summed where its rows are, with AVX2 and
//! FMA where the host has them. The gemm crate's general kernel packs the matrix for a single
//! row and ran such a product at a third of MKL's speed (docs/perf.md, session 6).

/// [`sgemv`] for each of `batch` products, `[ptr, [batch, row, col] strides]` for the row,
/// the matrix and the result (f32 elements); `false` when the matrix has no unit stride
/// (every batch has the same layout: the first refuses or none does).
///
/// # Safety
/// As [`sgemv`], for every batch's elements.
pub(crate) unsafe fn batched(
    (batch, k, n): (usize, usize, usize),
    [(a, sa), (b, sb), (out, so)]: [(*mut u8, [isize; 3]); 3],
    accumulate: bool,
    threads: usize,
) -> bool {
    (0..batch as isize).all(|bi| {
        // SAFETY: the caller's promise, batch by batch.
        unsafe {
            sgemv(
                (k, n),
                (a as *const f32).offset(bi * sa[0]),
                sa[2],
                (b as *const f32).offset(bi * sb[0]),
                [sb[1], sb[2]],
                (out as *mut f32).offset(bi * so[0]),
                so[2],
                accumulate,
                threads,
            )
        }
    })
}

/// Elements of the matrix from which the product's columns are split over threads (1 MB of
/// f32: below it waking a second thread costs about what it saves).
const PARALLEL_ELEMENTS: usize = 1 << 18;

/// `out[j] (+)= sum_i a[i] * b[i, j]` for `j < n`, `i < k`, the columns split over up to
/// `threads` threads (rayon's pool, as the gemm crate's); `false` (nothing written) when
/// neither of `b`'s strides is 1.
///
/// # Safety
/// `a` (stride `a_stride`), `b` (strides `[row, col]`) and `out` (stride `out_stride`) reach
/// live memory for every element of those sizes; `out` overlaps neither operand.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn sgemv(
    (k, n): (usize, usize),
    a: *const f32,
    a_stride: isize,
    b: *const f32,
    b_strides: [isize; 2],
    out: *mut f32,
    out_stride: isize,
    accumulate: bool,
    threads: usize,
) -> bool {
    if b_strides[0] != 1 && b_strides[1] != 1 {
        return false;
    }
    // SAFETY (throughout): the caller's promise on every element of these sizes.
    let row: Vec<f32> = (0..k as isize)
        .map(|i| unsafe { *a.offset(i * a_stride) })
        .collect();
    let mut acc = vec![0f32; n];
    let (b, s0, s1) = (b as usize, b_strides[0], b_strides[1]);
    let fma = fma_host();
    // Columns `first..first + part.len()` into `part`.
    let columns = |first: usize, part: &mut [f32]| {
        let b = b as *const f32;
        if s0 == 1 {
            for (j, o) in part.iter_mut().enumerate() {
                let col = (first + j) as isize * s1;
                *o = dot(
                    &row,
                    unsafe { std::slice::from_raw_parts(b.offset(col), k) },
                    fma,
                );
            }
        } else {
            for (i, &x) in row.iter().enumerate() {
                let r = unsafe { b.offset(i as isize * s0 + first as isize) };
                axpy(
                    x,
                    unsafe { std::slice::from_raw_parts(r, part.len()) },
                    part,
                    fma,
                );
            }
        }
    };
    let threads = if k * n >= PARALLEL_ELEMENTS {
        threads.clamp(1, n)
    } else {
        1
    };
    if threads > 1 {
        use rayon::prelude::*;
        let chunk = n.div_ceil(threads);
        acc.par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(c, part)| columns(c * chunk, part));
    } else {
        columns(0, &mut acc);
    }
    for (j, v) in acc.into_iter().enumerate() {
        unsafe {
            let o = out.offset(j as isize * out_stride);
            *o = if accumulate { *o + v } else { v };
        }
    }
    true
}

const LANES: usize = 32;

/// Whether the host has AVX2 and FMA (asked once per product, not per column).
fn fma_host() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// `fma`: [`fma_host`]'s answer.
fn dot(x: &[f32], y: &[f32], fma: bool) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if fma {
        // SAFETY: the host has both features.
        return unsafe { dot_fma(x, y) };
    }
    let _ = fma;
    dot_with(x, y, |a, b, c| a * b + c)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_fma(x: &[f32], y: &[f32]) -> f32 {
    dot_with(x, y, f32::mul_add)
}

/// Thirty-two running sums (independent chains the vector units keep busy), then their sum.
#[inline(always)]
fn dot_with(x: &[f32], y: &[f32], fma: impl Fn(f32, f32, f32) -> f32) -> f32 {
    let mut acc = [0f32; LANES];
    let (xc, yc) = (x.chunks_exact(LANES), y.chunks_exact(LANES));
    let (xr, yr) = (xc.remainder(), yc.remainder());
    for (xs, ys) in xc.zip(yc) {
        for l in 0..LANES {
            acc[l] = fma(xs[l], ys[l], acc[l]);
        }
    }
    let mut tail = 0f32;
    for (a, b) in xr.iter().zip(yr) {
        tail = fma(*a, *b, tail);
    }
    acc.iter().sum::<f32>() + tail
}

/// `fma`: [`fma_host`]'s answer.
fn axpy(alpha: f32, x: &[f32], y: &mut [f32], fma: bool) {
    #[cfg(target_arch = "x86_64")]
    if fma {
        // SAFETY: the host has both features.
        return unsafe { axpy_fma(alpha, x, y) };
    }
    let _ = fma;
    axpy_with(alpha, x, y, |a, b, c| a * b + c)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn axpy_fma(alpha: f32, x: &[f32], y: &mut [f32]) {
    axpy_with(alpha, x, y, f32::mul_add)
}

#[inline(always)]
fn axpy_with(alpha: f32, x: &[f32], y: &mut [f32], fma: impl Fn(f32, f32, f32) -> f32) {
    for (o, &v) in y.iter_mut().zip(x) {
        *o = fma(alpha, v, *o);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(k: usize, n: usize, a: &[f32], b: &[f32], b_strides: [usize; 2]) -> Vec<f64> {
        (0..n)
            .map(|j| {
                (0..k)
                    .map(|i| a[i] as f64 * b[i * b_strides[0] + j * b_strides[1]] as f64)
                    .sum()
            })
            .collect()
    }

    #[test]
    fn both_layouts_and_accumulation_match_a_float64_product() {
        // (600, 512): past `PARALLEL_ELEMENTS`, the columns split over threads.
        for (k, n) in [(1, 1), (7, 3), (33, 65), (512, 96), (100, 1), (600, 512)] {
            let a: Vec<f32> = (0..k).map(|i| ((i * 7 % 13) as f32 - 6.0) / 5.0).collect();
            let b: Vec<f32> = (0..k * n)
                .map(|i| ((i * 11 % 17) as f32 - 8.0) / 3.0)
                .collect();
            for strides in [[1, k], [n, 1]] {
                let want = reference(k, n, &a, &b, strides);
                for accumulate in [false, true] {
                    let mut out = vec![0.5f32; 2 * n];
                    let s = strides.map(|x| x as isize);
                    // SAFETY: every element of these sizes lies in the vectors.
                    let ran = unsafe {
                        sgemv(
                            (k, n),
                            a.as_ptr(),
                            1,
                            b.as_ptr(),
                            s,
                            out.as_mut_ptr(),
                            2,
                            accumulate,
                            2,
                        )
                    };
                    assert!(ran);
                    for j in 0..n {
                        let w = want[j] + if accumulate { 0.5 } else { 0.0 };
                        let tol = 1e-5 * (1.0 + w.abs()) * (k as f64).sqrt();
                        assert!((out[2 * j] as f64 - w).abs() <= tol, "{k}x{n} {strides:?}");
                        assert_eq!(out[2 * j + 1], 0.5, "the stride's gaps are untouched");
                    }
                }
            }
        }
    }

    #[test]
    fn a_matrix_with_no_unit_stride_is_refused() {
        let (a, b, mut out) = ([1f32; 4], [1f32; 64], [0f32; 4]);
        // SAFETY: strides 2 and 8 over 4 x 4 stay inside 64 elements.
        let ran = unsafe {
            sgemv(
                (4, 4),
                a.as_ptr(),
                1,
                b.as_ptr(),
                [2, 8],
                out.as_mut_ptr(),
                1,
                false,
                2,
            )
        };
        assert!(!ran && out == [0.0; 4]);
    }
}
