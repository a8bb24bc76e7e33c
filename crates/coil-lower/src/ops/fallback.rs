//! Host fallbacks (Inductor's `make_fallback`): an op with an eager implementation but no
//! lowering becomes one extern kernel per output it is read for, running a one-call graph of
//! the op on the host through coil-eager. Logged at target `fallback`.

use std::collections::HashMap;
use std::sync::Arc;

use coil_graph::{Arg, Call, GraphBuilder, Node, NodeId, NodeKind};

use crate::ir::{ExternKind, HostOp, TensorId};
use crate::lowering::{Lowerer, Result};

impl Lowerer<'_> {
    /// Lowers `call` as a host fallback: its tensor operands are realized, each output that is
    /// read becomes an extern buffer; an output nobody reads is a lazy zero that is never
    /// realized.
    pub(super) fn lower_fallback(&mut self, node: &Node, call: &Call) -> Result<Vec<TensorId>> {
        // The op's tensor operands, in first-use order.
        let mut operands: Vec<NodeId> = Vec::new();
        call.args.iter().for_each(|a| a.nodes(&mut operands));
        call.kwargs.iter().for_each(|(_, a)| a.nodes(&mut operands));
        let mut seen = std::collections::HashSet::new();
        operands.retain(|n| seen.insert(*n));
        let values: Vec<TensorId> = operands
            .iter()
            .map(|&n| self.value(n, &node.name))
            .collect::<Result<_>>()?;

        let mut b = GraphBuilder::new();
        let mut remap: HashMap<NodeId, NodeId> = HashMap::new();
        for (i, (&n, &t)) in operands.iter().zip(&values).enumerate() {
            let tb = &self.g.tensors[t];
            let id = b.input(&format!("arg{i}"), tb.dtype, &tb.sizes.clone());
            remap.insert(n, id);
        }
        let remapped = Call {
            op: call.op,
            args: call.args.iter().map(|a| remap_arg(a, &remap)).collect(),
            kwargs: call
                .kwargs
                .iter()
                .map(|(k, a)| (k.clone(), remap_arg(a, &remap)))
                .collect(),
        };
        let id = b
            .push_call(remapped)
            .map_err(|e| Self::graph_err(node, e))?;
        let outputs = node.outputs.len();
        let used = self.used_outputs(node, outputs);
        tracing::debug!(target: "fallback", node = %node.name, op = %call.op, "runs on the host");
        let mut result = Vec::with_capacity(outputs);
        for (k, meta) in node.outputs.iter().enumerate() {
            if !used[k] {
                result.push(self.zeros_of(node, meta));
                continue;
            }
            let mut bk = GraphBuilder::from_graph(b.graph().clone());
            let out = if node.multi_output {
                bk.getitem(id, k).map_err(|e| Self::graph_err(node, e))?
            } else {
                id
            };
            let graph = bk.finish(&[out]).map_err(|e| Self::graph_err(node, e))?;
            let text: Arc<str> = coil_graph::print_graph(&graph).into();
            let host = HostOp {
                node: node.name.as_str().into(),
                op: call.op.to_string().into(),
                output: k,
                inputs: graph.inputs().len(),
                program: Arc::new(graph),
                text,
            };
            result.push(self.extern_kernel(
                node,
                ExternKind::Fallback(host),
                &values,
                meta.sizes.clone(),
                meta.dtype,
            ));
        }
        Ok(result)
    }

    /// Which of a node's outputs some node reads (all of them for a single-output node).
    pub(super) fn used_outputs(&self, node: &Node, outputs: usize) -> Vec<bool> {
        if !node.multi_output {
            return vec![true; outputs];
        }
        let Some(me) = self.graph.find(&node.name) else {
            return vec![true; outputs];
        };
        let mut used = vec![false; outputs];
        for (_, n) in self.graph.nodes() {
            if let NodeKind::GetItem { source, index } = n.kind
                && source == me
                && index < outputs
            {
                used[index] = true;
            }
        }
        used
    }
}

fn remap_arg(a: &Arg, remap: &HashMap<NodeId, NodeId>) -> Arg {
    match a {
        Arg::Node(n) => Arg::Node(remap.get(n).copied().unwrap_or(*n)),
        Arg::List(items) => Arg::List(items.iter().map(|i| remap_arg(i, remap)).collect()),
        other => other.clone(),
    }
}
