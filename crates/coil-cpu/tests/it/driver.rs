//! The backend tests' way through the facade: a graph compiled by `coil::compile` for a
//! `CpuBackend` with every verifier on, one kernel per realized buffer (`NoFusion`) or every
//! buffer in one kernel (`coil_testkit::AllInOne`), run on the given inputs.

use std::sync::Arc;

use coil_cpu::CpuBackend;
use coil_graph::{Graph, Tensor};
use coil_lower::{LowerConfig, LoweredGraph};

/// A graph and its lowering (after coil-passes, with the CPU rules), for tests that look at
/// the lowered buffers; it derefs to the lowered graph.
pub(crate) struct Lowered {
    graph: Graph,
    lowered: LoweredGraph,
}

impl std::ops::Deref for Lowered {
    type Target = LoweredGraph;
    fn deref(&self) -> &LoweredGraph {
        &self.lowered
    }
}

/// The graph after coil-passes, lowered with the CPU rules.
pub(crate) fn lower(g: &Graph) -> Lowered {
    let (t, _) = coil_passes::run_passes(g, &coil_passes::PassConfig::default())
        .unwrap_or_else(|e| panic!("passes: {e}\n{g}"));
    let lowered =
        coil_lower::lower(&t, &LowerConfig::cpu()).unwrap_or_else(|e| panic!("lowering: {e}\n{t}"));
    Lowered {
        graph: g.clone(),
        lowered,
    }
}

/// Which kernels the graph becomes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fusion {
    /// One kernel per realized buffer (extern calls alone, as always).
    PerBuffer,
    /// Every buffer in one kernel.
    AllInOne,
}

/// One kernel per realized buffer.
pub(crate) fn per_buffer(_: &Lowered) -> Fusion {
    Fusion::PerBuffer
}

/// Every buffer in one kernel.
pub(crate) fn all_in_one(_: &Lowered) -> Fusion {
    Fusion::AllInOne
}

/// The result of a run.
pub(crate) struct Run {
    /// The graph outputs, contiguous.
    pub(crate) outputs: Vec<Tensor>,
    /// The optimised LLVM IR of the modules, linked into one text.
    pub(crate) source: String,
    /// Kernels compiled.
    pub(crate) kernels: usize,
    /// The kernels' full names, in launch order.
    pub(crate) names: Vec<String>,
}

/// Compiles `l`'s graph through the facade with `fusion` and runs it on `inputs`.
pub(crate) fn run(
    backend: &CpuBackend,
    l: &Lowered,
    fusion: &Fusion,
    inputs: &[Tensor],
) -> Result<Run, String> {
    let strategy: coil_sched::SharedStrategy = match fusion {
        Fusion::PerBuffer => Arc::new(coil_sched::NoFusion),
        Fusion::AllInOne => Arc::new(coil_testkit::AllInOne),
    };
    let options = coil::Options {
        strategy,
        verify: true,
        ..coil::Options::default()
    };
    let model = coil::compile(&l.graph, Arc::new(backend.clone()), &options)
        .map_err(|e| format!("compile: {e}"))?;
    let outputs = model
        .run(inputs)
        .map_err(|e| format!("run: {e}"))?
        .iter()
        .map(Tensor::contiguous)
        .collect();
    Ok(Run {
        outputs,
        source: model.source(),
        kernels: model.report.num_kernels,
        names: model
            .report
            .kernels
            .iter()
            .map(|k| k.name.clone())
            .collect(),
    })
}

/// The backend every test shares (2 threads is the machine; 3 makes chunking uneven).
pub(crate) fn backend() -> &'static CpuBackend {
    static B: std::sync::OnceLock<CpuBackend> = std::sync::OnceLock::new();
    B.get_or_init(|| {
        // Each test's compile makes its own machine code, as its checks of the code expect.
        CpuBackend::with_options(coil_cpu::CpuOptions {
            threads: 3,
            compile_every_size: true,
            ..Default::default()
        })
        .expect("cpu backend")
    })
}

/// A backend that streams every aligned vector store past the caches (non-temporal), so the
/// tiny models exercise what only huge buffers get by default.
pub(crate) fn streaming_backend() -> &'static CpuBackend {
    static B: std::sync::OnceLock<CpuBackend> = std::sync::OnceLock::new();
    B.get_or_init(|| {
        CpuBackend::with_options(coil_cpu::CpuOptions {
            threads: 2,
            codegen: coil_cpu::CodegenOptions {
                streaming_store_min_bytes: Some(0),
                ..Default::default()
            },
            ..Default::default()
        })
        .expect("cpu backend")
    })
}

/// What coil-eager computes.
pub(crate) fn eager(g: &Graph, inputs: &[Tensor]) -> Vec<Tensor> {
    coil_eager::run(g, inputs)
        .unwrap_or_else(|e| panic!("eager: {e}\n{g}"))
        .outputs
}
