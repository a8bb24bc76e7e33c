//! The facade's zoo loop: every tiny zoo model, under each policy, compiled with a given
//! backend through `coil::compile`, run, and compared to PyTorch's saved outputs.

use std::sync::Arc;

use coil::{Options, Policy};
use coil_codegen::Backend;

use crate::check_outputs;

/// Every fusion policy (the match below fails to compile when one is added and not listed).
pub const POLICIES: [Policy; 4] = [
    Policy::Inductor,
    Policy::InductorRegPressure,
    Policy::Tvm,
    Policy::None,
];

const _: fn(Policy) = |p| match p {
    Policy::Inductor | Policy::InductorRegPressure | Policy::Tvm | Policy::None => {}
};

/// The articles' models with their kernel and extern-call counts under the default options
/// (the same on the CPU and the GPU).
pub const ARTICLE_KERNEL_COUNTS: &[(&str, usize, usize)] = &[
    ("seed_model", 1, 0),
    ("chain", 1, 0),
    ("rowsum", 1, 0),
    ("siblings", 1, 0),
    ("wall", 2, 0),
    ("softmax", 1, 0),
    ("layernorm", 1, 0),
    ("rmsnorm", 1, 0),
    ("mm_epilogue", 2, 1),
];

/// Compiles every tiny zoo model under each of `policies` with `backend`, runs it on
/// PyTorch's inputs and compares with PyTorch's outputs ([`check_outputs`] with `atol` and
/// `rtol`). Returns one line per failure (`model policy: what`), empty when all match.
pub fn zoo_failures(
    backend: &Arc<dyn Backend>,
    policies: &[Policy],
    atol: f64,
    rtol: f64,
) -> Vec<String> {
    let mut failures = Vec::new();
    for m in coil_models::MODELS {
        let case = match m.tiny_case() {
            Ok(case) => case,
            Err(e) => {
                failures.push(format!("{}: {e}", m.name));
                continue;
            }
        };
        for &policy in policies {
            let options = Options {
                policy,
                ..Options::default()
            };
            let outcome = coil::compile(&case.graph, backend.clone(), &options)
                .map_err(|e| format!("compile: {e}"))
                .and_then(|model| model.run(&case.inputs).map_err(|e| format!("run: {e}")))
                .and_then(|out| check_outputs(&out, &case.outputs, atol, rtol));
            if let Err(e) = outcome {
                failures.push(format!("{} {}: {e}", m.name, policy.name()));
            }
        }
    }
    failures
}
