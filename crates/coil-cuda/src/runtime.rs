//! The CUDA runtime through cudarc's driver API, loaded at run time (`dynamic-loading`): open a
//! device, allocate and copy buffers, load PTX (cached by a hash of its text), launch kernels,
//! synchronize, and time with CUDA events. On a machine without a driver or GPU every entry
//! point returns a [`CudaError`]; nothing panics.

use std::collections::HashMap;
use std::ffi::{CString, c_void};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::sync::{Arc, Mutex};

use cudarc::cublas::CudaBlas;
use cudarc::driver::result as dr;
use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaEvent, CudaSlice, CudaStream, DevicePtr, DriverError};

use crate::error::CudaError;
use crate::launch::LaunchConfig;
use crate::ptx::{Param, ParamTy, PtxKernel, PtxModule};
use coil_ptx::GpuCaps;

/// Whether the CUDA driver library (`libcuda.so`) can be loaded on this machine.
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the library by its usual names.
    unsafe { sys::is_culib_present() }
}

/// Whether cuBLAS (`libcublas.so`) can be loaded on this machine.
pub fn cublas_present() -> bool {
    // SAFETY: only tries to dlopen the library by its usual names.
    unsafe { cudarc::cublas::sys::is_culib_present() }
}

static PRELOADED: Mutex<Vec<libloading::Library>> = Mutex::new(Vec::new());

/// Loads a shared library by path and keeps it loaded, so that later loads by its soname
/// (`libcublas.so.13`) find it: for cuBLAS installed where the loader does not look, e.g. a
/// PyTorch virtualenv's `nvidia/cu13/lib`. Load dependencies first (`libcublasLt` before
/// `libcublas`).
pub fn preload_library(path: &Path) -> Result<(), CudaError> {
    // SAFETY: loading a library runs its initialisers; NVIDIA's libraries have no unsound ones.
    let lib = unsafe { libloading::Library::new(path) }.map_err(|e| CudaError::Library {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    PRELOADED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .push(lib);
    Ok(())
}

/// Makes cuBLAS loadable when it is installed outside the loader path: preloads `libcublasLt`
/// then `libcublas` from the first of `dirs` that makes cuBLAS present (the caller says where
/// to look: `$COIL_CUBLAS_DIR`, PyTorch's wheels' `nvidia/cu13/lib`; this crate reads no
/// environment and starts no process). Returns where cuBLAS was found (in words) and the
/// libraries that failed to load on the way.
pub fn preload_cublas(dirs: &[std::path::PathBuf]) -> (String, Vec<CudaError>) {
    let mut errors = Vec::new();
    if cublas_present() {
        return ("on the loader path".into(), errors);
    }
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut libs: Vec<std::path::PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("libcublas") && n.contains(".so"))
            })
            .collect();
        // libcublasLt before libcublas (its dependency).
        libs.sort_by_key(|p| !p.to_string_lossy().contains("libcublasLt"));
        for lib in &libs {
            if let Err(e) = preload_library(lib) {
                errors.push(e);
            }
        }
        if cublas_present() {
            return (format!("preloaded from {}", dir.display()), errors);
        }
    }
    (
        format!(
            "not found in {} director{} (set COIL_CUBLAS_DIR to the one holding libcublas.so.13)",
            dirs.len(),
            if dirs.len() == 1 { "y" } else { "ies" }
        ),
        errors,
    )
}

/// What the driver says about an open device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The ordinal it was opened with.
    pub ordinal: usize,
    /// The marketing name, e.g. `NVIDIA H200`.
    pub name: String,
    /// Global memory in bytes.
    pub total_memory: usize,
    /// The driver's CUDA version, e.g. 13000 for 13.0.
    pub driver_version: i32,
    /// The capability flags the renderer reads (SM count, compute capability, ...).
    pub caps: GpuCaps,
}

struct Module {
    raw: sys::CUmodule,
    ctx: Arc<CudaContext>,
    text: String,
}

// SAFETY: a CUmodule handle may be used from any thread once its context is bound there, which
// every use here does first.
unsafe impl Send for Module {}
// SAFETY: as above; the handle is never mutated.
unsafe impl Sync for Module {}

impl Drop for Module {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: the module was loaded by us and is unloaded once, here.
            let _ = unsafe { dr::module::unload(self.raw) };
        }
    }
}

/// A kernel loaded on a device, ready to launch. Keeps its module loaded.
#[derive(Clone)]
pub struct LoadedKernel {
    module: Arc<Module>,
    func: sys::CUfunction,
    name: String,
    params: Vec<Param>,
    max_threads: Option<u32>,
}

// SAFETY: a CUfunction stays valid while its module (held here) is loaded, from any thread.
unsafe impl Send for LoadedKernel {}
// SAFETY: as above.
unsafe impl Sync for LoadedKernel {}

impl std::fmt::Debug for LoadedKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedKernel")
            .field("name", &self.name)
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

impl LoadedKernel {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its parameters, in launch order.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// Registers per thread, as the driver's JIT compiled it.
    pub fn registers_per_thread(&self) -> Result<i32, CudaError> {
        self.attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)
    }

    /// Bytes of local (spill) memory per thread.
    pub fn local_bytes_per_thread(&self) -> Result<i32, CudaError> {
        self.attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
    }

    fn attribute(&self, attr: sys::CUfunction_attribute) -> Result<i32, CudaError> {
        self.module
            .ctx
            .bind_to_thread()
            .map_err(|e| CudaError::driver("cuCtxSetCurrent", e))?;
        // SAFETY: the function belongs to a loaded module.
        unsafe { dr::function::get_function_attribute(self.func, attr) }
            .map_err(|e| CudaError::driver(format!("cuFuncGetAttribute {}", self.name), e))
    }
}

/// Device memory: a byte buffer. Kernels and copies see it through typed views. A borrowed
/// buffer ([`GpuDevice::borrow`]) is someone else's memory: dropping it frees nothing.
pub struct DeviceBuffer {
    slice: std::mem::ManuallyDrop<CudaSlice<u8>>,
    len: usize,
    borrowed: bool,
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: the slice is taken once, here.
        let slice = unsafe { std::mem::ManuallyDrop::take(&mut self.slice) };
        if self.borrowed {
            slice.leak();
        }
    }
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer({} bytes)", self.len)
    }
}

impl DeviceBuffer {
    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn slice_ref(&self) -> &CudaSlice<u8> {
        &self.slice
    }

    pub(crate) fn slice_mut_ref(&mut self) -> &mut CudaSlice<u8> {
        &mut self.slice
    }
}

/// A plain-old-data element type that can be copied between host slices and device bytes
/// (every bit pattern is a valid value, no padding).
pub trait Element: Copy + Send + Sync + 'static + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! elements {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {}
    )*};
}
elements!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);

fn as_bytes<T: Element>(s: &[T]) -> &[u8] {
    // SAFETY: `Element` types have no padding and no invalid bit patterns.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

fn as_bytes_mut<T: Element>(s: &mut [T]) -> &mut [u8] {
    // SAFETY: as above; any bytes written form valid `T`s.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

/// One launch argument: a buffer (at a byte offset) or a scalar. Its kind must match the
/// kernel's parameter type.
#[derive(Clone, Copy, Debug)]
pub enum ParamValue<'a> {
    /// A device pointer `offset` bytes into `buffer`, for a [`ParamTy::Ptr`] parameter.
    Ptr {
        /// The buffer.
        buffer: &'a DeviceBuffer,
        /// Byte offset into it.
        offset: usize,
    },
    /// For [`ParamTy::U32`].
    U32(u32),
    /// For [`ParamTy::S32`].
    S32(i32),
    /// For [`ParamTy::U64`].
    U64(u64),
    /// For [`ParamTy::S64`].
    S64(i64),
    /// For [`ParamTy::F32`].
    F32(f32),
    /// For [`ParamTy::F64`].
    F64(f64),
}

impl<'a> ParamValue<'a> {
    /// The start of `buffer`.
    pub fn buffer(buffer: &'a DeviceBuffer) -> ParamValue<'a> {
        ParamValue::Ptr { buffer, offset: 0 }
    }
}

/// A CUDA event recorded on the device's stream; two of them time the work between.
pub struct Event {
    event: CudaEvent,
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Event")
    }
}

impl Event {
    /// Milliseconds from this event to `end` (waits for `end` to complete).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32, CudaError> {
        end.event
            .synchronize()
            .map_err(|e| CudaError::driver("cuEventSynchronize", e))?;
        self.event
            .elapsed_ms(&end.event)
            .map_err(|e| CudaError::driver("cuEventElapsedTime", e))
    }
}

/// An open GPU: one context, one stream at a time (the context's default stream until a caller
/// hands over its own with [`GpuDevice::use_stream`]; every operation goes to it, so all are
/// ordered), a PTX module cache and, on first use, a cuBLAS handle.
pub struct GpuDevice {
    ctx: Arc<CudaContext>,
    stream: Mutex<Arc<CudaStream>>,
    info: DeviceInfo,
    modules: Mutex<HashMap<u64, Vec<Arc<Module>>>>,
    pub(crate) blas: Mutex<Option<CudaBlas>>,
    /// cuBLASLt's handle, plans and workspace, made on the first matmul that takes it.
    pub(crate) lt: Mutex<Option<crate::blas_lt::Lt>>,
    /// Matmuls through cuBLASLt where it loads (else classic cuBLAS only).
    pub(crate) use_lt: std::sync::atomic::AtomicBool,
    /// cuDNN's handle and prepared convolutions, made on first use.
    pub(crate) dnn: Mutex<Option<crate::dnn::Dnn>>,
    /// How cuDNN's algorithms are chosen.
    conv_algo: Mutex<crate::dnn::ConvAlgoChoice>,
    /// PTX to cubins, in parallel, through the persistent cache.
    jit: crate::jit::Jit,
}

impl std::fmt::Debug for GpuDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic while talking to the driver".into())
}

impl GpuDevice {
    /// The number of CUDA devices (an error when there is no driver).
    pub fn count() -> Result<usize, CudaError> {
        if !driver_present() {
            return Err(CudaError::NoDriver);
        }
        guard_panics(|| {
            match dr::init() {
                Ok(()) => {}
                Err(DriverError(sys::cudaError_enum::CUDA_ERROR_NO_DEVICE)) => return Ok(0),
                Err(e) => return Err(CudaError::driver("cuInit", e)),
            }
            let n = CudaContext::device_count()
                .map_err(|e| CudaError::driver("cuDeviceGetCount", e))?;
            Ok(n.max(0) as usize)
        })
    }

    /// Opens device `ordinal`: a clear error when there is no driver, no such device, or the
    /// driver is unusable.
    pub fn open(ordinal: usize) -> Result<GpuDevice, CudaError> {
        let count = GpuDevice::count()?;
        if ordinal >= count {
            return Err(CudaError::NoDevice { ordinal, count });
        }
        guard_panics(|| GpuDevice::open_checked(ordinal))
    }

    fn open_checked(ordinal: usize) -> Result<GpuDevice, CudaError> {
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| CudaError::driver("cuDevicePrimaryCtxRetain", e))?;
        // SAFETY: all work goes to one stream, so cudarc's cross-stream events are not needed.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.default_stream();
        let attr = |a: sys::CUdevice_attribute| -> Result<u32, CudaError> {
            ctx.attribute(a)
                .map(|v| v.max(0) as u32)
                .map_err(|e| CudaError::driver(format!("cuDeviceGetAttribute {a:?}"), e))
        };
        use sys::CUdevice_attribute as A;
        let (major, minor) = ctx
            .compute_capability()
            .map_err(|e| CudaError::driver("compute capability", e))?;
        let caps = GpuCaps {
            compute_capability: (major.max(0) as u32, minor.max(0) as u32),
            sm_count: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            warp_size: attr(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            max_threads_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_threads_per_sm: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
            shared_mem_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            vector_bytes: 16,
            l2_bytes: u64::from(attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?),
        };
        let mut driver_version = 0;
        // SAFETY: writes one int.
        unsafe { sys::cuDriverGetVersion(&mut driver_version) }
            .result()
            .map_err(|e| CudaError::driver("cuDriverGetVersion", e))?;
        let caps_copy = caps.clone();
        let info = DeviceInfo {
            ordinal,
            name: ctx
                .name()
                .map_err(|e| CudaError::driver("cuDeviceGetName", e))?,
            total_memory: ctx
                .total_mem()
                .map_err(|e| CudaError::driver("cuDeviceTotalMem", e))?,
            driver_version,
            caps,
        };
        tracing::debug!(target: "cuda", ?info, "opened CUDA device");
        let jit = crate::jit::Jit::new(caps_copy.compute_capability, driver_version);
        Ok(GpuDevice {
            jit,
            ctx,
            stream: Mutex::new(stream),
            info,
            modules: Mutex::new(HashMap::new()),
            blas: Mutex::new(None),
            lt: Mutex::new(None),
            use_lt: std::sync::atomic::AtomicBool::new(true),
            dnn: Mutex::new(None),
            conv_algo: Mutex::new(crate::dnn::ConvAlgoChoice::default()),
        })
    }

    /// What the driver reported when the device was opened.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The capability flags to render kernels for this device with.
    pub fn caps(&self) -> &GpuCaps {
        &self.info.caps
    }

    pub(crate) fn stream(&self) -> Arc<CudaStream> {
        self.stream
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Sends all later work to the caller's stream `raw` (a `CUstream` of this device's primary
    /// context, such as torch's current stream; 0 is the legacy default stream), after the
    /// work already sent to the current one has finished (so buffers it used are free).
    /// cuBLAS and cuDNN follow. A no-op when `raw` is the current stream.
    ///
    /// # Safety
    /// `raw` is a live stream of this device's primary context and stays alive while it is
    /// in use (until the next `use_stream` with another stream).
    pub unsafe fn use_stream(&self, raw: u64) -> Result<(), CudaError> {
        let mut current = self.stream.lock().unwrap_or_else(|p| p.into_inner());
        if current.cu_stream() as u64 == raw {
            return Ok(());
        }
        current
            .synchronize()
            .map_err(|e| CudaError::driver("cuStreamSynchronize", e))?;
        let next = if raw == 0 {
            self.ctx.default_stream()
        } else {
            // SAFETY: the caller's promise.
            unsafe { self.ctx.wrap_borrowed_stream(raw as sys::CUstream) }
        };
        if let Some(blas) = self.blas.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
            // SAFETY: the stream belongs to the handle's context.
            unsafe { blas.set_stream(next.clone()) }.map_err(|source| CudaError::Cublas {
                call: "cublasSetStream_v2",
                source,
            })?;
        }
        if let Some(d) = self.dnn.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            d.set_stream(raw)?;
        }
        tracing::debug!(target: "cuda", stream = raw, "work goes to the caller's stream");
        *current = next;
        Ok(())
    }

    fn bind(&self) -> Result<(), CudaError> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| CudaError::driver("cuCtxSetCurrent", e))
    }

    // ---- memory -----------------------------------------------------------------------

    /// Allocates `bytes` bytes of uninitialised device memory.
    pub fn alloc(&self, bytes: usize) -> Result<DeviceBuffer, CudaError> {
        self.bind()?;
        // SAFETY: the bytes are uninitialised; every byte pattern is a valid u8, and the
        // buffer's users write before they read.
        let slice = unsafe { self.stream().alloc::<u8>(bytes.max(1)) }
            .map_err(|e| CudaError::driver(format!("cuMemAlloc of {bytes} bytes"), e))?;
        Ok(DeviceBuffer {
            slice: std::mem::ManuallyDrop::new(slice),
            len: bytes,
            borrowed: false,
        })
    }

    /// `bytes` of device memory someone else allocated (a torch tensor's), at `ptr`, as a
    /// buffer that frees nothing when dropped.
    ///
    /// # Safety
    /// `ptr` is a live allocation of this device's context holding `bytes`, valid until the
    /// buffer is dropped.
    pub unsafe fn borrow(&self, ptr: u64, bytes: usize) -> DeviceBuffer {
        // SAFETY: the caller's promise.
        let slice = unsafe { self.stream().upgrade_device_ptr::<u8>(ptr, bytes) };
        DeviceBuffer {
            slice: std::mem::ManuallyDrop::new(slice),
            len: bytes,
            borrowed: true,
        }
    }

    /// Allocates `bytes` zeroed bytes.
    pub fn alloc_zeroed(&self, bytes: usize) -> Result<DeviceBuffer, CudaError> {
        self.bind()?;
        let slice = self
            .stream()
            .alloc_zeros::<u8>(bytes.max(1))
            .map_err(|e| CudaError::driver(format!("cuMemAlloc of {bytes} bytes"), e))?;
        Ok(DeviceBuffer {
            slice: std::mem::ManuallyDrop::new(slice),
            len: bytes,
            borrowed: false,
        })
    }

    /// A new buffer holding a copy of `host`.
    pub fn upload<T: Element>(&self, host: &[T]) -> Result<DeviceBuffer, CudaError> {
        let mut buf = self.alloc(std::mem::size_of_val(host))?;
        self.copy_to_device(host, &mut buf, 0)?;
        Ok(buf)
    }

    /// Copies `host` into `dst` at byte `offset`.
    pub fn copy_to_device<T: Element>(
        &self,
        host: &[T],
        dst: &mut DeviceBuffer,
        offset: usize,
    ) -> Result<(), CudaError> {
        let bytes = as_bytes(host);
        check_range("copy_to_device", dst, offset, bytes.len())?;
        if bytes.is_empty() {
            return Ok(());
        }
        self.bind()?;
        let mut view = dst.slice.slice_mut(offset..offset + bytes.len());
        self.stream()
            .memcpy_htod(bytes, &mut view)
            .map_err(|e| CudaError::driver("cuMemcpyHtoD", e))
    }

    /// Copies bytes from `src` at byte `offset` into `host` (fills it), waiting for the copy
    /// (and all earlier work) to finish.
    pub fn copy_to_host<T: Element>(
        &self,
        src: &DeviceBuffer,
        offset: usize,
        host: &mut [T],
    ) -> Result<(), CudaError> {
        let bytes = as_bytes_mut(host);
        check_range("copy_to_host", src, offset, bytes.len())?;
        if bytes.is_empty() {
            return Ok(());
        }
        self.bind()?;
        let view = src.slice.slice(offset..offset + bytes.len());
        self.stream()
            .memcpy_dtoh(&view, bytes)
            .map_err(|e| CudaError::driver("cuMemcpyDtoH", e))?;
        self.synchronize()
    }

    /// The whole buffer as `T`s (its length must be a multiple of `T`'s size).
    pub fn download<T: Element + Default>(&self, src: &DeviceBuffer) -> Result<Vec<T>, CudaError> {
        let size = std::mem::size_of::<T>();
        if !src.len().is_multiple_of(size) {
            return Err(CudaError::Size {
                op: "download",
                reason: format!(
                    "{} bytes is not a whole number of {size}-byte elements",
                    src.len()
                ),
            });
        }
        let mut out = vec![T::default(); src.len() / size];
        self.copy_to_host(src, 0, &mut out)?;
        Ok(out)
    }

    /// Copies `bytes` bytes from `src` at `src_offset` to `dst` at `dst_offset`, on the device
    /// (asynchronous, ordered with launches).
    pub fn copy_device(
        &self,
        src: &DeviceBuffer,
        src_offset: usize,
        dst: &mut DeviceBuffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<(), CudaError> {
        check_range("copy_device (source)", src, src_offset, bytes)?;
        check_range("copy_device (destination)", dst, dst_offset, bytes)?;
        if bytes == 0 {
            return Ok(());
        }
        self.bind()?;
        let from = src.slice.slice(src_offset..src_offset + bytes);
        let mut to = dst.slice.slice_mut(dst_offset..dst_offset + bytes);
        self.stream()
            .memcpy_dtod(&from, &mut to)
            .map_err(|e| CudaError::driver("cuMemcpyDtoD", e))
    }

    /// Waits for all work submitted so far.
    pub fn synchronize(&self) -> Result<(), CudaError> {
        self.stream()
            .synchronize()
            .map_err(|e| CudaError::driver("cuStreamSynchronize", e))
    }

    /// Records an event on the stream (timing enabled).
    pub fn record_event(&self) -> Result<Event, CudaError> {
        let event = self
            .ctx
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| CudaError::driver("cuEventCreate", e))?;
        event
            .record(&self.stream())
            .map_err(|e| CudaError::driver("cuEventRecord", e))?;
        Ok(Event { event })
    }

    // ---- modules and launches ---------------------------------------------------------

    /// Loads `kernel` (a cache hit when the same PTX text was loaded before).
    pub fn load(&self, kernel: &PtxKernel) -> Result<LoadedKernel, CudaError> {
        let module = self.module(kernel.to_string(), kernel.name())?;
        self.function(&module, kernel)
    }

    /// Loads every kernel of `module` with one driver call.
    pub fn load_module(&self, module: &PtxModule) -> Result<Vec<LoadedKernel>, CudaError> {
        let first = module
            .kernels()
            .first()
            .map_or("<empty module>", |k| k.name());
        let loaded = self.module(module.to_string(), first)?;
        module
            .kernels()
            .iter()
            .map(|k| self.function(&loaded, k))
            .collect()
    }

    /// Turns the PTX of every module of `modules` (text, first kernel's name) into machine
    /// code at once, on every core, ahead of their loads ([`crate::jit`]).
    pub fn precompile(&self, modules: &[(String, String)]) {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.jit.precompile(modules, threads, &|| self.bind());
    }

    /// Each module's trip to machine code since the last call.
    pub fn take_jit_records(&self) -> Vec<crate::jit::JitRecord> {
        self.jit.take_records()
    }

    /// The persistent compile cache the cubins go through (off unless set).
    pub fn compile_cache(&self) -> Arc<coil_cache::Cache> {
        self.jit.cache()
    }

    /// How cuDNN's forward algorithms are chosen for convolutions prepared from now on.
    pub fn set_conv_algo_choice(&self, choice: crate::dnn::ConvAlgoChoice) {
        *self.conv_algo.lock().unwrap_or_else(|p| p.into_inner()) = choice;
    }

    /// How cuDNN's forward algorithms are chosen.
    pub fn conv_algo_choice(&self) -> crate::dnn::ConvAlgoChoice {
        *self.conv_algo.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How later modules' PTX becomes machine code (the driver's linker at level 4 by
    /// default).
    pub fn set_jit_options(&self, options: crate::jit::JitOptions) {
        self.jit.set_options(options);
    }

    /// The options later modules are compiled with.
    pub fn jit_options(&self) -> crate::jit::JitOptions {
        self.jit.options()
    }

    /// Sends later cubins through `cache`.
    pub fn set_compile_cache(&self, cache: Arc<coil_cache::Cache>) {
        self.jit.set_cache(cache);
    }

    /// Modules in the cache.
    pub fn cached_modules(&self) -> usize {
        self.modules
            .lock()
            .map(|m| m.values().map(Vec::len).sum())
            .unwrap_or(0)
    }

    fn module(&self, text: String, kernel: &str) -> Result<Arc<Module>, CudaError> {
        let mut h = DefaultHasher::new();
        text.hash(&mut h);
        let key = h.finish();
        let mut cache = self
            .modules
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(m) = cache
            .get(&key)
            .and_then(|v| v.iter().find(|m| m.text == text))
        {
            return Ok(m.clone());
        }
        let raw = match self.jit.cubin(&text, kernel, &|| self.bind()) {
            Ok(cubin) => {
                self.bind()?;
                let mut raw = std::ptr::null_mut();
                // SAFETY: the image is a whole cubin the driver's linker made for this device.
                unsafe { sys::cuModuleLoadData(&mut raw, cubin.as_ptr().cast::<c_void>()) }
                    .result()
                    .map_err(|e| {
                        CudaError::driver(format!("cuModuleLoadData of {kernel}'s cubin"), e)
                    })?;
                raw
            }
            // The linker failed where the PTX may still load (a driver without it working):
            // the driver's own JIT, whose error, if any, is the one reported.
            Err(e) => {
                tracing::warn!(target: "cuda", kernel, %e, "PTX to cubin failed: loading the PTX itself");
                self.load_ptx(&text, kernel)?
            }
        };
        tracing::debug!(target: "cuda", kernel, bytes = text.len(), "loaded PTX module");
        let module = Arc::new(Module {
            raw,
            ctx: self.ctx.clone(),
            text,
        });
        cache.entry(key).or_default().push(module.clone());
        Ok(module)
    }

    /// `text` loaded as PTX (the driver's JIT, no cubin kept).
    fn load_ptx(&self, text: &str, kernel: &str) -> Result<sys::CUmodule, CudaError> {
        self.bind()?;
        let c_text = crate::jit::ptx_cstring(text, kernel)?;
        let mut log = vec![0u8; 16 * 1024];
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        let mut values = [log.as_mut_ptr().cast::<c_void>(), log.len() as *mut c_void];
        let mut raw = std::ptr::null_mut();
        // SAFETY: the image is a NUL-terminated PTX string; the options point at a live buffer
        // of the stated size.
        let status = unsafe {
            sys::cuModuleLoadDataEx(
                &mut raw,
                c_text.as_ptr().cast::<c_void>(),
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        if let Err(source) = status.result() {
            return Err(crate::jit::module_load_error(kernel, source, &log));
        }
        Ok(raw)
    }

    fn function(
        &self,
        module: &Arc<Module>,
        kernel: &PtxKernel,
    ) -> Result<LoadedKernel, CudaError> {
        let name = CString::new(kernel.name()).map_err(|_| {
            CudaError::Ptx(coil_ptx::PtxError {
                kernel: kernel.name().to_string(),
                reason: "kernel name contains a NUL byte".into(),
            })
        })?;
        self.bind()?;
        // SAFETY: the module is loaded (held by `module`).
        let func = unsafe { dr::module::get_function(module.raw, name) }
            .map_err(|e| CudaError::driver(format!("cuModuleGetFunction {}", kernel.name()), e))?;
        Ok(LoadedKernel {
            module: module.clone(),
            func,
            name: kernel.name().to_string(),
            params: kernel.params().to_vec(),
            max_threads: kernel.max_threads_per_block(),
        })
    }

    /// Launches `kernel` on the stream (asynchronous). The arguments are checked against the
    /// kernel's parameters (count, kinds, buffer offsets) and the configuration against the
    /// kernel's `.maxntid` and the device's limits.
    ///
    /// # Safety
    /// The kernel may read and write any address it computes from its arguments: the caller
    /// promises that, for these arguments, it stays inside the buffers it is given and that no
    /// buffer it writes is read or written concurrently by the host.
    pub unsafe fn launch(
        &self,
        kernel: &LoadedKernel,
        config: LaunchConfig,
        args: &[ParamValue<'_>],
    ) -> Result<(), CudaError> {
        let fail = |reason: String| CudaError::Launch {
            kernel: kernel.name.clone(),
            reason,
        };
        if !Arc::ptr_eq(&kernel.module.ctx, &self.ctx) {
            return Err(fail("the kernel was loaded on another device".into()));
        }
        if args.len() != kernel.params.len() {
            return Err(fail(format!(
                "{} arguments for {} parameters",
                args.len(),
                kernel.params.len()
            )));
        }
        let threads = config.threads_per_block();
        let limit = kernel
            .max_threads
            .unwrap_or(self.info.caps.max_threads_per_block)
            .min(self.info.caps.max_threads_per_block);
        if threads == 0 || threads > u64::from(limit) {
            return Err(fail(format!("{threads} threads per block (limit {limit})")));
        }
        if config.grid.0 == 0 || config.grid.1 == 0 || config.grid.2 == 0 {
            return Err(fail(format!("empty grid {:?}", config.grid)));
        }
        let stream = self.stream();
        let mut values: Vec<u64> = Vec::with_capacity(args.len());
        for (i, (arg, param)) in args.iter().zip(&kernel.params).enumerate() {
            let v = match (arg, param.ty) {
                (ParamValue::Ptr { buffer, offset }, ParamTy::Ptr { align }) => {
                    if **buffer.slice.context() != *self.ctx {
                        return Err(fail(format!(
                            "argument {i} ({}) lives on another device",
                            param.name
                        )));
                    }
                    if *offset > buffer.len() {
                        return Err(fail(format!(
                            "argument {i} ({}): offset {offset} past the end of a {}-byte buffer",
                            param.name,
                            buffer.len()
                        )));
                    }
                    let (ptr, _sync) = buffer.slice.device_ptr(&stream);
                    let address = ptr + *offset as u64;
                    if !address.is_multiple_of(u64::from(align.max(1))) {
                        return Err(fail(format!(
                            "argument {i} ({}): address not {align}-byte aligned",
                            param.name
                        )));
                    }
                    address
                }
                (ParamValue::U32(v), ParamTy::U32) => u64::from(*v),
                (ParamValue::S32(v), ParamTy::S32) => u64::from(*v as u32),
                (ParamValue::U64(v), ParamTy::U64) => *v,
                (ParamValue::S64(v), ParamTy::S64) => *v as u64,
                (ParamValue::F32(v), ParamTy::F32) => u64::from(v.to_bits()),
                (ParamValue::F64(v), ParamTy::F64) => v.to_bits(),
                (arg, ty) => {
                    return Err(fail(format!(
                        "argument {i} ({}) is {arg:?} but the parameter is {ty:?}",
                        param.name
                    )));
                }
            };
            values.push(v);
        }
        // The driver reads each parameter's size from its slot; the low bytes come first on a
        // little-endian host.
        let mut pointers: Vec<*mut c_void> = values
            .iter_mut()
            .map(|v| (v as *mut u64).cast::<c_void>())
            .collect();
        self.bind()?;
        // SAFETY: the argument slots outlive the call and match the parameters' count and
        // sizes; memory safety of the kernel itself is the caller's promise.
        unsafe {
            dr::launch_kernel(
                kernel.func,
                config.grid,
                config.block,
                config.shared_mem_bytes,
                stream.cu_stream(),
                &mut pointers,
            )
        }
        .map_err(|e| CudaError::driver(format!("cuLaunchKernel {}", kernel.name), e))
    }
}

fn check_range(
    op: &'static str,
    buf: &DeviceBuffer,
    offset: usize,
    bytes: usize,
) -> Result<(), CudaError> {
    match offset.checked_add(bytes) {
        Some(end) if end <= buf.len() => Ok(()),
        _ => Err(CudaError::Size {
            op,
            reason: format!(
                "{bytes} bytes at offset {offset} do not fit a {}-byte buffer",
                buf.len()
            ),
        }),
    }
}

/// Runs `f`, turning a panic inside cudarc (a missing driver symbol, say) into an error.
fn guard_panics<T>(f: impl FnOnce() -> Result<T, CudaError>) -> Result<T, CudaError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|p| Err(CudaError::DriverUnusable(panic_message(p.as_ref()))))
}
