//! Pointwise ops: broadcasting, promotion, scalars, rounding modes, NaN rules, activations.

use coil_graph::{Arg, DType, GraphBuilder};

use crate::*;

#[test]
fn broadcasting_adds_rows_and_outer_sums() {
    let x = f32s(&[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let bias = f32s(&[10., 20., 30.], &[3]);
    let y = binary("add.Tensor", x, bias);
    check(&y, DType::F32, &[2, 3], &[11., 22., 33., 14., 25., 36.]);

    let col = f32s(&[1., 2.], &[2, 1]);
    let row = f32s(&[10., 20., 30.], &[1, 3]);
    let y = binary("mul.Tensor", col, row);
    check(&y, DType::F32, &[2, 3], &[10., 20., 30., 20., 40., 60.]);

    // A 0-d tensor broadcasts everywhere.
    let y = binary("sub.Tensor", iota(&[2, 2]), f32s(&[1.], &[]));
    check(&y, DType::F32, &[2, 2], &[-1., 0., 1., 2.]);
}

#[test]
fn alpha_scales_the_second_operand() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[3]);
    let y = b.input("y", DType::F32, &[3]);
    let add = b
        .call_kw("add.Tensor", vec![n(x), n(y)], vec![("alpha", Arg::Int(2))])
        .unwrap();
    let sub = b
        .call_kw(
            "sub.Tensor",
            vec![n(x), n(y)],
            vec![("alpha", Arg::Float(0.5))],
        )
        .unwrap();
    let run = run(
        b,
        &[add, sub],
        &[f32s(&[1., 2., 3.], &[3]), f32s(&[10., 20., 30.], &[3])],
    );
    check(&run.outputs[0], DType::F32, &[3], &[21., 42., 63.]);
    check(&run.outputs[1], DType::F32, &[3], &[-4., -8., -12.]);
}

#[test]
fn type_promotion_follows_pytorch() {
    // i64 tensor * Python float -> default float dtype.
    let y = unary(
        "mul.Tensor",
        i64s(&[1, 2, 3], &[3]),
        vec![Arg::Float(1.5)],
        vec![],
    );
    check(&y, DType::F32, &[3], &[1.5, 3.0, 4.5]);
    // bool tensor + Python int -> i64.
    let y = unary(
        "add.Tensor",
        bools(&[true, false], &[2]),
        vec![Arg::Int(2)],
        vec![],
    );
    check(&y, DType::I64, &[2], &[3., 2.]);
    // bool tensor + i64 tensor -> i64.
    let y = binary(
        "add.Tensor",
        bools(&[true, false], &[2]),
        i64s(&[5, 7], &[2]),
    );
    check(&y, DType::I64, &[2], &[6., 7.]);
    // bool + bool stays bool (logical or).
    let y = binary(
        "add.Tensor",
        bools(&[true, true, false], &[3]),
        bools(&[true, false, false], &[3]),
    );
    check(&y, DType::Bool, &[3], &[1., 1., 0.]);
    // f32 tensor + f64 0-d tensor stays f32; i64 tensor + f64 0-d tensor -> f64.
    let y = binary("add.Tensor", f32s(&[1., 2.], &[2]), f64s(&[0.5], &[]));
    check(&y, DType::F32, &[2], &[1.5, 2.5]);
    let y = binary("add.Tensor", i64s(&[1, 2], &[2]), f64s(&[0.5], &[]));
    check(&y, DType::F64, &[2], &[1.5, 2.5]);
    // f16 computes in f32 and rounds once.
    let h = coil_graph::Tensor::new(
        coil_graph::Data::F16(vec![half::f16::from_f32(1.0), half::f16::from_f32(3.0)]),
        vec![2],
    )
    .unwrap();
    let y = unary("div.Tensor", h, vec![Arg::Int(3)], vec![]);
    check(
        &y,
        DType::F16,
        &[2],
        &[half::f16::from_f64(1.0 / 3.0).to_f64(), 1.0],
    );
    // Integer overflow wraps like C++.
    let y = unary(
        "add.Tensor",
        i64s(&[i64::MAX], &[1]),
        vec![Arg::Int(1)],
        vec![],
    );
    check(&y, DType::I64, &[1], &[i64::MIN as f64]);
}

#[test]
fn division_and_rounding_modes() {
    let x = i64s(&[7, -7, 6], &[3]);
    let y = unary("div.Tensor", x.clone(), vec![Arg::Int(2)], vec![]);
    check(&y, DType::F32, &[3], &[3.5, -3.5, 3.0]);
    let mode = |m: &str| vec![("rounding_mode", Arg::Str(m.into()))];
    let y = unary(
        "div.Scalar_mode",
        x.clone(),
        vec![Arg::Int(2)],
        mode("trunc"),
    );
    check(&y, DType::I64, &[3], &[3., -3., 3.]);
    let y = unary("div.Scalar_mode", x, vec![Arg::Int(2)], mode("floor"));
    check(&y, DType::I64, &[3], &[3., -4., 3.]);
    let f = f32s(&[7.5, -7.5, 1.0, -0.0], &[4]);
    let y = unary(
        "div.Scalar_mode",
        f.clone(),
        vec![Arg::Int(2)],
        mode("floor"),
    );
    check(&y, DType::F32, &[4], &[3., -4., 0., -0.]);
    let y = unary("div.Scalar_mode", f, vec![Arg::Int(2)], mode("trunc"));
    check(&y, DType::F32, &[4], &[3., -3., 0., -0.]);
    // Float division by zero is IEEE.
    let y = binary("div.Tensor", f32s(&[1., -1., 0.], &[3]), f32s(&[0.], &[1]));
    check(
        &y,
        DType::F32,
        &[3],
        &[f64::INFINITY, f64::NEG_INFINITY, f64::NAN],
    );
}

#[test]
fn pow_integer_float_and_scalar_base() {
    let y = unary(
        "pow.Tensor_Scalar",
        i64s(&[2, 3, -2], &[3]),
        vec![Arg::Int(3)],
        vec![],
    );
    check(&y, DType::I64, &[3], &[8., 27., -8.]);
    let y = unary(
        "pow.Tensor_Scalar",
        f32s(&[4., 9.], &[2]),
        vec![Arg::Float(0.5)],
        vec![],
    );
    check(&y, DType::F32, &[2], &[2., 3.]);
    let y = unary(
        "pow.Tensor_Scalar",
        f32s(&[2., 3.], &[2]),
        vec![Arg::Int(2)],
        vec![],
    );
    check(&y, DType::F32, &[2], &[4., 9.]);
    let y = unary(
        "pow.Tensor_Scalar",
        f32s(&[2., 4.], &[2]),
        vec![Arg::Int(-1)],
        vec![],
    );
    check(&y, DType::F32, &[2], &[0.5, 0.25]);
    let y = binary(
        "pow.Tensor_Tensor",
        f32s(&[2., 2.], &[2]),
        f32s(&[3., 0.5], &[2]),
    );
    check(&y, DType::F32, &[2], &[8., 2f32.sqrt() as f64]);
    // Integer tensor exponents below zero: 0 except for bases 1 and -1.
    let y = binary(
        "pow.Tensor_Tensor",
        i64s(&[2, 1, -1, -1], &[4]),
        i64s(&[-1, -5, -2, -3], &[4]),
    );
    check(&y, DType::I64, &[4], &[0., 1., 1., -1.]);
    // pow.Scalar: a number raised to a tensor.
    let mut b = GraphBuilder::new();
    let e = b.input("e", DType::F32, &[3]);
    let p = b.call("pow.Scalar", vec![Arg::Int(2), n(e)]).unwrap();
    check(
        &run1(b, p, &[f32s(&[0., 1., 3.], &[3])]),
        DType::F32,
        &[3],
        &[1., 2., 8.],
    );
}

#[test]
fn comparisons_compute_in_the_common_dtype() {
    let x = f32s(&[1., 2., f32::NAN], &[3]);
    let y = unary("lt.Scalar", x.clone(), vec![Arg::Float(1.5)], vec![]);
    check(&y, DType::Bool, &[3], &[1., 0., 0.]);
    let y = unary("ne.Scalar", x.clone(), vec![Arg::Int(2)], vec![]);
    check(&y, DType::Bool, &[3], &[1., 0., 1.]);
    let y = binary("eq.Tensor", x.clone(), x);
    check(&y, DType::Bool, &[3], &[1., 1., 0.]);
    // An int tensor against a float number compares as floats.
    let y = unary(
        "gt.Scalar",
        i64s(&[0, 1], &[2]),
        vec![Arg::Float(0.5)],
        vec![],
    );
    check(&y, DType::Bool, &[2], &[0., 1.]);
    let y = unary(
        "le.Scalar",
        i64s(&[-1, 0, 1], &[3]),
        vec![Arg::Int(0)],
        vec![],
    );
    check(&y, DType::Bool, &[3], &[1., 1., 0.]);
    let y = binary("ge.Tensor", i64s(&[1, 5], &[2]), f32s(&[1.5], &[1]));
    check(&y, DType::Bool, &[2], &[0., 1.]);
}

#[test]
fn logic_and_bitwise_not() {
    let p = bools(&[true, true, false, false], &[4]);
    let q = bools(&[true, false, true, false], &[4]);
    check(
        &binary("logical_and.default", p.clone(), q.clone()),
        DType::Bool,
        &[4],
        &[1., 0., 0., 0.],
    );
    check(
        &binary("logical_or.default", p.clone(), q),
        DType::Bool,
        &[4],
        &[1., 1., 1., 0.],
    );
    check(
        &unary("logical_not.default", p.clone(), vec![], vec![]),
        DType::Bool,
        &[4],
        &[0., 0., 1., 1.],
    );
    check(
        &unary("bitwise_not.default", p, vec![], vec![]),
        DType::Bool,
        &[4],
        &[0., 0., 1., 1.],
    );
    check(
        &unary("bitwise_not.default", i64s(&[5, -1], &[2]), vec![], vec![]),
        DType::I64,
        &[2],
        &[-6., 0.],
    );
    // Logic on numbers: nonzero is true.
    check(
        &binary(
            "logical_and.default",
            f32s(&[0.5, 0.0], &[2]),
            i64s(&[3, 3], &[2]),
        ),
        DType::Bool,
        &[2],
        &[1., 0.],
    );
}

#[test]
fn where_selects_with_broadcast_and_scalars() {
    let mut b = GraphBuilder::new();
    let c = b.input("c", DType::Bool, &[2, 1]);
    let x = b.input("x", DType::F32, &[2, 2]);
    let w = b
        .call("where.self", vec![n(c), n(x), Arg::Node(x)])
        .unwrap();
    let s = b
        .call("where.ScalarOther", vec![n(c), n(x), Arg::Float(-1.0)])
        .unwrap();
    let both = b
        .call("where.Scalar", vec![n(c), Arg::Int(1), Arg::Int(0)])
        .unwrap();
    let run = run(
        b,
        &[w, s, both],
        &[bools(&[true, false], &[2, 1]), iota(&[2, 2])],
    );
    check(&run.outputs[0], DType::F32, &[2, 2], &[0., 1., 2., 3.]);
    check(&run.outputs[1], DType::F32, &[2, 2], &[0., 1., -1., -1.]);
    check(&run.outputs[2], DType::I64, &[2, 1], &[1., 0.]);
}

#[test]
fn clamp_scalar_and_tensor_bounds_propagate_nan() {
    let x = f32s(&[-2., 0.5, 3., f32::NAN], &[4]);
    let y = unary(
        "clamp.default",
        x.clone(),
        vec![Arg::Int(0), Arg::Int(1)],
        vec![],
    );
    check(&y, DType::F32, &[4], &[0., 0.5, 1., f64::NAN]);
    let y = unary("clamp.default", x.clone(), vec![Arg::Float(0.0)], vec![]);
    check(&y, DType::F32, &[4], &[0., 0.5, 3., f64::NAN]);
    let y = unary(
        "clamp.default",
        x.clone(),
        vec![],
        vec![("max", Arg::Int(1))],
    );
    check(&y, DType::F32, &[4], &[-2., 0.5, 1., f64::NAN]);
    // Tensor bounds broadcast; a NaN bound gives NaN.
    let mut b = GraphBuilder::new();
    let xi = b.input("x", DType::F32, &[4]);
    let lo = b.input("lo", DType::F32, &[4]);
    let hi = b.input("hi", DType::F32, &[1]);
    let c = b.call("clamp.Tensor", vec![n(xi), n(lo), n(hi)]).unwrap();
    let y = run1(
        b,
        c,
        &[x, f32s(&[f32::NAN, 1., 0., 0.], &[4]), f32s(&[2.], &[1])],
    );
    check(&y, DType::F32, &[4], &[f64::NAN, 1., 2., f64::NAN]);
    // Integers stay integers.
    let y = unary(
        "clamp.default",
        i64s(&[-5, 5, 50], &[3]),
        vec![Arg::Int(0), Arg::Int(10)],
        vec![],
    );
    check(&y, DType::I64, &[3], &[0., 5., 10.]);
}

#[test]
fn maximum_minimum_propagate_nan() {
    let x = f32s(&[1., f32::NAN, 3.], &[3]);
    let y = f32s(&[2., 0., f32::NAN], &[3]);
    check(
        &binary("maximum.default", x.clone(), y.clone()),
        DType::F32,
        &[3],
        &[2., f64::NAN, f64::NAN],
    );
    check(
        &binary("minimum.default", x, y),
        DType::F32,
        &[3],
        &[1., f64::NAN, f64::NAN],
    );
}

#[test]
fn to_copy_converts_with_pytorch_rules() {
    let x = f32s(&[1.7, -1.7, 0.0, 0.5], &[4]);
    let to = |d: DType| vec![("dtype", Arg::DType(d))];
    check(
        &unary("_to_copy.default", x.clone(), vec![], to(DType::I64)),
        DType::I64,
        &[4],
        &[1., -1., 0., 0.],
    );
    check(
        &unary("_to_copy.default", x.clone(), vec![], to(DType::Bool)),
        DType::Bool,
        &[4],
        &[1., 1., 0., 1.],
    );
    let h = unary("_to_copy.default", x.clone(), vec![], to(DType::F16));
    check(
        &h,
        DType::F16,
        &[4],
        &[1.7f32, -1.7, 0.0, 0.5].map(|v| half::f16::from_f32(v).to_f64()),
    );
    let same = unary("_to_copy.default", x.clone(), vec![], vec![]);
    assert!(!same.shares_storage(&x), "_to_copy copies");
}

#[test]
fn unary_math() {
    let x = f32s(&[0., 1., 4.], &[3]);
    let close = |op: &str, want: [f64; 3]| {
        let y = unary(op, x.clone(), vec![], vec![]);
        assert_eq!(y.dtype(), DType::F32, "{op}");
        check_close(&y, &[3], &want, 1e-6);
    };
    close("exp.default", [1., 1f64.exp(), 4f64.exp()]);
    close("log.default", [f64::NEG_INFINITY, 0., 4f64.ln()]);
    close("log1p.default", [0., 2f64.ln(), 5f64.ln()]);
    close("sqrt.default", [0., 1., 2.]);
    close("rsqrt.default", [f64::INFINITY, 1., 0.5]);
    close("sin.default", [0., 1f64.sin(), 4f64.sin()]);
    close("cos.default", [1., 1f64.cos(), 4f64.cos()]);
    close("tanh.default", [0., 1f64.tanh(), 4f64.tanh()]);
    close("erf.default", [0., 0.8427007929497149, 0.9999999845827421]);
    close(
        "sigmoid.default",
        [0.5, 1. / (1. + (-1f64).exp()), 1. / (1. + (-4f64).exp())],
    );
    close(
        "silu.default",
        [0., 1. / (1. + (-1f64).exp()), 4. / (1. + (-4f64).exp())],
    );
    close("reciprocal.default", [f64::INFINITY, 1., 0.25]);
    // Ints go to the default float dtype.
    let y = unary("exp.default", i64s(&[0], &[1]), vec![], vec![]);
    check(&y, DType::F32, &[1], &[1.]);
    let s = f32s(&[-2., 0., 3.], &[3]);
    check(
        &unary("relu.default", s.clone(), vec![], vec![]),
        DType::F32,
        &[3],
        &[0., 0., 3.],
    );
    check(
        &unary("neg.default", s.clone(), vec![], vec![]),
        DType::F32,
        &[3],
        &[2., -0., -3.],
    );
    check(
        &unary("abs.default", s, vec![], vec![]),
        DType::F32,
        &[3],
        &[2., 0., 3.],
    );
    check(
        &unary("abs.default", i64s(&[-3, i64::MIN], &[2]), vec![], vec![]),
        DType::I64,
        &[2],
        &[3., i64::MIN as f64],
    );
}

#[test]
fn gelu_erf_and_tanh() {
    let x = f32s(&[1., -1., 0.5, -2.], &[4]);
    // Reference values from Python's math.erf / math.tanh in f64.
    let exact = [
        0.8413447460685429,
        -0.15865525393145707,
        0.34573123063700656,
        -0.04550026389635842,
    ];
    let tanh = [
        0.8411919906082768,
        -0.15880800939172324,
        0.34571400982514394,
        -0.04540230591222494,
    ];
    check_close(
        &unary("gelu.default", x.clone(), vec![], vec![]),
        &[4],
        &exact,
        1e-6,
    );
    let y = unary(
        "gelu.default",
        x.clone(),
        vec![],
        vec![("approximate", Arg::Str("tanh".into()))],
    );
    check_close(&y, &[4], &tanh, 1e-6);
    let y = unary(
        "gelu.default",
        x,
        vec![],
        vec![("approximate", Arg::Str("none".into()))],
    );
    check_close(&y, &[4], &exact, 1e-6);
}

#[test]
fn strided_and_broadcast_operands_need_no_copy() {
    // A transposed operand and an expanded one go through the strided loops.
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[2, 3]);
    let r = b.input("r", DType::F32, &[3, 1]);
    let t = b.call("t.default", vec![n(x)]).unwrap();
    let e = b.call("expand.default", vec![n(r), ints(&[3, 2])]).unwrap();
    let y = b.call("add.Tensor", vec![n(t), n(e)]).unwrap();
    let out = run1(b, y, &[iota(&[2, 3]), f32s(&[100., 200., 300.], &[3, 1])]);
    check(
        &out,
        DType::F32,
        &[3, 2],
        &[100., 103., 201., 204., 302., 305.],
    );
}

#[test]
fn bf16_and_i32_keep_their_dtypes() {
    let b16 = |v: &[f32]| {
        coil_graph::Tensor::new(
            coil_graph::Data::BF16(v.iter().map(|&x| half::bf16::from_f32(x)).collect()),
            vec![v.len()],
        )
        .unwrap()
    };
    let y = binary("mul.Tensor", b16(&[1.5, -2.0]), b16(&[3.0, 0.25]));
    check(&y, DType::BF16, &[2], &[4.5, -0.5]);
    // bf16 with f16 promotes to f32.
    let h = coil_graph::Tensor::new(
        coil_graph::Data::F16(vec![half::f16::from_f32(0.5)]),
        vec![1],
    )
    .unwrap();
    let y = binary("add.Tensor", b16(&[1.0]), h);
    check(&y, DType::F32, &[1], &[1.5]);
    let i = coil_graph::Tensor::new(coil_graph::Data::I32(vec![i32::MAX, -4]), vec![2]).unwrap();
    let y = unary("add.Tensor", i.clone(), vec![Arg::Int(1)], vec![]);
    check(&y, DType::I32, &[2], &[i32::MIN as f64, -3.]);
    let y = unary(
        "div.Scalar_mode",
        i,
        vec![Arg::Int(3)],
        vec![("rounding_mode", Arg::Str("floor".into()))],
    );
    check(&y, DType::I32, &[2], &[(i32::MAX / 3) as f64, -2.]);
}
