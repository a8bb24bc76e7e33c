//! coil-kernel: the backend boundary. Everything a backend's code mentions lives here, so a
//! backend depends on this crate alone.
//!
//! **Takes**: nothing from the compiler; the stages above build its values.
//! **Gives**: the element types ([`DType`], with PyTorch's promotion), the scalar vocabulary
//! of loop bodies and kernels ([`Op`], [`ReductionType`], [`Const`], with the reference meaning
//! of every op in [`scalar`]), index expressions ([`IndexExpr`]), the kernel IR ([`Kernel`]: one
//! loop nest of stages of CSE'd values) with its text printer and reader ([`parse_kernels`]),
//! its verifier ([`Kernel::verify`]) and reference evaluator ([`eval_kernel`],
//! [`InterpBackend`]), kernels generalized over sizes ([`size_params`]), the extern kinds with
//! their post-ops ([`ExternKind`]), and a backend's three roles: [`Target`] (what earlier stages read), [`Compiler`] and [`Runtime`].
//! **Must not know about**: graphs, the lowering, the scheduler, LLVM, PTX, any device API;
//! the environment; printing to a terminal.

mod backend;
mod dtype;
mod externs;
mod float_text;
mod idx;
mod index;
mod interp;
mod kernel;
mod math_fn;
mod op;
pub mod philox;
mod reader;
pub mod scalar;
pub mod size_params;
mod target;
mod verify;

pub use backend::{
    Backend, BackendError, BufferHandle, CompiledKernels, Compiler, DeviceClock, DeviceTimes,
    ExternCall, MachineCode, Runtime, StridedOperand, copy_through_host,
};
pub use dtype::{Category, DEFAULT_FLOAT, DType, Operand, promote_types, result_type};
pub use externs::{ConvGrad, ConvOp, ExternKind, HostOp, MatmulOp, PostOp};
pub use float_text::format_float;
pub use idx::{Idx, IndexVec};
pub use index::{IndexExpr, Term, Var, VarPrefix, VarRanges};
pub use interp::{InterpBackend, eval_kernel};
pub use kernel::{
    AccId, Accumulator, ArgId, ArgRole, KExpr, Kernel, KernelArg, KernelBuilder, KernelKind, Stage,
    StageKind, Store, StoreMode, Twins, ValueId,
};
pub use math_fn::MathFn;
pub use op::{Const, Op, OpCost, OpResult, ReductionType, resolve_indirect};
pub use reader::{ReadError, parse_kernels};
#[doc(hidden)]
/// serde, for [`typed_id!`]'s expansion in other crates.
pub use serde as __serde;
pub use size_params::SizeParams;
pub use target::{BuildOptions, Capabilities, Device, LoopStyle, Target};
pub use verify::VerifyError;
