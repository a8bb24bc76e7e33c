//! `Scheduler.__init__`'s first half: one node per realized buffer, dependencies (read after
//! write, write after read, write after write), a topological order, dead-code elimination,
//! ancestors and order positions; and the loop merging that gives each node its loop sizes.

use hashbrown::HashMap;

use coil_lower::{BufRef, Buffer, BufferKind, Dep, Idx, IndexVec, LoopBody, LoweredGraph, Var};

use crate::config::SchedConfig;
use crate::deps::{DepId, DepTable};
use crate::error::SchedError;
use crate::ids::{NodeId, OpId, OpSet};
use crate::node::{Group, LoopSizes, NodeKind, ReadWrites, SchedNode};
use crate::schedule::Schedule;

/// Why one operation must run after another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DepKind {
    /// It reads what the other wrote.
    ReadAfterWrite,
    /// It overwrites what the other read.
    WriteAfterRead,
    /// It overwrites what the other wrote.
    WriteAfterWrite,
}

/// Per operation, the earlier operations it must follow and why.
pub(crate) type OrderingPreds = Vec<Vec<(usize, DepKind)>>;

/// For operations in program order, given the buffers each reads and writes, the earlier
/// operations each must follow: the last writer of every buffer it reads (RAW), the previous
/// writer of every buffer it writes (WAW) and the readers since that write (WAR). Returns the
/// first read of a buffer nobody wrote as an error `(op, buffer)`.
pub(crate) fn ordering_preds(
    ops: &[(Vec<BufRef>, Vec<BufRef>)],
) -> Result<OrderingPreds, (usize, BufRef)> {
    let mut last_writer: HashMap<BufRef, usize> = HashMap::new();
    let mut readers: HashMap<BufRef, Vec<usize>> = HashMap::new();
    let mut preds: OrderingPreds = Vec::with_capacity(ops.len());
    for (i, (reads, writes)) in ops.iter().enumerate() {
        let mut p: Vec<(usize, DepKind)> = Vec::new();
        let add = |p: &mut Vec<(usize, DepKind)>, j: usize, k: DepKind| {
            if j != i && !p.iter().any(|(q, _)| *q == j) {
                p.push((j, k));
            }
        };
        for r in reads {
            match last_writer.get(r) {
                Some(&w) => add(&mut p, w, DepKind::ReadAfterWrite),
                None if matches!(r, BufRef::Buffer(_)) => return Err((i, *r)),
                None => {}
            }
        }
        for w in writes {
            if let Some(&prev) = last_writer.get(w) {
                add(&mut p, prev, DepKind::WriteAfterWrite);
            }
            for &rd in readers.get(w).map(Vec::as_slice).unwrap_or(&[]) {
                add(&mut p, rd, DepKind::WriteAfterRead);
            }
        }
        for r in reads {
            readers.entry(*r).or_default().push(i);
        }
        for w in writes {
            last_writer.insert(*w, i);
            readers.remove(w);
        }
        preds.push(p);
    }
    Ok(preds)
}

/// The loop sizes of a body after merging adjacent loops (within the iteration loops, and
/// within the reduction loops) that every index expression walks as one: `d_i, d_i+1` merge
/// when each affine index has `coef(d_i) == coef(d_i+1) * range(d_i+1)` and no non-affine
/// index uses either. `x[1024*p0 + p1]` over 1024x1024 is one loop of 1048576; add a
/// broadcast `bias[p1]` and it stays two.
pub(crate) fn merged_loop_sizes(body: &LoopBody) -> LoopSizes {
    let mut indices: Vec<&coil_lower::IndexExpr> = vec![&body.store_index];
    for (_, e) in body.exprs.iter() {
        match e {
            coil_lower::Expr::Load { index, .. } | coil_lower::Expr::IndexExpr { index, .. } => {
                indices.push(index)
            }
            _ => {}
        }
    }
    let affine: Vec<Option<Vec<(Var, i64)>>> = indices
        .iter()
        .map(|e| e.as_affine().map(|(c, _)| c))
        .collect();
    let coef =
        |coefs: &[(Var, i64)], v: Var| coefs.iter().find(|(w, _)| *w == v).map_or(0, |(_, c)| *c);
    let can_merge = |u: Var, v: Var, rv: usize| {
        indices.iter().zip(&affine).all(|(e, a)| match a {
            Some(c) => coef(c, u) == coef(c, v).saturating_mul(rv as i64),
            None => !e.contains_var(u) && !e.contains_var(v),
        })
    };
    let merge = |vars: &[(Var, usize)]| -> Vec<usize> {
        let mut groups: Vec<(Var, usize)> = Vec::new();
        for &(v, r) in vars {
            match groups.last_mut() {
                Some((last, size)) if can_merge(*last, v, r) => {
                    *last = v;
                    *size *= r;
                }
                _ => groups.push((v, r)),
            }
        }
        groups.into_iter().map(|(_, r)| r).collect()
    };
    LoopSizes {
        vars: merge(body.iter_vars()),
        reduce: merge(body.reduction_vars()),
    }
}

/// The distinct buffers of `rw`, in first-use order (reads, then writes).
pub(crate) fn used_buffers(deps: &DepTable, rw: &ReadWrites) -> Vec<BufRef> {
    let mut out: Vec<BufRef> = Vec::new();
    for &d in rw.reads.iter().chain(&rw.writes) {
        let b = deps.buffer(d);
        if !out.contains(&b) {
            out.push(b);
        }
    }
    out
}

/// The normalized forms of `ids`, without repeats, in order.
pub(crate) fn normalized(deps: &DepTable, ids: &[DepId]) -> Vec<DepId> {
    let mut out: Vec<DepId> = Vec::with_capacity(ids.len());
    for &d in ids {
        let n = deps.norm(d);
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// Sorted union of two sorted id lists.
pub(crate) fn union_sorted(a: &[DepId], b: &[DepId]) -> Vec<DepId> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
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

/// The (dtype, storage size) keys of the buffers `rw` reads that have a single user
/// (Inductor's `buffer_reuse_key` of the reads in `can_fusion_increase_peak_memory`).
pub(crate) fn single_use_reads(
    graph: &LoweredGraph,
    deps: &DepTable,
    rw: &ReadWrites,
    num_users: &impl Fn(coil_lower::BufferId) -> usize,
) -> Vec<(coil_graph::DType, usize)> {
    let mut keys: Vec<(coil_graph::DType, usize)> = rw
        .reads
        .iter()
        .filter_map(|&d| match deps.buffer(d) {
            BufRef::Buffer(b) if num_users(b) == 1 => {
                let l = &graph.buffer(b).layout;
                Some((l.dtype, l.storage_len()))
            }
            _ => None,
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

fn base_kind(b: &Buffer) -> NodeKind {
    match &b.kind {
        BufferKind::Extern(_) => NodeKind::Extern,
        BufferKind::Computed(_) if b.layout.numel() == 0 => NodeKind::Nop,
        BufferKind::Computed(_) => NodeKind::Scheduler,
    }
}

impl<'g> Schedule<'g> {
    /// Builds the unfused schedule of `graph`: a node per buffer, dependencies, a topological
    /// order, dead operations removed, ancestors and order positions computed.
    pub fn new(graph: &'g LoweredGraph, config: SchedConfig) -> Result<Schedule<'g>, SchedError> {
        let bufs = graph.buffers();
        let n = bufs.len();
        let rw_refs: Vec<(Vec<BufRef>, Vec<BufRef>)> = bufs
            .iter()
            .map(|b| {
                (
                    b.reads.iter().map(Dep::buffer).collect(),
                    b.writes.iter().map(Dep::buffer).collect(),
                )
            })
            .collect();
        let preds = ordering_preds(&rw_refs).map_err(|(i, b)| SchedError::UndefinedRead {
            op: OpId::new(i).to_string(),
            buffer: graph.name(b),
        })?;
        let preds: Vec<Vec<OpId>> = preds
            .into_iter()
            .map(|p| p.into_iter().map(|(j, _)| OpId::new(j)).collect())
            .collect();
        let mut is_output = vec![false; n];
        for o in graph.outputs() {
            if let BufRef::Buffer(b) = o.buffer {
                is_output[b.index()] = true;
            }
        }
        let mut mutators: HashMap<BufRef, Vec<OpId>> = HashMap::new();
        for (i, (_, writes)) in rw_refs.iter().enumerate() {
            for &w in writes {
                if w != BufRef::Buffer(bufs[i].id) {
                    mutators.entry(w).or_default().push(OpId::new(i));
                }
            }
        }
        // An operation that writes a returned buffer or a graph input (a scatter into it)
        // is live as the buffer's own is.
        let writes_output: Vec<bool> = rw_refs
            .iter()
            .map(|(_, writes)| {
                writes.iter().any(|w| match w {
                    BufRef::Buffer(b) => is_output[b.index()],
                    BufRef::Input(_) => true,
                    BufRef::IndexChecks => false,
                })
            })
            .collect();
        // Topological order (Inductor's `topological_sort_schedule`: depth first, the
        // dependencies of a node in name order before it).
        let name_of = |op: OpId| op.buffer().to_string();
        let order = topo_sort(n, &preds, &name_of)?;
        // Dead-code elimination, from the end: an operation whose buffers nobody live reads
        // and the graph does not return is dropped.
        let mut live = vec![false; n];
        let mut live_readers = vec![0usize; n];
        let mut removed = Vec::new();
        for &op in order.iter().rev() {
            let i = op.index();
            if is_output[i] || writes_output[i] || live_readers[i] > 0 {
                live[i] = true;
                for p in &preds[i] {
                    live_readers[p.index()] += 1;
                }
            } else {
                removed.push(op);
                tracing::debug!(target: "schedule", "removed dead operation: {op}");
            }
        }
        removed.reverse();
        let order: Vec<OpId> = order.into_iter().filter(|o| live[o.index()]).collect();
        // Users: live readers (an operation reading a buffer twice counts once), plus the
        // graph's output for returned buffers (Inductor's `OutputNode` user).
        let mut readers: Vec<Vec<OpId>> = vec![Vec::new(); n];
        for &op in &order {
            for r in &rw_refs[op.index()].0 {
                if let BufRef::Buffer(b) = r {
                    let list = &mut readers[b.index()];
                    if list.last() != Some(&op) && !list.contains(&op) {
                        list.push(op);
                    }
                }
            }
        }
        // Ancestors and positions.
        let mut ancestors: Vec<OpSet> = vec![OpSet::new(n); n];
        let mut position = vec![usize::MAX; n];
        for (pos, &op) in order.iter().enumerate() {
            position[op.index()] = pos;
            let mut a = OpSet::new(n);
            for &p in &preds[op.index()] {
                a.insert(p);
                a.union_with(&ancestors[p.index()]);
            }
            ancestors[op.index()] = a;
        }
        let num_users =
            |b: coil_lower::BufferId| readers[b.index()].len() + usize::from(is_output[b.index()]);
        let mut deps = DepTable::default();
        let mut nodes: IndexVec<NodeId, SchedNode> = IndexVec::new();
        for (i, b) in bufs.iter().enumerate() {
            let op = OpId::new(i);
            let kind = base_kind(b);
            let sizes = match &b.kind {
                BufferKind::Computed(c) if kind == NodeKind::Scheduler => {
                    merged_loop_sizes(&c.body)
                }
                _ => LoopSizes {
                    vars: vec![b.layout.numel()],
                    reduce: vec![],
                },
            };
            let group = Group {
                device: config.device,
                numel: sizes.numel(),
                rnumel: sizes.rnumel(),
            };
            let mut intern = |list: &[Dep]| -> Vec<DepId> {
                let mut out: Vec<DepId> = Vec::with_capacity(list.len());
                for d in list {
                    let id = deps.intern(d);
                    if !out.contains(&id) {
                        out.push(id);
                    }
                }
                out
            };
            let read_writes = ReadWrites {
                reads: intern(&b.reads),
                writes: intern(&b.writes),
            };
            let norm = ReadWrites {
                reads: normalized(&deps, &read_writes.reads),
                writes: normalized(&deps, &read_writes.writes),
            };
            let unmet: Vec<DepId> = read_writes
                .reads
                .iter()
                .copied()
                .filter(|&d| matches!(deps.buffer(d), BufRef::Buffer(_)))
                .collect();
            let norm_unmet = normalized(&deps, &unmet);
            let mut dep_ids: Vec<DepId> = norm.reads.iter().chain(&norm.writes).copied().collect();
            dep_ids.sort_unstable();
            dep_ids.dedup();
            let single_use_reads = single_use_reads(graph, &deps, &read_writes, &num_users);
            let mut op_set = OpSet::new(n);
            op_set.insert(op);
            let id = nodes.push(SchedNode {
                id: NodeId::new(i),
                name: op.to_string(),
                kind,
                ops: vec![op],
                op_set,
                outer_loop: None,
                is_reduction: b.is_reduction(),
                reductions: usize::from(b.is_reduction()),
                sizes,
                group,
                dep_ids,
                single_use_reads,
                used_buffers: used_buffers(&deps, &read_writes),
                read_writes,
                norm,
                unmet,
                norm_unmet,
                ancestors: std::mem::replace(&mut ancestors[i], OpSet::new(0)),
                min_order: position[i],
                max_order: position[i],
            });
            debug_assert_eq!(id.index(), i);
        }
        let mut dead = OpSet::new(n);
        removed.iter().for_each(|&op| dead.insert(op));
        let ids_in_order = order.windows(2).all(|w| w[0] < w[1]);
        let op_node: Vec<Option<NodeId>> =
            (0..n).map(|i| live[i].then_some(NodeId::new(i))).collect();
        Ok(Schedule {
            graph,
            config,
            nodes,
            order: order.iter().map(|o| NodeId::new(o.index())).collect(),
            op_node,
            preds,
            readers,
            is_output,
            removed,
            dead,
            position,
            ids_in_order,
            deps,
            mutators,
            log: Vec::new(),
            kernels: Vec::new(),
            strategy: "none",
        })
    }
}

/// Depth-first topological order of `n` operations: each operation after its predecessors,
/// visited in name order; operations in index order otherwise.
fn topo_sort(
    n: usize,
    preds: &[Vec<OpId>],
    name_of: &impl Fn(OpId) -> String,
) -> Result<Vec<OpId>, SchedError> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Visiting,
        Done,
    }
    let mut state = vec![State::New; n];
    let mut out = Vec::with_capacity(n);
    for start in 0..n {
        if state[start] != State::New {
            continue;
        }
        // Iterative DFS: (op, sorted preds, next pred index).
        let sorted = |i: usize| {
            let mut p = preds[i].clone();
            p.sort_by_key(|o| name_of(*o));
            p
        };
        let mut stack: Vec<(usize, Vec<OpId>, usize)> = vec![(start, sorted(start), 0)];
        state[start] = State::Visiting;
        while let Some((op, ps, next)) = stack.last_mut() {
            if let Some(&p) = ps.get(*next) {
                *next += 1;
                match state[p.index()] {
                    State::New => {
                        state[p.index()] = State::Visiting;
                        let s = sorted(p.index());
                        stack.push((p.index(), s, 0));
                    }
                    State::Visiting => return Err(SchedError::Cycle(p.to_string())),
                    State::Done => {}
                }
            } else {
                state[*op] = State::Done;
                out.push(OpId::new(*op));
                stack.pop();
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use coil_lower::{BufferId, InputId};

    fn b(i: usize) -> BufRef {
        BufRef::Buffer(BufferId::new(i))
    }

    #[test]
    fn raw_war_and_waw_dependencies() {
        let x = BufRef::Input(InputId::new(0));
        // op0 writes b0; op1 reads b0 writes b1; op2 overwrites b0 (WAW on op0, WAR on op1);
        // op3 reads b0 (RAW on op2, not op0).
        let ops = vec![
            (vec![x], vec![b(0)]),
            (vec![b(0)], vec![b(1)]),
            (vec![x], vec![b(0)]),
            (vec![b(0), b(1)], vec![b(2)]),
        ];
        let p = ordering_preds(&ops).unwrap();
        assert_eq!(p[0], []);
        assert_eq!(p[1], [(0, DepKind::ReadAfterWrite)]);
        assert_eq!(
            p[2],
            [(0, DepKind::WriteAfterWrite), (1, DepKind::WriteAfterRead)]
        );
        assert_eq!(
            p[3],
            [(2, DepKind::ReadAfterWrite), (1, DepKind::ReadAfterWrite)]
        );
        let bad = vec![(vec![b(5)], vec![b(0)])];
        assert_eq!(ordering_preds(&bad).unwrap_err(), (0, b(5)));
    }

    #[test]
    fn topological_sort_follows_dependencies_and_detects_cycles() {
        let name = |o: OpId| o.to_string();
        let preds = vec![vec![OpId::new(2)], vec![], vec![OpId::new(1)]];
        let order = topo_sort(3, &preds, &name).unwrap();
        assert_eq!(
            order.iter().map(|o| o.index()).collect::<Vec<_>>(),
            [1, 2, 0]
        );
        let cyclic = vec![vec![OpId::new(1)], vec![OpId::new(0)]];
        assert!(topo_sort(2, &cyclic, &name).is_err());
    }
}
