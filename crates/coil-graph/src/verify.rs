//! The verifier: structural invariants and metas that agree with inference.

use std::collections::HashSet;

use crate::{Graph, GraphError, NodeKind, infer_call};

/// Checks that names are unique identifiers, every read refers to an earlier node, multi-output
/// nodes are only read through `getitem`, outputs exist, and every call's recorded meta equals
/// what inference gives.
pub fn verify(graph: &Graph) -> Result<(), GraphError> {
    let pos = graph.positions();
    let mut names = HashSet::new();
    let invalid = |msg: String| Err(GraphError::Invalid(msg));
    for (i, (id, node)) in graph.nodes().enumerate() {
        if !is_identifier(&node.name) {
            return invalid(format!("'{}' is not a valid value name", node.name));
        }
        if !names.insert(node.name.as_str()) {
            return invalid(format!("the name '{}' is defined twice", node.name));
        }
        for src in node.inputs() {
            if pos.get(src.index()).is_none_or(|&p| p >= i) {
                return invalid(format!("'{}' reads a value defined after it", node.name));
            }
            let is_getitem = matches!(node.kind, NodeKind::GetItem { .. });
            if graph.node(src).multi_output && !is_getitem {
                return invalid(format!(
                    "'{}' reads the multi-output value '{}' without getitem",
                    node.name,
                    graph.node(src).name
                ));
            }
        }
        match &node.kind {
            NodeKind::Input => {
                if node.outputs.len() != 1 || !node.meta().is_contiguous() {
                    return invalid(format!(
                        "input '{}' must be one contiguous tensor",
                        node.name
                    ));
                }
            }
            NodeKind::Call(call) => {
                let inferred = infer_call(graph, call).map_err(|e| e.at_node(&node.name, None))?;
                if inferred != node.outputs {
                    return invalid(format!(
                        "'{}' records {:?} but {} gives {:?}",
                        node.name,
                        node.outputs
                            .iter()
                            .map(|m| m.to_string())
                            .collect::<Vec<_>>(),
                        call.op,
                        inferred.iter().map(|m| m.to_string()).collect::<Vec<_>>()
                    ));
                }
            }
            NodeKind::GetItem { source, index } => {
                let src = graph.node(*source);
                if !src.multi_output || src.outputs.get(*index) != Some(node.meta()) {
                    return invalid(format!(
                        "'{}' is not a valid getitem of '{}'",
                        node.name, src.name
                    ));
                }
            }
        }
        let _ = id;
    }
    if graph.outputs().is_empty() {
        return invalid("the graph returns nothing".into());
    }
    for &o in graph.outputs() {
        if pos.get(o.index()).is_none_or(|&p| p == usize::MAX) || graph.node(o).multi_output {
            return invalid("an output is not a single tensor value of this graph".into());
        }
    }
    Ok(())
}

/// A Python identifier (ASCII subset), not a keyword we would misparse.
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !matches!(
            s,
            "None" | "True" | "False" | "self" | "torch" | "return" | "def" | "class"
        )
}
