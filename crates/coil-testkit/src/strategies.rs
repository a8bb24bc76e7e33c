//! Fusion strategies for tests (feature `zoo`): fusions the built-in strategies would not make,
//! handed to `coil::compile` like any strategy, so backend tests run their kernels through the
//! facade instead of a driver of their own.

use coil_sched::{FusionStrategy, LoopCompat, SchedError, Schedule};

/// Every node but extern and nop nodes in one kernel (a graph with an extern call between
/// computed nodes cannot be one group: `fuse_group` refuses a group that is not convex).
#[derive(Clone, Copy, Debug, Default)]
pub struct AllInOne;

impl FusionStrategy for AllInOne {
    fn name(&self) -> &'static str {
        "all-in-one"
    }

    fn fuse(&self, sched: &mut Schedule<'_>, _loops: &dyn LoopCompat) -> Result<(), SchedError> {
        let members: Vec<_> = sched
            .order()
            .iter()
            .copied()
            .filter(|&n| !sched.node(n).is_extern_or_nop())
            .collect();
        if members.len() > 1 {
            sched.fuse_group(&members)?;
        }
        sched.log_line(format!("all-in-one: {} nodes fused", members.len()));
        Ok(())
    }
}
