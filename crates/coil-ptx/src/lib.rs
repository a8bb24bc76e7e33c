//! coil-ptx: the PTX foundation coil-cuda renders kernels with.
//!
//! **Takes**: instructions and operands ([`ptx::KernelBuilder`]), math functions
//! ([`math::MathFn`]), a target ([`PtxTarget`]) and device flags ([`GpuCaps`]); PTX text to
//! emulate ([`emu`]).
//! **Gives**: checked PTX text ([`ptx::PtxKernel`], [`ptx::PtxModule`]); accurate f32 math
//! routines written once against [`math::MathOps`], emitted as PTX and computed on the host bit
//! for bit ([`math::Host`]); a PTX emulator that runs a module with bounds and alignment
//! checks, as `compute-sanitizer` would ([`emu`]); reference kernels ([`kernels`]). Every
//! failure is a value ([`PtxError`], [`emu::EmuError`]).
//! **Must not know about**: the kernel IR, the graph or the scheduler (coil-cuda's renderer
//! drives this crate), the CUDA driver, LLVM; it reads no environment and prints nothing.
//!
//! ```
//! use coil_ptx::{PtxTarget, kernels, math::MathFn};
//! let k = kernels::elementwise("exp_f32", MathFn::Exp, true, PtxTarget::SM90)?;
//! let ptx = k.to_string();
//! assert!(ptx.starts_with(".version 8.0\n.target sm_90\n"));
//! assert!(ptx.contains("ld.global.nc.v4.f32"));
//! # Ok::<(), coil_ptx::PtxError>(())
//! ```

pub mod emu;
mod error;
pub mod kernels;
pub mod math;
pub mod ptx;
mod target;

pub use error::PtxError;
pub use target::{GpuCaps, PtxTarget};
