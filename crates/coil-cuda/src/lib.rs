//! coil-cuda: coil's GPU backend. [`CudaBackend`] implements `coil_codegen::Backend`: the
//! kernel IR is translated to PTX text ([`render`]), loaded and launched through the CUDA
//! driver (cudarc, loaded at run time so the crate builds and its tests run where there is no
//! CUDA), with cuBLAS for matmuls; offline it renders PTX only, emulated it runs the same PTX
//! on the host ([`emu`]).
//!
//! **Takes**: kernels of the kernel IR (`coil_codegen::Kernel`) and the device's capability
//! flags ([`GpuCaps`]); at run time, buffers, launches and matmul calls through the `Backend`
//! trait. Below the translator, a PTX text builder ([`ptx::KernelBuilder`]), f32 math
//! rendered as PTX ([`math`]), reference kernels ([`kernels`]) and the runtime ([`GpuDevice`]).
//! **Gives**: one PTX module per model, each kernel planned as a pointwise grid-stride loop or
//! a persistent, looped or split reduction ([`render::Strategy`]) with its launch
//! configuration; a [`GpuDevice`] that loads PTX (cached by the hash of its text), allocates and
//! copies [`DeviceBuffer`]s, launches kernels, times them with [`Event`]s and runs cuBLAS
//! `sgemm`; every failure (no driver, no GPU, no cuBLAS, bad PTX, a launch that does not fit,
//! a kernel the translator cannot render) as a [`CudaError`].
//! **Must not know about**: the graph, the scheduler's decisions (it only answers the loop
//! questions with `SimdLoops`), LLVM. Nothing here prints or reads environment variables; the
//! `ptxas` path for tests comes from the test harness, library paths from the caller
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
//!     assert!(matches!(coil_cuda::GpuDevice::open(0), Err(coil_cuda::CudaError::NoDriver)));
//! }
//! # Ok::<(), coil_cuda::CudaError>(())
//! ```

mod backend;
mod blas;
mod blas_lt;
mod compile;
mod dnn;
mod error;
mod exec;
pub mod families;
mod jit;
mod launch;
mod nvjitlink;
mod par;
pub mod render;
mod runtime;

/// The PTX foundation, from coil-ptx (kept under these paths for the backend's users).
pub use coil_ptx::{GpuCaps, PtxError, PtxTarget, emu, kernels, math, ptx};

pub use backend::{CudaBackend, Planner, ProfiledLaunch};
pub use blas::{Gemm, MatLayout};
pub use blas_lt::lt_present;
pub use compile::CudaKernels;
pub use dnn::{ConvAlgoChoice, ConvOperand, cudnn_present};
pub use error::CudaError;
pub use families::SizeFamilies;
pub use jit::{JitOptions, JitRecord, ModuleSplit, PtxCompiler};
pub use launch::LaunchConfig;
pub use nvjitlink::available as nvjitlink_available;
pub use runtime::{
    DeviceBuffer, DeviceInfo, Element, Event, GpuDevice, LoadedKernel, ParamValue, cublas_present,
    driver_present, preload_cublas, preload_library,
};
