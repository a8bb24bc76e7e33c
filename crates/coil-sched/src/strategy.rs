//! Fusion strategies: [`FusionStrategy`] turns an unfused schedule into a fused one.
//! [`InductorGreedy`] is Inductor's `fuse_nodes` with a pluggable scorer, [`NoFusion`] fuses
//! nothing (the lowering's inlining still applies); `TvmFuseOps` lives in `tvm.rs`.

use coil_lower::LowerConfig;

use crate::error::SchedError;
use crate::loops::LoopCompat;
use crate::schedule::Schedule;
use crate::score::{FusionScorer, InductorScorer};

/// A way to decide which nodes run together. Object-safe.
pub trait FusionStrategy {
    /// The strategy's name (`inductor`, `tvm`, `none`).
    fn name(&self) -> &'static str;

    /// The lowering this strategy expects, given the backend's: Inductor recomputes cheap
    /// values by inlining them; TVM never recomputes, so it realizes every op.
    fn lower_config(&self, base: &LowerConfig) -> LowerConfig {
        base.clone()
    }

    /// Fuses `sched`'s nodes, asking `loops` whether loops can be stitched.
    fn fuse(&self, sched: &mut Schedule<'_>, loops: &dyn LoopCompat) -> Result<(), SchedError>;
}

/// Inductor's greedy `fuse_nodes` (candidates by shared buffers, `can_fuse`, the priority
/// filter, score order, the cycle check, up to 10 rounds), ranking and braking with `S`.
#[derive(Clone, Copy, Debug, Default)]
pub struct InductorGreedy<S = InductorScorer> {
    /// The scorer.
    pub scorer: S,
}

impl<S: FusionScorer> InductorGreedy<S> {
    /// The greedy strategy with this scorer.
    pub fn new(scorer: S) -> InductorGreedy<S> {
        InductorGreedy { scorer }
    }
}

impl<S: FusionScorer> FusionStrategy for InductorGreedy<S> {
    fn name(&self) -> &'static str {
        self.scorer.name()
    }

    fn fuse(&self, sched: &mut Schedule<'_>, loops: &dyn LoopCompat) -> Result<(), SchedError> {
        sched.fuse_nodes(loops, &self.scorer)
    }
}

/// No scheduler fusion: one kernel per realized buffer.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFusion;

impl FusionStrategy for NoFusion {
    fn name(&self) -> &'static str {
        "none"
    }

    fn fuse(&self, sched: &mut Schedule<'_>, _loops: &dyn LoopCompat) -> Result<(), SchedError> {
        let n = sched.order().len();
        sched.log_line(format!("no fusion: {n} nodes"));
        Ok(())
    }
}
