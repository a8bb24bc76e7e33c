//! Fusion strategies for tests (feature `zoo`): fusions the built-in strategies would not make,
//! handed to `coil::compile` like any strategy, so backend tests run their kernels through the
//! facade instead of a driver of their own.

use coil_sched::{FusionStrategy, LoopCompat, NodeId, SchedError, Schedule};

/// The runs of consecutive computed nodes (in execution order) between extern and nop nodes,
/// of two nodes or more. A run is convex (a path leaving it would pass a node between two of
/// its members, which is in the run), so fusing it creates no cycle.
pub fn runs_between_externs(sched: &Schedule<'_>) -> Vec<Vec<NodeId>> {
    let mut groups = vec![Vec::new()];
    for &n in sched.order() {
        if sched.node(n).is_extern_or_nop() {
            groups.push(Vec::new());
        } else if let Some(g) = groups.last_mut() {
            g.push(n);
        }
    }
    groups.retain(|g| g.len() > 1);
    groups
}

/// Every computed node in one kernel: each of [`runs_between_externs`] becomes one group, so
/// a graph without extern calls is one kernel.
#[derive(Clone, Copy, Debug, Default)]
pub struct AllInOne;

impl FusionStrategy for AllInOne {
    fn name(&self) -> &'static str {
        "all-in-one"
    }

    fn fuse(&self, sched: &mut Schedule<'_>, _loops: &dyn LoopCompat) -> Result<(), SchedError> {
        let groups = runs_between_externs(sched);
        let fused: usize = groups.iter().map(Vec::len).sum();
        sched.fuse_groups(&groups)?;
        sched.log_line(format!(
            "all-in-one: {fused} nodes in {} groups",
            groups.len()
        ));
        Ok(())
    }
}
