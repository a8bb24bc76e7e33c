//! Random graphs (coil-testkit's generator, every op family): the lowered IR evaluates to
//! what the reference computes, under every lowering config.

use coil_lower::LowerConfig;
use coil_testkit::{GraphConfig, RandomGraph, check_outputs, random_graph};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn lowered_graphs_compute_what_the_reference_does(
        case in random_graph(&GraphConfig::default()),
    ) {
        let RandomGraph { graph: g, inputs: ins } = case;
        let reference = crate::common::reference(&g, &ins);
        for config in [
            LowerConfig::gpu(),
            LowerConfig::cpu(),
            LowerConfig { inline_all: false, ..LowerConfig::gpu() },
            LowerConfig { realize_opcount_threshold: 3, realize_reads_threshold: 1, ..LowerConfig::gpu() },
        ] {
            let l = coil_lower::lower(&g, &config).map_err(|e| TestCaseError::fail(format!("{e}\n{g}")))?;
            let got = l.evaluate(&ins).map_err(|e| TestCaseError::fail(format!("{e}\n{g}")))?;
            if let Err(e) = check_outputs(&got, &reference, 1e-4, 1e-4) {
                return Err(TestCaseError::fail(format!("{e}\nconfig {config:?}\n{g}\n{}", l.ir_pre_fusion())));
            }
        }
    }
}
