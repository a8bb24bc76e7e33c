//! DAG-aware extraction. A term's cost is the sum of the own costs of the *distinct* e-classes
//! it uses, so a value used twice is paid for once (egg's tree extractor would pay twice and
//! prefer recomputation). Greedy bottom-up over cost sets, with a cycle check per candidate.

use std::collections::{BTreeMap, HashMap};

use coil_graph::{OpClass, OpKind};
use egg::{Id, Language};

use crate::analysis::{AtenGraph, Value};
use crate::lang::Aten;

/// What extraction pays for an e-node.
pub trait CostModel {
    /// The cost of the node itself (children excluded); `f64::INFINITY` forbids it.
    fn own_cost(&self, egraph: &AtenGraph, enode: &Aten) -> f64;
}

/// Memory traffic: the bytes a materialised result writes, plus a small per-op cost so that
/// fewer ops win ties. Views, literals, inputs and `getitem` are free; composite ops are
/// forbidden when decomposition is on (the scheduler can only fuse what is decomposed).
pub struct BytesCost {
    /// Forbid `_softmax`, `native_layer_norm`, ... (decomposition on).
    pub forbid_composite: bool,
    /// Ops that must not survive (their decomposition is on).
    pub forbidden: Vec<OpKind>,
}

/// The per-op cost, in bytes-equivalent.
pub const PER_OP_COST: f64 = 1.0;

impl CostModel for BytesCost {
    fn own_cost(&self, egraph: &AtenGraph, enode: &Aten) -> f64 {
        let Aten::Call(op, children) = enode else {
            return 0.0;
        };
        // An e-node is valid only if its arguments type-check.
        let values: Vec<&Value> = children.iter().map(|&c| &egraph[c].data.value).collect();
        let Ok(outs) = crate::analysis::infer_from_values(*op, &values) else {
            return f64::INFINITY;
        };
        let kind = op.kind();
        if self.forbidden.contains(&kind)
            || (self.forbid_composite && kind.class() == OpClass::Composite)
        {
            return f64::INFINITY;
        }
        match kind.class() {
            OpClass::View => PER_OP_COST,
            _ => outs.iter().map(|m| m.nbytes() as f64).sum::<f64>() + PER_OP_COST,
        }
    }
}

/// The chosen e-node per reachable class, and the DAG cost of the roots.
pub struct Extraction {
    /// One e-node per canonical e-class.
    pub choice: HashMap<Id, Aten>,
    /// Total own cost of the distinct classes the roots use.
    pub cost: f64,
}

/// Extracts the cheapest DAG for `roots`.
pub fn extract(egraph: &AtenGraph, roots: &[Id], model: &dyn CostModel) -> Option<Extraction> {
    // Per class: (own costs of every class in the term, keyed by class) and the chosen node.
    let mut best: HashMap<Id, (BTreeMap<Id, f64>, f64, Aten)> = HashMap::new();
    let own: HashMap<(Id, usize), f64> = egraph
        .classes()
        .flat_map(|c| {
            c.nodes
                .iter()
                .enumerate()
                .map(move |(i, n)| ((c.id, i), model.own_cost(egraph, n)))
        })
        .collect();
    let max_rounds = egraph.number_of_classes() + 2;
    for _ in 0..max_rounds {
        let mut changed = false;
        for class in egraph.classes() {
            for (i, node) in class.nodes.iter().enumerate() {
                let c = own[&(class.id, i)];
                if !c.is_finite() {
                    continue;
                }
                let mut set: BTreeMap<Id, f64> = BTreeMap::new();
                let mut ok = true;
                for child in node.children() {
                    let child = egraph.find(*child);
                    match best.get(&child) {
                        Some((s, _, _)) if !s.contains_key(&class.id) => {
                            set.extend(s.iter().map(|(k, v)| (*k, *v)));
                        }
                        _ => {
                            ok = false;
                            break;
                        }
                    }
                }
                if !ok {
                    continue;
                }
                set.insert(class.id, c);
                let total: f64 = set.values().sum();
                let better = match best.get(&class.id) {
                    None => true,
                    Some((_, old, _)) => total < *old - 1e-9,
                };
                if better {
                    best.insert(class.id, (set, total, node.clone()));
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut choice = HashMap::new();
    let mut stack: Vec<Id> = roots.iter().map(|&r| egraph.find(r)).collect();
    let mut cost = 0.0;
    while let Some(c) = stack.pop() {
        if choice.contains_key(&c) {
            continue;
        }
        let (_, _, node) = best.get(&c)?;
        let i = egraph[c].nodes.iter().position(|n| n == node)?;
        cost += own[&(c, i)];
        stack.extend(node.children().iter().map(|&k| egraph.find(k)));
        choice.insert(c, node.clone());
    }
    Some(Extraction { choice, cost })
}

/// The DAG cost of a fixed choice (used to price the input graph itself).
pub(crate) fn choice_cost(
    egraph: &AtenGraph,
    choice: &HashMap<Id, Aten>,
    model: &dyn CostModel,
) -> f64 {
    choice.values().map(|n| model.own_cost(egraph, n)).sum()
}
