//! f32 matmuls through OpenBLAS's `cblas_sgemm` (Debian's `libopenblas.so.0`), loaded at run
//! time when asked for ([`crate::CpuOptions::openblas_f32_matmul`]): a binary without it
//! still runs, and says why it is missing ([`openblas_status`]). Kept beside oneDNN and the
//! `gemm` crate so that the three are measured on the same graphs (`docs/perf.md`).

use std::ffi::c_int;
use std::sync::OnceLock;

const ROW_MAJOR: c_int = 101;
const NO_TRANS: c_int = 111;
const TRANS: c_int = 112;

type Sgemm = unsafe extern "C" fn(
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    f32,
    *const f32,
    c_int,
    *const f32,
    c_int,
    f32,
    *mut f32,
    c_int,
);

/// The loaded library's entry points.
pub(crate) struct OpenBlas {
    sgemm: Sgemm,
    set_threads: unsafe extern "C" fn(c_int),
    /// The kernels OpenBLAS picked for this CPU (`openblas_get_corename`: `SkylakeX`,
    /// `Zen`, `Prescott`, ...), lower case.
    core: String,
    _lib: libloading::Library,
}

/// OpenBLAS's cores whose kernels use SSE alone: on a host with AVX2 such a pick is OpenBLAS
/// failing to recognise the CPU (Debian's 0.3.21 picks `Prescott` on some virtual Xeons), and
/// its products then run at a fraction of what gemm's do.
const SSE_ONLY_CORES: &[&str] = &[
    "katmai",
    "coppermine",
    "northwood",
    "prescott",
    "banias",
    "core2",
    "penryn",
    "dunnington",
    "nehalem",
    "atom",
    "athlon",
    "opteron",
    "opteron_sse3",
    "barcelona",
    "bobcat",
    "nano",
];

fn load() -> &'static Result<OpenBlas, String> {
    static LIB: OnceLock<Result<OpenBlas, String>> = OnceLock::new();
    LIB.get_or_init(|| {
        // SAFETY: loading OpenBLAS runs its initialisers, which are sound.
        let lib = unsafe { libloading::Library::new("libopenblas.so.0") }
            .map_err(|e| format!("libopenblas.so.0 (Debian's libopenblas-dev) not loaded: {e}"))?;
        // SAFETY: the symbols have these C signatures (OpenBLAS's cblas.h).
        let (sgemm, set_threads) = unsafe {
            (
                *lib.get::<Sgemm>(b"cblas_sgemm")
                    .map_err(|e| format!("OpenBLAS: {e}"))?,
                *lib.get::<unsafe extern "C" fn(c_int)>(b"openblas_set_num_threads")
                    .map_err(|e| format!("OpenBLAS: {e}"))?,
            )
        };
        // SAFETY: `char* openblas_get_corename(void)`, a static string.
        let core = unsafe {
            lib.get::<unsafe extern "C" fn() -> *const std::ffi::c_char>(b"openblas_get_corename")
                .ok()
                .map(|f| {
                    std::ffi::CStr::from_ptr(f())
                        .to_string_lossy()
                        .to_lowercase()
                })
        }
        .unwrap_or_default();
        Ok(OpenBlas {
            sgemm,
            set_threads,
            core,
            _lib: lib,
        })
    })
}

/// The library, when it loads.
pub(crate) fn openblas() -> Option<&'static OpenBlas> {
    load().as_ref().ok()
}

/// OpenBLAS, when it loads with kernels for this host's vector units (not an SSE-only core
/// on a host with AVX2: [`SSE_ONLY_CORES`]): what small f32 products take by default.
pub(crate) fn openblas_for_host() -> Option<&'static OpenBlas> {
    openblas().filter(|o| {
        if !kernels_fit_host(&o.core, crate::jit::host_has_feature("avx2")) {
            static WARNED: OnceLock<()> = OnceLock::new();
            WARNED.get_or_init(|| {
                tracing::debug!(target: "extern", core = %o.core, "OpenBLAS picked SSE-only kernels on an AVX2 host: small products take gemm");
            });
            return false;
        }
        true
    })
}

/// Whether kernels OpenBLAS picked for `core` use the vector units of a host that has AVX2
/// (`avx2`) or not.
fn kernels_fit_host(core: &str, avx2: bool) -> bool {
    !(avx2 && SSE_ONLY_CORES.contains(&core))
}

/// `Ok` when OpenBLAS loads, else why not.
pub fn openblas_status() -> Result<(), String> {
    load().as_ref().map(|_| ()).map_err(Clone::clone)
}

/// One f32 matrix as BLAS takes it: its first element and its row and column strides (in
/// elements).
pub(crate) struct BlasMat {
    pub(crate) ptr: *const f32,
    pub(crate) rs: isize,
    pub(crate) cs: isize,
}

impl BlasMat {
    /// `(transpose, leading dimension)` of a `[rows, cols]` view for a row-major call: stored
    /// by rows (unit column stride, rows at least a row apart: as it is) or by columns (unit
    /// row stride: transposed); `None` when neither holds (a broadcast dim's 0 stride among
    /// them: BLAS cannot repeat a row).
    fn layout(&self, (rows, cols): (usize, usize)) -> Option<(c_int, c_int)> {
        let (r, c) = (rows as isize, cols as isize);
        let int = |v: isize| c_int::try_from(v.max(1)).ok();
        if (self.cs == 1 || cols == 1) && (rows == 1 || self.rs >= c) {
            Some((NO_TRANS, int(if rows == 1 { c } else { self.rs })?))
        } else if (self.rs == 1 || rows == 1) && (cols == 1 || self.cs >= r) {
            Some((TRANS, int(if cols == 1 { r } else { self.cs })?))
        } else {
            None
        }
    }
}

impl OpenBlas {
    /// `out (+)= a @ b` (`beta` 0 or 1: `out` already holds an addmm's bias) for one
    /// `[m, k] @ [k, n]` product on `threads` threads; `Ok(false)` when a layout has no unit
    /// stride or a size passes BLAS's 32-bit integers (the caller then uses another path).
    ///
    /// # Safety
    /// Every element the strides reach is live; `out` (row-major, unit column stride) overlaps
    /// no operand.
    pub(crate) unsafe fn sgemm(
        &self,
        (m, k, n): (usize, usize, usize),
        a: &BlasMat,
        b: &BlasMat,
        out: (*mut f32, isize),
        beta: f32,
        threads: usize,
    ) -> bool {
        let (Some((ta, lda)), Some((tb, ldb))) = (a.layout((m, k)), b.layout((k, n))) else {
            return false;
        };
        let ints = [m, n, k, out.1.max(n as isize).max(1) as usize].map(c_int::try_from);
        let [Ok(mi), Ok(ni), Ok(ki), Ok(ldc)] = ints else {
            return false;
        };
        // SAFETY: the caller's promise; the leading dimensions describe the strides.
        unsafe {
            (self.set_threads)(threads.max(1) as c_int);
            (self.sgemm)(
                ROW_MAJOR, ta, tb, mi, ni, ki, 1.0, a.ptr, lda, b.ptr, ldb, beta, out.0, ldc,
            );
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::kernels_fit_host;

    #[test]
    fn sse_only_kernels_do_not_fit_an_avx2_host() {
        assert!(!kernels_fit_host("prescott", true));
        assert!(kernels_fit_host("prescott", false));
        assert!(kernels_fit_host("skylakex", true));
        assert!(kernels_fit_host("zen", true));
        assert!(kernels_fit_host("haswell", true));
    }
}
