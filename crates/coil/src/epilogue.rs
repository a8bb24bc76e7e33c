//! Template epilogues decided by the scheduler. The lowering can put a matmul's sole
//! pointwise consumers into its library call as post-ops; which of them do join is the
//! scheduler's decision, as Inductor's scheduler decides a GEMM template's epilogues
//! (`coil_sched::template_epilogues`). Three steps: the lowering with every fold says what
//! could join (each library call's nodes); the lowering with no matmul fold gives the
//! scheduler the matmuls and their consumers as separate nodes, the matmuls marked as
//! templates; the lowering with the nodes the scheduler fused gives the graph the backend
//! runs (the first one again, when it fused them all). A consumer the unfolded lowering
//! inlines into another kernel (a scale before a softmax, a residual add before a layer
//! norm) is no node of its own there, so it stays in that kernel, as in Inductor.

use coil_graph::{Graph, OpClass};
use coil_lower::{BufferKind, ExternKind, LowerConfig, LoweredGraph};
use coil_sched::{FusionStrategy, LoopCompat, SchedConfig, Template};

use crate::CoilError;

/// What the scheduler chose.
pub(crate) struct Choice {
    /// The lowering to run instead of the one with every fold (`None`: that one, all its
    /// epilogues chosen).
    pub(crate) lowered: Option<LoweredGraph>,
    /// The fusion log's lines about templates.
    pub(crate) log: Vec<String>,
}

/// The scheduler's choice of template epilogues, when `folded` (lowered with `config`) put
/// some consumer into a matmul's library call; `None` when there was nothing to decide.
pub(crate) fn choose(
    graph: &Graph,
    folded: &LoweredGraph,
    config: &LowerConfig,
    sched: &SchedConfig,
    loops: &dyn LoopCompat,
    strategy: &dyn FusionStrategy,
) -> Result<Option<Choice>, CoilError> {
    // (the library call's own node, the nodes folded into it), for matmuls; a convolution's
    // post-ops stay the lowering's (Inductor folds those in an FX pass, `mkldnn_fusion`,
    // before lowering; its templates are GEMMs).
    let mut chains: Vec<(String, Vec<String>)> = Vec::new();
    let mut keep: Vec<String> = Vec::new();
    for b in folded.buffers() {
        let BufferKind::Extern(e) = &b.kind else {
            continue;
        };
        if b.origins.len() < 2 {
            continue;
        }
        let nodes = b.origins[1..].iter().map(|o| o.node.clone());
        if e.kind.matmul().is_some() {
            chains.push((b.origins[0].node.clone(), nodes.collect()));
        } else if matches!(e.kind, ExternKind::Convolution(_)) {
            keep.extend(nodes);
        }
    }
    if chains.is_empty() {
        return Ok(None);
    }
    let plain = coil_lower::lower(
        graph,
        &LowerConfig {
            epilogue_nodes: Some(keep.clone()),
            ..config.clone()
        },
    )?;
    let mut templates = Vec::new();
    let mut candidates: Vec<String> = Vec::new();
    for (own, folded_in) in &chains {
        let Some(call) = plain.buffers().iter().find(|b| {
            matches!(b.kind, BufferKind::Extern(_))
                && b.origins.first().is_some_and(|o| o.node == *own)
        }) else {
            // Not found unfolded: none of its consumers joins it undecided.
            candidates.extend(folded_in.iter().cloned());
            continue;
        };
        // What the call takes without post-ops (an `addmm`'s bias) is not an epilogue.
        let chain: Vec<&String> = folded_in
            .iter()
            .filter(|n| !call.origins.iter().any(|o| o.node == **n))
            .collect();
        // A consumer's buffer qualifies when everything it computes is in the chain (views
        // aside): an op inlined elsewhere, or a buffer with more in it, does not.
        let epilogue: Vec<_> = plain
            .buffers()
            .iter()
            .filter(|b| {
                matches!(b.kind, BufferKind::Computed(_))
                    && b.origins.iter().any(|o| chain.contains(&&o.node))
                    && b.origins
                        .iter()
                        .all(|o| chain.contains(&&o.node) || o.op.class() == OpClass::View)
            })
            .map(|b| b.id)
            .collect();
        candidates.extend(chain.into_iter().cloned());
        if !epilogue.is_empty() {
            templates.push(Template {
                node: call.id,
                epilogue,
            });
        }
    }
    tracing::debug!(
        target: "fusion",
        "template epilogues: {} library calls took consumers when lowered with every fold, {} are templates for the scheduler ({} candidate nodes)",
        chains.len(),
        templates.len(),
        candidates.len()
    );
    let choice = coil_sched::template_epilogues(
        &plain,
        SchedConfig {
            templates,
            ..sched.clone()
        },
        loops,
        strategy,
    )?;
    let mut chosen = keep.clone();
    for (_, buffers) in &choice.fused {
        for &b in buffers {
            for o in &plain.buffers()[b.index()].origins {
                if o.op.class() != OpClass::View && !chosen.contains(&o.node) {
                    chosen.push(o.node.clone());
                }
            }
        }
    }
    let lowered = if candidates.iter().all(|n| chosen.contains(n)) {
        None
    } else if chosen == keep {
        Some(plain)
    } else {
        Some(coil_lower::lower(
            graph,
            &LowerConfig {
                epilogue_nodes: Some(chosen),
                ..config.clone()
            },
        )?)
    };
    Ok(Some(Choice {
        lowered,
        log: choice.log,
    }))
}
