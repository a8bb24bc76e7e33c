//! Shared helpers: run the passes, evaluate before and after with coil-eager.

use coil_graph::{Data, Graph, Tensor};
use coil_passes::{PassConfig, PassStats, run_passes};

/// Parses `text`, runs exactly the passes in `switches` (plus nothing else), checks that eager
/// evaluation is unchanged, and returns the printed result.
pub(crate) fn run(switches: &str, text: &str) -> (String, PassStats) {
    let g = coil_graph::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut cfg = PassConfig::none();
    cfg.apply_switches(switches).expect("known passes");
    let (out, stats) = run_passes(&g, &cfg).expect("passes succeed");
    assert_same_results(&g, &out, 1e-5);
    (coil_graph::print_graph(&out), stats)
}

/// Deterministic inputs for a graph: floats in [-2, 2), ints in [0, 6], bools fair coins.
pub(crate) fn inputs_for(g: &Graph, seed: u64) -> Vec<Tensor> {
    let mut rng = coil_testkit::Rng::new(seed);
    g.inputs()
        .iter()
        .map(|&i| {
            let m = g.node(i).meta();
            let vals: Vec<f64> = (0..m.numel())
                .map(|_| match m.dtype {
                    coil_graph::DType::Bool => f64::from(u8::from(rng.coin())),
                    d if d.is_float() => rng.uniform(-2.0, 2.0),
                    _ => rng.int(0, 6) as f64,
                })
                .collect();
            Tensor::new(Data::from_f64(m.dtype, vals.into_iter()), m.sizes.clone())
                .expect("sizes match")
        })
        .collect()
}

/// Evaluates both graphs on the same inputs and compares outputs elementwise.
pub(crate) fn assert_same_results(a: &Graph, b: &Graph, rtol: f64) {
    let inputs = inputs_for(a, 7);
    let ra = coil_eager::run(a, &inputs).expect("eager runs the input graph");
    let rb = coil_eager::run(b, &inputs).expect("eager runs the rewritten graph");
    assert_close(&ra.outputs, &rb.outputs, rtol);
}

/// Elementwise closeness with an absolute floor of `rtol` (NaN equals NaN).
pub(crate) fn assert_close(a: &[Tensor], b: &[Tensor], rtol: f64) {
    assert_eq!(a.len(), b.len(), "output count");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert_eq!(x.sizes(), y.sizes(), "output {i} sizes");
        assert_eq!(x.dtype(), y.dtype(), "output {i} dtype");
        for (p, q) in x.to_f64_vec().into_iter().zip(y.to_f64_vec()) {
            let same =
                (p.is_nan() && q.is_nan()) || p == q || (p - q).abs() <= rtol * q.abs().max(1.0);
            assert!(same, "output {i}: {p} vs {q}");
        }
    }
}
