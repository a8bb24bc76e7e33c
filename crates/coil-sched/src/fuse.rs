//! Inductor's fusion machinery on a [`Schedule`]: `can_fuse` in its parts (legality, node
//! kinds, the scorer's profitability brakes, vertical dependency matching and intermediate
//! nodes, the backend's loop rules), `score_fusion_memory`, the peak-memory and distance
//! brakes, `will_fusion_create_cycle`, candidate pairs by shared buffers with the priority
//! filter, and the greedy rounds of `fuse_nodes`.

use hashbrown::{HashMap, HashSet};

use coil_lower::{BufRef, Dep, MemoryDep};

use crate::deps::DepId;
use crate::error::SchedError;
use crate::ids::{NodeId, OpSet};
use crate::loops::{LoopCompat, LoopPlan};
use crate::schedule::Schedule;
use crate::score::{FusionKind, FusionScorer};
use crate::why::WhyNoFuse;

/// Inductor's `fusable_read_and_write` for normalized deps: the same buffer and index, and
/// the write's ranges a prefix of the read's (a reader may loop over extra trailing dims).
fn fusable_read_and_write(read: &Dep, write: &MemoryDep) -> bool {
    match read {
        Dep::Memory(r) => {
            r.buffer == write.buffer
                && r.index == write.index
                && r.ranges.len() >= write.ranges.len()
                && r.ranges[..write.ranges.len()] == write.ranges[..]
        }
        _ => false,
    }
}

impl Schedule<'_> {
    /// Inductor's `score_fusion_memory`: bytes of the deps (normalized) both nodes read or
    /// write identically.
    pub fn score_fusion_memory(&self, a: NodeId, b: NodeId) -> usize {
        let (x, y) = (&self.nodes[a].dep_ids, &self.nodes[b].dep_ids);
        let (mut i, mut j, mut bytes) = (0, 0, 0);
        while i < x.len() && j < y.len() {
            match x[i].cmp(&y[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    bytes += self.deps.bytes(x[i]);
                    i += 1;
                    j += 1;
                }
            }
        }
        bytes
    }

    /// Inductor's `buffer_overlap_score`: when both read some buffers, the larger of the two
    /// nodes' read bytes of those buffers, if that is at least `min_overlap_ratio` of the
    /// larger node's total read bytes; else 0.
    pub fn buffer_overlap_score(&self, a: NodeId, b: NodeId) -> usize {
        let (na, nb) = (&self.nodes[a], &self.nodes[b]);
        let names = |n: &crate::SchedNode| -> HashSet<BufRef> {
            n.norm.reads.iter().map(|&d| self.deps.buffer(d)).collect()
        };
        let common: HashSet<BufRef> = names(na).intersection(&names(nb)).copied().collect();
        if common.is_empty() {
            return 0;
        }
        let bytes = |d: DepId| match self.deps.bytes(d) {
            0 => 10,
            n => n,
        };
        let sum = |n: &crate::SchedNode, only_common: bool| -> usize {
            n.norm
                .reads
                .iter()
                .copied()
                .filter(|&d| !only_common || common.contains(&self.deps.buffer(d)))
                .map(bytes)
                .sum()
        };
        let shared = sum(na, true).max(sum(nb, true));
        let total = sum(na, false).max(sum(nb, false));
        if total > 0 && shared as f64 / total as f64 >= self.config.min_overlap_ratio {
            shared
        } else {
            0
        }
    }

    /// Inductor's `can_fusion_increase_peak_memory`: the buffers each node reads that have a
    /// single user, keyed by (dtype, storage size) as buffer reuse does; the storage sizes (in
    /// elements, as Inductor adds them) of the keys both have, against `peak_memory_factor`
    /// times the shared bytes.
    pub fn can_fusion_increase_peak_memory(&self, a: NodeId, b: NodeId) -> bool {
        let (ka, kb) = (
            &self.nodes[a].single_use_reads,
            &self.nodes[b].single_use_reads,
        );
        if ka.is_empty() || kb.is_empty() {
            return false;
        }
        let common: usize = ka
            .iter()
            .filter(|k| kb.binary_search(k).is_ok())
            .map(|(_, size)| *size)
            .sum();
        common > self.config.peak_memory_factor * self.score_fusion_memory(a, b)
    }

    /// Inductor's `are_long_distant_nodes`: further apart than `max_fusion_distance` in the
    /// original order.
    pub fn are_long_distant_nodes(&self, a: NodeId, b: NodeId) -> bool {
        let (na, nb) = (&self.nodes[a], &self.nodes[b]);
        let d = (na.min_order as i64 - nb.max_order as i64)
            .abs()
            .max((nb.min_order as i64 - na.max_order as i64).abs());
        d > self.config.max_fusion_distance as i64
    }

    /// Distinct buffers the fusion of `a` and `b` would read or write: `b`'s reads of `a`'s
    /// buffers disappear, and so do `a`'s buffers used only inside the fusion.
    pub fn fused_unique_io_buffers(&self, a: NodeId, b: NodeId) -> usize {
        let (na, nb) = (&self.nodes[a], &self.nodes[b]);
        let mut inside = na.op_set.clone();
        inside.union_with(&nb.op_set);
        let buf = |d: &DepId| self.deps.buffer(*d);
        let a_writes: HashSet<BufRef> = na.read_writes.writes.iter().map(buf).collect();
        let mut io: HashSet<BufRef> = HashSet::new();
        for d in &na.read_writes.reads {
            io.insert(buf(d));
        }
        for d in &nb.read_writes.reads {
            if !a_writes.contains(&buf(d)) {
                io.insert(buf(d));
            }
        }
        for &w in &a_writes {
            let internal = match w {
                BufRef::Buffer(buf) => {
                    !self.is_output(buf) && self.readers(buf).iter().all(|r| inside.contains(*r))
                }
                BufRef::Input(_) | BufRef::IndexChecks => false,
            };
            if !internal {
                io.insert(w);
            }
        }
        for d in &nb.read_writes.writes {
            io.insert(buf(d));
        }
        io.len()
    }

    /// True when `n` writes a buffer it does not produce (a scatter into an earlier buffer):
    /// such a node never fuses, since every element of what it writes must be there before
    /// it runs, and any element may change before a reader runs.
    pub fn mutates(&self, n: NodeId) -> bool {
        let node = &self.nodes[n];
        node.read_writes
            .writes
            .iter()
            .any(|&d| !node.produces(self.deps.buffer(d)))
    }

    /// True when `b` depends on `a` (a producer/consumer pair).
    pub fn is_vertical(&self, a: NodeId, b: NodeId) -> bool {
        self.nodes[a].op_set.intersects(&self.nodes[b].ancestors)
    }

    /// Inductor's `Scheduler.can_fuse(node1, node2)`: `Ok` with the loop rules' plan, or the
    /// reason for refusing. The cycle check is separate ([`Schedule::will_fusion_create_cycle`]).
    pub fn can_fuse<S: FusionScorer + ?Sized>(
        &self,
        a: NodeId,
        b: NodeId,
        loops: &dyn LoopCompat,
        scorer: &S,
    ) -> Result<LoopPlan, WhyNoFuse> {
        if a == b {
            return Err(WhyNoFuse::SameNode);
        }
        if self.mutates(a) || self.mutates(b) {
            return Err(WhyNoFuse::Mutation);
        }
        if self.template_of(a).is_some() {
            return self.can_fuse_template(a, b);
        }
        if self.template_of(b).is_some() {
            return Err(WhyNoFuse::TemplatePrologue);
        }
        let (na, nb) = (&self.nodes[a], &self.nodes[b]);
        if na.is_extern_or_nop() {
            return Err(WhyNoFuse::Node1ExternOrNop);
        }
        if nb.is_extern_or_nop() {
            return Err(WhyNoFuse::Node2ExternOrNop);
        }
        if nb.op_set.intersects(&na.ancestors) {
            return Err(WhyNoFuse::MustGoBefore);
        }
        if na.group.device != nb.group.device {
            return Err(WhyNoFuse::DeviceMismatch(
                na.group.device.to_string(),
                nb.group.device.to_string(),
            ));
        }
        let shared = self.score_fusion_memory(a, b);
        if self.is_vertical(a, b) {
            scorer.worth_fusing(self, a, b, FusionKind::Vertical, shared)?;
            self.can_fuse_vertical(a, b)?;
            loops.can_fuse_vertical(self, a, b)
        } else {
            scorer.worth_fusing(self, a, b, FusionKind::Horizontal, shared)?;
            loops.can_fuse_horizontal(self, a, b)
        }
    }

    /// Inductor's `Scheduler.can_fuse_vertical`: every read `b` makes of `a`'s buffers must be
    /// one of `a`'s writes (same index, the write's ranges a prefix of the read's), and no
    /// other buffer `b` reads may come from a node that itself depends on `a`.
    pub fn can_fuse_vertical(&self, a: NodeId, b: NodeId) -> Result<(), WhyNoFuse> {
        let (na, nb) = (&self.nodes[a], &self.nodes[b]);
        // A buffer of `a` that a scatter outside `a` changes before `b` reads it: what `b`
        // reads is the scatter's (Inductor's mutation renaming), an intermediate node.
        for &r in &nb.read_writes.reads {
            let buf = self.deps.buffer(r);
            if !na.produces(buf) {
                continue;
            }
            let between = self.mutators.get(&buf).is_some_and(|ms| {
                ms.iter()
                    .any(|&m| nb.ancestors.contains(m) && !na.op_set.contains(m))
            });
            if between {
                return Err(WhyNoFuse::IntermediateNodes);
            }
        }
        let mut remaining: Vec<&Dep> = nb.norm_unmet.iter().map(|&d| self.deps.get(d)).collect();
        for &w in &na.norm.writes {
            if let Dep::Memory(w) = self.deps.get(w) {
                remaining.retain(|rd| !(rd.buffer() == w.buffer && fusable_read_and_write(rd, w)));
            }
        }
        let mut names: Vec<BufRef> = Vec::new();
        for d in remaining {
            if !names.contains(&d.buffer()) {
                names.push(d.buffer());
            }
        }
        if names.iter().any(|&n| na.produces(n)) {
            return Err(WhyNoFuse::MemoryDepsDidNotMatch);
        }
        for n in names {
            let BufRef::Buffer(buf) = n else { continue };
            let Some(producer) = self.node_of(crate::OpId::of_buffer(buf)) else {
                continue;
            };
            if na.op_set.intersects(&self.nodes[producer].ancestors) {
                return Err(WhyNoFuse::IntermediateNodes);
            }
        }
        Ok(())
    }

    /// Inductor's `will_fusion_create_cycle`: would some fused node have to run both after
    /// one of `a`, `b` and before the other? Starting from the fused nodes holding an ancestor
    /// of the pair, it follows fused nodes through ancestors outside the pair's ancestors,
    /// looking for one that depends on the pair. A start node entirely among the ancestors
    /// adds no path; since positions grow with operation ids, nodes whose position span
    /// cannot reach both an ancestor and a non-ancestor are skipped without looking inside.
    pub fn will_fusion_create_cycle(&self, a: NodeId, b: NodeId) -> bool {
        let (na, nb) = (&self.nodes[a], &self.nodes[b]);
        let mut names = na.op_set.clone();
        names.union_with(&nb.op_set);
        let mut ancestors = na.ancestors.clone();
        ancestors.union_with(&nb.ancestors);
        ancestors.subtract(&names);
        let Some(last_ancestor) = ancestors.last() else {
            return false;
        };
        // A start node must hold an ancestor (so begin at or before the last one) and an
        // operation that is no ancestor (so end at or after the first such position).
        let span = if self.ids_in_order {
            let n = self.position.len();
            match OpSet::first_missing(&[&ancestors, &names, &self.dead], n) {
                Some(gap) => Some((
                    self.position[last_ancestor.index()],
                    self.position[gap.index()],
                )),
                None => return false,
            }
        } else {
            None
        };
        let mut visited: Vec<NodeId> = Vec::new();
        let mut stack: Vec<NodeId> = self
            .order
            .iter()
            .copied()
            .filter(|&f| {
                let node = &self.nodes[f];
                f != a
                    && f != b
                    && node.is_fused()
                    && span
                        .is_none_or(|(last, gap)| node.min_order <= last && node.max_order >= gap)
                    && node.op_set.intersects(&ancestors)
            })
            .collect();
        while let Some(f) = stack.pop() {
            let node = &self.nodes[f];
            if visited.contains(&f) {
                continue;
            }
            visited.push(f);
            if node.op_set.is_subset(&ancestors) {
                continue;
            }
            if node.ancestors.intersects(&names) {
                return true;
            }
            for op in node.ancestors.iter_difference(&ancestors) {
                if let Some(g) = self.node_of(op)
                    && self.nodes[g].is_fused()
                    && !visited.contains(&g)
                    && !stack.contains(&g)
                {
                    stack.push(g);
                }
            }
        }
        false
    }

    fn log_refusal(&mut self, a: NodeId, b: NodeId, why: &WhyNoFuse) {
        if why.is_silent() {
            return;
        }
        let (x, y) = if why.is_swapped() { (b, a) } else { (a, b) };
        let line = format!(
            "cannot fuse {} with {}: {why}",
            self.nodes[x].name, self.nodes[y].name
        );
        self.log_line(line);
    }

    /// Inductor's `get_possible_fusions`: pairs of nodes that share a buffer (each node with
    /// at most the next `max_fusion_buffer_group_pairwise_attempts` of each buffer's group),
    /// that pass `can_fuse`, of the most urgent loop priority, best score first.
    pub fn possible_fusions<S: FusionScorer + ?Sized>(
        &mut self,
        loops: &dyn LoopCompat,
        scorer: &S,
    ) -> Vec<(NodeId, NodeId, LoopPlan)> {
        let mut groups: Vec<Vec<NodeId>> = Vec::new();
        let mut group_of: HashMap<BufRef, usize> = HashMap::new();
        for &n in &self.order {
            let node = &self.nodes[n];
            if node.is_extern_or_nop() && self.template_of(n).is_none() {
                continue;
            }
            for &buf in &node.used_buffers {
                let g = *group_of.entry(buf).or_insert_with(|| {
                    groups.push(Vec::new());
                    groups.len() - 1
                });
                groups[g].push(n);
            }
        }
        if self.config.aggressive_fusion {
            let mut by_group: HashMap<crate::Group, usize> = HashMap::new();
            let first = groups.len();
            for &n in &self.order {
                let node = &self.nodes[n];
                if node.is_extern_or_nop() {
                    continue;
                }
                let g = *by_group.entry(node.group).or_insert_with(|| {
                    groups.push(Vec::new());
                    groups.len() - 1
                });
                groups[g].push(n);
            }
            debug_assert!(groups.len() >= first);
        }
        let window = self.config.max_fusion_buffer_group_pairwise_attempts;
        let mut seen: HashSet<(NodeId, NodeId)> = HashSet::new();
        let mut possible: Vec<(NodeId, NodeId, LoopPlan)> = Vec::new();
        for group in &groups {
            for (i, &n1) in group.iter().enumerate() {
                for &n2 in group.iter().skip(i + 1).take(window) {
                    if !seen.insert((n1, n2)) {
                        continue;
                    }
                    match self.can_fuse(n1, n2, loops, scorer) {
                        Ok(plan) => possible.push((n1, n2, plan)),
                        Err(why) => self.log_refusal(n1, n2, &why),
                    }
                }
            }
        }
        // Only the most urgent priority class survives the round.
        if let Some(best) = possible.iter().map(|(_, _, p)| p.priority).min() {
            possible.retain(|(_, _, p)| p.priority == best);
        }
        let scores: Vec<S::Score> = possible
            .iter()
            .map(|&(a, b, _)| scorer.score(self, a, b))
            .collect();
        let order = sort_descending(&scores);
        let possible: Vec<_> = order.into_iter().map(|i| possible[i].clone()).collect();
        self.log_line(format!("found {} possible fusions", possible.len()));
        possible
    }

    /// One round (Inductor's `fuse_nodes_once`): candidates, then greedily in score order,
    /// each pair mapped to the nodes now holding it, re-checked, cycle-checked and fused.
    pub fn fuse_nodes_once<S: FusionScorer + ?Sized>(
        &mut self,
        loops: &dyn LoopCompat,
        scorer: &S,
    ) -> Result<(), SchedError> {
        self.log_line("fuse_nodes_once, candidates:".into());
        for i in 0..self.order.len() {
            let line = format!("  {}", self.debug_str_short(self.order[i]));
            self.log_line(line);
        }
        for (p1, p2, _) in self.possible_fusions(loops, scorer) {
            let current = |s: &Self, n: NodeId| s.node_of(s.nodes[n].ops[0]).expect("live");
            let (a, b) = (current(self, p1), current(self, p2));
            match self.can_fuse(a, b, loops, scorer) {
                Ok(plan) => {
                    if self.will_fusion_create_cycle(a, b) {
                        self.log_refusal(a, b, &WhyNoFuse::WillCreateCycle);
                        continue;
                    }
                    let line = if self.template_of(a).is_some() {
                        format!(
                            "fusing template {} with epilogue {}",
                            self.nodes[a].name, self.nodes[b].name
                        )
                    } else {
                        format!("fusing {} with {}", self.nodes[a].name, self.nodes[b].name)
                    };
                    self.log_line(line);
                    self.fuse_two(a, b, &plan);
                }
                Err(why) => self.log_refusal(a, b, &why),
            }
        }
        self.reorder()
    }

    /// Inductor's `fuse_nodes`: rounds of [`Schedule::fuse_nodes_once`] until the node count
    /// stops falling, reaches 1, or `max_fusion_rounds` rounds have run.
    pub fn fuse_nodes<S: FusionScorer + ?Sized>(
        &mut self,
        loops: &dyn LoopCompat,
        scorer: &S,
    ) -> Result<(), SchedError> {
        let rounds = self.config.max_fusion_rounds;
        for i in 1..=rounds {
            let old = self.order.len();
            self.log_line(format!(
                "===== attempting fusion ({i}/{rounds}): {old} nodes ====="
            ));
            self.fuse_nodes_once(loops, scorer)?;
            let new = self.order.len();
            self.log_line(format!(
                "completed fusion round ({i}/{rounds}): fused {old} nodes into {new} nodes"
            ));
            if new == old || new == 1 {
                self.log_line(format!("===== fusion complete ({i} iterations) ====="));
                break;
            }
        }
        Ok(())
    }
}

/// Indices of `scores`, best first: a stable merge sort that only asks `<` (so a
/// non-transitive order like `FusionScore`'s cannot make it fail), equal elements in their
/// original order (Python's `sorted(..., reverse=True)`).
pub(crate) fn sort_descending<T: PartialOrd>(scores: &[T]) -> Vec<usize> {
    fn merge_sort<T: PartialOrd>(idx: &mut [usize], scores: &[T], tmp: &mut Vec<usize>) {
        if idx.len() <= 1 {
            return;
        }
        let mid = idx.len() / 2;
        merge_sort(&mut idx[..mid], scores, tmp);
        merge_sort(&mut idx[mid..], scores, tmp);
        tmp.clear();
        let (mut i, mut j) = (0, mid);
        while i < mid && j < idx.len() {
            // Take from the right only when the left is strictly worse.
            if scores[idx[i]] < scores[idx[j]] {
                tmp.push(idx[j]);
                j += 1;
            } else {
                tmp.push(idx[i]);
                i += 1;
            }
        }
        tmp.extend_from_slice(&idx[i..mid]);
        tmp.extend_from_slice(&idx[j..]);
        idx.copy_from_slice(tmp);
    }
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    let mut tmp = Vec::with_capacity(idx.len());
    merge_sort(&mut idx, scores, &mut tmp);
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_descending_sort() {
        assert_eq!(sort_descending(&[1, 3, 2, 3, 1]), [1, 3, 2, 0, 4]);
        assert_eq!(sort_descending::<i32>(&[]), Vec::<usize>::new());
    }
}
