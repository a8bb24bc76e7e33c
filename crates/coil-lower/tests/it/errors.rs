//! Errors are values with messages, never panics.

use coil_graph::{
    Arg, Call, DType, Graph, GraphBuilder, Node, NodeKind, OpRef, Tensor, TensorMeta,
};
use coil_lower::{LowerConfig, LowerError};

use crate::common::{graph, lower};

#[test]
fn composite_ops_ask_for_the_decompose_pass() {
    let g = graph(
        r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 8]"):
        _softmax: "f32[4, 8]" = torch.ops.aten._softmax.default(x, -1, False)
        return (_softmax,)
"#,
    );
    let e = coil_lower::lower(&g, &LowerConfig::gpu()).unwrap_err();
    assert!(matches!(e, LowerError::NeedsDecomposition { .. }));
    assert_eq!(
        e.to_string(),
        "node _softmax: no lowering for aten._softmax.default (run the decompose pass)"
    );
    let ln = coil_models::find("layernorm")
        .unwrap()
        .graph(coil_models::Size::Tiny)
        .unwrap();
    let e = coil_lower::lower(&ln, &LowerConfig::gpu()).unwrap_err();
    assert!(
        e.to_string()
            .contains("no lowering for aten.native_layer_norm.default (run the decompose pass)"),
        "{e}"
    );
}

#[test]
fn graphs_that_do_not_verify_are_rejected() {
    // A hand-built node whose recorded meta disagrees with inference.
    let mut g = Graph::new();
    let x = g.push(Node {
        name: "x".into(),
        kind: NodeKind::Input,
        outputs: vec![TensorMeta::contiguous(DType::F32, vec![4])],
        multi_output: false,
    });
    let bad = g.push(Node {
        name: "add".into(),
        kind: NodeKind::Call(Call {
            op: OpRef::lookup("add.Tensor").unwrap(),
            args: vec![Arg::Node(x), Arg::Node(x)],
            kwargs: vec![],
        }),
        outputs: vec![TensorMeta::contiguous(DType::F32, vec![])],
        multi_output: false,
    });
    g.set_outputs(vec![bad]);
    let e = coil_lower::lower(&g, &LowerConfig::gpu()).unwrap_err();
    assert!(matches!(e, LowerError::Verify(_)), "{e}");
}

fn add_one() -> coil_lower::LoweredGraph {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[2, 3]);
    let y = b
        .call("add.Tensor", vec![Arg::Node(x), Arg::Int(1)])
        .unwrap();
    lower(&b.finish(&[y]).unwrap())
}

#[test]
fn evaluate_checks_its_inputs() {
    let l = add_one();
    let e = l.evaluate(&[]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "evaluation: the graph takes 1 inputs, 0 were given"
    );
    let wrong_shape = Tensor::from_f32(vec![0.0; 6], vec![3, 2]).unwrap();
    let e = l.evaluate(&[wrong_shape]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "input 0 (x): expected sizes [2, 3], got [3, 2]"
    );
    let wrong_dtype = Tensor::new(coil_graph::Data::F64(vec![0.0; 6]), vec![2, 3]).unwrap();
    let e = l.evaluate(&[wrong_dtype]).unwrap_err();
    assert_eq!(e.to_string(), "input 0 (x): expected dtype f32, got f64");
    let ok = Tensor::from_f32(vec![1.0; 6], vec![2, 3]).unwrap();
    assert_eq!(l.evaluate(&[ok]).unwrap()[0].to_f64_vec(), vec![2.0; 6]);
}

#[test]
fn integer_division_by_zero_is_an_evaluation_error() {
    let g = graph(
        r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "i64[3]", y: "i64[3]"):
        div: "i64[3]" = torch.ops.aten.div.Tensor_mode(x, y, rounding_mode = 'floor')
        return (div,)
"#,
    );
    let l = lower(&g);
    let x = Tensor::new(coil_graph::Data::I64(vec![7, -7, 1]), vec![3]).unwrap();
    let y = Tensor::new(coil_graph::Data::I64(vec![2, 2, 0]), vec![3]).unwrap();
    let e = l.evaluate(&[x.clone(), y]).unwrap_err();
    assert_eq!(e.to_string(), "evaluation: integer division by zero");
    let y = Tensor::new(coil_graph::Data::I64(vec![2, 2, 1]), vec![3]).unwrap();
    let out = l.evaluate(&[x, y]).unwrap();
    assert_eq!(out[0].to_f64_vec(), vec![3.0, -4.0, 1.0]);
}

/// `evaluate_in_order` computes buffers in a scheduler's order and refuses orders that read a
/// buffer before computing it, compute one twice, or never compute an output.
#[test]
fn evaluating_in_a_bad_order_is_an_error() {
    use coil_lower::{BufferId, Idx};
    let g = coil_models::find("seed_model")
        .unwrap()
        .graph(coil_models::Size::Tiny)
        .unwrap();
    let l = lower(&g);
    let inputs: Vec<Tensor> = g
        .inputs()
        .iter()
        .map(|&i| {
            let m = g.node(i).meta();
            Tensor::new(
                coil_graph::Data::F32((0..m.numel()).map(|k| (k % 7) as f32 * 0.25).collect()),
                m.sizes.clone(),
            )
            .unwrap()
        })
        .collect();
    let (b0, b1) = (BufferId::new(0), BufferId::new(1));
    let good = l.evaluate_in_order(&inputs, &[b0, b1]).unwrap();
    let plain = l.evaluate(&inputs).unwrap();
    assert_eq!(good[0].to_f64_vec(), plain[0].to_f64_vec());
    let e = l.evaluate_in_order(&inputs, &[b1, b0]).unwrap_err();
    assert!(
        e.to_string().contains("buf0 is read before it is computed"),
        "{e}"
    );
    let e = l.evaluate_in_order(&inputs, &[b0, b0, b1]).unwrap_err();
    assert!(e.to_string().contains("buf0 is computed twice"), "{e}");
    let e = l.evaluate_in_order(&inputs, &[b0]).unwrap_err();
    assert!(
        e.to_string().contains("buf1 is read before it is computed"),
        "{e}"
    );
}
