//! The pipeline: verify, passes, lowering, scheduling, kernel building and the plan, then the
//! backend's compile. Each stage is timed; with a debug directory, each stage's text goes there.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use coil_codegen::{Backend, BufferRole, Kernel, Plan, PlannedBuffer, Step, build_kernel};
use coil_graph::Graph;
use coil_lower::{BufRef, BufferId, BufferKind, LoweredGraph};
use coil_passes::PassConfig;
use coil_sched::{
    FusionStrategy, InductorGreedy, InductorScorer, KernelKind, NoFusion, RegisterPressureScorer,
    TvmFuseOps,
};

use crate::error::CoilError;
use crate::model::{CompiledModel, ExternStep, PlannedStep};

/// Which fusion strategy schedules the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Inductor's greedy `fuse_nodes` with Inductor's `FusionScore`.
    Inductor,
    /// Inductor's greedy fusion with a scorer that refuses register-heavy fusions.
    InductorRegPressure,
    /// TVM's FuseOps (no recomputation: the lowering realizes every op).
    Tvm,
    /// No scheduler fusion (the lowering still inlines).
    None,
}

impl Policy {
    /// Parses `inductor`, `inductor-regpressure`, `tvm`, `none`.
    pub fn parse(s: &str) -> Option<Policy> {
        Some(match s {
            "inductor" => Policy::Inductor,
            "inductor-regpressure" => Policy::InductorRegPressure,
            "tvm" => Policy::Tvm,
            "none" => Policy::None,
            _ => return None,
        })
    }

    /// The name `parse` accepts.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Inductor => "inductor",
            Policy::InductorRegPressure => "inductor-regpressure",
            Policy::Tvm => "tvm",
            Policy::None => "none",
        }
    }

    fn strategy(self) -> Box<dyn FusionStrategy> {
        match self {
            Policy::Inductor => Box::new(InductorGreedy::new(InductorScorer)),
            Policy::InductorRegPressure => {
                Box::new(InductorGreedy::new(RegisterPressureScorer::default()))
            }
            Policy::Tvm => Box::new(TvmFuseOps::default()),
            Policy::None => Box::new(NoFusion),
        }
    }
}

/// How to compile.
#[derive(Clone, Debug)]
pub struct Options {
    /// Which passes run.
    pub passes: PassConfig,
    /// The fusion strategy.
    pub policy: Policy,
    /// The lowering's realize rules; `None` takes the backend's.
    pub lower: Option<coil_lower::LowerConfig>,
    /// The scheduler's knobs; `None` takes the backend's.
    pub sched: Option<coil_sched::SchedConfig>,
    /// Where to write the debug artifacts.
    pub debug_dir: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            passes: PassConfig::default(),
            policy: Policy::Inductor,
            lower: None,
            sched: None,
            debug_dir: None,
        }
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
    /// The backend's compile (LLVM, PTX) and memory planning.
    pub backend_ms: f64,
}

impl StageTimes {
    /// All stages.
    pub fn total_ms(&self) -> f64 {
        self.passes_ms + self.lower_ms + self.schedule_ms + self.codegen_ms + self.backend_ms
    }
}

/// One kernel or extern call, as reported.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelReport {
    /// Its name (`cpu_per_fused_add_mean_mul_relu_sub_0`, `extern_kernels.mm`).
    pub name: String,
    /// `poi`, `red`, `per`, `extern`.
    pub kind: &'static str,
    /// Iteration elements.
    pub numel: usize,
    /// Reduction elements per iteration element.
    pub rnumel: usize,
    /// Bytes read plus written (each distinct buffer once).
    pub bytes: usize,
}

/// What compiling learned.
#[derive(Clone, Debug)]
pub struct CompileReport {
    /// Per-stage times.
    pub times: StageTimes,
    /// The passes' statistics.
    pub passes: coil_passes::PassStats,
    /// Buffers the lowering realized.
    pub lowered_buffers: usize,
    /// Kernels and extern calls, in launch order.
    pub kernels: Vec<KernelReport>,
    /// Generated kernels.
    pub num_kernels: usize,
    /// Library calls.
    pub num_extern_calls: usize,
    /// Inductor's `num_bytes_accessed`.
    pub bytes_accessed: usize,
    /// The fusion log.
    pub fusion_log: Vec<String>,
    /// Bytes of memory the plan allocates.
    pub planned_bytes: usize,
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Compiles `graph` for `backend`.
pub fn compile(
    graph: &Graph,
    backend: Arc<dyn Backend>,
    options: &Options,
) -> Result<CompiledModel, CoilError> {
    let mut times = StageTimes::default();
    let debug = Debug::new(options.debug_dir.clone())?;

    let t = Instant::now();
    coil_graph::verify(graph)?;
    let (transformed, pass_stats) = coil_passes::run_passes(graph, &options.passes)?;
    times.passes_ms = ms(t);
    debug.write("fx_graph_readable.py", || coil_graph::print_graph(graph))?;
    debug.write("fx_graph_transformed.py", || {
        coil_graph::print_graph(&transformed)
    })?;

    let t = Instant::now();
    let strategy = options.policy.strategy();
    let base = options
        .lower
        .clone()
        .unwrap_or_else(|| backend.lower_config());
    let lowered = coil_lower::lower(&transformed, &strategy.lower_config(&base))?;
    times.lower_ms = ms(t);
    debug.write("ir_pre_fusion.txt", || lowered.ir_pre_fusion())?;

    let t = Instant::now();
    let sched_config = options
        .sched
        .clone()
        .unwrap_or_else(|| backend.sched_config());
    let sched = coil_sched::schedule(
        &lowered,
        sched_config,
        backend.loop_compat(),
        strategy.as_ref(),
    )?;
    times.schedule_ms = ms(t);
    debug.write("ir_post_fusion.txt", || sched.ir_post_fusion())?;
    debug.write("fusion.log", || sched.fusion_log().join("\n") + "\n")?;
    debug.write("graph.dot", || sched.graph_dot())?;
    debug.dot_to_svg();

    let t = Instant::now();
    let (kernels, steps) = build_steps(&lowered, &sched, backend.as_ref())?;
    let plan = make_plan(&lowered, steps.iter().map(|(s, _)| s.clone()).collect())?;
    times.codegen_ms = ms(t);
    debug.write("kernels.txt", || {
        kernels
            .iter()
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })?;

    let t = Instant::now();
    let compiled = backend.compile(&kernels)?;
    debug.write(compiled.source_file_name(), || compiled.source())?;
    let report = CompileReport {
        times: StageTimes::default(),
        passes: pass_stats,
        lowered_buffers: lowered.buffers().len(),
        kernels: sched
            .kernels()
            .iter()
            .map(|k| KernelReport {
                name: k.name.clone(),
                kind: k.kind.short_name(),
                numel: k.numel,
                rnumel: k.rnumel,
                bytes: k.bytes(),
            })
            .collect(),
        num_kernels: sched.num_kernels(),
        num_extern_calls: sched.num_extern_calls(),
        bytes_accessed: sched.bytes_accessed(),
        fusion_log: sched.fusion_log().to_vec(),
        planned_bytes: plan.total_bytes(),
    };
    let steps = steps.into_iter().map(|(_, p)| p).collect();
    let mut model = CompiledModel::new(backend, compiled, graph, &lowered, plan, steps, report)?;
    times.backend_ms = ms(t);
    model.report.times = times;
    tracing::info!(target: "output_code", kernels = model.report.num_kernels, ms = model.report.times.total_ms(), "compiled");
    Ok(model)
}

/// Kernels in launch order, and the plan's steps with what running each needs.
type Built = (Vec<Kernel>, Vec<(Step, PlannedStep)>);

/// Kernels (in launch order) and the plan's steps with what running each needs.
fn build_steps(
    lowered: &LoweredGraph,
    sched: &coil_sched::Schedule<'_>,
    backend: &dyn Backend,
) -> Result<Built, CoilError> {
    let mut kernels = Vec::new();
    let mut steps = Vec::new();
    let prefix = format!("{}_", backend.name());
    for info in sched.kernels() {
        let mut members: Vec<BufferId> = sched.node(info.node).buffers().collect();
        members.sort_by_key(|b| b.index());
        if info.kind == KernelKind::Extern {
            let &[out] = members.as_slice() else {
                return Err(CoilError::Plan(format!(
                    "{} has {} buffers",
                    info.name,
                    members.len()
                )));
            };
            let BufferKind::Extern(ext) = &lowered.buffer(out).kind else {
                return Err(CoilError::Plan(format!("{out} is not an extern kernel")));
            };
            let [a, b] = [&ext.inputs[0], &ext.inputs[1]];
            let step = Step::Matmul {
                op: ext.op.kernel_name(),
                a: lowered.name(a.buffer),
                b: lowered.name(b.buffer),
                out: lowered.name(BufRef::Buffer(out)),
            };
            let planned = PlannedStep::Extern(Box::new(ExternStep {
                a: (lowered.name(a.buffer), a.layout.clone()),
                b: (lowered.name(b.buffer), b.layout.clone()),
                out: (
                    lowered.name(BufRef::Buffer(out)),
                    lowered.buffer(out).layout.clone(),
                ),
            }));
            steps.push((step, planned));
            continue;
        }
        let writes: Vec<BufRef> = info.writes.clone();
        let needed = |b: BufferId| writes.contains(&BufRef::Buffer(b));
        let name = info.name.strip_prefix(&prefix).unwrap_or(&info.name);
        let options = backend.build_options();
        let built = match build_kernel(lowered, &members, &needed, name, &options) {
            Ok(k) => vec![k],
            Err(e) => {
                // A group the kernel builder cannot stitch into one loop nest (e.g. a TVM group
                // of broadcasts of three sizes) runs as one kernel per member instead: same
                // results, more memory traffic.
                tracing::warn!(target: "output_code", "{e}; running its {} members as separate kernels", members.len());
                members
                    .iter()
                    .enumerate()
                    .map(|(i, &m)| {
                        build_kernel(
                            lowered,
                            &[m],
                            &|_| true,
                            &format!("{name}_part{i}"),
                            &options,
                        )
                    })
                    .collect::<Result<Vec<_>, _>>()?
            }
        };
        for kernel in built {
            let args: Vec<String> = kernel.args.iter().map(|a| a.name.clone()).collect();
            let written: Vec<String> = kernel
                .args
                .iter()
                .filter(|a| a.role != coil_codegen::ArgRole::Input)
                .map(|a| a.name.clone())
                .collect();
            steps.push((
                Step::Kernel {
                    kernel: kernels.len(),
                    args: args.clone(),
                    writes: written,
                },
                PlannedStep::Kernel {
                    index: kernels.len(),
                    args,
                },
            ));
            kernels.push(kernel);
        }
    }
    Ok((kernels, steps))
}

/// Places every buffer the steps use.
fn make_plan(lowered: &LoweredGraph, steps: Vec<Step>) -> Result<Plan, CoilError> {
    let outputs: Vec<BufRef> = lowered.outputs().iter().map(|o| o.buffer).collect();
    let mut buffers: Vec<PlannedBuffer> = lowered
        .inputs()
        .iter()
        .enumerate()
        .map(|(i, inp)| PlannedBuffer {
            name: inp.name.clone(),
            bytes: inp.layout.storage_len() * inp.layout.dtype.itemsize(),
            dtype: inp.layout.dtype,
            role: BufferRole::Input(i),
        })
        .collect();
    let mut seen: HashMap<String, ()> = buffers.iter().map(|b| (b.name.clone(), ())).collect();
    for b in lowered.buffers() {
        let name = b.name();
        if seen.contains_key(&name) {
            continue;
        }
        let used = steps.iter().any(|s| match s {
            Step::Kernel { args, .. } => args.contains(&name),
            Step::Matmul { a, b, out, .. } => [a, b, out].contains(&&name),
        });
        if !used {
            continue;
        }
        seen.insert(name.clone(), ());
        let role = if outputs.contains(&BufRef::Buffer(b.id)) {
            BufferRole::Output
        } else {
            BufferRole::Intermediate
        };
        buffers.push(PlannedBuffer {
            name,
            bytes: b.layout.storage_len() * b.layout.dtype.itemsize(),
            dtype: b.layout.dtype,
            role,
        });
    }
    Plan::new(buffers, steps).map_err(CoilError::Plan)
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
