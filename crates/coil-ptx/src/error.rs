//! The builder's error: PTX that would not assemble, named by kernel and instruction.

use thiserror::Error;

/// The builder produced invalid PTX (a register of the wrong class, an undefined label, ...):
/// a bug in the code generator, reported instead of panicking.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("invalid PTX in kernel '{kernel}': {reason}")]
pub struct PtxError {
    /// The kernel being built.
    pub kernel: String,
    /// What was wrong, naming the instruction.
    pub reason: String,
}
