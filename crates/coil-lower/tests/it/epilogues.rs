//! Template epilogue candidates and their folding: the lowering records the chains of a
//! matmul's sole pointwise consumers; folding a chosen one puts it into the library call, and
//! the folded graph computes what the unfolded one does.

use coil_graph::{DType, Tensor};
use coil_lower::{BufRef, BufferKind, LowerConfig, LoweredGraph};

use crate::common::{assert_close, graph, lower_with, reference};

const LINEAR_RELU_RESIDUAL: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[16, 24]", w: "f32[24, 32]", b: "f32[32]", r: "f32[32]"):
        mm: "f32[16, 32]" = torch.ops.aten.mm.default(x, w);  x = w = None
        add: "f32[16, 32]" = torch.ops.aten.add.Tensor(mm, b);  mm = b = None
        relu: "f32[16, 32]" = torch.ops.aten.relu.default(add);  add = None
        view: "f32[4, 4, 32]" = torch.ops.aten.view.default(relu, [4, 4, 32]);  relu = None
        add_1: "f32[4, 4, 32]" = torch.ops.aten.add.Tensor(view, r);  view = r = None
        return (add_1,)
"#;

fn post_ops() -> LowerConfig {
    LowerConfig {
        matmul_post_ops: vec![(DType::F32, 0)],
        ..LowerConfig::cpu()
    }
}

fn inputs() -> Vec<Tensor> {
    let t = |sizes: Vec<usize>, seed: usize| {
        let n: usize = sizes.iter().product();
        let v = (0..n)
            .map(|i| (((i * 7 + seed * 13) % 23) as f32 - 11.0) / 8.0)
            .collect();
        Tensor::from_f32(v, sizes).unwrap()
    };
    vec![
        t(vec![16, 24], 1),
        t(vec![24, 32], 2),
        t(vec![32], 3),
        t(vec![32], 4),
    ]
}

fn kernels(g: &LoweredGraph) -> Vec<String> {
    g.buffers()
        .iter()
        .map(|b| match &b.kind {
            BufferKind::Extern(e) => e.kind.kernel_name(),
            BufferKind::Computed(_) => "computed".to_string(),
        })
        .collect()
}

#[test]
fn a_matmuls_consumer_chain_is_a_candidate_and_folds_into_its_call() {
    let g = graph(LINEAR_RELU_RESIDUAL);
    let lowered = lower_with(&g, &post_ops());
    // Lowered once, unfolded: the call and the chain's one pointwise buffer.
    assert_eq!(kernels(&lowered), ["extern_kernels.mm", "computed"]);
    let [e] = lowered.epilogues() else {
        panic!("one candidate expected: {:?}", lowered.epilogues());
    };
    assert_eq!(e.buffer.index(), 1);
    assert_eq!(e.template.index(), 0);
    // The bias is the library's own (an addmm); relu and the residual add (through the
    // reshape, its operand broadcast over nothing) are post-ops.
    assert_eq!(e.kind.kernel_name(), "extern_kernels.addmm + relu + add");
    assert_eq!(e.inputs.len(), 4);

    let folded = lowered.fold_epilogues(&[e.buffer]).unwrap();
    assert_eq!(kernels(&folded), ["extern_kernels.addmm + relu + add"]);
    assert!(folded.epilogues().is_empty());
    assert!(matches!(folded.outputs()[0].buffer, BufRef::Buffer(b) if b.index() == 0));
    folded.verify().unwrap();

    let want = reference(&g, &inputs());
    for (what, l) in [("unfolded", &lowered), ("folded", &folded)] {
        let got = l.evaluate(&inputs()).unwrap();
        assert_close(what, &got[0], &want[0], 1e-5, 1e-5);
    }
}

#[test]
fn choosing_nothing_keeps_the_graph_and_an_unknown_buffer_is_an_error() {
    let g = graph(LINEAR_RELU_RESIDUAL);
    let lowered = lower_with(&g, &post_ops());
    let kept = lowered.fold_epilogues(&[]).unwrap();
    assert_eq!(kernels(&kept), kernels(&lowered));
    assert!(kept.epilogues().is_empty());
    let template = lowered.epilogues()[0].template;
    let err = lowered.fold_epilogues(&[template]).unwrap_err().to_string();
    assert!(err.contains("buf0 is no template epilogue"), "{err}");
}

#[test]
fn without_matmul_post_ops_there_are_no_candidates() {
    let g = graph(LINEAR_RELU_RESIDUAL);
    let lowered = lower_with(&g, &LowerConfig::cpu());
    assert!(lowered.epilogues().is_empty());
}
