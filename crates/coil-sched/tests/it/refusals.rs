//! Every refusal of `can_fuse` on a graph that triggers it, with Inductor's reason string in
//! the log; the loop rules' own answers; the priority filter; the config brakes.

use coil_lower::LowerConfig;
use coil_sched::{
    CppLoops, InductorGreedy, InductorScorer, LoopCompat, NoFusion, NodeKind, SchedConfig,
    Schedule, SimdLoops, WhyNoFuse,
};

use crate::common::{inductor_cpu, inductor_gpu, lower, parse, passes, schedule, zoo};

fn no_inline() -> LowerConfig {
    LowerConfig {
        inline_all: false,
        ..LowerConfig::cpu()
    }
}

fn logged(s: &Schedule<'_>, line: &str) -> bool {
    s.fusion_log().iter().any(|l| l == line)
}

fn module(sig: &str, body: &[&str], ret: &str) -> String {
    let mut s = format!("class GraphModule(torch.nn.Module):\n    def forward(self, {sig}):\n");
    for line in body {
        s.push_str(&format!("        {line}\n"));
    }
    s.push_str(&format!("        return ({ret})\n"));
    s
}

#[test]
fn node1_must_go_before_node2() {
    let l = lower(&zoo("seed_model"), &LowerConfig::cpu());
    let s = Schedule::new(&l, SchedConfig::cpu()).unwrap();
    let (op0, op1) = (s.order()[0], s.order()[1]);
    let why = s
        .can_fuse(op1, op0, &CppLoops, &InductorScorer)
        .unwrap_err();
    assert_eq!(why, WhyNoFuse::MustGoBefore);
    assert_eq!(why.to_string(), "node1 must go before node2");
    assert_eq!(
        s.can_fuse(op0, op0, &CppLoops, &InductorScorer),
        Err(WhyNoFuse::SameNode)
    );
}

#[test]
fn extern_and_nop_nodes_do_not_fuse() {
    let l = lower(&zoo("mm_epilogue"), &LowerConfig::cpu());
    let s = Schedule::new(&l, SchedConfig::cpu()).unwrap();
    let [op0, op1, op2] = [s.order()[0], s.order()[1], s.order()[2]];
    assert_eq!(s.node(op1).kind(), NodeKind::Extern);
    let err = |a, b| {
        s.can_fuse(a, b, &CppLoops, &InductorScorer)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(err(op1, op2), "node1 is extern or nop");
    assert_eq!(err(op0, op1), "node2 is extern or nop");
    // A buffer with no elements is a nop node: no kernel, never a candidate.
    let text = module(
        r#"x: "f32[0, 4]", y: "f32[0, 4]""#,
        &[
            r#"relu: "f32[0, 4]" = torch.ops.aten.relu.default(x)"#,
            r#"sin: "f32[0, 4]" = torch.ops.aten.sin.default(x)"#,
        ],
        "relu, sin",
    );
    let l = lower(&parse(&text), &LowerConfig::cpu());
    let s = inductor_cpu(&l);
    assert!(s.nodes().all(|n| n.kind() == NodeKind::Nop));
    assert_eq!(s.kernels().len(), 0);
    assert!(logged(&s, "found 0 possible fusions"));
    let (a, b) = (s.order()[0], s.order()[1]);
    assert_eq!(
        s.can_fuse(a, b, &CppLoops, &InductorScorer),
        Err(WhyNoFuse::Node1ExternOrNop)
    );
}

/// `a = relu(x)` is returned and read transposed by `c`.
fn transposed_reader(extra: &str) -> String {
    module(
        r#"x: "f32[64, 64]""#,
        &[
            r#"relu: "f32[64, 64]" = torch.ops.aten.relu.default(x)"#,
            r#"permute: "f32[64, 64]" = torch.ops.aten.permute.default(relu, [1, 0])"#,
            &format!(r#"add: "f32[64, 64]" = torch.ops.aten.add.Tensor(permute, {extra})"#),
        ],
        "relu, add",
    )
}

#[test]
fn a_transposed_read_shares_no_data() {
    let l = lower(&parse(&transposed_reader("1")), &LowerConfig::cpu());
    assert_eq!(l.buffers().len(), 2);
    let s = inductor_cpu(&l);
    assert!(logged(&s, "cannot fuse op0 with op1: no shared data"));
    assert_eq!(s.order().len(), 2);
}

#[test]
fn a_transposed_read_of_the_producer_does_not_match_its_write() {
    let l = lower(&parse(&transposed_reader("x")), &LowerConfig::cpu());
    let s = inductor_gpu(&l);
    assert!(logged(
        &s,
        "cannot fuse op0 with op1: memory deps did not match"
    ));
    assert_eq!(s.order().len(), 2);
}

#[test]
fn intermediate_nodes_between_producer_and_consumer() {
    let l = lower(&zoo("softmax"), &LowerConfig::cpu());
    let s = Schedule::new(&l, SchedConfig::cpu()).unwrap();
    let o = s.order().to_vec();
    assert_eq!(
        s.can_fuse(o[1], o[3], &CppLoops, &InductorScorer),
        Err(WhyNoFuse::IntermediateNodes)
    );
    // The CPU rules: exp -> sum is an ordinary fusion; amax -> exp and sum -> div go through
    // the outer loop, at priority 1, so round 1 keeps only the first.
    let plan = |a: usize, b: usize| s.can_fuse(o[a], o[b], &CppLoops, &InductorScorer).unwrap();
    assert_eq!(
        (plan(1, 2).priority, plan(1, 2).outer_loop_depth),
        (0, None)
    );
    assert_eq!(
        (plan(0, 1).priority, plan(0, 1).outer_loop_depth),
        (1, Some(1))
    );
    assert_eq!(
        (plan(2, 3).priority, plan(2, 3).outer_loop_depth),
        (1, Some(1))
    );
}

#[test]
fn max_fusion_size_stops_growth() {
    let text = module(
        r#"x: "f32[64, 64]""#,
        &[
            r#"relu: "f32[64, 64]" = torch.ops.aten.relu.default(x)"#,
            r#"sin: "f32[64, 64]" = torch.ops.aten.sin.default(relu)"#,
            r#"cos: "f32[64, 64]" = torch.ops.aten.cos.default(sin)"#,
        ],
        "cos,",
    );
    let l = lower(&parse(&text), &no_inline());
    assert_eq!(l.buffers().len(), 3);
    let config = SchedConfig {
        max_fusion_size: 2,
        ..SchedConfig::cpu()
    };
    let s = schedule(&l, config, &CppLoops, &InductorGreedy::new(InductorScorer));
    assert!(
        s.fusion_log()
            .iter()
            .any(|l| l.ends_with(": exceeds max fusion")),
        "{:#?}",
        s.fusion_log()
    );
    assert_eq!(s.order().len(), 2);
    // Unbraked, the chain is one kernel.
    let s = inductor_cpu(&l);
    assert_eq!(s.order().len(), 1);
}

#[test]
fn a_kernel_holds_at_most_max_reduction_stages_reductions() {
    // Six chained softmaxes: twelve reductions over the rows of one buffer.
    let mut body = Vec::new();
    let mut prev = "x".to_string();
    for i in 0..6 {
        body.push(format!(
            r#"s{i}: "f32[64, 64]" = torch.ops.aten._softmax.default({prev}, -1, False)"#
        ));
        body.push(format!(
            r#"a{i}: "f32[64, 64]" = torch.ops.aten.add.Tensor(s{i}, {prev})"#
        ));
        prev = format!("a{i}");
    }
    let body: Vec<&str> = body.iter().map(String::as_str).collect();
    let text = module(r#"x: "f32[64, 64]""#, &body, &format!("{prev},"));
    let l = lower(&passes(&parse(&text)), &LowerConfig::cpu());
    let reductions = |s: &Schedule<'_>| -> Vec<usize> {
        s.order()
            .iter()
            .map(|&n| {
                s.node(n)
                    .buffers()
                    .filter(|&b| l.buffer(b).is_reduction())
                    .count()
            })
            .collect()
    };
    let s = inductor_cpu(&l);
    let per_kernel = reductions(&s);
    assert!(per_kernel.iter().all(|&r| r <= 8), "{per_kernel:?}");
    assert_eq!(per_kernel.iter().sum::<usize>(), 12);
    assert!(
        logged_suffix(&s, ": more than 8 reductions in one kernel"),
        "{:#?}",
        s.fusion_log()
    );
    // Unbraked (as Inductor), the chain is one kernel of twelve stages.
    let config = SchedConfig {
        max_reduction_stages: None,
        ..SchedConfig::cpu()
    };
    let s = schedule(&l, config, &CppLoops, &InductorGreedy::new(InductorScorer));
    assert_eq!(reductions(&s), vec![12]);
}

fn logged_suffix(s: &Schedule<'_>, suffix: &str) -> bool {
    s.fusion_log().iter().any(|l| l.ends_with(suffix))
}

#[test]
fn fusing_two_consumers_of_single_use_buffers_would_raise_peak_memory() {
    let text = module(
        r#"x: "f32[256, 256]", w1: "f32[256, 256]", w2: "f32[256, 256]", s: "f32[256]""#,
        &[
            r#"mm: "f32[256, 256]" = torch.ops.aten.mm.default(x, w1)"#,
            r#"mm_1: "f32[256, 256]" = torch.ops.aten.mm.default(x, w2)"#,
            r#"relu: "f32[256, 256]" = torch.ops.aten.relu.default(mm)"#,
            r#"add: "f32[256, 256]" = torch.ops.aten.add.Tensor(relu, s)"#,
            r#"sin: "f32[256, 256]" = torch.ops.aten.sin.default(mm_1)"#,
            r#"add_1: "f32[256, 256]" = torch.ops.aten.add.Tensor(sin, s)"#,
        ],
        "add, add_1",
    );
    let l = lower(&parse(&text), &LowerConfig::cpu());
    let s = inductor_cpu(&l);
    // They share only the 1 KiB `s`; each keeps a 256 KiB single-use matmul result alive.
    assert!(
        logged(
            &s,
            "cannot fuse op2 with op3: Fusion will increase peak memory"
        ),
        "{:#?}",
        s.fusion_log()
    );
    let s0 = Schedule::new(&l, SchedConfig::cpu()).unwrap();
    let (a, b) = (s0.order()[2], s0.order()[3]);
    assert_eq!(s0.score_fusion_memory(a, b), 1024);
    assert!(s0.can_fusion_increase_peak_memory(a, b));
    // A looser factor lets them fuse.
    let config = SchedConfig {
        peak_memory_factor: 1 << 10,
        ..SchedConfig::cpu()
    };
    let s = schedule(&l, config, &CppLoops, &InductorGreedy::new(InductorScorer));
    assert_eq!(s.num_kernels(), 1);
}

#[test]
fn horizontal_fusion_needs_ten_shared_bytes() {
    let text = module(
        r#"x: "f32[64, 64]", y: "f32[64, 64]", s: "f32[]""#,
        &[
            r#"add: "f32[64, 64]" = torch.ops.aten.add.Tensor(x, s)"#,
            r#"mul: "f32[64, 64]" = torch.ops.aten.mul.Tensor(y, s)"#,
        ],
        "add, mul",
    );
    let l = lower(&parse(&text), &LowerConfig::cpu());
    let s = inductor_cpu(&l);
    assert!(logged(
        &s,
        "cannot fuse op0 with op1: score_fusion_memory_threshold"
    ));
    assert_eq!(s.score_fusion_memory(s.order()[0], s.order()[1]), 4);
}

#[test]
fn aggressive_fusion_pairs_nodes_by_group() {
    let text = module(
        r#"x: "f32[64, 64]", y: "f32[64, 64]""#,
        &[
            r#"relu: "f32[64, 64]" = torch.ops.aten.relu.default(x)"#,
            r#"sin: "f32[64, 64]" = torch.ops.aten.sin.default(y)"#,
        ],
        "relu, sin",
    );
    let l = lower(&parse(&text), &LowerConfig::cpu());
    let config = SchedConfig {
        aggressive_fusion: true,
        ..SchedConfig::cpu()
    };
    let s = schedule(&l, config, &CppLoops, &InductorGreedy::new(InductorScorer));
    // A pair now, which passes "no shared data" but not the horizontal threshold.
    assert!(logged(
        &s,
        "cannot fuse op0 with op1: score_fusion_memory_threshold"
    ));
}

#[test]
fn distant_siblings_do_not_fuse() {
    let mut body = vec![r#"sum_1: "f32[64]" = torch.ops.aten.sum.dim_IntList(x, [1])"#.to_string()];
    let mut prev = "y".to_string();
    for i in 0..70 {
        body.push(format!(
            r#"neg_{i}: "f32[64, 64]" = torch.ops.aten.neg.default({prev})"#
        ));
        prev = format!("neg_{i}");
    }
    body.push(r#"amax: "f32[64]" = torch.ops.aten.amax.default(x, [1])"#.to_string());
    let refs: Vec<&str> = body.iter().map(String::as_str).collect();
    let text = module(
        r#"x: "f32[64, 64]", y: "f32[64, 64]""#,
        &refs,
        &format!("sum_1, {prev}, amax"),
    );
    let l = lower(&parse(&text), &no_inline());
    assert_eq!(l.buffers().len(), 72);
    let s = inductor_cpu(&l);
    assert!(
        logged(
            &s,
            "cannot fuse op0 with op71: Nodes are too far away. Fusing them may increase peak memory."
        ),
        "{:#?}",
        &s.fusion_log()[..20]
    );
    assert!(
        s.node_of(coil_sched::OpId::of_buffer(l.buffers()[0].id))
            != s.node_of(coil_sched::OpId::of_buffer(l.buffers()[71].id))
    );
}

#[test]
fn a_fusion_through_a_fused_node_would_create_a_cycle() {
    // a = relu(y); b = a + x; c = x * 2; d = c + y. Fusing b with c puts c before b's
    // consumer chain: {b, c} must follow a and precede d, so {a, d} cannot be one kernel.
    let text = module(
        r#"x: "f32[64, 64]", y: "f32[64, 64]""#,
        &[
            r#"relu: "f32[64, 64]" = torch.ops.aten.relu.default(y)"#,
            r#"add: "f32[64, 64]" = torch.ops.aten.add.Tensor(relu, x)"#,
            r#"mul: "f32[64, 64]" = torch.ops.aten.mul.Tensor(x, 2)"#,
            r#"add_1: "f32[64, 64]" = torch.ops.aten.add.Tensor(mul, y)"#,
        ],
        "add, add_1",
    );
    let l = lower(&parse(&text), &no_inline());
    let mut s = Schedule::new(&l, SchedConfig::cpu()).unwrap();
    let o = s.order().to_vec();
    assert!(!s.will_fusion_create_cycle(o[0], o[3]));
    s.fuse_group(&[o[1], o[2]]).unwrap();
    assert!(s.can_fuse(o[0], o[3], &CppLoops, &InductorScorer).is_ok());
    assert!(s.will_fusion_create_cycle(o[0], o[3]));
}

#[test]
fn simd_loop_rules_and_their_reasons() {
    let text = module(
        r#"x: "f32[64, 128]", y: "f32[32]""#,
        &[
            r#"add: "f32[64, 128]" = torch.ops.aten.add.Tensor(x, 1)"#,
            r#"add_1: "f32[32]" = torch.ops.aten.add.Tensor(y, 1)"#,
            r#"sum_1: "f32[64]" = torch.ops.aten.sum.dim_IntList(x, [1])"#,
            r#"sum_2: "f32[]" = torch.ops.aten.sum.dim_IntList(x, [0, 1])"#,
        ],
        "add, add_1, sum_1, sum_2",
    );
    let l = lower(&parse(&text), &LowerConfig::gpu());
    let s = Schedule::new(&l, SchedConfig::gpu()).unwrap();
    // By origin: 0 add, 1 add_1, 2 sum_1, 3 sum_2.
    let o: Vec<coil_sched::NodeId> = ["add", "add_1", "sum_1", "sum_2"]
        .iter()
        .map(|name| {
            let b = l
                .buffers()
                .iter()
                .find(|b| b.origins[0].node == *name)
                .unwrap();
            s.node_of(coil_sched::OpId::of_buffer(b.id)).unwrap()
        })
        .collect();
    let h = |a: usize, b: usize| SimdLoops.can_fuse_horizontal(&s, o[a], o[b]);
    assert_eq!(
        h(0, 1).unwrap_err().to_string(),
        "numel/rnumel mismatch (non-reduce) (8192, 32), (1, 1)"
    );
    assert_eq!(
        h(2, 3).unwrap_err().to_string(),
        "numel/rnumel mismatch (reduce) (64, 1), (128, 8192)"
    );
    // Pointwise (8192, 1) with reduction (64, 128): 8192 = 64 x 128 and the loops split.
    assert!(h(0, 2).is_ok() && h(2, 0).is_ok());
    // Pointwise (32, 1) with reduction (64, 128): named pointwise first either way.
    let e = h(1, 2).unwrap_err();
    assert_eq!(e.to_string(), "nodes numel incompatibility");
    assert!(!e.is_swapped());
    assert!(h(2, 1).unwrap_err().is_swapped());
    // In the scheduler: the global sum fuses with the pointwise reading x (1 x 8192 = 8192)
    // and the row sums are refused next to it.
    let s = inductor_gpu(&l);
    assert!(
        logged(
            &s,
            "cannot fuse op0 with op1: numel/rnumel mismatch (reduce) (64, 1), (128, 8192)"
        ),
        "{:#?}",
        s.fusion_log()
    );
}

#[test]
fn cpu_horizontal_fusion_size_limit() {
    let l = lower(&zoo("siblings"), &LowerConfig::cpu());
    let config = SchedConfig {
        cpp_max_horizontal_fusion_size: 1,
        ..SchedConfig::cpu()
    };
    let s = schedule(&l, config, &CppLoops, &InductorGreedy::new(InductorScorer));
    assert!(logged(
        &s,
        "cannot fuse op0 with op1: cpp: horizontal fusion of 2 nodes exceeds cpp.max_horizontal_fusion_size (1)"
    ));
    assert_eq!(s.order().len(), 2);
}

#[test]
fn no_fusion_keeps_one_kernel_per_buffer() {
    let l = lower(&zoo("softmax"), &LowerConfig::cpu());
    let s = schedule(&l, SchedConfig::cpu(), &CppLoops, &NoFusion);
    assert_eq!(s.num_kernels(), 4);
    assert_eq!(s.fusion_log(), ["no fusion: 4 nodes"]);
    let _ = passes;
}

#[test]
fn unique_io_buffer_limit() {
    let l = lower(&zoo("seed_model"), &LowerConfig::cpu());
    let s = Schedule::new(&l, SchedConfig::cpu()).unwrap();
    let (a, b) = (s.order()[0], s.order()[1]);
    // x, bias, gamma, beta read and buf1 written; buf0 stays inside.
    assert_eq!(s.fused_unique_io_buffers(a, b), 5);
    let config = SchedConfig {
        max_fusion_unique_io_buffers: Some(4),
        ..SchedConfig::cpu()
    };
    let s = schedule(&l, config, &CppLoops, &InductorGreedy::new(InductorScorer));
    assert!(logged(
        &s,
        "cannot fuse op0 with op1: fusion_prevent_too_many_reads_and_writes"
    ));
}

/// Template epilogues (Inductor's template nodes): a library call marked as a template fuses
/// with the pointwise buffers its library applies, scored below ordinary fusions with shared
/// data (`template_score` 1 against 2; above them with `epilogue_fusion_first`), logged as
/// `fusing template`; a node the library does
/// not apply, the template as node2 (a prologue), and `epilogue_fusion` off are refused.
#[test]
fn templates_take_their_epilogues_and_nothing_else() {
    use coil_sched::{FusionScorer, LoopPlan, Template, template_epilogues};
    // add (op0) -> mm (op1, extern) -> relu (op2)
    let l = lower(&zoo("mm_epilogue"), &LowerConfig::cpu());
    let [b0, b1, b2] = [0, 1, 2].map(|i| l.buffers()[i].id);
    let with = |epilogue: Vec<coil_lower::BufferId>, on: bool| SchedConfig {
        templates: vec![Template { node: b1, epilogue }],
        epilogue_fusion: on,
        ..SchedConfig::cpu()
    };
    let s = Schedule::new(&l, with(vec![b2], true)).unwrap();
    let [op0, op1, op2] = [s.order()[0], s.order()[1], s.order()[2]];
    assert!(s.template_of(op1).is_some() && s.template_of(op2).is_none());
    assert_eq!(
        s.can_fuse(op1, op2, &CppLoops, &InductorScorer),
        Ok(LoopPlan::default())
    );
    let err = |s: &Schedule<'_>, a, b| s.can_fuse(a, b, &CppLoops, &InductorScorer).unwrap_err();
    assert_eq!(err(&s, op0, op1), WhyNoFuse::TemplatePrologue);
    assert_eq!(
        err(&s, op0, op1).to_string(),
        "template prologue: node2 is a template"
    );
    assert_eq!(InductorScorer.score(&s, op1, op2).template_score, 1);
    assert_eq!(InductorScorer.score(&s, op0, op1).template_score, 0);
    // The pair shares the product's bytes (what relu reads of the library call's output).
    assert_eq!(
        InductorScorer.score(&s, op1, op2).memory_score,
        512 * 512 * 4
    );
    let first = SchedConfig {
        epilogue_fusion_first: true,
        ..with(vec![b2], true)
    };
    let first = Schedule::new(&l, first).unwrap();
    assert_eq!(InductorScorer.score(&first, op1, op2).template_score, 2);
    let not_listed = Schedule::new(&l, with(vec![b0], true)).unwrap();
    assert_eq!(err(&not_listed, op1, op2), WhyNoFuse::NotAnEpilogue);
    let off = Schedule::new(&l, with(vec![b2], false)).unwrap();
    assert_eq!(
        err(&off, op1, op2).to_string(),
        "template epilogue: epilogue_fusion is off"
    );
    // The greedy rounds fuse the pair and say so; no fusion strategy fuses nothing.
    let greedy = InductorGreedy::new(InductorScorer);
    let choice = template_epilogues(&l, with(vec![b2], true), &CppLoops, &greedy).unwrap();
    assert_eq!(choice.fused, vec![(b1, vec![b2])]);
    assert!(
        choice
            .log
            .iter()
            .any(|line| line == "fusing template op1 with epilogue op2"),
        "{:?}",
        choice.log
    );
    let none = template_epilogues(&l, with(vec![b2], true), &CppLoops, &NoFusion).unwrap();
    assert_eq!(none.fused, vec![(b1, vec![])]);
    let refused = template_epilogues(&l, with(vec![b2], false), &CppLoops, &greedy).unwrap();
    assert_eq!(refused.fused, vec![(b1, vec![])]);
}
