//! The CPU backend (LLVM) passes the conformance suite under every strategy, and the
//! articles' kernel counts hold at run time.

use std::sync::Arc;

use coil::Options;
use coil_codegen::Backend;
use coil_testkit::{ARTICLE_KERNEL_COUNTS, conformance};

#[test]
fn every_tiny_model_on_the_cpu_under_every_policy_matches_pytorch() {
    let backend: Arc<dyn Backend> = Arc::new(coil_cpu::CpuBackend::new().expect("host CPU"));
    let failures = conformance(&backend, &coil::builtin_strategies());
    assert!(failures.is_empty(), "cpu:\n{}", failures.join("\n"));
}

#[test]
fn kernel_counts_of_the_articles_hold_on_the_cpu() {
    let backend: Arc<dyn Backend> = Arc::new(coil_cpu::CpuBackend::new().expect("host CPU"));
    for &(name, kernels, externs) in ARTICLE_KERNEL_COUNTS {
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
