//! Fusion strategies: [`FusionStrategy`] turns an unfused schedule into a fused one.
//! [`InductorGreedy`] is Inductor's `fuse_nodes` with a pluggable scorer, [`NoFusion`] fuses
//! nothing (the lowering's inlining still applies); `TvmFuseOps` lives in `tvm.rs`.

use std::sync::Arc;

use coil_lower::LowerConfig;

use crate::error::SchedError;
use crate::loops::LoopCompat;
use crate::schedule::Schedule;
use crate::score::{FusionScorer, InductorScorer, RegisterPressureScorer};
use crate::tvm::TvmFuseOps;

/// A way to decide which nodes run together. Object-safe and shareable across threads (the
/// facade's options hold one as an `Arc<dyn FusionStrategy>`).
///
/// A strategy outside this crate fuses through the schedule's public primitives:
/// [`Schedule::fuse_pair`] (two nodes, with the [`crate::LoopPlan`] the loop rules gave,
/// after [`Schedule::can_fuse`] and the cycle check), [`Schedule::fuse_group`] and
/// [`Schedule::fuse_groups`]. Whoever drives it must lower the graph with
/// [`FusionStrategy::lower_config`] of the backend's config (the facade does).
pub trait FusionStrategy: Send + Sync {
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

impl<S: FusionScorer + Send + Sync> FusionStrategy for InductorGreedy<S> {
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

/// A shared, thread-safe strategy, as the facade's options hold one.
pub type SharedStrategy = Arc<dyn FusionStrategy>;

/// The built-in strategies' constructors. Their names are their own [`FusionStrategy::name`]s,
/// so each name is written once, in the strategy.
const BUILTIN: &[fn() -> SharedStrategy] = &[
    || Arc::new(InductorGreedy::new(InductorScorer)),
    || Arc::new(InductorGreedy::new(RegisterPressureScorer::default())),
    || Arc::new(TvmFuseOps::default()),
    || Arc::new(NoFusion),
];

/// Every built-in strategy, in the registry's order (`inductor`, `inductor-regpressure`,
/// `tvm`, `none`).
pub fn builtin_strategies() -> Vec<SharedStrategy> {
    BUILTIN.iter().map(|make| make()).collect()
}

/// The built-in strategies' names, in the registry's order.
pub fn builtin_strategy_names() -> Vec<&'static str> {
    builtin_strategies().iter().map(|s| s.name()).collect()
}

/// The built-in strategy called `name`.
pub fn builtin_strategy(name: &str) -> Result<SharedStrategy, SchedError> {
    builtin_strategies()
        .into_iter()
        .find(|s| s.name() == name)
        .ok_or_else(|| SchedError::UnknownStrategy {
            name: name.to_string(),
            known: builtin_strategy_names().join(", "),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_finds_every_builtin_by_its_own_name() {
        let names = builtin_strategy_names();
        assert_eq!(names, ["inductor", "inductor-regpressure", "tvm", "none"]);
        for n in names {
            assert_eq!(builtin_strategy(n).map(|s| s.name()).ok(), Some(n));
        }
        let err = builtin_strategy("greedy").err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("unknown fusion strategy 'greedy' (inductor, inductor-regpressure, tvm, none)")
        );
    }
}
