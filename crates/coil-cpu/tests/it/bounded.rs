//! The bounded exp (`CpuOptions::bounded_exp`): softmax's and log-softmax's `exp(x - max)` runs
//! without the math library's per-vector range test in rows whose min is within 86 (f32) or 700
//! (f64) of their max, and through the ordinary `exp` in every other row. The results are
//! bit-identical to the kernel without it, on rows either side of the limit, with NaN and
//! infinities, in the vector loops and the scalar tail.

use coil_cpu::{CpuBackend, CpuOptions};
use coil_graph::{DType, Data, Tensor};

use crate::driver::{all_in_one, eager, lower, run};
use crate::shapes::random;

const ROWS: usize = 12;
/// 64 iterations of the loop unrolled twice (8 lanes each), one more vector in the remainder
/// loop, and a 3-element scalar tail.
const COLS: usize = 1035;

fn graph(op: &str, dtype: &str) -> coil_graph::Graph {
    coil_graph::parse(&format!(
        r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "{dtype}[{ROWS}, {COLS}]"):
        y: "{dtype}[{ROWS}, {COLS}]" = torch.ops.aten.{op}.default(x, -1, False)
        return (y,)
"#
    ))
    .expect("parses")
}

/// Rows: plain values (in range), the row's min just inside the limit, just outside it (in
/// the vector loop, and in the scalar tail), far outside (`exp` underflows to 0 and to
/// subnormals), a NaN, `+inf`, a `-inf` element, every element `-inf`, one huge value (a
/// spread of 1e30), and two more plain rows.
fn inputs(dtype: DType, limit: f64) -> Tensor {
    let mut x = random(dtype, &[ROWS, COLS], 23).to_f64_vec();
    let row = |r: usize| r * COLS..(r + 1) * COLS;
    // Random values lie in [-1, 1]; put each row's max at 1 so the spreads below are exact.
    for r in 0..ROWS {
        x[row(r).start + 5] = 1.0;
    }
    x[row(1).start + 100] = 1.0 - (limit - 0.5);
    x[row(2).start + 100] = 1.0 - (limit + 0.5);
    x[row(3).end - 2] = 1.0 - (limit + 0.5);
    x[row(4).start + 7] = -150.0;
    x[row(4).start + 8] = -1000.0;
    x[row(5).start + 300] = f64::NAN;
    x[row(6).start + 40] = f64::INFINITY;
    x[row(7).start + 41] = f64::NEG_INFINITY;
    x[row(8)].fill(f64::NEG_INFINITY);
    x[row(9).start + 9] = 1e30;
    Tensor::new(Data::from_f64(dtype, x.into_iter()), vec![ROWS, COLS]).expect("tensor")
}

fn backend(threads: usize, bounded_exp: bool) -> CpuBackend {
    CpuBackend::with_options(CpuOptions {
        threads,
        codegen: coil_cpu::CodegenOptions {
            bounded_exp,
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("cpu backend")
}

#[test]
fn bounded_exp_gives_the_bits_of_the_checked_exp() {
    for (op, dtype, ty, limit) in [
        ("_softmax", DType::F32, "f32", 86.0),
        ("_log_softmax", DType::F32, "f32", 86.0),
        ("_softmax", DType::F64, "f64", 700.0),
    ] {
        let g = graph(op, ty);
        let l = lower(&g);
        let groups = all_in_one(&l);
        let inputs = [inputs(dtype, limit)];
        for threads in [1, 3] {
            let on = run(&backend(threads, true), &l, &groups, &inputs).expect("runs");
            let off = run(&backend(threads, false), &l, &groups, &inputs).expect("runs");
            // The per-row choice's join block (which copy a row takes cannot show in the
            // bits, by design: the in-range copy's exp is compared with exp's itself in
            // accuracy.rs, and its speed in docs/perf.md).
            assert!(
                on.source.contains("in_range.done"),
                "{op} {ty}\n{}",
                on.source
            );
            assert!(
                !off.source.contains("in_range.done"),
                "{op} {ty}\n{}",
                off.source
            );
            let (a, b) = (on.outputs[0].to_f64_vec(), off.outputs[0].to_f64_vec());
            for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                assert!(
                    x.to_bits() == y.to_bits(),
                    "{op} {ty}, {threads} threads: row {} column {}: {x:e} against {y:e}",
                    i / COLS,
                    i % COLS
                );
            }
            // And both are right (eager's softmax, within rounding; NaN where eager has NaN).
            let want = eager(&g, &inputs)[0].to_f64_vec();
            for (i, (x, w)) in a.iter().zip(&want).enumerate() {
                let ok = if w.is_nan() || w.is_infinite() {
                    x.to_bits() == w.to_bits() || (x.is_nan() && w.is_nan())
                } else {
                    (x - w).abs() <= 1e-5 + 1e-5 * w.abs()
                };
                assert!(
                    ok,
                    "{op} {ty}: row {} column {}: {x:e}, eager {w:e}",
                    i / COLS,
                    i % COLS
                );
            }
        }
    }
}

#[test]
fn an_exp_of_another_buffer_less_the_max_keeps_its_range_test() {
    // `exp(y - max(x))` is not bounded by x's row: y may lie far below (or above) it.
    let g = coil_graph::parse(&format!(
        r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[{ROWS}, {COLS}]", y: "f32[{ROWS}, {COLS}]"):
        amax: "f32[{ROWS}, 1]" = torch.ops.aten.amax.default(x, [1], True)
        sub: "f32[{ROWS}, {COLS}]" = torch.ops.aten.sub.Tensor(y, amax)
        exp: "f32[{ROWS}, {COLS}]" = torch.ops.aten.exp.default(sub)
        sum_1: "f32[{ROWS}, 1]" = torch.ops.aten.sum.dim_IntList(exp, [1], True)
        return (sum_1,)
"#
    ))
    .expect("parses");
    let l = lower(&g);
    let groups = all_in_one(&l);
    let x = random(DType::F32, &[ROWS, COLS], 5);
    let mut y = random(DType::F32, &[ROWS, COLS], 6).to_f64_vec();
    y[3] = -200.0;
    y[COLS + 4] = 80.0;
    let y =
        Tensor::new(Data::from_f64(DType::F32, y.into_iter()), vec![ROWS, COLS]).expect("tensor");
    let inputs = [x, y];
    let on = run(&backend(1, true), &l, &groups, &inputs).expect("runs");
    assert!(!on.source.contains("in_range.done"), "{}", on.source);
    let want = eager(&g, &inputs)[0].to_f64_vec();
    let got = on.outputs[0].to_f64_vec();
    for (x, w) in got.iter().zip(&want) {
        assert!((x - w).abs() <= 1e-4 * w.abs(), "{got:?}\n{want:?}");
    }
}
