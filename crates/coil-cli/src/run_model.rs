//! `coil run-model`: option parsing, model and input resolution, running, checking.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use coil_graph::{DType, Data, Graph, Tensor};
use coil_models::Size;
use rand::{Rng, SeedableRng};

use crate::report::{Comparison, Report, compare};

/// Parsed command-line options.
#[derive(Debug)]
struct Options {
    model: String,
    size: Size,
    inputs: Option<PathBuf>,
    seed: u64,
    backend: Backend,
    json: bool,
    rtol: f64,
    atol: f64,
    passes: coil_passes::PassConfig,
    debug_dir: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    Eager,
}

impl Backend {
    fn name(self) -> &'static str {
        match self {
            Backend::Eager => "eager",
        }
    }
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut opts = Options {
        model: String::new(),
        size: Size::Article,
        inputs: None,
        seed: 0,
        backend: Backend::Eager,
        json: false,
        rtol: 1e-4,
        atol: 1e-5,
        passes: coil_passes::PassConfig::default(),
        debug_dir: None,
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
            "--seed" => {
                opts.seed = value("--seed")?
                    .parse()
                    .map_err(|e| format!("--seed: {e}"))?
            }
            "--backend" => {
                opts.backend = match value("--backend")?.as_str() {
                    "eager" => Backend::Eager,
                    b @ ("cpu" | "cuda") => {
                        return Err(format!(
                            "backend '{b}' is not built yet; the only backend today is eager"
                        ));
                    }
                    b => return Err(format!("unknown backend '{b}' (eager)")),
                }
            }
            "--json" => opts.json = true,
            "--debug-dir" => opts.debug_dir = Some(PathBuf::from(value("--debug-dir")?)),
            s if s.starts_with("--passes=") => opts
                .passes
                .apply_switches(&s["--passes=".len()..])
                .map_err(|e| e.to_string())?,
            "--passes" => opts
                .passes
                .apply_switches(&value("--passes")?)
                .map_err(|e| e.to_string())?,
            "--rtol" => {
                opts.rtol = value("--rtol")?
                    .parse()
                    .map_err(|e| format!("--rtol: {e}"))?
            }
            "--atol" => {
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
    Ok(opts)
}

/// A loaded model: its graph, inputs, and reference outputs when known.
struct Loaded {
    name: String,
    graph: Graph,
    inputs: Vec<Tensor>,
    input_source: String,
    expected: Option<Vec<Tensor>>,
}

fn load(opts: &Options) -> Result<Loaded, String> {
    let (name, graph, mut tensors) = if opts.model.ends_with(".py") || opts.model.contains('/') {
        let path = PathBuf::from(&opts.model);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let graph = coil_graph::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        (name, graph, None)
    } else {
        let model = coil_models::find(&opts.model).ok_or_else(|| {
            format!(
                "no model named '{}' in the zoo ({}); give a .py file for your own",
                opts.model,
                coil_models::names().collect::<Vec<_>>().join(", ")
            )
        })?;
        let graph = model
            .graph(opts.size)
            .map_err(|e| format!("{}: {e}", model.name))?;
        let tensors = match (opts.size, model.tiny) {
            (Size::Tiny, Some(t)) => Some((
                Tensor::read_safetensors(t.safetensors).map_err(|e| e.to_string())?,
                "PyTorch's (zoo)".to_string(),
            )),
            _ => None,
        };
        (model.name.to_string(), graph, tensors)
    };
    if let Some(path) = &opts.inputs {
        let t = Tensor::load_safetensors(path).map_err(|e| e.to_string())?;
        tensors = Some((t, path.display().to_string()));
    }
    let (inputs, expected, input_source) = match tensors {
        Some((t, source)) => {
            let (inputs, expected) =
                coil_models::split_io(&graph, &t).map_err(|e| e.to_string())?;
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
    })
}

/// Inputs drawn from a fixed-seed generator: floats uniform in [-1, 1), ints in [0, 10), bools
/// fair coins.
fn random_inputs(graph: &Graph, seed: u64) -> Vec<Tensor> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    graph
        .inputs()
        .iter()
        .map(|&id| {
            let meta = graph.node(id).meta();
            let n = meta.numel();
            let data = match meta.dtype {
                DType::F32 => Data::F32((0..n).map(|_| rng.gen_range(-1.0f32..1.0)).collect()),
                DType::Bool => Data::Bool((0..n).map(|_| rng.r#gen::<bool>()).collect()),
                d if d.is_int() => Data::from_f64(d, (0..n).map(|_| rng.gen_range(0..10) as f64)),
                d => Data::from_f64(d, (0..n).map(|_| rng.gen_range(-1.0..1.0))),
            };
            Tensor::new(data, meta.sizes.clone()).expect("numel matches the meta")
        })
        .collect()
}

pub(crate) fn main(args: &[String]) -> ExitCode {
    let opts = match parse_options(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("coil run-model: {e}\n(try `coil --help`)");
            return ExitCode::from(2);
        }
    };
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
    let (transformed, pass_stats) =
        coil_passes::run_passes(&loaded.graph, &opts.passes).map_err(|e| format!("passes: {e}"))?;
    let lower_start = Instant::now();
    // The CPU's realize rules: the CPU backend is the default one to come.
    let lowered = coil_lower::lower(&transformed, &coil_lower::LowerConfig::cpu())
        .map_err(|e| format!("lowering: {e}"))?;
    let lower_ms = lower_start.elapsed().as_secs_f64() * 1e3;
    if let Some(dir) = &opts.debug_dir {
        write_debug(dir, &loaded.graph, &transformed, &lowered)?;
    }
    let start = Instant::now();
    let run = match opts.backend {
        Backend::Eager => {
            coil_eager::run(&loaded.graph, &loaded.inputs).map_err(|e| e.to_string())?
        }
    };
    let run_ms = start.elapsed().as_secs_f64() * 1e3;
    // The transformed graph must compute what the input graph computes.
    let after = coil_eager::run(&transformed, &loaded.inputs)
        .map_err(|e| format!("transformed graph: {e}"))?;
    let passes_check = compare(&after.outputs, &run.outputs, 1e-5, 1e-6)?;
    let comparison = match &loaded.expected {
        Some(expected) => compare(&run.outputs, expected, opts.rtol, opts.atol)?,
        None => Comparison::none(),
    };
    Ok(Report {
        model: loaded.name,
        backend: opts.backend.name(),
        size: opts.size,
        input_source: loaded.input_source,
        graph_nodes: loaded.graph.len(),
        ok: comparison.ok && passes_check.ok,
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
        num_ops: run.stats.num_ops(),
        num_kernels: run.stats.num_kernels(),
        eager_bytes_read: run.stats.bytes_read(),
        eager_bytes_written: run.stats.bytes_written(),
        outputs: run
            .outputs
            .iter()
            .map(|t| (t.sizes().to_vec(), t.dtype()))
            .collect(),
        run_ms,
    })
}

/// Writes the debug artifacts the stages that exist produce.
fn write_debug(
    dir: &std::path::Path,
    input: &Graph,
    transformed: &Graph,
    lowered: &coil_lower::LoweredGraph,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    write("fx_graph_readable.py", coil_graph::print_graph(input))?;
    write(
        "fx_graph_transformed.py",
        coil_graph::print_graph(transformed),
    )?;
    write("ir_pre_fusion.txt", lowered.ir_pre_fusion())
}
