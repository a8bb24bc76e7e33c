//! Golden PTX for the two reference kernels the GPU backend is built around: `y = exp(x)`
//! (128-bit vectorized, grid-stride, scalar tail) and a row sum (one block per row, warp
//! shuffles then shared memory). `UPDATE_EXPECT=1` (or `cargo xtask bless`) rewrites them.

use coil_cuda::PtxTarget;
use coil_cuda::kernels::{self, ReduceOp};
use coil_cuda::math::MathFn;
use expect_test::expect_file;

#[test]
fn exp_elementwise_vectorized() {
    let k =
        kernels::elementwise("coil_exp_f32", MathFn::Exp, true, PtxTarget::SM90).expect("renders");
    expect_file!["golden/exp_f32_v4.ptx"].assert_eq(&k.to_string());
}

#[test]
fn row_sum_one_block_per_row() {
    let k = kernels::row_reduce(
        "coil_row_sum_f32",
        ReduceOp::Sum,
        256,
        true,
        PtxTarget::SM90,
    )
    .expect("renders");
    expect_file!["golden/row_sum_f32_256_v4.ptx"].assert_eq(&k.to_string());
}

// ---- the translator's output for the zoo ------------------------------------------------

use coil_codegen::Kernel;
use coil_cuda::GpuCaps;
use coil_cuda::ptx::PtxModule;
use coil_cuda::render::{KernelPlan, RenderedKernel, Strategy, render_kernel, render_planned};
use coil_models::Size;

use crate::zoo::{fused, lowered, per_buffer};

/// The module's PTX, preceded by one comment line per entry with its plan and launch.
fn golden_text(rendered: &[RenderedKernel]) -> String {
    let mut module = PtxModule::new(PtxTarget::SM90);
    let mut header = String::new();
    for r in rendered {
        for l in &r.launches {
            header.push_str(&format!(
                "// {}: {:?}, grid {}, block {}{}\n",
                l.kernel.name(),
                r.plan.strategy,
                l.config.grid.0,
                l.config.block.0,
                if r.scratch_bytes.is_empty() {
                    String::new()
                } else {
                    format!(", scratch {:?} bytes", r.scratch_bytes)
                }
            ));
            module.push(l.kernel.clone()).expect("distinct names");
        }
    }
    format!("{header}{module}")
}

fn named(mut k: Kernel, name: &str) -> Kernel {
    k.name = name.to_string();
    k
}

fn render(ks: &[Kernel]) -> Vec<RenderedKernel> {
    ks.iter()
        .map(|k| render_kernel(k, &GpuCaps::h200(), PtxTarget::SM90).expect("renders"))
        .collect()
}

fn fused_article(model: &str, name: &str) -> Kernel {
    let l = lowered(model, Size::Article).expect("lowers");
    named(fused(&l, name).expect("fuses"), name)
}

#[test]
fn seed_model_is_one_persistent_reduction() {
    let k = fused_article("seed_model", "per_fused_add_mean_mul_relu_sub_0");
    let r = render(&[k]);
    assert!(matches!(
        r[0].plan.strategy,
        Strategy::Persistent {
            row_threads: 128,
            ..
        }
    ));
    let text = golden_text(&r);
    // 16 bytes at a time: x once (held in registers across both stages: 2 chunks a thread),
    // bias in each stage (a weight: reloaded from L1 rather than held), gamma and beta.
    assert_eq!(text.matches("ld.global.nc.v4.f32").count(), 10);
    assert_eq!(text.matches("st.global.v4.f32").count(), 2);
    expect_file!["golden/seed_model_fused.ptx"].assert_eq(&text);
}

#[test]
fn softmax_is_one_persistent_reduction() {
    let r = render(&[fused_article("softmax", "per_fused__softmax_0")]);
    let text = golden_text(&r);
    assert_eq!(text.matches("ld.global.nc.v4.f32").count(), 2);
    expect_file!["golden/softmax_fused.ptx"].assert_eq(&text);
}

#[test]
fn siblings_share_one_pass_over_x() {
    let r = render(&[fused_article("siblings", "per_fused_amax_sum_0")]);
    let text = golden_text(&r);
    assert_eq!(text.matches("ld.global.nc.v4.f32").count(), 2);
    assert!(text.contains("max.NaN.f32"));
    expect_file!["golden/siblings_fused.ptx"].assert_eq(&text);
}

#[test]
fn wall_mean_is_a_split_reduction() {
    let l = lowered("wall", Size::Article).expect("lowers");
    let ks = per_buffer(&l);
    let ks = vec![
        named(ks[0].clone(), "red_fused_mean_0"),
        named(ks[1].clone(), "poi_fused_relu_sub_1"),
    ];
    let r = render(&ks);
    assert!(
        matches!(r[0].plan.strategy, Strategy::Split { .. }),
        "{:?}",
        r[0].plan.strategy
    );
    assert_eq!(r[0].launches.len(), 2);
    expect_file!["golden/wall.ptx"].assert_eq(&golden_text(&r));
}

#[test]
fn chain_is_one_vectorized_pointwise_kernel() {
    let r = render(&[fused_article("chain", "poi_fused_add_mul_relu_sin_0")]);
    assert_eq!(
        r[0].plan.strategy,
        Strategy::Pointwise {
            lanes: 4,
            unroll: 2,
            reverse: false,
            one_pass: false
        }
    );
    let text = golden_text(&r);
    // Two chunks of 4 per thread and iteration, a grid apart.
    assert_eq!(text.matches("ld.global.nc.v4.f32").count(), 2);
    assert_eq!(text.matches("st.global.v4.f32").count(), 2);
    expect_file!["golden/chain.ptx"].assert_eq(&text);
}

#[test]
fn looped_reduction_of_8192() {
    let l = lowered("rowsum", Size::Large).expect("lowers");
    let k = named(fused(&l, "x").expect("fuses"), "red_fused_add_relu_sum_0");
    assert_eq!(k.rnumel(), 8192);
    let caps = GpuCaps::h200();
    // The backend holds rows of 8192 in registers; render the looped form explicitly.
    assert!(matches!(
        render_kernel(&k, &caps, PtxTarget::SM90)
            .unwrap()
            .plan
            .strategy,
        Strategy::Persistent { .. }
    ));
    let looped = KernelPlan {
        strategy: Strategy::Looped {
            lanes: 4,
            unroll: 2,
        },
        block: 512,
        wide_indices: false,
        min_blocks_per_sm: 0,
        fast_math: false,
    };
    let r = render_planned(&k, &caps, PtxTarget::SM90, looped).expect("renders");
    expect_file!["golden/rowsum_8192_looped.ptx"].assert_eq(&golden_text(&[r]));
}
