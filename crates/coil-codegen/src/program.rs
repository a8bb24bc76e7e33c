//! From a schedule to a program: one kernel per fused node (built by `build.rs`), an extern
//! step per extern node, and the plan that places every buffer. This is the codegen half of
//! Inductor's `Scheduler.codegen` plus its wrapper; the facade only calls [`build_program`].

use std::collections::HashSet;

use coil_lower::{BufRef, BufferId, BufferKind, ExternInput, LoweredGraph};
use coil_sched::{LaunchKind, Schedule};

use coil_kernel::BuildOptions;

use crate::build::{BuildError, build_with_args};
use crate::plan::{BufferRole, ExternStep, Plan, PlannedBuffer, Step};
use coil_kernel::{ArgRole, Kernel};

/// One launch of the program: the scheduler's kernel record ([`coil_sched::KernelInfo`]),
/// named as the backend names it; a node the kernel builder split into parts has one per
/// part. The plan, the facade's report and the CLI all show this one record.
pub type Launch = coil_sched::KernelInfo;

/// What codegen made of a schedule: the kernels in launch order, the plan (memory, steps,
/// outputs), and one [`Launch`] per step.
#[derive(Clone, Debug)]
pub struct Program {
    /// Every generated kernel, in launch order (names without the backend prefix).
    pub kernels: Vec<Kernel>,
    /// The plan; its [`Step::Kernel`]s index `kernels`.
    pub plan: Plan,
    /// Each step, as reported.
    pub launches: Vec<Launch>,
    /// Scheduler nodes the kernel builder could not stitch into one loop nest, which run as
    /// one kernel per member instead (their names).
    pub split_nodes: Vec<String>,
}

impl Program {
    /// Generated kernels (extern calls not counted).
    pub fn num_kernels(&self) -> usize {
        self.kernels.len()
    }

    /// Extern calls.
    pub fn num_extern_calls(&self) -> usize {
        self.plan
            .steps
            .iter()
            .filter(|s| matches!(s, Step::Extern(_)))
            .count()
    }
}

/// Builds the program of `sched`. The backend prefix of kernel names is the schedule's
/// (`SchedConfig::backend_name`); kernels carry their names without it.
///
/// A fused node the kernel builder cannot stitch into one loop nest (a TVM group of
/// broadcasts of three sizes) runs as one kernel per member: the same results, more memory
/// traffic, logged at target `output_code` and listed in [`Program::split_nodes`].
pub fn build_program(
    lowered: &LoweredGraph,
    sched: &Schedule<'_>,
    options: &BuildOptions,
) -> Result<Program, BuildError> {
    let prefix = format!("{}_", sched.config().backend_name);
    let mut kernels: Vec<Kernel> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut launches: Vec<Launch> = Vec::new();
    let mut split_nodes = Vec::new();
    for info in sched.kernels() {
        let mut members: Vec<BufferId> = sched.node(info.node).buffers().collect();
        members.sort_by_key(|b| b.index());
        let bad = |msg: String| BuildError {
            kernel: info.name.clone(),
            msg,
        };
        if info.kind == LaunchKind::Extern {
            let &[out] = members.as_slice() else {
                return Err(bad(format!("an extern node has {} buffers", members.len())));
            };
            let BufferKind::Extern(ext) = &lowered.buffer(out).kind else {
                return Err(bad(format!("{out} is not an extern kernel")));
            };
            if ext.inputs.len() != ext.kind.arity() {
                return Err(bad(format!(
                    "{} takes {} operands, the lowering gave {}",
                    ext.kind.kernel_name(),
                    ext.kind.arity(),
                    ext.inputs.len()
                )));
            }
            steps.push(Step::Extern(ExternStep {
                kind: ext.kind.clone(),
                inputs: ext.inputs.clone(),
                out: ExternInput {
                    buffer: BufRef::Buffer(out),
                    layout: lowered.buffer(out).layout.clone(),
                },
            }));
            launches.push(info.clone());
            continue;
        }
        let needed = |b: BufferId| info.writes.contains(&BufRef::Buffer(b));
        let name = info.name.strip_prefix(&prefix).unwrap_or(&info.name);
        let built = match build_with_args(lowered, &members, &needed, name, options) {
            Ok(k) => {
                launches.push(info.clone());
                vec![k]
            }
            Err(e) => {
                tracing::warn!(target: "output_code", "{e}; running its {} members as separate kernels", members.len());
                split_nodes.push(info.name.clone());
                let parts = members
                    .iter()
                    .enumerate()
                    .map(|(i, &m)| {
                        build_with_args(
                            lowered,
                            &[m],
                            &|_| true,
                            &format!("{name}_part{i}"),
                            options,
                        )
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                for (k, bufs) in &parts {
                    launches.push(part_launch(info, &prefix, k, bufs));
                }
                parts
            }
        };
        for (kernel, bufs) in built {
            let writes = kernel
                .args
                .iter()
                .zip(&bufs)
                .filter(|(a, _)| a.role != ArgRole::Input)
                .map(|(_, &b)| b)
                .collect();
            steps.push(Step::Kernel {
                kernel: kernels.len(),
                args: bufs,
                writes,
            });
            kernels.push(kernel);
        }
    }
    let plan = plan_for(lowered, steps).map_err(|msg| BuildError {
        kernel: "the plan".into(),
        msg,
    })?;
    Ok(Program {
        kernels,
        plan,
        launches,
        split_nodes,
    })
}

/// The scheduler's kind of a built kernel (whose `short_name` reports print).
/// The record of one part of a node the kernel builder split: its own name, kind, sizes and
/// the buffers its arguments read and write.
fn part_launch(info: &Launch, prefix: &str, k: &Kernel, bufs: &[BufRef]) -> Launch {
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    let (mut bytes_read, mut bytes_written) = (0, 0);
    for (a, &b) in k.args.iter().zip(bufs) {
        let bytes = a.len * a.dtype.itemsize();
        if a.role != ArgRole::Output {
            reads.push(b);
            bytes_read += bytes;
        }
        if a.role != ArgRole::Input {
            writes.push(b);
            bytes_written += bytes;
        }
    }
    Launch {
        node: info.node,
        name: format!("{prefix}{}", k.name),
        kind: launch_kind(k),
        numel: k.numel(),
        rnumel: k.rnumel(),
        reads,
        writes,
        local: Vec::new(),
        bytes_read,
        bytes_written,
    }
}

fn launch_kind(k: &Kernel) -> LaunchKind {
    match k.kind {
        coil_kernel::KernelKind::Pointwise => LaunchKind::Pointwise,
        coil_kernel::KernelKind::Reduction { persistent: true } => LaunchKind::PersistentReduction,
        coil_kernel::KernelKind::Reduction { persistent: false } => LaunchKind::Reduction,
    }
}

/// Places every buffer the steps use: graph inputs (always), then each buffer a step touches,
/// an output when the graph returns it.
fn plan_for(lowered: &LoweredGraph, steps: Vec<Step>) -> Result<Plan, String> {
    let outputs: HashSet<BufRef> = lowered.outputs().iter().map(|o| o.buffer).collect();
    let mut buffers: Vec<PlannedBuffer> = lowered
        .inputs()
        .iter()
        .enumerate()
        .map(|(i, inp)| PlannedBuffer {
            buffer: BufRef::Input(coil_lower::Idx::new(i)),
            name: inp.name.clone(),
            bytes: inp.layout.storage_len() * inp.layout.dtype.itemsize(),
            dtype: inp.layout.dtype,
            role: BufferRole::Input(i),
        })
        .collect();
    let used: HashSet<BufRef> = steps
        .iter()
        .flat_map(|s| s.reads().into_iter().chain(s.writes()))
        .collect();
    for b in lowered.buffers() {
        let r = BufRef::Buffer(b.id);
        if !used.contains(&r) {
            continue;
        }
        buffers.push(PlannedBuffer {
            buffer: r,
            name: b.name(),
            bytes: b.layout.storage_len() * b.layout.dtype.itemsize(),
            dtype: b.layout.dtype,
            role: if outputs.contains(&r) {
                BufferRole::Output
            } else {
                BufferRole::Intermediate
            },
        });
    }
    if used.contains(&BufRef::IndexChecks) {
        let l = lowered.layout(BufRef::IndexChecks);
        buffers.push(PlannedBuffer {
            buffer: BufRef::IndexChecks,
            name: lowered.name(BufRef::IndexChecks),
            bytes: l.storage_len() * l.dtype.itemsize(),
            dtype: l.dtype,
            role: BufferRole::Checks,
        });
    }
    Plan::new(buffers, steps, lowered.outputs().to_vec())
}
