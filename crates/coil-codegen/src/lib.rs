//! coil-codegen: the backend-neutral kernel IR, the `Backend` trait, and the execution plan.
//!
//! **Takes**: the scheduler's fused nodes over the lowering's buffers (the kernel builder lands
//! with the scheduler). **Gives**: [`Kernel`]s — one loop nest over `(ranges, reduction_ranges)`
//! per fused node, as stages of CSE'd values, loads, reductions and stores, printable as text —
//! and the object-safe [`Backend`] trait a code generator implements.
//! **Must not know about**: LLVM, PTX, any device API; the environment; printing.

mod backend;
mod build;
mod kernel;
mod plan;

pub use backend::{
    Backend, BackendError, BufferHandle, CompiledKernels, DeviceClock, DeviceTimes, MatmulCall,
    StridedOperand,
};
pub use build::{BuildError, BuildOptions, build_kernel};
pub use kernel::{
    AccId, Accumulator, ArgId, ArgRole, KExpr, Kernel, KernelArg, KernelBuilder, KernelKind, Stage,
    StageKind, Store, ValueId,
};
pub use plan::{BufferRole, Plan, PlannedBuffer, SlotId, Step};
