//! `_softmax`, `_log_softmax` and `native_layer_norm`.

use coil_graph::{Arg, DType, Data, GraphBuilder, Tensor};

use crate::*;

#[test]
fn softmax_values_and_rows_summing_to_one() {
    let want = [0.09003057317038046, 0.24472847105479767, 0.6652409557748219];
    let x = f32s(&[1., 2., 3., 1001., 1002., 1003.], &[2, 3]);
    let y = unary(
        "_softmax.default",
        x.clone(),
        vec![Arg::Int(-1), Arg::Bool(false)],
        vec![],
    );
    let both: Vec<f64> = want.iter().chain(&want).copied().collect();
    check_close(&y, &[2, 3], &both, 1e-6);

    let y = unary(
        "_log_softmax.default",
        x,
        vec![Arg::Int(1), Arg::Bool(false)],
        vec![],
    );
    let logs: Vec<f64> = both.iter().map(|p| p.ln()).collect();
    check_close(&y, &[2, 3], &logs, 1e-6);

    // Along a non-last dim: every column sums to 1.
    let big = iota(&[4, 3, 5]);
    let y = unary(
        "_softmax.default",
        big,
        vec![Arg::Int(1), Arg::Bool(false)],
        vec![],
    );
    let v = y.to_f64_vec();
    for i in 0..4 {
        for k in 0..5 {
            let s: f64 = (0..3).map(|j| v[i * 15 + j * 5 + k]).sum();
            assert!((s - 1.0).abs() < 1e-6, "column ({i}, {k}) sums to {s}");
        }
    }
    // Rows of random-ish data sum to 1.
    let x = f32s(
        &(0..64)
            .map(|i| ((i * 37) % 11) as f32 - 5.0)
            .collect::<Vec<_>>(),
        &[8, 8],
    );
    let y = unary(
        "_softmax.default",
        x,
        vec![Arg::Int(-1), Arg::Bool(false)],
        vec![],
    );
    for row in y.to_f64_vec().chunks(8) {
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-6);
    }
}

#[test]
fn softmax_half_to_float() {
    let h = Tensor::new(
        Data::F16(vec![
            half::f16::from_f32(1.0),
            half::f16::from_f32(2.0),
            half::f16::from_f32(3.0),
        ]),
        vec![3],
    )
    .unwrap();
    let y = unary(
        "_softmax.default",
        h,
        vec![Arg::Int(0), Arg::Bool(true)],
        vec![],
    );
    assert_eq!(y.dtype(), DType::F32);
    check_close(
        &y,
        &[3],
        &[0.09003057317038046, 0.24472847105479767, 0.6652409557748219],
        1e-6,
    );
}

#[test]
fn layer_norm_outputs_mean_and_rstd() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[2, 4]);
    let w = b.input("w", DType::F32, &[4]);
    let bias = b.input("b", DType::F32, &[4]);
    let ln = b
        .call(
            "native_layer_norm.default",
            vec![n(x), ints(&[4]), n(w), n(bias), Arg::Float(1e-5)],
        )
        .unwrap();
    let out = b.getitem(ln, 0).unwrap();
    let mean = b.getitem(ln, 1).unwrap();
    let rstd = b.getitem(ln, 2).unwrap();
    let run1 = run(
        b,
        &[out, mean, rstd],
        &[
            f32s(&[1., 2., 3., 4., 2., 4., 6., 8.], &[2, 4]),
            f32s(&[1., 1., 2., 2.], &[4]),
            f32s(&[0., 0.5, 0., -1.], &[4]),
        ],
    );
    // Reference computed in f64 with Python.
    check_close(
        &run1.outputs[0],
        &[2, 4],
        &[
            -1.3416354199689269,
            0.052788193343691,
            0.894423613312618,
            1.6832708399378538,
            -1.3416394448610998,
            0.05278685171296671,
            0.8944262965740666,
            1.6832788897221995,
        ],
        1e-6,
    );
    check(&run1.outputs[1], DType::F32, &[2, 1], &[2.5, 5.0]);
    check_close(
        &run1.outputs[2],
        &[2, 1],
        &[0.894423613312618, 0.4472131482870333],
        1e-6,
    );
    assert_eq!(run1.stats.ops[0].bytes_written, 32 + 8 + 8);

    // No weight or bias; normalizing the last two dims.
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[2, 2, 2]);
    let ln = b
        .call(
            "native_layer_norm.default",
            vec![n(x), ints(&[2, 2]), Arg::None, Arg::None, Arg::Float(0.0)],
        )
        .unwrap();
    let out = b.getitem(ln, 0).unwrap();
    let rstd = b.getitem(ln, 2).unwrap();
    let run2 = run(b, &[out, rstd], &[iota(&[2, 2, 2])]);
    // Each group is {0,1,2,3}+c: mean 1.5+c, biased var 1.25.
    let z = 1.0 / 1.25f64.sqrt();
    let row = [-1.5 * z, -0.5 * z, 0.5 * z, 1.5 * z];
    let both: Vec<f64> = row.iter().chain(&row).copied().collect();
    check_close(&run2.outputs[0], &[2, 2, 2], &both, 1e-6);
    check_close(&run2.outputs[1], &[2, 1, 1], &[z, z], 1e-6);
}
