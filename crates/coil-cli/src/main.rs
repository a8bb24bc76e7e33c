//! `coil`: the command-line face of coil. `coil run-model <NAME | FILE.py>` loads a model, runs
//! it on a backend, checks it against reference outputs when it has them, and reports.
//! Usually started through `cargo xtask run-model`, which sets things up first.

#![allow(clippy::print_stdout, clippy::print_stderr)]
#![recursion_limit = "256"]

mod bench;
mod inputs;
mod report;
mod run_model;

use std::process::ExitCode;

const HELP: &str = "\
coil run-model <NAME | FILE.py> [options]
coil cache path|stats|clear

Runs a model of the zoo (by name) or a readable-FX file, and reports what it did.

options:
  --size article|tiny|large   zoo size (default: article; tiny uses PyTorch's inputs and
                              checks against PyTorch's outputs)
  --dtype f32|bf16|f16        run in this float dtype: with --size tiny the zoo's 16-bit export
                              (PyTorch's 16-bit outputs, checked with PyTorch's tolerance for the
                              dtype or float64's rule); otherwise the graph's f32 cast to it
  --emulate-precision-casts   round 16-bit floats after every op, as eager does (default: f32
                              inside a kernel, one rounding per store, as Inductor)
  --matmul16 library|widen    16-bit CPU matmuls through oneDNN's matmul (the default where it
                              has a kernel) or widened to f32 for gemm
  --matmul32 library|gemm|openblas
                              f32 CPU matmuls through oneDNN's matmul (the default where it
                              loads), the gemm crate, or OpenBLAS's sgemm (libopenblas.so.0)
  --epilogue library|kernel   a CPU matmul's pointwise consumers (bias, residual add, scale,
                              relu, gelu, ...) as oneDNN post-ops inside the call (the
                              default, f32 and bf16) or as kernels of their own
  --inputs FILE.safetensors   input.<arg> tensors (and, if present, output.<i> to check against);
                              without it, inputs are random from a fixed seed. A graph file
                              with symbolic sizes (as PyTorch prints a dynamic graph: s0,
                              Sym(s0)) needs it: its tensors' sizes bind the symbols, and
                              the graph compiles for that binding. Several files, comma-
                              separated (a.safetensors,b.safetensors): one backend compiles
                              the graph for each file's sizes (a later size runs the CPU
                              machine code an earlier one made where a kernel's code does
                              not change), beside a static compile of each size alone;
                              per size the compile times, kernels reused, time a call and
                              the check against coil-eager
  --seed N                    seed for random inputs (default 0)
  --threads N                 CPU threads (default 0: every core)
  --backend cpu|cuda|eager    where to run (default cpu: LLVM kernels; cuda: PTX on an NVIDIA
                              GPU through the driver; eager is the reference interpreter)
  --bench                     time eager and compiled (median of repeated runs, inputs resident),
                              report GB/s against a copy measured in the same run
  --policy P                  fusion: inductor (default), inductor-regpressure, tvm, none
  --loops cpp|simd            loop rules the scheduler asks (default cpp, with the CPU's
                              realize rules; simd uses the GPU's)
  --conv library|im2col       convolutions as one library call each (oneDNN's libdnnl.so.2
                              on the CPU, cuDNN on the GPU) or as im2col and a matmul; by
                              default what measured faster: on the CPU oneDNN, but im2col
                              for small ungrouped f32 ones; im2col on the GPU
  --compile-only              compile, run nothing: report kernels, bytes and compile times
                              (with --backend cuda, renders the PTX with no GPU present)
  --passes SWITCHES           e.g. -decompose,-fold (passes: decompose fold algebra views noop dce)
  --debug-dir DIR             write fx_graph_readable.py, fx_graph_transformed.py,
                              ir_pre_fusion.txt, ir_post_fusion.txt, fusion.log, graph.dot
                              (and graph.svg when Graphviz's dot is installed), kernels.txt and
                              output_code.ll / output_code.ptx there
  --json                      print one JSON object instead of the table (also on failure:
                              ok false and the error)
  --max-memory SIZE           the most memory the inputs, any one eager op and the compiled
                              model may take, checked before allocating (e.g. 8G, 512M;
                              default three quarters of the machine's memory)
  --rtol X / --atol X         tolerance of the output check (default 1e-4 / 1e-5)
  --no-cache                  compile without the persistent compile cache (COIL_CACHE=0)

coil cache path|stats|clear   where the compile cache is, what it holds, empty it

environment:
  COIL_CACHE_DIR=DIR          the compile cache (default $XDG_CACHE_HOME/coil or ~/.cache/coil)
  COIL_CACHE=0                compile without it
  COIL_CACHE_MAX_MB=N         its size cap (default 1024; least recently used entries go)
  COIL_LOGS=passes,...        log these stages (tracing targets) to stderr; +name for trace level
  COIL_DEBUG_DIR=DIR          the debug directory when --debug-dir is not given

models: ";

/// Maps `COIL_LOGS=passes,fusion` (like `TORCH_LOGS`) to tracing targets at debug level, or
/// `COIL_LOGS=+passes` for trace level; logs go to stderr.
fn init_logging() {
    let Ok(spec) = std::env::var("COIL_LOGS") else {
        // Without COIL_LOGS, only the compile cache's warnings (a corrupt entry, a directory
        // that cannot be written).
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new("cache=warn"))
            .with_writer(std::io::stderr)
            .with_target(true)
            .init();
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_new(coil::log_directives(&spec))
        .unwrap_or_else(|e| {
            eprintln!("coil: ignoring COIL_LOGS={spec}: {e}");
            tracing_subscriber::EnvFilter::new("off")
        });
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(true)
        .init();
}

/// With `COIL_CPU_THREADS=own` (kernels on coil's own pool rather than on the team of the
/// libgomp oneDNN loads, the default), OpenMP's worker threads (oneDNN's, through libgomp) spin
/// only briefly after a parallel region unless the user says otherwise. By default libgomp's
/// workers spin for milliseconds, on the
/// cores coil's own pool needs next: on a 2-core machine hf_gpt2's call took 2-5 ms instead of
/// 0.16 ms (a pool worker time-sliced against a spinning one). Passive waiting cured that but
/// made convolution models 20-60% slower (every oneDNN call woke its workers); 1,000 spins keeps
/// both within 25% of their best (`docs/perf.md`, 2026-12-06 session 7). Set before any thread
/// starts and before oneDNN (and the libgomp it brings) is loaded, which reads it once.
fn short_openmp_spins() {
    // Kernels on libgomp's own team (the default) want its threads awake between calls.
    let own_pool = std::env::var("COIL_CPU_THREADS").as_deref() == Ok("own");
    if own_pool
        && std::env::var_os("OMP_WAIT_POLICY").is_none()
        && std::env::var_os("GOMP_SPINCOUNT").is_none()
    {
        // SAFETY: called first thing in `main`, while this process has one thread.
        unsafe { std::env::set_var("GOMP_SPINCOUNT", "1000") };
    }
}

fn main() -> ExitCode {
    short_openmp_spins();
    // LLVM's own options for the CPU backend (space-separated; for measuring).
    if let Ok(text) = std::env::var("COIL_LLVM_ARGS") {
        coil_cpu::set_llvm_args(text.split_whitespace().map(str::to_string).collect());
    }
    init_logging();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run-model") => run_model::main(&args[1..]),
        Some("cache") => cache(&args[1..]),
        Some("help" | "--help" | "-h") | None => {
            println!(
                "{HELP}{}\nreal models (PyTorch's inputs and outputs; checked): {}",
                coil_models::names().collect::<Vec<_>>().join(", "),
                coil_models::REAL_MODELS
                    .iter()
                    .map(|m| m.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("coil: unknown command '{other}' (try `coil --help`)");
            ExitCode::from(2)
        }
    }
}

/// `coil cache path|stats|clear`.
fn cache(args: &[String]) -> ExitCode {
    let cache = coil_cache::Cache::from_env();
    let Some(dir) = cache.dir().map(|d| d.display().to_string()) else {
        println!("the compile cache is off (COIL_CACHE=0, or no home directory)");
        return ExitCode::SUCCESS;
    };
    match args.first().map(String::as_str) {
        Some("path") => println!("{dir}"),
        Some("stats") => {
            let s = cache.stats();
            println!(
                "{dir}: {} entries, {:.1} MB of {:.0} MB",
                s.entries,
                s.bytes as f64 / 1e6,
                s.cap_bytes as f64 / 1e6
            );
        }
        Some("clear") => println!("{dir}: removed {} entries", cache.clear()),
        _ => {
            eprintln!("coil: usage: coil cache path|stats|clear");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
