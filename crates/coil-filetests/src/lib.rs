//! coil-filetests: filetests at the kernel boundary, in the manner of Cranelift's. A `.kir`
//! file holds kernel IR text as `Kernel`'s `Display` prints it (or one extern call, described
//! by a directive), directives in `#` comments, and the reference evaluator's results, which
//! `cargo xtask bless` writes:
//!
//! ```text
//! # A masked load: the mask false outside 0..5.
//! # input arg0: floats -4 4
//! kernel poi_masked_0 (pointwise) ranges=[7] reduction_ranges=[]
//!   arg0 x: f32[5] in
//!   ...
//! # expect arg1: f32[7] = 0.5, -1.25, ...
//! ```
//!
//! **Takes**: the text of a `.kir` file, and a backend to run it on.
//! **Gives**: [`FileTest`] (the parsed file), [`run`] (its outputs on any [`Backend`]),
//! [`expect_lines`] (the blessed form of the evaluator's outputs) and [`compare`] (a backend's
//! outputs against the evaluator's).
//! **Must not know about**: any backend in particular; the tests in `tests/it` name them.
//!
//! Directives (one per line, before the kernels):
//! - `# input argN: floats LO HI` | `ints LO HI` | `zeros` | `specials`: how an input is filled
//!   (default: floats in `[-2, 2)`, integers in `[0, 5)`, random bools; `inout` arguments
//!   start as zeros). Values come from a generator seeded by the file's name, so every backend
//!   sees the same inputs.
//! - `# extern: mm|bmm|addmm m=M k=K n=N [batch=B] dtype=D [post=relu,add,...] [bt]`: the file
//!   is one extern call instead (`bt`: the right operand a transposed view).
//! - `# golden: ptx`: the PTX the offline CUDA backend emits is kept beside the file
//!   (`<name>.ptx`) and compared.

mod data;
mod file;
mod run;

pub use data::{Buffer, compare, expect_lines};
pub use file::{ExternSpec, FileTest, Fill};
pub use run::{Outputs, run};

use coil_kernel::Backend;

/// Why a file test could not run or did not pass, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure(pub String);

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether `backend` runs `test` at all: every extern kind it needs is among its capabilities.
pub fn runs_on(test: &FileTest, backend: &dyn Backend) -> bool {
    let target = backend.target();
    test.extern_spec
        .as_ref()
        .is_none_or(|e| target.supports_extern(&e.kind(), e.dtype))
}
