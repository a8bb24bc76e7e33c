//! coil-cpu: the CPU backend's foundation: an LLVM 19 JIT harness, a vectorized math library
//! emitted as LLVM IR, and a parallel runtime that runs JIT-compiled kernels over chunks of their
//! outer loop.
//!
//! **Takes**: LLVM IR built with `inkwell` inside [`JitModule::compile`]'s closure (the
//! kernel-IR-to-LLVM translator supplies it; it calls [`VMath::call`] for transcendental ops and
//! emits kernels with the [`KernelFn`] ABI), and buffers to run kernels on.
//! **Gives**: the host target ([`HostTarget`]: CPU name, features, vector width), optimised
//! (`default<O3>`) and JIT-compiled modules ([`JitModule`]: function pointers by name, the
//! optimised text IR for `output_code.ll`), the math library ([`VMath`], [`MathFn`]), and a
//! thread pool ([`ThreadPool`]) with [`ThreadPool::parallel_for`] and safe kernel launches
//! ([`Kernel`], [`KernelArgs`]).
//! **Must not know about**: the scheduler, fusion, the kernel IR's structure (the translator
//! lives beside this, not in it), PTX, printing, environment variables.
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

mod error;
mod jit;
mod parallel;
pub mod vmath;

pub use error::CpuError;
pub use jit::{HostTarget, JitModule, JitOptions, optimize};
pub use parallel::{ArgSpec, Element, Kernel, KernelArgs, KernelFn, ThreadPool};
pub use vmath::{FloatKind, MathFn, VMath};

/// The `inkwell` this crate builds on, re-exported so the translator uses the same version.
pub use inkwell;
