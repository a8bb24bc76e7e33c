//! Bad inputs and failing ops are typed errors naming what was wrong, never panics.

use coil_eager::EagerError;
use coil_graph::{Arg, DType, GraphBuilder};

use crate::*;

fn graph() -> coil_graph::Graph {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[2, 3]);
    let y = b.input("y", DType::I64, &[3]);
    let z = b.call("mul.Tensor", vec![n(x), n(y)]).unwrap();
    b.finish(&[z]).unwrap()
}

#[test]
fn wrong_input_count() {
    let err = coil_eager::run(&graph(), &[iota(&[2, 3])]).unwrap_err();
    assert_eq!(
        err,
        EagerError::InputCount {
            expected: 2,
            given: 1
        }
    );
    assert_eq!(err.to_string(), "the graph takes 2 inputs but 1 were given");
}

#[test]
fn wrong_input_shape_names_the_input_and_both_shapes() {
    let err = coil_eager::run(&graph(), &[iota(&[3, 2]), i64s(&[1, 2, 3], &[3])]).unwrap_err();
    assert!(matches!(err, EagerError::InputShape { .. }));
    assert_eq!(
        err.to_string(),
        "input 'x': expected shape [2, 3], got [3, 2]"
    );
}

#[test]
fn wrong_input_dtype() {
    let err = coil_eager::run(&graph(), &[iota(&[2, 3]), f32s(&[1., 2., 3.], &[3])]).unwrap_err();
    assert_eq!(err.to_string(), "input 'y': expected dtype i64, got f32");
}

#[test]
fn op_failures_name_the_node_and_op() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::I64, &[2]);
    let y = b.input("y", DType::I64, &[2]);
    let d = b
        .call_kw(
            "div.Tensor_mode",
            vec![n(x), n(y)],
            vec![("rounding_mode", Arg::Str("floor".into()))],
        )
        .unwrap();
    let g = b.finish(&[d]).unwrap();
    let err = coil_eager::run(&g, &[i64s(&[1, 2], &[2]), i64s(&[1, 0], &[2])]).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.starts_with("div (aten.div.Tensor_mode): ZeroDivisionError"),
        "{msg}"
    );
}

#[test]
fn a_strided_input_is_accepted() {
    // Same sizes and dtype, but a transposed view: eager makes it contiguous first.
    let x = iota(&[3, 2]);
    let xt = x.view(vec![2, 3], vec![1, 2], 0).unwrap();
    let out = coil_eager::run(&graph(), &[xt, i64s(&[1, 1, 1], &[3])]).unwrap();
    check(
        &out.outputs[0],
        DType::F32,
        &[2, 3],
        &[0., 2., 4., 1., 3., 5.],
    );
}
