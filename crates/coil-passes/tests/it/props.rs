//! Random graphs of pointwise ops, broadcasts, views and reductions evaluate the same before
//! and after the passes.

use coil_graph::{Arg, DType, GraphBuilder, NodeId};
use coil_passes::{PassConfig, run_passes};
use proptest::prelude::*;

use crate::common::assert_same_results;

/// One construction step; every step yields a [R, C] f32 value.
#[derive(Clone, Debug)]
enum Step {
    Unary(usize, &'static str),
    Binary(usize, usize, &'static str),
    Scalar(usize, &'static str, f64),
    PermuteTwice(usize),
    ReshapeRoundTrip(usize),
    UnsqueezeSqueeze(usize),
    ReduceBroadcast(usize, &'static str, i64),
    Softmax(usize, i64),
    Mean(usize, i64),
    RowBias(usize),
}

fn step() -> impl Strategy<Value = Step> {
    let idx = 0usize..8;
    prop_oneof![
        (
            idx.clone(),
            prop::sample::select(vec!["relu", "neg", "tanh", "sigmoid", "abs", "sin"])
        )
            .prop_map(|(a, o)| Step::Unary(a, o)),
        (
            idx.clone(),
            idx.clone(),
            prop::sample::select(vec!["add", "mul", "sub", "maximum"])
        )
            .prop_map(|(a, b, o)| Step::Binary(a, b, o)),
        (
            idx.clone(),
            prop::sample::select(vec!["mul", "div", "add", "sub", "pow"]),
            prop::sample::select(vec![0.0, 1.0, 2.0, 3.0, 0.5, 1024.0, 1.1])
        )
            .prop_map(|(a, o, c)| Step::Scalar(a, o, c)),
        idx.clone().prop_map(Step::PermuteTwice),
        idx.clone().prop_map(Step::ReshapeRoundTrip),
        idx.clone().prop_map(Step::UnsqueezeSqueeze),
        (
            idx.clone(),
            prop::sample::select(vec!["sum", "amax"]),
            prop::sample::select(vec![0i64, 1, -1])
        )
            .prop_map(|(a, o, d)| Step::ReduceBroadcast(a, o, d)),
        (idx.clone(), prop::sample::select(vec![0i64, -1])).prop_map(|(a, d)| Step::Softmax(a, d)),
        (idx.clone(), prop::sample::select(vec![0i64, 1])).prop_map(|(a, d)| Step::Mean(a, d)),
        idx.prop_map(Step::RowBias),
    ]
}

fn build(rows: usize, cols: usize, steps: &[Step]) -> coil_graph::Graph {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[rows, cols]);
    let y = b.input("y", DType::F32, &[rows, cols]);
    let row = b.input("row", DType::F32, &[cols]);
    let mut vals: Vec<NodeId> = vec![x, y];
    let n = |v: NodeId| Arg::Node(v);
    let ints = |v: &[i64]| Arg::List(v.iter().map(|&i| Arg::Int(i)).collect());
    for s in steps {
        let pick = |i: usize| vals[i % vals.len()];
        let out = match *s {
            Step::Unary(a, op) => b.call(&format!("{op}.default"), vec![n(pick(a))]),
            Step::Binary(a, c, op) => {
                let name = if op == "maximum" {
                    "maximum.default".to_string()
                } else {
                    format!("{op}.Tensor")
                };
                b.call(&name, vec![n(pick(a)), n(pick(c))])
            }
            Step::Scalar(a, "pow", _) => b.call("pow.Tensor_Scalar", vec![n(pick(a)), Arg::Int(2)]),
            Step::Scalar(a, op, c) => {
                b.call(&format!("{op}.Tensor"), vec![n(pick(a)), Arg::Float(c)])
            }
            Step::PermuteTwice(a) => b
                .call("permute.default", vec![n(pick(a)), ints(&[1, 0])])
                .and_then(|p| b.call("permute.default", vec![n(p), ints(&[1, 0])])),
            Step::ReshapeRoundTrip(a) => b
                .call(
                    "reshape.default",
                    vec![n(pick(a)), ints(&[(rows * cols) as i64])],
                )
                .and_then(|p| {
                    b.call(
                        "view.default",
                        vec![n(p), ints(&[rows as i64, cols as i64])],
                    )
                }),
            Step::UnsqueezeSqueeze(a) => b
                .call("unsqueeze.default", vec![n(pick(a)), Arg::Int(1)])
                .and_then(|p| b.call("squeeze.dim", vec![n(p), Arg::Int(1)])),
            Step::ReduceBroadcast(a, op, d) => {
                let v = pick(a);
                let name = if op == "sum" {
                    "sum.dim_IntList"
                } else {
                    "amax.default"
                };
                b.call(name, vec![n(v), ints(&[d]), Arg::Bool(true)])
                    .and_then(|r| b.call("sub.Tensor", vec![n(v), n(r)]))
            }
            Step::Softmax(a, d) => b.call(
                "_softmax.default",
                vec![n(pick(a)), Arg::Int(d), Arg::Bool(false)],
            ),
            Step::Mean(a, d) => {
                let v = pick(a);
                b.call("mean.dim", vec![n(v), ints(&[d]), Arg::Bool(true)])
                    .and_then(|r| b.call("mul.Tensor", vec![n(v), n(r)]))
            }
            Step::RowBias(a) => b.call("add.Tensor", vec![n(pick(a)), n(row)]),
        };
        vals.push(out.expect("random steps build valid graphs"));
    }
    let last = *vals.last().expect("at least the inputs");
    b.finish(&[last]).expect("valid")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn passes_preserve_results(rows in 1usize..5, cols in 1usize..6, steps in prop::collection::vec(step(), 1..10)) {
        let g = build(rows, cols, &steps);
        let (out, _) = run_passes(&g, &PassConfig::default()).expect("passes run");
        assert_same_results(&g, &out, 1e-5);
    }
}
