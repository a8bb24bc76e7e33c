//! Every tiny zoo model through the whole pipeline on the reference evaluator's backend
//! (coil-codegen's `InterpBackend`), under every strategy: the conformance suite; run-time
//! input errors; debug artifacts.

use std::sync::Arc;

use coil::Options;
use coil_codegen::{Backend, InterpBackend};
use coil_testkit::{check_outputs, conformance};

#[test]
fn the_reference_evaluator_passes_the_conformance_suite_under_every_strategy() {
    let backend: Arc<dyn Backend> = Arc::new(InterpBackend::default());
    let failures = conformance(&backend, &coil::builtin_strategies());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn seed_model_is_one_kernel_and_runs_twice() {
    let backend: Arc<dyn Backend> = Arc::new(InterpBackend::default());
    let case = coil_models::find("seed_model")
        .expect("zoo")
        .tiny_case()
        .expect("tiny");
    let model = coil::compile(&case.graph, backend, &Options::default()).expect("compiles");
    assert_eq!(model.report.num_kernels, 1);
    assert_eq!(
        model.report.kernels[0].name,
        "interp_per_fused_add_mean_mul_relu_sub_0"
    );
    let a = model.run(&case.inputs).expect("runs");
    let b = model
        .run(&case.inputs)
        .expect("runs again on the same memory");
    check_outputs(&a, &b, 1e-5, 1e-4).unwrap_or_else(|e| panic!("second run: {e}"));
}

#[test]
fn wrong_inputs_are_errors() {
    let backend: Arc<dyn Backend> = Arc::new(InterpBackend::default());
    let case = coil_models::find("seed_model")
        .expect("zoo")
        .tiny_case()
        .expect("tiny");
    let model = coil::compile(&case.graph, backend, &Options::default()).expect("compiles");
    let err = model.run(&case.inputs[..1]).unwrap_err().to_string();
    assert!(err.contains("takes 4 inputs"), "{err}");
    let mut wrong = case.inputs.clone();
    wrong[1] = coil_graph::Tensor::from_f32(vec![0.0; 3], vec![3]).expect("tensor");
    let err = model.run(&wrong).unwrap_err().to_string();
    assert!(
        err.contains("input 'bias' must be f32[64], got f32[3]"),
        "{err}"
    );
}

#[test]
fn the_debug_dir_gets_every_stage() {
    let dir = std::env::temp_dir().join(format!("coil-debug-{}", std::process::id()));
    let backend: Arc<dyn Backend> = Arc::new(InterpBackend::default());
    let g = coil_models::find("softmax")
        .expect("zoo")
        .graph(coil_models::Size::Tiny)
        .expect("parses");
    let options = Options {
        debug_dir: Some(dir.clone()),
        ..Options::default()
    };
    coil::compile(&g, backend, &options).expect("compiles");
    for f in [
        "fx_graph_readable.py",
        "fx_graph_transformed.py",
        "ir_pre_fusion.txt",
        "ir_post_fusion.txt",
        "fusion.log",
        "graph.dot",
        "kernels.txt",
        "output_code.txt",
    ] {
        let text = std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(!text.trim().is_empty(), "{f} is empty");
    }
    let log = std::fs::read_to_string(dir.join("fusion.log")).expect("log");
    assert!(
        log.contains("completed fusion round (2/10): fused 3 nodes into 1 nodes"),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_plan_larger_than_the_memory_budget_is_refused_at_compile_time() {
    let backend: Arc<dyn Backend> = Arc::new(InterpBackend::default());
    let g = coil_models::find("seed_model")
        .expect("zoo")
        .graph(coil_models::Size::Article)
        .expect("parses");
    let options = Options {
        max_memory: Some(1 << 20),
        ..Options::default()
    };
    let err = coil::compile(&g, backend.clone(), &options)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.starts_with("memory: the compiled model needs")
            && err.contains("budget of 1048576 bytes"),
        "{err}"
    );
    let options = Options {
        max_memory: Some(1 << 30),
        ..Options::default()
    };
    coil::compile(&g, backend, &options).expect("fits");
}
