//! coil-sched: the scheduler. It decides which realized buffers run together in one kernel.
//!
//! **Takes**: a [`coil_lower::LoweredGraph`], a [`SchedConfig`] (Inductor's fusion brakes,
//! the device, kernel naming), the backend's loop rules as a [`LoopCompat`] object
//! ([`SimdLoops`] and [`CppLoops`] are the reference rules) and a [`FusionStrategy`]
//! ([`InductorGreedy`] with a [`FusionScorer`], [`TvmFuseOps`], [`NoFusion`]).
//! **Gives**: a [`Schedule`]: scheduler nodes in execution order, each one kernel (its member
//! operations `op<n>` = buffers `buf<n>`, group, loop sizes, read/write sets, dependencies),
//! the kernels' names, kinds and byte counts ([`Schedule::kernels`]), the fusion log in
//! Inductor's words ([`Schedule::fusion_log`], also `tracing` events at target `fusion`), and
//! the dumps `ir_post_fusion.txt` and `graph.dot`.
//! **Must not know about**: LLVM, PTX, code generation, how a backend runs kernels; it asks
//! the backend only the two loop questions of [`LoopCompat`]. It never prints or reads the
//! environment.
//!
//! Scheduling follows Inductor's `Scheduler`: nodes, dependencies, topological sort, dead-code
//! elimination and ancestors ([`Schedule::new`]), then the strategy's fusion. Inductor's
//! greedy `fuse_nodes` runs up to 10 rounds: candidate pairs share a buffer, pass
//! [`Schedule::can_fuse`] (every refusal a [`WhyNoFuse`]), keep only the most urgent loop
//! priority, go best [`FusionScore`] first, and fuse unless that would create a cycle. See
//! `docs/scheduler.md`.
//!
//! ```
//! let text = r#"
//! class GraphModule(torch.nn.Module):
//!     def forward(self, x: "f32[1024, 1024]"):
//!         amax: "f32[1024]" = torch.ops.aten.amax.default(x, [1])
//!         sum_1: "f32[1024]" = torch.ops.aten.sum.dim_IntList(x, [1]);  x = None
//!         return (amax, sum_1)
//! "#;
//! let graph = coil_graph::parse(text)?;
//! let lowered = coil_lower::lower(&graph, &coil_lower::LowerConfig::cpu())?;
//! let strategy = coil_sched::InductorGreedy::new(coil_sched::InductorScorer);
//! let sched = coil_sched::schedule(
//!     &lowered,
//!     coil_sched::SchedConfig::cpu(),
//!     &coil_sched::CppLoops,
//!     &strategy,
//! )?;
//! assert_eq!(sched.fusion_log().iter().filter(|l| l.starts_with("fusing")).count(), 1);
//! let kernels = sched.kernels();
//! assert_eq!(kernels.len(), 1);
//! assert_eq!(kernels[0].name, "cpu_per_fused_amax_sum_0");
//! assert_eq!(kernels[0].bytes_read, 4 << 20); // x, read once
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod config;
mod deps;
mod dump;
mod error;
mod fuse;
mod ids;
mod init;
mod kernel;
mod loops;
mod node;
mod schedule;
mod score;
mod strategy;
mod summary;
mod template;
mod tvm;
mod verify;
mod why;

pub use config::{Device, SchedConfig, Template};
pub use deps::DepId;
pub use error::SchedError;
pub use ids::{NodeId, OpId, OpSet};
pub use kernel::{KernelInfo, LaunchKind};
pub use loops::{CppLoops, LoopCompat, LoopPlan, SimdLoops, is_compatible, loops_for};
pub use node::{Group, LoopSizes, NodeKind, OuterLoop, ReadWrites, SchedNode};
pub use schedule::Schedule;
pub use score::{
    FusionKind, FusionScore, FusionScorer, InductorScorer, RegisterPressureScorer,
    estimate_live_values,
};
pub use strategy::{
    FusionStrategy, InductorGreedy, NoFusion, SharedStrategy, builtin_strategies, builtin_strategy,
    builtin_strategy_names,
};
pub use summary::ScheduleSummary;
pub use template::{TemplateChoice, choose_epilogues, template_epilogues};
pub use tvm::{OpPatternKind, TvmFuseOps, op_pattern};
pub use why::WhyNoFuse;

/// Schedules `graph`: builds the unfused schedule, lets `strategy` fuse it (asking `loops`
/// about loops), and names the kernels.
pub fn schedule<'g>(
    graph: &'g coil_lower::LoweredGraph,
    config: SchedConfig,
    loops: &dyn LoopCompat,
    strategy: &dyn FusionStrategy,
) -> Result<Schedule<'g>, SchedError> {
    let mut sched = Schedule::new(graph, config)?;
    sched.strategy = strategy.name();
    strategy.fuse(&mut sched, loops)?;
    sched.finish();
    Ok(sched)
}
