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
//! The kernel IR, the `Backend` traits and the reference evaluator live in coil-kernel, which
//! a backend depends on alone; this crate re-exports them for the facade.

mod build;
mod merge;
mod plan;
mod program;
#[cfg(test)]
mod test_kernels;
mod tile;

pub use build::{BuildError, build_kernel};
pub use plan::{BufferRole, ExternStep, Plan, PlannedBuffer, SlotId, Step};
pub use program::{Launch, Program, build_program};

// The backend boundary, from coil-kernel (a backend depends on that crate alone).
pub use coil_kernel::{
    AccId, Accumulator, ArgId, ArgRole, Backend, BackendError, BufferHandle, BuildOptions,
    Capabilities, CompiledKernels, Compiler, Const, DType, Device, DeviceClock, DeviceTimes,
    ExternCall, ExternKind, IndexExpr, InterpBackend, KExpr, Kernel, KernelArg, KernelBuilder,
    KernelKind, LoopStyle, MachineCode, MatmulOp, Op, ReductionType, Runtime, Stage, StageKind,
    Store, StoreMode, StridedOperand, Target, Term, ValueId, Var, VarRanges, VerifyError,
    eval_kernel, parse_kernels,
};
pub use coil_lower::LowerConfig;
pub use coil_sched::{CppLoops, LoopCompat, LoopPlan, SchedConfig, SimdLoops};
