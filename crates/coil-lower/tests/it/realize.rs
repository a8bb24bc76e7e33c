//! The realize rules and their thresholds move the outcome in the expected direction.

use coil_graph::{Arg, DType, Graph, GraphBuilder, NodeId};
use coil_lower::{LowerConfig, Op};

use crate::common::{graph, lower, lower_with};

fn n(id: NodeId) -> Arg {
    Arg::Node(id)
}

fn call(b: &mut GraphBuilder, op: &str, args: Vec<Arg>) -> NodeId {
    b.call(op, args).unwrap()
}

fn count(g: &Graph, config: &LowerConfig) -> usize {
    lower_with(g, config).buffers().len()
}

/// `s = a + b + c + d + e` read by two users: 5 distinct reads.
fn five_reads_two_users() -> Graph {
    let mut b = GraphBuilder::new();
    let ins: Vec<NodeId> = (0..5)
        .map(|i| b.input(&format!("in{i}"), DType::F32, &[64, 64]))
        .collect();
    let mut s = ins[0];
    for &x in &ins[1..] {
        s = call(&mut b, "add.Tensor", vec![n(s), n(x)]);
    }
    let u1 = call(&mut b, "relu.default", vec![n(s)]);
    let u2 = call(&mut b, "sin.default", vec![n(s)]);
    let out = call(&mut b, "add.Tensor", vec![n(u1), n(u2)]);
    b.finish(&[out]).unwrap()
}

#[test]
fn raising_the_reads_threshold_inlines_a_reused_value() {
    let g = five_reads_two_users();
    assert_eq!(count(&g, &LowerConfig::gpu()), 2, "5 reads > 4: s realizes");
    let relaxed = LowerConfig {
        realize_reads_threshold: 8,
        ..LowerConfig::gpu()
    };
    assert_eq!(count(&g, &relaxed), 1, "5 reads <= 8: s is recomputed");
}

/// A 12-op value of two inputs, read by two users.
fn long_body_two_users() -> Graph {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[64, 64]);
    let y = b.input("y", DType::F32, &[64, 64]);
    let mut v = call(&mut b, "add.Tensor", vec![n(x), n(y)]);
    for op in ["sin.default", "cos.default", "tanh.default", "abs.default"] {
        v = call(&mut b, op, vec![n(v)]);
    }
    let u1 = call(&mut b, "mul.Tensor", vec![n(v), Arg::Float(2.0)]);
    let u2 = call(&mut b, "mul.Tensor", vec![n(v), Arg::Float(3.0)]);
    let out = call(&mut b, "add.Tensor", vec![n(u1), n(u2)]);
    b.finish(&[out]).unwrap()
}

#[test]
fn lowering_the_opcount_threshold_realizes_a_reused_value() {
    let g = long_body_two_users();
    assert_eq!(count(&g, &LowerConfig::gpu()), 1, "7 ops <= 30: inlined");
    let strict = LowerConfig {
        realize_opcount_threshold: 5,
        ..LowerConfig::gpu()
    };
    assert_eq!(count(&g, &strict), 2, "7 ops > 5: realized");
}

/// `a0 + a1 + ... + a9`, each add used once.
fn ten_way_sum() -> Graph {
    let mut b = GraphBuilder::new();
    let ins: Vec<NodeId> = (0..10)
        .map(|i| b.input(&format!("a{i}"), DType::F32, &[16]))
        .collect();
    let mut s = ins[0];
    for &x in &ins[1..] {
        s = call(&mut b, "add.Tensor", vec![n(s), n(x)]);
    }
    b.finish(&[s]).unwrap()
}

#[test]
fn accumulated_reads_realize_at_the_threshold() {
    let g = ten_way_sum();
    // The add reading 9 buffers (> 8) realizes; the last add reads it and a9.
    let l = lower(&g);
    assert_eq!(l.buffers().len(), 2);
    assert_eq!(l.buffers()[0].reads.len(), 9);
    assert_eq!(l.buffers()[1].reads.len(), 2);
    let relaxed = LowerConfig {
        realize_acc_reads_threshold: 16,
        ..LowerConfig::gpu()
    };
    assert_eq!(count(&g, &relaxed), 1);
}

#[test]
fn inline_all_false_realizes_every_op() {
    let chain = coil_models::find("chain")
        .unwrap()
        .graph(coil_models::Size::Article)
        .unwrap();
    let no_inline = LowerConfig {
        inline_all: false,
        ..LowerConfig::gpu()
    };
    let l = lower_with(&chain, &no_inline);
    let origins: Vec<Vec<&str>> = l
        .buffers()
        .iter()
        .map(|b| b.origins.iter().map(|o| o.node.as_str()).collect())
        .collect();
    assert_eq!(origins, [["add"], ["relu"], ["mul"], ["sin"]]);
    assert_eq!(count(&chain, &LowerConfig::gpu()), 1);
}

const REUSED_EXP: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[64, 64]"):
        exp: "f32[64, 64]" = torch.ops.aten.exp.default(x)
        add: "f32[64, 64]" = torch.ops.aten.add.Tensor(exp, 1)
        mul: "f32[64, 64]" = torch.ops.aten.mul.Tensor(exp, 2)
        mul_1: "f32[64, 64]" = torch.ops.aten.mul.Tensor(add, mul)
        return (mul_1,)
"#;

#[test]
fn the_cpu_rule_realizes_a_reused_exp() {
    let g = graph(REUSED_EXP);
    assert_eq!(count(&g, &LowerConfig::gpu()), 1);
    let l = lower_with(&g, &LowerConfig::cpu());
    assert_eq!(l.buffers().len(), 2);
    assert_eq!(
        l.realized_buffer_of("exp").map(|b| l.name(b)).as_deref(),
        Some("buf0")
    );
    assert_eq!(
        LowerConfig::cpu().realize_on_reuse_ops,
        [Op::Exp, Op::Sigmoid]
    );
}

#[test]
fn reuse_through_a_view_marks_the_viewed_storage() {
    let g = graph(
        r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[8, 16]"):
        exp: "f32[8, 16]" = torch.ops.aten.exp.default(x)
        t: "f32[16, 8]" = torch.ops.aten.t.default(exp)
        add: "f32[16, 8]" = torch.ops.aten.add.Tensor(t, 1)
        mul: "f32[16, 8]" = torch.ops.aten.mul.Tensor(t, 2)
        mul_1: "f32[16, 8]" = torch.ops.aten.mul.Tensor(add, mul)
        return (mul_1,)
"#,
    );
    let l = lower_with(&g, &LowerConfig::cpu());
    assert_eq!(l.buffers().len(), 2);
    assert_eq!(
        l.realized_buffer_of("exp").map(|b| l.name(b)).as_deref(),
        Some("buf0")
    );
    // buf1 reads the transpose of buf0.
    let dep = l.buffers()[1].reads[0].display(&l).to_string();
    assert_eq!(dep, "MemoryDep('buf0', d0 + 16*d1, {d0: 16, d1: 8})");
}

/// Softmax over the last dim as coil-passes decomposes it.
pub(crate) const SOFTMAX_DECOMPOSED: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[1024, 1024]"):
        amax: "f32[1024, 1]" = torch.ops.aten.amax.default(x, [-1], True)
        sub: "f32[1024, 1024]" = torch.ops.aten.sub.Tensor(x, amax);  amax = None
        exp: "f32[1024, 1024]" = torch.ops.aten.exp.default(sub);  sub = None
        sum_1: "f32[1024, 1]" = torch.ops.aten.sum.dim_IntList(exp, [-1], True)
        div: "f32[1024, 1024]" = torch.ops.aten.div.Tensor(exp, sum_1);  exp = sum_1 = None
        return (div,)
"#;

#[test]
fn softmax_is_three_buffers_on_gpu_and_four_on_cpu() {
    let g = graph(SOFTMAX_DECOMPOSED);
    let gpu = lower(&g);
    let kinds = |l: &coil_lower::LoweredGraph| -> Vec<bool> {
        l.buffers().iter().map(|b| b.is_reduction()).collect()
    };
    assert_eq!(kinds(&gpu), [true, true, false]);
    let cpu = lower_with(&g, &LowerConfig::cpu());
    assert_eq!(kinds(&cpu), [true, false, true, false]);
    // The CPU's exp buffer is read by the sum and the div exactly as it is written.
    let write = cpu.buffers()[1].writes[0].clone();
    assert!(cpu.buffers()[2].reads.contains(&write));
    assert!(cpu.buffers()[3].reads.contains(&write));
}

#[test]
fn an_output_with_other_users_realizes_when_lowered() {
    let g = graph(
        r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 4]"):
        relu: "f32[4, 4]" = torch.ops.aten.relu.default(x)
        add: "f32[4, 4]" = torch.ops.aten.add.Tensor(relu, 1)
        return (relu, add)
"#,
    );
    let l = lower(&g);
    assert_eq!(l.buffers().len(), 2);
    assert_eq!(l.name(l.outputs()[0].buffer), "buf0");
    assert_eq!(l.name(l.outputs()[1].buffer), "buf1");
    assert_eq!(
        l.buffers()[1].reads[0].display(&l).to_string(),
        "MemoryDep('buf0', 4*d0 + d1, {d0: 4, d1: 4})"
    );
}
