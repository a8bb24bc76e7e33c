//! Loop compatibility, the backend's half of `can_fuse`: can two nodes' loops be stitched into
//! one kernel? [`LoopCompat`] is the object-safe question a backend answers; [`SimdLoops`]
//! (Inductor's Triton rules) and [`CppLoops`] (its CPU rules, with outer-loop fusion) are the
//! reference answers the real backends pick from.

use std::fmt;

use crate::ids::NodeId;
use crate::node::{LoopSizes, NodeKind, SchedNode};
use crate::schedule::Schedule;
use crate::why::WhyNoFuse;

/// How the loop rules accept a fusion.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopPlan {
    /// Inductor's `get_fusion_pair_priority`: smaller is more urgent, and each fusion round
    /// keeps only the candidates of the smallest priority (the CPU defers outer-loop fusions
    /// with priority 1 to rounds where nothing else is left).
    pub priority: u8,
    /// The fused node shares only its first `depth` loops (the CPU's
    /// `OuterLoopFusedSchedulerNode`).
    pub outer_loop_depth: Option<usize>,
    /// The fused node's loops, when the rules re-split one side's loops to match the other
    /// (the CPU's `COMPATIBLE_RANGES_NO_REDUCTION`).
    pub sizes: Option<LoopSizes>,
}

/// The backend's loop-compatibility rules. Object-safe: the scheduler holds a `&dyn LoopCompat`.
pub trait LoopCompat: fmt::Debug + Send + Sync {
    /// A short name (`simd`, `cpp`).
    fn name(&self) -> &'static str;

    /// Can producer `a` and consumer `b` (b depends on a) share one kernel?
    fn can_fuse_vertical(
        &self,
        sched: &Schedule<'_>,
        a: NodeId,
        b: NodeId,
    ) -> Result<LoopPlan, WhyNoFuse>;

    /// Can independent nodes `a` and `b` share one kernel?
    fn can_fuse_horizontal(
        &self,
        sched: &Schedule<'_>,
        a: NodeId,
        b: NodeId,
    ) -> Result<LoopPlan, WhyNoFuse>;
}

/// Inductor's SIMD (Triton) rules over `(numel, rnumel)` groups, for GPU-style backends:
/// same group; or a pointwise `(N, 1)` with a reduction `(M, R)` where `N == M * R` and every
/// pointwise loop nest splits into `(M, R)`, or `N == M` (an epilogue over the reduction's
/// results). Direction does not matter, except for coil's one addition: a reduction to one
/// element does not fuse into a pointwise consumer of more elements (there is no outer loop
/// to share; Inductor avoids the pair by splitting such reductions in two).
#[derive(Clone, Copy, Debug, Default)]
pub struct SimdLoops;

impl SimdLoops {
    fn can_fuse(&self, s: &Schedule<'_>, a: NodeId, b: NodeId) -> Result<LoopPlan, WhyNoFuse> {
        let (na, nb) = (s.node(a), s.node(b));
        let (n1, r1) = (na.group.numel, na.group.rnumel);
        let (n2, r2) = (nb.group.numel, nb.group.rnumel);
        match (na.is_reduction, nb.is_reduction) {
            (true, true) if n1 == n2 && r1 == r2 => Ok(LoopPlan::default()),
            (true, true) => Err(WhyNoFuse::backend(format!(
                "numel/rnumel mismatch (reduce) ({n1}, {n2}), ({r1}, {r2})"
            ))),
            (false, false) if n1 == n2 && r1 == r2 => Ok(LoopPlan::default()),
            (false, false) => Err(WhyNoFuse::backend(format!(
                "numel/rnumel mismatch (non-reduce) ({n1}, {n2}), ({r1}, {r2})"
            ))),
            (false, true) => {
                if n1 == n2 * r2 {
                    let ok = s
                        .members(a)
                        .all(|m| is_compatible(&[n2, r2], &[&m.sizes.vars, &m.sizes.reduce]));
                    if ok {
                        Ok(LoopPlan::default())
                    } else {
                        Err(WhyNoFuse::backend("nodes numel/rnumel incompatibility"))
                    }
                } else if n1 == n2 {
                    Ok(LoopPlan::default())
                } else {
                    Err(WhyNoFuse::backend("nodes numel incompatibility"))
                }
            }
            // Inductor: `return self.can_fuse_horizontal(node2, node1)`.
            (true, false) => self.can_fuse(s, b, a).map_err(WhyNoFuse::swap),
        }
    }
}

impl LoopCompat for SimdLoops {
    fn name(&self) -> &'static str {
        "simd"
    }

    fn can_fuse_vertical(
        &self,
        s: &Schedule<'_>,
        a: NodeId,
        b: NodeId,
    ) -> Result<LoopPlan, WhyNoFuse> {
        let (na, nb) = (s.node(a), s.node(b));
        if na.is_reduction && !nb.is_reduction && na.group.numel == 1 && nb.group.numel > 1 {
            return Err(WhyNoFuse::backend(format!(
                "reduction to one element has no outer loop to share with its pointwise consumer \
                 (numel 1, rnumel {}; consumer numel {})",
                na.group.rnumel, nb.group.numel
            )));
        }
        self.can_fuse(s, a, b)
    }

    fn can_fuse_horizontal(
        &self,
        s: &Schedule<'_>,
        a: NodeId,
        b: NodeId,
    ) -> Result<LoopPlan, WhyNoFuse> {
        self.can_fuse(s, a, b)
    }
}

/// Inductor's `SIMDKernel.is_compatible`: can loop nests of these `lengths` (iteration sizes,
/// then reduction sizes) be split or merged onto `groups` (`[numel, rnumel]`), size-1 loops
/// aside? (`_split_iteration_ranges` without raising.)
pub fn is_compatible(groups: &[usize], lengths: &[&[usize]]) -> bool {
    let mut remaining: Vec<usize> = groups.to_vec();
    let mut current = 0usize;
    let take = |remaining: &mut Vec<usize>, i: usize, size: usize| -> bool {
        if size == 0 || !remaining[i].is_multiple_of(size) {
            return false;
        }
        remaining[i] /= size;
        true
    };
    for group in lengths {
        for &size in *group {
            if size == 1 {
                continue;
            }
            while current < remaining.len() && remaining[current] == 1 {
                current += 1;
            }
            if current >= remaining.len() {
                return false;
            }
            if current + 1 < remaining.len() && size > remaining[current] {
                let first = remaining[current];
                if size % first != 0 {
                    return false;
                }
                if !take(&mut remaining, current, first)
                    || !take(&mut remaining, current + 1, size / first)
                {
                    return false;
                }
            } else if !take(&mut remaining, current, size) {
                return false;
            }
        }
    }
    remaining.iter().all(|&r| r == 1)
}

/// Whether a member of `n` is a scan.
fn has_scan(s: &Schedule<'_>, n: &SchedNode) -> bool {
    s.members(n.id).any(|m| {
        s.graph
            .buffer(m.ops[0].buffer())
            .computed()
            .is_some_and(|c| c.is_scan())
    })
}

/// Why the CPU rules accept a pair (Inductor's `ReasonFusedNodes`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum CppReason {
    SameVarsReduce,
    CompatibleReduction,
    /// The fused node takes these loops.
    CompatibleRangesNoReduction(LoopSizes),
}

/// Inductor's CPU (C++) rules over per-loop sizes: same loops; a pointwise whose loops are a
/// reduction's outer then reduction loops (`COMPATIBLE_REDUCTION`); pointwise nodes of one
/// shape whose loops merged differently (`COMPATIBLE_RANGES_NO_REDUCTION`); and, for a
/// reduction producer, outer-loop fusion (the two share their first loops and run their inner
/// loops one after the other) at priority 1, so that it waits for rounds with nothing else
/// to fuse. A reduction with no iteration loop (to one element) has no outer loop to share.
/// Inductor's CPU rules refuse silently; coil says why, prefixed `cpp:`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CppLoops;

impl CppLoops {
    fn why_fuse(s: &Schedule<'_>, a: &SchedNode, b: &SchedNode) -> Option<CppReason> {
        let (v1, r1) = (&a.sizes.vars, &a.sizes.reduce);
        let (v2, r2) = (&b.sizes.vars, &b.sizes.reduce);
        if v1 == v2 && r1 == r2 {
            return Some(CppReason::SameVarsReduce);
        }
        if r1.is_empty() && *v1 == [v2.as_slice(), r2.as_slice()].concat() {
            return Some(CppReason::CompatibleReduction);
        }
        // coil's addition (Inductor's CPU backend runs scans as ATen fallbacks): a scan's
        // pointwise reader of every element joins its row loop, as `COMPATIBLE_REDUCTION` in
        // the other direction (the memory-dependency check still requires the reader to read
        // the scan where it stores).
        let all = |v: &[usize], r: &[usize]| v.iter().chain(r).product::<usize>();
        if r2.is_empty() && !r1.is_empty() && has_scan(s, a) && all(v1, r1) == all(v2, r2) {
            return Some(CppReason::CompatibleReduction);
        }
        Self::compatible_ranges(s, a, b).map(CppReason::CompatibleRangesNoReduction)
    }

    /// `_can_fuse_nodes_with_compatible_ranges`: two pointwise nodes computing the same
    /// number of elements, one with a single (merged) loop and not fused, both over buffers
    /// of the same shape. The fused node takes the other side's loops.
    fn compatible_ranges(s: &Schedule<'_>, a: &SchedNode, b: &SchedNode) -> Option<LoopSizes> {
        let (v1, v2) = (&a.sizes.vars, &b.sizes.vars);
        let both_pointwise = a.sizes.reduce.is_empty() && b.sizes.reduce.is_empty();
        let same_numel = v1.iter().product::<usize>() == v2.iter().product::<usize>();
        if !(both_pointwise && same_numel && (v1.len() == 1 || v2.len() == 1)) {
            return None;
        }
        let (recompute, reference) = if v1.len() < v2.len() { (a, b) } else { (b, a) };
        if recompute.kind != NodeKind::Scheduler {
            return None;
        }
        let shape = |n: &SchedNode| -> Option<Vec<usize>> {
            let mut shapes = s
                .members(n.id)
                .map(|m| s.graph.buffer(m.ops[0].buffer()).layout.sizes.clone());
            let first = shapes.next()?;
            shapes.all(|x| x == first).then_some(first)
        };
        (shape(recompute)? == shape(reference)?).then(|| reference.sizes.clone())
    }

    fn horizontal_impl(s: &Schedule<'_>, a: &SchedNode, b: &SchedNode) -> Option<CppReason> {
        if a.outer_loop.is_some() || b.outer_loop.is_some() {
            return None;
        }
        Self::why_fuse(s, a, b)
    }

    /// `_get_outer_loop_fusion_depth`.
    fn outer_loop_depth(s: &Schedule<'_>, a: &SchedNode, b: &SchedNode) -> usize {
        let n1 = match &a.outer_loop {
            Some(o) => s.node(*o.parts.last().expect("outer loop parts")),
            None => a,
        };
        let n2 = match &b.outer_loop {
            Some(o) => s.node(o.parts[0]),
            None => b,
        };
        let (v1, r1) = (&n1.sizes.vars, &n1.sizes.reduce);
        let (v2, r2) = (&n2.sizes.vars, &n2.sizes.reduce);
        if v1.is_empty() && v2.is_empty() && !r1.is_empty() && !r2.is_empty() {
            return 0;
        }
        if let (Some(x), Some(y)) = (&a.outer_loop, &b.outer_loop) {
            return if x.depth == y.depth { x.depth } else { 0 };
        }
        let depth = v1.len().min(v2.len());
        if depth >= 1 && v1[..depth] == v2[..depth] {
            match a.outer_loop.as_ref().or(b.outer_loop.as_ref()) {
                Some(o) if o.depth != depth => 0,
                _ => depth,
            }
        } else {
            0
        }
    }

    fn plan(reason: CppReason) -> LoopPlan {
        LoopPlan {
            sizes: match reason {
                CppReason::CompatibleRangesNoReduction(sizes) => Some(sizes),
                _ => None,
            },
            ..LoopPlan::default()
        }
    }

    fn mismatch(a: &SchedNode, b: &SchedNode) -> String {
        format!("cpp: loops do not match: {} vs {}", a.sizes, b.sizes)
    }
}

impl LoopCompat for CppLoops {
    fn name(&self) -> &'static str {
        "cpp"
    }

    fn can_fuse_vertical(
        &self,
        s: &Schedule<'_>,
        a: NodeId,
        b: NodeId,
    ) -> Result<LoopPlan, WhyNoFuse> {
        let (na, nb) = (s.node(a), s.node(b));
        if (!na.is_reduction || has_scan(s, na))
            && let Some(reason) = Self::horizontal_impl(s, na, nb)
        {
            return Ok(Self::plan(reason));
        }
        let depth = Self::outer_loop_depth(s, na, nb);
        if depth >= 1 {
            return Ok(LoopPlan {
                priority: 1,
                outer_loop_depth: Some(depth),
                sizes: None,
            });
        }
        Err(WhyNoFuse::backend(format!(
            "{} and no outer loop is shared",
            Self::mismatch(na, nb)
        )))
    }

    fn can_fuse_horizontal(
        &self,
        s: &Schedule<'_>,
        a: NodeId,
        b: NodeId,
    ) -> Result<LoopPlan, WhyNoFuse> {
        let (na, nb) = (s.node(a), s.node(b));
        let limit = s.config().cpp_max_horizontal_fusion_size;
        if na.num_ops() + nb.num_ops() > limit {
            return Err(WhyNoFuse::backend(format!(
                "cpp: horizontal fusion of {} nodes exceeds cpp.max_horizontal_fusion_size ({limit})",
                na.num_ops() + nb.num_ops()
            )));
        }
        if na.outer_loop.is_some() || nb.outer_loop.is_some() {
            return Err(WhyNoFuse::backend(
                "cpp: an outer-loop fused node fuses only through its outer loop",
            ));
        }
        match Self::why_fuse(s, na, nb) {
            Some(reason) => Ok(Self::plan(reason)),
            None => Err(WhyNoFuse::backend(Self::mismatch(na, nb))),
        }
    }
}

/// The reference rules a target's loops follow.
pub fn loops_for(style: coil_kernel::LoopStyle) -> &'static dyn LoopCompat {
    match style {
        coil_kernel::LoopStyle::Cpp => &CppLoops,
        coil_kernel::LoopStyle::Simd => &SimdLoops,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_iteration_ranges() {
        assert!(is_compatible(&[1024, 1024], &[&[1024, 1024], &[]]));
        assert!(is_compatible(&[1024, 1024], &[&[1 << 20], &[]]));
        assert!(is_compatible(&[1, 1 << 20], &[&[1 << 20], &[]]));
        assert!(is_compatible(&[64, 32], &[&[8, 8, 32], &[]]));
        assert!(is_compatible(&[64, 32], &[&[32, 64], &[]]));
        assert!(!is_compatible(&[6, 4], &[&[4, 6], &[]]));
        assert!(is_compatible(&[1024, 1024], &[&[1024], &[1024]]));
    }
}
