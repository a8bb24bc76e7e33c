//! f32 matmuls through the BLAS of the PyTorch loaded in this process (`sgemm_`, which
//! `libtorch_cpu.so` exports: MKL's on x86 wheels), called as eager's `addmm_impl_cpu_` calls
//! it, so that a matmul's result equals eager's bit for bit, as Inductor's extern `mm` does
//! by calling eager's. Used only where PyTorch is already loaded (coil under
//! `torch.compile`): the library is looked up with `RTLD_NOLOAD`, never loaded here.
//!
//! Why: two correct f32 products of a 1024-long contraction differ by their summation order
//! (`tools/matmul_accuracy.py`: coil's oneDNN and eager's MKL are both within the usual f32
//! bound of the float64 product, neither equal to the other), and PyTorch's tests compare a
//! compiled graph with eager at f32's `rtol` of 1.3e-6, which only the same routine meets.

use std::ffi::{c_char, c_int};
use std::sync::OnceLock;

/// Fortran `sgemm_`: every argument by reference.
type Sgemm = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const c_int,
    *const c_int,
    *const c_int,
    *const f32,
    *const f32,
    *const c_int,
    *const f32,
    *const c_int,
    *const f32,
    *mut f32,
    *const c_int,
);

struct EagerBlas {
    sgemm: Sgemm,
    _lib: libloading::os::unix::Library,
}

// SAFETY: a function pointer into a library kept loaded; BLAS's sgemm is reentrant.
unsafe impl Send for EagerBlas {}
// SAFETY: as above.
unsafe impl Sync for EagerBlas {}

fn load() -> &'static Option<EagerBlas> {
    static LIB: OnceLock<Option<EagerBlas>> = OnceLock::new();
    LIB.get_or_init(|| {
        use libloading::os::unix::{Library, RTLD_LAZY};
        const RTLD_NOLOAD: std::ffi::c_int = 4; // glibc's value
        // SAFETY: with RTLD_NOLOAD nothing is loaded or initialised: the call only finds a
        // library the process already holds.
        let lib =
            unsafe { Library::open(Some("libtorch_cpu.so"), RTLD_LAZY | RTLD_NOLOAD) }.ok()?;
        // SAFETY: `sgemm_` has the reference BLAS's Fortran signature.
        let sgemm = unsafe { *lib.get::<Sgemm>(b"sgemm_\0").ok()? };
        tracing::debug!(target: "extern", "f32 matmuls through the loaded PyTorch's sgemm_");
        Some(EagerBlas { sgemm, _lib: lib })
    })
}

/// Whether this process holds a PyTorch whose BLAS f32 matmuls can take.
pub fn eager_blas_loaded() -> bool {
    load().is_some()
}

/// One matrix operand: its first element and `[row, col]` strides in elements.
#[derive(Clone, Copy)]
pub(crate) struct Operand {
    pub(crate) ptr: *const f32,
    pub(crate) strides: [isize; 2],
}

/// How eager's `addmm_impl_cpu_` casts an operand of `(m_rows, m_cols)` (as the column-major
/// call sees it): `Some(transposed)` when it is used in place (a unit stride along one dim,
/// the other at least that dim's length), `None` when eager would copy it (coil then takes
/// its own libraries).
fn cast(strides: [isize; 2], flipped: bool, (m_rows, m_cols): (isize, isize)) -> Option<bool> {
    // `flipped`: the result was transposed (row-major), so the operand's dims swap roles.
    let (s0, s1) = if flipped {
        (strides[1], strides[0])
    } else {
        (strides[0], strides[1])
    };
    if s0 == 1 && s1 >= m_rows.max(1) {
        Some(false)
    } else if s1 == 1 && s0 >= m_cols.max(1) {
        Some(true)
    } else if m_cols == 1 && (s0 == 1 || m_rows == 1) {
        // A vector: the stride of a dim of one is never followed, and coil's layouts give
        // such a dim any stride (a `[1, 512]` view of a computed row may have 0 or 1 where
        // eager's tensor has 512), so it is read in place as eager reads a contiguous one.
        Some(false)
    } else if m_rows == 1 && s1 == 1 {
        Some(true)
    } else {
        None
    }
}

/// `out = a @ b` (`beta` 1: onto what `out` holds, an addmm's bias) for one `[m, k] @ [k, n]`
/// product, with eager's transposes and leading dimensions; `false` when PyTorch is not
/// loaded, or eager would have copied an operand or the result first, or a size passes
/// BLAS's 32-bit integers (the caller then takes another path).
///
/// # Safety
/// Every element the strides reach is live; `out` overlaps no operand.
pub(crate) unsafe fn sgemm(
    (m, k, n): (usize, usize, usize),
    a: Operand,
    b: Operand,
    out: (*mut f32, [isize; 2]),
    beta: f32,
) -> bool {
    let Some(blas) = load() else {
        return false;
    };
    let (m, k, n) = (m as isize, k as isize, n as isize);
    let (c_ptr, cs) = out;
    // The result as a column-major matrix: as it is (unit row stride), or transposed (unit
    // column stride: the usual row-major result, computed as b^T a^T).
    let flip = if cs[0] == 1 && (n == 1 || cs[1] >= m.max(1)) {
        false
    } else if cs[1] == 1 && (m == 1 || cs[0] >= n.max(1)) {
        true
    } else {
        return false;
    };
    let (m1, m2) = if flip { (b, a) } else { (a, b) };
    let (mm, nn) = if flip { (n, m) } else { (m, n) };
    let Some(ta) = cast(m1.strides, flip, (mm, k)) else {
        return false;
    };
    let Some(tb) = cast(m2.strides, flip, (k, nn)) else {
        return false;
    };
    let ld = |x: &Operand, t: bool| {
        let (s0, s1) = (x.strides[0], x.strides[1]);
        // The stride between columns of the column-major matrix BLAS is given.
        let (row, col) = if flip { (s1, s0) } else { (s0, s1) };
        if t { row } else { col }
    };
    let (mut lda, mut ldb) = (ld(&m1, ta), ld(&m2, tb));
    let mut ldc = if flip { cs[0] } else { cs[1] };
    // cpublas's normalize_last_dims: BLAS wants a leading dimension of at least the rows even
    // where a dim of one makes the stride meaningless.
    if nn == 1 {
        ldc = mm;
    }
    if ta {
        if mm == 1 {
            lda = k;
        }
    } else if k == 1 {
        lda = mm;
    }
    if tb {
        if k == 1 {
            ldb = nn;
        }
    } else if nn == 1 {
        ldb = k;
    }
    // cpublas's use_blas_gemm: otherwise eager takes its own loop, not BLAS.
    if k == 0
        || lda < (if ta { k } else { mm }).max(1)
        || ldb < (if tb { nn } else { k }).max(1)
        || ldc < mm.max(1)
    {
        return false;
    }
    let ints = [mm, nn, k, lda, ldb, ldc].map(c_int::try_from);
    let [Ok(mi), Ok(ni), Ok(ki), Ok(lda), Ok(ldb), Ok(ldc)] = ints else {
        return false;
    };
    let trans = |t: bool| if t { b'T' as c_char } else { b'N' as c_char };
    let (tra, trb) = (trans(ta), trans(tb));
    let alpha = 1.0f32;
    // SAFETY: the caller's promise; the leading dimensions describe the strides.
    unsafe {
        (blas.sgemm)(
            &tra, &trb, &mi, &ni, &ki, &alpha, m1.ptr, &lda, m2.ptr, &ldb, &beta, c_ptr, &ldc,
        );
    }
    true
}

/// The 2-D f32 product `[ptr, [batch, row, col] strides]` of the two operands and the result
/// through the loaded PyTorch's BLAS as eager calls it (`accumulate`: onto the bias already in
/// the result); `false` where eager would not call BLAS on these layouts.
///
/// # Safety
/// As [`sgemm`].
pub(crate) unsafe fn product(
    (m, k, n): (usize, usize, usize),
    [a, b, out]: [(*mut u8, [isize; 3]); 3],
    accumulate: bool,
) -> bool {
    let op = |(ptr, s): (*mut u8, [isize; 3])| Operand {
        ptr: ptr as *const f32,
        strides: [s[1], s[2]],
    };
    // SAFETY: the caller's promise; the result overlaps no operand.
    unsafe {
        sgemm(
            (m, k, n),
            op(a),
            op(b),
            (out.0 as *mut f32, [out.1[1], out.1[2]]),
            if accumulate { 1.0 } else { 0.0 },
        )
    }
}
