//! The facade's error type: every stage's error, with the stage named.

use thiserror::Error;

/// What can go wrong compiling or running a model.
#[derive(Debug, Error)]
pub enum CoilError {
    /// The graph is invalid.
    #[error("graph: {0}")]
    Graph(#[from] coil_graph::GraphError),
    /// The passes failed.
    #[error("passes: {0}")]
    Passes(#[from] coil_passes::PassError),
    /// The lowering failed (e.g. an op without a lowering).
    #[error("lowering: {0}")]
    Lower(#[from] coil_lower::LowerError),
    /// The scheduler failed (or a strategy name is unknown).
    #[error("scheduling: {0}")]
    Sched(#[from] coil_sched::SchedError),
    /// A kernel could not be built.
    #[error("codegen: {0}")]
    Build(#[from] coil_codegen::BuildError),
    /// The backend failed.
    #[error("backend: {0}")]
    Backend(#[from] coil_codegen::BackendError),
    /// The inputs given to `run` do not match the graph.
    #[error("inputs: {0}")]
    Inputs(String),
    /// Writing a debug artifact failed.
    #[error("debug dir: {0}")]
    Debug(String),
    /// A stage's output broke its invariants (a bug of that stage, or of a strategy or
    /// backend plugged into it), found by the verifier run after it.
    #[error("verifier after {stage}: {msg}")]
    Verify {
        /// The stage whose output is wrong.
        stage: &'static str,
        /// What is wrong.
        msg: String,
    },
    /// The model needs more memory than the budget (`Options::max_memory`).
    #[error("memory: {0}")]
    Memory(String),
    /// The model needs something the backend does not do (an extern kind).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// Something in the plan is inconsistent (a bug).
    #[error("plan: {0}")]
    Plan(String),
    /// A step failed at run time (a host fallback's op rejected its operands: an index out
    /// of range, ...), with the node.
    #[error("run: {0}")]
    Run(String),
}
