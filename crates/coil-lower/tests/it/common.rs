//! Helpers shared by the tests: graphs from text, lowering, and tensor comparison.

use coil_graph::{Graph, Tensor};
use coil_lower::{LowerConfig, LoweredGraph};

/// Parses readable-FX text, panicking with the error (test input is ours).
pub(crate) fn graph(text: &str) -> Graph {
    coil_graph::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Lowers with a config, panicking with the error.
pub(crate) fn lower_with(g: &Graph, config: &LowerConfig) -> LoweredGraph {
    coil_lower::lower(g, config).unwrap_or_else(|e| panic!("{e}"))
}

/// Lowers with Inductor's defaults.
pub(crate) fn lower(g: &Graph) -> LoweredGraph {
    lower_with(g, &LowerConfig::gpu())
}

/// Max abs difference allowed, relative to the magnitude: `|a - b| <= atol + rtol * |b|`.
pub(crate) fn assert_close(what: &str, got: &Tensor, want: &Tensor, atol: f64, rtol: f64) {
    assert_eq!(got.sizes(), want.sizes(), "{what}: sizes");
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    let (g, w) = (got.to_f64_vec(), want.to_f64_vec());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= atol + rtol * b.abs();
        assert!(ok, "{what}: element {i}: got {a}, want {b}");
    }
}

/// What the graph computes, by the reference interpreter (coil-eager).
pub(crate) fn reference(g: &Graph, inputs: &[Tensor]) -> Vec<Tensor> {
    coil_eager::run(g, inputs)
        .unwrap_or_else(|e| panic!("{e}\n{g}"))
        .outputs
}
