//! Where a [`crate::CudaBackend`]'s PTX runs, behind one trait: a GPU through the driver
//! (`gpu.rs`), coil-ptx's emulator on the host (`emulated.rs`), or nowhere (`offline.rs`: PTX
//! text only). The backend renders and checks; an [`Executor`] owns the memory behind the
//! handles, loads modules, launches, multiplies matrices and synchronizes. Nothing outside this
//! module matches on which one it is.

mod emulated;
mod gpu;
mod offline;
mod tune_cache;

use coil_codegen::{BackendError, BufferHandle, ExternCall, Kernel};
use coil_lower::ConvOp;
use coil_ptx::{GpuCaps, PtxTarget};

use crate::blas::{Gemm, MatLayout};
use crate::error::CudaError;
use crate::ptx::PtxModule;
use crate::render::{KernelPlan, RenderedKernel};

pub(crate) use emulated::Emulated;
pub use gpu::ProfiledLaunch;
pub(crate) use gpu::{Gpu, median_device_ms};
pub(crate) use offline::Offline;

/// What loading needs to know besides the module: the device the plans were made for, and
/// whether to autotune (a GPU renders and times each kernel's other candidate plans).
pub(crate) struct LoadOptions<'a> {
    pub(crate) caps: &'a GpuCaps,
    pub(crate) target: PtxTarget,
    pub(crate) autotune: bool,
    /// How the kernels are shared out over PTX modules.
    pub(crate) modules: crate::ModuleSplit,
}

/// Memory, modules and launches where PTX runs.
pub(crate) trait Executor: Send + Sync {
    /// Loads `module` (rendered from `kernels`, one [`RenderedKernel`] each, whose entries are
    /// the module's in order) and returns what launches them.
    fn load(
        &self,
        module: &PtxModule,
        source: &str,
        rendered: &[RenderedKernel],
        kernels: &[&Kernel],
        options: &LoadOptions<'_>,
    ) -> Result<Box<dyn LoadedModule>, CudaError>;
    /// Allocates `bytes` (zeroed on a GPU: kernels may read padding a view never wrote).
    fn alloc(&self, bytes: usize) -> Result<BufferHandle, BackendError>;
    /// Frees a buffer from [`Executor::alloc`].
    fn free(&self, buffer: BufferHandle);
    /// Copies host bytes to the start of a buffer.
    fn write(&self, buffer: BufferHandle, bytes: &[u8]) -> Result<(), BackendError>;
    /// Copies a buffer's first `out.len()` bytes to the host.
    fn read(&self, buffer: BufferHandle, out: &mut [u8]) -> Result<(), BackendError>;
    /// `Runtime::copy_buffer` on the device; `Ok(false)`, with nothing done, where the executor
    /// has no device (the caller copies through the host).
    fn copy_buffer(
        &self,
        _src: BufferHandle,
        _src_offset: usize,
        _dst: BufferHandle,
        _bytes: usize,
    ) -> Result<bool, BackendError> {
        Ok(false)
    }
    /// `c = a @ b` in f32 on the executor's memory (cuBLAS `sgemm` on a GPU).
    fn sgemm(
        &self,
        gemm: Gemm,
        a: (BufferHandle, MatLayout),
        b: (BufferHandle, MatLayout),
        c: (BufferHandle, MatLayout),
    ) -> Result<(), BackendError>;
    /// [`Executor::sgemm`] with batch 1 plus a bias row (`bias` and its element offset) added
    /// to every row of `c` in the same call; `Ok(false)`, with nothing done, where the
    /// executor cannot (the caller writes the bias into `c` and multiplies with `beta = 1`).
    fn sgemm_bias(
        &self,
        _gemm: Gemm,
        _a: (BufferHandle, MatLayout),
        _b: (BufferHandle, MatLayout),
        _c: (BufferHandle, MatLayout),
        _bias: (BufferHandle, usize),
    ) -> Result<bool, BackendError> {
        Ok(false)
    }
    /// Lends device memory the caller owns as a buffer (see `Backend::borrow_device`); `None`
    /// where there is no device (the emulator, offline).
    ///
    /// # Safety
    /// As `Backend::borrow_device`.
    unsafe fn borrow_device(&self, ptr: u64, bytes: usize) -> Option<BufferHandle> {
        let _ = (ptr, bytes);
        None
    }
    /// Sends later work to the caller's stream (see `Backend::use_stream`); `false` where
    /// there is no device.
    ///
    /// # Safety
    /// As `Backend::use_stream`.
    unsafe fn use_stream(&self, stream: u64) -> Result<bool, BackendError> {
        let _ = stream;
        Ok(false)
    }
    /// Whether [`Executor::convolution`] runs convolutions through a library (cuDNN).
    fn has_convolution(&self) -> bool {
        false
    }
    /// `out = conv(x, w) + bias` in f32 (the operands `[x, w, bias?]` of an
    /// [`coil_lower::ExternKind::Convolution`] call).
    fn convolution(&self, conv: &ConvOp, call: &ExternCall) -> Result<(), BackendError> {
        let _ = (conv, call);
        Err(BackendError::Runtime(
            "this executor has no convolution library".into(),
        ))
    }
    /// Waits for everything launched.
    fn synchronize(&self) -> Result<(), BackendError>;
    /// The GPU, for events, profiling and device copies (none on the emulator or offline).
    fn gpu(&self) -> Option<&Gpu> {
        None
    }
}

/// A loaded module's kernels.
pub(crate) trait LoadedModule: Send + Sync {
    /// Launches kernel `index` (rendered as `main`) on `args`, whose buffers the caller checked
    /// against the kernel's argument count.
    fn launch(
        &self,
        index: usize,
        main: &RenderedKernel,
        args: &[BufferHandle],
    ) -> Result<(), BackendError>;
    /// The plan kernel `index` runs with, when autotuning chose another than its main one.
    fn chosen_plan(&self, index: usize) -> Option<KernelPlan> {
        let _ = index;
        None
    }
    /// How its modules became machine code. Default: nothing said (no device).
    fn machine_code(&self) -> coil_kernel::MachineCode {
        coil_kernel::MachineCode::default()
    }
}

/// `buffer` is not (or no longer) one of this executor's.
pub(crate) fn dead(buffer: BufferHandle) -> BackendError {
    BackendError::Runtime(format!("{buffer} is not a live buffer of this backend"))
}

/// `buffer` holds `len` bytes, fewer than the `need` kernel `name` reads or writes.
pub(crate) fn too_small(name: &str, buffer: BufferHandle, len: usize, need: usize) -> BackendError {
    BackendError::Runtime(format!(
        "{name}: buffer {buffer} has {len} bytes, the kernel reads or writes {need}"
    ))
}
