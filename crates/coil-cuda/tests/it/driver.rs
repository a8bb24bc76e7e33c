//! The translator's tests' kernels and runs: [`program`] builds a lowered graph's kernels (runs
//! of consecutive computed buffers fused into one kernel where the kernel builder accepts them
//! and the result is not a one-row looped reduction, which would run on one block; the rest one
//! kernel per buffer) for tests that render them; [`run`] compiles a graph through the facade
//! with the same grouping ([`ConsecutiveRuns`]) or one kernel per buffer, and runs it.

use std::sync::Arc;

use coil_codegen::{BuildOptions, Kernel, build_kernel};
use coil_cuda::CudaBackend;
use coil_graph::{Graph, Tensor};
use coil_lower::{BufRef, BufferId, BufferKind, LoweredGraph};
use coil_sched::{FusionStrategy, LoopCompat, NodeId, SchedError, Schedule};

/// A lowered graph's kernels, in order.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub(crate) kernels: Vec<Kernel>,
}

fn outputs_of(l: &LoweredGraph) -> Vec<BufRef> {
    l.outputs().iter().map(|o| o.buffer).collect()
}

/// Whether a buffer is read by a buffer outside `group` or returned.
fn needed_outside(l: &LoweredGraph, group: &[BufferId], b: BufferId) -> bool {
    if outputs_of(l).contains(&BufRef::Buffer(b)) {
        return true;
    }
    l.buffers()
        .iter()
        .filter(|o| !group.contains(&o.id))
        .any(|o| match &o.kind {
            BufferKind::Computed(c) => c
                .body
                .loads()
                .into_iter()
                .any(|(_, buf, _)| buf == BufRef::Buffer(b)),
            BufferKind::Extern(e) => e.inputs.iter().any(|i| i.buffer == BufRef::Buffer(b)),
        })
}

/// Builds the program: `fuse` runs of consecutive computed buffers where possible.
pub(crate) fn program(l: &LoweredGraph, fuse: bool, sm_count: u32) -> Program {
    let mut kernels = Vec::new();
    let mut run: Vec<BufferId> = Vec::new();
    let opts = BuildOptions::default();
    let caps = coil_cuda::GpuCaps {
        sm_count,
        ..coil_cuda::GpuCaps::h200()
    };
    let flush = |run: &mut Vec<BufferId>, kernels: &mut Vec<Kernel>| {
        if run.is_empty() {
            return;
        }
        let group = std::mem::take(run);
        let fused = (fuse && group.len() > 1)
            .then(|| {
                let needed = |b: BufferId| needed_outside(l, &group, b);
                let name = format!("k{}_fused", kernels.len());
                build_kernel(l, &group, &needed, &name, &opts).ok()
            })
            .flatten()
            .filter(|k| {
                !matches!(
                    coil_cuda::render::plan_kernel(k, &caps).strategy,
                    coil_cuda::render::Strategy::Looped { .. }
                ) || k.numel() > 1
            });
        let ks: Vec<Kernel> = match fused {
            Some(k) => vec![k],
            None => group
                .iter()
                .enumerate()
                .map(|(i, &b)| {
                    let name = format!("k{}_{b}", kernels.len() + i);
                    build_kernel(l, &[b], &|_| true, &name, &opts).expect("a single buffer builds")
                })
                .collect(),
        };
        kernels.extend(ks);
    };
    for b in l.buffers() {
        match &b.kind {
            BufferKind::Computed(_) => run.push(b.id),
            BufferKind::Extern(_) => flush(&mut run, &mut kernels),
        }
    }
    flush(&mut run, &mut kernels);
    Program { kernels }
}

/// Runs of consecutive computed nodes (between extern calls) in one kernel where the kernel
/// builder accepts the run and the kernel is not a one-row looped reduction (which would run
/// on one block): [`program`]'s grouping, as a strategy the facade schedules with.
#[derive(Debug)]
struct ConsecutiveRuns {
    caps: coil_cuda::GpuCaps,
}

impl ConsecutiveRuns {
    /// Whether the nodes of `run` build into one kernel worth running.
    fn fusable(&self, sched: &Schedule<'_>, run: &[NodeId]) -> bool {
        let mut members: Vec<BufferId> =
            run.iter().flat_map(|&n| sched.node(n).buffers()).collect();
        members.sort_by_key(|b| b.index());
        build_kernel(
            sched.graph(),
            &members,
            &|_| true,
            "probe",
            &BuildOptions::default(),
        )
        .is_ok_and(|k| {
            !matches!(
                coil_cuda::render::plan_kernel(&k, &self.caps).strategy,
                coil_cuda::render::Strategy::Looped { .. }
            ) || k.numel() > 1
        })
    }
}

impl FusionStrategy for ConsecutiveRuns {
    fn name(&self) -> &'static str {
        "consecutive-runs"
    }

    fn fuse(&self, sched: &mut Schedule<'_>, _loops: &dyn LoopCompat) -> Result<(), SchedError> {
        let mut groups = coil_testkit::runs_between_externs(sched);
        groups.retain(|g| self.fusable(sched, g));
        sched.fuse_groups(&groups)?;
        Ok(())
    }
}

/// Compiles `g` through the facade for `backend` (every verifier on), one kernel per realized
/// buffer or, with `fuse`, [`ConsecutiveRuns`]; runs it once on `inputs`; the outputs.
pub(crate) fn run(
    backend: &CudaBackend,
    g: &Graph,
    inputs: &[Tensor],
    fuse: bool,
) -> Result<Vec<Tensor>, String> {
    let strategy: coil_sched::SharedStrategy = if fuse {
        Arc::new(ConsecutiveRuns {
            caps: coil_cuda::GpuCaps::h200(),
        })
    } else {
        Arc::new(coil_sched::NoFusion)
    };
    let options = coil::Options {
        strategy,
        verify: true,
        ..coil::Options::default()
    };
    let model = coil::compile(g, Arc::new(backend.clone()), &options)
        .map_err(|e| format!("compile: {e}"))?;
    Ok(model
        .run(inputs)
        .map_err(|e| format!("run: {e}"))?
        .iter()
        .map(Tensor::contiguous)
        .collect())
}

/// Largest absolute and relative differences (NaNs must match; infinities must be equal).
pub(crate) fn compare(got: &Tensor, want: &Tensor) -> Result<(f64, f64), String> {
    if got.sizes() != want.sizes() {
        return Err(format!("sizes {:?} vs {:?}", got.sizes(), want.sizes()));
    }
    let (g, w) = (got.to_f64_vec(), want.to_f64_vec());
    let mut abs = 0f64;
    let mut rel = 0f64;
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        if a.is_nan() || b.is_nan() {
            if a.is_nan() != b.is_nan() {
                return Err(format!("element {i}: {a} vs {b}"));
            }
            continue;
        }
        if a.is_infinite() || b.is_infinite() {
            if a != b {
                return Err(format!("element {i}: {a} vs {b}"));
            }
            continue;
        }
        let d = (a - b).abs();
        abs = abs.max(d);
        rel = rel.max(d / b.abs().max(1e-6));
    }
    Ok((abs, rel))
}
