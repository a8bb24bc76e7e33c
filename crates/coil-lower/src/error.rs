//! The crate's error type.

use coil_graph::{GraphError, OpRef};
use thiserror::Error;

/// What can go wrong lowering a graph or evaluating the lowered IR.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum LowerError {
    /// A composite op that the decompose pass rewrites into ops the lowering knows.
    #[error("node {node}: no lowering for {op} (run the decompose pass)")]
    NeedsDecomposition {
        /// The node's name.
        node: String,
        /// The op.
        op: OpRef,
    },
    /// An op (or a form of one) with no lowering.
    #[error("node {node}: no lowering for {op}: {why}")]
    Unsupported {
        /// The node's name.
        node: String,
        /// The op.
        op: OpRef,
        /// What is not supported.
        why: String,
    },
    /// The node's arguments do not bind to its schema, or its shapes are inconsistent.
    #[error("node {node}: {source}")]
    Graph {
        /// The node's name.
        node: String,
        /// The underlying error.
        source: GraphError,
    },
    /// The graph does not verify (its recorded metas disagree with inference, a value is read
    /// before it is defined, ...).
    #[error("the graph does not verify: {0}")]
    Verify(GraphError),
    /// The graph is malformed in a way the verifier would catch (a dangling value, ...).
    #[error("invalid graph: {0}")]
    Invalid(String),
    /// Inputs given to [`crate::LoweredGraph::evaluate`] do not match the graph's.
    #[error("input {index} ({name}): {msg}")]
    Input {
        /// Position in the signature.
        index: usize,
        /// The input's name.
        name: String,
        /// What was wrong.
        msg: String,
    },
    /// Evaluating the IR failed (integer division by zero, wrong input count, ...).
    #[error("evaluation: {0}")]
    Eval(String),
}
