//! The crate's error type, and the node-less error the op families return.

use coil_graph::{DType, Dims, GraphError};
use thiserror::Error;

/// Why a graph could not be run.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum EagerError {
    /// An op would need more memory than the budget ([`crate::run_within`]).
    #[error(
        "node '{node}' would need {need} bytes, more than the memory budget of {budget} bytes (--max-memory)"
    )]
    Memory {
        /// The node.
        node: String,
        /// Bytes its results and operand copies would take.
        need: usize,
        /// The budget.
        budget: usize,
    },
    /// The number of input tensors differs from the graph's signature.
    #[error("the graph takes {expected} inputs but {given} were given")]
    InputCount {
        /// Inputs in the graph's signature.
        expected: usize,
        /// Tensors passed.
        given: usize,
    },
    /// An input tensor's shape differs from the graph's signature.
    #[error("input '{name}': expected shape {}, got {}", Dims(.expected), Dims(.got))]
    InputShape {
        /// The input's name in the graph.
        name: String,
        /// Sizes in the signature.
        expected: Vec<usize>,
        /// Sizes of the tensor passed.
        got: Vec<usize>,
    },
    /// An input tensor's dtype differs from the graph's signature.
    #[error("input '{name}': expected dtype {expected}, got {got}")]
    InputDType {
        /// The input's name in the graph.
        name: String,
        /// Dtype in the signature.
        expected: DType,
        /// Dtype of the tensor passed.
        got: DType,
    },
    /// An op failed (bad arguments, a value PyTorch rejects at run time such as an integer
    /// division by zero), or produced something other than the graph's recorded meta.
    #[error("{node} ({op}): {msg}")]
    Op {
        /// The node's name (`mul_1`).
        node: String,
        /// The overload (`aten.mul.Tensor`).
        op: String,
        /// What went wrong.
        msg: String,
    },
    /// The graph itself is malformed (an output or argument that was never computed).
    #[error("invalid graph: {0}")]
    Graph(String),
}

/// An op failure before the interpreter attaches the node's name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OpError(pub(crate) String);

impl OpError {
    pub(crate) fn new(msg: impl Into<String>) -> OpError {
        OpError(msg.into())
    }
}

impl From<GraphError> for OpError {
    fn from(e: GraphError) -> OpError {
        OpError(e.to_string())
    }
}

/// `Err(OpError)` from a message.
pub(crate) fn fail<T>(msg: impl Into<String>) -> Result<T, OpError> {
    Err(OpError::new(msg))
}
