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

/// Found by the property test above: under TVM's fusion, a `cat` padded by `constant_pad_nd`
/// shares one kernel whose padding test compares an index with an i64 constant 0 that the
/// value builder had merged with an f32 constant 0 of the same stage (the verifier: `ge(v13,
/// v9) mixes i64 and f32`). Constants of different dtypes are two values now.
#[test]
fn a_padded_cat_under_every_strategy_passes_the_verifier() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, in0: "f32[1, 1]"):
        add: "f32[1, 1]" = torch.ops.aten.add.Tensor(in0, in0)
        cat: "f32[1, 2]" = torch.ops.aten.cat.default([in0, add], 1);  add = None
        constant_pad_nd: "f32[1, 2]" = torch.ops.aten.constant_pad_nd.default(cat, [1, -1, 0, 0], 0.5);  cat = None
        return (constant_pad_nd,)
"#;
    let g = coil_graph::parse(text).unwrap();
    let inputs = vec![coil_graph::Tensor::from_f32(vec![3.0], vec![1, 1]).unwrap()];
    let want = coil_eager::run(&g, &inputs).unwrap().outputs;
    let backend: Arc<dyn Backend> = Arc::new(InterpBackend::new());
    for strategy in coil::builtin_strategies() {
        let name = strategy.name();
        let options = Options {
            strategy,
            verify: true,
            ..Options::default()
        };
        let model =
            coil::compile(&g, backend.clone(), &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = model.run(&inputs).unwrap();
        check_outputs(&got, &want, 1e-6, 1e-6).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
