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
const BATCH: &str = r#"
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
        if i > 0 && s0 > 1 {
            // The row-wise kernels and the permuted copy run the first size's code; only the
            // sum over the batch (a reduction of s0 elements) is compiled again.
            let kernels = pooled.report.num_kernels;
            assert_eq!(
                reused(&pooled),
                kernels - 1,
                "s0={s0}: {:?}",
                pooled.report.machine_code
            );
        }
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
