//! Random graphs (coil-testkit's generator, every op family: pointwise chains, branches,
//! broadcasts, reductions over random axes, views, cat, matmuls, f32 and i64) through every
//! strategy: the lowered graph and the schedule verify (`LoweredGraph::verify`,
//! `Schedule::verify`: each live operation is scheduled exactly once, every dependency is
//! respected, so no fused group forms a cycle, kernel-local buffers are read by no other
//! kernel), and running the buffers in the schedule's order through the lowering's
//! interpreter computes what coil-eager computes.

use coil_lower::LowerConfig;
use coil_sched::{
    CppLoops, FusionStrategy, InductorGreedy, InductorScorer, LoopCompat, NoFusion,
    RegisterPressureScorer, SchedConfig, SimdLoops, TvmFuseOps,
};
use coil_testkit::{GraphConfig, RandomGraph, check_outputs, random_graph};
use proptest::prelude::*;

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
            l.verify().map_err(|e| TestCaseError::fail(format!("{what}: lowered graph: {e}\n{g}")))?;
            let order = s.verify().map_err(|e| {
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Zero-size, size-1 and 0-d inputs (issue 16): every strategy still gives a schedule
    /// that verifies and computes what coil-eager computes.
    #[test]
    fn schedules_of_graphs_with_empty_unit_and_scalar_dims_are_sound(
        case in random_graph(&GraphConfig { rank: 0..4, dim: 0..3, ..GraphConfig::default() }),
    ) {
        let RandomGraph { graph: g, inputs: ins } = case;
        let Ok(reference) = coil_eager::run(&g, &ins) else {
            return Ok(());
        };
        let greedy = InductorGreedy::new(InductorScorer);
        let tvm = TvmFuseOps::default();
        let cases: Vec<(&str, LowerConfig, SchedConfig, &dyn LoopCompat, &dyn FusionStrategy)> = vec![
            ("inductor cpu", LowerConfig::cpu(), SchedConfig::cpu(), &CppLoops, &greedy),
            ("inductor gpu", LowerConfig::gpu(), SchedConfig::gpu(), &SimdLoops, &greedy),
            ("tvm", tvm.lower_config(&LowerConfig::cpu()), SchedConfig::cpu(), &CppLoops, &tvm),
            ("none", LowerConfig::cpu(), SchedConfig::cpu(), &CppLoops, &NoFusion),
        ];
        for (what, lconfig, sconfig, loops, strategy) in cases {
            let l = coil_lower::lower(&g, &lconfig).map_err(|e| TestCaseError::fail(format!("{what}: {e}\n{g}")))?;
            l.verify().map_err(|e| TestCaseError::fail(format!("{what}: lowered graph: {e}\n{g}")))?;
            let s = coil_sched::schedule(&l, sconfig, loops, strategy)
                .map_err(|e| TestCaseError::fail(format!("{what}: {e}\n{g}")))?;
            let order = s.verify().map_err(|e| TestCaseError::fail(format!("{what}: {e}\n{g}")))?;
            let got = l.evaluate_in_order(&ins, &order)
                .map_err(|e| TestCaseError::fail(format!("{what}: {e}\n{g}")))?;
            check_outputs(&got, &reference.outputs, 1e-4, 1e-4)
                .map_err(|e| TestCaseError::fail(format!("{what}: {e}\n{g}")))?;
        }
    }
}
