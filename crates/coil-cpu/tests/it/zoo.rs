//! Every tiny zoo model through `CpuBackend`: one kernel per buffer, and, for the models the
//! articles fuse into one kernel, every buffer in one kernel; outputs against PyTorch's and
//! coil-eager's.

use coil_cpu::CpuBackend;
use coil_testkit::check_close;

use crate::driver::{all_in_one, backend, eager, lower, per_buffer, run, streaming_backend};

/// The models that are one kernel under the articles' fusion.
const SINGLE_KERNEL: &[&str] = &[
    "seed_model",
    "softmax",
    "siblings",
    "rmsnorm",
    "layernorm",
    "rowsum",
    "chain",
];

fn check_model(name: &str, fused: bool) {
    check_model_on(backend(), name, fused);
}

fn check_model_on(backend: &CpuBackend, name: &str, fused: bool) {
    let m = coil_models::find(name).expect("zoo model");
    let case = m.tiny_case().expect("tiny case");
    let l = lower(&case.graph);
    let groups = if fused {
        all_in_one(&l)
    } else {
        per_buffer(&l)
    };
    let what = format!("{name} ({})", if fused { "fused" } else { "per buffer" });
    let got = run(backend, &l, &groups, &case.inputs).unwrap_or_else(|e| panic!("{what}: {e}"));
    let reference = eager(&case.graph, &case.inputs);
    assert_eq!(got.outputs.len(), case.outputs.len(), "{what}");
    for (i, ((g, want), e)) in got
        .outputs
        .iter()
        .zip(&case.outputs)
        .zip(&reference)
        .enumerate()
    {
        check_close(g, want, 1e-5, 1e-4)
            .unwrap_or_else(|err| panic!("{what} output {i} vs PyTorch: {err}"));
        check_close(g, e, 1e-5, 1e-4)
            .unwrap_or_else(|err| panic!("{what} output {i} vs coil-eager: {err}"));
    }
}

#[test]
fn every_tiny_model_one_kernel_per_buffer_matches_pytorch() {
    for m in coil_models::MODELS {
        check_model(m.name, false);
    }
}

#[test]
fn single_kernel_models_fused_match_pytorch() {
    for name in SINGLE_KERNEL {
        check_model(name, true);
    }
}

#[test]
fn fused_models_compile_to_one_function_each() {
    for name in SINGLE_KERNEL {
        let case = coil_models::find(name).unwrap().tiny_case().unwrap();
        let l = lower(&case.graph);
        let r = run(backend(), &l, &all_in_one(&l), &case.inputs).unwrap();
        assert_eq!(r.kernels, 1, "{name}");
        assert_eq!(r.source.matches("define void @cpu_").count(), 1, "{name}");
    }
}

#[test]
fn streaming_stores_keep_results() {
    for m in coil_models::MODELS {
        check_model_on(streaming_backend(), m.name, false);
    }
    for name in SINGLE_KERNEL {
        check_model_on(streaming_backend(), name, true);
    }
    let case = coil_models::find("seed_model")
        .unwrap()
        .tiny_case()
        .unwrap();
    let l = lower(&case.graph);
    let r = run(streaming_backend(), &l, &all_in_one(&l), &case.inputs).unwrap();
    assert!(r.source.contains("!nontemporal"), "{}", r.source);
    assert!(r.source.contains("fence seq_cst"), "{}", r.source);
}
