//! coil-passes: graph-level optimization with e-graphs (egg).
//!
//! **Takes**: a verified [`coil_graph::Graph`]. **Gives**: an equivalent graph (same outputs,
//! same dtypes and shapes) after rule families run together in one e-graph: no-op removal,
//! view algebra, IEEE-exact algebra, decompositions into pointwise ops and primitive reductions
//! (so the scheduler can fuse them), and constant folding; extracted DAG-aware with a
//! memory-traffic cost. Statistics go to the tracing target `passes`.
//! **Must not know about**: lowering, scheduling, kernels, backends.
//!
//! Each rule family is a pass with a name (`noop`, `views`, `algebra`, `decompose`, `fold`),
//! plus `dce`; [`PassConfig::apply_switches`] takes `-decompose,+fold`-style lists.
//!
//! ```
//! let g = coil_models::find("softmax").unwrap().graph(coil_models::Size::Tiny)?;
//! let (out, stats) = coil_passes::run_passes(&g, &coil_passes::PassConfig::default())?;
//! let text = coil_graph::print_graph(&out);
//! assert!(text.contains("aten.amax.default") && !text.contains("_softmax"));
//! assert!(stats.rewrites > 0);
//! # Ok::<(), coil_passes::PassError>(())
//! ```

mod analysis;
mod convert;
mod extract;
mod lang;
pub mod rules;

use std::time::{Duration, Instant};

use coil_graph::{Graph, GraphError, OpKind};
use thiserror::Error;

pub use analysis::{AtenGraph, Data, MetaAnalysis, Value};
pub use extract::{BytesCost, CostModel, DECOMPOSED_PENALTY, PER_OP_COST, extract, extract_until};
pub use lang::{Aten, FloatBits, Lit};

/// Every pass, in the order the pipeline lists them.
pub const PASSES: &[&str] = &["decompose", "fold", "algebra", "views", "noop", "dce"];

/// What can go wrong in the passes.
#[derive(Debug, Error)]
pub enum PassError {
    /// The input or output graph is invalid.
    #[error(transparent)]
    Graph(#[from] GraphError),
    /// A switch names no pass.
    #[error("unknown pass '{0}' (passes: {list})", list = PASSES.join(", "))]
    UnknownPass(String),
}

/// Which passes run and how far the e-graph may grow.
#[derive(Clone, Debug)]
pub struct PassConfig {
    /// Enabled passes (names from [`PASSES`]).
    pub enabled: Vec<&'static str>,
    /// egg's node limit.
    pub node_limit: usize,
    /// egg's iteration limit.
    pub iter_limit: usize,
    /// egg's time limit for saturation; extraction gets as long again (past it, the stage
    /// keeps the input graph and says so in `PassStats::stop_reason`).
    pub time_limit: Duration,
    /// Largest tensor (elements) that constant folding writes as a literal `full`.
    pub fold_max_numel: usize,
    /// Rules not to apply, by name (`gelu-erf`, `silu`): decompositions of ops a backend runs
    /// better whole (a matmul library applying gelu as a post-op).
    pub skip_rules: Vec<&'static str>,
}

impl Default for PassConfig {
    fn default() -> PassConfig {
        PassConfig {
            enabled: PASSES.to_vec(),
            node_limit: 20_000,
            iter_limit: 16,
            time_limit: Duration::from_millis(500),
            fold_max_numel: 1 << 16,
            skip_rules: Vec::new(),
        }
    }
}

impl PassConfig {
    /// No passes at all (the graph goes through unchanged).
    pub fn none() -> PassConfig {
        PassConfig {
            enabled: vec![],
            ..PassConfig::default()
        }
    }

    /// Applies a comma-separated list of switches: `-name` disables, `+name` or `name`
    /// enables, `-all`/`+all` for every pass.
    pub fn apply_switches(&mut self, switches: &str) -> Result<(), PassError> {
        for s in switches.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (on, name) = match s.strip_prefix('-') {
                Some(n) => (false, n),
                None => (true, s.strip_prefix('+').unwrap_or(s)),
            };
            let names: Vec<&'static str> = if name == "all" {
                PASSES.to_vec()
            } else {
                vec![
                    *PASSES
                        .iter()
                        .find(|p| **p == name)
                        .ok_or_else(|| PassError::UnknownPass(name.to_string()))?,
                ]
            };
            for n in names {
                self.enabled.retain(|e| *e != n);
                if on {
                    self.enabled.push(n);
                }
            }
        }
        Ok(())
    }

    /// True when the pass is on.
    pub fn is_enabled(&self, name: &str) -> bool {
        self.enabled.contains(&name)
    }
}

/// Rewrites applied by one pass (rule family).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PassStat {
    /// The pass.
    pub name: String,
    /// Rewrites its rules applied.
    pub rewrites: usize,
}

/// What the passes did.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct PassStats {
    /// Calls in the input graph (inputs and `getitem` excluded).
    pub nodes_before: usize,
    /// Calls in the output graph.
    pub nodes_after: usize,
    /// Rewrites applied, all families.
    pub rewrites: usize,
    /// Per family.
    pub per_pass: Vec<PassStat>,
    /// egg's stop reason (`Saturated`, `IterationLimit(16)`, ...), or `skipped`.
    pub stop_reason: String,
    /// e-graph iterations.
    pub iterations: usize,
    /// e-nodes at the end.
    pub egraph_nodes: usize,
    /// DAG cost of the input and of the result (bytes of materialised values + per-op cost).
    pub cost_before: f64,
    /// See `cost_before`.
    pub cost_after: f64,
    /// Wall time.
    pub ms: f64,
}

/// Counts the calls of a graph.
pub fn count_calls(g: &Graph) -> usize {
    g.nodes()
        .filter(|(_, n)| matches!(n.kind, coil_graph::NodeKind::Call(_)))
        .count()
}

/// Ops a decomposition replaces; extraction pays a large penalty to keep them, so they survive
/// only where no decomposition applied (e.g. half-precision softmax).
const DECOMPOSED: &[OpKind] = &[
    OpKind::Softmax,
    OpKind::LogSoftmax,
    OpKind::NativeLayerNorm,
    OpKind::Var,
    OpKind::VarMean,
    OpKind::Mean,
    OpKind::Gelu,
    OpKind::Silu,
    OpKind::Addmm,
    OpKind::SplitWithSizes,
];

/// Runs the enabled passes on `graph`.
pub fn run_passes(graph: &Graph, config: &PassConfig) -> Result<(Graph, PassStats), PassError> {
    let start = Instant::now();
    coil_graph::verify(graph)?;
    let mut stats = PassStats {
        nodes_before: count_calls(graph),
        stop_reason: "skipped".into(),
        ..Default::default()
    };
    let families: Vec<&str> = config
        .enabled
        .iter()
        .copied()
        .filter(|p| *p != "dce")
        .collect();
    let mut out = if families.is_empty() {
        graph.clone()
    } else {
        rewrite(graph, config, &families, &mut stats)?
    };
    if config.is_enabled("dce") {
        out = out.without_dead_code();
    }
    coil_graph::verify(&out)?;
    stats.nodes_after = count_calls(&out);
    stats.ms = start.elapsed().as_secs_f64() * 1e3;
    tracing::info!(
        target: "passes",
        nodes_before = stats.nodes_before,
        nodes_after = stats.nodes_after,
        rewrites = stats.rewrites,
        stop_reason = %stats.stop_reason,
        iterations = stats.iterations,
        egraph_nodes = stats.egraph_nodes,
        ms = stats.ms,
        "passes done"
    );
    for p in &stats.per_pass {
        tracing::debug!(target: "passes", pass = p.name, rewrites = p.rewrites, "pass statistics");
    }
    Ok((out, stats))
}

fn rewrite(
    graph: &Graph,
    config: &PassConfig,
    families: &[&str],
    stats: &mut PassStats,
) -> Result<Graph, PassError> {
    let fold = families.contains(&"fold").then_some(config.fold_max_numel);
    let loaded = convert::to_egraph(graph, fold)?;
    let mut rules = rules::rules_for(families);
    rules.retain(|(_, r)| !config.skip_rules.contains(&r.name.as_str()));
    let decomposed = if families.contains(&"decompose") {
        DECOMPOSED.to_vec()
    } else {
        vec![]
    };
    let cost = BytesCost { decomposed };
    // The input graph's own choice, priced with the same model.
    let original_choice = original_choice(&loaded);
    stats.cost_before = extract::choice_cost(&loaded.egraph, &original_choice, &cost);
    let runner = egg::Runner::default()
        .with_egraph(loaded.egraph)
        .with_node_limit(config.node_limit)
        .with_iter_limit(config.iter_limit)
        .with_time_limit(config.time_limit)
        .run(rules.iter().map(|(_, r)| r));
    stats.stop_reason = format!("{:?}", runner.stop_reason.as_ref().expect("the runner ran"));
    stats.iterations = runner.iterations.len();
    stats.egraph_nodes = runner.egraph.total_number_of_nodes();
    for (family, rule) in &rules {
        let n: usize = runner
            .iterations
            .iter()
            .filter_map(|it| it.applied.get(&rule.name))
            .sum();
        match stats.per_pass.iter_mut().find(|p| p.name == *family) {
            Some(p) => p.rewrites += n,
            None => stats.per_pass.push(PassStat {
                name: family.to_string(),
                rewrites: n,
            }),
        }
        stats.rewrites += n;
    }
    let egraph = &runner.egraph;
    let inputs: Vec<(String, coil_graph::TensorMeta)> = graph
        .inputs()
        .iter()
        .map(|&i| (graph.node(i).name.clone(), graph.node(i).meta().clone()))
        .collect();
    // Extraction gets a time limit of its own, as long as saturation's: the stage is bounded
    // by twice `time_limit` whatever the e-graph (past it, the input graph is kept).
    let deadline = std::time::Instant::now() + config.time_limit;
    let extracted = extract::extract_until(egraph, &loaded.outputs, &cost, Some(deadline));
    if extracted.is_none() && std::time::Instant::now() > deadline {
        stats.stop_reason = format!("{} (extraction hit the time limit)", stats.stop_reason);
    }
    let result = extracted.and_then(|e| {
        stats.cost_after = e.cost;
        // Never worse than the input by the same measure (a decomposition removes a penalty
        // far larger than the bytes its intermediates add, so it always counts as better).
        if e.cost > stats.cost_before + 1e-6 {
            return None;
        }
        convert::from_choice(
            egraph,
            &e.choice,
            &loaded.outputs,
            &inputs,
            &loaded.original,
        )
        .ok()
    });
    match result {
        Some(g) => Ok(g),
        None => {
            tracing::warn!(target: "passes", "extraction found nothing better than the input; keeping it");
            stats.cost_after = stats.cost_before;
            Ok(graph.clone())
        }
    }
}

/// The e-nodes of the input graph, one per class, as a choice.
fn original_choice(loaded: &convert::Loaded) -> std::collections::HashMap<egg::Id, Aten> {
    let eg = &loaded.egraph;
    let mut choice = std::collections::HashMap::new();
    for (node, _, _) in &loaded.original {
        let id = eg
            .lookup(node.clone())
            .expect("original nodes are in the e-graph");
        choice.entry(eg.find(id)).or_insert_with(|| node.clone());
        for &c in egg::Language::children(node) {
            let c = eg.find(c);
            if let Some(leaf) = eg[c]
                .nodes
                .iter()
                .find(|n| !matches!(n, Aten::Call(..) | Aten::GetItem(..)))
            {
                choice.entry(c).or_insert_with(|| leaf.clone());
            }
        }
    }
    choice
}
