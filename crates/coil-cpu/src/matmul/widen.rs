//! 16-bit (f16, bf16) matmuls widened to f32: the operands converted once per call, in their
//! memory's order, multiplied by `gemm` in f32, the result rounded once; and the element
//! conversions the post-ops share.

use coil_graph::DType;
use gemm::Parallelism;

use super::Mat;

/// Element `at` (in elements) of 16-bit float memory, widened.
///
/// # Safety
/// `p.offset(at)` is a live element.
pub(super) unsafe fn load_16(dtype: DType, p: *const u16, at: isize) -> f32 {
    // SAFETY: the caller's promise.
    let bits = unsafe { *p.offset(at) };
    match dtype {
        DType::BF16 => half::bf16::from_bits(bits).to_f32(),
        _ => half::f16::from_bits(bits).to_f32(),
    }
}

/// `v` rounded to the nearest 16-bit float (ties to even), as bits.
pub(super) fn round_16(dtype: DType, v: f32) -> u16 {
    match dtype {
        DType::BF16 => half::bf16::from_f32(v).to_bits(),
        _ => half::f16::from_f32(v).to_bits(),
    }
}

/// A strided 16-bit `[rows, cols]` matrix widened into a contiguous f32 one in the order its
/// memory runs: row-major, or column-major where its columns are contiguous (a transposed
/// weight), so that the source is read line by line. Gives the matrix and its f32 strides
/// `(row, column)` for `gemm`.
///
/// # Safety
/// Every element of the view is live.
unsafe fn widen_as_laid_out(
    dtype: DType,
    p: *const u16,
    (rows, cols): (usize, usize),
    st: [isize; 2],
) -> (Vec<f32>, isize, isize) {
    if st[0] == 1 && st[1] != 1 && rows > 1 {
        // SAFETY: the caller's promise (the transposed view has the same elements).
        let v = unsafe { widen(dtype, p, (cols, rows), [st[1], st[0]]) };
        (v, 1, rows as isize)
    } else {
        // SAFETY: as above.
        let v = unsafe { widen(dtype, p, (rows, cols), st) };
        (v, cols as isize, 1)
    }
}

/// `lines` lines of `len` elements (line `i`, element `j` at `i * st[0] + j * st[1]`) widened
/// into `lines * len` contiguous f32s: a strided `[rows, cols]` matrix widened row-major.
///
/// # Safety
/// Every element of the view is live.
unsafe fn widen(
    dtype: DType,
    p: *const u16,
    (lines, len): (usize, usize),
    st: [isize; 2],
) -> Vec<f32> {
    let mut v = vec![0.0f32; lines * len];
    if len == 0 {
        return v;
    }
    for (i, out) in v.chunks_exact_mut(len).enumerate() {
        let base = i as isize * st[0];
        if dtype == DType::BF16 && st[1] == 1 {
            // A bf16 is the top half of an f32: a shift over a contiguous line (vectorized;
            // widening the weight was most of a one-row product's time, a decode step's).
            // SAFETY: the caller's promise: the line's `len` elements are live.
            let line = unsafe { std::slice::from_raw_parts(p.offset(base), len) };
            for (o, &bits) in out.iter_mut().zip(line) {
                *o = f32::from_bits(u32::from(bits) << 16);
            }
        } else {
            for (j, o) in out.iter_mut().enumerate() {
                // SAFETY: the caller's promise.
                *o = unsafe { load_16(dtype, p, base + j as isize * st[1]) };
            }
        }
    }
    v
}

/// A 16-bit (f16 or bf16) matmul, optionally onto a bias: the operands widened to f32, the
/// product (and the bias) accumulated in f32 by `gemm`, the result rounded once to the output
/// dtype. PyTorch's CPU kernels accumulate 16-bit products in f32 the same way.
///
/// # Safety
/// As `run_gemm` (every view live, the result sharing no operand's memory); `bias`, when given, is a live `[m, n]` view.
pub(super) unsafe fn run_widened(
    dtype: DType,
    (batch, m, k, n): (usize, usize, usize, usize),
    a: &Mat,
    b: &Mat,
    out: &Mat,
    bias: Option<&Mat>,
    parallelism: Parallelism,
) {
    let row = |x: &Mat| [x.strides[1], x.strides[2]];
    for bi in 0..batch as isize {
        // SAFETY: batch offsets stay within the checked extents; each view's elements are live.
        unsafe {
            let pa = (a.ptr as *const u16).offset(bi * a.strides[0]);
            let pb = (b.ptr as *const u16).offset(bi * b.strides[0]);
            let po = (out.ptr as *mut u16).offset(bi * out.strides[0]);
            let wa = widen(dtype, pa, (m, k), row(a));
            let (wb, b_rs, b_cs) = widen_as_laid_out(dtype, pb, (k, n), row(b));
            let mut acc = match bias {
                Some(c) => widen(dtype, c.ptr as *const u16, (m, n), row(c)),
                None => vec![0.0f32; m * n],
            };
            if k > 0 {
                gemm::gemm(
                    m,
                    n,
                    k,
                    acc.as_mut_ptr(),
                    1,
                    n as isize,
                    bias.is_some(),
                    wa.as_ptr(),
                    1,
                    k as isize,
                    wb.as_ptr(),
                    b_cs,
                    b_rs,
                    if bias.is_some() { 1.0 } else { 0.0 },
                    1.0,
                    false,
                    false,
                    false,
                    parallelism,
                );
            }
            for i in 0..m {
                for j in 0..n {
                    let at = i as isize * out.strides[1] + j as isize * out.strides[2];
                    *po.offset(at) = round_16(dtype, acc[i * n + j]);
                }
            }
        }
    }
}
