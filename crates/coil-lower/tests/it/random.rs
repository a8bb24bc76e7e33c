//! Random graphs (coil-testkit's generator, every op family): the lowered IR evaluates to
//! what the reference computes, under every lowering config; a second property draws rank 0-3
//! with dims 0-2 (zero-size, size-1 and 0-d tensors).

use coil_lower::LowerConfig;
use coil_testkit::{GraphConfig, RandomGraph, check_outputs, random_graph};
use proptest::prelude::*;

/// Lowers `case` under every config and evaluates it against coil-eager. A graph PyTorch
/// rejects (amax over a zero-size dim) is skipped.
fn lowers_to_what_eager_computes(case: RandomGraph) -> Result<(), TestCaseError> {
    let RandomGraph {
        graph: g,
        inputs: ins,
    } = case;
    let Ok(reference) = coil_eager::run(&g, &ins) else {
        return Ok(());
    };
    for config in [
        LowerConfig::gpu(),
        LowerConfig::cpu(),
        LowerConfig {
            inline_all: false,
            ..LowerConfig::gpu()
        },
        LowerConfig {
            realize_opcount_threshold: 3,
            realize_reads_threshold: 1,
            ..LowerConfig::gpu()
        },
    ] {
        let l =
            coil_lower::lower(&g, &config).map_err(|e| TestCaseError::fail(format!("{e}\n{g}")))?;
        let got = l.evaluate(&ins).map_err(|e| {
            TestCaseError::fail(format!(
                "{e}\nconfig {config:?}\n{g}\n{}",
                l.ir_pre_fusion()
            ))
        })?;
        if let Err(e) = check_outputs(&got, &reference.outputs, 1e-4, 1e-4) {
            return Err(TestCaseError::fail(format!(
                "{e}\nconfig {config:?}\n{g}\n{}",
                l.ir_pre_fusion()
            )));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn lowered_graphs_compute_what_the_reference_does(
        case in random_graph(&GraphConfig::default()),
    ) {
        lowers_to_what_eager_computes(case)?;
    }

    #[test]
    fn lowered_graphs_with_empty_unit_and_scalar_dims_compute_what_the_reference_does(
        case in random_graph(&GraphConfig { rank: 0..4, dim: 0..3, ..GraphConfig::default() }),
    ) {
        lowers_to_what_eager_computes(case)?;
    }
}
