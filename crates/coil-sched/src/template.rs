//! Template epilogues (Inductor's template nodes): a library call that applies pointwise ops
//! to its output while it is in cache ([`Template`]) fuses with those ops as Inductor fuses a
//! template with its epilogue: `can_fuse` asks only that the epilogue be one the library
//! applies (and `epilogue_fusion` on), the fusion score ranks the pair by
//! `template_score` ([`crate::FusionScore`]), and the fusion log says `fusing template`.
//! [`choose_epilogues`] makes templates of the lowering's candidate epilogues
//! ([`coil_lower::Epilogue`]) and [`template_epilogues`] runs a strategy's fusion over the
//! graph, its library calls still without them, and reports which buffers joined which
//! template; the caller folds those into the calls
//! ([`coil_lower::LoweredGraph::fold_epilogues`]): one lowering per compile.

use coil_lower::{BufferId, LoweredGraph};

use crate::config::{SchedConfig, Template};
use crate::error::SchedError;
use crate::ids::NodeId;
use crate::loops::{LoopCompat, LoopPlan};
use crate::schedule::Schedule;
use crate::strategy::FusionStrategy;
use crate::why::WhyNoFuse;

impl Schedule<'_> {
    /// The template node `n` holds (a template's library call, alone or with epilogues
    /// fused into it), if any.
    pub fn template_of(&self, n: NodeId) -> Option<&Template> {
        let node = &self.nodes[n];
        self.config
            .templates
            .iter()
            .find(|t| node.ops.iter().any(|o| o.buffer() == t.node))
    }

    /// `score_fusion_memory` for a template `a` and its epilogue `b`: the bytes `b` reads of
    /// what `a` writes. (A library call's write is one dependency on its whole buffer, which
    /// no pointwise read equals, so the common-dependency count would be 0.)
    pub fn template_shared_bytes(&self, a: NodeId, b: NodeId) -> usize {
        let na = &self.nodes[a];
        self.nodes[b]
            .norm
            .reads
            .iter()
            .filter(|&&d| na.produces(self.deps.buffer(d)))
            .map(|&d| self.deps.bytes(d))
            .sum()
    }

    /// Inductor's `can_fuse` for a template `a` and a node `b`: `epilogue_fusion` on, `b` not
    /// needed before `a`, and every operation of `b` one of the epilogues `a`'s library
    /// applies (the library runs them on each output tile, so loop shapes do not matter).
    pub(crate) fn can_fuse_template(&self, a: NodeId, b: NodeId) -> Result<LoopPlan, WhyNoFuse> {
        let Some(t) = self.template_of(a) else {
            return Err(WhyNoFuse::Node1ExternOrNop);
        };
        if !self.config.epilogue_fusion {
            return Err(WhyNoFuse::EpilogueFusionOff);
        }
        let nb = &self.nodes[b];
        if self.template_of(b).is_some() {
            return Err(WhyNoFuse::TemplatePrologue);
        }
        if nb.op_set.intersects(&self.nodes[a].ancestors) {
            return Err(WhyNoFuse::MustGoBefore);
        }
        if nb.is_reduction || !nb.ops.iter().all(|o| t.epilogue.contains(&o.buffer())) {
            return Err(WhyNoFuse::NotAnEpilogue);
        }
        Ok(LoopPlan::default())
    }
}

/// What [`template_epilogues`] decided: the buffers that joined a template, and the fusion
/// log's lines about templates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TemplateChoice {
    /// Every epilogue buffer fused into its template, by template (in `config.templates`'
    /// order).
    pub fused: Vec<(BufferId, Vec<BufferId>)>,
    /// The lines of the fusion log that name a template.
    pub log: Vec<String>,
}

/// The template epilogues the scheduler takes among the lowering's candidates
/// ([`coil_lower::LoweredGraph::epilogues`]): each matmul with a candidate is a template whose
/// epilogue is its candidates, and `strategy`'s fusion decides, as Inductor's scheduler decides
/// a GEMM template's epilogues (the target's `epilogue_fusion_first` in `config` says whether
/// they fuse before other pointwise neighbours). The caller folds the chosen buffers into their
/// calls ([`coil_lower::LoweredGraph::fold_epilogues`]) and schedules that graph.
pub fn choose_epilogues(
    graph: &LoweredGraph,
    config: &SchedConfig,
    loops: &dyn LoopCompat,
    strategy: &dyn FusionStrategy,
) -> Result<TemplateChoice, SchedError> {
    let mut templates: Vec<Template> = Vec::new();
    for e in graph.epilogues() {
        match templates.iter_mut().find(|t| t.node == e.template) {
            Some(t) => t.epilogue.push(e.buffer),
            None => templates.push(Template {
                node: e.template,
                epilogue: vec![e.buffer],
            }),
        }
    }
    if templates.is_empty() {
        return Ok(TemplateChoice::default());
    }
    tracing::debug!(
        target: "fusion",
        "template epilogues: {} library calls with {} candidate buffers",
        templates.len(),
        graph.epilogues().len()
    );
    template_epilogues(
        graph,
        SchedConfig {
            templates,
            ..config.clone()
        },
        loops,
        strategy,
    )
}

/// Runs `strategy`'s fusion over `graph` with `config.templates` as template nodes and says
/// which epilogue buffers fused into which template. The schedule itself is not kept.
pub fn template_epilogues(
    graph: &LoweredGraph,
    config: SchedConfig,
    loops: &dyn LoopCompat,
    strategy: &dyn FusionStrategy,
) -> Result<TemplateChoice, SchedError> {
    let templates = config.templates.clone();
    let mut sched = Schedule::new(graph, config)?;
    sched.strategy = strategy.name();
    strategy.fuse(&mut sched, loops)?;
    let fused = templates
        .iter()
        .map(|t| {
            let joined = sched
                .order
                .iter()
                .map(|&n| &sched.nodes[n])
                .find(|n| n.ops.iter().any(|o| o.buffer() == t.node))
                .map(|n| {
                    n.ops
                        .iter()
                        .map(|o| o.buffer())
                        .filter(|b| t.epilogue.contains(b))
                        .collect()
                })
                .unwrap_or_default();
            (t.node, joined)
        })
        .collect();
    let log = sched
        .log
        .iter()
        .filter(|l| l.contains("template"))
        .cloned()
        .collect();
    Ok(TemplateChoice { fused, log })
}
