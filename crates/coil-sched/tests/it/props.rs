//! Random graphs (coil-testkit's generator, every op family: pointwise chains, branches,
//! broadcasts, reductions over random axes, views, cat, matmuls, f32 and i64) through every
//! strategy: each live operation is scheduled exactly once, every dependency is respected (so
//! no fused group forms a cycle), kernel-local buffers are read by no other kernel, and running the buffers in the schedule's order through the lowering's
//! interpreter computes what coil-eager computes.

use coil_lower::{BufRef, BufferId, LowerConfig, LoweredGraph};
use coil_sched::{
    CppLoops, FusionStrategy, InductorGreedy, InductorScorer, LoopCompat, NoFusion, OpId,
    RegisterPressureScorer, SchedConfig, Schedule, SimdLoops, TvmFuseOps,
};
use coil_testkit::{GraphConfig, RandomGraph, check_outputs, random_graph};
use proptest::prelude::*;

/// The schedule's invariants; returns the buffers in execution order.
fn check(l: &LoweredGraph, s: &Schedule<'_>) -> Result<Vec<BufferId>, String> {
    let mut pos: Vec<Option<(usize, usize)>> = vec![None; l.buffers().len()];
    let mut order = Vec::new();
    for (i, node) in s.nodes().enumerate() {
        for (j, &op) in node.ops().iter().enumerate() {
            if pos[op.index()].replace((i, j)).is_some() {
                return Err(format!("{op} is scheduled twice"));
            }
            if s.node_of(op) != Some(node.id()) {
                return Err(format!("{op} maps to the wrong node"));
            }
            order.push(op.buffer());
        }
    }
    for b in l.buffers() {
        let op = OpId::of_buffer(b.id);
        let removed = s.removed().contains(&op);
        match (pos[op.index()], removed) {
            (None, false) => return Err(format!("{op} is neither scheduled nor removed")),
            (Some(_), true) => return Err(format!("{op} is scheduled and removed")),
            _ => {}
        }
        let Some(at) = pos[op.index()] else { continue };
        for &p in s.preds(op) {
            match pos[p.index()] {
                Some(pa) if pa < at => {}
                _ => return Err(format!("{op} runs before {p}, which it depends on")),
            }
        }
    }
    // Kernel-local buffers are read by no other kernel.
    for k in s.kernels() {
        for &local in &k.local {
            for other in s.kernels().iter().filter(|o| o.node != k.node) {
                if other.reads.contains(&local) {
                    return Err(format!(
                        "{} reads {local:?}, local to {}",
                        other.name, k.name
                    ));
                }
            }
            if let BufRef::Buffer(b) = local
                && s.is_output(b)
            {
                return Err(format!("{b} is returned but local to {}", k.name));
            }
        }
    }
    Ok(order)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_strategy_schedules_soundly(
        case in random_graph(&GraphConfig::default()),
    ) {
        let RandomGraph { graph: g, inputs: ins } = case;
        let reference = coil_eager::run(&g, &ins).map_err(|e| TestCaseError::fail(format!("{e}\n{g}")))?.outputs;
        let no_inline = LowerConfig { inline_all: false, ..LowerConfig::cpu() };
        let greedy = InductorGreedy::new(InductorScorer);
        let tight = InductorGreedy::new(RegisterPressureScorer::new(4));
        let tvm = TvmFuseOps::default();
        let cases: Vec<(&str, LowerConfig, SchedConfig, &dyn LoopCompat, &dyn FusionStrategy)> = vec![
            ("inductor cpu", LowerConfig::cpu(), SchedConfig::cpu(), &CppLoops, &greedy),
            ("inductor gpu", LowerConfig::gpu(), SchedConfig::gpu(), &SimdLoops, &greedy),
            ("inductor cpu, no inlining", no_inline.clone(), SchedConfig::cpu(), &CppLoops, &greedy),
            ("inductor gpu, no inlining", no_inline.clone(), SchedConfig::gpu(), &SimdLoops, &greedy),
            ("register pressure", no_inline.clone(), SchedConfig::cpu(), &CppLoops, &tight),
            ("tvm", tvm.lower_config(&LowerConfig::cpu()), SchedConfig::cpu(), &CppLoops, &tvm),
            ("none", LowerConfig::cpu(), SchedConfig::cpu(), &CppLoops, &NoFusion),
        ];
        for (what, lconfig, sconfig, loops, strategy) in cases {
            let l = coil_lower::lower(&g, &lconfig).map_err(|e| TestCaseError::fail(format!("{e}\n{g}")))?;
            let s = coil_sched::schedule(&l, sconfig, loops, strategy)
                .map_err(|e| TestCaseError::fail(format!("{what}: {e}\n{g}")))?;
            let order = check(&l, &s).map_err(|e| {
                TestCaseError::fail(format!("{what}: {e}\n{g}\n{}\n{}", s.ir_post_fusion(), s.fusion_log().join("\n")))
            })?;
            let got = l.evaluate_in_order(&ins, &order)
                .map_err(|e| TestCaseError::fail(format!("{what}: {e}\n{g}\n{}", s.ir_post_fusion())))?;
            if let Err(e) = check_outputs(&got, &reference, 1e-4, 1e-4) {
                return Err(TestCaseError::fail(format!("{what}: {e}\n{g}")));
            }
        }
    }
}
