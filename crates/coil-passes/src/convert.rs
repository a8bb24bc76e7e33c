//! Graph -> e-graph (every call in full positional form) and e-graph -> Graph (from an
//! extraction, reusing the input graph's names where a value is unchanged).

use std::collections::{HashMap, HashSet};

use coil_graph::{Arg, Call, Graph, GraphError, Node, NodeId, NodeKind, OpRef};
use egg::{Id, Language};

use crate::analysis::{AtenGraph, MetaAnalysis};
use crate::lang::{Aten, Lit};

/// A graph loaded into an e-graph.
pub(crate) struct Loaded {
    /// The e-graph.
    pub egraph: AtenGraph,
    /// The e-class of each graph output.
    pub outputs: Vec<Id>,
    /// The original e-node of every call, with its node's name (for name reuse) and the op it
    /// stands for (its own, or the one a previous pass recorded; see
    /// [`Graph::original_op`]).
    pub original: Vec<(Aten, String, Option<coil_graph::OpKind>)>,
}

/// Adds every node of `graph` to a fresh e-graph.
pub(crate) fn to_egraph(
    graph: &Graph,
    fold_max_numel: Option<usize>,
) -> Result<Loaded, GraphError> {
    let inputs = graph
        .inputs()
        .iter()
        .map(|&i| graph.node(i).meta().clone())
        .collect();
    let mut egraph = AtenGraph::new(MetaAnalysis {
        inputs,
        fold_max_numel,
    });
    let mut class: HashMap<NodeId, Id> = HashMap::new();
    let mut original = Vec::new();
    let mut input_no = 0u32;
    for (id, node) in graph.nodes() {
        let enode = match &node.kind {
            NodeKind::Input => {
                input_no += 1;
                Aten::Input(input_no - 1)
            }
            NodeKind::GetItem { source, index } => Aten::GetItem(*index as u32, [class[source]]),
            NodeKind::Call(call) => {
                let bound = call.op.schema().bind(&call.args, &call.kwargs)?;
                let children = call
                    .op
                    .schema()
                    .params
                    .iter()
                    .map(|p| add_arg(&mut egraph, &class, bound.get(&p.name)))
                    .collect::<Vec<_>>();
                Aten::Call(call.op, children.into())
            }
        };
        if !matches!(node.kind, NodeKind::Input) {
            // A `getitem` stands for the multi-output op it reads (`native_layer_norm`).
            let op = graph.original_op(id).or_else(|| match node.kind {
                NodeKind::GetItem { source, .. } => graph.original_op(source),
                _ => None,
            });
            original.push((enode.clone(), node.name.clone(), op));
        }
        class.insert(id, egraph.add(enode));
    }
    egraph.rebuild();
    let outputs = graph.outputs().iter().map(|o| class[o]).collect();
    Ok(Loaded {
        egraph,
        outputs,
        original,
    })
}

fn add_arg(egraph: &mut AtenGraph, class: &HashMap<NodeId, Id>, arg: &Arg) -> Id {
    match arg {
        Arg::Node(n) => class[n],
        Arg::List(items) => {
            let ids: Vec<Id> = items.iter().map(|a| add_arg(egraph, class, a)).collect();
            egraph.add(Aten::List(ids.into()))
        }
        other => egraph.add(Aten::Lit(
            Lit::from_arg(other).expect("non-node, non-list args are literals"),
        )),
    }
}

/// Builds a graph from a choice of one e-node per needed e-class.
///
/// Every emitted call remembers the op it stands for (Inductor's `original_aten`): a class
/// that held a call of the input graph stands for that call's op, and a class the rewrites
/// created (the `sum` inside a decomposed `mean`) stands for the op of the input-graph class
/// whose emission needed it first.
pub(crate) fn from_choice(
    egraph: &AtenGraph,
    choice: &HashMap<Id, Aten>,
    outputs: &[Id],
    input_names: &[(String, coil_graph::TensorMeta)],
    original: &[(Aten, String, Option<coil_graph::OpKind>)],
) -> Result<Graph, GraphError> {
    let mut b = Emitter {
        egraph,
        choice,
        graph: Graph::new(),
        emitted: HashMap::new(),
        names: HashSet::new(),
        reuse: HashMap::new(),
        counters: HashMap::new(),
        class_op: HashMap::new(),
    };
    for (enode, _, op) in original {
        if let (Some(id), Some(op)) = (egraph.lookup(enode.clone()), op) {
            b.class_op.entry(egraph.find(id)).or_insert(*op);
        }
    }
    // A value the extraction kept exactly as it was keeps its name; reserve those names first
    // so that new values cannot take them.
    for (enode, name, _) in original {
        let canon = enode.clone().map_children(|c| egraph.find(c));
        let kept = egraph
            .lookup(enode.clone())
            .is_some_and(|id| choice.get(&egraph.find(id)) == Some(&canon));
        if kept && !b.reuse.contains_key(&canon) && b.names.insert(name.clone()) {
            b.reuse.insert(canon, name.clone());
        }
    }
    for (i, (name, meta)) in input_names.iter().enumerate() {
        let id = b.graph.push(Node {
            name: name.clone(),
            kind: NodeKind::Input,
            outputs: vec![meta.clone()],
            multi_output: false,
        });
        b.names.insert(name.clone());
        b.emitted.insert(InputKey::Input(i as u32), id);
    }
    // Emit every tensor class the outputs reach, operands first, without recursing over the
    // graph's depth (a chain of thousands of ops would overflow the stack).
    for (class, stands_for) in b.emission_order(outputs)? {
        b.emit(class, stands_for)?;
    }
    let outs = outputs
        .iter()
        .map(|&o| b.tensor(o))
        .collect::<Result<Vec<_>, _>>()?;
    b.graph.set_outputs(outs);
    Ok(b.graph)
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum InputKey {
    Input(u32),
    Class(Id),
}

struct Emitter<'a> {
    egraph: &'a AtenGraph,
    choice: &'a HashMap<Id, Aten>,
    graph: Graph,
    emitted: HashMap<InputKey, NodeId>,
    names: HashSet<String>,
    reuse: HashMap<Aten, String>,
    counters: HashMap<String, usize>,
    /// The op each class of the input graph stands for.
    class_op: HashMap<Id, coil_graph::OpKind>,
}

/// A class on the emission order's depth-first walk: its tensor operands and the next to
/// visit, and the op it stands for (its own, or the innermost input-graph class above it).
struct Frame {
    class: Id,
    operands: Vec<Id>,
    next: usize,
    stands_for: Option<coil_graph::OpKind>,
}

impl Emitter<'_> {
    fn chosen(&self, class: Id) -> Result<&Aten, GraphError> {
        let class = self.egraph.find(class);
        self.choice.get(&class).ok_or_else(|| {
            GraphError::Invalid(format!("extraction chose nothing for e-class {class}"))
        })
    }

    fn fresh(&mut self, base: &str) -> String {
        loop {
            let n = self.counters.entry(base.to_string()).or_insert(0);
            let name = if *n == 0 {
                base.to_string()
            } else {
                format!("{base}_{n}")
            };
            *n += 1;
            if self.names.insert(name.clone()) {
                return name;
            }
        }
    }

    /// The node of an emitted tensor-valued class.
    fn tensor(&mut self, class: Id) -> Result<NodeId, GraphError> {
        let class = self.egraph.find(class);
        self.emitted
            .get(&InputKey::Class(class))
            .copied()
            .ok_or_else(|| {
                GraphError::Invalid(format!("e-class {class} used before it is emitted"))
            })
    }

    /// The tensor classes an e-node reads, in argument order (through lists).
    fn operands(&self, enode: &Aten) -> Result<Vec<Id>, GraphError> {
        let mut out = Vec::new();
        let mut todo: Vec<Id> = match enode {
            Aten::Call(_, children) => children.iter().rev().copied().collect(),
            Aten::GetItem(_, [src]) => vec![*src],
            Aten::Input(_) | Aten::Lit(_) | Aten::List(_) => vec![],
        };
        while let Some(c) = todo.pop() {
            match self.chosen(c)? {
                Aten::Lit(_) => {}
                Aten::List(items) => todo.extend(items.iter().rev().copied()),
                _ => out.push(self.egraph.find(c)),
            }
        }
        Ok(out)
    }

    /// Every tensor class the outputs reach, each after its operands, with the op it stands
    /// for: its own when it held a call of the input graph, else that of the innermost such
    /// class whose walk reached it first (a depth-first walk with an explicit stack, in the
    /// order a recursive emission would take).
    fn emission_order(
        &self,
        outputs: &[Id],
    ) -> Result<Vec<(Id, Option<coil_graph::OpKind>)>, GraphError> {
        let mut order = Vec::new();
        let mut done: HashSet<Id> = HashSet::new();
        let mut on_stack: HashSet<Id> = HashSet::new();
        let mut stack: Vec<Frame> = Vec::new();
        for &o in outputs {
            self.enter(&mut stack, &done, &mut on_stack, o, None)?;
            while let Some(top) = stack.last_mut() {
                if let Some(&c) = top.operands.get(top.next) {
                    top.next += 1;
                    let above = top.stands_for;
                    self.enter(&mut stack, &done, &mut on_stack, c, above)?;
                    continue;
                }
                let Some(frame) = stack.pop() else { break };
                on_stack.remove(&frame.class);
                done.insert(frame.class);
                order.push((frame.class, frame.stands_for));
            }
        }
        Ok(order)
    }

    /// Pushes `class` on the walk's stack unless it is done (a class on the stack again is a
    /// cycle).
    fn enter(
        &self,
        stack: &mut Vec<Frame>,
        done: &HashSet<Id>,
        on_stack: &mut HashSet<Id>,
        class: Id,
        above: Option<coil_graph::OpKind>,
    ) -> Result<(), GraphError> {
        let class = self.egraph.find(class);
        if done.contains(&class) {
            return Ok(());
        }
        if !on_stack.insert(class) {
            return Err(GraphError::Invalid("extraction produced a cycle".into()));
        }
        let enode = self.chosen(class)?;
        if matches!(enode, Aten::Lit(_) | Aten::List(_)) {
            return Err(GraphError::Invalid(format!(
                "e-class {class} is used as a tensor but holds {enode}"
            )));
        }
        stack.push(Frame {
            class,
            operands: self.operands(enode)?,
            next: 0,
            stands_for: self.class_op.get(&class).copied().or(above),
        });
        Ok(())
    }

    /// Emits one tensor-valued class whose operands are emitted; `stands_for` is the op of the
    /// input graph it stands for (its kernel's name).
    fn emit(
        &mut self,
        class: Id,
        stands_for: Option<coil_graph::OpKind>,
    ) -> Result<NodeId, GraphError> {
        let class = self.egraph.find(class);
        if let Some(&id) = self.emitted.get(&InputKey::Class(class)) {
            return Ok(id);
        }
        let enode = self.chosen(class)?.clone();
        let canon = enode.clone().map_children(|c| self.egraph.find(c));
        let id = match &enode {
            Aten::Input(i) => self.emitted[&InputKey::Input(*i)],
            Aten::GetItem(i, [src]) => {
                let src = self.tensor(*src)?;
                let name = self.name_for(&canon, "getitem");
                let meta = self.graph.node(src).outputs[*i as usize].clone();
                self.graph.push(Node {
                    name,
                    kind: NodeKind::GetItem {
                        source: src,
                        index: *i as usize,
                    },
                    outputs: vec![meta],
                    multi_output: false,
                })
            }
            Aten::Call(op, children) => {
                let mut args = Vec::new();
                let mut kwargs = Vec::new();
                let values = children
                    .iter()
                    .map(|&c| self.arg(c))
                    .collect::<Result<Vec<_>, _>>()?;
                split_args(*op, values, &mut args, &mut kwargs);
                let call = Call {
                    op: *op,
                    args,
                    kwargs,
                };
                let outputs = coil_graph::infer_call(&self.graph, &call)?;
                let name = self.name_for(&canon, &op.schema().name);
                let multi_output = op.schema().returns != coil_graph::Returns::Tensor;
                let id = self.graph.push(Node {
                    name,
                    kind: NodeKind::Call(call),
                    outputs,
                    multi_output,
                });
                if let Some(orig) = stands_for.filter(|o| *o != op.kind()) {
                    self.graph.set_original_op(id, orig);
                }
                id
            }
            Aten::Lit(_) | Aten::List(_) => {
                return Err(GraphError::Invalid(format!(
                    "e-class {class} is used as a tensor but holds {enode}"
                )));
            }
        };
        self.emitted.insert(InputKey::Class(class), id);
        Ok(id)
    }

    fn name_for(&mut self, canon: &Aten, base: &str) -> String {
        match self.reuse.remove(canon) {
            Some(reserved) => reserved,
            None => self.fresh(base.trim_start_matches('_')),
        }
    }

    /// Converts an argument class to an `Arg`, emitting tensors it refers to.
    fn arg(&mut self, class: Id) -> Result<Arg, GraphError> {
        match self.chosen(class)?.clone() {
            Aten::Lit(l) => Ok(l.to_arg()),
            Aten::List(items) => Ok(Arg::List(
                items
                    .iter()
                    .map(|&c| self.arg(c))
                    .collect::<Result<_, _>>()?,
            )),
            _ => Ok(Arg::Node(self.tensor(class)?)),
        }
    }
}

/// Writes arguments as FX does: positional parameters up to the last one that differs from
/// its default, keyword-only parameters as keywords when they differ from their default.
pub(crate) fn split_args(
    op: OpRef,
    values: Vec<Arg>,
    args: &mut Vec<Arg>,
    kwargs: &mut Vec<(String, Arg)>,
) {
    let params = &op.schema().params;
    let is_default = |i: usize, v: &Arg| params[i].default.as_ref() == Some(v);
    let last_positional = params
        .iter()
        .enumerate()
        .filter(|(i, p)| !p.kw_only && !is_default(*i, &values[*i]))
        .map(|(i, _)| i + 1)
        .max()
        .unwrap_or(0);
    for (i, v) in values.into_iter().enumerate() {
        if params[i].kw_only {
            if !is_default(i, &v) {
                kwargs.push((params[i].name.clone(), v));
            }
        } else if i < last_positional {
            args.push(v);
        }
    }
}
