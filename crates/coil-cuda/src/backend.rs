//! [`CudaBackend`]: coil's [`Backend`] for NVIDIA GPUs. `compile` renders each distinct kernel
//! (twins of one code share it) into PTX (`.target` from the device's compute capability, `sm_90`
//! without one) and loads it (`compile.rs`); `launch` runs a kernel's entries with the launch
//! configurations the translator chose; memory lives behind opaque handles; `matmul` calls
//! cuBLAS `sgemm` (strided batched for bmm, transposed operands as views).
//!
//! Where the PTX runs is an executor behind one trait (`exec/`): a GPU
//! ([`CudaBackend::new`]), none ([`CudaBackend::offline`]: renders PTX only, for
//! `--compile-only` and CI), or coil-ptx's emulator ([`CudaBackend::emulated`]: runs the same
//! PTX on the host, slowly, so whole models can be checked end to end on machines without a
//! GPU). The backend renders, checks and delegates; it matches on none of them.

use std::sync::Arc;

use coil_codegen::{
    Backend, BackendError, BufferHandle, CompiledKernels, Compiler, Device, DeviceClock,
    DeviceTimes, ExternCall, ExternKind, Kernel, Runtime, StridedOperand, Target,
};
use coil_graph::DType;

use crate::blas::{Gemm, MatLayout};
use crate::error::CudaError;
use crate::exec::{Emulated, Executor, Gpu, Offline};
use crate::families::SizeFamilies;
use crate::jit::ModuleSplit;
use crate::render::KernelPlan;
use crate::runtime::GpuDevice;
use coil_ptx::{GpuCaps, PtxTarget};

pub use crate::exec::ProfiledLaunch;

/// Chooses a kernel's plan (see [`crate::render::plan_kernel`]).
pub type Planner = Arc<dyn Fn(&Kernel, &GpuCaps) -> KernelPlan + Send + Sync>;

/// The CUDA backend (`cuda`). A clone shares the executor (the device or emulator, and its
/// memory).
#[derive(Clone)]
pub struct CudaBackend {
    /// Where the PTX runs: a GPU, the emulator, or nowhere.
    pub(crate) exec: Arc<dyn Executor>,
    pub(crate) caps: GpuCaps,
    pub(crate) target: PtxTarget,
    pub(crate) description: String,
    pub(crate) planner: Option<Planner>,
    /// Time each kernel's candidate plans at its first launch and keep the fastest.
    pub(crate) autotune: bool,
    /// How kernels are shared out over PTX modules ([`CudaBackend::with_modules`]).
    pub(crate) modules: ModuleSplit,
    /// A column of ones (its buffer and length) that broadcasts an `addmm`'s bias through
    /// cuBLAS (`ones[m, 1] @ bias[1, n]`), grown as needed.
    pub(crate) ones: Arc<std::sync::Mutex<Option<(BufferHandle, usize, DType)>>>,
    /// Convolutions through cuDNN (where it loads) rather than im2col and cuBLAS.
    pub(crate) cudnn_conv: bool,
    /// Every kernel rendered and loaded on its own ([`CudaBackend::with_every_kernel`]).
    pub(crate) every_kernel: bool,
    /// General kernels shared across sizes ([`crate::families`]); `None`: every compile
    /// renders all of its own code.
    pub(crate) families: Option<Arc<SizeFamilies>>,
}

impl std::fmt::Debug for CudaBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaBackend")
            .field("device", &self.description)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

pub(crate) fn err(e: CudaError) -> BackendError {
    match e {
        CudaError::Codegen { kernel, reason } => BackendError::Codegen {
            kernel,
            msg: reason,
        },
        CudaError::Ptx(coil_ptx::PtxError { kernel, reason }) => BackendError::Codegen {
            kernel,
            msg: reason,
        },
        e @ (CudaError::NoDriver
        | CudaError::NoDevice { .. }
        | CudaError::DriverUnusable(_)
        | CudaError::Offline(_)
        | CudaError::NoCublas) => BackendError::Device(e.to_string()),
        other => BackendError::Runtime(other.to_string()),
    }
}

impl CudaBackend {
    /// Opens GPU 0. Without a driver or a GPU this is an error value
    /// ([`CudaError::NoDriver`], [`CudaError::NoDevice`]), never a panic.
    pub fn new() -> Result<CudaBackend, CudaError> {
        CudaBackend::with_device(GpuDevice::open(0)?)
    }

    /// A backend on an open device.
    pub fn with_device(device: GpuDevice) -> Result<CudaBackend, CudaError> {
        let info = device.info().clone();
        let caps = info.caps.clone();
        let target = caps.target();
        let description = format!(
            "{} ({}, {} SMs, {} GiB, driver {}.{})",
            info.name,
            target.sm_name(),
            caps.sm_count,
            info.total_memory >> 30,
            info.driver_version / 1000,
            (info.driver_version % 1000) / 10
        );
        Ok(CudaBackend {
            exec: Arc::new(Gpu::new(device)),
            caps,
            target,
            description,
            planner: None,
            autotune: true,
            modules: ModuleSplit::per_core(),
            ones: Arc::default(),
            cudnn_conv: false,
            every_kernel: false,
            families: Some(Arc::default()),
        })
    }

    /// No device: renders PTX for an H200 (`sm_90`, 132 SMs) and nothing else. Allocations
    /// succeed as names without memory (so a model compiles end to end); copies, launches and
    /// matmuls fail with [`CudaError::Offline`].
    pub fn offline() -> CudaBackend {
        CudaBackend::offline_for(GpuCaps::h200())
    }

    /// No device: renders PTX for a GPU with `caps`.
    pub fn offline_for(caps: GpuCaps) -> CudaBackend {
        let target = caps.target();
        CudaBackend {
            description: format!(
                "offline: PTX for {} ({} SMs)",
                target.sm_name(),
                caps.sm_count
            ),
            exec: Arc::new(Offline::default()),
            caps,
            target,
            planner: None,
            autotune: true,
            modules: ModuleSplit::per_core(),
            ones: Arc::default(),
            cudnn_conv: false,
            every_kernel: false,
            families: Some(Arc::default()),
        }
    }

    /// Runs the PTX rendered for an H200 on the host's PTX emulator ([`crate::emu`]): exact
    /// and slow (for tests on machines without a GPU); every access bounds- and
    /// alignment-checked.
    pub fn emulated() -> CudaBackend {
        let caps = GpuCaps::h200();
        let target = caps.target();
        CudaBackend {
            description: format!("PTX emulator ({} code)", target.sm_name()),
            exec: Arc::new(Emulated::default()),
            caps,
            target,
            planner: None,
            autotune: true,
            modules: ModuleSplit::per_core(),
            ones: Arc::default(),
            cudnn_conv: false,
            every_kernel: false,
            families: Some(Arc::default()),
        }
    }

    /// Shares general kernels across sizes through `families` (the Python module hands every
    /// compile of the process the same one), or, with `None`, renders every kernel's own code
    /// at every size ([`crate::families`]). A backend starts with a set of its own, shared by
    /// its clones.
    pub fn with_size_families(mut self, families: Option<Arc<SizeFamilies>>) -> CudaBackend {
        self.families = families;
        self
    }

    /// Runs convolutions through cuDNN (one call each, where it loads) instead of im2col and
    /// a cuBLAS matmul, the default: on the H200 the real models' convolutions ran 3-4x
    /// faster as im2col (docs/perf.md).
    pub fn with_cudnn_conv(mut self, on: bool) -> CudaBackend {
        self.cudnn_conv = on;
        self
    }

    /// Matmuls through cuBLASLt (the default: a plan per problem, an `addmm`'s bias in the
    /// same call) or, with `false`, classic cuBLAS only (to compare the two). No effect off a
    /// GPU.
    pub fn with_cublaslt(self, on: bool) -> CudaBackend {
        if let Some(g) = self.exec.gpu() {
            g.device().set_lt(on);
        }
        self
    }

    /// Whether convolutions are one cuDNN call each.
    pub fn uses_cudnn(&self) -> bool {
        self.cudnn_conv && self.exec.has_convolution()
    }

    /// Plans kernels with `planner` instead of [`crate::render::plan_kernel`] (to compare
    /// strategies on a GPU); a plan that does not suit a kernel falls back to the default.
    pub fn with_planner(mut self, planner: Planner) -> CudaBackend {
        self.planner = Some(planner);
        self
    }

    /// Whether kernels with several candidate plans ([`crate::render::candidate_plans`]) are
    /// autotuned on a GPU: each candidate timed with CUDA events at the kernel's first launch
    /// (on that launch's buffers; kernels never write what they read, so running one again is
    /// harmless), the fastest kept for every later launch. On by default; off with a planner.
    pub fn with_autotune(mut self, on: bool) -> CudaBackend {
        self.autotune = on;
        self
    }

    /// Whether every kernel is rendered, tuned and loaded on its own, even one with the same
    /// code ([`Kernel::code_key`]) and direction ([`walk_backwards`]) as an earlier kernel of
    /// the compile. Off by default: such twins launch the first one's entries.
    pub fn with_every_kernel(mut self, on: bool) -> CudaBackend {
        self.every_kernel = on;
        self
    }

    /// How a compile's kernels are shared out over PTX modules ([`ModuleSplit`]; by default
    /// one module per core, [`ModuleSplit::per_core`]).
    pub fn with_modules(mut self, split: ModuleSplit) -> CudaBackend {
        self.modules = split;
        self
    }

    /// Sends the machine code of later compiles through the persistent compile cache `cache`
    /// (by default there is none). No effect off a GPU.
    pub fn with_compile_cache(self, cache: std::sync::Arc<coil_cache::Cache>) -> CudaBackend {
        if let Some(g) = self.exec.gpu() {
            g.device().set_compile_cache(cache);
        }
        self
    }

    /// Chooses cuDNN's convolution algorithms as `choice` says (a benchmark kept in the
    /// compile cache by default, or cuDNN's heuristic). No effect off a GPU.
    pub fn with_conv_algo(self, choice: crate::ConvAlgoChoice) -> CudaBackend {
        if let Some(g) = self.exec.gpu() {
            g.device().set_conv_algo_choice(choice);
        }
        self
    }

    /// Turns later modules' PTX into machine code with `options` (which library, optimization
    /// level, register cap). No effect off a GPU.
    pub fn with_jit_options(self, options: crate::JitOptions) -> CudaBackend {
        if let Some(g) = self.exec.gpu() {
            g.device().set_jit_options(options);
        }
        self
    }

    /// Starts (or stops and discards) recording CUDA events around every launch and matmul
    /// (GPU only). Events cost a microsecond or two of host time per launch.
    pub fn set_profiling(&self, on: bool) {
        if let Some(gpu) = self.exec.gpu() {
            gpu.set_profiling(on);
        }
    }

    /// The launches recorded since profiling started or the last take (profiling stays on).
    pub fn take_profile(&self) -> Vec<ProfiledLaunch> {
        self.exec.gpu().map(Gpu::take_profile).unwrap_or_default()
    }

    /// The open GPU, if any (for timing with events, device copies, capability queries).
    pub fn gpu(&self) -> Option<&GpuDevice> {
        self.exec.gpu().map(Gpu::device)
    }

    /// The capability flags kernels are planned for.
    pub fn caps(&self) -> &GpuCaps {
        &self.caps
    }

    /// The PTX target.
    pub fn target(&self) -> PtxTarget {
        self.target
    }
}

/// A matmul operand as cuBLAS sees it: batch count, rows, cols and layout.
impl CudaBackend {
    /// Writes an `addmm`'s bias (a row broadcast over `m` rows: an `[m, n]` view with strides
    /// `[0, 1]`) into the output, as the rank-1 product `ones[m, 1] @ bias[1, n]`.
    fn broadcast_bias(
        &self,
        bias: &StridedOperand,
        out: (BufferHandle, MatLayout),
        m: usize,
        n: usize,
    ) -> Result<(), BackendError> {
        if bias.sizes != [m, n] || bias.strides != [0, 1] {
            return Err(BackendError::Runtime(format!(
                "an addmm bias must be a broadcast row of [{m}, {n}], got {} {:?} strides {:?}",
                bias.dtype, bias.sizes, bias.strides
            )));
        }
        let dtype = bias.dtype;
        let ones = {
            let mut guard = self.ones.lock().unwrap_or_else(|p| p.into_inner());
            match *guard {
                Some((h, len, d)) if len >= m && d == dtype => h,
                _ => {
                    if let Some((h, _, _)) = guard.take() {
                        self.exec.free(h);
                    }
                    let len = m.next_power_of_two().max(256);
                    let one: Vec<u8> = match dtype {
                        DType::F16 => half::f16::ONE.to_le_bytes().to_vec(),
                        DType::BF16 => half::bf16::ONE.to_le_bytes().to_vec(),
                        _ => 1.0f32.to_le_bytes().to_vec(),
                    };
                    let h = self.exec.alloc(one.len() * len)?;
                    let bytes: Vec<u8> = std::iter::repeat_n(one, len).flatten().collect();
                    self.exec.write(h, &bytes)?;
                    *guard = Some((h, len, dtype));
                    h
                }
            }
        };
        let row = MatLayout {
            offset: bias.offset,
            row_stride: n,
            transposed: false,
            batch_stride: 0,
        };
        let gemm = Gemm {
            dtype,
            batch: 1,
            m,
            n,
            k: 1,
            alpha: 1.0,
            beta: 0.0,
        };
        self.exec.sgemm(
            gemm,
            (ones, MatLayout::contiguous(m, 1)),
            (bias.buffer, row),
            out,
        )
    }
}

fn mat_layout(
    what: &str,
    op: &StridedOperand,
) -> Result<(usize, usize, usize, MatLayout), BackendError> {
    let bad = |msg: String| BackendError::Runtime(format!("matmul operand {what}: {msg}"));
    if !matches!(op.dtype, DType::F32 | DType::F16 | DType::BF16) {
        return Err(bad(format!(
            "{} matmuls are not supported (cuBLAS runs f32, f16 and bf16)",
            op.dtype
        )));
    }
    let (batch, batch_stride, rows, cols, rs, cs) =
        match (op.sizes.as_slice(), op.strides.as_slice()) {
            ([r, c], [rs, cs]) => (1, 0, *r, *c, *rs, *cs),
            ([b, r, c], [bs, rs, cs]) => (*b, *bs, *r, *c, *rs, *cs),
            _ => return Err(bad(format!("sizes {:?} are not 2-D or 3-D", op.sizes))),
        };
    let layout = if cs == 1 || cols == 1 {
        MatLayout {
            offset: op.offset,
            row_stride: rs.max(cols),
            transposed: false,
            batch_stride,
        }
    } else if rs == 1 || rows == 1 {
        MatLayout {
            offset: op.offset,
            row_stride: cs.max(rows),
            transposed: true,
            batch_stride,
        }
    } else {
        return Err(bad(format!(
            "strides {:?} have no unit stride (copy it contiguous first)",
            op.strides
        )));
    };
    Ok((batch, rows, cols, layout))
}

impl Backend for CudaBackend {
    /// The GPU's rules; library matmuls (cuBLAS), and convolutions through cuDNN when it is
    /// chosen (it has f16 and bf16 kernels on every GPU coil targets, sm_80 and later). Kernel
    /// building keeps Inductor's naming limit (rows up to 1024 are `per`); the translator
    /// still holds longer rows in registers when they fit (see [`crate::render::plan_kernel`]).
    fn target(&self) -> Target {
        let mut t = Target::new("cuda", self.description.clone(), Device::Cuda(0));
        // cuBLAS: f32, and f16 / bf16 with f32 compute.
        t.caps.matmul = vec![DType::F32, DType::F16, DType::BF16];
        if self.uses_cudnn() {
            t.caps.conv = vec![DType::F32, DType::BF16, DType::F16];
        }
        t
    }
}

impl Compiler for CudaBackend {
    fn compile(&self, kernels: &[Kernel]) -> Result<Box<dyn CompiledKernels>, BackendError> {
        Ok(Box::new(self.compile_cuda(kernels).map_err(err)?))
    }
}

impl Runtime for CudaBackend {
    fn alloc(&self, bytes: usize) -> Result<BufferHandle, BackendError> {
        self.exec.alloc(bytes)
    }

    fn free(&self, buffer: BufferHandle) {
        self.exec.free(buffer);
    }

    fn write(&self, buffer: BufferHandle, bytes: &[u8]) -> Result<(), BackendError> {
        self.exec.write(buffer, bytes)
    }

    fn read(&self, buffer: BufferHandle, out: &mut [u8]) -> Result<(), BackendError> {
        self.exec.read(buffer, out)
    }

    fn copy_buffer(
        &self,
        src: BufferHandle,
        src_offset: usize,
        dst: BufferHandle,
        bytes: usize,
    ) -> Result<(), BackendError> {
        if self.exec.copy_buffer(src, src_offset, dst, bytes)? {
            return Ok(());
        }
        coil_kernel::copy_through_host(self, src, src_offset, dst, bytes)
    }

    unsafe fn borrow_device(&self, ptr: u64, bytes: usize) -> Option<BufferHandle> {
        // SAFETY: the caller's promise.
        unsafe { self.exec.borrow_device(ptr, bytes) }
    }

    unsafe fn use_stream(&self, stream: u64) -> Result<bool, BackendError> {
        // SAFETY: the caller's promise.
        unsafe { self.exec.use_stream(stream) }
    }

    fn extern_call(&self, call: &ExternCall) -> Result<(), BackendError> {
        if let ExternKind::Convolution(conv) = &call.kind {
            use coil_graph::DType;
            let dtype = call.out.dtype;
            let one_float_dtype = matches!(dtype, DType::F32 | DType::F16 | DType::BF16)
                && call.inputs.iter().all(|o| o.dtype == dtype);
            if !conv.post.is_empty() {
                // This backend's lower config never asks for convolution post-ops.
                return Err(BackendError::Runtime(format!(
                    "{}: cuDNN convolutions take no post-ops here",
                    call.kind.kernel_name()
                )));
            }
            if call.inputs.len() != 2 + usize::from(conv.bias) || !one_float_dtype {
                return Err(BackendError::Runtime(format!(
                    "a convolution of {} operands ({}), all f32, f16 or bf16 as its output \
                     expected",
                    call.inputs.len(),
                    call.inputs
                        .iter()
                        .map(|o| o.dtype.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            return self.exec.convolution(conv, call);
        }
        if !matches!(call.kind, ExternKind::Matmul(_)) {
            return Err(BackendError::Runtime(format!(
                "the cuda backend does not run {} (host fallbacks are the facade's)",
                call.kind.kernel_name()
            )));
        }
        let (a, b) = call.matmul_operands()?;
        let (ba, m, k, la) = mat_layout("a", a)?;
        let (bb, k2, n, lb) = mat_layout("b", b)?;
        let (bc, m2, n2, lc) = mat_layout("out", &call.out)?;
        if a.dtype != b.dtype || a.dtype != call.out.dtype {
            return Err(BackendError::Runtime(format!(
                "matmul dtypes differ: {} @ {} -> {}",
                a.dtype, b.dtype, call.out.dtype
            )));
        }
        if k != k2 || m != m2 || n != n2 || ba != bb || ba != bc || lc.transposed {
            return Err(BackendError::Runtime(format!(
                "matmul shapes do not agree: {:?} @ {:?} -> {:?}",
                a.sizes, b.sizes, call.out.sizes
            )));
        }
        let mut gemm = Gemm {
            dtype: a.dtype,
            batch: ba,
            m,
            n,
            k,
            alpha: 1.0,
            beta: 0.0,
        };
        if let Some(bias) = call.matmul_bias() {
            let row = bias.sizes == [m, n] && bias.strides == [0, 1] && bias.dtype == a.dtype;
            if row
                && self.exec.sgemm_bias(
                    gemm,
                    (a.buffer, la),
                    (b.buffer, lb),
                    (call.out.buffer, lc),
                    (bias.buffer, bias.offset),
                )?
            {
                return Ok(());
            }
            self.broadcast_bias(bias, (call.out.buffer, lc), m, n)?;
            gemm.beta = 1.0;
        }
        self.exec
            .sgemm(gemm, (a.buffer, la), (b.buffer, lb), (call.out.buffer, lc))
    }

    fn synchronize(&self) -> Result<(), BackendError> {
        self.exec.synchronize()
    }

    fn clock(&self) -> Option<&dyn DeviceClock> {
        self.gpu().map(|_| self as &dyn DeviceClock)
    }
}

/// CUDA events on the device's stream.
impl DeviceClock for CudaBackend {
    fn start(&self, per_launch: bool) -> Result<(), BackendError> {
        let dev = self
            .gpu()
            .ok_or_else(|| err(CudaError::Offline("record events")))?;
        self.set_profiling(per_launch);
        let event = dev.record_event().map_err(err)?;
        if let Some(gpu) = self.exec.gpu() {
            *gpu.clock_start() = Some(event);
        }
        Ok(())
    }

    fn stop(&self) -> Result<DeviceTimes, BackendError> {
        let dev = self
            .gpu()
            .ok_or_else(|| err(CudaError::Offline("record events")))?;
        let start = self
            .exec
            .gpu()
            .and_then(|g| g.clock_start().take())
            .ok_or_else(|| BackendError::Runtime("the device clock was not started".into()))?;
        let end = dev.record_event().map_err(err)?;
        let total_ms = f64::from(start.elapsed_ms(&end).map_err(err)?);
        let launches = self
            .take_profile()
            .into_iter()
            .map(|l| Ok((l.name, f64::from(l.start.elapsed_ms(&l.end).map_err(err)?))))
            .collect::<Result<Vec<_>, BackendError>>()?;
        self.set_profiling(false);
        Ok(DeviceTimes { total_ms, launches })
    }

    fn copy_gbps(&self, bytes: usize, reps: usize) -> Result<f64, BackendError> {
        let dev = self
            .gpu()
            .ok_or_else(|| err(CudaError::Offline("copy memory")))?;
        let bytes = bytes.max(1 << 20);
        let src = dev.alloc_zeroed(bytes).map_err(err)?;
        let mut dst = dev.alloc_zeroed(bytes).map_err(err)?;
        let ms = crate::exec::median_device_ms(dev, 3, reps, || {
            dev.copy_device(&src, 0, &mut dst, 0, bytes).map_err(err)
        })?;
        Ok(2.0 * bytes as f64 / (ms * 1e-3) / 1e9)
    }
}
