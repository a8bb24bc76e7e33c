//! The crate's one error type: what went wrong building PTX, opening the GPU, loading,
//! launching, copying, or calling cuBLAS, and where.

use thiserror::Error;

/// Everything coil-cuda can fail with. A missing driver, GPU or cuBLAS is a value of this type,
/// never a panic.
#[derive(Debug, Error)]
pub enum CudaError {
    /// The PTX builder was driven into an invalid kernel (an operand of the wrong register class,
    /// an undefined label, ...): a bug in the code generator, reported instead of panicking.
    #[error(transparent)]
    Ptx(#[from] coil_ptx::PtxError),
    /// A kernel of the kernel IR uses something the PTX translator cannot render (a float64
    /// transcendental, an op on a type it has no meaning for).
    #[error("cannot render kernel '{kernel}' as PTX: {reason}")]
    Codegen {
        /// The kernel.
        kernel: String,
        /// What could not be rendered.
        reason: String,
    },
    /// The backend has no device: it was made with `CudaBackend::offline()` (PTX text only).
    #[error("no GPU: this CUDA backend is offline (it renders PTX but cannot {0})")]
    Offline(&'static str),
    /// `libcuda.so` could not be loaded: no NVIDIA driver on this machine.
    #[error(
        "no CUDA driver: libcuda.so could not be loaded (is an NVIDIA driver installed and on the loader path?)"
    )]
    NoDriver,
    /// The driver loaded but has no device with this ordinal.
    #[error("no CUDA device {ordinal}: the driver reports {count} device(s)")]
    NoDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices the driver sees.
        count: usize,
    },
    /// The driver library is present but unusable (too old for the CUDA 13 bindings, or it
    /// failed while initialising).
    #[error("the CUDA driver is unusable: {0}")]
    DriverUnusable(String),
    /// A driver API call failed.
    #[error("CUDA driver call {call} failed: {source}")]
    Driver {
        /// The operation, e.g. `cuMemAlloc` or `launch cuda_poi_exp_0`.
        call: String,
        /// The driver's error code.
        #[source]
        source: cudarc::driver::DriverError,
    },
    /// The driver rejected a PTX module; `log` is the JIT compiler's error log.
    #[error("the CUDA driver could not load PTX for kernel '{kernel}': {source}\n{log}")]
    ModuleLoad {
        /// The (first) kernel in the module.
        kernel: String,
        /// The driver's error code.
        #[source]
        source: cudarc::driver::DriverError,
        /// The JIT error log, possibly empty.
        log: String,
    },
    /// A PTX compiler library (nvJitLink) could not turn a module into a cubin.
    #[error("{compiler} could not compile PTX for kernel '{kernel}': {reason}\n{log}")]
    PtxCompile {
        /// The (first) kernel in the module.
        kernel: String,
        /// Which library.
        compiler: &'static str,
        /// The failing call and its status, or why the library is missing.
        reason: String,
        /// The compiler's error log, possibly empty.
        log: String,
    },
    /// `libcublas.so` could not be loaded.
    #[error(
        "cuBLAS is not available: libcublas.so could not be loaded (put its directory on LD_LIBRARY_PATH or preload it)"
    )]
    NoCublas,
    /// A cuBLAS call failed.
    #[error("cuBLAS call {call} failed: {source}")]
    Cublas {
        /// The operation, e.g. `cublasSgemm_v2`.
        call: &'static str,
        /// cuBLAS's status code.
        #[source]
        source: cudarc::cublas::result::CublasError,
    },
    /// A cuBLASLt call failed.
    #[error("cuBLASLt call {call} failed: {status}")]
    BlasLt {
        /// The operation, e.g. `cublasLtMatmul`.
        call: &'static str,
        /// cuBLASLt's status code.
        status: String,
    },
    /// A launch whose arguments or configuration do not fit the kernel.
    #[error("cannot launch kernel '{kernel}': {reason}")]
    Launch {
        /// The kernel.
        kernel: String,
        /// What did not fit.
        reason: String,
    },
    /// A copy, slice or matmul whose sizes do not fit its buffers.
    #[error("{op}: {reason}")]
    Size {
        /// The operation, e.g. `copy_to_host`.
        op: &'static str,
        /// What did not fit.
        reason: String,
    },
    /// A shared library named for preloading could not be opened.
    #[error("cannot load shared library {path}: {reason}")]
    Library {
        /// The path given.
        path: String,
        /// The loader's message.
        reason: String,
    },
}

impl CudaError {
    pub(crate) fn driver(call: impl Into<String>, source: cudarc::driver::DriverError) -> Self {
        CudaError::Driver {
            call: call.into(),
            source,
        }
    }
}
