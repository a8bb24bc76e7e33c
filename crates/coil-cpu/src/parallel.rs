//! The parallel runtime: a fixed pool of worker threads with a blocking
//! [`ThreadPool::parallel_for`], and safe launches of JIT-compiled kernels over disjoint chunks of
//! their outer loop ([`JitKernel::run`]).
//!
//! The kernel ABI ([`KernelFn`]) is `void kernel(i8** args, i64 start, i64 end)`: `args` holds one
//! pointer per buffer, and the kernel runs iterations `start..end` of its outermost loop. All the
//! unsafety of calling JIT code is in one promise, made once by [`JitKernel::new`]'s caller; after
//! that, [`JitKernel::run`] checks the buffers against the kernel's declared signature and is safe.

use std::any::Any;
use std::cell::Cell;
use std::marker::PhantomData;
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use crate::{CpuError, JitModule};

/// The entry point of a JIT-compiled kernel: runs outer-loop iterations `start..end` on the
/// buffers `args[0], args[1], ...`.
pub type KernelFn = unsafe extern "C" fn(args: *const *mut u8, start: i64, end: i64);

thread_local! {
    /// Set while this thread runs chunks of a `parallel_for`; nested calls then run serially.
    static IN_PARALLEL: Cell<bool> = const { Cell::new(false) };
}

pub(crate) type Panic = Box<dyn Any + Send + 'static>;

/// Stack of each worker thread: the backend compiles LLVM modules on the workers too, and
/// LLVM's recursive passes want the room a main thread has (8 MiB), not a spawned thread's
/// default 2 MiB. Address space only; pages are touched as used.
const WORKER_STACK_BYTES: usize = 16 << 20;

/// One `parallel_for` in flight.
struct Job {
    /// The chunk body, its lifetime erased; only called for claimed chunks `< n_chunks`, all of
    /// which finish before `parallel_for` returns.
    body: *const (dyn Fn(usize) + Sync + 'static),
    n_chunks: usize,
    next: AtomicUsize,
    finished: AtomicUsize,
    panic: Mutex<Option<Panic>>,
}

// SAFETY: `body` points to a `Sync` closure that outlives every use (see `Job::body`); the other
// fields are thread-safe.
unsafe impl Send for Job {}
// SAFETY: as for `Send`.
unsafe impl Sync for Job {}

impl Job {
    /// Claims and runs chunks until none are left; returns whether this call finished the last.
    fn work(&self, shared: &Shared) {
        let body = |chunk: usize| {
            // SAFETY: `chunk < n_chunks` was claimed by this thread only, and `parallel_for`
            // does not return (so the closure stays alive) until every claimed chunk has
            // finished.
            let body = unsafe { &*self.body };
            body(chunk);
        };
        run_claimed(&self.next, self.n_chunks, &self.panic, &body, || {
            if self.finished.fetch_add(1, Ordering::AcqRel) + 1 == self.n_chunks {
                let _state = lock(&shared.state);
                shared.done.notify_all();
            }
        });
    }
}

/// Claims chunks from `next` and runs `body` on each until `n_chunks` are claimed, keeping the
/// first panic in `panic` and calling `after` once each chunk is done, panicked or not: one
/// thread's share of a `parallel_for`, on the pool or on an OpenMP team ([`crate::openmp`]).
pub(crate) fn run_claimed(
    next: &AtomicUsize,
    n_chunks: usize,
    panic: &Mutex<Option<Panic>>,
    body: &dyn Fn(usize),
    mut after: impl FnMut(),
) {
    loop {
        let chunk = next.fetch_add(1, Ordering::Relaxed);
        if chunk >= n_chunks {
            return;
        }
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| body(chunk))) {
            lock(panic).get_or_insert(payload);
        }
        after();
    }
}

struct State {
    job: Option<Arc<Job>>,
    generation: u64,
    shutdown: bool,
}

struct Shared {
    state: Mutex<State>,
    work: Condvar,
    done: Condvar,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these locks leaves the data consistent (plain fields).
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A fixed set of worker threads. `parallel_for` calls from several threads take turns.
pub struct ThreadPool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    submit: Mutex<()>,
}

impl std::fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadPool")
            .field("threads", &self.threads())
            .finish()
    }
}

impl ThreadPool {
    /// A pool using every core (`std::thread::available_parallelism`).
    pub fn new() -> Result<Self, CpuError> {
        let n = std::thread::available_parallelism().map_or(1, usize::from);
        Self::with_threads(n)
    }

    /// A pool whose `parallel_for` runs on `threads` threads in all: the caller plus
    /// `threads - 1` workers (`0` is taken as `1`).
    pub fn with_threads(threads: usize) -> Result<Self, CpuError> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                job: None,
                generation: 0,
                shutdown: false,
            }),
            work: Condvar::new(),
            done: Condvar::new(),
        });
        let mut pool = ThreadPool {
            shared,
            workers: Vec::new(),
            submit: Mutex::new(()),
        };
        for i in 1..threads.max(1) {
            let shared = Arc::clone(&pool.shared);
            let handle = std::thread::Builder::new()
                .name(format!("coil-cpu-{i}"))
                .stack_size(WORKER_STACK_BYTES)
                .spawn(move || worker(&shared))?;
            pool.workers.push(handle);
        }
        Ok(pool)
    }

    /// How many threads run a `parallel_for` (workers plus the calling thread).
    pub fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Calls `body(chunk)` for every `chunk` in `0..n_chunks`, spread over the pool's threads,
    /// and returns when all calls have returned. Chunks are claimed dynamically, so uneven chunks
    /// balance. A panic in `body` is re-raised here after every chunk has finished. Called from
    /// inside a `body` (nested), it runs serially on the calling thread.
    pub fn parallel_for<F>(&self, n_chunks: usize, body: F)
    where
        F: Fn(usize) + Sync,
    {
        if n_chunks == 0 {
            return;
        }
        if self.workers.is_empty() || n_chunks == 1 || IN_PARALLEL.with(Cell::get) {
            (0..n_chunks).for_each(body);
            return;
        }
        let _turn = lock(&self.submit);
        let body: &(dyn Fn(usize) + Sync + '_) = &body;
        // SAFETY: only the lifetime is erased. The pointer is dereferenced only for chunks below
        // `n_chunks`, and this function waits below until all of them have finished, so `body`
        // outlives every call.
        let body: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(body) };
        let job = Arc::new(Job {
            body,
            n_chunks,
            next: AtomicUsize::new(0),
            finished: AtomicUsize::new(0),
            panic: Mutex::new(None),
        });
        {
            let mut state = lock(&self.shared.state);
            state.job = Some(Arc::clone(&job));
            state.generation += 1;
            self.shared.work.notify_all();
        }
        IN_PARALLEL.with(|c| c.set(true));
        job.work(&self.shared);
        IN_PARALLEL.with(|c| c.set(false));
        let mut state = lock(&self.shared.state);
        while job.finished.load(Ordering::Acquire) < n_chunks {
            state = self
                .shared
                .done
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        state.job = None;
        drop(state);
        if let Some(payload) = lock(&job.panic).take() {
            resume_unwind(payload);
        }
    }
}

fn worker(shared: &Shared) {
    IN_PARALLEL.with(|c| c.set(true));
    let mut seen = 0;
    loop {
        let job = {
            let mut state = lock(&shared.state);
            while !state.shutdown && (state.generation == seen || state.job.is_none()) {
                state = shared
                    .work
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if state.shutdown {
                return;
            }
            seen = state.generation;
            state.job.clone()
        };
        if let Some(job) = job {
            job.work(shared);
        }
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        lock(&self.shared.state).shutdown = true;
        self.shared.work.notify_all();
        for handle in self.workers.drain(..) {
            // A worker never panics outside `catch_unwind`; nothing to report if one did.
            let _ = handle.join();
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Element types a kernel may read and write: plain numbers, for which every bit pattern is a
/// valid value.
pub trait Element: sealed::Sealed + Copy + Send + Sync + 'static {}
macro_rules! element {
    ($($t:ty)*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {}
    )*};
}
element!(f32 f64 i8 i16 i32 i64 u8 u16 u32 u64);

/// One argument of a kernel's signature: how many bytes of its buffer the kernel may touch, and
/// whether it writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgSpec {
    /// Bytes from the buffer's start the kernel reads or writes, at most.
    pub bytes: usize,
    /// Whether the kernel writes the buffer.
    pub writes: bool,
}

/// The buffers for one kernel launch, borrowed for `'a`, in argument order.
#[derive(Debug, Default)]
pub struct KernelArgs<'a> {
    ptrs: Vec<*mut u8>,
    lens: Vec<usize>,
    writable: Vec<bool>,
    _borrow: PhantomData<&'a mut [u8]>,
}

impl<'a> KernelArgs<'a> {
    /// No arguments yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a buffer the kernel only reads.
    pub fn input<T: Element>(&mut self, data: &'a [T]) -> &mut Self {
        self.ptrs.push(data.as_ptr() as *mut u8);
        self.lens.push(std::mem::size_of_val(data));
        self.writable.push(false);
        self
    }

    /// Appends a buffer the kernel may write.
    pub fn output<T: Element>(&mut self, data: &'a mut [T]) -> &mut Self {
        self.ptrs.push(data.as_mut_ptr() as *mut u8);
        self.lens.push(std::mem::size_of_val(data));
        self.writable.push(true);
        self
    }

    /// How many buffers have been added.
    pub fn len(&self) -> usize {
        self.ptrs.len()
    }

    /// Whether no buffer has been added.
    pub fn is_empty(&self) -> bool {
        self.ptrs.is_empty()
    }
}

/// The argument pointers, shared by the threads of one launch.
struct SharedArgs(*const *mut u8);
// SAFETY: the pointers are only passed to a kernel whose contract (`JitKernel::new`) makes calls on
// disjoint ranges touch disjoint written bytes, so sharing them across threads is race-free.
unsafe impl Sync for SharedArgs {}

/// A JIT-compiled kernel with the [`KernelFn`] ABI and a checked signature.
#[derive(Debug, Clone)]
pub struct JitKernel<'j> {
    name: String,
    entry: KernelFn,
    args: Vec<ArgSpec>,
    outer: i64,
    _code: PhantomData<&'j JitModule>,
}

impl<'j> JitKernel<'j> {
    /// The kernel `name` of `jit`, which takes buffers shaped as `args` and has an outer loop of
    /// `outer` iterations.
    ///
    /// # Safety
    /// The caller promises that `name` has the [`KernelFn`] ABI and that for every
    /// `0 <= start <= end <= outer`, a call on `start..end` reads only the first
    /// `args[i].bytes` bytes of each buffer, writes only buffers with `writes`, never writes
    /// bytes that a call on a disjoint range reads or writes, and returns normally.
    pub unsafe fn new(
        jit: &'j JitModule,
        name: &str,
        args: Vec<ArgSpec>,
        outer: i64,
    ) -> Result<Self, CpuError> {
        // SAFETY: the ABI is the caller's promise.
        let entry: KernelFn = unsafe { jit.function(name)? };
        Ok(JitKernel {
            name: name.to_string(),
            entry,
            args,
            outer,
            _code: PhantomData,
        })
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The size of the kernel's outer loop.
    pub fn outer(&self) -> i64 {
        self.outer
    }

    /// Runs the whole outer loop on `pool`, in about four chunks per thread.
    pub fn run(&self, pool: &ThreadPool, args: &mut KernelArgs<'_>) -> Result<(), CpuError> {
        let chunks = (pool.threads() as i64 * 4).min(self.outer).max(1);
        self.run_range(pool, args, 0..self.outer, chunks as usize)
    }

    /// Runs outer iterations `range` on `pool`, split into `chunks` nearly equal parts.
    pub fn run_range(
        &self,
        pool: &ThreadPool,
        args: &mut KernelArgs<'_>,
        range: Range<i64>,
        chunks: usize,
    ) -> Result<(), CpuError> {
        self.check(args, &range)?;
        let len = range.end - range.start;
        if len == 0 {
            return Ok(());
        }
        let chunks = (chunks.max(1) as i64).min(len);
        let shared = SharedArgs(args.ptrs.as_ptr());
        let entry = self.entry;
        pool.parallel_for(chunks as usize, |chunk| {
            let chunk = chunk as i64;
            let start = range.start + len * chunk / chunks;
            let end = range.start + len * (chunk + 1) / chunks;
            let ptrs = &shared;
            // SAFETY: `check` verified the buffers against the signature, `start..end` lies in
            // `0..outer`, chunks are disjoint, and the buffers stay borrowed (through `args`)
            // until `parallel_for` returns; the rest is `JitKernel::new`'s contract.
            unsafe { entry(ptrs.0, start, end) };
        });
        Ok(())
    }

    fn check(&self, args: &KernelArgs<'_>, range: &Range<i64>) -> Result<(), CpuError> {
        let err = |message: String| CpuError::KernelArgs {
            kernel: self.name.clone(),
            message,
        };
        if args.len() != self.args.len() {
            return Err(err(format!(
                "takes {} buffers, got {}",
                self.args.len(),
                args.len()
            )));
        }
        for (i, spec) in self.args.iter().enumerate() {
            if args.lens[i] < spec.bytes {
                return Err(err(format!(
                    "buffer {i} has {} bytes, the kernel needs {}",
                    args.lens[i], spec.bytes
                )));
            }
            if spec.writes && !args.writable[i] {
                return Err(err(format!(
                    "buffer {i} is written by the kernel but was passed as an input"
                )));
            }
        }
        if range.start < 0 || range.start > range.end || range.end > self.outer {
            return Err(err(format!(
                "range {}..{} is not within the outer loop 0..{}",
                range.start, range.end, self.outer
            )));
        }
        Ok(())
    }
}
