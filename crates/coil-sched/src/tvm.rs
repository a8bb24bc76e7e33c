//! TVM's FuseOps (Relay's `GraphPartitioner`, which Relax reuses) as a fusion strategy: each
//! operation gets an `OpPatternKind` from its body, a post-dominator tree is built over the
//! dataflow graph, and in three phases each node joins its post-dominator's group when every
//! path between them passes the pattern rules (`CheckPath`). Reductions only ever receive
//! producers (they are group sinks); extern kernels are opaque barriers. TVM never
//! recomputes, so it wants a lowering that realizes every op.

use std::fmt;

use coil_lower::{BufRef, Expr, IndexExpr, LowerConfig, Var};

use crate::error::SchedError;
use crate::ids::{NodeId, OpId};
use crate::loops::LoopCompat;
use crate::node::NodeKind;
use crate::schedule::Schedule;
use crate::strategy::FusionStrategy;

/// TVM's operator pattern; the order matters (`<=` comparisons in the rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpPatternKind {
    /// Output element i reads input element i.
    ElemWise = 0,
    /// Some inputs are broadcast to the output.
    Broadcast = 1,
    /// An injective map (transpose, reshape, slice, concat).
    Injective = 2,
    /// A commutative reduction.
    CommReduce = 3,
    /// A complex op whose output elementwise ops may fuse into (conv2d, dense).
    OutEWiseFusable = 4,
    /// A tuple.
    Tuple = 7,
    /// Not fusable.
    Opaque = 8,
}

/// `kElemWise`, ...
impl fmt::Display for OpPatternKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OpPatternKind::ElemWise => "kElemWise",
            OpPatternKind::Broadcast => "kBroadcast",
            OpPatternKind::Injective => "kInjective",
            OpPatternKind::CommReduce => "kCommReduce",
            OpPatternKind::OutEWiseFusable => "kOutEWiseFusable",
            OpPatternKind::Tuple => "kTuple",
            OpPatternKind::Opaque => "kOpaque",
        })
    }
}

/// How a pointwise body reads one input: the same element (`ElemWise`), a broadcast of it
/// (the index uses a subset of the output's variables as a contiguous row-major layout of
/// them, no offset), or anything else (`Injective`).
fn load_pattern(load: &IndexExpr, store: &IndexExpr, ranges: &[(Var, usize)]) -> OpPatternKind {
    if load == store {
        return OpPatternKind::ElemWise;
    }
    let Some((coefs, constant)) = load.as_affine() else {
        return OpPatternKind::Injective;
    };
    if constant != 0 {
        return OpPatternKind::Injective;
    }
    let coef = |v: Var| coefs.iter().find(|(w, _)| *w == v).map_or(0, |(_, c)| *c);
    let mut expected = 1i64;
    for &(v, r) in ranges.iter().rev() {
        let c = coef(v);
        if c == 0 {
            continue;
        }
        if c != expected || !store.contains_var(v) {
            return OpPatternKind::Injective;
        }
        expected = expected.saturating_mul(r as i64);
    }
    OpPatternKind::Broadcast
}

/// The pattern of an operation (TVM's `AnnotateTIROpPattern`): extern and nop nodes are
/// opaque, reductions `CommReduce`, pointwise bodies the worst of their loads' patterns
/// (`Injective` with masked loads or index arithmetic).
pub fn op_pattern(sched: &Schedule<'_>, op: OpId) -> OpPatternKind {
    let node = sched.base_node(op);
    if node.kind() != NodeKind::Scheduler {
        return OpPatternKind::Opaque;
    }
    let buf = sched.graph().buffer(op.buffer());
    let Some(c) = buf.computed() else {
        return OpPatternKind::Opaque;
    };
    if c.reduction_type.is_some() {
        return OpPatternKind::CommReduce;
    }
    if c.is_scan() || c.scatter.is_some() {
        // TVM computes scans (`cumsum`) and scatters outside its fusable patterns.
        return OpPatternKind::Opaque;
    }
    let body = &c.body;
    let mut pattern = OpPatternKind::ElemWise;
    for (_, e) in body.exprs.iter() {
        let p = match e {
            // A gather (an indirect index) is TVM's `take`: injective.
            Expr::Load { mask: Some(_), .. }
            | Expr::IndexExpr { .. }
            | Expr::IndirectIndex { .. } => OpPatternKind::Injective,
            Expr::Load { index, .. } => load_pattern(index, &body.store_index, &body.var_ranges),
            _ => OpPatternKind::ElemWise,
        };
        pattern = pattern.max(p);
    }
    pattern
}

/// The pattern of the edge from `producer` to `consumer`: the consumer's, except that a
/// broadcast consumer reading this producer element for element makes an `ElemWise` edge.
fn edge_pattern(
    sched: &Schedule<'_>,
    producer: OpId,
    consumer: OpId,
    consumer_pattern: OpPatternKind,
) -> OpPatternKind {
    if consumer_pattern != OpPatternKind::Broadcast {
        return consumer_pattern;
    }
    let Some(c) = sched.graph().buffer(consumer.buffer()).computed() else {
        return consumer_pattern;
    };
    let body = &c.body;
    let all_elemwise = body
        .loads()
        .filter(|(_, b, _)| *b == BufRef::Buffer(producer.buffer()))
        .all(|(_, _, index)| {
            load_pattern(index, &body.store_index, &body.var_ranges) == OpPatternKind::ElemWise
        });
    if all_elemwise {
        OpPatternKind::ElemWise
    } else {
        consumer_pattern
    }
}

/// TVM's FuseOps as a [`FusionStrategy`].
#[derive(Clone, Copy, Debug)]
pub struct TvmFuseOps {
    /// At most this many ops per group (`max_fuse_depth`, 256).
    pub max_fuse_depth: usize,
}

impl Default for TvmFuseOps {
    fn default() -> TvmFuseOps {
        TvmFuseOps {
            max_fuse_depth: 256,
        }
    }
}

/// The post-dominator tree node of a graph node.
#[derive(Clone, Copy, Debug)]
struct DomNode {
    parent: Option<usize>,
    depth: usize,
    pattern: OpPatternKind,
}

/// Union-find groups (TVM's `GraphPartitioner::Group`).
struct Groups {
    parent: Vec<Option<usize>>,
    pattern: Vec<OpPatternKind>,
    anchor: Vec<bool>,
    num_nodes: Vec<usize>,
}

impl Groups {
    fn root(&mut self, mut g: usize) -> usize {
        let mut path = Vec::new();
        while let Some(p) = self.parent[g] {
            path.push(g);
            g = p;
        }
        for x in path {
            self.parent[x] = Some(g);
        }
        g
    }

    fn merge_from_to(&mut self, child: usize, parent: usize) {
        let (child, parent) = (self.root(child), self.root(parent));
        if child == parent {
            return;
        }
        self.num_nodes[parent] += self.num_nodes[child];
        self.parent[child] = Some(parent);
        if self.anchor[child] {
            self.anchor[parent] = true;
            self.pattern[parent] = self.pattern[parent].max(self.pattern[child]);
        }
    }
}

/// The dataflow graph TVM partitions: nodes in topological order with their consumers and
/// the pattern of each edge.
struct ForwardGraph {
    ops: Vec<OpId>,
    pattern: Vec<OpPatternKind>,
    outputs: Vec<Vec<(usize, OpPatternKind)>>,
    extern_ref: Vec<bool>,
}

impl ForwardGraph {
    fn new(sched: &Schedule<'_>) -> ForwardGraph {
        let ops: Vec<OpId> = sched.nodes().flat_map(|n| n.ops().to_vec()).collect();
        let mut index = vec![usize::MAX; sched.graph().buffers().len()];
        for (i, op) in ops.iter().enumerate() {
            index[op.index()] = i;
        }
        let pattern: Vec<OpPatternKind> = ops.iter().map(|&op| op_pattern(sched, op)).collect();
        let mut outputs = vec![Vec::new(); ops.len()];
        for (i, &op) in ops.iter().enumerate() {
            for &consumer in sched.readers(op.buffer()) {
                let j = index[consumer.index()];
                let p = edge_pattern(sched, op, consumer, pattern[j]);
                outputs[i].push((j, p));
            }
        }
        let extern_ref = ops.iter().map(|op| sched.is_output(op.buffer())).collect();
        ForwardGraph {
            ops,
            pattern,
            outputs,
            extern_ref,
        }
    }

    /// TVM's `DominatorTree::PostDom`: each node's parent is the least common ancestor of its
    /// consumers in the tree; its pattern the worst edge and tree pattern met on the way.
    fn post_dominators(&self) -> Vec<DomNode> {
        let n = self.ops.len();
        let mut dom: Vec<DomNode> = vec![
            DomNode {
                parent: None,
                depth: 1,
                pattern: OpPatternKind::ElemWise
            };
            n
        ];
        for i in (0..n).rev() {
            if self.extern_ref[i] {
                dom[i] = DomNode {
                    parent: None,
                    depth: 1,
                    pattern: OpPatternKind::Opaque,
                };
                continue;
            }
            let mut pattern = OpPatternKind::ElemWise;
            let mut links = self.outputs[i].iter();
            let parent = match links.next() {
                None => None,
                Some(&(first, p)) => {
                    pattern = pattern.max(p);
                    let mut parent = Some(first);
                    for &(j, p) in links {
                        parent = lca(&dom, parent, Some(j), &mut pattern);
                        pattern = pattern.max(p);
                    }
                    parent
                }
            };
            dom[i] = DomNode {
                parent,
                depth: parent.map_or(1, |p| dom[p].depth + 1),
                pattern,
            };
        }
        dom
    }
}

fn lca(
    dom: &[DomNode],
    mut lhs: Option<usize>,
    mut rhs: Option<usize>,
    pattern: &mut OpPatternKind,
) -> Option<usize> {
    while lhs != rhs {
        let (l, r) = (lhs?, rhs?);
        if dom[l].depth < dom[r].depth {
            *pattern = (*pattern).max(dom[r].pattern);
            rhs = dom[r].parent;
        } else if dom[r].depth < dom[l].depth {
            *pattern = (*pattern).max(dom[l].pattern);
            lhs = dom[l].parent;
        } else {
            *pattern = (*pattern).max(dom[l].pattern).max(dom[r].pattern);
            lhs = dom[l].parent;
            rhs = dom[r].parent;
        }
    }
    lhs
}

struct Partitioner<'a> {
    graph: &'a ForwardGraph,
    groups: Groups,
    /// `visited[i] == stamp` marks node i visited in the current walk.
    visited: Vec<u32>,
    stamp: u32,
}

impl Partitioner<'_> {
    /// Starts a new walk (all nodes unvisited).
    fn new_walk(&mut self) {
        self.stamp += 1;
    }

    /// Marks `node` visited; false if it already was.
    fn visit(&mut self, node: usize) -> bool {
        std::mem::replace(&mut self.visited[node], self.stamp) != self.stamp
    }

    /// Whether every path from `src`'s outputs to `sink` passes `fcond` (TVM's `CheckPath`).
    /// The walks here use an explicit stack: a path between a node and its post-dominator can be
    /// as long as the graph is deep.
    fn check_path(
        &mut self,
        src: usize,
        sink: usize,
        fcond: &dyn Fn(OpPatternKind, bool) -> bool,
    ) -> bool {
        self.new_walk();
        let graph = self.graph;
        let mut stack: Vec<usize> = graph.outputs[src].iter().map(|&(j, _)| j).collect();
        stack.reverse();
        while let Some(node) = stack.pop() {
            if !self.visit(node) {
                continue;
            }
            let root = self.groups.root(node);
            if !fcond(self.groups.pattern[root], node == sink) {
                return false;
            }
            if node != sink {
                stack.extend(graph.outputs[node].iter().rev().map(|&(j, _)| j));
            }
        }
        true
    }

    fn commit_fuse(&mut self, src: usize, sink: usize) {
        self.new_walk();
        self.commit_from(src, sink, sink);
    }

    /// Merges every node on a path from `node` to `sink` (not `sink` itself) into `target`.
    fn commit_from(&mut self, node: usize, sink: usize, target: usize) {
        let graph = self.graph;
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n == sink || !self.visit(n) {
                continue;
            }
            self.groups.merge_from_to(n, target);
            stack.extend(graph.outputs[n].iter().rev().map(|&(j, _)| j));
        }
    }

    fn count_fused_with(&mut self, child: usize, parent: usize) -> usize {
        self.new_walk();
        let root = self.groups.root(parent);
        self.groups.num_nodes[root] + self.count_upto_sink(child, parent)
    }

    /// The nodes on the paths from `node` to `sink` (not `sink`), counted by group size.
    fn count_upto_sink(&mut self, node: usize, sink: usize) -> usize {
        let graph = self.graph;
        let mut stack = vec![node];
        let mut sum = 0;
        while let Some(n) = stack.pop() {
            if n == sink || !self.visit(n) {
                continue;
            }
            sum += self.groups.num_nodes[n];
            stack.extend(graph.outputs[n].iter().rev().map(|&(j, _)| j));
        }
        sum
    }

    /// One phase of TVM's `GraphPartitioner::RunFuse`.
    fn run_fuse(&mut self, dom: &[DomNode], phase: u8, max_fuse_depth: usize) {
        use OpPatternKind::*;
        for (nid, dom_node) in dom.iter().enumerate() {
            let pattern = self.groups.pattern[nid];
            if pattern == Opaque {
                continue;
            }
            let Some(parent) = dom_node.parent else {
                continue;
            };
            if self.count_fused_with(nid, parent) > max_fuse_depth {
                continue;
            }
            if phase == 2 {
                // Injective ops into intermediate tuples: coil has no tuples.
                continue;
            }
            if self.groups.root(nid) == self.groups.root(parent) {
                continue;
            }
            if self.groups.pattern[parent] == Tuple {
                continue;
            }
            if pattern == OutEWiseFusable {
                if phase != 0 {
                    continue;
                }
                if dom_node.pattern == ElemWise
                    && self.check_path(nid, parent, &|k, _| k <= Broadcast)
                {
                    self.commit_fuse(nid, parent);
                }
            } else if pattern <= Broadcast {
                let dp = dom_node.pattern;
                if dp <= Injective || dp == CommReduce {
                    let fcond = |k: OpPatternKind, is_sink: bool| {
                        if is_sink {
                            k <= Broadcast
                                || k == CommReduce
                                || k == Injective
                                || k == OutEWiseFusable
                        } else {
                            k <= Injective
                        }
                    };
                    if self.check_path(nid, parent, &fcond) {
                        self.commit_fuse(nid, parent);
                    }
                }
            } else if pattern == Injective || pattern == Tuple {
                if phase != 1 {
                    continue;
                }
                if self.check_path(nid, parent, &|k, _| k <= Injective) {
                    self.commit_fuse(nid, parent);
                }
            }
            // CommReduce: a reduction never starts a fusion; it only receives producers.
        }
    }
}

impl TvmFuseOps {
    /// The groups FuseOps forms on `sched`'s operations, each in topological order, groups
    /// in the order of their first member; with every node's pattern and post-dominator for
    /// the log.
    pub fn partition(&self, sched: &Schedule<'_>) -> Vec<Vec<OpId>> {
        self.partition_logged(sched).0
    }

    fn partition_logged(&self, sched: &Schedule<'_>) -> (Vec<Vec<OpId>>, Vec<String>) {
        let graph = ForwardGraph::new(sched);
        let dom = graph.post_dominators();
        let n = graph.ops.len();
        let mut log = Vec::new();
        for (i, d) in dom.iter().enumerate() {
            let pd = d
                .parent
                .map_or("none".to_string(), |p| graph.ops[p].to_string());
            log.push(format!(
                "tvm: {} {} post-dominator {} ({})",
                graph.ops[i], graph.pattern[i], pd, d.pattern
            ));
        }
        let mut p = Partitioner {
            graph: &graph,
            groups: Groups {
                parent: vec![None; n],
                pattern: graph.pattern.clone(),
                anchor: graph
                    .pattern
                    .iter()
                    .map(|&k| k == OpPatternKind::OutEWiseFusable)
                    .collect(),
                num_nodes: vec![1; n],
            },
            visited: vec![0; n],
            stamp: 0,
        };
        for phase in 0..3 {
            p.run_fuse(&dom, phase, self.max_fuse_depth);
        }
        let mut group_of_root: Vec<Option<usize>> = vec![None; n];
        let mut groups: Vec<Vec<OpId>> = Vec::new();
        for i in 0..n {
            let r = p.groups.root(i);
            match group_of_root[r] {
                Some(g) => groups[g].push(graph.ops[i]),
                None => {
                    group_of_root[r] = Some(groups.len());
                    groups.push(vec![graph.ops[i]]);
                }
            }
        }
        (groups, log)
    }
}

impl FusionStrategy for TvmFuseOps {
    fn name(&self) -> &'static str {
        "tvm"
    }

    fn lower_config(&self, base: &LowerConfig) -> LowerConfig {
        LowerConfig {
            inline_all: false,
            ..base.clone()
        }
    }

    fn fuse(&self, sched: &mut Schedule<'_>, _loops: &dyn LoopCompat) -> Result<(), SchedError> {
        let (groups, log) = self.partition_logged(sched);
        for line in log {
            sched.log_line(line);
        }
        let mut fused: Vec<Vec<NodeId>> = Vec::new();
        for members in groups {
            let names: Vec<String> = members.iter().map(|o| o.to_string()).collect();
            sched.log_line(format!("tvm: group [{}]", names.join(", ")));
            if members.len() > 1 {
                fused.push(
                    members
                        .iter()
                        .map(|&op| sched.node_of(op).expect("live operation"))
                        .collect(),
                );
            }
        }
        sched.fuse_groups(&fused)?;
        let n = sched.order().len();
        sched.log_line(format!("tvm: {n} groups"));
        Ok(())
    }
}
