//! Golden text: `ir_post_fusion.txt` and the fusion log of seed_model (SIMD rules, as in
//! article 000) and softmax (CPU rules, as in article 001). `UPDATE_EXPECT=1` rewrites them.

use coil_lower::LowerConfig;
use expect_test::expect;

use crate::common::{inductor_cpu, inductor_gpu, lower, zoo};

#[test]
fn seed_model_post_fusion_dump_and_log() {
    let l = lower(&zoo("seed_model"), &LowerConfig::gpu());
    let s = inductor_gpu(&l);
    expect![[r#"
        op0_op1: FusedSchedulerNode(SchedulerNode,SchedulerNode)
        op0_op1.writes = [
            MemoryDep('buf0', d0, {d0: 1024}),
            MemoryDep('buf1', 1024*d0 + d1, {d0: 1024, d1: 1024})]
        op0_op1.met_dependencies = [
            MemoryDep('beta', d1, {d0: 1024, d1: 1024}),
            MemoryDep('bias', d1, {d0: 1024, d1: 1024}),
            MemoryDep('gamma', d1, {d0: 1024, d1: 1024}),
            MemoryDep('x', 1024*d0 + d1, {d0: 1024, d1: 1024})]
        op0_op1.unmet_dependencies = []
        op0_op1.group.iteration = (1024, 1024)
        op0_op1.kernel = cuda_per_fused_add_mean_mul_relu_sub_0

    "#]]
    .assert_eq(&s.ir_post_fusion());
    expect![[r#"
        ===== attempting fusion (1/10): 2 nodes =====
        fuse_nodes_once, candidates:
          SchedulerNode(name='op0'), Reduction(['[1024, 1]', 'sum', 'origins=OrderedSet([sum, add_1, mul_1, relu, add, mul, mul_2])'])
          SchedulerNode(name='op1'), Pointwise(['[1024, 1024]', 'origins=OrderedSet([add_2, mul_3, sub, add_1, mul_1, relu, add, mul, mul_2, mul_4])'])
        found 1 possible fusions
        fusing op0 with op1
        completed fusion round (1/10): fused 2 nodes into 1 nodes
        ===== fusion complete (1 iterations) ====="#]]
    .assert_eq(&s.fusion_log().join("\n"));
}

#[test]
fn softmax_post_fusion_dump_and_log() {
    let l = lower(&zoo("softmax"), &LowerConfig::cpu());
    let s = inductor_cpu(&l);
    expect![[r#"
        op0_op1_op2_op3: OuterLoopFusedSchedulerNode(SchedulerNode,SchedulerNode,SchedulerNode,SchedulerNode)
        op0_op1_op2_op3.writes = [
            MemoryDep('buf0', d0, {d0: 1024}),
            MemoryDep('buf1', 1024*d0 + d1, {d0: 1024, d1: 1024}),
            MemoryDep('buf2', d0, {d0: 1024}),
            MemoryDep('buf3', 1024*d0 + d1, {d0: 1024, d1: 1024})]
        op0_op1_op2_op3.met_dependencies = [MemoryDep('x', 1024*d0 + d1, {d0: 1024, d1: 1024})]
        op0_op1_op2_op3.unmet_dependencies = []
        op0_op1_op2_op3.outer_loop = (depth 1, [op0, op1_op2, op3])
        op0_op1_op2_op3.group.iteration = (1024, 1024)
        op0_op1_op2_op3.kernel = cpu_per_fused__softmax_0

    "#]]
    .assert_eq(&s.ir_post_fusion());
    expect![[r#"
        ===== attempting fusion (1/10): 4 nodes =====
        fuse_nodes_once, candidates:
          SchedulerNode(name='op0'), Reduction(['[1024, 1]', 'max', 'origins=OrderedSet([amax])'])
          SchedulerNode(name='op1'), Pointwise(['[1024, 1024]', 'origins=OrderedSet([exp, sub])'])
          SchedulerNode(name='op2'), Reduction(['[1024, 1]', 'sum', 'origins=OrderedSet([sum])'])
          SchedulerNode(name='op3'), Pointwise(['[1024, 1024]', 'origins=OrderedSet([div])'])
        cannot fuse op1 with op3: intermediate nodes between node1 & node2
        found 1 possible fusions
        fusing op1 with op2
        completed fusion round (1/10): fused 4 nodes into 3 nodes
        ===== attempting fusion (2/10): 3 nodes =====
        fuse_nodes_once, candidates:
          SchedulerNode(name='op0'), Reduction(['[1024, 1]', 'max', 'origins=OrderedSet([amax])'])
          FusedSchedulerNode(name='op1_op2')
          SchedulerNode(name='op3'), Pointwise(['[1024, 1024]', 'origins=OrderedSet([div])'])
        found 2 possible fusions
        fusing op0 with op1_op2
        fusing op0_op1_op2 with op3
        completed fusion round (2/10): fused 3 nodes into 1 nodes
        ===== fusion complete (2 iterations) ====="#]]
    .assert_eq(&s.fusion_log().join("\n"));
}

#[test]
fn seed_model_cpu_post_fusion_dump() {
    let l = lower(&zoo("seed_model"), &LowerConfig::cpu());
    let s = inductor_cpu(&l);
    expect![[r#"
        op0_op1: OuterLoopFusedSchedulerNode(SchedulerNode,SchedulerNode)
        op0_op1.writes = [
            MemoryDep('buf0', d0, {d0: 1024}),
            MemoryDep('buf1', 1024*d0 + d1, {d0: 1024, d1: 1024})]
        op0_op1.met_dependencies = [
            MemoryDep('beta', d1, {d0: 1024, d1: 1024}),
            MemoryDep('bias', d1, {d0: 1024, d1: 1024}),
            MemoryDep('gamma', d1, {d0: 1024, d1: 1024}),
            MemoryDep('x', 1024*d0 + d1, {d0: 1024, d1: 1024})]
        op0_op1.unmet_dependencies = []
        op0_op1.outer_loop = (depth 1, [op0, op1])
        op0_op1.group.iteration = (1024, 1024)
        op0_op1.kernel = cpu_per_fused_add_mean_mul_relu_sub_0

    "#]]
    .assert_eq(&s.ir_post_fusion());
}
