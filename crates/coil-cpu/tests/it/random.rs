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
