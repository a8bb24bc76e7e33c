//! Random graphs with zero-size, size-1 and 0-d inputs (issue 16's property tests): every
//! strategy compiles them on the reference evaluator's backend and computes what coil-eager
//! computes, or both reject the graph; nothing panics.

use std::sync::Arc;

use coil::Options;
use coil_codegen::{Backend, InterpBackend};
use coil_testkit::{GraphConfig, RandomGraph, check_outputs, random_graph};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn graphs_with_empty_unit_and_scalar_dims_match_eager(
        case in random_graph(&GraphConfig {
            rank: 0..4,
            dim: 0..3,
            ..GraphConfig::default()
        }),
    ) {
        let RandomGraph { graph: g, inputs } = case;
        let Ok(want) = coil_eager::run(&g, &inputs) else {
            return Ok(()); // eager rejects it (PyTorch would too): nothing to compare
        };
        let backend: Arc<dyn Backend> = Arc::new(InterpBackend::new());
        for strategy in coil::builtin_strategies() {
            let name = strategy.name();
            let options = Options { strategy, verify: true, ..Options::default() };
            let model = coil::compile(&g, backend.clone(), &options)
                .map_err(|e| TestCaseError::fail(format!("{name}: {e}\n{g}")))?;
            let got = model.run(&inputs)
                .map_err(|e| TestCaseError::fail(format!("{name}: {e}\n{g}")))?;
            check_outputs(&got, &want.outputs, 1e-5, 1e-4)
                .map_err(|e| TestCaseError::fail(format!("{name}: {e}\n{g}")))?;
        }
    }
}
