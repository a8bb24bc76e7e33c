//! Golden kernel IR for zoo models with every buffer of the lowering in one kernel (what the
//! scheduler gives for them), checking CSE (x loaded once per stage) and kernel-local buffers.

use coil_codegen::{BuildOptions, build_kernel};
use coil_lower::{BufferId, LowerConfig, LoweredGraph};
use coil_models::Size;
use expect_test::{Expect, expect};

fn lowered(name: &str, config: &LowerConfig) -> LoweredGraph {
    let g = coil_models::find(name)
        .expect("zoo model")
        .graph(Size::Article)
        .expect("parses");
    let (g, _) = coil_passes::run_passes(&g, &coil_passes::PassConfig::default()).expect("passes");
    coil_lower::lower(&g, config).expect("lowers")
}

fn fused(name: &str, config: &LowerConfig, kernel_name: &str, expect: Expect) {
    let l = lowered(name, config);
    let members: Vec<BufferId> = l.buffers().iter().map(|b| b.id).collect();
    let outputs: Vec<_> = l.outputs().iter().map(|o| o.buffer).collect();
    let needed = |b: BufferId| outputs.contains(&coil_lower::BufRef::Buffer(b));
    let k =
        build_kernel(&l, &members, &needed, kernel_name, &BuildOptions::default()).expect("builds");
    expect.assert_eq(&k.to_string());
}

#[test]
fn seed_model_is_one_persistent_reduction_reading_x_once_per_stage() {
    fused(
        "seed_model",
        &LowerConfig::cpu(),
        "per_fused_add_mean_mul_relu_sub_0",
        expect![[r#"
        kernel per_fused_add_mean_mul_relu_sub_0 (persistent reduction) ranges=[1024] reduction_ranges=[1024]
          arg0 x: f32[1048576] in
          arg1 bias: f32[1024] in
          arg2 gamma: f32[1024] in
          arg3 beta: f32[1024] in
          arg4 buf1: f32[1048576] out
          reduction loop:
            v0: f32 = load arg0[1024*p0 + p1]
            v1: f32 = const 1.1
            v2: f32 = mul(v0, v1)
            v3: f32 = load arg1[p1]
            v4: f32 = add(v2, v3)
            v5: f32 = relu(v4)
            v6: f32 = mul(v5, v5)
            v7: f32 = const 0.1
            v8: f32 = mul(v5, v7)
            v9: f32 = add(v6, v8)
            acc0: f32 = sum(v9)
          reduction loop:
            v10: f32 = load arg0[1024*p0 + p1]
            v11: f32 = const 1.1
            v12: f32 = mul(v10, v11)
            v13: f32 = load arg1[p1]
            v14: f32 = add(v12, v13)
            v15: f32 = relu(v14)
            v16: f32 = mul(v15, v15)
            v17: f32 = const 0.1
            v18: f32 = mul(v15, v17)
            v19: f32 = add(v16, v18)
            v20: f32 = acc0
            v21: f32 = const 0.0009765625
            v22: f32 = mul(v20, v21)
            v23: f32 = sub(v19, v22)
            v24: f32 = load arg2[p1]
            v25: f32 = mul(v23, v24)
            v26: f32 = load arg3[p1]
            v27: f32 = add(v25, v26)
            store arg4[1024*p0 + p1] = v27
    "#]],
    );
}

#[test]
fn softmax_gpu_config() {
    fused(
        "softmax",
        &LowerConfig::gpu(),
        "per_fused__softmax_0",
        expect![[r#"
        kernel per_fused__softmax_0 (persistent reduction) ranges=[1024] reduction_ranges=[1024]
          arg0 x: f32[1048576] in
          arg1 buf2: f32[1048576] out
          reduction loop:
            v0: f32 = load arg0[1024*p0 + p1]
            acc0: f32 = max(v0)
          reduction loop:
            v1: f32 = load arg0[1024*p0 + p1]
            v2: f32 = acc0
            v3: f32 = sub(v1, v2)
            v4: f32 = exp(v3)
            acc1: f32 = sum(v4)
          reduction loop:
            v5: f32 = load arg0[1024*p0 + p1]
            v6: f32 = acc0
            v7: f32 = sub(v5, v6)
            v8: f32 = exp(v7)
            v9: f32 = acc1
            v10: f32 = truediv(v8, v9)
            store arg1[1024*p0 + p1] = v10
    "#]],
    );
}

#[test]
fn softmax_cpu_config_recomputes_the_realized_exp() {
    fused(
        "softmax",
        &LowerConfig::cpu(),
        "per_fused__softmax_0",
        expect![[r#"
        kernel per_fused__softmax_0 (persistent reduction) ranges=[1024] reduction_ranges=[1024]
          arg0 x: f32[1048576] in
          arg1 buf3: f32[1048576] out
          reduction loop:
            v0: f32 = load arg0[1024*p0 + p1]
            acc0: f32 = max(v0)
          reduction loop:
            v1: f32 = load arg0[1024*p0 + p1]
            v2: f32 = acc0
            v3: f32 = sub(v1, v2)
            v4: f32 = exp(v3)
            acc1: f32 = sum(v4)
          reduction loop:
            v5: f32 = load arg0[1024*p0 + p1]
            v6: f32 = acc0
            v7: f32 = sub(v5, v6)
            v8: f32 = exp(v7)
            v9: f32 = acc1
            v10: f32 = truediv(v8, v9)
            store arg1[1024*p0 + p1] = v10
    "#]],
    );
}

#[test]
fn siblings_share_one_loop_and_one_load() {
    fused(
        "siblings",
        &LowerConfig::cpu(),
        "per_fused_amax_sum_0",
        expect![[r#"
        kernel per_fused_amax_sum_0 (persistent reduction) ranges=[1024] reduction_ranges=[1024]
          arg0 x: f32[1048576] in
          arg1 buf0: f32[1024] out
          arg2 buf1: f32[1024] out
          reduction loop:
            v0: f32 = load arg0[1024*p0 + p1]
            acc0: f32 = max(v0)
            acc1: f32 = sum(v0)
          outer:
            v1: f32 = acc0
            v2: f32 = acc1
            store arg1[p0] = v1
            store arg2[p0] = v2
    "#]],
    );
}
