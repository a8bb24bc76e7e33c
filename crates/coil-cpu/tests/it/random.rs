//! Random graphs (coil-testkit's generator, every op family, as in coil-lower's and
//! coil-sched's tests) compiled one kernel per buffer by `CpuBackend` and run against
//! coil-eager.

use coil_testkit::{GraphConfig, RandomGraph, check_outputs, random_graph};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_graphs_compiled_per_buffer_equal_eager(
        case in random_graph(&GraphConfig::default()),
    ) {
        let RandomGraph { graph: g, inputs: ins } = case;
        let reference = crate::driver::eager(&g, &ins);
        let l = crate::driver::lower(&g);
        let groups = crate::driver::per_buffer(&l);
        let got = crate::driver::run(crate::driver::backend(), &l, &groups, &ins)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{g}\n{}", l.ir_pre_fusion())))?;
        if let Err(e) = check_outputs(&got.outputs, &reference, 1e-4, 1e-4) {
            return Err(TestCaseError::fail(format!("{e}\n{g}\n{}", l.ir_pre_fusion())));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Zero-size, size-1 and 0-d inputs (issue 16): compiled for the CPU, fused into one
    /// kernel where the scheduler allows it, equal to coil-eager or rejected by both.
    #[test]
    fn random_graphs_with_empty_unit_and_scalar_dims_equal_eager(
        case in random_graph(&GraphConfig { rank: 0..4, dim: 0..3, ..GraphConfig::default() }),
    ) {
        let RandomGraph { graph: g, inputs: ins } = case;
        let Ok(reference) = coil_eager::run(&g, &ins) else {
            return Ok(());
        };
        let l = crate::driver::lower(&g);
        for fusion in [crate::driver::per_buffer(&l), crate::driver::all_in_one(&l)] {
            let got = crate::driver::run(crate::driver::backend(), &l, &fusion, &ins)
                .map_err(|e| TestCaseError::fail(format!("{fusion:?}: {e}\n{g}")))?;
            check_outputs(&got.outputs, &reference.outputs, 1e-4, 1e-4)
                .map_err(|e| TestCaseError::fail(format!("{fusion:?}: {e}\n{g}")))?;
        }
    }
}
