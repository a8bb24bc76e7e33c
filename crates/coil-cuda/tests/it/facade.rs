//! The CUDA backend through the facade (`coil::compile`): every tiny zoo model under every
//! fusion strategy passes the conformance suite on the PTX emulator (PyTorch's outputs, the
//! float64 reference); the articles'
//! kernel counts hold with the GPU's realize rules; offline, a model compiles to PTX.

use std::sync::Arc;

use coil::Options;
use coil_codegen::Backend;
use coil_cuda::CudaBackend;
use coil_models::Size;
use coil_testkit::{ARTICLE_KERNEL_COUNTS, conformance};

#[test]
fn every_tiny_model_under_every_policy_matches_pytorch_on_the_emulator() {
    let backend: Arc<dyn Backend> = Arc::new(CudaBackend::emulated());
    let failures = conformance(&backend, &coil::builtin_strategies());
    assert!(failures.is_empty(), "emulator:\n{}", failures.join("\n"));
}

#[test]
fn kernel_counts_of_the_articles_hold_on_the_gpu() {
    let backend: Arc<dyn Backend> = Arc::new(CudaBackend::offline());
    for &(name, kernels, externs) in ARTICLE_KERNEL_COUNTS {
        let g = coil_models::find(name)
            .expect("zoo")
            .graph(Size::Article)
            .expect("parses");
        let model = coil::compile(&g, backend.clone(), &Options::default()).expect("compiles");
        assert_eq!(
            (model.report.num_kernels, model.report.num_extern_calls),
            (kernels, externs),
            "{name}"
        );
        assert!(model.source().contains(".version 8.0\n.target sm_90\n"));
        if name == "seed_model" {
            assert_eq!(
                model.report.kernels[0].name,
                "cuda_per_fused_add_mean_mul_relu_sub_0"
            );
        }
    }
}

#[test]
fn offline_models_compile_but_do_not_run() {
    let case = coil_models::find("seed_model")
        .unwrap()
        .tiny_case()
        .unwrap();
    let model = coil::compile(
        &case.graph,
        Arc::new(CudaBackend::offline()),
        &Options::default(),
    )
    .expect("compiles without a GPU");
    assert!(
        model
            .source()
            .contains(".entry cuda_per_fused_add_mean_mul_relu_sub_0")
    );
    let err = model.run(&case.inputs).expect_err("no GPU");
    assert!(err.to_string().contains("offline"), "{err}");
}

#[test]
fn sixty_four_bit_indices_and_other_plans_give_the_same_results() {
    use coil_cuda::render::{KernelPlan, Strategy, plan_kernel};
    // Every tiny model with 64-bit index arithmetic, and with reductions looped (the paths
    // the zoo's sizes do not pick by themselves).
    let wide: coil_cuda::Planner = Arc::new(|k, caps| KernelPlan {
        wide_indices: true,
        ..plan_kernel(k, caps)
    });
    let looped: coil_cuda::Planner = Arc::new(|k, caps| {
        let p = plan_kernel(k, caps);
        if k.reduction_ranges.is_empty() {
            return p;
        }
        KernelPlan {
            strategy: Strategy::Looped {
                lanes: if k.rnumel().is_multiple_of(4) { 4 } else { 1 },
                unroll: 2,
            },
            block: 128,
            ..p
        }
    });
    for planner in [wide, looped] {
        let backend: Arc<dyn Backend> = Arc::new(CudaBackend::emulated().with_planner(planner));
        let failures = conformance(&backend, &[Options::default().strategy]);
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
