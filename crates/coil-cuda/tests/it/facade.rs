//! The CUDA backend through the facade (`coil::compile`): every tiny zoo model under every
//! fusion strategy passes the conformance suite on the PTX emulator (PyTorch's outputs, the
//! float64 reference); the articles'
//! kernel counts hold with the GPU's realize rules; offline, a model compiles to PTX.

use std::sync::Arc;

use coil::Options;
use coil_codegen::Backend;
use coil_cuda::CudaBackend;
use coil_models::Size;
use coil_testkit::{
    ARTICLE_KERNEL_COUNTS, conformance, conformance_16, conformance_real_16,
    emulated_casts_match_pytorch, emulated_casts_round_where_eager_rounds,
};

#[test]
fn every_tiny_model_under_every_policy_matches_pytorch_on_the_emulator() {
    let backend: Arc<dyn Backend> = Arc::new(CudaBackend::emulated());
    let failures = conformance(&backend, &coil::builtin_strategies());
    assert!(failures.is_empty(), "emulator:\n{}", failures.join("\n"));
}

#[test]
fn with_emulated_casts_16_bit_memory_bound_models_are_pytorch_bit_for_bit_on_the_emulator() {
    let backend: Arc<dyn Backend> = Arc::new(CudaBackend::emulated());
    let failures = emulated_casts_match_pytorch(&backend);
    assert!(failures.is_empty(), "emulator:\n{}", failures.join("\n"));
}

#[test]
fn transformers_and_an_mlp_in_bf16_match_pytorch_on_the_emulator() {
    let backend: Arc<dyn Backend> = Arc::new(CudaBackend::emulated());
    let only = ["hf_gpt2", "hf_bert", "hf_llama", "tv_mlp"];
    let failures = conformance_real_16(&backend, &[Options::default().strategy], &only);
    assert!(failures.is_empty(), "emulator:\n{}", failures.join("\n"));
}

#[test]
fn every_tiny_model_in_bf16_and_f16_matches_pytorch_on_the_emulator() {
    let backend: Arc<dyn Backend> = Arc::new(CudaBackend::emulated());
    let failures = conformance_16(&backend, &coil::builtin_strategies());
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

/// 16-bit float graphs on the emulated GPU match coil's eager run within the dtype's
/// tolerance: loads widened, f32 inside, one rounding per store.
#[test]
fn sixteen_bit_graphs_run_on_the_emulator() {
    use coil_graph::DType;
    let backend: Arc<dyn Backend> = Arc::new(CudaBackend::emulated());
    for dt in ["bf16", "f16"] {
        let text = format!(
            "class GraphModule(torch.nn.Module):\n    def forward(self, w: \"{dt}[64]\", b: \"{dt}[64]\", x: \"{dt}[8, 64]\", m: \"{dt}[64, 32]\"):\n        \
             native_layer_norm = torch.ops.aten.native_layer_norm.default(x, [64], w, b, 1e-05)\n        \
             getitem: \"{dt}[8, 64]\" = native_layer_norm[0]\n        \
             gelu: \"{dt}[8, 64]\" = torch.ops.aten.gelu.default(getitem)\n        \
             _softmax: \"{dt}[8, 64]\" = torch.ops.aten._softmax.default(gelu, -1, False)\n        \
             mm: \"{dt}[8, 32]\" = torch.ops.aten.mm.default(_softmax, m)\n        \
             relu: \"{dt}[8, 32]\" = torch.ops.aten.relu.default(mm)\n        \
             sum_1: \"{dt}[8]\" = torch.ops.aten.sum.dim_IntList(x, [1])\n        \
             return (_softmax, relu, sum_1)\n"
        );
        let g = coil_graph::parse(&text).unwrap();
        let dtype = DType::from_short_name(dt).unwrap();
        let inputs = coil_testkit::random_inputs(&g, 7);
        let want = coil_eager::run(&g, &inputs).unwrap().outputs;
        let model = coil::compile(&g, backend.clone(), &Options::default()).expect("compiles");
        let got = model.run(&inputs).expect("runs");
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert_eq!(a.dtype(), dtype);
            coil_testkit::check_close(a, b, 1e-2, 3e-2)
                .unwrap_or_else(|e| panic!("{dt} output {i}: {e}"));
        }
    }
}

/// Reductions of 16-bit floats accumulate in f32 (a 16-bit accumulator would stop at 256 when
/// adding ones: 257 is not a bf16), on the emulated GPU (coil-cpu's shapes tests check the CPU).
#[test]
fn sixteen_bit_sums_accumulate_in_f32() {
    use coil_graph::{DType, Data, Tensor};
    for dt in ["bf16", "f16"] {
        let text = format!(
            "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"{dt}[4, 4096]\"):\n        \
             sum_1: \"{dt}[4]\" = torch.ops.aten.sum.dim_IntList(x, [1])\n        \
             mean: \"{dt}[4]\" = torch.ops.aten.mean.dim(x, [1])\n        \
             return (sum_1, mean)\n"
        );
        let g = coil_graph::parse(&text).unwrap();
        let dtype = DType::from_short_name(dt).unwrap();
        let ones = Tensor::new(
            Data::from_f64(dtype, std::iter::repeat_n(1.0, 4 * 4096)),
            vec![4, 4096],
        )
        .unwrap();
        let backend: Arc<dyn Backend> = Arc::new(CudaBackend::emulated());
        let model = coil::compile(&g, backend, &Options::default()).expect("compiles");
        let got = model.run(std::slice::from_ref(&ones)).expect("runs");
        assert_eq!(got[0].to_f64_vec(), vec![4096.0; 4], "{dt} sum");
        assert_eq!(got[1].to_f64_vec(), vec![1.0; 4], "{dt} mean");
    }
}

/// Every tiny zoo model in bf16 and f16 (its graph's dtypes rewritten): compiles for the
/// H200, its PTX assembles with `ptxas -arch=sm_90` without spills (where ptxas is
/// installed), and it runs on the emulator to finite outputs of the dtype. (Accuracy against
/// float64 is the Python tests' job, on the CPU and the H200.)
#[test]
fn every_tiny_zoo_model_in_16_bit_floats_assembles_and_runs() {
    use coil_graph::DType;
    let ptxas = crate::ptxas::find_ptxas();
    let emulator: Arc<dyn Backend> = Arc::new(CudaBackend::emulated());
    let mut failures = Vec::new();
    for name in coil_models::names() {
        let text = coil_models::find(name).unwrap().text(Size::Tiny).unwrap();
        for (short, torch_name, dtype) in [
            ("bf16", "torch.bfloat16", DType::BF16),
            ("f16", "torch.float16", DType::F16),
        ] {
            let label = format!("{name} {short}");
            let converted = text
                .replace("\"f32[", &format!("\"{short}["))
                .replace("torch.float32", torch_name);
            let g = match coil_graph::parse(&converted) {
                Ok(g) => g,
                Err(e) => {
                    failures.push(format!("{label}: {e}"));
                    continue;
                }
            };
            let offline = coil::compile(&g, Arc::new(CudaBackend::offline()), &Options::default());
            match (&offline, &ptxas) {
                (Err(e), _) => failures.push(format!("{label}: {e}")),
                (Ok(model), Some(ptxas)) => {
                    match crate::ptxas::assemble(
                        ptxas,
                        &format!("{name}_{short}"),
                        &model.source(),
                        "sm_90",
                    ) {
                        Ok(report)
                            if report.lines().any(|l| {
                                l.contains("spill") && !l.contains(" 0 bytes spill stores")
                            }) =>
                        {
                            failures.push(format!("{label} spills:\n{report}"));
                        }
                        Ok(_) => {}
                        Err(log) => failures.push(format!("{label} does not assemble:\n{log}")),
                    }
                }
                (Ok(_), None) => {}
            }
            let inputs = coil_testkit::random_inputs(&g, 11);
            let run = coil::compile(&g, emulator.clone(), &Options::default())
                .and_then(|m| m.run(&inputs));
            match run {
                Ok(outs) => {
                    for (i, o) in outs.iter().enumerate() {
                        let float_out = g.node(g.outputs()[i]).meta().dtype.is_float();
                        if float_out
                            && (o.dtype() != dtype || o.to_f64_vec().iter().any(|v| !v.is_finite()))
                        {
                            failures
                                .push(format!("{label} output {i}: {} or not finite", o.dtype()));
                        }
                    }
                }
                Err(e) => failures.push(format!("{label} on the emulator: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `emulate_precision_casts` on the GPU: `(x + 0.001) - x` in bf16 is eager's 0, bit for bit;
/// by default the fused kernel keeps the 0.001 (Inductor's semantics).
#[test]
fn emulate_precision_casts_rounds_where_eager_rounds_on_the_emulator() {
    let backend: Arc<dyn Backend> = Arc::new(CudaBackend::emulated());
    emulated_casts_round_where_eager_rounds(&backend).unwrap_or_else(|e| panic!("emulator: {e}"));
}

/// Every real model cast to bf16 compiles for the H200 and its PTX assembles with `ptxas
/// -arch=sm_90` without spills (where ptxas is installed): the 16-bit paths of convolutions as
/// im2col, attention, layer norms, gathers and the rest, at the real models' shapes.
#[test]
fn every_real_model_in_bf16_assembles_without_spills() {
    let Some(ptxas) = crate::ptxas::find_ptxas() else {
        return;
    };
    let mut failures = Vec::new();
    for real in coil_models::REAL_MODELS {
        let g = coil_graph::parse(real.text)
            .and_then(|g| g.cast_to(coil_graph::DType::F32, coil_graph::DType::BF16));
        let model = g.map_err(|e| e.to_string()).and_then(|g| {
            coil::compile(&g, Arc::new(CudaBackend::offline()), &Options::default())
                .map_err(|e| e.to_string())
        });
        let model = match model {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{}: {e}", real.name));
                continue;
            }
        };
        let label = format!("{}_bf16", real.name);
        match crate::ptxas::assemble(&ptxas, &label, &model.source(), "sm_90") {
            Ok(report)
                if report
                    .lines()
                    .any(|l| l.contains("spill") && !l.contains(" 0 bytes spill stores")) =>
            {
                failures.push(format!("{label} spills:\n{report}"));
            }
            Ok(_) => {}
            Err(log) => failures.push(format!("{label} does not assemble:\n{log}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Kernels with the same code and direction (two branches of the same shapes) are rendered
/// and loaded once and launched for both, unless the backend is told to render every kernel
/// on its own; both ways give eager's results on the emulator.
#[test]
fn kernels_with_the_same_code_share_one_entry_on_the_emulator() {
    let g = coil_graph::parse(coil_testkit::TWIN_BRANCHES).unwrap();
    let inputs = coil_testkit::random_inputs(&g, 3);
    let want = coil_eager::run(&g, &inputs).unwrap().outputs;
    for (every, entries) in [(false, 1), (true, 2)] {
        let backend: Arc<dyn Backend> = Arc::new(CudaBackend::emulated().with_every_kernel(every));
        let model = coil::compile(&g, backend, &Options::default()).unwrap();
        assert_eq!(model.report.num_kernels, 2, "{}", model.source());
        let ptx = model.source();
        let found = ptx.lines().filter(|l| l.contains(".entry ")).count();
        assert_eq!(found, entries, "every kernel on its own: {every}\n{ptx}");
        let got = model.run(&inputs).unwrap();
        coil_testkit::check_outputs(&got, &want, 1e-6, 1e-6).unwrap();
    }
}
