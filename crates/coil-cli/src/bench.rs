//! `run-model --bench`: eager and compiled times (warm-up, then the median of repeated runs),
//! the model's minimum bytes, and achieved bandwidth against a copy measured in the same run.
//!
//! A backend with a device clock (CUDA) is timed on the device: CUDA events around the whole
//! model (first launch to last), per-launch events in separate runs for per-kernel times, and a
//! device-to-device copy as the reference; the host time of one whole call (launches and
//! synchronisation) is reported beside them. A host backend is timed with the host clock.

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
    pub(crate) copy_gbps: f64,
    pub(crate) runs: usize,
    /// What timed the compiled model: `cuda events` or `host clock`.
    pub(crate) timer: &'static str,
    /// What the copy was: `device-to-device` or the host's.
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
            "fraction_of_copy": self.achieved_gbps / self.copy_gbps,
            "speedup_vs_eager": self.eager_ms / self.compiled_ms,
            "runs": self.runs,
            "timer": self.timer,
            "copy": self.copy_kind,
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
                    "{:.1} GB/s over {} minimum bytes = {:.0}% of a {:.1} GB/s {} copy measured now",
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

/// A parallel host copy of `bytes / 2` bytes each way (read + write = `bytes`), on as many
/// threads as the machine has, into memory touched beforehand.
fn copy_gbps(bytes: usize) -> f64 {
    let half = (bytes / 2).max(1 << 20);
    let src = vec![1u8; half];
    let mut dst = vec![0u8; half];
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let chunk = half.div_ceil(threads);
    let mut run = || {
        std::thread::scope(|s| {
            for (d, c) in dst.chunks_mut(chunk).zip(src.chunks(chunk)) {
                s.spawn(move || d.copy_from_slice(c));
            }
        });
    };
    run();
    let ms = {
        let mut times = Vec::new();
        for _ in 0..7 {
            let t = Instant::now();
            run();
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        median(times)
    };
    (2 * half) as f64 / (ms * 1e-3) / 1e9
}

/// Benchmarks eager and the compiled model on the same inputs. The compiled model runs on its
/// own memory with the inputs already there (no host copies, no first-touch page faults).
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
    let (compiled_ms, kernels, copy, timer, copy_kind) = match model.clock() {
        Some(clock) => {
            let (ms, kernels) = device_ms(model, clock, runs)?;
            let copy = clock
                .copy_gbps((min_bytes / 2).max(1), runs)
                .map_err(|e| e.to_string())?;
            (ms, kernels, copy, "cuda events", "device-to-device")
        }
        None => (
            host_call_ms,
            Vec::new(),
            copy_gbps(min_bytes),
            "host clock",
            "host",
        ),
    };
    Ok(Bench {
        eager_ms,
        compiled_ms,
        min_bytes,
        achieved_gbps: min_bytes as f64 / (compiled_ms * 1e-3) / 1e9,
        copy_gbps: copy,
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
