//! coil: the facade. One straight function calls the stages in order.
//!
//! **Takes**: a [`coil_graph::Graph`], a backend (`Arc<dyn Backend>`, e.g. coil-cpu's, or any
//! other implementation of [`coil_codegen::Backend`]), and [`Options`] (passes, any
//! [`coil_sched::FusionStrategy`], configs, loop rules, debug directory, verification).
//! **Gives**: a [`CompiledModel`] whose [`CompiledModel::run`] takes and returns host tensors,
//! every stage's output ([`CompiledModel::artifacts`]: transformed graph, lowered graph,
//! schedule, kernels, plan), a [`CompileReport`] (per-stage times, kernels, bytes), and the
//! debug artifacts (`fx_graph_readable.py`, `fx_graph_transformed.py`, `ir_pre_fusion.txt`,
//! `ir_post_fusion.txt`, `fusion.log`, `graph.dot`, `kernels.txt`, `output_code.*`).
//! [`prepare`] runs the stages without the backend's compile.
//! **Must not know about**: how a backend generates code (LLVM, PTX); it reads no environment
//! variables and prints nothing (the CLI maps `COIL_LOGS` and `COIL_DEBUG_DIR`).
//!
//! ```text
//! verify -> passes -> lower -> schedule -> program (kernels + plan) -> backend.compile
//!        (each stage's verifier runs after it when Options::verify is on)
//! ```

mod compile;
mod error;
mod inplace;
mod logs;
mod model;
mod program_cache;

pub use coil_codegen::{DeviceClock, DeviceTimes, MachineCode};
pub use coil_sched::{builtin_strategies, builtin_strategy, builtin_strategy_names};
pub use compile::{
    Artifacts, CompileReport, KernelReport, Options, Prepared, StageTimes, compile, prepare,
};
pub use error::CoilError;
pub use logs::log_directives;
pub use model::{CompiledModel, DeviceBench, median};
