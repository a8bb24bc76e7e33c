//! Kernel launches on the OpenMP runtime the process already holds (GNU libgomp: PyTorch's,
//! for its intra-op threads and MKL's, or the one oneDNN brings into the CLI). With coil's own
//! pool beside it there are two sets of threads on the same cores: after every parallel region
//! of the other side (an eager op under PyTorch, a oneDNN call) libgomp's threads spin for a
//! while, and a coil worker woken in that time waits its turn for a core. Running coil's chunks
//! on libgomp's team (`GOMP_parallel`, what Inductor's C++ kernels compile to) leaves one set of
//! threads, already awake.
//!
//! Nothing is loaded here: the library is found only where the process holds it already
//! (`RTLD_NOLOAD`), so without PyTorch or oneDNN launches stay on coil's pool.

use std::ffi::{c_int, c_uint, c_void};
use std::panic::resume_unwind;
use std::sync::atomic::AtomicUsize;
use std::sync::{Mutex, OnceLock, PoisonError};

/// `void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)`:
/// runs `fn(data)` on a team of `num_threads` (0: the runtime's default), the caller one of
/// them, and returns when every member has.
type GompParallel = unsafe extern "C" fn(extern "C" fn(*mut c_void), *mut c_void, c_uint, c_uint);

/// The loaded libgomp's entry points.
pub struct OpenMp {
    parallel: GompParallel,
    max_threads: unsafe extern "C" fn() -> c_int,
    _lib: libloading::os::unix::Library,
}

// SAFETY: function pointers into a library kept loaded; libgomp's entry points are thread-safe.
unsafe impl Send for OpenMp {}
// SAFETY: as above.
unsafe impl Sync for OpenMp {}

impl std::fmt::Debug for OpenMp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OpenMp(libgomp, {} threads)", self.threads())
    }
}

impl OpenMp {
    /// The process's libgomp, where one is loaded already (by PyTorch); `None` otherwise.
    pub fn loaded() -> Option<&'static OpenMp> {
        static LIB: OnceLock<Option<OpenMp>> = OnceLock::new();
        LIB.get_or_init(|| {
            use libloading::os::unix::{Library, RTLD_LAZY};
            const RTLD_NOLOAD: c_int = 4; // glibc's value
            // SAFETY: with RTLD_NOLOAD nothing is loaded or initialised: the call only finds a
            // library the process already holds (matched by its soname).
            let lib =
                unsafe { Library::open(Some("libgomp.so.1"), RTLD_LAZY | RTLD_NOLOAD) }.ok()?;
            // SAFETY: libgomp's documented signatures.
            let parallel = unsafe { *lib.get::<GompParallel>(b"GOMP_parallel\0").ok()? };
            // SAFETY: as above.
            let max_threads = unsafe {
                *lib.get::<unsafe extern "C" fn() -> c_int>(b"omp_get_max_threads\0")
                    .ok()?
            };
            tracing::debug!(target: "cpu", "kernel launches on the loaded libgomp's threads");
            Some(OpenMp {
                parallel,
                max_threads,
                _lib: lib,
            })
        })
        .as_ref()
    }

    /// The team size a parallel region gets (`omp_get_max_threads`: PyTorch's
    /// `torch.set_num_threads` sets it).
    pub fn threads(&self) -> usize {
        // SAFETY: no arguments; reads the calling thread's OpenMP setting.
        usize::try_from(unsafe { (self.max_threads)() }).map_or(1, |n| n.max(1))
    }

    /// Calls `body(chunk)` for every chunk in `0..n_chunks` on libgomp's team, chunks claimed
    /// dynamically, and returns when all have returned. A panic in `body` is re-raised here
    /// after every chunk has finished (it never unwinds through libgomp).
    pub fn parallel_for(&self, n_chunks: usize, body: &(dyn Fn(usize) + Sync)) {
        if n_chunks == 0 {
            return;
        }
        if n_chunks == 1 {
            body(0);
            return;
        }
        let team = Team {
            body,
            n_chunks,
            next: AtomicUsize::new(0),
            panic: Mutex::new(None),
        };
        let threads = self.threads().min(n_chunks);
        // SAFETY: `team` outlives the call (GOMP_parallel returns after every member has
        // returned from `run_team`), and `run_team` only reads it through a shared reference.
        unsafe {
            (self.parallel)(
                run_team,
                std::ptr::from_ref(&team).cast_mut().cast(),
                threads as c_uint,
                0,
            );
        }
        let panic = team
            .panic
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(payload) = panic {
            resume_unwind(payload);
        }
    }
}

/// What each member of the team works on.
struct Team<'a> {
    body: &'a (dyn Fn(usize) + Sync),
    n_chunks: usize,
    next: AtomicUsize,
    panic: Mutex<Option<crate::parallel::Panic>>,
}

/// A team member: claims and runs chunks until none are left.
extern "C" fn run_team(data: *mut c_void) {
    // SAFETY: `data` is the `Team` `parallel_for` passed, alive until every member returns.
    let team = unsafe { &*data.cast_const().cast::<Team<'_>>() };
    crate::parallel::run_claimed(&team.next, team.n_chunks, &team.panic, team.body, || {});
}
