//! Fusion scoring, the profitability half of `can_fuse`: the [`FusionScorer`] trait,
//! Inductor's [`FusionScore`] with its non-lexicographic order ([`InductorScorer`], Inductor's
//! `InductorChoices`), and [`RegisterPressureScorer`], which also refuses fusions whose body
//! would keep too many values live.

use hashbrown::HashMap;
use std::fmt;

use coil_lower::{BufRef, BufferId, Expr, Idx};

use crate::ids::{NodeId, OpId};
use crate::schedule::Schedule;
use crate::why::WhyNoFuse;

/// Whether a candidate pair is a producer and its consumer, or two independent nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FusionKind {
    /// The second node depends on the first.
    Vertical,
    /// Neither depends on the other; they share reads.
    Horizontal,
}

/// Ranks fusion candidates and decides whether a legal fusion is worth making. Legality
/// (dependencies, cycles, loops) stays with the scheduler and the [`crate::LoopCompat`] rules.
pub trait FusionScorer {
    /// A candidate's priority; larger fuses first. Only `<` is used (Inductor's `FusionScore`
    /// is not a total order; candidates are sorted by a stable merge sort on `<`).
    type Score: PartialOrd + fmt::Debug + Clone;

    /// The scorer's name (`inductor`, `inductor-regpressure`).
    fn name(&self) -> &'static str;

    /// The priority of fusing `a` and `b`.
    fn score(&self, sched: &Schedule<'_>, a: NodeId, b: NodeId) -> Self::Score;

    /// The profitability half of `can_fuse` (Inductor's `InductorChoices.can_fuse` and
    /// `can_fuse_horizontal`), given the bytes the two nodes' read/write sets share.
    fn worth_fusing(
        &self,
        sched: &Schedule<'_>,
        a: NodeId,
        b: NodeId,
        kind: FusionKind,
        shared_bytes: usize,
    ) -> Result<(), WhyNoFuse>;
}

/// Inductor's `FusionScore`: `(template_score, node_type_score, memory_score,
/// buffer_overlap_score, proximity_score)`.
///
/// Ordered like Inductor's `__lt__`: the template score first; then, when one memory score
/// exceeds the other by more than 16x, memory alone; otherwise the rest lexicographically.
/// That is not transitive, so only `<` is meaningful (`partial_cmp` is `None` for pairs that
/// are neither `<` nor `>` nor equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FusionScore {
    /// 2 for ordinary pairs with shared data, 1 for template epilogues (unless
    /// `epilogue_fusion_first`) or no shared data, 0 for prologues.
    pub template_score: i64,
    /// 1 when both or neither are reductions and they share data.
    pub node_type_score: i64,
    /// Bytes of identical reads and writes (`score_fusion_memory`).
    pub memory_score: i64,
    /// Bytes of reads of the same buffers at different indices, when `memory_score` is 0 and
    /// neither is a reduction.
    pub buffer_overlap_score: i64,
    /// Minus the distance between the two in the original order.
    pub proximity_score: i64,
}

impl FusionScore {
    /// Inductor's `FusionScore.__lt__`.
    pub fn lt(&self, other: &FusionScore) -> bool {
        const THRESHOLD: i64 = 16;
        if self.template_score != other.template_score {
            return self.template_score < other.template_score;
        }
        let (a, b) = (self.memory_score, other.memory_score);
        if a.max(b) > a.min(b).saturating_mul(THRESHOLD) {
            return a < b;
        }
        (
            self.node_type_score,
            self.memory_score,
            self.buffer_overlap_score,
            self.proximity_score,
        ) < (
            other.node_type_score,
            other.memory_score,
            other.buffer_overlap_score,
            other.proximity_score,
        )
    }

    /// The five fields, in order.
    pub fn as_tuple(&self) -> (i64, i64, i64, i64, i64) {
        (
            self.template_score,
            self.node_type_score,
            self.memory_score,
            self.buffer_overlap_score,
            self.proximity_score,
        )
    }
}

impl PartialOrd for FusionScore {
    fn partial_cmp(&self, other: &FusionScore) -> Option<std::cmp::Ordering> {
        use std::cmp::Ordering::*;
        if self == other {
            Some(Equal)
        } else if self.lt(other) {
            Some(Less)
        } else if other.lt(self) {
            Some(Greater)
        } else {
            None
        }
    }
}

/// `(2, 0, 4202496, 0, -1)`.
impl fmt::Display for FusionScore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_tuple())
    }
}

/// Inductor's default policy (`InductorChoices`): [`FusionScore`] and its `can_fuse` brakes:
/// no shared data, `max_fusion_size`, peak memory, unique I/O buffers; for horizontal pairs,
/// `score_fusion_memory_threshold` and the distance limit.
#[derive(Clone, Copy, Debug, Default)]
pub struct InductorScorer;

impl FusionScorer for InductorScorer {
    type Score = FusionScore;

    fn name(&self) -> &'static str {
        "inductor"
    }

    fn score(&self, s: &Schedule<'_>, a: NodeId, b: NodeId) -> FusionScore {
        let (na, nb) = (s.node(a), s.node(b));
        let memory = if s.template_of(a).is_some() {
            s.template_shared_bytes(a, b) as i64
        } else {
            s.score_fusion_memory(a, b) as i64
        };
        let overlap = if memory == 0 && !na.is_reduction() && !nb.is_reduction() {
            s.buffer_overlap_score(a, b) as i64
        } else {
            0
        };
        let proximity = -(na.min_order() as i64 - nb.max_order() as i64)
            .abs()
            .max((nb.min_order() as i64 - na.max_order() as i64).abs());
        // Inductor's `score_fusion`: a template as node2 (a prologue) 0; otherwise 1, plus 1
        // with shared data when node1's being a template matches `epilogue_fusion_first`
        // (so by default ordinary pairs with shared data come first, template epilogues after).
        let template_score = if s.template_of(b).is_some() {
            0
        } else {
            let template = s.template_of(a).is_some();
            1 + i64::from(template == s.config().epilogue_fusion_first && memory > 0)
        };
        FusionScore {
            template_score,
            node_type_score: i64::from(na.is_reduction() == nb.is_reduction() && memory > 0),
            memory_score: memory,
            buffer_overlap_score: overlap,
            proximity_score: proximity,
        }
    }

    fn worth_fusing(
        &self,
        s: &Schedule<'_>,
        a: NodeId,
        b: NodeId,
        kind: FusionKind,
        shared: usize,
    ) -> Result<(), WhyNoFuse> {
        let (na, nb) = (s.node(a), s.node(b));
        let cfg = s.config();
        if shared == 0 && (!cfg.aggressive_fusion || na.is_reduction() || nb.is_reduction()) {
            return Err(WhyNoFuse::NoSharedData);
        }
        if na.num_ops() + nb.num_ops() > cfg.max_fusion_size {
            return Err(WhyNoFuse::ExceedsMaxFusion);
        }
        if let Some(cap) = cfg.max_reduction_stages
            && na.reductions + nb.reductions > cap
        {
            return Err(WhyNoFuse::TooManyReductions(cap));
        }
        if s.can_fusion_increase_peak_memory(a, b) {
            return Err(WhyNoFuse::PeakMemory);
        }
        if let Some(limit) = cfg.max_fusion_unique_io_buffers
            && s.fused_unique_io_buffers(a, b) > limit
        {
            return Err(WhyNoFuse::TooManyReadsAndWrites);
        }
        if kind == FusionKind::Horizontal {
            if shared < cfg.score_fusion_memory_threshold {
                return Err(WhyNoFuse::ScoreThreshold);
            }
            if s.are_long_distant_nodes(a, b) {
                return Err(WhyNoFuse::TooFarApart);
            }
        }
        Ok(())
    }
}

/// Inductor's policy plus a register-pressure brake: a fusion is refused when the fused
/// body's estimated live values ([`estimate_live_values`]) exceed `budget`. Scores as
/// Inductor does. Shows that [`FusionScorer`] is the place for such policies.
#[derive(Clone, Copy, Debug)]
pub struct RegisterPressureScorer {
    /// Scores and the other brakes.
    pub inner: InductorScorer,
    /// Most values the fused body may keep live at once.
    pub budget: usize,
}

impl RegisterPressureScorer {
    /// Inductor's policy with this live-value budget.
    pub fn new(budget: usize) -> RegisterPressureScorer {
        RegisterPressureScorer {
            inner: InductorScorer,
            budget,
        }
    }
}

impl Default for RegisterPressureScorer {
    /// A budget of 32 live values (a CPU's 16 vector registers, twice over; a GPU thread's
    /// values stay far below its 255 registers).
    fn default() -> RegisterPressureScorer {
        RegisterPressureScorer::new(32)
    }
}

impl FusionScorer for RegisterPressureScorer {
    type Score = FusionScore;

    fn name(&self) -> &'static str {
        "inductor-regpressure"
    }

    fn score(&self, s: &Schedule<'_>, a: NodeId, b: NodeId) -> FusionScore {
        self.inner.score(s, a, b)
    }

    fn worth_fusing(
        &self,
        s: &Schedule<'_>,
        a: NodeId,
        b: NodeId,
        kind: FusionKind,
        shared: usize,
    ) -> Result<(), WhyNoFuse> {
        self.inner.worth_fusing(s, a, b, kind, shared)?;
        let ops: Vec<OpId> = [s.node(a).ops(), s.node(b).ops()].concat();
        let live = estimate_live_values(s, &ops);
        if live > self.budget {
            return Err(WhyNoFuse::Scorer(format!(
                "register pressure: the fused body keeps {live} values live, over the budget of {}",
                self.budget
            )));
        }
        Ok(())
    }
}

/// Estimates the most values live at once in one kernel computing `ops` in order: the loop
/// bodies' expression DAGs are merged as codegen would CSE them (the same load or expression
/// over the same loops is one value; a load of a buffer computed earlier in the kernel is
/// that buffer's value, kept in a register), values are defined in body order, and a value
/// lives from its definition to its last use (the store, for stored values). A reduction's
/// accumulator lives from the start of the kernel (it is initialised before the loops).
/// Constants are immediates and not counted.
pub fn estimate_live_values(sched: &Schedule<'_>, ops: &[OpId]) -> usize {
    let graph = sched.graph();
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut def: Vec<usize> = Vec::new();
    let mut last: Vec<usize> = Vec::new();
    let mut stored: HashMap<BufferId, usize> = HashMap::new();
    let mut t = 0usize;
    for &op in ops {
        let Some(c) = graph.buffer(op.buffer()).computed() else {
            continue;
        };
        let body = &c.body;
        let loops = format!("{:?}", body.var_ranges);
        // Per local node: a global value id, or a constant's text.
        let mut local: Vec<Result<usize, String>> = Vec::with_capacity(body.exprs.len());
        for (id, e) in body.exprs.iter() {
            let arg = |x: coil_lower::ExprId, local: &Vec<Result<usize, String>>| match &local
                [x.index()]
            {
                Ok(v) => format!("v{v}"),
                Err(c) => c.clone(),
            };
            let key = match e {
                Expr::Constant { value, dtype } => {
                    local.push(Err(format!("{value}:{dtype:?}")));
                    continue;
                }
                Expr::Load {
                    buffer: BufRef::Buffer(b),
                    mask: None,
                    ..
                } if stored.contains_key(b) => {
                    let v = stored[b];
                    last[v] = last[v].max(t);
                    local.push(Ok(v));
                    continue;
                }
                Expr::Load {
                    buffer,
                    index,
                    mask,
                } => format!(
                    "load {buffer:?}[{index}] {loops} {} {}",
                    mask.map(|m| arg(m, &local)).unwrap_or_default(),
                    // `ind<n>` names a local node: key it by that node's global value.
                    index
                        .indirect_nodes()
                        .into_iter()
                        .map(|n| arg(coil_lower::ExprId::new(n), &local))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                Expr::IndirectIndex {
                    value,
                    size,
                    wrap_negative,
                    ..
                } => format!("indirect {} {size} {wrap_negative}", arg(*value, &local)),
                Expr::IndexExpr { index, dtype } => format!("index {index} {loops} {dtype:?}"),
                Expr::ToDtype { value, dtype } => format!("cast {} {dtype:?}", arg(*value, &local)),
                Expr::Bitcast { value, dtype } => {
                    format!("bitcast {} {dtype:?}", arg(*value, &local))
                }
                Expr::Unary(o, a) => format!("{o} {}", arg(*a, &local)),
                Expr::Binary(o, a, b) => {
                    format!("{o} {} {}", arg(*a, &local), arg(*b, &local))
                }
                Expr::Ternary(o, a, b, c) => format!(
                    "{o} {} {} {}",
                    arg(*a, &local),
                    arg(*b, &local),
                    arg(*c, &local)
                ),
                Expr::Reduction {
                    reduction_type,
                    value,
                } => format!("{op} {reduction_type} {}", arg(*value, &local)),
                Expr::Scan { scan_type, value } => {
                    format!("{op} scan {scan_type} {}", arg(*value, &local))
                }
            };
            let v = match ids.get(&key) {
                Some(&v) => v,
                None => {
                    let v = def.len();
                    def.push(if matches!(e, Expr::Reduction { .. }) {
                        0
                    } else {
                        t
                    });
                    last.push(t);
                    ids.insert(key, v);
                    for a in e.args() {
                        if let Ok(u) = local[a.index()] {
                            last[u] = last[u].max(t);
                        }
                    }
                    t += 1;
                    v
                }
            };
            debug_assert_eq!(local.len(), id.index());
            local.push(Ok(v));
        }
        if let Ok(v) = local[body.value.index()] {
            last[v] = last[v].max(t);
            stored.insert(op.buffer(), v);
        }
        t += 1;
    }
    let mut delta = vec![0i64; t + 2];
    for (d, l) in def.iter().zip(&last) {
        delta[*d] += 1;
        delta[*l + 1] -= 1;
    }
    let mut live = 0i64;
    let mut most = 0i64;
    for d in delta {
        live += d;
        most = most.max(live);
    }
    most as usize
}
