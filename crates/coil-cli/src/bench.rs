//! `run-model --bench`: eager and compiled times (warm-up, then the median of repeated runs),
//! the model's minimum bytes, and achieved bandwidth against a copy measured in the same run.
//!
//! The reference copy on the host is STREAM's *scale* kernel (`b[i] = s * a[i]`, f32,
//! ordinary stores, on every thread): what a generated kernel that reads its input and writes
//! its output through the cache can reach. A `memcpy` of the same bytes is reported beside it:
//! glibc switches to non-temporal stores for large copies, which skip the read-for-ownership of
//! the destination and so move the same bytes faster; it is an upper bound, not the reference.
//!
//! A backend with a device clock (CUDA) is timed on the device: CUDA events around runs
//! enqueued back to back, per-launch events in separate runs for per-kernel times, and a
//! device-to-device copy as the reference; the host time of one whole call (launches and
//! synchronisation) is reported beside them.

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
    /// A multithreaded `memcpy` of the same bytes (non-temporal stores at large sizes; host
    /// backends only).
    pub(crate) memcpy_gbps: Option<f64>,
    pub(crate) runs: usize,
    /// What timed the compiled model: `cuda events` or `host clock`.
    pub(crate) timer: &'static str,
    /// What the reference copy was (a device-to-device copy, or the host's scale copy).
    pub(crate) copy_kind: &'static str,
    /// Each launch's median device time (device clocks only), in launch order.
    pub(crate) kernels: Vec<(String, f64)>,
    /// Median host time of one whole call (launches and synchronisation), in microseconds.
    pub(crate) host_call_us: f64,
}

impl Bench {
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "eager_ms": self.eager_ms,
            "compiled_ms": self.compiled_ms,
            "min_bytes": self.min_bytes,
            "achieved_gbps": self.achieved_gbps,
            "copy_gbps": self.copy_gbps,
            "copy_kind": self.copy_kind,
            "memcpy_gbps": self.memcpy_gbps,
            "fraction_of_copy": self.achieved_gbps / self.copy_gbps,
            "fraction_of_memcpy": self.memcpy_gbps.map(|m| self.achieved_gbps / m),
            "speedup_vs_eager": self.eager_ms / self.compiled_ms,
            "runs": self.runs,
            "timer": self.timer,
            "host_call_us": self.host_call_us,
            "kernels": self.kernels.iter().map(|(name, ms)| json!({"name": name, "ms": ms}))
                .collect::<Vec<_>>(),
        })
    }

    pub(crate) fn rows(&self) -> Vec<(String, String)> {
        let mut rows = vec![
            (
                "bench".into(),
                format!(
                    "compiled {:.3} ms ({}), eager {:.3} ms ({:.1}x), median of {} runs",
                    self.compiled_ms,
                    self.timer,
                    self.eager_ms,
                    self.eager_ms / self.compiled_ms,
                    self.runs
                ),
            ),
            (
                "bandwidth".into(),
                format!(
                    "{:.1} GB/s over {} minimum bytes = {:.0}% of a {:.1} GB/s {} measured now",
                    self.achieved_gbps,
                    self.min_bytes,
                    100.0 * self.achieved_gbps / self.copy_gbps,
                    self.copy_gbps,
                    self.copy_kind
                ),
            ),
            (
                "call".into(),
                format!(
                    "{:.1} us per whole call on the host (launches + synchronisation)",
                    self.host_call_us
                ),
            ),
        ];
        if let Some(memcpy) = self.memcpy_gbps {
            rows.push((
                "memcpy".into(),
                format!(
                    "{memcpy:.1} GB/s (non-temporal stores; the model reaches {:.0}% of it)",
                    100.0 * self.achieved_gbps / memcpy
                ),
            ));
        }
        for (name, ms) in &self.kernels {
            rows.push(("  kernel".into(), format!("{:.1} us  {name}", ms * 1e3)));
        }
        rows
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
    let eager_ms = eager_ms(graph, inputs)?;
    model.write_inputs(inputs).map_err(|e| e.to_string())?;
    let runs = 21;
    let host_call_ms = time_ms(3, runs, || model.run_resident().map_err(|e| e.to_string()))?;
    let (compiled_ms, kernels, copy_gbps, memcpy_gbps, timer, copy_kind) = match model.clock() {
        Some(clock) => {
            let (ms, kernels) = device_ms(model, clock, runs)?;
            let copy = clock
                .copy_gbps((min_bytes / 2).max(1), runs)
                .map_err(|e| e.to_string())?;
            (
                ms,
                kernels,
                copy,
                None,
                "cuda events",
                "device-to-device copy",
            )
        }
        None => (
            host_call_ms,
            Vec::new(),
            scale_copy_gbps(min_bytes),
            Some(memcpy_gbps(min_bytes)),
            "host clock",
            "scale copy b = s * a, f32, all threads, ordinary stores",
        ),
    };
    Ok(Bench {
        eager_ms,
        compiled_ms,
        min_bytes,
        achieved_gbps: min_bytes as f64 / (compiled_ms * 1e-3) / 1e9,
        copy_gbps,
        memcpy_gbps,
        runs,
        timer,
        copy_kind,
        kernels,
        host_call_us: host_call_ms * 1e3,
    })
}

/// Eager's median time: at least one run after a warm-up, up to five while under about five
/// seconds in all (eager is slow at large sizes).
fn eager_ms(graph: &Graph, inputs: &[Tensor]) -> Result<f64, String> {
    let run = || -> Result<f64, String> {
        let t = Instant::now();
        coil_eager::run(graph, inputs).map_err(|e| e.to_string())?;
        Ok(t.elapsed().as_secs_f64() * 1e3)
    };
    let first = run()?;
    let mut times = vec![run()?];
    let mut spent = first + times[0];
    while times.len() < 5 && spent < 5000.0 {
        let ms = run()?;
        spent += ms;
        times.push(ms);
    }
    Ok(median(times))
}

/// Runs timed together between two events: the device time of one run in steady state (the
/// queue never runs dry, so no host launch gap counts), as a model runs inside a loop.
const BACK_TO_BACK: usize = 10;

/// The model's median device time per run (runs enqueued [`BACK_TO_BACK`] at a time between
/// two events, no host copies) over `runs` samples, and each launch's median from `runs`
/// further runs with per-launch events (kept apart so those events do not slow the
/// whole-model figure).
fn device_ms(
    model: &coil::CompiledModel,
    clock: &dyn coil::DeviceClock,
    runs: usize,
) -> Result<(f64, Vec<(String, f64)>), String> {
    let e = |e: coil_codegen::BackendError| e.to_string();
    let mut totals = Vec::with_capacity(runs);
    for _ in 0..runs {
        clock.start(false).map_err(e)?;
        for _ in 0..BACK_TO_BACK {
            model.enqueue().map_err(|e| e.to_string())?;
        }
        totals.push(clock.stop().map_err(e)?.total_ms / BACK_TO_BACK as f64);
    }
    let mut per_launch: Vec<(String, Vec<f64>)> = Vec::new();
    for _ in 0..runs {
        clock.start(true).map_err(e)?;
        model.enqueue().map_err(|e| e.to_string())?;
        let times = clock.stop().map_err(e)?;
        for (i, (name, ms)) in times.launches.into_iter().enumerate() {
            match per_launch.get_mut(i) {
                Some((_, v)) => v.push(ms),
                None => per_launch.push((name, vec![ms])),
            }
        }
    }
    Ok((
        median(totals),
        per_launch
            .into_iter()
            .map(|(name, v)| (name, median(v)))
            .collect(),
    ))
}

/// Each launch's device time in one run of the inputs already in memory (empty for a backend
/// without a device clock).
pub(crate) fn launch_times(model: &coil::CompiledModel) -> Result<Vec<(String, f64)>, String> {
    let Some(clock) = model.clock() else {
        return Ok(Vec::new());
    };
    clock.start(true).map_err(|e| e.to_string())?;
    model.enqueue().map_err(|e| e.to_string())?;
    Ok(clock.stop().map_err(|e| e.to_string())?.launches)
}
