//! The zoo through the passes: every model evaluates the same before and after (rel 1e-5) and
//! matches PyTorch's saved outputs; every size of every model passes the verifier.

use coil_models::{MODELS, Size};
use coil_passes::{PassConfig, run_passes};
use expect_test::expect;

use crate::common::assert_close;

#[test]
fn tiny_models_keep_their_results_and_match_pytorch() {
    for m in MODELS {
        let case = m.tiny_case().unwrap_or_else(|e| panic!("{}: {e}", m.name));
        let (out, stats) = run_passes(&case.graph, &PassConfig::default())
            .unwrap_or_else(|e| panic!("{}: {e}", m.name));
        let before = coil_eager::run(&case.graph, &case.inputs).expect("eager runs the input");
        let after =
            coil_eager::run(&out, &case.inputs).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        assert_close(&before.outputs, &after.outputs, 1e-5);
        assert_close(&after.outputs, &case.outputs, 1e-4);
        assert!(
            stats.cost_after <= stats.cost_before || stats.rewrites > 0,
            "{}",
            m.name
        );
        // What the pipeline writes to fx_graph_transformed.py parses back to the same graph.
        let text = coil_graph::print_graph(&out);
        assert_eq!(
            coil_graph::parse(&text).expect("transformed text parses"),
            out,
            "{}",
            m.name
        );
    }
}

#[test]
fn every_size_of_every_model_passes() {
    for m in MODELS {
        for size in [Size::Article, Size::Tiny, Size::Large] {
            let Some(_) = m.text(size) else { continue };
            let g = m.graph(size).expect("zoo parses");
            let (out, stats) = run_passes(&g, &PassConfig::default())
                .unwrap_or_else(|e| panic!("{}: {e}", m.name));
            coil_graph::verify(&out).expect("verified");
            assert!(!stats.stop_reason.is_empty());
            // No composite op survives on these f32 models.
            let text = coil_graph::print_graph(&out);
            for op in [
                "_softmax",
                "native_layer_norm",
                "gelu",
                "addmm",
                "mean.",
                "split_with_sizes",
            ] {
                assert!(
                    !text.contains(&format!("aten.{op}")),
                    "{}: {op} survived\n{text}",
                    m.name
                );
            }
        }
    }
}

#[test]
fn seed_model_after_passes() {
    let g = coil_models::find("seed_model")
        .expect("in the zoo")
        .graph(Size::Article)
        .expect("parses");
    let (out, stats) = run_passes(&g, &PassConfig::default()).expect("runs");
    expect![[r#"
        class GraphModule(torch.nn.Module):
            def forward(self, x: "f32[1024, 1024]", bias: "f32[1024]", gamma: "f32[1024]", beta: "f32[1024]"):
                mul: "f32[1024, 1024]" = torch.ops.aten.mul.Tensor(x, 1.1);  x = None
                add: "f32[1024, 1024]" = torch.ops.aten.add.Tensor(mul, bias);  mul = bias = None
                relu: "f32[1024, 1024]" = torch.ops.aten.relu.default(add);  add = None
                mul_1: "f32[1024, 1024]" = torch.ops.aten.mul.Tensor(relu, relu)
                mul_2: "f32[1024, 1024]" = torch.ops.aten.mul.Tensor(relu, 0.1);  relu = None
                add_1: "f32[1024, 1024]" = torch.ops.aten.add.Tensor(mul_1, mul_2);  mul_1 = mul_2 = None
                sum: "f32[1024, 1]" = torch.ops.aten.sum.dim_IntList(add_1, [1], True)
                mul_4: "f32[1024, 1]" = torch.ops.aten.mul.Tensor(sum, 0.0009765625);  sum = None
                sub: "f32[1024, 1024]" = torch.ops.aten.sub.Tensor(add_1, mul_4);  add_1 = mul_4 = None
                mul_3: "f32[1024, 1024]" = torch.ops.aten.mul.Tensor(sub, gamma);  sub = gamma = None
                add_2: "f32[1024, 1024]" = torch.ops.aten.add.Tensor(mul_3, beta);  mul_3 = beta = None
                return (add_2,)
    "#]]
    .assert_eq(&coil_graph::print_graph(&out));
    assert_eq!(
        (stats.nodes_before, stats.nodes_after),
        (10, 11),
        "mean becomes a sum and a scale"
    );
}

#[test]
fn softmax_after_passes() {
    let g = coil_models::find("softmax")
        .expect("in the zoo")
        .graph(Size::Article)
        .expect("parses");
    let (out, _) = run_passes(&g, &PassConfig::default()).expect("runs");
    expect![[r#"
        class GraphModule(torch.nn.Module):
            def forward(self, x: "f32[1024, 1024]"):
                amax: "f32[1024, 1]" = torch.ops.aten.amax.default(x, [-1], True)
                sub: "f32[1024, 1024]" = torch.ops.aten.sub.Tensor(x, amax);  x = amax = None
                exp: "f32[1024, 1024]" = torch.ops.aten.exp.default(sub);  sub = None
                sum: "f32[1024, 1]" = torch.ops.aten.sum.dim_IntList(exp, [-1], True)
                div: "f32[1024, 1024]" = torch.ops.aten.div.Tensor(exp, sum);  exp = sum = None
                return (div,)
    "#]]
    .assert_eq(&coil_graph::print_graph(&out));
}

/// Decomposed nodes remember the op they came from (Inductor's `original_aten`), so kernel
/// names can still say `mean` and `_softmax`; nodes no pass touched stand for themselves.
#[test]
fn decomposed_nodes_remember_their_original_op() {
    use coil_graph::OpKind;
    let stands_for = |name: &str| -> Vec<(String, OpKind, OpKind)> {
        let g = coil_models::find(name)
            .unwrap()
            .graph(Size::Article)
            .unwrap();
        let (out, _) = run_passes(&g, &PassConfig::default()).unwrap();
        out.nodes()
            .filter_map(|(id, n)| match &n.kind {
                coil_graph::NodeKind::Call(c) => {
                    Some((n.name.clone(), c.op.kind(), out.original_op(id).unwrap()))
                }
                _ => None,
            })
            .collect()
    };
    let seed = stands_for("seed_model");
    let changed: Vec<_> = seed.iter().filter(|(_, op, orig)| op != orig).collect();
    assert_eq!(
        changed
            .iter()
            .map(|(_, op, orig)| (*op, *orig))
            .collect::<Vec<_>>(),
        [(OpKind::Sum, OpKind::Mean), (OpKind::Mul, OpKind::Mean)]
    );
    assert_eq!(seed.len(), 11);
    // softmax: every node of the decomposition stands for `_softmax`.
    let softmax = stands_for("softmax");
    assert!(softmax.len() >= 5);
    assert!(softmax.iter().all(|(_, _, orig)| *orig == OpKind::Softmax));
    // A multi-output op's decomposition stands for it through the `getitem`s.
    let ln = stands_for("layernorm");
    assert!(
        ln.iter()
            .all(|(_, _, orig)| *orig == OpKind::NativeLayerNorm),
        "{ln:?}"
    );
    // Running the passes again keeps the annotation.
    let g = coil_models::find("softmax")
        .unwrap()
        .graph(Size::Article)
        .unwrap();
    let once = run_passes(&g, &PassConfig::default()).unwrap().0;
    let twice = run_passes(&once, &PassConfig::default()).unwrap().0;
    assert!(
        twice
            .nodes()
            .filter(|(_, n)| matches!(n.kind, coil_graph::NodeKind::Call(_)))
            .all(|(id, _)| twice.original_op(id) == Some(OpKind::Softmax))
    );
}
