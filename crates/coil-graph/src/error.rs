//! The crate's error type.

use thiserror::Error;

/// Everything that can be wrong with a graph, its text, or a tensor file.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum GraphError {
    /// The readable-FX text is malformed.
    #[error("line {line}, column {col}: {msg}")]
    Parse {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// What was wrong.
        msg: String,
    },
    /// An op outside the registry.
    #[error("unsupported op {op}{}", at_line(*.line))]
    UnsupportedOp {
        /// `aten.foo.bar`.
        op: String,
        /// Where it was used, when parsed from text.
        line: Option<usize>,
    },
    /// Arguments that do not match the op's schema.
    #[error("aten.{op}: {msg}")]
    Arg {
        /// `add.Tensor`.
        op: String,
        /// What was wrong.
        msg: String,
    },
    /// Shapes that do not fit the op.
    #[error("shape error: {0}")]
    Shape(String),
    /// Dtypes that do not fit the op.
    #[error("dtype error: {0}")]
    DType(String),
    /// An error about a specific node (wraps the cause with the node's name and line).
    #[error("{node}{}: {source}", at_line(*.line))]
    AtNode {
        /// The node's name.
        node: String,
        /// Its line in the source text, when parsed.
        line: Option<usize>,
        /// The underlying error.
        source: Box<GraphError>,
    },
    /// The graph breaks an invariant (found by the verifier).
    #[error("invalid graph: {0}")]
    Invalid(String),
    /// Reading or writing tensors failed.
    #[error("tensor I/O: {0}")]
    TensorIo(String),
}

fn at_line(line: Option<usize>) -> String {
    line.map(|l| format!(" at line {l}")).unwrap_or_default()
}

impl GraphError {
    /// Attaches the node (and line) an error happened at.
    pub fn at_node(self, node: &str, line: Option<usize>) -> GraphError {
        match self {
            GraphError::Parse { .. } | GraphError::AtNode { .. } => self,
            GraphError::UnsupportedOp { op, line: None } => GraphError::UnsupportedOp { op, line },
            other => GraphError::AtNode {
                node: node.to_string(),
                line,
                source: Box::new(other),
            },
        }
    }
}
