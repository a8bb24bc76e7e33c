//! Shared helpers: zoo graphs through the passes and the lowering, and scheduling with each
//! strategy and loop rule set.

use coil_graph::Graph;
use coil_lower::{LowerConfig, LoweredGraph};
use coil_sched::{
    CppLoops, FusionStrategy, InductorGreedy, InductorScorer, LoopCompat, SchedConfig, Schedule,
    SimdLoops,
};

/// Parses readable-FX text.
pub(crate) fn parse(text: &str) -> Graph {
    coil_graph::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// A zoo model at article size after the default passes.
pub(crate) fn zoo(name: &str) -> Graph {
    let g = coil_models::find(name)
        .unwrap_or_else(|| panic!("no model {name}"))
        .graph(coil_models::Size::Article)
        .unwrap();
    passes(&g)
}

/// The default passes.
pub(crate) fn passes(g: &Graph) -> Graph {
    coil_passes::run_passes(g, &coil_passes::PassConfig::default())
        .unwrap()
        .0
}

/// Lowers, panicking on errors.
pub(crate) fn lower(g: &Graph, config: &LowerConfig) -> LoweredGraph {
    coil_lower::lower(g, config).unwrap_or_else(|e| panic!("{e}"))
}

/// Schedules with a strategy and loop rules.
pub(crate) fn schedule<'g>(
    l: &'g LoweredGraph,
    config: SchedConfig,
    loops: &dyn LoopCompat,
    strategy: &dyn FusionStrategy,
) -> Schedule<'g> {
    coil_sched::schedule(l, config, loops, strategy).unwrap_or_else(|e| panic!("{e}"))
}

/// Inductor's greedy fusion with the CPU rules and the CPU lowering (run-model's default).
pub(crate) fn inductor_cpu(l: &LoweredGraph) -> Schedule<'_> {
    schedule(
        l,
        SchedConfig::cpu(),
        &CppLoops,
        &InductorGreedy::new(InductorScorer),
    )
}

/// Inductor's greedy fusion with the SIMD rules.
pub(crate) fn inductor_gpu(l: &LoweredGraph) -> Schedule<'_> {
    schedule(
        l,
        SchedConfig::gpu(),
        &SimdLoops,
        &InductorGreedy::new(InductorScorer),
    )
}

/// The log lines that say what fusion decided (no candidates lists or round banners).
pub(crate) fn decisions(s: &Schedule<'_>) -> Vec<String> {
    s.fusion_log()
        .iter()
        .filter(|l| {
            l.starts_with("cannot fuse")
                || l.starts_with("found")
                || l.starts_with("fusing")
                || l.starts_with("completed")
        })
        .cloned()
        .collect()
}

/// Kernel names in execution order.
pub(crate) fn kernel_names(s: &Schedule<'_>) -> Vec<String> {
    s.kernels().iter().map(|k| k.name.clone()).collect()
}
