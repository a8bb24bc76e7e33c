//! One graph with symbolic sizes compiled at many sizes on one CUDA backend, run on the PTX
//! emulator (issue "Dynamic shapes"): from the third size on, each kernel whose outermost range
//! (and whose strides and offsets) alone change with the size launches the general kernel the
//! second size's compile rendered ([`coil_cuda::families`]), with the size as a launch
//! parameter. At every size the results equal coil-eager's, and equal bit for bit those of a
//! compile that renders all of its own code.

use std::sync::Arc;

use coil_codegen::Backend;
use coil_cuda::CudaBackend;

use crate::sizes::{ATTENTION, BATCH, CAT_GATHER, INNER, ROWS, SOFTMAX, bound};

fn reused(model: &coil::CompiledModel) -> usize {
    model.report.machine_code.reused_kernels
}

fn own_code() -> Arc<dyn Backend> {
    Arc::new(CudaBackend::emulated().with_size_families(None))
}

/// Compiles `text` at each size on one backend: the kernels reused at each, after checking
/// every output against coil-eager's and, bit for bit, against a compile of the size's own.
fn run_sizes(text: &str, sizes: &[usize]) -> Vec<(usize, usize)> {
    let shared: Arc<dyn Backend> = Arc::new(CudaBackend::emulated());
    let options = coil::Options::default();
    let mut out = Vec::new();
    for (i, &n) in sizes.iter().enumerate() {
        let g = bound(text, n);
        let inputs = coil_testkit::random_inputs(&g, i as u64 + 3);
        let want = coil_eager::run(&g, &inputs).unwrap().outputs;
        let model = coil::compile(&g, Arc::clone(&shared), &options).unwrap();
        let got = model.run(&inputs).unwrap_or_else(|e| panic!("s0={n}: {e}"));
        coil_testkit::check_outputs(&got, &want, 1e-5, 1e-5)
            .unwrap_or_else(|e| panic!("s0={n}: {e}"));
        let own = coil::compile(&g, own_code(), &options).unwrap();
        assert_eq!(reused(&own), 0);
        for (o, (a, b)) in got.iter().zip(&own.run(&inputs).unwrap()).enumerate() {
            let (a, b) = (a.to_f64_vec(), b.to_f64_vec());
            assert!(
                a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
                "s0={n}: output {o} differs from the size's own code's"
            );
        }
        out.push((reused(&model), model.report.num_kernels));
    }
    out
}

/// `text`'s inputs at `s0 = n`, seeded; an `i64` input (gather rows) holds rows below `rows`.
fn inputs_for(g: &coil_graph::Graph, seed: u64, rows: usize) -> Vec<coil_graph::Tensor> {
    let mut inputs = coil_testkit::random_inputs(g, seed);
    for t in &mut inputs {
        if t.dtype() == coil_graph::DType::I64 {
            let n = t.numel();
            let picks = (0..n).map(|j| ((j * 7 + seed as usize) % rows.max(1)) as f64);
            let data = coil_graph::Data::from_f64(coil_graph::DType::I64, picks);
            *t = coil_graph::Tensor::new(data, t.sizes().to_vec()).unwrap();
        }
    }
    inputs
}

/// Rows of the batch (a norm, a softmax, a permuted copy) launch the general kernels from the
/// third size on; the sum over the batch, whose reduction length is the size, compiles its own
/// code at each. Below a few rows some kernels plan otherwise (another code).
#[test]
fn batch_kernels_launch_the_general_kernels_of_the_second_size_from_the_third() {
    let got = run_sizes(BATCH, &[37, 16, 5, 64, 3, 100, 1]);
    assert_eq!(got[0], (0, 4));
    assert_eq!(got[1], (0, 4));
    assert_eq!(got[3], (3, 4), "{got:?}");
    assert_eq!(got[5], (3, 4), "{got:?}");
    assert!(got[2].0 >= 1 && got[4].0 >= 1, "{got:?}");
}

/// A copy whose size is an inner range, a reduction over the size and an attention's scores
/// keep their own code; the rest of their graphs share it.
#[test]
fn kernels_with_the_size_inside_keep_their_own_code() {
    let sizes = [37, 16, 5, 64, 23];
    let inner = run_sizes(INNER, &sizes);
    assert!(inner[2..].iter().all(|&r| r == (2, 3)), "{inner:?}");
    let rows = run_sizes(ROWS, &sizes);
    assert!(rows[2..].iter().all(|&r| r == (1, 2)), "{rows:?}");
    for text in [ATTENTION, SOFTMAX] {
        let got = run_sizes(text, &sizes);
        assert!(got.iter().all(|&(reused, _)| reused == 0), "{got:?}");
    }
}

/// A concatenation along the batch: its mask compares the position with the size (an `i64`
/// constant that becomes a size parameter of the general kernel), and the second input's
/// offset moves with it.
const CAT_ROWS: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[s0, 4]", y: "f32[3, 4]"):
        cat: "f32[s0 + 3, 4]" = torch.ops.aten.cat.default([x, y])
        exp: "f32[s0 + 3, 4]" = torch.ops.aten.exp.default(cat)
        return (exp,)
"#;

#[test]
fn masks_bounded_by_the_size_take_it_as_a_parameter() {
    let got = run_sizes(CAT_ROWS, &[9, 14, 23, 6, 40, 0]);
    assert_eq!(got[..2], [(0, 1), (0, 1)], "{got:?}");
    // An empty `x` leaves the concatenation a copy of `y`: another code.
    assert!(got[2..5].iter().all(|&r| r == (1, 1)), "{got:?}");
}

/// A concatenation along an inner dim (its size an inner range) and a gather from a table of
/// the size's rows (its check bounded by the size) keep their own code at every size.
#[test]
fn inner_concatenations_and_checked_gathers_keep_their_own_code() {
    let shared: Arc<dyn Backend> = Arc::new(CudaBackend::emulated());
    let options = coil::Options::default();
    for (i, n) in [9usize, 14, 23, 6].into_iter().enumerate() {
        let g = bound(CAT_GATHER, n);
        let inputs = inputs_for(&g, i as u64, n);
        let want = coil_eager::run(&g, &inputs).unwrap().outputs;
        let model = coil::compile(&g, Arc::clone(&shared), &options).unwrap();
        let got = model.run(&inputs).unwrap();
        coil_testkit::check_outputs(&got, &want, 1e-6, 1e-6)
            .unwrap_or_else(|e| panic!("s0={n}: {e}"));
        assert_eq!(reused(&model), 0, "s0={n}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 8, ..Default::default() })]

    /// Any sizes (empty batches and single rows among them), in any order, on one backend:
    /// each compile's results equal coil-eager's and, bit for bit, those of its own code
    /// (checked in `run_sizes`).
    #[test]
    fn general_kernels_compute_what_each_sizes_own_code_does(
        sizes in proptest::collection::vec(0usize..70, 4),
    ) {
        for text in [BATCH, INNER, ROWS, CAT_ROWS] {
            run_sizes(text, &sizes);
        }
    }
}
