//! `mm`, `bmm`, `addmm` against a naive f64 loop, with strided (transposed, expanded) operands.

use coil_graph::{Arg, DType, Data, GraphBuilder, Tensor};

use crate::*;

/// Deterministic values in [-1, 1).
fn values(len: usize, seed: u64) -> Vec<f64> {
    let mut rng = coil_testkit::Rng::new(seed);
    (0..len).map(|_| rng.uniform(-1.0, 1.0)).collect()
}

fn f32_tensor(v: &[f64], sizes: &[usize]) -> Tensor {
    Tensor::new(
        Data::F32(v.iter().map(|&x| x as f32).collect()),
        sizes.to_vec(),
    )
    .unwrap()
}

/// `a [m, k] @ b [k, n]` in f64 from the f32-rounded values.
fn naive(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut out = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            out[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        }
    }
    out
}

fn rounded(v: &[f64]) -> Vec<f64> {
    v.iter().map(|&x| x as f32 as f64).collect()
}

#[test]
fn mm_matches_a_naive_loop() {
    let (m, k, n) = (5, 7, 3);
    let (a, w) = (values(m * k, 1), values(k * n, 2));
    let y = binary(
        "mm.default",
        f32_tensor(&a, &[m, k]),
        f32_tensor(&w, &[k, n]),
    );
    check_close(
        &y,
        &[m, n],
        &naive(&rounded(&a), &rounded(&w), m, k, n),
        1e-5,
    );

    // f64 is exact to rounding; i64 is exact.
    let y = binary("mm.default", f64s(&a, &[m, k]), f64s(&w, &[k, n]));
    check_close(&y, &[m, n], &naive(&a, &w, m, k, n), 1e-13);
    let y = binary(
        "mm.default",
        i64s(&[1, 2, 3, 4], &[2, 2]),
        i64s(&[5, 6, 7, 8], &[2, 2]),
    );
    check(&y, DType::I64, &[2, 2], &[19., 22., 43., 50.]);
}

#[test]
fn mm_reads_a_transposed_view_in_place() {
    // x @ w.t() where w is [n, k], as nn.Linear exports it.
    let (m, k, n) = (4, 6, 3);
    let (a, w) = (values(m * k, 3), values(n * k, 4));
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[m, k]);
    let wi = b.input("w", DType::F32, &[n, k]);
    let wt = b
        .call("permute.default", vec![n_(wi), ints(&[1, 0])])
        .unwrap();
    let y = b.call("mm.default", vec![n_(x), n_(wt)]).unwrap();
    let out = run1(b, y, &[f32_tensor(&a, &[m, k]), f32_tensor(&w, &[n, k])]);
    let mut wt_vals = vec![0.0; k * n];
    for i in 0..n {
        for j in 0..k {
            wt_vals[j * n + i] = w[i * k + j];
        }
    }
    check_close(
        &out,
        &[m, n],
        &naive(&rounded(&a), &rounded(&wt_vals), m, k, n),
        1e-5,
    );
}

fn n_(id: coil_graph::NodeId) -> Arg {
    n(id)
}

#[test]
fn bmm_with_an_expanded_batch() {
    let (bs, m, k, n) = (2, 4, 5, 3);
    let (a, w) = (values(bs * m * k, 5), values(k * n, 6));
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[bs, m, k]);
    let wi = b.input("w", DType::F32, &[1, k, n]);
    let we = b
        .call("expand.default", vec![n_(wi), ints(&[bs as i64, -1, -1])])
        .unwrap();
    let y = b.call("bmm.default", vec![n_(x), n_(we)]).unwrap();
    let out = run1(
        b,
        y,
        &[f32_tensor(&a, &[bs, m, k]), f32_tensor(&w, &[1, k, n])],
    );
    let mut want = naive(&rounded(&a[..m * k]), &rounded(&w), m, k, n);
    want.extend(naive(&rounded(&a[m * k..]), &rounded(&w), m, k, n));
    check_close(&out, &[bs, m, n], &want, 1e-5);
}

#[test]
fn addmm_with_beta_alpha_and_broadcast_bias() {
    let (m, k, n) = (3, 4, 2);
    let (a, w) = (values(m * k, 7), values(k * n, 8));
    let prod = naive(&rounded(&a), &rounded(&w), m, k, n);
    let bias = [0.5f64, -1.0];
    let mut b = GraphBuilder::new();
    let bi = b.input("b", DType::F32, &[n]);
    let x = b.input("x", DType::F32, &[m, k]);
    let wi = b.input("w", DType::F32, &[k, n]);
    let plain = b
        .call("addmm.default", vec![n_(bi), n_(x), n_(wi)])
        .unwrap();
    let scaled = b
        .call_kw(
            "addmm.default",
            vec![n_(bi), n_(x), n_(wi)],
            vec![("beta", Arg::Float(0.5)), ("alpha", Arg::Int(2))],
        )
        .unwrap();
    let run = run(
        b,
        &[plain, scaled],
        &[
            f32_tensor(&bias, &[n]),
            f32_tensor(&a, &[m, k]),
            f32_tensor(&w, &[k, n]),
        ],
    );
    let want: Vec<f64> = prod
        .iter()
        .enumerate()
        .map(|(i, p)| p + bias[i % n])
        .collect();
    check_close(&run.outputs[0], &[m, n], &want, 1e-5);
    let want: Vec<f64> = prod
        .iter()
        .enumerate()
        .map(|(i, p)| 2.0 * p + 0.5 * bias[i % n])
        .collect();
    check_close(&run.outputs[1], &[m, n], &want, 1e-5);

    // beta = 0 ignores the bias, NaN included.
    let mut b = GraphBuilder::new();
    let bi = b.input("b", DType::F32, &[m, 1]);
    let x = b.input("x", DType::F32, &[m, k]);
    let wi = b.input("w", DType::F32, &[k, n]);
    let y = b
        .call_kw(
            "addmm.default",
            vec![n_(bi), n_(x), n_(wi)],
            vec![("beta", Arg::Int(0))],
        )
        .unwrap();
    let nan_bias = f32s(&[f32::NAN; 3], &[3, 1]);
    let out = run1(
        b,
        y,
        &[nan_bias, f32_tensor(&a, &[m, k]), f32_tensor(&w, &[k, n])],
    );
    check_close(&out, &[m, n], &prod, 1e-5);
}

#[test]
fn f16_matmul_goes_through_f32() {
    let h = |v: &[f32], s: &[usize]| {
        Tensor::new(
            Data::F16(v.iter().map(|&x| half::f16::from_f32(x)).collect()),
            s.to_vec(),
        )
        .unwrap()
    };
    let y = binary(
        "mm.default",
        h(&[1., 2., 3., 4.], &[2, 2]),
        h(&[0.5, 0., 0., 0.25], &[2, 2]),
    );
    check(&y, DType::F16, &[2, 2], &[0.5, 0.5, 1.5, 1.0]);
}
