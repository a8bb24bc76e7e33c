//! `run-model --bench`: eager and compiled times (warm-up, then the median of repeated runs),
//! the model's minimum bytes, and achieved bandwidth against a copy measured in the same run.

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
                    "{:.1} GB/s over {} minimum bytes = {:.0}% of a {:.1} GB/s copy measured now",
                    self.achieved_gbps,
                    self.min_bytes,
                    100.0 * self.achieved_gbps / self.copy_gbps,
                    self.copy_gbps
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
    let eager_ms = time_ms(1, 5, || {
        coil_eager::run(graph, inputs)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })?;
    model.write_inputs(inputs).map_err(|e| e.to_string())?;
    let runs = 21;
    let compiled_ms = time_ms(3, runs, || model.run_resident().map_err(|e| e.to_string()))?;
    let copy = copy_gbps(min_bytes);
    Ok(Bench {
        eager_ms,
        compiled_ms,
        min_bytes,
        achieved_gbps: min_bytes as f64 / (compiled_ms * 1e-3) / 1e9,
        copy_gbps: copy,
        runs,
    })
}
