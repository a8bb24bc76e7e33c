//! Building graphs in Rust: inputs, calls (meta inferred as they are added), outputs.

use std::collections::HashMap;

use crate::schema::Returns;
use crate::{
    Arg, Call, DType, Graph, GraphError, Node, NodeId, NodeKind, OpKind, OpRef, TensorMeta,
    infer_call,
};

/// Builds a [`Graph`] statement by statement, inferring each node's meta and naming values the
/// way FX does (`add`, `add_1`, ...).
///
/// ```
/// use coil_graph::{Arg, DType, GraphBuilder};
/// let mut b = GraphBuilder::new();
/// let x = b.input("x", DType::F32, &[4, 8]);
/// let y = b.call("add.Tensor", vec![Arg::Node(x), Arg::Float(1.0)])?;
/// let s = b.call("sum.dim_IntList", vec![Arg::Node(y), Arg::List(vec![Arg::Int(1)])])?;
/// let g = b.finish(&[s])?;
/// assert_eq!(g.node(s).meta().sizes, vec![4]);
/// # Ok::<(), coil_graph::GraphError>(())
/// ```
#[derive(Default)]
pub struct GraphBuilder {
    graph: Graph,
    used: HashMap<String, usize>,
}

impl GraphBuilder {
    /// An empty builder.
    pub fn new() -> GraphBuilder {
        GraphBuilder::default()
    }

    fn fresh_name(&mut self, base: &str) -> String {
        loop {
            let n = self.used.entry(base.to_string()).or_insert(0);
            let name = if *n == 0 {
                base.to_string()
            } else {
                format!("{base}_{n}")
            };
            *n += 1;
            if self.graph.find(&name).is_none() {
                return name;
            }
        }
    }

    /// A builder that continues `graph` (its outputs are replaced by [`GraphBuilder::finish`]).
    pub fn from_graph(graph: Graph) -> GraphBuilder {
        GraphBuilder {
            graph,
            used: HashMap::new(),
        }
    }

    /// Adds a contiguous graph input.
    pub fn input(&mut self, name: &str, dtype: DType, sizes: &[usize]) -> NodeId {
        let name = self.fresh_name(name);
        self.graph.push(Node {
            name,
            kind: NodeKind::Input,
            outputs: vec![TensorMeta::contiguous(dtype, sizes.to_vec())],
            multi_output: false,
        })
    }

    /// Adds a call of `op` (`add.Tensor`, `aten.add.Tensor` or `torch.ops.aten.add.Tensor`)
    /// with positional arguments.
    pub fn call(&mut self, op: &str, args: Vec<Arg>) -> Result<NodeId, GraphError> {
        self.call_kw(op, args, vec![])
    }

    /// Adds a call with positional and keyword arguments.
    pub fn call_kw(
        &mut self,
        op: &str,
        args: Vec<Arg>,
        kwargs: Vec<(&str, Arg)>,
    ) -> Result<NodeId, GraphError> {
        let op = OpRef::lookup(op).ok_or_else(|| GraphError::UnsupportedOp {
            op: op.to_string(),
            line: None,
        })?;
        let call = Call {
            op,
            args,
            kwargs: kwargs
                .into_iter()
                .map(|(k, a)| (k.to_string(), a))
                .collect(),
        };
        self.push_call(call)
    }

    /// Adds a call of the first overload of `kind`.
    pub fn op(&mut self, kind: OpKind, args: Vec<Arg>) -> Result<NodeId, GraphError> {
        self.push_call(Call {
            op: OpRef::of_kind(kind),
            args,
            kwargs: vec![],
        })
    }

    /// Adds a prepared call, named after its op.
    pub fn push_call(&mut self, call: Call) -> Result<NodeId, GraphError> {
        let name = self.fresh_name(&call.op.schema().name);
        push_call_named(&mut self.graph, name, call, None)
    }

    /// Adds `source[index]`.
    pub fn getitem(&mut self, source: NodeId, index: usize) -> Result<NodeId, GraphError> {
        self.getitem_named("getitem", source, index)
    }

    /// Adds `source[index]` named `name` (suffixed when taken).
    pub fn getitem_named(
        &mut self,
        name: &str,
        source: NodeId,
        index: usize,
    ) -> Result<NodeId, GraphError> {
        let name = self.fresh_name(name);
        push_getitem(&mut self.graph, name.clone(), source, index)
            .map_err(|e| e.at_node(&name, None))
    }

    /// Adds a call of `op` (`aten.add.Tensor`) named `name` (another front end's node name,
    /// such as FX's; suffixed when taken), as the text parser does: `None` for an op that
    /// returns nothing (`_assert_tensor_metadata`: the call is checked and keeps no node).
    /// An op outside the registry (ATen's and coil's own namespaces) is
    /// [`GraphError::UnsupportedOp`]; a call the op rejects is an error naming the node.
    pub fn call_named(
        &mut self,
        name: &str,
        op: &str,
        args: Vec<Arg>,
        kwargs: Vec<(String, Arg)>,
    ) -> Result<Option<NodeId>, GraphError> {
        let unsupported = || GraphError::UnsupportedOp {
            op: op.to_string(),
            line: None,
        };
        let bare = op.strip_prefix("torch.ops.").unwrap_or(op);
        if bare.split('.').count() != 3 {
            return Err(unsupported());
        }
        let op_ref = OpRef::lookup(bare).ok_or_else(unsupported)?;
        let call = Call {
            op: op_ref,
            args,
            kwargs,
        };
        if op_ref.schema().returns == Returns::Nothing {
            infer_call(&self.graph, &call).map_err(|e| e.at_node(name, None))?;
            return Ok(None);
        }
        let name = self.fresh_name(name);
        push_call_named(&mut self.graph, name, call, None).map(Some)
    }

    /// The graph so far (for inspecting metas while building).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Sets the outputs, verifies, and returns the graph.
    pub fn finish(mut self, outputs: &[NodeId]) -> Result<Graph, GraphError> {
        self.graph.set_outputs(outputs.to_vec());
        crate::verify(&self.graph)?;
        Ok(self.graph)
    }
}

/// Appends a call with a given name, inferring its outputs. Shared by the builder and the parser.
pub(crate) fn push_call_named(
    graph: &mut Graph,
    name: String,
    call: Call,
    line: Option<usize>,
) -> Result<NodeId, GraphError> {
    let mut inputs = Vec::new();
    call.args.iter().for_each(|a| a.nodes(&mut inputs));
    call.kwargs.iter().for_each(|(_, a)| a.nodes(&mut inputs));
    for n in inputs {
        if graph.node(n).multi_output {
            return Err(GraphError::Invalid(format!(
                "'{}' returns several values; read one with {}[i]",
                graph.node(n).name,
                graph.node(n).name
            ))
            .at_node(&name, line));
        }
    }
    let outputs = infer_call(graph, &call).map_err(|e| e.at_node(&name, line))?;
    let multi_output = call.op.schema().returns != Returns::Tensor;
    Ok(graph.push(Node {
        name,
        kind: NodeKind::Call(call),
        outputs,
        multi_output,
    }))
}

/// Appends `source[index]` with a given name.
pub(crate) fn push_getitem(
    graph: &mut Graph,
    name: String,
    source: NodeId,
    index: usize,
) -> Result<NodeId, GraphError> {
    let src = graph.node(source);
    if !src.multi_output {
        return Err(GraphError::Invalid(format!(
            "'{}' returns one tensor and cannot be indexed",
            src.name
        )));
    }
    let meta = src.outputs.get(index).cloned().ok_or_else(|| {
        GraphError::Invalid(format!(
            "'{}' has {} outputs; index {index} is out of range",
            src.name,
            src.outputs.len()
        ))
    })?;
    Ok(graph.push(Node {
        name,
        kind: NodeKind::GetItem { source, index },
        outputs: vec![meta],
        multi_output: false,
    }))
}
