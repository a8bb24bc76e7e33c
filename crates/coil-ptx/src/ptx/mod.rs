//! The PTX text builder: typed virtual registers per PTX register class, an instruction emitter
//! that checks operand classes as it goes, kernel entries with parameters, labels and branches,
//! counted and grid-stride loops, global/shared/const memory (128-bit vector loads and stores,
//! cache hints), warp shuffles, barriers and atomics. [`KernelBuilder::finish`] verifies the
//! kernel and gives a [`PtxKernel`], whose `Display` is a complete PTX module.
//!
//! Misuse (a float register where an integer one is needed, a label branched to but never
//! placed) does not panic: the builder records the first such error, keeps going, and
//! [`KernelBuilder::finish`] returns it as [`PtxError`](crate::PtxError) naming the instruction.
//!
//! ```
//! use coil_ptx::ptx::{Cache, KernelBuilder, ParamTy, Space, Ty};
//! let mut b = KernelBuilder::new("scale", coil_ptx::PtxTarget::SM90);
//! let x = b.ptr_param("x", 16);
//! let n = b.param("n", ParamTy::U64);
//! let n = b.load_param(n);
//! b.grid_stride_loop(n, |b, i| {
//!     let offset = b.shl(Ty::B64, i, 2u32);
//!     let addr = b.add(Ty::U64, x, offset);
//!     let v = b.ld(Space::Global, Ty::F32, addr.into(), Cache::DEFAULT);
//!     let w = b.mul(Ty::F32, v, 2.0f32);
//!     b.st(Space::Global, Ty::F32, addr.into(), w, Cache::DEFAULT);
//! });
//! let kernel = b.finish()?;
//! assert!(kernel.to_string().contains("mul.rn.f32"));
//! # Ok::<(), coil_ptx::PtxError>(())
//! ```

mod builder;
mod kernel;
mod operand;

pub use builder::KernelBuilder;
pub use kernel::{PtxKernel, PtxModule};
pub use operand::{
    Addr, AtomOp, Cache, CacheOp, Cmp, Imm, Label, Operand, Param, ParamTy, Reg, RegClass, Round,
    Shfl, Space, Sreg, Symbol, TestP, Ty, Val,
};

/// Statically declared shared memory one block may use without opting in (48 KiB).
pub const MAX_STATIC_SHARED_BYTES: u32 = 48 * 1024;
