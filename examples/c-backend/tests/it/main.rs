//! The C backend passes coil's backend conformance suite under every built-in strategy (every
//! tiny zoo model against PyTorch's outputs and the float64 reference), and its errors are
//! values. Skipped, with a message, where no C compiler runs.

#![allow(clippy::print_stderr)] // the skip message

use std::sync::Arc;

use coil_backend_c::CBackend;
use coil_kernel::Backend;

/// The backend, or `None` (and a message) where there is no C compiler.
fn backend() -> Option<Arc<dyn Backend>> {
    match CBackend::new() {
        Ok(b) => Some(Arc::new(b)),
        Err(e) => {
            eprintln!("skipping the C backend's tests: {e}");
            None
        }
    }
}

#[test]
fn the_c_backend_passes_the_conformance_suite_under_every_strategy() {
    let Some(backend) = backend() else { return };
    let failures = coil_testkit::conformance(&backend, &coil::builtin_strategies());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_generated_c_is_the_models_source_and_names_kernels_after_the_backend() {
    let Some(backend) = backend() else { return };
    let g = coil_models::find("seed_model")
        .expect("zoo")
        .graph(coil_models::Size::Tiny)
        .expect("parses");
    let model = coil::compile(&g, backend, &coil::Options::default()).expect("compiles");
    assert_eq!(
        model.report.kernels[0].name,
        "c_per_fused_add_mean_mul_relu_sub_0"
    );
    let source = model.source();
    assert!(
        source.contains("int coil_kernel_0(void **args) {"),
        "{source}"
    );
    assert!(
        source.contains("/* per_fused_add_mean_mul_relu_sub_0 */"),
        "{source}"
    );
}

#[test]
fn a_missing_compiler_is_a_clear_error() {
    let err = CBackend::with_compiler("/nonexistent/cc")
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        err.as_deref(),
        Some(
            "device: no C compiler: `/nonexistent/cc --version` did not run (install gcc or clang)"
        )
    );
}

#[test]
fn integer_division_by_zero_is_a_run_time_error_naming_the_kernel() {
    let Some(backend) = backend() else { return };
    let g = coil_graph::parse(
        r#"
class GraphModule(torch.nn.Module):
    def forward(self, a: "i64[4]", b: "i64[4]"):
        d: "i64[4]" = torch.ops.aten.div.Tensor_mode(a, b, rounding_mode = 'floor');  a = b = None
        return (d,)
"#,
    )
    .expect("parses");
    let model = coil::compile(&g, backend, &coil::Options::default()).expect("compiles");
    let ints =
        |v: Vec<i64>| coil_graph::Tensor::new(coil_graph::Data::I64(v), vec![4]).expect("tensor");
    let a = ints(vec![7, -7, 8, 9]);
    let ok = ints(vec![2, 2, -3, 1]);
    let out = model.run(&[a.clone(), ok]).expect("runs");
    assert_eq!(out[0].to_f64_vec(), vec![3.0, -4.0, -3.0, 9.0]);
    let zero = ints(vec![1, 0, 1, 1]);
    let err = model.run(&[a, zero]).unwrap_err().to_string();
    assert!(err.contains("integer division by zero"), "{err}");
    assert!(err.contains("c_poi_fused_div_0"), "{err}");
}
