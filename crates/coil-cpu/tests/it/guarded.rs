//! The guarded fast max/min (`CpuOptions::guarded_max_min`): a max or min over 8-lane f32
//! vectors takes one `vmaxps`/`vminps` per vector, a running sum of the values trips on NaN,
//! and the row is then redone with the exact updates. The results are bit-identical to the
//! exact kernel's, NaN, infinities, signed zeros and the scalar tail included.

use coil_cpu::{CpuBackend, CpuOptions, HostTarget};
use coil_graph::{DType, Tensor};

use crate::driver::{all_in_one, lower, run};
use crate::shapes::random;

const ROWS: usize = 9;
/// 32 iterations of the loop unrolled four times (8 lanes each), one more vector in the
/// remainder loop, and a 3-element scalar tail.
const COLS: usize = 1035;

fn graph() -> coil_graph::Graph {
    coil_graph::parse(&format!(
        r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[{ROWS}, {COLS}]"):
        _softmax: "f32[{ROWS}, {COLS}]" = torch.ops.aten._softmax.default(x, -1, False)
        amax: "f32[{ROWS}]" = torch.ops.aten.amax.default(x, [1])
        amin: "f32[{ROWS}]" = torch.ops.aten.amin.default(x, [1])
        return (_softmax, amax, amin)
"#
    ))
    .expect("parses")
}

/// Rows with the cases the guard must catch or let through: plain values, a NaN in the
/// unrolled vector loop, a NaN in the scalar tail, both infinities in the same guard lane (a
/// false alarm: `inf + -inf` trips the guard), only `-inf` (does not trip it), signed zeros
/// only, one `+inf`, a NaN in the first vector, and a NaN in the remainder vector loop.
fn inputs() -> Tensor {
    let mut x: Vec<f32> = random(DType::F32, &[ROWS, COLS], 11)
        .to_f64_vec()
        .into_iter()
        .map(|v| v as f32)
        .collect();
    let row = |r: usize| r * COLS..(r + 1) * COLS;
    x[row(1).start + 517] = f32::NAN;
    x[row(2).end - 1] = f32::NAN;
    // Elements 40 and 72 feed the same lane of the same unrolled accumulator (and guard).
    x[row(3).start + 40] = f32::INFINITY;
    x[row(3).start + 72] = f32::NEG_INFINITY;
    x[row(4)].fill(f32::NEG_INFINITY);
    for (i, v) in x[row(5)].iter_mut().enumerate() {
        *v = if i % 3 == 0 { -0.0 } else { 0.0 };
    }
    x[row(6).start + 3] = f32::INFINITY;
    x[row(7).start + 2] = f32::NAN;
    x[row(8).start + 1028] = f32::NAN;
    Tensor::from_f32(x, vec![ROWS, COLS]).expect("tensor")
}

fn backend(threads: usize, guarded_max_min: bool) -> CpuBackend {
    CpuBackend::with_options(CpuOptions {
        threads,
        codegen: coil_cpu::CodegenOptions {
            guarded_max_min,
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("cpu backend")
}

#[test]
fn guarded_max_and_min_give_the_exact_bits() {
    let g = graph();
    let l = lower(&g);
    let groups = all_in_one(&l);
    let inputs = [inputs()];
    let avx = guarded_host();
    for threads in [1, 3] {
        let on = run(&backend(threads, true), &l, &groups, &inputs).expect("runs");
        let off = run(&backend(threads, false), &l, &groups, &inputs).expect("runs");
        assert_eq!(
            on.source.contains("llvm.x86.avx.max.ps.256"),
            avx,
            "{}",
            on.source
        );
        // The exact loop's join block (LLVM folds the redo's entry into the loop it starts).
        assert_eq!(on.source.contains("exact.done"), avx, "{}", on.source);
        assert!(!off.source.contains("exact.done"), "{}", off.source);
        for (a, b) in on.outputs.iter().zip(&off.outputs) {
            let (a, b) = (a.to_f64_vec(), b.to_f64_vec());
            assert!(
                a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
                "{threads} threads: guarded results differ\n{a:?}\n{b:?}"
            );
        }
        // What the rows must give (PyTorch's rules: NaN wins, infinities are values).
        let amax = on.outputs[1].to_f64_vec();
        let amin = on.outputs[2].to_f64_vec();
        for r in [1, 2, 7, 8] {
            assert!(
                amax[r].is_nan() && amin[r].is_nan(),
                "row {r}: {amax:?} {amin:?}"
            );
        }
        assert_eq!((amax[3], amin[3]), (f64::INFINITY, f64::NEG_INFINITY));
        assert_eq!((amax[4], amin[4]), (f64::NEG_INFINITY, f64::NEG_INFINITY));
        assert_eq!((amax[5], amin[5]), (0.0, 0.0));
        assert_eq!(amax[6], f64::INFINITY);
        assert!(amax[0] > 0.9 && amin[0] < -0.9, "{amax:?} {amin:?}");
    }
}

#[test]
fn a_row_sum_of_the_same_values_is_the_guard() {
    // siblings: the max's and min's guard is the sum the stage computes anyway; a NaN must
    // still send the row through the exact loop, and the sum must not change.
    let g = coil_graph::parse(&format!(
        r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[{ROWS}, {COLS}]"):
        amax: "f32[{ROWS}]" = torch.ops.aten.amax.default(x, [1])
        amin: "f32[{ROWS}]" = torch.ops.aten.amin.default(x, [1])
        sum_1: "f32[{ROWS}]" = torch.ops.aten.sum.dim_IntList(x, [1])
        return (amax, amin, sum_1)
"#
    ))
    .expect("parses");
    let l = lower(&g);
    let groups = all_in_one(&l);
    let inputs = [inputs()];
    let avx = guarded_host();
    let on = run(&backend(1, true), &l, &groups, &inputs).expect("runs");
    let off = run(&backend(1, false), &l, &groups, &inputs).expect("runs");
    assert_eq!(on.kernels, 1);
    assert_eq!(on.source.contains("exact.done"), avx, "{}", on.source);
    for (a, b) in on.outputs.iter().zip(&off.outputs) {
        let (a, b) = (a.to_f64_vec(), b.to_f64_vec());
        assert!(
            a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
            "results differ\n{a:?}\n{b:?}"
        );
    }
    let (amax, amin) = (on.outputs[0].to_f64_vec(), on.outputs[1].to_f64_vec());
    for r in [1, 2, 7, 8] {
        assert!(
            amax[r].is_nan() && amin[r].is_nan(),
            "row {r}: {amax:?} {amin:?}"
        );
    }
    assert_eq!((amax[3], amin[3]), (f64::INFINITY, f64::NEG_INFINITY));
}

/// Whether the host runs the guarded fast max/min: AVX with 8-lane f32 vectors (an AVX-512
/// host's 16-lane loops take the exact updates: the fast form is `vmaxps` on 256 bits).
fn guarded_host() -> bool {
    let host = HostTarget::detect().unwrap();
    host.has_feature("avx") && host.vector_bytes() == 32
}
