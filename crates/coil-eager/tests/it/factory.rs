//! `full`, `arange` and `scalar_tensor`.

use coil_graph::{Arg, DType, GraphBuilder};

use crate::*;

fn make(op: &str, args: Vec<Arg>, kwargs: Vec<(&str, Arg)>) -> coil_graph::Tensor {
    let mut b = GraphBuilder::new();
    let y = b.call_kw(op, args, kwargs).unwrap();
    run1(b, y, &[])
}

#[test]
fn full_takes_the_fill_values_dtype_or_the_given_one() {
    check(
        &make("full.default", vec![ints(&[2, 3]), Arg::Int(7)], vec![]),
        DType::I64,
        &[2, 3],
        &[7.; 6],
    );
    let y = make(
        "full.default",
        vec![ints(&[2]), Arg::Int(7)],
        vec![("dtype", Arg::DType(DType::F32))],
    );
    check(&y, DType::F32, &[2], &[7., 7.]);
    let y = make("full.default", vec![ints(&[2]), Arg::Bool(true)], vec![]);
    check(&y, DType::Bool, &[2], &[1., 1.]);
    let y = make(
        "full.default",
        vec![ints(&[1]), Arg::Float(f64::NEG_INFINITY)],
        vec![],
    );
    check(&y, DType::F32, &[1], &[f64::NEG_INFINITY]);
}

#[test]
fn arange_int_and_float_steps() {
    check(
        &make("arange.default", vec![Arg::Int(5)], vec![]),
        DType::I64,
        &[5],
        &[0., 1., 2., 3., 4.],
    );
    let y = make(
        "arange.start_step",
        vec![Arg::Int(0), Arg::Int(1), Arg::Float(0.25)],
        vec![],
    );
    check(&y, DType::F32, &[4], &[0., 0.25, 0.5, 0.75]);
    let y = make(
        "arange.start_step",
        vec![Arg::Int(10), Arg::Int(0), Arg::Int(-3)],
        vec![],
    );
    check(&y, DType::I64, &[4], &[10., 7., 4., 1.]);
    // start + i * step in f64, then cast: 0.1 * 3 is 0.30000000000000004 in f64.
    let y = make(
        "arange.start_step",
        vec![Arg::Int(0), Arg::Float(0.35), Arg::Float(0.1)],
        vec![("dtype", Arg::DType(DType::F64))],
    );
    check(&y, DType::F64, &[4], &[0., 0.1, 0.2, 0.1 * 3.0]);
    let y = make(
        "arange.start",
        vec![Arg::Float(1.0), Arg::Float(2.5)],
        vec![],
    );
    check(&y, DType::F32, &[2], &[1., 2.]);
}

#[test]
fn scalar_tensor_is_zero_dim() {
    let y = make(
        "scalar_tensor.default",
        vec![Arg::Float(f64::NEG_INFINITY)],
        vec![],
    );
    check(&y, DType::F32, &[], &[f64::NEG_INFINITY]);
    let y = make(
        "scalar_tensor.default",
        vec![Arg::Int(3)],
        vec![("dtype", Arg::DType(DType::I64))],
    );
    check(&y, DType::I64, &[], &[3.]);
}
