//! A backend in three roles: its [`Target`] (what earlier stages read), a [`Compiler`]
//! (kernels to runnable code) and a [`Runtime`] (memory, launches, externs, the clock).
//! [`Backend`] is the three together, object-safe, used as `dyn Backend` by the facade; a third
//! party adds a backend by implementing them, touching no other crate.

use std::fmt;

use thiserror::Error;

#[cfg(doc)]
use crate::MatmulOp;
use crate::kernel::Kernel;
use crate::{DType, ExternKind, PostOp, Target};

/// An opaque handle to memory a backend allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferHandle(pub u64);

impl fmt::Display for BufferHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mem{}", self.0)
    }
}

/// A strided operand of an extern call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StridedOperand {
    /// Where its storage lives.
    pub buffer: BufferHandle,
    /// Element type.
    pub dtype: DType,
    /// Sizes.
    pub sizes: Vec<usize>,
    /// Strides, in elements.
    pub strides: Vec<usize>,
    /// Offset of element 0, in elements.
    pub offset: usize,
}

/// An extern call as a backend runs it: the kind, the operands (strided views of backend
/// memory, in the kind's order) and the output.
///
/// For [`ExternKind::Matmul`]: `inputs` are `[a, b]`, `out = a @ b`; 2-D (`[m, k] @ [k, n]`,
/// [`MatmulOp::Mm`]) or batched 3-D (`[batch, m, k] @ [batch, k, n]`, [`MatmulOp::Bmm`]);
/// [`MatmulOp::Addmm`] takes `[bias, a, b]` and writes `bias + a @ b` (f32; the bias an
/// `[m, n]` view, a broadcast row with strides `[0, 1]`); for [`ExternKind::Convolution`]:
/// `[input, weight, bias?]` (f32, or f16 / bf16 where the lower config allows), `out`
/// contiguous `[N, C_out, *spatial]`;
/// `out` is contiguous; every operand has the same dtype (f32, f64, f16 or bf16, accumulated
/// in f32 or wider); `k` may be 0 (then `out` is zeros); operands never alias `out`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternCall {
    /// What to compute.
    pub kind: ExternKind,
    /// The operands.
    pub inputs: Vec<StridedOperand>,
    /// The result.
    pub out: StridedOperand,
}

impl ExternCall {
    /// A matmul's `(a, b)` (an `addmm`'s last two operands), or an error naming the call
    /// when it has not two operands (three with a bias).
    pub fn matmul_operands(&self) -> Result<(&StridedOperand, &StridedOperand), BackendError> {
        match self.matmul_inputs() {
            [a, b] | [_, a, b] => Ok((a, b)),
            other => Err(BackendError::Runtime(format!(
                "{} takes 2 operands, got {}",
                self.kind.kernel_name(),
                other.len()
            ))),
        }
    }
}

impl ExternCall {
    /// An `addmm`'s bias: `[m, n]`, usually a row broadcast (strides `[0, 1]`), added to the
    /// product inside the call (`None` for `mm` and `bmm`).
    pub fn matmul_bias(&self) -> Option<&StridedOperand> {
        match self.matmul_inputs() {
            [bias, _, _] => Some(bias),
            _ => None,
        }
    }

    /// The matmul's own operands (`[a, b]`, or `[bias, a, b]` for an `addmm`): the inputs
    /// before a [`ExternKind::FusedMatmul`]'s post-op operands.
    fn matmul_inputs(&self) -> &[StridedOperand] {
        let own = match self.kind.matmul() {
            Some((op, _)) => ExternKind::Matmul(op).arity(),
            None => self.inputs.len(),
        };
        &self.inputs[..own.min(self.inputs.len())]
    }

    /// A [`ExternKind::FusedMatmul`]'s post-ops, each with its tensor operand (a view of the
    /// output's sizes) where it takes one; empty for other kinds.
    pub fn post_ops(&self) -> Vec<(PostOp, Option<&StridedOperand>)> {
        let Some((_, post)) = self.kind.matmul() else {
            return Vec::new();
        };
        let mut extra = self.inputs[self.matmul_inputs().len()..].iter();
        post.iter()
            .map(|p| {
                (
                    *p,
                    if p.takes_operand() {
                        extra.next()
                    } else {
                        None
                    },
                )
            })
            .collect()
    }
}

/// What can go wrong in a backend.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum BackendError {
    /// Code generation failed (a bug or an unsupported construct), with the kernel's name.
    #[error("codegen of {kernel}: {msg}")]
    Codegen {
        /// The kernel.
        kernel: String,
        /// What went wrong.
        msg: String,
    },
    /// The device or its driver is missing or failed.
    #[error("device: {0}")]
    Device(String),
    /// A run-time failure (allocation, copy, launch).
    #[error("runtime: {0}")]
    Runtime(String),
}

/// Kernels compiled together (LLVM modules compiled side by side, one PTX module).
pub trait CompiledKernels: Send + Sync {
    /// Runs kernel `index` (in the order given to [`Compiler::compile`]) on buffers given in the
    /// kernel's argument order. See `docs/codegen.md` for what a launch may assume.
    fn launch(&self, index: usize, args: &[BufferHandle]) -> Result<(), BackendError>;
    /// The generated code as text (optimized LLVM IR, PTX).
    fn source(&self) -> String;
    /// The debug-dir file name of [`CompiledKernels::source`] (`output_code.ll`).
    fn source_file_name(&self) -> &'static str;
    /// How the kernels became machine code (for the compile report). Default: nothing said.
    fn machine_code(&self) -> MachineCode {
        MachineCode::default()
    }
}

/// How a compile's kernels became machine code, for the compile report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MachineCode {
    /// Each module's trip: its first kernel, milliseconds turning it into machine code, and
    /// where that came from (`"jit"`, `"cache"`: the persistent compile cache, `"memory"`:
    /// compiled before in this process).
    pub modules: Vec<(String, f64, &'static str)>,
    /// The persistent compile cache: `"hit"` (every module from it or from memory), `"miss"`
    /// (some compiled), `"off"`; empty where the backend has none.
    pub cache: &'static str,
    /// Kernels that run machine code an earlier compile made (of the same graph at another
    /// size: a backend whose code takes some sizes at run time).
    pub reused_kernels: usize,
}

impl MachineCode {
    /// Milliseconds of all modules' machine-code generation (summed over threads).
    pub fn jit_ms(&self) -> f64 {
        self.modules.iter().map(|m| m.1).sum()
    }
}

/// Device time of one measurement (see [`DeviceClock`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceTimes {
    /// Milliseconds on the device from [`DeviceClock::start`] to [`DeviceClock::stop`].
    pub total_ms: f64,
    /// Each launch (kernel entry or library call) in order, when asked for: its name and
    /// milliseconds.
    pub launches: Vec<(String, f64)>,
}

/// A clock on the device itself (CUDA events), for benchmarks. Backends whose work runs
/// synchronously on the host have none; they are timed with the host's clock.
pub trait DeviceClock: Send + Sync {
    /// Starts a measurement: marks the device's queue now and, with `per_launch`, before and
    /// after every launch that follows.
    fn start(&self, per_launch: bool) -> Result<(), BackendError>;
    /// Ends the measurement started last: marks the queue, waits for the device, and returns
    /// the device time between the marks (and each launch's, when asked for).
    fn stop(&self) -> Result<DeviceTimes, BackendError>;
    /// Bandwidth of a device-to-device copy of `bytes` (read and write counted, so `2 *
    /// bytes` move), in GB/s: the median of `reps` timed copies after a warm-up.
    fn copy_gbps(&self, bytes: usize, reps: usize) -> Result<f64, BackendError>;
}

/// Turns kernels into runnable code.
pub trait Compiler: Send + Sync {
    /// Compiles every kernel of a model at once.
    fn compile(&self, kernels: &[Kernel]) -> Result<Box<dyn CompiledKernels>, BackendError>;
}

/// Memory, extern calls and synchronization: what running a plan needs.
pub trait Runtime: Send + Sync {
    /// Allocates `bytes` of device memory.
    fn alloc(&self, bytes: usize) -> Result<BufferHandle, BackendError>;
    /// Frees memory from [`Runtime::alloc`].
    fn free(&self, buffer: BufferHandle);
    /// Copies host bytes into a buffer (from its start).
    fn write(&self, buffer: BufferHandle, bytes: &[u8]) -> Result<(), BackendError>;
    /// Copies a buffer's first `out.len()` bytes to the host.
    fn read(&self, buffer: BufferHandle, out: &mut [u8]) -> Result<(), BackendError>;
    /// Copies `bytes` bytes of `src`, from byte `src_offset`, to the start of `dst`, ordered
    /// after the work queued before it (on a device, without the host). Default: through the
    /// host ([`Runtime::read`], then [`Runtime::write`]).
    fn copy_buffer(
        &self,
        src: BufferHandle,
        src_offset: usize,
        dst: BufferHandle,
        bytes: usize,
    ) -> Result<(), BackendError> {
        copy_through_host(self, src, src_offset, dst, bytes)
    }
    /// Lends the backend `bytes` of host memory the caller owns, at `ptr`, as a buffer (a call
    /// that reads and writes the caller's tensors in place); `None` when it cannot (its memory
    /// is not host memory, or `ptr` is not aligned as its kernels assume). [`Runtime::free`]
    /// gives the handle back without freeing the memory. Default: `None`.
    ///
    /// # Safety
    /// The memory must stay valid, and not be accessed otherwise, until the handle is freed.
    unsafe fn borrow_host(&self, ptr: *mut u8, bytes: usize) -> Option<BufferHandle> {
        let _ = (ptr, bytes);
        None
    }
    /// Lends the backend `bytes` of device memory the caller owns (a torch CUDA tensor's), at
    /// device address `ptr` in the device's primary context, as a buffer; `None` when it
    /// cannot. [`Runtime::free`] gives it back without freeing it. Default: `None`.
    ///
    /// # Safety
    /// The memory must stay valid, and not be accessed by others, until the handle is freed.
    unsafe fn borrow_device(&self, ptr: u64, bytes: usize) -> Option<BufferHandle> {
        let _ = (ptr, bytes);
        None
    }
    /// Sends later work (launches, library calls, copies) to the caller's stream `stream` (a
    /// `CUstream` of the device's primary context, such as torch's current stream; 0 the
    /// legacy default stream), once the work already queued has finished. `Ok(false)` when
    /// the backend has no streams (host backends, the emulator). Default: `Ok(false)`.
    ///
    /// # Safety
    /// The stream is live, of the backend's context, and outlives its use.
    unsafe fn use_stream(&self, stream: u64) -> Result<bool, BackendError> {
        let _ = stream;
        Ok(false)
    }
    /// Runs an extern call (a library matmul; convolution and host fallbacks are further
    /// kinds). Only called for kinds [`Target::supports_extern`] accepts.
    fn extern_call(&self, call: &ExternCall) -> Result<(), BackendError>;
    /// Waits for everything launched so far.
    fn synchronize(&self) -> Result<(), BackendError>;
    /// The device's own clock, when work runs asynchronously on a device (default: none).
    fn clock(&self) -> Option<&dyn DeviceClock> {
        None
    }
}

/// [`Runtime::copy_buffer`] through the host: `src`'s bytes read back ([`Runtime::read`]), then
/// written to `dst` ([`Runtime::write`]). The default, and a device backend's fallback.
pub fn copy_through_host<R: Runtime + ?Sized>(
    rt: &R,
    src: BufferHandle,
    src_offset: usize,
    dst: BufferHandle,
    bytes: usize,
) -> Result<(), BackendError> {
    let mut host = vec![0u8; src_offset + bytes];
    rt.read(src, &mut host)?;
    rt.write(dst, &host[src_offset..])
}

/// A whole backend: its target, compiler and runtime.
pub trait Backend: Compiler + Runtime {
    /// What the stages before code generation read about it. The facade asks once per compile.
    fn target(&self) -> Target;

    /// The kernel-name prefix ([`Target::name`]).
    fn name(&self) -> &'static str {
        self.target().name
    }

    /// The device, in words ([`Target::description`]).
    fn device(&self) -> String {
        self.target().description
    }
}
