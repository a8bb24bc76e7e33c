//! coil-codegen: the backend-neutral kernel IR, the `Backend` trait, the program (kernels
//! plus the execution plan), the kernel IR's verifier and its reference evaluator.
//!
//! **Takes**: a [`coil_lower::LoweredGraph`] and its [`coil_sched::Schedule`].
//! **Gives**: a [`Program`] ([`build_program`]): [`Kernel`]s — one loop nest over
//! `(ranges, reduction_ranges)` per fused node, as stages of CSE'd values, loads, reductions
//! and stores, printable as text — and the [`Plan`] (memory slots, steps, outputs); the
//! object-safe [`Backend`] trait a code generator implements, with the contract written in
//! `docs/codegen.md` and checked by [`Kernel::verify`]; [`eval_kernel`] and
//! [`InterpBackend`], the reference semantics a backend is tested against.
//! **Must not know about**: LLVM, PTX, any device API; the environment; printing.
//!
//! A backend's signatures mention only what this crate re-exports: the kernel IR's types, the
//! lowering's scalar vocabulary (`Op`, `Const`, `ReductionType`, `IndexExpr`, `Var`), dtypes,
//! extern kinds and the scheduler's loop rules; `use coil_codegen::*` is enough to write one.

mod backend;
mod build;
mod interp;
mod kernel;
mod plan;
mod program;
mod verify;

pub use backend::{
    Backend, BackendError, BufferHandle, CompiledKernels, DeviceClock, DeviceTimes, ExternCall,
    StridedOperand,
};
pub use build::{BuildError, BuildOptions, build_kernel};
pub use interp::{InterpBackend, eval_kernel};
pub use kernel::{
    AccId, Accumulator, ArgId, ArgRole, KExpr, Kernel, KernelArg, KernelBuilder, KernelKind, Stage,
    StageKind, Store, ValueId,
};
pub use plan::{BufferRole, ExternStep, Plan, PlannedBuffer, SlotId, Step};
pub use program::{Launch, Program, build_program};
pub use verify::VerifyError;

// What a backend's signatures and kernels mention, from the crates below.
pub use coil_graph::DType;
pub use coil_lower::{
    Const, ExternKind, IndexExpr, LowerConfig, MatmulOp, Op, ReductionType, Term, Var, VarRanges,
};
pub use coil_sched::{CppLoops, Device, LoopCompat, LoopPlan, SchedConfig, SimdLoops};
