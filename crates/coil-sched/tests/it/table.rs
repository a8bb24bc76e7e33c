//! DESIGN.md 4.3's table, row by row: what Inductor's strategy and TVM's FuseOps make of each
//! fusion-boundary model (CPU rules and lowering unless a test says otherwise; the SIMD rules
//! give the same answers).

use coil_lower::LowerConfig;
use coil_sched::{
    CppLoops, FusionStrategy, InductorScorer, NodeKind, SchedConfig, Schedule, TvmFuseOps,
};

use crate::common::{
    decisions, inductor_cpu, inductor_gpu, kernel_names, lower, parse, passes, schedule, zoo,
};

/// TVM's groups, each as the graph-node names of its members' own origins.
fn tvm_groups(name: &str) -> Vec<Vec<String>> {
    let tvm = TvmFuseOps::default();
    let l = lower(&zoo(name), &tvm.lower_config(&LowerConfig::cpu()));
    let s = schedule(&l, SchedConfig::cpu(), &CppLoops, &tvm);
    s.nodes()
        .map(|n| {
            n.buffers()
                .map(|b| l.buffer(b).origins[0].node.clone())
                .collect()
        })
        .collect()
}

fn count(s: &Schedule<'_>, prefix: &str) -> usize {
    s.fusion_log()
        .iter()
        .filter(|l| l.starts_with(prefix))
        .count()
}

#[test]
fn seed_model_is_two_nodes_fused_into_one_kernel() {
    for (config, gpu) in [(LowerConfig::cpu(), false), (LowerConfig::gpu(), true)] {
        let l = lower(&zoo("seed_model"), &config);
        assert_eq!(l.buffers().len(), 2);
        let s = if gpu {
            inductor_gpu(&l)
        } else {
            inductor_cpu(&l)
        };
        assert_eq!(
            decisions(&s),
            [
                "found 1 possible fusions",
                "fusing op0 with op1",
                "completed fusion round (1/10): fused 2 nodes into 1 nodes"
            ]
        );
        let prefix = if gpu { "cuda" } else { "cpu" };
        assert_eq!(
            kernel_names(&s),
            [format!("{prefix}_per_fused_add_mean_mul_relu_sub_0")]
        );
        let fused = s.nodes().next().unwrap();
        assert_eq!(fused.ops().len(), 2);
        // The row sums never reach memory.
        assert_eq!(
            s.kernels()[0].local,
            [coil_lower::BufRef::Buffer(l.buffers()[0].id)]
        );
    }
}

#[test]
fn seed_model_score_is_template_2_type_0_4_mib_overlap_0_proximity_minus_1() {
    use coil_sched::FusionScorer;
    for config in [SchedConfig::cpu(), SchedConfig::gpu()] {
        let l = lower(&zoo("seed_model"), &LowerConfig::cpu());
        let s = Schedule::new(&l, config).unwrap();
        let (op0, op1) = (s.order()[0], s.order()[1]);
        let score = InductorScorer.score(&s, op0, op1);
        // x read identically by both (4 MiB), bias (4 KiB), and buf0 as written and read (4 KiB).
        assert_eq!(score.as_tuple(), (2, 0, (4 << 20) + 8192, 0, -1));
        assert_eq!(score.to_string(), "(2, 0, 4202496, 0, -1)");
        assert!(s.is_vertical(op0, op1));
    }
}

#[test]
fn seed_model_is_three_tvm_groups() {
    assert_eq!(
        tvm_groups("seed_model"),
        [
            vec!["mul", "add", "relu", "mul_1", "mul_2", "add_1"],
            // `sum` and `mul_4` (the `/1024`) are what the passes made of `mean`.
            vec!["sum"],
            vec!["mul_4", "sub", "mul_3", "add_2"],
        ]
    );
    let tvm = TvmFuseOps::default();
    let l = lower(&zoo("seed_model"), &tvm.lower_config(&LowerConfig::cpu()));
    let s = schedule(&l, SchedConfig::cpu(), &CppLoops, &tvm);
    assert_eq!(
        kernel_names(&s),
        [
            "cpu_poi_fused_add_mul_relu_0",
            "cpu_per_fused_mean_1",
            "cpu_poi_fused_add_mean_mul_sub_2"
        ]
    );
}

#[test]
fn chain_is_one_node_and_no_candidates() {
    for gpu in [false, true] {
        let l = lower(&zoo("chain"), &LowerConfig::cpu());
        let s = if gpu {
            inductor_gpu(&l)
        } else {
            inductor_cpu(&l)
        };
        assert_eq!(s.order().len(), 1);
        assert_eq!(
            decisions(&s),
            [
                "found 0 possible fusions",
                "completed fusion round (1/10): fused 1 nodes into 1 nodes"
            ]
        );
        assert!(
            s.fusion_log()
                .contains(&"  SchedulerNode(name='op0'), Pointwise(['[1024, 1024]', 'origins=OrderedSet([sin, mul, relu, add])'])".to_string())
        );
    }
    assert_eq!(tvm_groups("chain"), [["add", "relu", "mul", "sin"]]);
}

#[test]
fn rowsum_is_one_reduction_node() {
    let l = lower(&zoo("rowsum"), &LowerConfig::cpu());
    let s = inductor_cpu(&l);
    assert_eq!(s.order().len(), 1);
    assert!(s.nodes().next().unwrap().is_reduction());
    assert_eq!(kernel_names(&s), ["cpu_per_fused_add_relu_sum_0"]);
    assert_eq!(tvm_groups("rowsum"), [["add", "relu", "sum_1"]]);
}

#[test]
fn siblings_fuse_horizontally() {
    for gpu in [false, true] {
        let l = lower(&zoo("siblings"), &LowerConfig::cpu());
        assert!(l.buffers().iter().all(|b| b.is_reduction()));
        let s = if gpu {
            inductor_gpu(&l)
        } else {
            inductor_cpu(&l)
        };
        assert_eq!(
            decisions(&s),
            [
                "found 1 possible fusions",
                "fusing op0 with op1",
                "completed fusion round (1/10): fused 2 nodes into 1 nodes"
            ]
        );
        let fused = s.nodes().next().unwrap();
        assert_eq!(fused.kind(), NodeKind::Fused);
        assert_eq!(fused.class_name(), "FusedSchedulerNode");
        // Neither depends on the other.
        let (a, b) = (s.base_node(fused.ops()[0]), s.base_node(fused.ops()[1]));
        assert!(!s.is_vertical(a.id(), b.id()) && !s.is_vertical(b.id(), a.id()));
    }
    assert_eq!(tvm_groups("siblings"), [["amax"], ["sum_1"]]);
}

const UNRELATED: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[1024, 1024]", y: "f32[1024, 1024]"):
        relu: "f32[1024, 1024]" = torch.ops.aten.relu.default(x);  x = None
        sin: "f32[1024, 1024]" = torch.ops.aten.sin.default(y);  y = None
        return (relu, sin)
"#;

#[test]
fn unrelated_pointwise_ops_are_never_candidates() {
    let l = lower(&passes(&parse(UNRELATED)), &LowerConfig::cpu());
    for gpu in [false, true] {
        let s = if gpu {
            inductor_gpu(&l)
        } else {
            inductor_cpu(&l)
        };
        assert_eq!(s.order().len(), 2);
        assert_eq!(
            s.nodes().map(|n| n.group()).collect::<Vec<_>>()[0],
            s.nodes().nth(1).unwrap().group()
        );
        // Not a refused pair: never a pair at all.
        assert_eq!(
            decisions(&s),
            [
                "found 0 possible fusions",
                "completed fusion round (1/10): fused 2 nodes into 2 nodes"
            ]
        );
    }
}

#[test]
fn wall_is_two_nodes_zero_possible_fusions_two_kernels() {
    for gpu in [false, true] {
        let l = lower(&zoo("wall"), &LowerConfig::cpu());
        assert_eq!(l.buffers().len(), 2);
        let s = if gpu {
            inductor_gpu(&l)
        } else {
            inductor_cpu(&l)
        };
        assert_eq!(count(&s, "found 0 possible fusions"), 1);
        assert_eq!(count(&s, "fusing"), 0);
        assert_eq!(s.num_kernels(), 2);
        let prefix = if gpu { "cuda" } else { "cpu" };
        assert_eq!(
            kernel_names(&s),
            [
                format!("{prefix}_red_fused_mean_0"),
                format!("{prefix}_poi_fused_mean_relu_sub_1")
            ]
        );
    }
    // Inductor's SIMD rules alone would fuse the pair (1048576 = 1 x 1048576); coil refuses a
    // reduction to one element feeding a larger pointwise.
    let l = lower(&zoo("wall"), &LowerConfig::gpu());
    let s = inductor_gpu(&l);
    assert_eq!(
        decisions(&s)[0],
        "cannot fuse op0 with op1: reduction to one element has no outer loop to share with its \
         pointwise consumer (numel 1, rnumel 1048576; consumer numel 1048576)"
    );
    assert_eq!(
        tvm_groups("wall"),
        [vec!["sum"], vec!["mul", "sub", "relu"]]
    );
}

#[test]
fn softmax_fuses_four_nodes_into_three_then_one() {
    let l = lower(&zoo("softmax"), &LowerConfig::cpu());
    assert_eq!(l.buffers().len(), 4);
    let s = inductor_cpu(&l);
    assert_eq!(
        decisions(&s),
        [
            "cannot fuse op1 with op3: intermediate nodes between node1 & node2",
            "found 1 possible fusions",
            "fusing op1 with op2",
            "completed fusion round (1/10): fused 4 nodes into 3 nodes",
            "found 2 possible fusions",
            "fusing op0 with op1_op2",
            "fusing op0_op1_op2 with op3",
            "completed fusion round (2/10): fused 3 nodes into 1 nodes",
        ]
    );
    assert_eq!(kernel_names(&s), ["cpu_per_fused__softmax_0"]);
    let fused = s.nodes().next().unwrap();
    assert_eq!(fused.class_name(), "OuterLoopFusedSchedulerNode");
    assert_eq!(fused.outer_loop().unwrap().depth, 1);
    // On the GPU lowering `exp` is recomputed: three nodes, one round.
    let l = lower(&zoo("softmax"), &LowerConfig::gpu());
    let s = inductor_gpu(&l);
    assert_eq!(l.buffers().len(), 3);
    assert_eq!(kernel_names(&s), ["cuda_per_fused__softmax_0"]);
}

#[test]
fn mm_epilogue_is_kernel_extern_kernel() {
    for gpu in [false, true] {
        let l = lower(&zoo("mm_epilogue"), &LowerConfig::cpu());
        let s = if gpu {
            inductor_gpu(&l)
        } else {
            inductor_cpu(&l)
        };
        let prefix = if gpu { "cuda" } else { "cpu" };
        assert_eq!(
            kernel_names(&s),
            [
                format!("{prefix}_poi_fused_add_0"),
                "extern_kernels.mm".to_string(),
                format!("{prefix}_poi_fused_relu_1")
            ]
        );
        assert_eq!((s.num_kernels(), s.num_extern_calls()), (2, 1));
        assert_eq!(count(&s, "found 0 possible fusions"), 1);
    }
    let tvm = TvmFuseOps::default();
    let l = lower(&zoo("mm_epilogue"), &tvm.lower_config(&LowerConfig::cpu()));
    let s = schedule(&l, SchedConfig::cpu(), &CppLoops, &tvm);
    assert_eq!(s.order().len(), 3);
}
