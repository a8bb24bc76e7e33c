//! Every tiny zoo model compiled for the CPU (LLVM) under every policy matches PyTorch's
//! outputs, and the articles' kernel counts hold at run time.

use std::sync::Arc;

use coil::{Options, Policy};
use coil_codegen::Backend;

use crate::zoo::close;

#[test]
fn every_tiny_model_on_the_cpu_under_every_policy_matches_pytorch() {
    let backend: Arc<dyn Backend> = Arc::new(coil_cpu::CpuBackend::new().expect("host CPU"));
    for m in coil_models::MODELS {
        let case = m.tiny_case().expect("zoo");
        for policy in [
            Policy::Inductor,
            Policy::InductorRegPressure,
            Policy::Tvm,
            Policy::None,
        ] {
            let options = Options {
                policy,
                ..Options::default()
            };
            let model = coil::compile(&case.graph, backend.clone(), &options)
                .unwrap_or_else(|e| panic!("{} {policy:?}: {e}", m.name));
            let out = model
                .run(&case.inputs)
                .unwrap_or_else(|e| panic!("{} {policy:?}: {e}", m.name));
            close(&out, &case.outputs, &format!("cpu {} {policy:?}", m.name));
        }
    }
}

#[test]
fn kernel_counts_of_the_articles_hold_on_the_cpu() {
    let backend: Arc<dyn Backend> = Arc::new(coil_cpu::CpuBackend::new().expect("host CPU"));
    for (name, kernels, externs) in [
        ("seed_model", 1, 0),
        ("chain", 1, 0),
        ("rowsum", 1, 0),
        ("siblings", 1, 0),
        ("wall", 2, 0),
        ("softmax", 1, 0),
        ("layernorm", 1, 0),
        ("rmsnorm", 1, 0),
        ("mm_epilogue", 2, 1),
    ] {
        let g = coil_models::find(name)
            .expect("zoo")
            .graph(coil_models::Size::Article)
            .expect("parses");
        let model = coil::compile(&g, backend.clone(), &Options::default()).expect("compiles");
        assert_eq!(
            (model.report.num_kernels, model.report.num_extern_calls),
            (kernels, externs),
            "{name}"
        );
    }
}
