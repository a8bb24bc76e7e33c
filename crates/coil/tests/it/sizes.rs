//! One graph with symbolic sizes compiled at many sizes on one CPU backend (issue "Dynamic
//! shapes"): a kernel whose code does not change with the size runs the machine code the first
//! size's compile made ([`coil_cpu::pool`]). At every size the results equal coil-eager's, and
//! equal bit for bit those of a compile that made all of its own code.

use std::sync::Arc;

use coil_codegen::Backend;
use coil_cpu::{CpuBackend, CpuOptions};

/// Rows of `s0` (a batch), a row norm, a matmul with a bias and gelu, a softmax over the row, a
/// sum over the batch (whose reduction length is the size), and a permuted copy whose
/// outermost range is the size.
pub(crate) const BATCH: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[s0, 64]", w: "f32[64, 48]", b: "f32[48]", y: "f32[s0, 6, 8]"):
        mean: "f32[s0, 1]" = torch.ops.aten.mean.dim(x, [1], True)
        sub: "f32[s0, 64]" = torch.ops.aten.sub.Tensor(x, mean)
        mm: "f32[s0, 48]" = torch.ops.aten.mm.default(sub, w)
        add: "f32[s0, 48]" = torch.ops.aten.add.Tensor(mm, b)
        gelu: "f32[s0, 48]" = torch.ops.aten.gelu.default(add)
        _softmax: "f32[s0, 48]" = torch.ops.aten._softmax.default(gelu, -1, False)
        mul: "f32[s0, 48]" = torch.ops.aten.mul.Tensor(_softmax, 2.0)
        sum_1: "f32[48]" = torch.ops.aten.sum.dim_IntList(gelu, [0])
        permute: "f32[s0, 8, 6]" = torch.ops.aten.permute.default(y, [0, 2, 1])
        exp: "f32[s0, 8, 6]" = torch.ops.aten.exp.default(permute)
        clone: "f32[s0, 8, 6]" = torch.ops.aten.clone.default(exp, memory_format = torch.contiguous_format)
        return (mul, sum_1, clone)
"#;

/// Broadcasting, reductions over the inner dims, and a permuted copy whose outermost range is
/// not the size.
pub(crate) const INNER: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[s0, 8, 12]", b: "f32[12]"):
        add: "f32[s0, 8, 12]" = torch.ops.aten.add.Tensor(x, b)
        amax: "f32[s0, 12]" = torch.ops.aten.amax.default(add, [1])
        permute: "f32[12, s0, 8]" = torch.ops.aten.permute.default(add, [2, 0, 1])
        clone: "f32[12, s0, 8]" = torch.ops.aten.clone.default(permute, memory_format = torch.contiguous_format)
        sum_1: "f32[s0, 8]" = torch.ops.aten.sum.dim_IntList(add, [2])
        return (amax, clone, sum_1)
"#;

/// A matmul over `6 * s0` rows, a softmax of each, and a mean over the size.
pub(crate) const ROWS: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, q: "f32[s0, 6, 16]", k: "f32[16, 6]"):
        view: "f32[6*s0, 16]" = torch.ops.aten.view.default(q, [-1, 16])
        mm: "f32[6*s0, 6]" = torch.ops.aten.mm.default(view, k)
        _softmax: "f32[6*s0, 6]" = torch.ops.aten._softmax.default(mm, -1, False)
        view_1: "f32[s0, 6, 6]" = torch.ops.aten.view.default(_softmax, [-1, 6, 6])
        mean: "f32[6, 6]" = torch.ops.aten.mean.dim(view_1, [0])
        return (view_1, mean)
"#;

/// Attention's shapes: the size inside (`[2, s0, s0]` scores, a softmax over `s0`, a copy of a
/// transpose, a sum over a middle dim): strides, ranges and rows that are the size.
pub(crate) const ATTENTION: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, q: "f32[2, s0, 8]", k: "f32[2, s0, 8]"):
        permute: "f32[2, 8, s0]" = torch.ops.aten.permute.default(k, [0, 2, 1])
        bmm: "f32[2, s0, s0]" = torch.ops.aten.bmm.default(q, permute)
        mul: "f32[2, s0, s0]" = torch.ops.aten.mul.Tensor(bmm, 0.35)
        _softmax: "f32[2, s0, s0]" = torch.ops.aten._softmax.default(mul, -1, False)
        clone: "f32[2, 8, s0]" = torch.ops.aten.clone.default(permute, memory_format = torch.contiguous_format)
        sum_1: "f32[2, s0]" = torch.ops.aten.sum.dim_IntList(_softmax, [1])
        return (_softmax, clone, sum_1)
"#;

fn backend(every_size: bool, pool: &Arc<coil_cpu::pool::CodePool>) -> Arc<dyn Backend> {
    Arc::new(
        CpuBackend::with_options(CpuOptions {
            compile_every_size: every_size,
            code_pool: Some(Arc::clone(pool)),
            ..CpuOptions::default()
        })
        .unwrap(),
    )
}

fn reused(model: &coil::CompiledModel) -> usize {
    model.report.machine_code.reused_kernels
}

#[test]
fn a_new_batch_size_reuses_the_kernels_whose_code_does_not_change() {
    let pool = Arc::new(coil_cpu::pool::CodePool::new());
    let fresh_pool = Arc::new(coil_cpu::pool::CodePool::new());
    let options = coil::Options::default();
    // Primes, sizes the vectors do not divide, multiples of them, and an empty batch.
    for (i, s0) in [37usize, 2, 3, 16, 17, 64, 100, 0, 5]
        .into_iter()
        .enumerate()
    {
        let sizes = vec![vec![s0, 64], vec![64, 48], vec![48], vec![s0, 6, 8]];
        let bindings = coil_graph::bind_inputs(BATCH, &sizes).unwrap();
        let g = coil_graph::parse_bound(BATCH, &bindings).unwrap();
        let inputs = coil_testkit::random_inputs(&g, i as u64);
        let want = coil_eager::run(&g, &inputs).unwrap().outputs;
        let pooled = coil::compile(&g, backend(false, &pool), &options).unwrap();
        let own = coil::compile(&g, backend(true, &fresh_pool), &options).unwrap();
        assert_eq!(reused(&own), 0);
        // The row-wise kernels and the permuted copy run the first size's code. The sum over
        // the batch is unrolled below 9 rows (other code at each size); from 16 rows on it is
        // a reduction over `s0`: generalized at 16 (compiled once, the row count a size
        // parameter) and run from that code at every size after.
        let kernels = pooled.report.num_kernels;
        let expected = match s0 {
            _ if i == 0 => 0,
            0 => 0,
            2..=16 => kernels - 1,
            _ => kernels,
        };
        assert_eq!(
            reused(&pooled),
            expected,
            "s0={s0}: {:?}",
            pooled.report.machine_code
        );
        let got = pooled.run(&inputs).unwrap();
        coil_testkit::check_outputs(&got, &want, 1e-5, 1e-5)
            .unwrap_or_else(|e| panic!("s0={s0}: {e}"));
        let alone = own.run(&inputs).unwrap();
        for (o, (a, b)) in got.iter().zip(&alone).enumerate() {
            let (a, b) = (a.to_f64_vec(), b.to_f64_vec());
            assert!(
                a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
                "s0={s0}: output {o} differs from its own compile's"
            );
        }
    }
    assert!(!pool.is_empty());
}

/// The attention's kernels have the size inside them: from the third size on, each runs the
/// code generalized at the second (its ranges, strides and row length size parameters).
#[test]
fn kernels_with_the_size_inside_run_generalized_code_from_the_third_size() {
    let pool = Arc::new(coil_cpu::pool::CodePool::new());
    let options = coil::Options::default();
    for (i, n) in [20usize, 33, 47, 12, 61].into_iter().enumerate() {
        let g = bound(ATTENTION, n);
        let inputs = coil_testkit::random_inputs(&g, i as u64);
        let want = coil_eager::run(&g, &inputs).unwrap().outputs;
        let model = coil::compile(&g, backend(false, &pool), &options).unwrap();
        let kernels = model.report.num_kernels;
        let want_reused = if i < 2 { 0 } else { kernels };
        assert_eq!(
            reused(&model),
            want_reused,
            "s0={n}: {:?}",
            model.report.machine_code
        );
        let got = model.run(&inputs).unwrap();
        coil_testkit::check_outputs(&got, &want, 1e-5, 1e-5)
            .unwrap_or_else(|e| panic!("s0={n}: {e}"));
    }
}

/// A softmax over rows of the size, whose exponentials a row cache keeps between its stages.
pub(crate) const SOFTMAX: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3, s0]"):
        _softmax: "f32[3, s0]" = torch.ops.aten._softmax.default(x, -1, False)
        return (_softmax,)
"#;

/// A generalized kernel's row cache holds rows of at most 4,096 elements: longer rows take a
/// generalized kernel without one, and every row length computes eager's results.
#[test]
fn rows_longer_than_the_row_cache_take_a_generalized_kernel_of_their_own() {
    let pool = Arc::new(coil_cpu::pool::CodePool::new());
    let options = coil::Options::default();
    // Rows: the first compile's own code, generalized (cached rows), bound; long rows are a
    // looped reduction, another code: its own code, generalized (too long for the row cache:
    // without it), bound; and short again.
    let expect = [
        (100, 0),
        (200, 0),
        (300, 1),
        (5000, 0),
        (6001, 0),
        (7000, 1),
        (50, 1),
    ];
    for (i, (n, want_reused)) in expect.into_iter().enumerate() {
        let g = bound(SOFTMAX, n);
        let inputs = coil_testkit::random_inputs(&g, i as u64);
        let want = coil_eager::run(&g, &inputs).unwrap().outputs;
        let model = coil::compile(&g, backend(false, &pool), &options).unwrap();
        assert_eq!(reused(&model), want_reused, "s0={n}");
        let got = model.run(&inputs).unwrap();
        coil_testkit::check_outputs(&got, &want, 1e-6, 1e-6)
            .unwrap_or_else(|e| panic!("s0={n}: {e}"));
    }
}

/// A concatenation (its masks compare with the size: an `i64` constant) and a gather from a
/// table of `s0` rows (an indirect index whose size is the size).
pub(crate) const CAT_GATHER: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, s0]", y: "f32[2, 3]", t: "f32[s0, 4]", i: "i64[6]"):
        cat: "f32[2, s0 + 3]" = torch.ops.aten.cat.default([x, y], 1)
        exp: "f32[2, s0 + 3]" = torch.ops.aten.exp.default(cat)
        index: "f32[6, 4]" = torch.ops.aten.index.Tensor(t, [i])
        return (exp, index)
"#;

/// A concatenation's masks compare with the size: its kernel runs generalized code too. A
/// gather checked against the size keeps each size's own code (generalized, its check
/// stayed in the loop: slower), and a bad index is still an error naming the node.
#[test]
fn masks_bounded_by_the_size_run_generalized_code_and_gathers_their_own() {
    let pool = Arc::new(coil_cpu::pool::CodePool::new());
    let fresh_pool = Arc::new(coil_cpu::pool::CodePool::new());
    let options = coil::Options::default();
    for (i, n) in [9usize, 14, 23, 6, 40].into_iter().enumerate() {
        let g = bound(CAT_GATHER, n);
        let inputs = coil_testkit::random_inputs(&g, i as u64);
        let want = coil_eager::run(&g, &inputs).unwrap().outputs;
        let model = coil::compile(&g, backend(false, &pool), &options).unwrap();
        let kernels = model.report.num_kernels;
        assert_eq!(
            reused(&model),
            if i < 2 { 0 } else { kernels - 1 },
            "s0={n}"
        );
        let got = model.run(&inputs).unwrap();
        coil_testkit::check_outputs(&got, &want, 1e-6, 1e-6)
            .unwrap_or_else(|e| panic!("s0={n}: {e}"));
        let own = coil::compile(&g, backend(true, &fresh_pool), &options).unwrap();
        for (a, b) in got.iter().zip(&own.run(&inputs).unwrap()) {
            let (a, b) = (a.to_f64_vec(), b.to_f64_vec());
            assert!(
                a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
                "s0={n}"
            );
        }
    }
    // An index out of the table's rows is still an error naming the node.
    let g = bound(CAT_GATHER, 7);
    let mut inputs = coil_testkit::random_inputs(&g, 1);
    let rows = [0.0, 1.0, 2.0, 3.0, 4.0, 7.0].into_iter();
    let data = coil_graph::Data::from_f64(coil_graph::DType::I64, rows);
    inputs[3] = coil_graph::Tensor::new(data, vec![6]).unwrap();
    let model = coil::compile(&g, backend(false, &pool), &options).unwrap();
    assert_eq!(reused(&model), model.report.num_kernels - 1);
    let e = model.run(&inputs).unwrap_err().to_string();
    assert!(e.contains("out of bounds") && e.contains("index"), "{e}");
}

/// `text` bound to `s0 = n` (every input's sizes from its annotation).
pub(crate) fn bound(text: &str, n: usize) -> coil_graph::Graph {
    let mut b = coil_graph::Bindings::new();
    b.insert("s0", n as i64);
    coil_graph::parse_bound(text, &b).unwrap()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 12, ..Default::default() })]

    /// Any sizes, in any order, on one backend: each compile's results equal coil-eager's and,
    /// bit for bit, those of a compile that makes all of its own code.
    #[test]
    fn shared_code_computes_what_each_sizes_own_code_does(
        sizes in proptest::collection::vec(0usize..40, 3),
    ) {
        let pool = Arc::new(coil_cpu::pool::CodePool::new());
        let fresh_pool = Arc::new(coil_cpu::pool::CodePool::new());
        let options = coil::Options::default();
        for text in [BATCH, INNER, ROWS, ATTENTION, SOFTMAX] {
            for (i, &n) in sizes.iter().enumerate() {
                let g = bound(text, n);
                let inputs = coil_testkit::random_inputs(&g, i as u64 + 7);
                let want = coil_eager::run(&g, &inputs).unwrap().outputs;
                let shared = coil::compile(&g, backend(false, &pool), &options).unwrap();
                let own = coil::compile(&g, backend(true, &fresh_pool), &options).unwrap();
                let got = shared.run(&inputs).unwrap();
                coil_testkit::check_outputs(&got, &want, 1e-5, 1e-5)
                    .map_err(|e| proptest::test_runner::TestCaseError::fail(format!("s0={n}: {e}")))?;
                for (a, b) in got.iter().zip(&own.run(&inputs).unwrap()) {
                    let (a, b) = (a.to_f64_vec(), b.to_f64_vec());
                    proptest::prop_assert!(
                        a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
                        "s0={}: shared code differs from the size's own", n
                    );
                }
            }
        }
    }
}
