//! `run-model --bench`: eager and compiled times (warm-up, then the median of repeated runs),
//! the model's minimum bytes, and achieved bandwidth against a copy measured in the same run.
//!
//! The reference copy is STREAM's *scale* kernel (`b[i] = s * a[i]`, f32, ordinary stores, on
//! every thread): what a generated kernel that reads its input and writes its output through
//! the cache can reach. A `memcpy` of the same bytes is reported beside it: glibc switches to
//! non-temporal stores for large copies, which skip the read-for-ownership of the destination
//! and so move the same bytes faster; it is an upper bound, not the reference.

use std::time::Instant;

use coil_graph::{Graph, Tensor};
use serde_json::{Value, json};

/// What `--bench` measured.
#[derive(Clone, Debug)]
pub(crate) struct Bench {
    pub(crate) eager_ms: f64,
    pub(crate) compiled_ms: f64,
    pub(crate) min_bytes: usize,
    pub(crate) achieved_gbps: f64,
    /// The scale copy's bandwidth (the reference the 80% target is against).
    pub(crate) copy_gbps: f64,
    /// A multithreaded `memcpy` of the same bytes (non-temporal stores at large sizes).
    pub(crate) memcpy_gbps: f64,
    pub(crate) runs: usize,
}

impl Bench {
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "eager_ms": self.eager_ms,
            "compiled_ms": self.compiled_ms,
            "min_bytes": self.min_bytes,
            "achieved_gbps": self.achieved_gbps,
            "copy_gbps": self.copy_gbps,
            "copy_kind": "scale copy b = s * a, f32, all threads, ordinary stores",
            "memcpy_gbps": self.memcpy_gbps,
            "fraction_of_copy": self.achieved_gbps / self.copy_gbps,
            "fraction_of_memcpy": self.achieved_gbps / self.memcpy_gbps,
            "speedup_vs_eager": self.eager_ms / self.compiled_ms,
            "runs": self.runs,
        })
    }

    pub(crate) fn rows(&self) -> Vec<(String, String)> {
        vec![
            (
                "bench".into(),
                format!(
                    "compiled {:.3} ms, eager {:.3} ms ({:.1}x), median of {} runs",
                    self.compiled_ms,
                    self.eager_ms,
                    self.eager_ms / self.compiled_ms,
                    self.runs
                ),
            ),
            (
                "bandwidth".into(),
                format!(
                    "{:.1} GB/s over {} minimum bytes = {:.0}% of a {:.1} GB/s scale copy \
                     measured now",
                    self.achieved_gbps,
                    self.min_bytes,
                    100.0 * self.achieved_gbps / self.copy_gbps,
                    self.copy_gbps
                ),
            ),
            (
                "memcpy".into(),
                format!(
                    "{:.1} GB/s (non-temporal stores; the model reaches {:.0}% of it)",
                    self.memcpy_gbps,
                    100.0 * self.achieved_gbps / self.memcpy_gbps
                ),
            ),
        ]
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times `f` `runs` times after `warmup` calls; the median in milliseconds.
fn time_ms(
    warmup: usize,
    runs: usize,
    mut f: impl FnMut() -> Result<(), String>,
) -> Result<f64, String> {
    for _ in 0..warmup {
        f()?;
    }
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        f()?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(times))
}

/// How many timed runs each copy's median is taken over (after one warm-up run).
const COPY_RUNS: usize = 9;

/// The bytes each copy moves: `bytes / 2` read and as many written (at least 1 MiB each way).
fn copy_half(bytes: usize) -> usize {
    (bytes / 2).max(1 << 20)
}

fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// Runs `run` once to warm up (which also touches every page), then `COPY_RUNS` times; the
/// bandwidth of the median run for `moved` bytes.
fn median_gbps(moved: usize, mut run: impl FnMut()) -> f64 {
    run();
    let mut times = Vec::with_capacity(COPY_RUNS);
    for _ in 0..COPY_RUNS {
        let t = Instant::now();
        run();
        times.push(t.elapsed().as_secs_f64());
    }
    moved as f64 / median(times) / 1e9
}

/// STREAM's scale copy, `b[i] = s * a[i]` over f32 arrays of `bytes / 2` bytes each, split
/// over every thread, with ordinary (cached) stores: each written line is read for ownership
/// and written back, as a generated kernel's stores are. Both arrays are written before timing
/// (`a` by its initialisation, `b` by the warm-up run), so no first-touch page fault is timed.
pub(crate) fn scale_copy_gbps(bytes: usize) -> f64 {
    let n = copy_half(bytes) / 4;
    let a = vec![1.0f32; n];
    let mut b = vec![0.0f32; n];
    let scale = std::hint::black_box(3.0f32);
    let chunk = n.div_ceil(threads()).next_multiple_of(16);
    let moved = 2 * 4 * n;
    median_gbps(moved, || {
        std::thread::scope(|s| {
            for (dst, src) in b.chunks_mut(chunk).zip(a.chunks(chunk)) {
                s.spawn(move || {
                    for (d, x) in dst.iter_mut().zip(src) {
                        *d = scale * x;
                    }
                });
            }
        });
        std::hint::black_box(&mut b);
    })
}

/// A `memcpy` (`copy_from_slice`) of `bytes / 2` bytes split over every thread, into memory
/// touched beforehand. glibc's memcpy uses non-temporal stores for copies this large.
pub(crate) fn memcpy_gbps(bytes: usize) -> f64 {
    let half = copy_half(bytes);
    let src = vec![1u8; half];
    let mut dst = vec![0u8; half];
    let chunk = half.div_ceil(threads());
    median_gbps(2 * half, || {
        std::thread::scope(|s| {
            for (d, c) in dst.chunks_mut(chunk).zip(src.chunks(chunk)) {
                s.spawn(move || d.copy_from_slice(c));
            }
        });
        std::hint::black_box(&mut dst);
    })
}

/// Benchmarks eager and the compiled model on the same inputs. The compiled model runs on its
/// own memory with the inputs already there (no host copies), and its buffers, allocated once
/// by the first run, are written by the warm-up runs before any timed run (no first-touch page
/// faults are timed).
pub(crate) fn measure(
    model: &coil::CompiledModel,
    graph: &Graph,
    inputs: &[Tensor],
    quiet: bool,
) -> Result<Bench, String> {
    if !quiet {
        eprintln!("coil run-model: benchmarking (eager, compiled, copy) ...");
    }
    let min_bytes = model.min_bytes();
    let eager_ms = time_ms(1, 5, || {
        coil_eager::run(graph, inputs)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })?;
    model.write_inputs(inputs).map_err(|e| e.to_string())?;
    let runs = 21;
    let compiled_ms = time_ms(3, runs, || model.run_resident().map_err(|e| e.to_string()))?;
    let copy_gbps = scale_copy_gbps(min_bytes);
    let memcpy_gbps = memcpy_gbps(min_bytes);
    Ok(Bench {
        eager_ms,
        compiled_ms,
        min_bytes,
        achieved_gbps: min_bytes as f64 / (compiled_ms * 1e-3) / 1e9,
        copy_gbps,
        memcpy_gbps,
        runs,
    })
}
