//! DAG-aware extraction. A term's cost is the sum of the own costs of the *distinct* e-classes
//! it uses, so a value used twice is paid for once (egg's tree extractor would pay twice and
//! prefer recomputation). Greedy bottom-up over cost sets, with a cycle check per candidate, on
//! a worklist of classes whose children got cheaper.

use std::collections::{HashMap, HashSet, VecDeque};

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
/// fewer ops win ties. Views, literals, inputs and `getitem` are free of bytes. Ops whose
/// decomposition is on pay [`DECOMPOSED_PENALTY`], so they survive only where no rule could
/// decompose them (the scheduler can only fuse what is decomposed).
pub struct BytesCost {
    /// Ops that should not survive (their decomposition is on).
    pub decomposed: Vec<OpKind>,
}

/// The per-op cost, in bytes-equivalent.
pub const PER_OP_COST: f64 = 1.0;

/// What keeping an op that has a decomposition costs: more than any real graph moves, and
/// finite, so that an op no rule could decompose (a half-precision softmax) is still
/// extractable.
pub const DECOMPOSED_PENALTY: f64 = 1e15;

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
        let penalty = if self.decomposed.contains(&kind) {
            DECOMPOSED_PENALTY
        } else {
            0.0
        };
        let own = match kind.class() {
            OpClass::View => PER_OP_COST,
            _ => outs.iter().map(|m| m.nbytes() as f64).sum::<f64>() + PER_OP_COST,
        };
        penalty + own
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
    extract_until(egraph, roots, model, None)
}

/// [`extract`], giving up (`None`, logged at target `passes`) once `deadline` has passed: the
/// pass stage's time limit bounds extraction too.
pub fn extract_until(
    egraph: &AtenGraph,
    roots: &[Id],
    model: &dyn CostModel,
    deadline: Option<std::time::Instant>,
) -> Option<Extraction> {
    // Per class: (own costs of every class in the term, sorted by class), its total and the
    // chosen node.
    let mut best: HashMap<Id, (CostSet, f64, Aten)> = HashMap::new();
    let own: HashMap<(Id, usize), f64> = egraph
        .classes()
        .flat_map(|c| {
            c.nodes
                .iter()
                .enumerate()
                .map(move |(i, n)| ((c.id, i), model.own_cost(egraph, n)))
        })
        .collect();
    // A worklist: every class once, children before parents (a post-order walk: a class that
    // a rewrite gave new children is visited after them, so its best term is found on the
    // first visit and nothing above it is visited again for it; visiting in id order instead
    // made a chain of 500 decomposed softmaxes take seconds), then again each time a child's
    // best term got cheaper. Each update lowers a class's cost, so the list runs dry.
    let ids = children_first(egraph);
    let mut queued: HashSet<Id> = ids.iter().copied().collect();
    let mut queue: VecDeque<Id> = ids.into();
    // Each visit that changes something lowers a class's total, so the list runs dry; the
    // budget (what the round-based fixpoint this replaced allowed: every class, once per
    // round, for as many rounds as classes plus two) only bounds a pathological e-graph.
    let n = egraph.number_of_classes();
    let mut budget = (n + 2).saturating_mul(n);
    let mut visits = 0usize;
    while let Some(id) = queue.pop_front() {
        if budget == 0 {
            tracing::warn!(target: "passes", "extraction stopped at its visit budget");
            break;
        }
        budget -= 1;
        visits += 1;
        if visits % 1024 == 1 && deadline.is_some_and(|d| std::time::Instant::now() > d) {
            tracing::warn!(target: "passes", "extraction stopped at the passes' time limit");
            return None;
        }
        queued.remove(&id);
        let class = &egraph[id];
        let mut changed = false;
        for (i, node) in class.nodes.iter().enumerate() {
            let c = own[&(class.id, i)];
            if !c.is_finite() {
                continue;
            }
            let mut set: CostSet = vec![(class.id, c)];
            let mut ok = true;
            for child in node.children() {
                let child = egraph.find(*child);
                match best.get(&child) {
                    Some((s, _, _)) if s.binary_search_by_key(&class.id, |e| e.0).is_err() => {
                        set = union(&set, s);
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
            let total: f64 = set.iter().map(|e| e.1).sum();
            let better = match best.get(&class.id) {
                None => true,
                Some((_, old, _)) => total < *old - 1e-9,
            };
            if better {
                best.insert(class.id, (set, total, node.clone()));
                changed = true;
            }
        }
        if changed {
            for parent in class.parents() {
                let parent = egraph.find(parent);
                if queued.insert(parent) {
                    queue.push_back(parent);
                }
            }
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

/// Every class, each after the classes its nodes' children are in (a depth-first post-order
/// from every class in id order; on a cycle, the class met first comes later).
fn children_first(egraph: &AtenGraph) -> Vec<Id> {
    let mut ids: Vec<Id> = egraph.classes().map(|c| c.id).collect();
    ids.sort_unstable();
    let mut order = Vec::with_capacity(ids.len());
    let mut seen: HashSet<Id> = HashSet::with_capacity(ids.len());
    for &start in &ids {
        if !seen.insert(start) {
            continue;
        }
        // (class, its children, the next to visit)
        let kids = |c: Id| -> Vec<Id> {
            egraph[c]
                .nodes
                .iter()
                .flat_map(|n| n.children().iter().map(|&k| egraph.find(k)))
                .collect()
        };
        let mut stack: Vec<(Id, Vec<Id>, usize)> = vec![(start, kids(start), 0)];
        while let Some((c, children, next)) = stack.last_mut() {
            if let Some(&k) = children.get(*next) {
                *next += 1;
                if seen.insert(k) {
                    let grandkids = kids(k);
                    stack.push((k, grandkids, 0));
                }
                continue;
            }
            order.push(*c);
            stack.pop();
        }
    }
    order
}

/// The classes of a term with the own cost of each one's chosen node, sorted by class.
type CostSet = Vec<(Id, f64)>;

/// `a` and `b` merged (a class in both keeps `a`'s cost: the node's own class, put first,
/// keeps its new cost).
fn union(a: &[(Id, f64)], b: &[(Id, f64)]) -> CostSet {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The DAG cost of a fixed choice (used to price the input graph itself).
pub(crate) fn choice_cost(
    egraph: &AtenGraph,
    choice: &HashMap<Id, Aten>,
    model: &dyn CostModel,
) -> f64 {
    choice.values().map(|n| model.own_cost(egraph, n)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(i: usize) -> Id {
        Id::from(i)
    }

    #[test]
    fn union_merges_sorted_sets_and_keeps_the_first_cost_of_a_shared_class() {
        let a = vec![(id(1), 1.0), (id(4), 4.0), (id(7), 7.0)];
        let b = vec![(id(2), 2.0), (id(4), 40.0), (id(9), 9.0)];
        assert_eq!(
            union(&a, &b),
            vec![
                (id(1), 1.0),
                (id(2), 2.0),
                (id(4), 4.0),
                (id(7), 7.0),
                (id(9), 9.0)
            ]
        );
        assert_eq!(union(&a, &[]), a);
        assert_eq!(union(&[], &b), b);
    }
}
