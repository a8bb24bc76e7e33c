//! Parser for PyTorch's readable FX graph text.

use crate::{Graph, GraphError};

/// Parses readable FX text into a verified graph.
pub fn parse(_text: &str) -> Result<Graph, GraphError> {
    Err(GraphError::Parse {
        line: 1,
        col: 1,
        msg: "not yet written".into(),
    })
}
