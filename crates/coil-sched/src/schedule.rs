//! The schedule: the node arena, the current top-level nodes in execution order, the map from
//! operations to the node holding them, and the primitive that fuses two nodes into one.

use hashbrown::HashSet;

use coil_lower::{BufRef, Dep, Idx, IndexVec, LoweredGraph};

use crate::config::SchedConfig;
use crate::deps::{DepId, DepTable};
use crate::error::SchedError;
use crate::ids::{NodeId, OpId};
use crate::init::{single_use_reads, union_sorted, used_buffers};
use crate::kernel::KernelInfo;
use crate::loops::LoopPlan;
use crate::node::{Group, NodeKind, OuterLoop, ReadWrites, SchedNode};

/// A lowered graph's schedule: scheduler nodes in execution order, fused or not.
///
/// Made by [`crate::schedule`] (or [`Schedule::new`] for the unfused schedule, which a
/// [`crate::FusionStrategy`] then fuses). Codegen walks [`Schedule::nodes`] (one kernel or
/// extern call each) or [`Schedule::kernels`] (with names, kinds and byte counts).
#[derive(Debug)]
pub struct Schedule<'g> {
    pub(crate) graph: &'g LoweredGraph,
    pub(crate) config: SchedConfig,
    pub(crate) nodes: IndexVec<NodeId, SchedNode>,
    /// The top-level nodes, in execution order.
    pub(crate) order: Vec<NodeId>,
    /// The top-level node holding each operation (`None` for dead ones).
    pub(crate) op_node: Vec<Option<NodeId>>,
    /// Operations each operation must follow (read/write orderings).
    pub(crate) preds: Vec<Vec<OpId>>,
    /// Live operations reading each buffer.
    pub(crate) readers: Vec<Vec<OpId>>,
    /// Buffers the graph returns.
    pub(crate) is_output: Vec<bool>,
    /// Operations dead-code elimination removed.
    pub(crate) removed: Vec<OpId>,
    /// The same, as a set.
    pub(crate) dead: crate::ids::OpSet,
    /// Each live operation's position in the original order.
    pub(crate) position: Vec<usize>,
    /// True when the original order is the operations' order (always, for a lowering's
    /// buffers): positions then grow with operation ids, which the cycle check uses to skip
    /// fused nodes that cannot straddle the pair's ancestors.
    pub(crate) ids_in_order: bool,
    /// Every dep nodes refer to.
    pub(crate) deps: DepTable,
    /// Per buffer written by operations other than its own (a scatter's target), those
    /// operations, in program order.
    pub(crate) mutators: hashbrown::HashMap<BufRef, Vec<OpId>>,
    pub(crate) log: Vec<String>,
    pub(crate) kernels: Vec<KernelInfo>,
    pub(crate) strategy: &'static str,
}

impl<'g> Schedule<'g> {
    /// The lowered graph scheduled.
    pub fn graph(&self) -> &'g LoweredGraph {
        self.graph
    }

    /// The configuration.
    pub fn config(&self) -> &SchedConfig {
        &self.config
    }

    /// The top-level nodes in execution order.
    pub fn order(&self) -> &[NodeId] {
        &self.order
    }

    /// The top-level nodes in execution order: one kernel (or extern call, or nothing for a
    /// nop) each.
    pub fn nodes(&self) -> impl Iterator<Item = &SchedNode> + '_ {
        self.order.iter().map(|&id| &self.nodes[id])
    }

    /// Any node of the arena (including nodes since fused into others).
    pub fn node(&self, id: NodeId) -> &SchedNode {
        &self.nodes[id]
    }

    /// The top-level node holding `op` (`None` if it was removed as dead code).
    pub fn node_of(&self, op: OpId) -> Option<NodeId> {
        self.op_node.get(op.index()).copied().flatten()
    }

    /// The base node of an operation (a `SchedulerNode`, extern or nop node of one buffer).
    pub fn base_node(&self, op: OpId) -> &SchedNode {
        &self.nodes[NodeId::new(op.index())]
    }

    /// Operations removed as dead code.
    pub fn removed(&self) -> &[OpId] {
        &self.removed
    }

    /// Live operations that read `buffer`.
    pub fn readers(&self, buffer: coil_lower::BufferId) -> &[OpId] {
        &self.readers[buffer.index()]
    }

    /// True when the graph returns `buffer`.
    pub fn is_output(&self, buffer: coil_lower::BufferId) -> bool {
        self.is_output[buffer.index()]
    }

    /// Inductor's user count of a buffer: its live readers, plus one if the graph returns it.
    pub fn num_users(&self, buffer: coil_lower::BufferId) -> usize {
        self.readers[buffer.index()].len() + usize::from(self.is_output[buffer.index()])
    }

    /// The operations `op` must follow directly (it reads their buffers, or overwrites what
    /// they read or wrote).
    pub fn preds(&self, op: OpId) -> &[OpId] {
        &self.preds[op.index()]
    }

    /// The fusion log (Inductor's `TORCH_LOGS=fusion` lines), also emitted as `tracing` events
    /// at target `fusion`.
    pub fn fusion_log(&self) -> &[String] {
        &self.log
    }

    /// The name of the strategy that fused this schedule.
    pub fn strategy_name(&self) -> &'static str {
        self.strategy
    }

    /// Appends a line to the fusion log.
    pub fn log_line(&mut self, line: String) {
        tracing::debug!(target: "fusion", "{line}");
        self.log.push(line);
    }

    /// The dependency behind an id.
    pub fn dep(&self, id: DepId) -> &Dep {
        self.deps.get(id)
    }

    /// The name of a node.
    pub fn name(&self, id: NodeId) -> &str {
        &self.nodes[id].name
    }

    /// `SchedulerNode(name='op0'), Reduction(['[1024]', 'max', 'origins=OrderedSet([amax])'])`:
    /// Inductor's `debug_str_short`, for the candidates list of each fusion round.
    pub fn debug_str_short(&self, id: NodeId) -> String {
        let n = &self.nodes[id];
        let head = format!("{}(name='{}')", n.class_name(), n.name);
        if n.kind != NodeKind::Scheduler {
            return head;
        }
        let buf = self.graph.buffer(n.ops[0].buffer());
        let origins: Vec<&str> = buf.origins.iter().map(|o| o.node.as_str()).collect();
        let sizes = format!("{:?}", buf.layout.sizes);
        let origins = format!("'origins=OrderedSet([{}])'", origins.join(", "));
        if let Some((st, _)) = buf.computed().and_then(|c| c.body.scan()) {
            return format!("{head}, Scan(['{sizes}', '{st}', {origins}])");
        }
        match buf.computed().and_then(|c| c.reduction_type) {
            Some(rt) => format!("{head}, Reduction(['{sizes}', '{rt}', {origins}])"),
            None => format!("{head}, Pointwise(['{sizes}', {origins}])"),
        }
    }

    /// Fuses two top-level nodes into a new one (members of `a`, then of `b`) and returns it.
    /// No checks: [`Schedule::can_fuse`] and [`Schedule::will_fusion_create_cycle`] decide.
    /// The execution order is brought up to date by [`Schedule::reorder`].
    pub(crate) fn fuse_two(&mut self, a: NodeId, b: NodeId, plan: &LoopPlan) -> NodeId {
        let (na, nb) = (&self.nodes[a], &self.nodes[b]);
        let mut ops = na.ops.clone();
        ops.extend_from_slice(&nb.ops);
        let mut op_set = na.op_set.clone();
        op_set.union_with(&nb.op_set);
        let is_reduction = na.is_reduction || nb.is_reduction;
        // Inductor: the group of the first reduction member, else of the first member (here
        // the first part, which carries any re-split the loop rules made).
        let sizes = match &plan.sizes {
            Some(s) => s.clone(),
            None => ops
                .iter()
                .map(|&o| &self.nodes[NodeId::new(o.index())])
                .find(|m| m.is_reduction)
                .map_or_else(|| na.sizes.clone(), |m| m.sizes.clone()),
        };
        let group = Group {
            device: na.group.device,
            numel: sizes.numel(),
            rnumel: sizes.rnumel(),
        };
        let parts = |n: &SchedNode| match &n.outer_loop {
            Some(o) => o.parts.clone(),
            None => vec![n.id],
        };
        let outer_loop = plan.outer_loop_depth.map(|depth| OuterLoop {
            depth,
            parts: [parts(na), parts(nb)].concat(),
        });
        let read_writes = ReadWrites::merge(&[&na.read_writes, &nb.read_writes]);
        let norm = ReadWrites::merge(&[&na.norm, &nb.norm]);
        let written: HashSet<BufRef> = ops.iter().map(|o| BufRef::Buffer(o.buffer())).collect();
        // Deps on buffers written inside are met inside (and the writes are all such).
        let deps = &self.deps;
        let unmet_of = |x: &[DepId], y: &[DepId]| -> Vec<DepId> {
            let mut seen: HashSet<DepId> = HashSet::new();
            x.iter()
                .chain(y)
                .copied()
                .filter(|&d| !written.contains(&deps.buffer(d)) && seen.insert(d))
                .collect()
        };
        let unmet = unmet_of(&na.unmet, &nb.unmet);
        let norm_unmet = unmet_of(&na.norm_unmet, &nb.norm_unmet);
        let mut ancestors = na.ancestors.clone();
        ancestors.union_with(&nb.ancestors);
        let node = SchedNode {
            id: self.nodes.next_id(),
            name: format!("{}_{}", na.name, nb.name),
            kind: NodeKind::Fused,
            op_set,
            outer_loop,
            sizes,
            group,
            is_reduction,
            reductions: na.reductions + nb.reductions,
            dep_ids: union_sorted(&na.dep_ids, &nb.dep_ids),
            single_use_reads: single_use_reads(self.graph, deps, &read_writes, &|b| {
                self.num_users(b)
            }),
            used_buffers: used_buffers(deps, &read_writes),
            read_writes,
            norm,
            unmet,
            norm_unmet,
            ancestors,
            min_order: na.min_order.min(nb.min_order),
            max_order: na.max_order.max(nb.max_order),
            ops,
        };
        let id = self.nodes.push(node);
        for &op in &self.nodes[id].ops {
            self.op_node[op.index()] = Some(id);
        }
        if let Some(pos) = self.order.iter().position(|&n| n == a) {
            self.order[pos] = id;
        }
        self.order.retain(|&n| n != b);
        id
    }

    /// Whether `m` is a node of the schedule that no fusion has absorbed yet.
    fn is_top_level(&self, m: NodeId) -> bool {
        self.nodes
            .get(m)
            .is_some_and(|n| self.op_node[n.ops[0].index()] == Some(m))
    }

    /// Fuses top-level nodes `a` and `b` into one with the loop plan the loop rules gave for
    /// them (`Schedule::can_fuse(a, b, ..)`'s `Ok`, or [`crate::LoopCompat`]'s answer): the
    /// public way for a strategy outside this crate to make the fusions Inductor's greedy
    /// rounds make. Refused (an error, nothing changed) when either is not a top-level node,
    /// they are the same node, either is an extern or nop node, or the fusion would create a
    /// cycle. The execution order is brought up to date before it returns.
    pub fn fuse_pair(
        &mut self,
        a: NodeId,
        b: NodeId,
        plan: &LoopPlan,
    ) -> Result<NodeId, SchedError> {
        let bad = |s: &Self, reason: &str| SchedError::BadFusion {
            nodes: [a, b]
                .iter()
                .map(|&m| {
                    s.nodes
                        .get(m)
                        .map_or_else(|| m.to_string(), |n| n.name.clone())
                })
                .collect::<Vec<_>>()
                .join(", "),
            reason: reason.to_string(),
        };
        if !self.is_top_level(a) || !self.is_top_level(b) {
            return Err(bad(self, "not every node is a top-level node"));
        }
        if a == b {
            return Err(bad(self, "a node does not fuse with itself"));
        }
        if self.nodes[a].is_extern_or_nop() || self.nodes[b].is_extern_or_nop() {
            return Err(bad(self, "extern and nop nodes do not fuse"));
        }
        if self.will_fusion_create_cycle(a, b) {
            return Err(bad(self, "the fusion would create a cycle"));
        }
        let (first, second) = if self.nodes[a].min_order <= self.nodes[b].min_order {
            (a, b)
        } else {
            (b, a)
        };
        let id = self.fuse_two(first, second, plan);
        self.reorder()?;
        Ok(id)
    }

    /// Fuses several top-level nodes into one, in their original order (strategies that
    /// form groups, like TVM's, use this). The group must be convex: no path between two
    /// members may leave the group, or the schedule would have a cycle.
    pub fn fuse_group(&mut self, members: &[NodeId]) -> Result<NodeId, SchedError> {
        let id = self.fuse_members(members)?;
        self.reorder()?;
        Ok(id)
    }

    /// Fuses each group of top-level nodes ([`Schedule::fuse_group`]), then reorders once.
    pub fn fuse_groups(&mut self, groups: &[Vec<NodeId>]) -> Result<Vec<NodeId>, SchedError> {
        let ids = groups
            .iter()
            .map(|g| self.fuse_members(g))
            .collect::<Result<Vec<_>, _>>()?;
        self.reorder()?;
        Ok(ids)
    }

    fn fuse_members(&mut self, members: &[NodeId]) -> Result<NodeId, SchedError> {
        let bad = |reason: &str| SchedError::BadFusion {
            nodes: members
                .iter()
                .map(|&m| self.nodes[m].name.clone())
                .collect::<Vec<_>>()
                .join(", "),
            reason: reason.to_string(),
        };
        let mut members: Vec<NodeId> = members.to_vec();
        members.dedup();
        if !members.iter().all(|&m| self.is_top_level(m)) {
            return Err(bad("not every node is a top-level node"));
        }
        if members.iter().any(|&m| self.nodes[m].is_extern_or_nop()) && members.len() > 1 {
            return Err(bad("extern and nop nodes do not fuse"));
        }
        members.sort_by_key(|&m| self.nodes[m].min_order);
        let Some((&first, rest)) = members.split_first() else {
            return Err(bad("no nodes"));
        };
        let mut acc = first;
        for &m in rest {
            acc = self.fuse_two(acc, m, &LoopPlan::default());
        }
        Ok(acc)
    }

    /// Brings the execution order up to date after fusions: the top-level nodes sorted by
    /// `min_order`, then topologically sorted (Inductor's end of `fuse_nodes_once`).
    pub fn reorder(&mut self) -> Result<(), SchedError> {
        let mut top: Vec<NodeId> = Vec::new();
        let mut seen: HashSet<NodeId> = HashSet::new();
        for &n in &self.order {
            let cur = self.op_node[self.nodes[n].ops[0].index()].expect("live node");
            if seen.insert(cur) {
                top.push(cur);
            }
        }
        top.sort_by_key(|&n| self.nodes[n].min_order);
        // Depth first: each node's predecessors (by the name of the buffer depended on) first.
        let mut done: HashSet<NodeId> = HashSet::new();
        let mut visiting: HashSet<NodeId> = HashSet::new();
        let mut out: Vec<NodeId> = Vec::with_capacity(top.len());
        for &start in &top {
            if done.contains(&start) {
                continue;
            }
            let mut stack: Vec<(NodeId, Vec<NodeId>, usize)> =
                vec![(start, self.pred_nodes(start), 0)];
            visiting.insert(start);
            while let Some((node, ps, next)) = stack.last_mut() {
                if let Some(&p) = ps.get(*next) {
                    *next += 1;
                    if done.contains(&p) {
                        continue;
                    }
                    if !visiting.insert(p) {
                        return Err(SchedError::Cycle(self.nodes[p].name.clone()));
                    }
                    let pp = self.pred_nodes(p);
                    stack.push((p, pp, 0));
                } else {
                    let node = *node;
                    visiting.remove(&node);
                    done.insert(node);
                    out.push(node);
                    stack.pop();
                }
            }
        }
        self.order = out;
        Ok(())
    }

    /// The top-level nodes `n` must follow directly, ordered by the name of the buffer
    /// depended on.
    fn pred_nodes(&self, n: NodeId) -> Vec<NodeId> {
        let mut ps: Vec<(String, NodeId)> = Vec::new();
        for &op in &self.nodes[n].ops {
            for &p in &self.preds[op.index()] {
                let Some(pn) = self.op_node[p.index()] else {
                    continue;
                };
                if pn != n && !ps.iter().any(|(_, q)| *q == pn) {
                    ps.push((p.buffer().to_string(), pn));
                }
            }
        }
        ps.sort();
        ps.into_iter().map(|(_, n)| n).collect()
    }

    /// The base nodes of a node, in execution order.
    pub fn members(&self, id: NodeId) -> impl Iterator<Item = &SchedNode> + '_ {
        self.nodes[id]
            .ops
            .iter()
            .map(|&o| &self.nodes[NodeId::new(o.index())])
    }
}
