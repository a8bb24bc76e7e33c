//! Row pipelining: a reduction kernel whose last stage only writes (softmax's `e / sum`) runs
//! that stage one row late, inside the loop of the stage before it. Row `r`'s stores then go
//! out while row `r + 1` computes (softmax: while its `exp` runs), instead of in a loop of
//! their own in which the core waits on memory with nothing to compute. The row cache is
//! double-buffered (row `r`'s values stay readable while row `r + 1` fills the other array),
//! the finished accumulators the late stage reads are kept in stack slots from one row to the
//! next, and the last row of a thread's range runs its late stage after the loop over rows.
//! Every value is computed exactly as without pipelining; only the order of the stores changes.

use coil_codegen::{AccId, ArgRole, KExpr, Kernel, KernelKind, StageKind};

use super::rowcache::{self, CachedValue};

/// Which stages a pipelined kernel overlaps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PipelinePlan {
    /// The stage whose loop also runs the late stage of the previous row.
    pub(crate) host: usize,
    /// The late stage: the kernel's last.
    pub(crate) late: usize,
    /// Finished accumulators the late stage reads, carried to the next row.
    pub(crate) accs: Vec<AccId>,
}

/// The plan for `k`, if pipelining suits it: every stage a reduction stage over the same
/// reduction loop (so the late stage can share the host's loop positions); the last stage
/// stores and accumulates nothing, loads only buffers the kernel never writes, and reads no
/// value of another stage except finished accumulators and row-cache entries; the stage before
/// it computes at least `min_host_cost` per element ([`rowcache::stage_cost`]): there must be
/// work to overlap the stores with. `cached` is the kernel's row cache, which then needs twice
/// its bytes (at most `max_scratch_bytes`).
pub(crate) fn plan(
    k: &Kernel,
    cached: &[CachedValue],
    min_host_cost: u32,
    max_scratch_bytes: usize,
) -> Option<PipelinePlan> {
    if !matches!(k.kind, KernelKind::Reduction { .. }) || k.stages.len() < 2 {
        return None;
    }
    if k.stages.iter().any(|s| s.kind != StageKind::Reduction) {
        return None;
    }
    let late = k.stages.len() - 1;
    let host = late - 1;
    let stage = &k.stages[late];
    if stage.stores.is_empty() || !stage.accumulators.is_empty() {
        return None;
    }
    let written: Vec<_> = k
        .args
        .iter()
        .enumerate()
        .filter(|(_, a)| a.role != ArgRole::Input)
        .map(|(i, _)| i)
        .collect();
    let mut accs = Vec::new();
    for &v in &stage.values {
        if cached.iter().any(|c| c.users.contains(&v)) {
            continue;
        }
        match k.expr(v) {
            KExpr::Load { arg, .. } if written.contains(&(arg.0 as usize)) => return None,
            KExpr::Acc(a) => {
                if !accs.contains(a) {
                    accs.push(*a);
                }
            }
            e => {
                if e.operands().iter().any(|o| !stage.values.contains(o)) {
                    return None;
                }
            }
        }
    }
    let bytes: usize = cached.iter().map(|c| c.dtype.itemsize() * k.rnumel()).sum();
    if 2 * bytes > max_scratch_bytes || rowcache::stage_cost(k, host, cached) < min_host_cost {
        return None;
    }
    Some(PipelinePlan { host, late, accs })
}
