//! coil-cuda: the foundation of coil's GPU backend: a PTX text builder, accurate f32 math
//! rendered as PTX, reference kernels, and a CUDA runtime (driver API and cuBLAS through cudarc,
//! loaded at run time so the crate builds and its tests run where there is no CUDA).
//!
//! **Takes**: a code generator's calls on a [`ptx::KernelBuilder`] (registers, instructions,
//! loops, memory, warp primitives; [`math`] routines for transcendental functions; the
//! [`kernels`] building blocks such as [`kernels::block_allreduce`]), a [`PtxTarget`] and
//! [`GpuCaps`]; at run time, host data, launch configurations and kernel arguments.
//! **Gives**: verified PTX text ([`ptx::PtxKernel`] prints a complete module); a [`Device`] that
//! loads PTX (cached by the hash of its text), allocates and copies [`DeviceBuffer`]s, launches
//! kernels, times them with [`Event`]s, and runs cuBLAS `sgemm` for mm/bmm/addmm; every failure
//! (no driver, no GPU, no cuBLAS, bad PTX, a launch that does not fit) as a [`CudaError`].
//! **Must not know about**: the graph, the scheduler, the kernel IR (a translator in the backend
//! drives the builder), LLVM. Nothing here prints or reads environment variables; the `ptxas`
//! path for tests comes from the test harness, library paths from the caller
//! ([`preload_library`]).
//!
//! The math routines are written once against [`math::MathOps`] and run both as PTX and on the
//! host bit for bit ([`math::Host`]), so their accuracy is measured on CI; see `docs/cuda.md`.
//!
//! ```
//! use coil_cuda::{kernels, math::MathFn, PtxTarget};
//! let k = kernels::elementwise("exp_f32", MathFn::Exp, true, PtxTarget::SM90)?;
//! let ptx = k.to_string();
//! assert!(ptx.starts_with(".version 8.0\n.target sm_90\n"));
//! assert!(ptx.contains("ld.global.nc.v4.f32"));
//! // Without a driver, opening a device is an error value, not a panic.
//! if !coil_cuda::driver_present() {
//!     assert!(matches!(coil_cuda::Device::open(0), Err(coil_cuda::CudaError::NoDriver)));
//! }
//! # Ok::<(), coil_cuda::CudaError>(())
//! ```

mod backend;
mod blas;
pub mod emu;
mod error;
pub mod kernels;
mod launch;
pub mod math;
pub mod ptx;
pub mod render;
mod runtime;
mod target;

pub use backend::{CudaBackend, CudaKernels};
pub use blas::{Gemm, MatLayout};
pub use error::CudaError;
pub use launch::LaunchConfig;
pub use runtime::{
    Device, DeviceBuffer, DeviceInfo, Element, Event, KernelArg, LoadedKernel, cublas_present,
    driver_present, preload_library,
};
pub use target::{GpuCaps, PtxTarget};
