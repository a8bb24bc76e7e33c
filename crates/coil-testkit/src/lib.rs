//! coil-testkit: test helpers that several crates' integration tests share.
//!
//! **Takes**: options for random graphs ([`GraphConfig`]: which op families, how many inputs
//! and steps, shapes, integer inputs); tensors to compare with a tolerance; with the `zoo`
//! feature, a backend as an `Arc<dyn coil_codegen::Backend>` and the strategies to try.
//! **Gives**: a proptest strategy of random graphs with deterministic inputs
//! ([`random_graph`], [`RandomGraph`]); deterministic test inputs ([`Rng`], [`random_tensor`]); [`check_close`] and [`check_outputs`] (NaNs equal,
//! `|got - want| <= atol + rtol * |want|`, sizes and dtypes checked); with `zoo`, the backend
//! conformance suite `conformance` (every tiny zoo model under each strategy through
//! `coil::compile`, run twice, compared to PyTorch's saved outputs and to a float64
//! reference), `ARTICLE_KERNEL_COUNTS`, and `AllInOne`, a strategy fusing every node into one
//! kernel for backend tests; [`TWIN_BRANCHES`], a graph whose two kernels are twins.
//! **Must not know about**: any backend (LLVM, PTX, CUDA): it takes graphs and a backend
//! object and gives strategies and checks; it is only ever a dev-dependency.

mod close;
#[cfg(feature = "zoo")]
mod conformance;
mod graphs;
mod random;
#[cfg(feature = "zoo")]
mod strategies;

pub use close::{check_close, check_outputs};
#[cfg(feature = "zoo")]
pub use conformance::{
    ARTICLE_KERNEL_COUNTS, MEMORY_BOUND, conformance, conformance_16, conformance_real_16,
    emulated_casts_match_pytorch, emulated_casts_round_where_eager_rounds,
    fmod_is_exact_on_random_bits,
};
pub use graphs::{BINARY, GraphConfig, OpFamily, RandomGraph, UNARY, inputs, random_graph};
pub use random::{Rng, random_inputs, random_tensor};
#[cfg(feature = "zoo")]
pub use strategies::{AllInOne, runs_between_externs};

/// A graph of two branches with the same shapes, each a transposed read (a strided load), an
/// add and a relu: their kernels are twins (the same code under other names), for the
/// backends' tests that twins share one compiled kernel.
pub const TWIN_BRANCHES: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[37, 19]", y: "f32[37, 19]"):
        t1: "f32[19, 37]" = torch.ops.aten.permute.default(x, [1, 0])
        a1: "f32[19, 37]" = torch.ops.aten.add.Tensor(t1, 1.0)
        r1: "f32[19, 37]" = torch.ops.aten.relu.default(a1)
        t2: "f32[19, 37]" = torch.ops.aten.permute.default(y, [1, 0])
        a2: "f32[19, 37]" = torch.ops.aten.add.Tensor(t2, 1.0)
        r2: "f32[19, 37]" = torch.ops.aten.relu.default(a2)
        return (r1, r2)
"#;
