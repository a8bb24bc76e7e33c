//! Reductions: dims, keepdim, negative dims, dtypes, corrections, NaN rules, accuracy.

use coil_graph::{Arg, DType, GraphBuilder};

use crate::*;

fn x23() -> coil_graph::Tensor {
    f32s(&[1., 2., 3., 4., 5., 6.], &[2, 3])
}

#[test]
fn sum_over_dims_with_keepdim_and_negative_dims() {
    check(
        &unary("sum.default", x23(), vec![], vec![]),
        DType::F32,
        &[],
        &[21.],
    );
    check(
        &unary("sum.dim_IntList", x23(), vec![ints(&[1])], vec![]),
        DType::F32,
        &[2],
        &[6., 15.],
    );
    let y = unary(
        "sum.dim_IntList",
        x23(),
        vec![ints(&[-2]), Arg::Bool(true)],
        vec![],
    );
    check(&y, DType::F32, &[1, 3], &[5., 7., 9.]);
    let y = unary(
        "sum.dim_IntList",
        x23(),
        vec![ints(&[0, -1]), Arg::Bool(true)],
        vec![],
    );
    check(&y, DType::F32, &[1, 1], &[21.]);
    // `None` and `[]` mean every dim.
    check(
        &unary("sum.dim_IntList", x23(), vec![Arg::None], vec![]),
        DType::F32,
        &[],
        &[21.],
    );
    check(
        &unary("sum.dim_IntList", x23(), vec![ints(&[])], vec![]),
        DType::F32,
        &[],
        &[21.],
    );
    // 3-D, reducing the outer and inner dims (non-contiguous lanes).
    let y = unary(
        "sum.dim_IntList",
        iota(&[2, 3, 4]),
        vec![ints(&[0, 2])],
        vec![],
    );
    // For middle index j: sum over i, k of 12i + 4j + k = 2*(0+1+2+3) + 12*4 + 8*4j.
    check(&y, DType::F32, &[3], &[60., 92., 124.]);
    let y = unary(
        "sum.dim_IntList",
        iota(&[2, 3, 4]),
        vec![ints(&[1]), Arg::Bool(true)],
        vec![],
    );
    check(
        &y,
        DType::F32,
        &[2, 1, 4],
        &[12., 15., 18., 21., 48., 51., 54., 57.],
    );
}

#[test]
fn sum_dtypes() {
    let y = unary(
        "sum.default",
        x23(),
        vec![],
        vec![("dtype", Arg::DType(DType::F64))],
    );
    check(&y, DType::F64, &[], &[21.]);
    check(
        &unary("sum.default", i64s(&[1, 2, 3], &[3]), vec![], vec![]),
        DType::I64,
        &[],
        &[6.],
    );
    check(
        &unary(
            "sum.default",
            bools(&[true, false, true], &[3]),
            vec![],
            vec![],
        ),
        DType::I64,
        &[],
        &[2.],
    );
    // Sum of nothing is 0.
    let y = unary(
        "sum.dim_IntList",
        f32s(&[], &[2, 0]),
        vec![ints(&[1])],
        vec![],
    );
    check(&y, DType::F32, &[2], &[0., 0.]);
}

#[test]
fn f32_sums_are_pairwise() {
    // 2^20 copies of 0.1f32: a sequential f32 sum drifts by about 1%, a pairwise one by
    // far less than 1e-6.
    let len = 1 << 20;
    let x = f32s(&vec![0.1; len], &[len]);
    let got = unary("sum.default", x, vec![], vec![]).to_f64_vec()[0];
    let want = 0.1f32 as f64 * len as f64;
    assert!(((got - want) / want).abs() < 1e-6, "got {got}, want {want}");
}

#[test]
fn mean_and_prod() {
    check(
        &unary("mean.dim", x23(), vec![ints(&[1])], vec![]),
        DType::F32,
        &[2],
        &[2., 5.],
    );
    check(
        &unary("mean.default", x23(), vec![], vec![]),
        DType::F32,
        &[],
        &[3.5],
    );
    let y = unary(
        "mean.dim",
        x23(),
        vec![ints(&[-1]), Arg::Bool(true)],
        vec![],
    );
    check(&y, DType::F32, &[2, 1], &[2., 5.]);
    check(
        &unary("prod.dim_int", x23(), vec![Arg::Int(1)], vec![]),
        DType::F32,
        &[2],
        &[6., 120.],
    );
    check(
        &unary("prod.default", x23(), vec![], vec![]),
        DType::F32,
        &[],
        &[720.],
    );
    let y = unary(
        "prod.dim_int",
        i64s(&[2, 3, 4, 5], &[2, 2]),
        vec![Arg::Int(0), Arg::Bool(true)],
        vec![],
    );
    check(&y, DType::I64, &[1, 2], &[8., 15.]);
}

#[test]
fn amax_amin_propagate_nan() {
    check(
        &unary("amax.default", x23(), vec![ints(&[0])], vec![]),
        DType::F32,
        &[3],
        &[4., 5., 6.],
    );
    let y = unary(
        "amin.default",
        x23(),
        vec![ints(&[1]), Arg::Bool(true)],
        vec![],
    );
    check(&y, DType::F32, &[2, 1], &[1., 4.]);
    check(
        &unary("amax.default", x23(), vec![], vec![]),
        DType::F32,
        &[],
        &[6.],
    );
    let x = f32s(&[1., f32::NAN, 3., 4.], &[2, 2]);
    check(
        &unary("amax.default", x.clone(), vec![ints(&[1])], vec![]),
        DType::F32,
        &[2],
        &[f64::NAN, 4.],
    );
    check(
        &unary("amin.default", x, vec![ints(&[0])], vec![]),
        DType::F32,
        &[2],
        &[1., f64::NAN],
    );
    check(
        &unary(
            "amax.default",
            i64s(&[3, -9, 7], &[3]),
            vec![ints(&[0])],
            vec![],
        ),
        DType::I64,
        &[],
        &[7.],
    );
}

#[test]
fn var_with_unbiased_and_correction() {
    check(
        &unary("var.default", x23(), vec![], vec![]),
        DType::F32,
        &[],
        &[3.5],
    );
    let y = unary("var.dim", x23(), vec![ints(&[1]), Arg::Bool(false)], vec![]);
    check_close(&y, &[2], &[2. / 3., 2. / 3.], 1e-7);
    let y = unary(
        "var.dim",
        x23(),
        vec![ints(&[-1]), Arg::Bool(true), Arg::Bool(true)],
        vec![],
    );
    check(&y, DType::F32, &[2, 1], &[1., 1.]);
    let c = |k: i64| vec![("correction", Arg::Int(k)), ("keepdim", Arg::Bool(true))];
    let y = unary("var.correction", x23(), vec![ints(&[1])], c(0));
    check_close(&y, &[2, 1], &[2. / 3., 2. / 3.], 1e-7);
    let y = unary("var.correction", x23(), vec![ints(&[1])], c(2));
    check(&y, DType::F32, &[2, 1], &[2., 2.]);
    // Default correction is 1, default dims all.
    check(
        &unary("var.correction", x23(), vec![], vec![]),
        DType::F32,
        &[],
        &[3.5],
    );
    // n - correction <= 0 divides by zero.
    let y = unary("var.correction", x23(), vec![ints(&[0])], c(2));
    check(&y, DType::F32, &[1, 3], &[f64::INFINITY; 3]);
}

#[test]
fn var_mean_gives_both() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F64, &[2, 3]);
    let vm = b
        .call_kw(
            "var_mean.correction",
            vec![n(x), ints(&[1])],
            vec![("correction", Arg::Int(0))],
        )
        .unwrap();
    let v = b.getitem(vm, 0).unwrap();
    let m = b.getitem(vm, 1).unwrap();
    let run = run(b, &[v, m], &[f64s(&[1., 2., 3., 4., 6., 8.], &[2, 3])]);
    check_close(&run.outputs[0], &[2], &[2. / 3., 8. / 3.], 1e-15);
    check(&run.outputs[1], DType::F64, &[2], &[2., 6.]);
    assert_eq!(run.stats.num_ops(), 1, "getitem is not an op");
}

#[test]
fn argmax_argmin_first_extreme_and_nan() {
    let x = f32s(&[1., 3., 3., 7., 2., 7.], &[2, 3]);
    check(
        &unary("argmax.default", x.clone(), vec![Arg::Int(1)], vec![]),
        DType::I64,
        &[2],
        &[1., 0.],
    );
    check(
        &unary("argmin.default", x.clone(), vec![Arg::Int(0)], vec![]),
        DType::I64,
        &[3],
        &[0., 1., 0.],
    );
    check(
        &unary("argmax.default", x.clone(), vec![], vec![]),
        DType::I64,
        &[],
        &[3.],
    );
    let y = unary(
        "argmax.default",
        x.clone(),
        vec![Arg::None, Arg::Bool(true)],
        vec![],
    );
    check(&y, DType::I64, &[1, 1], &[3.]);
    let y = unary(
        "argmin.default",
        x,
        vec![Arg::Int(-1), Arg::Bool(true)],
        vec![],
    );
    check(&y, DType::I64, &[2, 1], &[0., 1.]);
    let nan = f32s(&[1., f32::NAN, 5., f32::NAN], &[4]);
    check(
        &unary("argmax.default", nan.clone(), vec![Arg::Int(0)], vec![]),
        DType::I64,
        &[],
        &[1.],
    );
    check(
        &unary("argmin.default", nan, vec![Arg::Int(0)], vec![]),
        DType::I64,
        &[],
        &[1.],
    );
}

#[test]
fn column_reductions_over_many_rows_and_columns() {
    // Reducing the outer dim gathers tiles of columns; 37 x 300 crosses tile and block edges.
    let (r, c) = (37usize, 300usize);
    let x = iota(&[r, c]);
    let y = unary("sum.dim_IntList", x.clone(), vec![ints(&[0])], vec![]);
    let want: Vec<f64> = (0..c)
        .map(|j| (c * r * (r - 1) / 2 + r * j) as f64)
        .collect();
    check(&y, DType::F32, &[c], &want);
    let y = unary(
        "amax.default",
        x.clone(),
        vec![ints(&[0]), Arg::Bool(true)],
        vec![],
    );
    let want: Vec<f64> = (0..c).map(|j| ((r - 1) * c + j) as f64).collect();
    check(&y, DType::F32, &[1, c], &want);
    let y = unary("argmin.default", x, vec![Arg::Int(0)], vec![]);
    check(&y, DType::I64, &[c], &vec![0.0; c]);
}

#[test]
fn mean_with_a_dtype_and_of_f16() {
    let y = unary(
        "mean.dim",
        x23(),
        vec![ints(&[0])],
        vec![("dtype", Arg::DType(DType::F64))],
    );
    check(&y, DType::F64, &[3], &[2.5, 3.5, 4.5]);
    let h = coil_graph::Tensor::new(
        coil_graph::Data::F16(
            [1.0f32, 2.0, 4.0]
                .iter()
                .map(|&x| half::f16::from_f32(x))
                .collect(),
        ),
        vec![3],
    )
    .unwrap();
    let y = unary("mean.default", h, vec![], vec![]);
    check(
        &y,
        DType::F16,
        &[],
        &[half::f16::from_f64(7.0 / 3.0).to_f64()],
    );
}
