//! `run-model GRAPH.py --inputs a.safetensors,b.safetensors,...` for a graph with symbolic
//! sizes (issue "Dynamic shapes"): the graph compiled for each file's sizes by one backend, so
//! that a later size runs the machine code an earlier one made wherever a kernel's code does
//! not change with the size (the CPU's code pool), beside a static compile of each size on a
//! backend of its own that shares nothing. Per size: the binding, both compiles' times, the
//! kernels reused, both models' time a call, and the check against coil-eager's outputs (or
//! the file's `output.N` tensors). The compile cache is off for both, so each compile is cold.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use coil_graph::Tensor;
use serde_json::{Value, json};

use super::{Backend, Options, backends};
use crate::report::compare;

/// The pause before each timed compile.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(300);

/// One size's results.
struct Row {
    binding: String,
    ok: bool,
    max_abs_err: f64,
    kernels: usize,
    kernels_reused: usize,
    shared_compile_ms: f64,
    static_compile_ms: f64,
    /// Milliseconds of LLVM code generation within each (summed over threads).
    shared_jit_ms: f64,
    static_jit_ms: f64,
    shared_call_ms: f64,
    static_call_ms: f64,
}

/// Whether `opts` asks for this mode: a file with symbolic sizes and several inputs files.
pub(super) fn wanted(opts: &Options) -> bool {
    opts.inputs
        .as_ref()
        .is_some_and(|p| p.to_string_lossy().contains(','))
}

/// Runs the mode; prints a table (or JSON) and returns whether every size matched.
pub(super) fn run(opts: &Options) -> Result<bool, String> {
    if opts.backend == Backend::Eager {
        return Err("several --inputs files compare compiles: give --backend cpu or cuda".into());
    }
    if !(opts.model.ends_with(".py") || opts.model.contains('/')) {
        return Err(format!(
            "{}: several --inputs files are for a graph file with symbolic sizes",
            opts.model
        ));
    }
    let path = PathBuf::from(&opts.model);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !coil_graph::is_symbolic(&text) {
        return Err(format!(
            "{}: several --inputs files are for a graph with symbolic sizes; this one has none",
            path.display()
        ));
    }
    let files: Vec<PathBuf> = opts
        .inputs
        .as_ref()
        .map(|p| p.to_string_lossy().split(',').map(PathBuf::from).collect())
        .unwrap_or_default();
    let off = Arc::new(coil_cache::Cache::off());
    // One backend for every size: its compiles share machine code.
    let shared = backends::make_backend(opts, off.clone())?;
    let mut options = coil::Options::with_strategy(&opts.policy).map_err(|e| e.to_string())?;
    options.cache = Some(off.clone());
    options.passes = opts.passes.clone();
    options.max_memory = Some(opts.max_memory);
    let mut rows = Vec::new();
    for file in &files {
        let crate::inputs::BoundGraph {
            graph,
            tensors,
            bindings,
            ..
        } = crate::inputs::parse_symbolic(&text, &opts.model, Some(file.as_path()))?;
        let binding = bindings.to_string();
        let (inputs, expected) = coil_models::split_io(&graph, &tensors)
            .map_err(|e| format!("{}: {e}", file.display()))?;
        let want = match expected {
            Some(e) => e,
            None => {
                coil_eager::run_within(&graph, &inputs, opts.max_memory)
                    .map_err(|e| e.to_string())?
                    .outputs
            }
        };
        // Each compile after a short pause, so that neither follows other work on its cores.
        std::thread::sleep(SETTLE);
        let clock = Instant::now();
        let model = coil::compile(&graph, shared.clone(), &options).map_err(|e| e.to_string())?;
        let shared_compile_ms = clock.elapsed().as_secs_f64() * 1e3;
        // A static compile of this size alone: a backend of its own, making all of its code.
        let alone_backend = backends::make_backend(&alone(opts), off.clone())?;
        std::thread::sleep(SETTLE);
        let clock = Instant::now();
        let alone_model =
            coil::compile(&graph, alone_backend, &options).map_err(|e| e.to_string())?;
        let static_compile_ms = clock.elapsed().as_secs_f64() * 1e3;
        let got = model.run(&inputs).map_err(|e| e.to_string())?;
        let check = compare(&got, &want, opts.rtol, opts.atol)?;
        let (shared_call_ms, static_call_ms) = call_times(&model, &alone_model, &inputs)?;
        rows.push(Row {
            binding,
            ok: check.ok,
            max_abs_err: check.max_abs_err,
            kernels: model.report.num_kernels,
            kernels_reused: model.report.machine_code.reused_kernels,
            shared_compile_ms,
            static_compile_ms,
            shared_jit_ms: model.report.machine_code.jit_ms(),
            static_jit_ms: alone_model.report.machine_code.jit_ms(),
            shared_call_ms,
            static_call_ms,
        });
    }
    let ok = rows.iter().all(|r| r.ok);
    if opts.json {
        let v = json!({
            "model": opts.model,
            "backend": opts.backend.name(),
            "ok": ok,
            "sizes": rows.iter().map(Row::to_json).collect::<Vec<Value>>(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&v).expect("report serializes")
        );
    } else {
        print!("{}", table(opts, &rows));
    }
    Ok(ok)
}

/// `opts` for the static compiles: a backend that makes all of its own code.
fn alone(opts: &Options) -> Options {
    Options {
        every_size: true,
        ..opts.clone()
    }
}

/// Each model's median time a call (host tensors in and out), interleaved: five rounds of
/// calls for about 20 ms each, after a warm-up.
fn call_times(
    a: &coil::CompiledModel,
    b: &coil::CompiledModel,
    inputs: &[Tensor],
) -> Result<(f64, f64), String> {
    let time = |m: &coil::CompiledModel| -> Result<f64, String> {
        let clock = Instant::now();
        m.run(inputs).map_err(|e| e.to_string())?;
        Ok(clock.elapsed().as_secs_f64() * 1e3)
    };
    for _ in 0..3 {
        time(a)?;
        time(b)?;
    }
    let once = time(a)?.max(1e-3);
    let calls = ((20.0 / once) as usize).clamp(3, 200);
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        for _ in 0..calls {
            ta.push(time(a)?);
            tb.push(time(b)?);
        }
    }
    Ok((coil::median(ta), coil::median(tb)))
}

impl Row {
    fn to_json(&self) -> Value {
        json!({
            "binding": self.binding,
            "ok": self.ok,
            "max_abs_err": self.max_abs_err,
            "kernels": self.kernels,
            "kernels_reused": self.kernels_reused,
            "shared_compile_ms": self.shared_compile_ms,
            "static_compile_ms": self.static_compile_ms,
            "shared_jit_ms": self.shared_jit_ms,
            "static_jit_ms": self.static_jit_ms,
            "shared_call_ms": self.shared_call_ms,
            "static_call_ms": self.static_call_ms,
        })
    }
}

fn table(opts: &Options, rows: &[Row]) -> String {
    let mut out = format!(
        "{} on {}: one backend for every size (machine code shared) against a static compile \
         of each size alone, compile cache off\n",
        opts.model,
        opts.backend.name()
    );
    out.push_str(
        "sizes              ok   kernels  reused  compile ms (shared / alone)  call ms (shared / alone)\n",
    );
    for r in rows {
        out.push_str(&format!(
            "{:<18} {:<4} {:>7}  {:>6}  {:>12.1} / {:<12.1}  {:>9.4} / {:.4}\n",
            r.binding,
            if r.ok { "yes" } else { "NO" },
            r.kernels,
            r.kernels_reused,
            r.shared_compile_ms,
            r.static_compile_ms,
            r.shared_call_ms,
            r.static_call_ms
        ));
    }
    out
}
