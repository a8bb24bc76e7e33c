//! coil: the facade. One straight function calls the stages in order.
//!
//! **Takes**: a [`coil_graph::Graph`], a backend (`&dyn Backend`, e.g. coil-cpu's), and
//! [`Options`] (passes, fusion policy, configs, debug directory).
//! **Gives**: a [`CompiledModel`] whose [`CompiledModel::run`] takes and returns host tensors,
//! plus a [`CompileReport`] (per-stage times, kernels, bytes) and the debug artifacts
//! (`fx_graph_readable.py`, `fx_graph_transformed.py`, `ir_pre_fusion.txt`,
//! `ir_post_fusion.txt`, `fusion.log`, `graph.dot`, kernel IR, `output_code.*`).
//! **Must not know about**: how a backend generates code (LLVM, PTX); it reads no environment
//! variables and prints nothing (the CLI maps `COIL_LOGS` and `COIL_DEBUG_DIR`).
//!
//! ```text
//! parse -> verify -> passes -> lower -> schedule -> build kernels + plan -> backend.compile
//! ```

mod compile;
mod error;
mod model;

pub use coil_codegen::{DeviceClock, DeviceTimes};
pub use compile::{CompileReport, KernelReport, Options, Policy, StageTimes, compile};
pub use error::CoilError;
pub use model::{CompiledModel, DeviceBench, median};
