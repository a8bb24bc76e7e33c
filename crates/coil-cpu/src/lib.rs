//! coil-cpu: the CPU backend. [`CpuBackend`] implements [`coil_codegen::Backend`]: it
//! translates the kernel IR into LLVM modules (one function `cpu_<name>` per kernel, the outer
//! loop split across threads, the inner loop vectorized, reductions in vector accumulators; the
//! kernels shared out over at most one module per thread, compiled in parallel), optimises them
//! with a lean pipeline for the host CPU (the passes its kernels gain from; LLVM's vectorizers and
//! unroller not among them: the translator does both), JIT-compiles them, and runs them on 64-byte aligned host memory; matmuls go to the
//! `gemm` crate. Underneath: an LLVM 19 JIT harness, a vectorized math library emitted as LLVM
//! IR, and a thread pool.
//!
//! **Takes**: [`coil_codegen::Kernel`]s (the kernel IR: loop ranges, stages of CSE'd values,
//! accumulators, stores over [`coil_lower::IndexExpr`] indices), buffers as opaque
//! [`coil_codegen::BufferHandle`]s, [`coil_codegen::MatmulCall`]s; or, at the lower level, LLVM
//! IR built with `inkwell` inside [`JitModule::compile`]'s closure.
//! **Gives**: the backend ([`CpuBackend`], [`CpuOptions`], [`CpuKernels`]: launches, the
//! optimised IR as `output_code.ll`, launch shapes), the translator ([`emit_kernel`],
//! [`CodegenOptions`], [`LaunchShape`]), the host target ([`HostTarget`]), optimised JIT modules
//! ([`JitModule`]), the math library ([`VMath`], [`MathFn`]), and the thread pool
//! ([`ThreadPool`]) with checked launches of hand-written kernels ([`JitKernel`], [`KernelArgs`]).
//! **Must not know about**: the scheduler and fusion (kernels arrive already grouped), the graph
//! and lowering beyond the kernel IR's index expressions and ops, PTX, printing, environment
//! variables.
//!
//! ```
//! use coil_cpu::{HostTarget, JitModule, JitOptions, MathFn, VMath};
//! let target = HostTarget::detect()?;
//! let jit = JitModule::compile("doc", &target, &JitOptions::default(), |cx, module| {
//!     let f32t = cx.f32_type();
//!     let f = module.add_function("my_exp", f32t.fn_type(&[f32t.into()], false), None);
//!     let b = cx.create_builder();
//!     b.position_at_end(cx.append_basic_block(f, "entry"));
//!     let x = f.get_nth_param(0).unwrap();
//!     let y = VMath::declare(module).call(&b, MathFn::Exp, x)?;
//!     b.build_return(Some(&y))?;
//!     Ok(())
//! })?;
//! // SAFETY: `my_exp` was defined above as `float (float)`.
//! let my_exp: extern "C" fn(f32) -> f32 = unsafe { jit.function("my_exp")? };
//! assert_eq!(my_exp(0.0), 1.0);
//! assert!(!jit.optimized_ir().contains("@expf"));
//! # Ok::<(), coil_cpu::CpuError>(())
//! ```

mod backend;
mod codegen;
mod dnnl;
mod eager_blas;
mod error;
mod gemv;
mod jit;
mod kernels;
mod matmul;
mod openblas;
pub mod openmp;
mod orc;
mod parallel;
pub mod pool;
pub mod vmath;

pub use backend::{CpuBackend, CpuOptions, function_name};
pub use codegen::{
    CodegenOptions, KernelPlan, LaunchShape, emit_kernel, emit_planned, plan_general, plan_kernel,
};
pub use dnnl::{conv_backward_dtypes, onednn_status};
pub use eager_blas::eager_blas_loaded;
pub use error::CpuError;
pub use jit::{
    DEFAULT_LLVM_ARGS, HostTarget, JitModule, JitOptions, LEAN_PIPELINE, O3_PIPELINE, link_ir,
    llvm_args, optimize, set_llvm_args,
};
pub use kernels::CpuKernels;
pub use openblas::openblas_status;
pub use parallel::{ArgSpec, Element, JitKernel, KernelArgs, KernelFn, ThreadPool};
pub use vmath::{FloatKind, MathFn, VMath, VMathFn, VMathOptions};

/// The `inkwell` this crate builds on, re-exported so the translator uses the same version.
pub use inkwell;
