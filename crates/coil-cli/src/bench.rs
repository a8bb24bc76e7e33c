//! `run-model --bench`: eager and compiled times (warm-up, then the median of repeated runs),
//! the model's minimum bytes, and achieved bandwidth against a copy measured in the same run.
//!
//! The reference copy on the host is STREAM's *scale* kernel (`b[i] = s * a[i]`, f32,
//! ordinary stores, on every thread): what a generated kernel that reads its input and writes
//! its output through the cache can reach. A `memcpy` of the same bytes is reported beside it:
//! glibc switches to non-temporal stores for large copies, which skip the read-for-ownership of
//! the destination and so move the same bytes faster; it is an upper bound, not the reference.
//! Both copies run interleaved with the model's timed runs (one of each per round), so all
//! three medians are taken over the same stretch of a machine whose bandwidth drifts.
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
    /// Host backends: the fastest of the interleaved runs and the fastest scale copy among
    /// them, `(ms, GB/s)`. On a machine shared with others, the best runs show what the code
    /// does when nothing else competes for memory; the medians what a user meets.
    pub(crate) best: Option<(f64, f64)>,
    /// Host backends: the median of runs back to back, with no copy between them. Where the
    /// last-level cache holds the model's bytes (the GPU machine's host has 300 MiB of L3),
    /// such runs find their inputs in it, as a benchmark that calls a model in a loop does;
    /// the interleaved copies evict them, so the medians above are memory's figures.
    pub(crate) back_to_back_ms: Option<f64>,
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
            "back_to_back_ms": self.back_to_back_ms,
            "best": self.best.map(|(ms, copy)| json!({
                "compiled_ms": ms,
                "copy_gbps": copy,
                "fraction_of_copy": self.min_bytes as f64 / (ms * 1e-3) / 1e9 / copy,
            })),
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
        if let Some((ms, copy)) = self.best {
            let gbps = self.min_bytes as f64 / (ms * 1e-3) / 1e9;
            rows.push((
                "best".into(),
                format!(
                    "{ms:.3} ms, {gbps:.1} GB/s = {:.0}% of the best copy ({copy:.1} GB/s) among the same runs",
                    100.0 * gbps / copy
                ),
            ));
        }
        if let Some(ms) = self.back_to_back_ms {
            rows.push((
                "back to back".into(),
                format!(
                    "{ms:.3} ms, {:.1} GB/s: the median of runs with no copy between them (inputs left in cache where it holds them)",
                    self.min_bytes as f64 / (ms * 1e-3) / 1e9
                ),
            ));
        }
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
    Ok(coil::median(times))
}

/// The bytes each copy moves: `bytes / 2` read and as many written (at least 1 MiB each way).
fn copy_half(bytes: usize) -> usize {
    (bytes / 2).max(1 << 20)
}

fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// The host's reference copies over arrays of `bytes / 2` bytes each, allocated and written
/// once (so no first-touch page fault is timed):
/// - STREAM's scale copy, `b[i] = s * a[i]` (f32), split over every thread, with ordinary
///   (cached) stores: each written line is read for ownership and written back, as a
///   generated kernel's stores are;
/// - a `memcpy` (`copy_from_slice`) split the same way; glibc's memcpy uses non-temporal stores
///   for copies this large.
struct HostCopies {
    a: Vec<f32>,
    b: Vec<f32>,
    src: Vec<u8>,
    dst: Vec<u8>,
}

impl HostCopies {
    fn new(bytes: usize) -> HostCopies {
        let half = copy_half(bytes);
        let mut c = HostCopies {
            a: vec![1.0f32; half / 4],
            b: vec![0.0f32; half / 4],
            src: vec![1u8; half],
            dst: vec![0u8; half],
        };
        c.scale();
        c.memcpy();
        c
    }

    /// Bytes one copy moves (read and written).
    fn moved(&self) -> usize {
        2 * self.src.len()
    }

    fn scale(&mut self) {
        let scale = std::hint::black_box(3.0f32);
        let chunk = self.a.len().div_ceil(threads()).next_multiple_of(16);
        std::thread::scope(|s| {
            for (dst, src) in self.b.chunks_mut(chunk).zip(self.a.chunks(chunk)) {
                s.spawn(move || {
                    for (d, x) in dst.iter_mut().zip(src) {
                        *d = scale * x;
                    }
                });
            }
        });
        std::hint::black_box(&mut self.b);
    }

    fn memcpy(&mut self) {
        let chunk = self.src.len().div_ceil(threads());
        std::thread::scope(|s| {
            for (d, c) in self.dst.chunks_mut(chunk).zip(self.src.chunks(chunk)) {
                s.spawn(move || d.copy_from_slice(c));
            }
        });
        std::hint::black_box(&mut self.dst);
    }
}

/// What [`host_interleaved`] measured: medians, and the fastest run and copy.
struct HostTimes {
    model_ms: f64,
    scale_gbps: f64,
    memcpy_gbps: f64,
    best_ms: f64,
    best_scale_gbps: f64,
    back_to_back_ms: f64,
}

/// Seconds one call of `f` takes.
fn seconds(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// The host backend's timings: `runs` rounds (after 3 warm-up calls), each one compiled run,
/// one scale copy and one memcpy, so the model and its reference see the same moments of a
/// machine whose bandwidth drifts; then `runs` compiled runs back to back.
fn host_interleaved(
    model: &coil::CompiledModel,
    runs: usize,
    min_bytes: usize,
) -> Result<HostTimes, String> {
    let run = || model.run_resident().map_err(|e| e.to_string());
    for _ in 0..3 {
        run()?;
    }
    let mut copies = HostCopies::new(min_bytes);
    let moved = copies.moved() as f64;
    let (mut model_ms, mut scale, mut memcpy) = (vec![], vec![], vec![]);
    for _ in 0..runs {
        let t = Instant::now();
        run()?;
        model_ms.push(t.elapsed().as_secs_f64() * 1e3);
        scale.push(moved / seconds(|| copies.scale()) / 1e9);
        memcpy.push(moved / seconds(|| copies.memcpy()) / 1e9);
    }
    let mut back_to_back = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        run()?;
        back_to_back.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(HostTimes {
        back_to_back_ms: coil::median(back_to_back),
        best_ms: model_ms.iter().copied().fold(f64::INFINITY, f64::min),
        best_scale_gbps: scale.iter().copied().fold(0.0, f64::max),
        model_ms: coil::median(model_ms),
        scale_gbps: coil::median(scale),
        memcpy_gbps: coil::median(memcpy),
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
    let mut best = None;
    let mut back_to_back_ms = None;
    let (compiled_ms, kernels, copy_gbps, memcpy_gbps, timer, copy_kind, host_call_ms) = match model
        .clock()
    {
        Some(clock) => {
            let host_call_ms =
                time_ms(3, runs, || model.run_resident().map_err(|e| e.to_string()))?;
            let bench = model
                .device_times(runs, BACK_TO_BACK)
                .map_err(|e| e.to_string())?
                .ok_or("the backend's device clock went away")?;
            let (ms, kernels) = (bench.run_ms, bench.launches);
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
                host_call_ms,
            )
        }
        None => {
            let t = host_interleaved(model, runs, min_bytes)?;
            best = Some((t.best_ms, t.best_scale_gbps));
            back_to_back_ms = Some(t.back_to_back_ms);
            (
                t.model_ms,
                Vec::new(),
                t.scale_gbps,
                Some(t.memcpy_gbps),
                "host clock",
                "scale copy b = s * a, f32, all threads, ordinary stores, interleaved with the runs",
                t.model_ms,
            )
        }
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
        best,
        back_to_back_ms,
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
    Ok(coil::median(times))
}

/// Runs timed together between two device events ([`coil::CompiledModel::device_times`]).
const BACK_TO_BACK: usize = 10;

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
