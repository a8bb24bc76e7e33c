//! The graph: nodes in an arena with typed ids, in program order, with inputs and outputs.

use std::collections::HashMap;
use std::fmt;

use id_arena::{Arena, Id};

use crate::{DType, GraphError, OpKind, OpRef, TensorMeta};

/// A node's id. Ids are only meaningful for the graph that made them.
pub type NodeId = Id<Node>;

/// An argument of a call, as written in the readable FX text.
#[derive(Clone, Debug)]
pub enum Arg {
    /// A value computed by another node (or a graph input).
    Node(NodeId),
    /// An integer literal.
    Int(i64),
    /// A float literal (`inf`, `-inf` and `nan` included).
    Float(f64),
    /// `True` / `False`.
    Bool(bool),
    /// `None`.
    None,
    /// A string literal (`'tanh'`).
    Str(String),
    /// `torch.float32` and friends.
    DType(DType),
    /// `torch.strided` (the only layout we support).
    Layout(Layout),
    /// `torch.contiguous_format` and friends.
    MemoryFormat(MemoryFormat),
    /// `device(type='cpu')`.
    Device(DeviceSpec),
    /// A list `[a, b]` (or tuple; the printer writes lists).
    List(Vec<Arg>),
}

impl PartialEq for Arg {
    fn eq(&self, other: &Arg) -> bool {
        use Arg::*;
        match (self, other) {
            (Node(a), Node(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            // Bitwise, so that `nan` args compare equal to themselves.
            (Float(a), Float(b)) => a.to_bits() == b.to_bits(),
            (Bool(a), Bool(b)) => a == b,
            (None, None) => true,
            (Str(a), Str(b)) => a == b,
            (DType(a), DType(b)) => a == b,
            (Layout(a), Layout(b)) => a == b,
            (MemoryFormat(a), MemoryFormat(b)) => a == b,
            (Device(a), Device(b)) => a == b,
            (List(a), List(b)) => a == b,
            _ => false,
        }
    }
}

impl Arg {
    /// The node this argument refers to, if it is one.
    pub fn as_node(&self) -> Option<NodeId> {
        match self {
            Arg::Node(n) => Some(*n),
            _ => None,
        }
    }

    /// Every node referenced by this argument, in order (lists included).
    pub fn nodes(&self, out: &mut Vec<NodeId>) {
        match self {
            Arg::Node(n) => out.push(*n),
            Arg::List(items) => items.iter().for_each(|a| a.nodes(out)),
            _ => {}
        }
    }

    /// Rewrites the node ids inside this argument.
    pub fn map_nodes(&self, f: &mut impl FnMut(NodeId) -> NodeId) -> Arg {
        match self {
            Arg::Node(n) => Arg::Node(f(*n)),
            Arg::List(items) => Arg::List(items.iter().map(|a| a.map_nodes(f)).collect()),
            other => other.clone(),
        }
    }

    /// Replaces `torch.<from>` by `torch.<to>` in this argument (lists included).
    fn replace_dtype(&mut self, from: DType, to: DType) {
        match self {
            Arg::DType(d) if *d == from => *d = to,
            Arg::List(items) => items.iter_mut().for_each(|a| a.replace_dtype(from, to)),
            _ => {}
        }
    }
}

/// `torch.strided`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layout {
    /// Dense strided tensors.
    Strided,
}

/// Memory-format hints that `clone` and `_to_copy` accept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemoryFormat {
    /// `torch.contiguous_format`.
    Contiguous,
    /// `torch.preserve_format`.
    Preserve,
    /// `torch.channels_last`.
    ChannelsLast,
}

impl MemoryFormat {
    /// The Python spelling.
    pub fn torch_name(self) -> &'static str {
        match self {
            MemoryFormat::Contiguous => "torch.contiguous_format",
            MemoryFormat::Preserve => "torch.preserve_format",
            MemoryFormat::ChannelsLast => "torch.channels_last",
        }
    }
}

/// A device as the graph text writes it: `device(type='cuda', index=0)` (not where kernels
/// run: that is `coil_sched::Device`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeviceSpec {
    /// `cpu`, `cuda`, ...
    pub kind: String,
    /// The device ordinal, when given.
    pub index: Option<i64>,
}

/// A call of an ATen operator overload.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The operator overload (`aten.add.Tensor`).
    pub op: OpRef,
    /// Positional arguments, as written.
    pub args: Vec<Arg>,
    /// Keyword arguments, in the order written.
    pub kwargs: Vec<(String, Arg)>,
}

/// What a node is.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// A graph input (`placeholder`).
    Input,
    /// A call of an ATen operator.
    Call(Call),
    /// `source[index]`: one output of a multi-output call.
    GetItem {
        /// The multi-output node.
        source: NodeId,
        /// Which of its outputs.
        index: usize,
    },
}

/// One statement of the graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The value's name, unique in the graph (`mul_1`).
    pub name: String,
    /// What computes it.
    pub kind: NodeKind,
    /// One entry per output; a single-output node has exactly one.
    pub outputs: Vec<TensorMeta>,
    /// True when the op returns a tuple or list (accessed with `getitem`), even of length 1.
    pub multi_output: bool,
}

impl Node {
    /// The meta of a single-output node (the first output of a multi-output one).
    pub fn meta(&self) -> &TensorMeta {
        &self.outputs[0]
    }

    /// The nodes this node reads, in argument order, with repeats.
    pub fn inputs(&self) -> Vec<NodeId> {
        let mut out = Vec::new();
        match &self.kind {
            NodeKind::Input => {}
            NodeKind::Call(c) => {
                c.args.iter().for_each(|a| a.nodes(&mut out));
                c.kwargs.iter().for_each(|(_, a)| a.nodes(&mut out));
            }
            NodeKind::GetItem { source, .. } => out.push(*source),
        }
        out
    }
}

/// An ATen-level dataflow graph: statements in program order (always a topological order).
#[derive(Clone, Debug, Default)]
pub struct Graph {
    arena: Arena<Node>,
    order: Vec<NodeId>,
    inputs: Vec<NodeId>,
    outputs: Vec<NodeId>,
    /// Inductor's `node.meta["original_aten"]`: for nodes a pass created or rewrote, the op of
    /// the input-graph node they came from (a decomposed `mean`'s `sum` and scaling `mul`
    /// remember `mean`). Not part of the text form or of equality.
    original_ops: HashMap<NodeId, OpKind>,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Graph {
        Graph::default()
    }

    /// Appends a node at the end of the program order. The caller is responsible for its meta
    /// being right; [`crate::GraphBuilder`] infers it.
    pub fn push(&mut self, node: Node) -> NodeId {
        let is_input = matches!(node.kind, NodeKind::Input);
        let id = self.arena.alloc(node);
        self.order.push(id);
        if is_input {
            self.inputs.push(id);
        }
        id
    }

    /// Sets the values the graph returns.
    pub fn set_outputs(&mut self, outputs: Vec<NodeId>) {
        self.outputs = outputs;
    }

    /// The node behind an id.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.arena[id]
    }

    /// Mutable access to a node (passes use it to rewrite arguments).
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.arena[id]
    }

    /// Nodes in program order.
    pub fn order(&self) -> &[NodeId] {
        &self.order
    }

    /// Nodes with their ids, in program order.
    pub fn nodes(&self) -> impl Iterator<Item = (NodeId, &Node)> + '_ {
        self.order.iter().map(move |&id| (id, &self.arena[id]))
    }

    /// The graph inputs, in signature order.
    pub fn inputs(&self) -> &[NodeId] {
        &self.inputs
    }

    /// The returned values, in order.
    pub fn outputs(&self) -> &[NodeId] {
        &self.outputs
    }

    /// The number of statements (inputs included).
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True when the graph has no nodes.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The op the node stood for before a pass rewrote it (Inductor's `original_aten`): the
    /// annotation [`Graph::set_original_op`] left, else the node's own op kind (`None` for
    /// inputs and `getitem`). Kernel names are made of these.
    pub fn original_op(&self, id: NodeId) -> Option<OpKind> {
        self.original_ops
            .get(&id)
            .copied()
            .or_else(|| match &self.arena[id].kind {
                NodeKind::Call(c) => Some(c.op.kind()),
                _ => None,
            })
    }

    /// Records that `id` computes (part of) what an op of kind `op` computed before a pass
    /// rewrote it. Passes call this for the nodes a decomposition or rewrite creates.
    pub fn set_original_op(&mut self, id: NodeId, op: OpKind) {
        self.original_ops.insert(id, op);
    }

    /// Finds a node by name.
    pub fn find(&self, name: &str) -> Option<NodeId> {
        self.order
            .iter()
            .copied()
            .find(|&id| self.arena[id].name == name)
    }

    /// The node whose result holds `id`'s elements in eager's memory: `id` itself, or the
    /// first node behind its chain of views (`view`, `permute`, `slice`, a split's outputs,
    /// ...; a `reshape` only where PyTorch's would not copy). In coil's model every other
    /// node's result is its own contiguous storage, so an `as_strided` of `id` reads this
    /// node's elements in row-major order.
    pub fn storage_base(&self, mut id: NodeId) -> NodeId {
        loop {
            let node = &self.arena[id];
            let next = match &node.kind {
                NodeKind::Call(call) if call.op.kind().class() == crate::OpClass::View => {
                    let Ok(b) = call.op.schema().bind(&call.args, &call.kwargs) else {
                        return id;
                    };
                    let Ok(src) = b.tensor("self") else {
                        return id;
                    };
                    let from = self.arena[src].meta();
                    if call.op.kind() == OpKind::Reshape
                        && crate::view_strides(&from.sizes, &from.strides, &node.meta().sizes)
                            .is_none()
                    {
                        return id; // a copy
                    }
                    src
                }
                NodeKind::GetItem { source, .. }
                    if matches!(&self.arena[*source].kind,
                        NodeKind::Call(c) if c.op.kind().class() == crate::OpClass::View) =>
                {
                    *source
                }
                _ => return id,
            };
            id = next;
        }
    }

    /// Position of each node in program order, indexed by `NodeId::index()`.
    pub fn positions(&self) -> Vec<usize> {
        let mut pos = vec![usize::MAX; self.arena.len()];
        for (i, id) in self.order.iter().enumerate() {
            pos[id.index()] = i;
        }
        pos
    }

    /// For each node (by `NodeId::index()`), the nodes that read it, in program order.
    pub fn users(&self) -> Vec<Vec<NodeId>> {
        let mut users = vec![Vec::new(); self.arena.len()];
        for (id, node) in self.nodes() {
            let mut seen = node.inputs();
            seen.dedup();
            for src in seen {
                if users[src.index()].last() != Some(&id) {
                    users[src.index()].push(id);
                }
            }
        }
        users
    }

    /// A copy of the graph keeping only the nodes an output depends on (graph inputs are
    /// always kept: they are the signature).
    pub fn without_dead_code(&self) -> Graph {
        let mut live = vec![false; self.arena.len()];
        let mut stack: Vec<NodeId> = self.outputs.clone();
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut live[id.index()], true) {
                continue;
            }
            stack.extend(self.arena[id].inputs());
        }
        self.filtered(|id, node| live[id.index()] || matches!(node.kind, NodeKind::Input))
    }

    /// A copy that computes in `to` wherever this graph computes in `from`: every input and
    /// result of dtype `from` becomes `to`, and so does every `dtype=` argument naming `from`.
    /// Run with the inputs cast the same way, it is a reference of higher precision (f32 to
    /// f64): each value's dtype is its meta's, so results an op would make f32 by default (a
    /// float `arange` with no `dtype`) are f64 here too.
    pub fn with_dtype_replaced(&self, from: DType, to: DType) -> Graph {
        let mut g = self.clone();
        for &id in &self.order {
            let node = g.node_mut(id);
            for meta in &mut node.outputs {
                if meta.dtype == from {
                    meta.dtype = to;
                }
            }
            if let NodeKind::Call(c) = &mut node.kind {
                let args = c.args.iter_mut().chain(c.kwargs.iter_mut().map(|(_, a)| a));
                args.for_each(|a| a.replace_dtype(from, to));
            }
        }
        g
    }

    /// The same computation run in `to` where this graph runs in `from` (an f32 model in
    /// bf16): inputs of dtype `from` and `dtype=` arguments naming it become `to`, and every
    /// result's meta is inferred again, so each op's own dtype rules hold (a 16-bit batch
    /// norm's saved statistics stay f32). An op that refuses the new dtype is an error.
    pub fn cast_to(&self, from: DType, to: DType) -> Result<Graph, GraphError> {
        let mut g = self.clone();
        for &id in &self.order {
            let node = g.node_mut(id);
            if let NodeKind::Call(c) = &mut node.kind {
                let args = c.args.iter_mut().chain(c.kwargs.iter_mut().map(|(_, a)| a));
                args.for_each(|a| a.replace_dtype(from, to));
            }
        }
        for &id in &self.order {
            let outputs = match &g.node(id).kind {
                NodeKind::Input => g
                    .node(id)
                    .outputs
                    .iter()
                    .map(|m| TensorMeta {
                        dtype: if m.dtype == from { to } else { m.dtype },
                        ..m.clone()
                    })
                    .collect(),
                NodeKind::Call(c) => {
                    crate::infer_call(&g, c).map_err(|e| e.at_node(&g.node(id).name, None))?
                }
                NodeKind::GetItem { source, index } => {
                    vec![g.node(*source).outputs[*index].clone()]
                }
            };
            g.node_mut(id).outputs = outputs;
        }
        crate::verify(&g)?;
        Ok(g)
    }

    /// A copy with the nodes `keep` accepts, in the same order; references are remapped.
    /// Every node a kept node reads must be kept too.
    fn filtered(&self, mut keep: impl FnMut(NodeId, &Node) -> bool) -> Graph {
        let mut g = Graph::new();
        let mut map: Vec<Option<NodeId>> = vec![None; self.arena.len()];
        for (id, node) in self.nodes() {
            if !keep(id, node) {
                continue;
            }
            let mut remap = |n: NodeId| map[n.index()].expect("kept node reads a dropped node");
            let kind = match &node.kind {
                NodeKind::Input => NodeKind::Input,
                NodeKind::Call(c) => NodeKind::Call(Call {
                    op: c.op,
                    args: c.args.iter().map(|a| a.map_nodes(&mut remap)).collect(),
                    kwargs: c
                        .kwargs
                        .iter()
                        .map(|(k, a)| (k.clone(), a.map_nodes(&mut remap)))
                        .collect(),
                }),
                NodeKind::GetItem { source, index } => NodeKind::GetItem {
                    source: remap(*source),
                    index: *index,
                },
            };
            let new = g.push(Node {
                kind,
                ..node.clone()
            });
            map[id.index()] = Some(new);
        }
        g.original_ops = self
            .original_ops
            .iter()
            .filter_map(|(n, k)| map[n.index()].map(|n| (n, *k)))
            .collect();
        g.outputs = self
            .outputs
            .iter()
            .map(|o| map[o.index()].expect("output kept"))
            .collect();
        g
    }

    /// The structure of the graph with ids replaced by program positions, for comparisons
    /// between graphs built separately.
    fn canonical(&self) -> Vec<String> {
        let pos = self.positions();
        let canon_arg = |a: &Arg| -> String {
            fn go(a: &Arg, pos: &[usize], out: &mut String) {
                match a {
                    Arg::Node(n) => out.push_str(&format!("#{}", pos[n.index()])),
                    Arg::Float(x) => out.push_str(&format!("f{:x}", x.to_bits())),
                    Arg::List(items) => {
                        out.push('[');
                        items.iter().for_each(|i| {
                            go(i, pos, out);
                            out.push(',')
                        });
                        out.push(']');
                    }
                    other => out.push_str(&format!("{other:?}")),
                }
            }
            let mut s = String::new();
            go(a, &pos, &mut s);
            s
        };
        let mut out: Vec<String> = self
            .nodes()
            .map(|(_, n)| {
                let kind = match &n.kind {
                    NodeKind::Input => "input".to_string(),
                    NodeKind::Call(c) => {
                        let args: Vec<String> = c.args.iter().map(canon_arg).collect();
                        let kwargs: Vec<String> = c
                            .kwargs
                            .iter()
                            .map(|(k, a)| format!("{k}={}", canon_arg(a)))
                            .collect();
                        format!("{}({}; {})", c.op, args.join(","), kwargs.join(","))
                    }
                    NodeKind::GetItem { source, index } => {
                        format!("#{}[{index}]", pos[source.index()])
                    }
                };
                format!("{} = {kind} {:?} {}", n.name, n.outputs, n.multi_output)
            })
            .collect();
        out.push(format!(
            "outputs {:?}",
            self.outputs
                .iter()
                .map(|o| pos[o.index()])
                .collect::<Vec<_>>()
        ));
        out
    }
}

/// Graphs are equal when they have the same statements in the same order (ids aside).
impl PartialEq for Graph {
    fn eq(&self, other: &Graph) -> bool {
        self.canonical() == other.canonical()
    }
}

impl fmt::Display for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::print::print_graph(self))
    }
}
