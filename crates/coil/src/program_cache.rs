//! The compile cache's entry for a whole program (Inductor's FX graph cache): what every stage
//! before the backend's compile made of a graph (the kernels, the plan, the launches, the
//! index checks' messages and the report's counts), kept under a key of everything those
//! stages read. A second compile of the same graph (a new process included) loads it instead
//! of running the passes, the lowering, the scheduler and the kernel builder; the backend then
//! finds its machine code in its own entries of the same cache.
//!
//! The key: coil's version, the graph's text as printed (every node, argument and tensor
//! meta: sizes and dtypes; inputs are contiguous, views' strides follow from them), the options that change the program (passes, strategy and
//! loop rules by name, lowering and scheduler overrides, deterministic mode) and the target
//! (everything the stages before code generation read of the backend). A program with a host
//! fallback, whose op program is opaque, is not stored; nor is one compiled with a debug
//! directory (whose dumps a hit would not write), with the stages' logs on (which a hit would
//! not print), or with a strategy or loop rules that are not built in (a name does not say
//! what an outside implementation does).

use std::sync::Arc;
use std::time::Instant;

use coil_cache::{Cache, Key, KeyBuilder, Lookup};
use coil_codegen::{Backend, Plan, Program};
use coil_graph::Graph;
use coil_lower::IndexCheck;
use coil_passes::PassStats;
use serde::{Deserialize, Serialize};

use crate::compile::{CompileReport, Options, StageTimes};

/// The cache namespace of program entries.
const NAMESPACE: &str = "program";

/// What a hit gives back.
pub(crate) struct CachedProgram {
    pub(crate) program: Program,
    pub(crate) index_checks: Vec<IndexCheck>,
    pub(crate) report: CompileReport,
}

/// One graph's place in the cache: its key, or none where the cache is off or the compile
/// cannot be keyed.
pub(crate) struct ProgramSlot {
    cache: Option<(Arc<Cache>, Key)>,
    /// `"hit"`, `"miss"`, `"off"`: what the lookup found.
    pub(crate) word: &'static str,
}

impl ProgramSlot {
    /// The slot of `graph` compiled with `options` for `backend`.
    pub(crate) fn new(graph: &Graph, backend: &dyn Backend, options: &Options) -> ProgramSlot {
        let off = ProgramSlot {
            cache: None,
            word: "off",
        };
        let Some(cache) = options.cache.as_ref().filter(|c| c.is_on()) else {
            return off;
        };
        let builtin_loops = options
            .loops
            .as_ref()
            .is_none_or(|l| ["cpp", "simd"].contains(&l.name()));
        if options.debug_dir.is_some()
            || !coil_sched::builtin_strategy_names().contains(&options.strategy.name())
            || !builtin_loops
            || stage_logs_on()
        {
            return off;
        }
        let key = KeyBuilder::new()
            .part("graph", coil_graph::print_graph(graph))
            .part("passes", format!("{:?}", options.passes))
            .part("strategy", options.strategy.name())
            .part("lower", format!("{:?}", options.lower))
            .part("sched", format!("{:?}", options.sched))
            .part(
                "loops",
                options.loops.as_ref().map_or("backend's", |l| l.name()),
            )
            .part("deterministic", [options.deterministic as u8])
            .part("target", format!("{:?}", backend.target()))
            .part(
                "coil",
                concat!(
                    "coil ",
                    env!("CARGO_PKG_VERSION"),
                    " program v1, sources ",
                    env!("COIL_SOURCE_HASH")
                ),
            )
            .finish();
        ProgramSlot {
            cache: Some((cache.clone(), key)),
            word: "miss",
        }
    }

    /// The cached program, if there is a whole one. An entry that does not read back (which
    /// its checksum should have caught) is a warning and a miss.
    pub(crate) fn get(
        &mut self,
        options: &Options,
        backend: &dyn Backend,
    ) -> Option<CachedProgram> {
        let (cache, key) = self.cache.as_ref()?;
        let t = Instant::now();
        let Lookup::Hit(bytes) = cache.get(NAMESPACE, key) else {
            return None;
        };
        let cached = Entry::read(&bytes).and_then(|e| e.into_cached(options, backend));
        match cached {
            Ok(mut c) => {
                self.word = "hit";
                c.report.times.cache_ms = t.elapsed().as_secs_f64() * 1e3;
                Some(c)
            }
            Err(e) => {
                tracing::warn!(target: "cache", key = %key.hex(), %e, "a program entry does not read back: recompiling");
                None
            }
        }
    }

    /// Stores what the stages made of the graph, unless it holds a host fallback.
    pub(crate) fn put(
        &self,
        program: &Program,
        index_checks: &[IndexCheck],
        report: &CompileReport,
    ) {
        let Some((cache, key)) = &self.cache else {
            return;
        };
        match Entry::new(program, index_checks, report).and_then(|e| e.write()) {
            Ok(bytes) => cache.put(NAMESPACE, key, &bytes),
            Err(e) => {
                tracing::debug!(target: "cache", %e, "the program is not stored whole");
            }
        }
    }
}

/// Whether someone listens to what the stages log (`COIL_LOGS=fusion`, ...): they then run,
/// as a hit would skip them and say nothing.
fn stage_logs_on() -> bool {
    use tracing::Level;
    tracing::enabled!(target: "passes", Level::DEBUG)
        || tracing::enabled!(target: "lowering", Level::DEBUG)
        || tracing::enabled!(target: "fusion", Level::DEBUG)
        || tracing::enabled!(target: "schedule", Level::DEBUG)
        || tracing::enabled!(target: "fallback", Level::DEBUG)
}

/// A program entry as stored (JSON; the kernels as their text, which `parse_kernels` reads).
#[derive(Serialize, Deserialize)]
struct Entry {
    kernels: String,
    plan: Plan,
    launches: Vec<coil_codegen::Launch>,
    split_nodes: Vec<String>,
    index_checks: Vec<IndexCheck>,
    passes: PassStats,
    lowered_buffers: usize,
    fallback_ops: Vec<String>,
    fusion_log: Vec<String>,
}

impl Entry {
    fn new(
        program: &Program,
        index_checks: &[IndexCheck],
        report: &CompileReport,
    ) -> Result<Entry, String> {
        Ok(Entry {
            kernels: program
                .kernels
                .iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
            plan: program.plan.clone(),
            launches: program.launches.clone(),
            split_nodes: program.split_nodes.clone(),
            index_checks: index_checks.to_vec(),
            passes: report.passes.clone(),
            lowered_buffers: report.lowered_buffers,
            fallback_ops: report.fallback_ops.clone(),
            fusion_log: report.fusion_log.clone(),
        })
    }

    /// The entry's bytes; an error where the plan holds what cannot be written (a host
    /// fallback's program).
    fn write(&self) -> Result<Vec<u8>, String> {
        serde_json::to_vec(self).map_err(|e| e.to_string())
    }

    fn read(bytes: &[u8]) -> Result<Entry, String> {
        serde_json::from_slice(bytes).map_err(|e| e.to_string())
    }

    fn into_cached(
        self,
        options: &Options,
        backend: &dyn Backend,
    ) -> Result<CachedProgram, String> {
        let kernels = if self.kernels.is_empty() {
            Vec::new()
        } else {
            coil_codegen::parse_kernels(&self.kernels).map_err(|e| e.to_string())?
        };
        let target = backend.target();
        let loops = match &options.loops {
            Some(l) => l.name(),
            None => coil_sched::loops_for(target.loops).name(),
        };
        let program = Program {
            kernels,
            plan: self.plan,
            launches: self.launches,
            split_nodes: self.split_nodes,
        };
        let report = CompileReport {
            times: StageTimes::default(),
            // The passes did not run: their statistics are the compile's that stored it.
            passes: PassStats {
                ms: 0.0,
                ..self.passes
            },
            strategy: options.strategy.name(),
            loops,
            backend: target.name,
            lowered_buffers: self.lowered_buffers,
            kernels: program.launches.clone(),
            num_kernels: program.num_kernels(),
            num_extern_calls: program.num_extern_calls(),
            fallback_ops: self.fallback_ops,
            bytes_accessed: program.launches.iter().map(|l| l.bytes()).sum(),
            fusion_log: self.fusion_log,
            planned_bytes: program.plan.total_bytes(),
            machine_code: Default::default(),
            program_cache: "hit",
        };
        Ok(CachedProgram {
            program,
            index_checks: self.index_checks,
            report,
        })
    }
}
