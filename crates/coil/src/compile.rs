//! The pipeline: verify, passes, lowering, scheduling, the program (kernels and plan), then
//! the backend's compile. Each stage is timed, verified after it runs (when
//! [`Options::verify`] is on), announced at tracing target `stages`, and, with a debug
//! directory, its text written there. This is the only driver: the CLI formats what it gives.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use coil_codegen::{Backend, Program, Step};
use coil_graph::Graph;
use coil_lower::LoweredGraph;
use coil_passes::{PassConfig, PassStats};
use coil_sched::{LoopCompat, ScheduleSummary, SharedStrategy};

use crate::error::CoilError;
use crate::model::CompiledModel;
use crate::program_cache::ProgramSlot;

/// How to compile.
#[derive(Clone)]
pub struct Options {
    /// Which passes run.
    pub passes: PassConfig,
    /// The fusion strategy: a built-in one ([`coil_sched::builtin_strategy`]) or any other
    /// [`coil_sched::FusionStrategy`]. The lowering follows its
    /// [`coil_sched::FusionStrategy::lower_config`].
    pub strategy: SharedStrategy,
    /// The lowering's realize rules before the strategy adjusts them; `None` takes the
    /// backend's.
    pub lower: Option<coil_lower::LowerConfig>,
    /// The scheduler's knobs; `None` takes the backend's. The kernel-name prefix is always the
    /// backend's name.
    pub sched: Option<coil_sched::SchedConfig>,
    /// The loop rules the scheduler asks; `None` takes the backend's.
    pub loops: Option<Arc<dyn LoopCompat>>,
    /// Where to write the debug artifacts.
    pub debug_dir: Option<PathBuf>,
    /// Run each stage's verifier on its output (on by default in debug builds and tests;
    /// like Cranelift's `verify_if`).
    pub verify: bool,
    /// The most bytes the compiled model's memory (every slot of its plan) may take; a plan
    /// that needs more is an error at compile time, before anything is allocated.
    pub max_memory: Option<usize>,
    /// Results that do not depend on the order threads run in
    /// (`torch.use_deterministic_algorithms(True)`): scatters that add (`scatter_add`,
    /// `index_put` with `accumulate`) run on the host, in order, instead of as kernels of
    /// atomic adds, as Inductor falls back to ATen's kernels in that mode.
    pub deterministic: bool,
    /// The persistent compile cache, for the whole program's entry (`program_cache.rs`): a
    /// second compile of the same graph with the same options for the same target loads what
    /// the stages before the backend made instead of running them. `None` or an off cache:
    /// every compile runs every stage. (A backend's machine code has its own entries, in the
    /// cache it is handed.)
    pub cache: Option<Arc<coil_cache::Cache>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            passes: PassConfig::default(),
            strategy: Arc::new(coil_sched::InductorGreedy::new(coil_sched::InductorScorer)),
            lower: None,
            sched: None,
            loops: None,
            debug_dir: None,
            verify: cfg!(debug_assertions),
            max_memory: None,
            deterministic: false,
            cache: None,
        }
    }
}

impl Options {
    /// The default options with the built-in strategy called `name` (`inductor`,
    /// `inductor-regpressure`, `tvm`, `none`).
    pub fn with_strategy(name: &str) -> Result<Options, CoilError> {
        Ok(Options {
            strategy: coil_sched::builtin_strategy(name)?,
            ..Options::default()
        })
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("passes", &self.passes)
            .field("strategy", &self.strategy.name())
            .field("lower", &self.lower)
            .field("sched", &self.sched)
            .field("loops", &self.loops.as_ref().map(|l| l.name()))
            .field("debug_dir", &self.debug_dir)
            .field("verify", &self.verify)
            .field("max_memory", &self.max_memory)
            .field("deterministic", &self.deterministic)
            .field("cache", &self.cache.as_ref().and_then(|c| c.dir()))
            .finish()
    }
}

/// Milliseconds per stage.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StageTimes {
    /// Verification and the e-graph passes.
    pub passes_ms: f64,
    /// Lowering to the loop-level IR.
    pub lower_ms: f64,
    /// Scheduling and fusion.
    pub schedule_ms: f64,
    /// Building kernels and the plan.
    pub codegen_ms: f64,
    /// The backend's compile (LLVM, PTX).
    pub backend_ms: f64,
    /// Looking the program up in the compile cache and, on a hit, loading it (the stages
    /// before the backend then take 0).
    pub cache_ms: f64,
}

impl StageTimes {
    /// All stages.
    pub fn total_ms(&self) -> f64 {
        self.passes_ms
            + self.lower_ms
            + self.schedule_ms
            + self.codegen_ms
            + self.backend_ms
            + self.cache_ms
    }
}

/// One kernel or extern call, as reported: the program's own record of each step
/// ([`coil_codegen::Launch`]), which the facade's report and the CLI show as built.
pub type KernelReport = coil_codegen::Launch;

/// What compiling learned.
#[derive(Clone, Debug)]
pub struct CompileReport {
    /// Per-stage times.
    pub times: StageTimes,
    /// The passes' statistics.
    pub passes: PassStats,
    /// The strategy's name.
    pub strategy: &'static str,
    /// The loop rules' name (`cpp`, `simd`).
    pub loops: &'static str,
    /// The backend's name (the kernel-name prefix).
    pub backend: &'static str,
    /// Buffers the lowering realized.
    pub lowered_buffers: usize,
    /// Kernels and extern calls, in launch order, as built.
    pub kernels: Vec<KernelReport>,
    /// Generated kernels (as built: a group the builder split counts once per part).
    pub num_kernels: usize,
    /// Extern calls (host fallbacks included).
    pub num_extern_calls: usize,
    /// The ops that run as host fallbacks (no lowering; coil-eager on the host), one entry
    /// per fallback call in launch order (`aten.cumprod.default`).
    pub fallback_ops: Vec<String>,
    /// Inductor's `num_bytes_accessed` over every launch.
    pub bytes_accessed: usize,
    /// The fusion log.
    pub fusion_log: Vec<String>,
    /// Bytes of memory the plan allocates.
    pub planned_bytes: usize,
    /// How the backend made machine code (empty before the backend's compile).
    pub machine_code: coil_codegen::MachineCode,
    /// The whole program's compile-cache entry: `"hit"` (every stage before the backend
    /// skipped), `"miss"` (run, then stored where it can be), `"off"` (no cache, or a compile
    /// the cache does not key: a debug directory, a strategy that is not built in).
    pub program_cache: &'static str,
}

/// Every stage's output, kept with the compiled model (and given alone by [`prepare`]).
#[derive(Clone, Debug)]
pub struct Artifacts {
    /// The graph after the passes.
    pub transformed: Graph,
    /// The loop-level IR.
    pub lowered: LoweredGraph,
    /// The schedule (owned record: nodes, kernels, fusion log).
    pub schedule: ScheduleSummary,
    /// The kernels and the plan.
    pub program: Program,
}

/// What [`prepare`] gives: every stage's output up to the program, and the report so far.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The stages' outputs.
    pub artifacts: Artifacts,
    /// The report (the backend's compile time is 0 until [`compile`] adds it).
    pub report: CompileReport,
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Announces a finished stage at tracing target `stages` (one event per stage and run: what
/// tests count to check that a command runs each stage once).
fn stage_done(stage: &'static str, ms: f64) {
    tracing::debug!(target: "stages", stage, ms, "stage done");
}

/// Runs every stage up to the program (kernels and plan) for `backend`'s rules, without the
/// backend's compile: what a report of a schedule needs, on any machine.
pub fn prepare(
    graph: &Graph,
    backend: &dyn Backend,
    options: &Options,
) -> Result<Prepared, CoilError> {
    let mut times = StageTimes::default();
    let debug = Debug::new(options.debug_dir.clone())?;

    let t = Instant::now();
    coil_graph::verify(graph)?;
    let strategy = options.strategy.as_ref();
    let target = backend.target();
    let mut base = options
        .lower
        .clone()
        .unwrap_or_else(|| coil_lower::LowerConfig::for_target(&target));
    if options.deterministic {
        // No atomic adds: the scatters that add go to the host.
        base.atomic_add.clear();
    }
    // A matmul library that applies gelu and silu as post-ops takes them whole.
    let mut passes = options.passes.clone();
    if !base.matmul_post_ops.is_empty() {
        passes.skip_rules.extend(["gelu-erf", "gelu-tanh", "silu"]);
    }
    let (transformed, pass_stats) = coil_passes::run_passes(graph, &passes)?;
    if options.verify {
        coil_graph::verify(&transformed).map_err(|e| CoilError::Verify {
            stage: "passes",
            msg: e.to_string(),
        })?;
    }
    times.passes_ms = ms(t);
    stage_done("passes", times.passes_ms);
    debug.write("fx_graph_readable.py", || coil_graph::print_graph(graph))?;
    debug.write("fx_graph_transformed.py", || {
        coil_graph::print_graph(&transformed)
    })?;

    let t = Instant::now();
    let mut sched_config = options
        .sched
        .clone()
        .unwrap_or_else(|| coil_sched::SchedConfig::for_target(&target));
    sched_config.backend_name = target.name.to_string();
    let loops: &dyn LoopCompat = match &options.loops {
        Some(l) => l.as_ref(),
        None => coil_sched::loops_for(target.loops),
    };
    let lower_config = strategy.lower_config(&base);
    let mut lowered = coil_lower::lower(&transformed, &lower_config)?;
    // Which candidate consumers join their library call as template epilogues: the
    // scheduler's choice, folded into the one lowering.
    let mut template_log = Vec::new();
    if !lowered.epilogues().is_empty() {
        let choice = coil_sched::choose_epilogues(&lowered, &sched_config, loops, strategy)?;
        let chosen: Vec<_> = choice
            .fused
            .iter()
            .flat_map(|(_, b)| b.iter().copied())
            .collect();
        template_log = choice.log;
        lowered = lowered.fold_epilogues(&chosen)?;
    }
    if options.verify {
        lowered.verify().map_err(|e| CoilError::Verify {
            stage: "lowering",
            msg: e.to_string(),
        })?;
    }
    times.lower_ms = ms(t);
    stage_done("lowering", times.lower_ms);
    debug.write("ir_pre_fusion.txt", || lowered.ir_pre_fusion())?;

    let t = Instant::now();
    let sched = coil_sched::schedule(&lowered, sched_config, loops, strategy)?;
    if options.verify {
        sched.verify().map_err(|e| CoilError::Verify {
            stage: "scheduling",
            msg: e.to_string(),
        })?;
    }
    times.schedule_ms = ms(t);
    stage_done("scheduling", times.schedule_ms);
    debug.write("ir_post_fusion.txt", || sched.ir_post_fusion())?;
    debug.write("fusion.log", || {
        let mut log = template_log.clone();
        log.extend(epilogue_log(&lowered));
        log.extend(sched.fusion_log().iter().cloned());
        log.join("\n") + "\n"
    })?;
    debug.write("graph.dot", || sched.graph_dot())?;
    debug.dot_to_svg();

    let t = Instant::now();
    let program = coil_codegen::build_program(&lowered, &sched, &target.build)?;
    if options.verify {
        for k in &program.kernels {
            k.verify().map_err(|e| CoilError::Verify {
                stage: "codegen",
                msg: e.to_string(),
            })?;
        }
    }
    for step in &program.plan.steps {
        if let Step::Extern(e) = step
            && !target.supports_extern(&e.kind, e.out.layout.dtype)
        {
            return Err(CoilError::Unsupported(format!(
                "the {} backend does not run {} on {}",
                target.name,
                e.kind.kernel_name(),
                e.out.layout.dtype
            )));
        }
    }
    check_memory(&program.plan, options)?;
    times.codegen_ms = ms(t);
    stage_done("codegen", times.codegen_ms);
    debug.write("kernels.txt", || {
        program
            .kernels
            .iter()
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })?;

    let report = CompileReport {
        machine_code: Default::default(),
        times,
        passes: pass_stats,
        strategy: strategy.name(),
        loops: loops.name(),
        backend: target.name,
        lowered_buffers: lowered.buffers().len(),
        kernels: program.launches.clone(),
        num_kernels: program.num_kernels(),
        num_extern_calls: program.num_extern_calls(),
        fallback_ops: program
            .plan
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Extern(e) => match &e.kind {
                    coil_lower::ExternKind::Fallback(h) => Some(h.op.to_string()),
                    _ => None,
                },
                _ => None,
            })
            .collect(),
        bytes_accessed: program.launches.iter().map(|l| l.bytes()).sum(),
        fusion_log: sched.fusion_log().to_vec(),
        planned_bytes: program.plan.total_bytes(),
        program_cache: "off",
    };
    let schedule = sched.summary();
    drop(sched);
    Ok(Prepared {
        artifacts: Artifacts {
            transformed,
            lowered,
            schedule,
            program,
        },
        report,
    })
}

/// A plan over [`Options::max_memory`] is an error, before anything is allocated.
fn check_memory(plan: &coil_codegen::Plan, options: &Options) -> Result<(), CoilError> {
    match options.max_memory {
        Some(max) if plan.total_bytes() > max => Err(CoilError::Memory(format!(
            "the compiled model needs {} bytes of memory (its plan's slots), more than the budget of {max} bytes",
            plan.total_bytes()
        ))),
        _ => Ok(()),
    }
}

/// Compiles `graph` for `backend`: [`prepare`] (or the program's compile-cache entry, see
/// [`Options::cache`]), then the backend's compile.
pub fn compile(
    graph: &Graph,
    backend: Arc<dyn Backend>,
    options: &Options,
) -> Result<CompiledModel, CoilError> {
    let mut slot = ProgramSlot::new(graph, backend.as_ref(), options);
    let (program, index_checks, artifacts, mut report) = match slot.get(options, backend.as_ref()) {
        Some(hit) => {
            check_memory(&hit.program.plan, options)?;
            stage_done("cache", hit.report.times.cache_ms);
            (hit.program, hit.index_checks, None, hit.report)
        }
        None => {
            let Prepared {
                artifacts,
                mut report,
            } = prepare(graph, backend.as_ref(), options)?;
            report.program_cache = slot.word;
            let checks = artifacts.lowered.index_checks().to_vec();
            slot.put(&artifacts.program, &checks, &report);
            (artifacts.program.clone(), checks, Some(artifacts), report)
        }
    };
    let debug = Debug::new(options.debug_dir.clone())?;
    let t = Instant::now();
    let compiled = backend.compile(&program.kernels)?;
    debug.write(compiled.source_file_name(), || compiled.source())?;
    report.times.backend_ms = ms(t);
    report.machine_code = compiled.machine_code();
    stage_done("backend", report.times.backend_ms);
    tracing::info!(target: "output_code", kernels = report.num_kernels, ms = report.times.total_ms(), "compiled");
    CompiledModel::new(
        backend,
        compiled,
        graph,
        crate::model::Made {
            program,
            index_checks,
            artifacts,
            options: options.clone(),
        },
        report,
    )
}

/// Writes debug artifacts when a directory is set.
struct Debug {
    dir: Option<PathBuf>,
}

impl Debug {
    fn new(dir: Option<PathBuf>) -> Result<Debug, CoilError> {
        if let Some(d) = &dir {
            std::fs::create_dir_all(d)
                .map_err(|e| CoilError::Debug(format!("{}: {e}", d.display())))?;
        }
        Ok(Debug { dir })
    }

    fn write(&self, name: &str, text: impl FnOnce() -> String) -> Result<(), CoilError> {
        let Some(dir) = &self.dir else { return Ok(()) };
        let path = dir.join(name);
        std::fs::write(&path, text())
            .map_err(|e| CoilError::Debug(format!("{}: {e}", path.display())))
    }

    /// `graph.svg` from `graph.dot` when graphviz's `dot` is installed (silently skipped
    /// otherwise: the svg is a convenience).
    fn dot_to_svg(&self) {
        let Some(dir) = &self.dir else { return };
        let _ = std::process::Command::new("dot")
            .arg("-Tsvg")
            .arg(dir.join("graph.dot"))
            .arg("-o")
            .arg(dir.join("graph.svg"))
            .stderr(std::process::Stdio::null())
            .status();
    }
}

/// The fusion log's lines for matmul epilogues the lowering put into the library call (a
/// bias, post-ops: Inductor's template epilogues): one per such matmul, naming its nodes.
fn epilogue_log(lowered: &coil_lower::LoweredGraph) -> Vec<String> {
    lowered
        .buffers()
        .iter()
        .filter_map(|b| match &b.kind {
            coil_lower::BufferKind::Extern(e)
                if e.kind.matmul().is_some() && b.origins.len() > 1 =>
            {
                let nodes: Vec<&str> = b.origins.iter().map(|o| o.node.as_str()).collect();
                Some(format!(
                    "template epilogue: {} = {} (library post-ops; nodes {})",
                    b.id,
                    e.kind.kernel_name(),
                    nodes.join(", ")
                ))
            }
            _ => None,
        })
        .collect()
}
