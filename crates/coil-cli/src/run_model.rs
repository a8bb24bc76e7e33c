//! `coil run-model`: option parsing, model and input resolution, running, checking.

mod backends;
mod sizes;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use coil_graph::{DType, Graph, Tensor};
use coil_models::Size;

use crate::inputs::{in_dtype, parse_symbolic, random_inputs};
use crate::report::{Comparison, Report, compare};

/// Parsed command-line options.
#[derive(Clone, Debug)]
struct Options {
    model: String,
    size: Size,
    inputs: Option<PathBuf>,
    seed: u64,
    /// `--threads N`: the CPU backend's threads (0: every core).
    threads: usize,
    backend: Backend,
    json: bool,
    /// `--no-cache`: compile without the persistent compile cache.
    no_cache: bool,
    rtol: f64,
    atol: f64,
    /// Whether `--rtol` or `--atol` was given (else a 16-bit run takes PyTorch's tolerance).
    tolerance_given: bool,
    /// `--dtype bf16|f16|f32`: the float dtype to run in (the zoo's 16-bit tiny models with
    /// PyTorch's outputs at `--size tiny`; elsewhere the graph's f32 replaced).
    dtype: Option<DType>,
    /// `--emulate-precision-casts`: 16-bit floats rounded after every op, as eager rounds.
    emulate_precision_casts: bool,
    passes: coil_passes::PassConfig,
    debug_dir: Option<PathBuf>,
    /// A built-in strategy's name (checked at parse time).
    policy: String,
    /// Loop rules asked for with `--loops`; `None` takes the backend's.
    loops: Option<Loops>,
    compile_only: bool,
    /// `--conv`: convolutions as a library call (`Some(true)`), as im2col and a matmul
    /// (`Some(false)`), or as the backend chooses (`None`: oneDNN on the CPU, im2col on the
    /// GPU, each by measurement).
    conv_library: Option<bool>,
    /// `--matmul16 widen`: 16-bit CPU matmuls widened to f32 for gemm rather than oneDNN's.
    widen_16bit_matmul: bool,
    /// `--matmul32 gemm`: f32 CPU matmuls through the gemm crate rather than oneDNN's matmul.
    gemm_f32_matmul: bool,
    /// `--matmul32 openblas`: f32 CPU matmuls through OpenBLAS's sgemm.
    openblas_f32_matmul: bool,
    /// `--epilogue kernel`: a matmul's pointwise consumers as kernels of their own rather
    /// than oneDNN post-ops.
    unfused_epilogues: bool,
    bench: bool,
    /// The most bytes inputs, eager's ops and the compiled model's memory may each take.
    max_memory: usize,
    /// The CPU backend makes all of its machine code in every compile (the static compiles
    /// several `--inputs` files are measured against: `sizes`).
    every_size: bool,
}

/// Loop rules asked for on the command line (`--loops`), with the lowering's realize rules
/// and the scheduler's config that go with them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loops {
    Cpp,
    Simd,
}

impl Loops {
    /// These rules as facade options.
    fn apply(self, options: &mut coil::Options) {
        let (rules, lower, sched): (
            std::sync::Arc<dyn coil_sched::LoopCompat>,
            coil_lower::LowerConfig,
            coil_sched::SchedConfig,
        ) = match self {
            Loops::Cpp => (
                std::sync::Arc::new(coil_sched::CppLoops),
                coil_lower::LowerConfig::cpu(),
                coil_sched::SchedConfig::cpu(),
            ),
            Loops::Simd => (
                std::sync::Arc::new(coil_sched::SimdLoops),
                coil_lower::LowerConfig::gpu(),
                coil_sched::SchedConfig::gpu(),
            ),
        };
        options.loops = Some(rules);
        options.lower = Some(lower);
        options.sched = Some(sched);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    /// The reference interpreter.
    Eager,
    /// LLVM on the host CPU.
    Cpu,
    /// PTX on an NVIDIA GPU (with `--compile-only`, no GPU needed).
    Cuda,
}

impl Backend {
    fn name(self) -> &'static str {
        match self {
            Backend::Eager => "eager",
            Backend::Cpu => "cpu",
            Backend::Cuda => "cuda",
        }
    }
}

/// Three quarters of the machine's memory (`MemTotal` of `/proc/meminfo`), or no limit where
/// that cannot be read.
fn default_memory_budget() -> usize {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib.saturating_mul(1024) / 4 * 3)
        })
        .unwrap_or(usize::MAX)
}

/// `--max-memory`'s value: bytes, or a number with `K`, `M`, `G` or `T` (powers of 1024;
/// `GiB`, `GB` and `G` alike).
fn parse_bytes(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("--max-memory: '{s}' is not a size (e.g. 8G, 512M, 1000000)"))?;
    let scale: f64 = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches(['B', 'I'])
    {
        "" => 1.0,
        "K" => 1024.0,
        "M" => 1024.0 * 1024.0,
        "G" => 1024.0 * 1024.0 * 1024.0,
        "T" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(format!(
                "--max-memory: unknown unit in '{s}' (K, M, G or T)"
            ));
        }
    };
    Ok((n * scale) as usize)
}

/// `name` when it names a built-in fusion strategy.
fn strategy_name(name: &str) -> Result<String, String> {
    coil::builtin_strategy(name)
        .map(|_| name.to_string())
        .map_err(|e| {
            e.to_string()
                .replace("unknown fusion strategy", "unknown policy")
        })
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut opts = Options {
        model: String::new(),
        size: Size::Article,
        inputs: None,
        seed: 0,
        threads: 0,
        backend: Backend::Cpu,
        json: false,
        no_cache: false,
        rtol: 1e-4,
        atol: 1e-5,
        tolerance_given: false,
        dtype: None,
        emulate_precision_casts: false,
        passes: coil_passes::PassConfig::default(),
        debug_dir: None,
        policy: "inductor".into(),
        loops: None,
        compile_only: false,
        conv_library: None,
        widen_16bit_matmul: false,
        gemm_f32_matmul: false,
        openblas_f32_matmul: false,
        unfused_epilogues: false,
        bench: false,
        max_memory: default_memory_budget(),
        every_size: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match a.as_str() {
            "--size" => {
                opts.size = match value("--size")?.as_str() {
                    "article" => Size::Article,
                    "tiny" => Size::Tiny,
                    "large" => Size::Large,
                    s => return Err(format!("unknown size '{s}' (article, tiny or large)")),
                }
            }
            "--inputs" => opts.inputs = Some(PathBuf::from(value("--inputs")?)),
            "--threads" => {
                opts.threads = value("--threads")?
                    .parse()
                    .map_err(|e| format!("--threads: {e}"))?
            }
            "--seed" => {
                opts.seed = value("--seed")?
                    .parse()
                    .map_err(|e| format!("--seed: {e}"))?
            }
            "--backend" => {
                opts.backend = match value("--backend")?.as_str() {
                    "eager" => Backend::Eager,
                    "cpu" => Backend::Cpu,
                    "cuda" => Backend::Cuda,
                    b => return Err(format!("unknown backend '{b}' (cpu, cuda, eager)")),
                }
            }
            "--json" => opts.json = true,
            "--no-cache" => opts.no_cache = true,
            "--epilogue" => {
                opts.unfused_epilogues = match value("--epilogue")?.as_str() {
                    "library" => false,
                    "kernel" => true,
                    m => return Err(format!("unknown --epilogue '{m}' (library or kernel)")),
                }
            }
            "--matmul32" => {
                (opts.gemm_f32_matmul, opts.openblas_f32_matmul) =
                    match value("--matmul32")?.as_str() {
                        "library" => (false, false),
                        "gemm" => (true, false),
                        "openblas" => {
                            coil_cpu::openblas_status()?;
                            (false, true)
                        }
                        m => {
                            return Err(format!(
                                "unknown --matmul32 '{m}' (library, gemm or openblas)"
                            ));
                        }
                    }
            }
            "--matmul16" => {
                opts.widen_16bit_matmul = match value("--matmul16")?.as_str() {
                    "library" => false,
                    "widen" => true,
                    m => return Err(format!("unknown --matmul16 '{m}' (library or widen)")),
                }
            }
            "--emulate-precision-casts" => opts.emulate_precision_casts = true,
            "--max-memory" => opts.max_memory = parse_bytes(&value("--max-memory")?)?,
            "--compile-only" => opts.compile_only = true,
            "--conv" => {
                opts.conv_library = match value("--conv")?.as_str() {
                    "library" => Some(true),
                    "im2col" => Some(false),
                    other => return Err(format!("--conv takes library or im2col, not '{other}'")),
                }
            }
            "--bench" => opts.bench = true,
            "--policy" => opts.policy = strategy_name(&value("--policy")?)?,
            s if s.starts_with("--policy=") => {
                opts.policy = strategy_name(&s["--policy=".len()..])?
            }
            "--loops" => {
                opts.loops = Some(match value("--loops")?.as_str() {
                    "cpp" => Loops::Cpp,
                    "simd" => Loops::Simd,
                    l => return Err(format!("unknown loop rules '{l}' (cpp, simd)")),
                })
            }
            "--debug-dir" => opts.debug_dir = Some(PathBuf::from(value("--debug-dir")?)),
            s if s.starts_with("--passes=") => opts
                .passes
                .apply_switches(&s["--passes=".len()..])
                .map_err(|e| e.to_string())?,
            "--passes" => opts
                .passes
                .apply_switches(&value("--passes")?)
                .map_err(|e| e.to_string())?,
            "--dtype" => {
                let d = value("--dtype")?;
                opts.dtype = match DType::from_short_name(&d) {
                    Some(t @ (DType::F32 | DType::BF16 | DType::F16)) => Some(t),
                    _ => return Err(format!("unknown dtype '{d}' (f32, bf16 or f16)")),
                };
            }
            "--rtol" => {
                opts.tolerance_given = true;
                opts.rtol = value("--rtol")?
                    .parse()
                    .map_err(|e| format!("--rtol: {e}"))?
            }
            "--atol" => {
                opts.tolerance_given = true;
                opts.atol = value("--atol")?
                    .parse()
                    .map_err(|e| format!("--atol: {e}"))?
            }
            s if s.starts_with("--") => return Err(format!("unknown option '{s}'")),
            s if opts.model.is_empty() => opts.model = s.to_string(),
            s => {
                return Err(format!(
                    "unexpected argument '{s}' (the model is '{}')",
                    opts.model
                ));
            }
        }
    }
    if opts.model.is_empty() {
        return Err("which model? give a zoo name or a readable-FX .py file".into());
    }
    // Like TORCH_COMPILE_DEBUG_DIR: the environment names a debug directory the command line
    // did not.
    if opts.debug_dir.is_none() {
        opts.debug_dir = std::env::var_os("COIL_DEBUG_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from);
    }
    if let Some(d @ (DType::BF16 | DType::F16)) = opts.dtype
        && !opts.tolerance_given
    {
        // PyTorch's own tolerances for the dtype (torch.testing.assert_close's defaults).
        (opts.rtol, opts.atol) = if d == DType::BF16 {
            (1.6e-2, 1e-5)
        } else {
            (1e-3, 1e-5)
        };
    }
    Ok(opts)
}

/// A loaded model: its graph, inputs, and reference outputs when known.
struct Loaded {
    name: String,
    graph: Graph,
    inputs: Vec<Tensor>,
    input_source: String,
    expected: Option<Vec<Tensor>>,
    /// Parsing the graph's text (the first step of parse-to-runnable).
    parse_ms: f64,
}

fn load(opts: &Options) -> Result<Loaded, String> {
    let parse_ms;
    let (name, graph, mut tensors) = if opts.model.ends_with(".py") || opts.model.contains('/') {
        let path = PathBuf::from(&opts.model);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let clock = std::time::Instant::now();
        let (graph, bound) = if coil_graph::is_symbolic(&text) {
            let bound = parse_symbolic(&text, &opts.model, opts.inputs.as_deref())?;
            (bound.graph, Some((bound.tensors, bound.source)))
        } else {
            let g = coil_graph::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            (g, None)
        };
        parse_ms = clock.elapsed().as_secs_f64() * 1e3;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (graph, tensors) = in_dtype(graph, bound, opts.dtype)?;
        (name, graph, tensors)
    } else if let Some(real) = coil_models::find_real(&opts.model) {
        let clock = std::time::Instant::now();
        let graph = coil_graph::parse(real.text).map_err(|e| format!("{}: {e}", real.name))?;
        parse_ms = clock.elapsed().as_secs_f64() * 1e3;
        match coil_models::find_real_16(real.name).filter(|_| opts.dtype == Some(DType::BF16)) {
            // PyTorch's own bf16 results on the inputs cast to bf16.
            Some(r16) => {
                let graph = graph
                    .cast_to(DType::F32, DType::BF16)
                    .map_err(|e| format!("{}: {e}", real.name))?;
                let t = Tensor::read_safetensors(r16.safetensors).map_err(|e| e.to_string())?;
                (
                    format!("{}_bf16", real.name),
                    graph,
                    Some((t, "PyTorch's (zoo, bf16)".to_string())),
                )
            }
            None => {
                let t = Tensor::read_safetensors(real.safetensors).map_err(|e| e.to_string())?;
                let (graph, tensors) =
                    in_dtype(graph, Some((t, "PyTorch's (zoo)".to_string())), opts.dtype)?;
                (real.name.to_string(), graph, tensors)
            }
        }
    } else {
        let model = coil_models::find(&opts.model).ok_or_else(|| {
            format!(
                "no model named '{}' in the zoo ({}; real models: {}); give a .py file for your own",
                opts.model,
                coil_models::names().collect::<Vec<_>>().join(", "),
                coil_models::REAL_MODELS.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
            )
        })?;
        let clock = std::time::Instant::now();
        let sixteen = match (opts.size, opts.dtype) {
            (Size::Tiny, Some(d @ (DType::BF16 | DType::F16))) => {
                coil_models::find_16(model.name, d)
            }
            _ => None,
        };
        if let Some(m) = sixteen {
            // The zoo's own 16-bit export, with PyTorch's 16-bit outputs.
            let graph = coil_graph::parse(m.tiny.text).map_err(|e| format!("{}: {e}", m.name))?;
            parse_ms = clock.elapsed().as_secs_f64() * 1e3;
            let t = Tensor::read_safetensors(m.tiny.safetensors).map_err(|e| e.to_string())?;
            (
                format!("{}_{}", m.name, m.dtype),
                graph,
                Some((t, "PyTorch's (zoo)".to_string())),
            )
        } else {
            let graph = model
                .graph(opts.size)
                .map_err(|e| format!("{}: {e}", model.name))?;
            parse_ms = clock.elapsed().as_secs_f64() * 1e3;
            let tensors = match (opts.size, model.tiny) {
                (Size::Tiny, Some(t)) => Some((
                    Tensor::read_safetensors(t.safetensors).map_err(|e| e.to_string())?,
                    "PyTorch's (zoo)".to_string(),
                )),
                _ => None,
            };
            let (graph, tensors) = in_dtype(graph, tensors, opts.dtype)?;
            (model.name.to_string(), graph, tensors)
        }
    };
    if let Some(path) = opts.inputs.as_ref().filter(|_| tensors.is_none()) {
        let t = Tensor::load_safetensors(path).map_err(|e| e.to_string())?;
        tensors = Some((t, path.display().to_string()));
    }
    let input_bytes = graph
        .inputs()
        .iter()
        .map(|&i| graph.node(i).meta().nbytes())
        .fold(0usize, usize::saturating_add);
    if input_bytes > opts.max_memory {
        return Err(format!(
            "the graph's inputs take {}, more than the memory budget of {} (--max-memory)",
            crate::report::human_bytes(input_bytes),
            crate::report::human_bytes(opts.max_memory)
        ));
    }
    let (inputs, expected, input_source) = match tensors {
        Some((t, source)) => {
            let (inputs, expected) =
                coil_models::split_io(&graph, &t).map_err(|e| format!("{source}: {e}"))?;
            let unused = coil_models::unused_tensors(&graph, &t);
            if !unused.is_empty() {
                eprintln!(
                    "coil run-model: warning: {source} holds tensors the graph does not use \
                     (ignored): {}",
                    unused.join(", ")
                );
            }
            (inputs, expected, source)
        }
        None => (
            random_inputs(&graph, opts.seed),
            None,
            format!("random (seed {})", opts.seed),
        ),
    };
    Ok(Loaded {
        name,
        graph,
        inputs,
        input_source,
        expected,
        parse_ms,
    })
}

/// A progress line on stderr for steps that can take more than a second (not in JSON mode).
fn progress(opts: &Options, what: &str) {
    let big = matches!(opts.size, Size::Large) || opts.model.ends_with(".py");
    if big && !opts.json {
        eprintln!("coil run-model: {what} ...");
    }
}

pub(crate) fn main(args: &[String]) -> ExitCode {
    let opts = match parse_options(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("coil run-model: {e}\n(try `coil --help`)");
            return ExitCode::from(2);
        }
    };
    if sizes::wanted(&opts) {
        return match sizes::run(&opts) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => {
                eprintln!("coil run-model: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match execute(&opts) {
        Ok(report) => {
            if opts.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report.to_json()).expect("report serializes")
                );
            } else {
                print!("{}", report.to_table());
            }
            if report.ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            if opts.json {
                let err = serde_json::json!({ "model": opts.model, "ok": false, "error": e });
                println!(
                    "{}",
                    serde_json::to_string_pretty(&err).expect("error serializes")
                );
            } else {
                eprintln!("coil run-model: {e}");
            }
            ExitCode::FAILURE
        }
    }
}

fn execute(opts: &Options) -> Result<Report, String> {
    let loaded = load(opts)?;
    // The compile cache the environment describes (COIL_CACHE_DIR, COIL_CACHE=0), or none:
    // the program's entry and the backend's machine code.
    let cache = std::sync::Arc::new(if opts.no_cache {
        coil_cache::Cache::off()
    } else {
        coil_cache::Cache::from_env()
    });
    let backend = backends::make_backend(opts, cache.clone())?;
    let mut options = coil::Options::with_strategy(&opts.policy).map_err(|e| e.to_string())?;
    options.cache = Some(cache);
    options.passes = opts.passes.clone();
    options.debug_dir = opts.debug_dir.clone();
    options.max_memory = Some(opts.max_memory);
    if let Some(loops) = opts.loops {
        loops.apply(&mut options);
    }
    if opts.emulate_precision_casts {
        let base = options
            .lower
            .take()
            .unwrap_or_else(|| coil_lower::LowerConfig::for_target(&backend.target()));
        options.lower = Some(coil_lower::LowerConfig {
            emulate_precision_casts: true,
            ..base
        });
    }
    // One pipeline run: the facade's. Eager runs the graph itself and only reports the
    // schedule the facade prepared.
    let (compiled, prepared) = match opts.backend {
        Backend::Eager => {
            let p = coil::prepare(&loaded.graph, backend.as_ref(), &options)
                .map_err(|e| e.to_string())?;
            (None, Some(p))
        }
        Backend::Cpu | Backend::Cuda => {
            progress(opts, &format!("compiling for {}", opts.backend.name()));
            let model =
                coil::compile(&loaded.graph, backend, &options).map_err(|e| e.to_string())?;
            (Some(model), None)
        }
    };
    // Every stage's output and the report: the compiled model's, or what `prepare` gave.
    let (artifacts, report) = match (&compiled, &prepared) {
        (Some(m), _) => (m.artifacts().map_err(|e| e.to_string())?, &m.report),
        (None, Some(p)) => (&p.artifacts, &p.report),
        (None, None) => return Err("nothing was compiled or prepared".into()),
    };
    let transformed = &artifacts.transformed;
    let lowered = &artifacts.lowered;
    let pass_stats = report.passes.clone();
    let lower_ms = report.times.lower_ms;
    let sched = ScheduleSummary::of(artifacts, report);
    let mut compiled_check = Comparison::none();
    let mut bench = None;
    let mut launch_times = Vec::new();
    let (run, run_ms, passes_check, comparison) = if opts.compile_only {
        (None, 0.0, Comparison::none(), Comparison::none())
    } else {
        let start = Instant::now();
        let run = coil_eager::run_within(&loaded.graph, &loaded.inputs, opts.max_memory)
            .map_err(|e| e.to_string())?;
        let mut run_ms = start.elapsed().as_secs_f64() * 1e3;
        progress(
            opts,
            "running eager in float64 (the reference of the checks)",
        );
        let exact = coil_eager::run_float64(&loaded.graph, &loaded.inputs, opts.max_memory);
        let (k, term) = longest_reduction(lowered, &loaded.inputs);
        let length_atol = crate::report::eager_check_atol(k, term);
        // Within what eager's own float32 rounding explains (float64 reference), or within the
        // reduction-length tolerance where there is none.
        let within_rounding = |outputs: &[Tensor]| match &exact {
            Some(exact) => {
                crate::report::compare_to_exact(outputs, &run.outputs, exact, length_atol)
            }
            None => {
                let mut c = compare(
                    outputs,
                    &run.outputs,
                    crate::report::EAGER_RTOL,
                    length_atol,
                )?;
                c.atol_rule = crate::report::AtolRule::ReductionLength;
                Ok(c)
            }
        };
        let mut compiled_outputs = None;
        if let Some(model) = &compiled {
            progress(opts, "running the compiled model");
            let start = Instant::now();
            let outputs = model.run(&loaded.inputs).map_err(|e| e.to_string())?;
            run_ms = start.elapsed().as_secs_f64() * 1e3;
            compiled_check = within_rounding(&outputs)?;
            compiled_outputs = Some(outputs);
            launch_times = crate::bench::launch_times(model)?;
            if opts.bench {
                bench = Some(crate::bench::measure(
                    model,
                    &loaded.graph,
                    &loaded.inputs,
                    opts.json,
                )?);
            }
        }
        // The transformed graph must compute what the input graph computes, up to rounding:
        // rewrites reassociate and decompose, which moves float32 results by about as much as
        // eager's own error.
        let after = coil_eager::run_within(transformed, &loaded.inputs, opts.max_memory)
            .map_err(|e| format!("transformed graph: {e}"))?;
        let passes_check = within_rounding(&after.outputs)?;
        let comparison = match &loaded.expected {
            Some(expected) => compare(&run.outputs, expected, opts.rtol, opts.atol)?,
            None => Comparison::none(),
        };
        // The compiled model against PyTorch's outputs when given, else against eager.
        let mut comparison = match (&compiled_outputs, &loaded.expected) {
            (Some(outputs), Some(expected)) => compare(outputs, expected, opts.rtol, opts.atol)?,
            _ => comparison,
        };
        // Within float64's rule passes: 16-bit floats, where coil rounds once per store (as
        // Inductor) and eager after every op, so where eager's roundings cancel PyTorch is the
        // one further from float64 (Inductor's own accuracy check does the same); wider ones
        // where PyTorch's results are within it too (a long matmul sums in another order).
        let outs = loaded.graph.outputs();
        let sixteen = (outs.iter()).any(|&o| loaded.graph.node(o).meta().dtype.is_16_bit_float());
        let both = match (&loaded.expected, &exact) {
            (Some(expected), Some(_)) if !sixteen && !comparison.ok => {
                within_rounding(expected)?.ok
            }
            _ => false,
        };
        if (sixteen || both) && !comparison.ok && compiled_check.checked && compiled_check.ok {
            comparison.ok = true;
            comparison.atol_rule = crate::report::AtolRule::Float64Rule;
        }
        (Some(run), run_ms, passes_check, comparison)
    };
    let outputs = loaded
        .graph
        .outputs()
        .iter()
        .map(|&o| {
            let m = loaded.graph.node(o).meta();
            (m.sizes.clone(), m.dtype)
        })
        .collect();
    let stats = run.as_ref().map(|r| &r.stats);
    Ok(Report {
        model: loaded.name,
        backend: opts.backend.name(),
        size: opts.size,
        input_source: loaded.input_source,
        graph_nodes: loaded.graph.len(),
        parse_ms: loaded.parse_ms,
        ok: comparison.ok && passes_check.ok && compiled_check.ok,
        compiled_check,
        compile: compiled.as_ref().map(|m| m.report.clone()),
        bench,
        launch_times,
        passes: pass_stats,
        lowered_buffers: lowered.buffers().len(),
        lowered_reductions: lowered
            .buffers()
            .iter()
            .filter(|b| b.is_reduction())
            .count(),
        lower_ms,
        passes_check,
        comparison,
        num_ops: stats.map(|s| s.num_ops()),
        num_kernels: stats.map(|s| s.num_kernels()),
        eager_bytes_read: stats.map(|s| s.bytes_read()),
        eager_bytes_written: stats.map(|s| s.bytes_written()),
        outputs,
        run_ms,
        compile_only: opts.compile_only,
        schedule: sched,
    })
}

/// The longest reduction of the lowered graph and a bound on the magnitude of its terms, for
/// the compiled-vs-eager tolerance: the largest input magnitude for a reduction, its square for
/// a matmul's contraction (products of two inputs).
fn longest_reduction(lowered: &coil_lower::LoweredGraph, inputs: &[Tensor]) -> (usize, f64) {
    let largest_input = inputs
        .iter()
        .filter(|t| t.dtype().is_float())
        .flat_map(|t| t.to_f64_vec())
        .filter(|x| x.is_finite())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let mut longest = (1, 0.0);
    for b in lowered.buffers() {
        let (k, term) = match &b.kind {
            coil_lower::BufferKind::Computed(c) if c.reduction_type.is_some() => {
                (c.reduction_ranges.iter().product(), largest_input)
            }
            coil_lower::BufferKind::Extern(e) => (
                e.inputs
                    .first()
                    .and_then(|a| a.layout.sizes.last().copied())
                    .unwrap_or(1),
                largest_input * largest_input,
            ),
            coil_lower::BufferKind::Computed(_) => continue,
        };
        let (best_k, best_term) = longest;
        if crate::report::eager_check_atol(k, term)
            > crate::report::eager_check_atol(best_k, best_term)
        {
            longest = (k, term);
        }
    }
    longest
}

/// What the schedule says, for the report.
#[derive(Debug)]
pub(crate) struct ScheduleSummary {
    pub(crate) policy: &'static str,
    pub(crate) loops: &'static str,
    pub(crate) nodes_before: usize,
    pub(crate) num_kernels: usize,
    pub(crate) num_extern_calls: usize,
    pub(crate) fallback_ops: Vec<String>,
    pub(crate) bytes_accessed: usize,
    pub(crate) kernels: Vec<coil::KernelReport>,
    pub(crate) ms: f64,
}

impl ScheduleSummary {
    fn of(artifacts: &coil::Artifacts, r: &coil::CompileReport) -> Self {
        ScheduleSummary {
            policy: r.strategy,
            loops: r.loops,
            nodes_before: artifacts.schedule.nodes_before,
            num_kernels: r.num_kernels,
            num_extern_calls: r.num_extern_calls,
            fallback_ops: r.fallback_ops.clone(),
            bytes_accessed: r.bytes_accessed,
            kernels: r.kernels.clone(),
            ms: r.times.schedule_ms,
        }
    }
}
