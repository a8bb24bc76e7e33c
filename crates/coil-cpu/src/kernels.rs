//! The kernels of one compile, ready to launch ([`CpuKernels`]): each kernel's function (in a
//! module this compile made, or an earlier one's: [`crate::pool`]), its launch shape and what
//! it needs of its arguments; a launch checks the arguments and splits the outer loop over the
//! backend's threads.

use std::sync::Arc;

use coil_codegen::{BackendError, BufferHandle, CompiledKernels};

use crate::backend::{PARALLEL_WORK, Runtime, backend_err};
use crate::codegen::{FLAT_ALIGN, LaunchShape};
use crate::jit::link_ir;
use crate::{CpuError, JitModule, KernelFn};

/// What a kernel needs of one argument.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ArgNeed {
    pub(crate) bytes: usize,
    pub(crate) writes: bool,
}

pub(crate) struct CompiledKernel {
    pub(crate) name: String,
    pub(crate) entry: KernelFn,
    pub(crate) shape: LaunchShape,
    /// A generalized kernel's size parameters for this kernel's sizes
    /// ([`coil_kernel::size_params`]), passed after the buffers' pointers.
    pub(crate) params: Option<Vec<i64>>,
    pub(crate) args: Vec<ArgNeed>,
}

/// Kernels JIT-compiled together (one LLVM module per compiling thread), ready to launch on the
/// backend's memory.
pub struct CpuKernels {
    /// Each module the kernels' code lies in, and whether this compile made it (false: made
    /// by an earlier compile, [`crate::pool`]).
    pub(crate) modules: Vec<(Arc<JitModule>, bool)>,
    /// Kernels that run code an earlier compile made.
    pub(crate) reused: usize,
    pub(crate) kernels: Vec<CompiledKernel>,
    pub(crate) rt: Arc<Runtime>,
}

impl std::fmt::Debug for CpuKernels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CpuKernels")
            .field(
                "kernels",
                &self.kernels.iter().map(|k| &k.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// The argument pointers of one launch, shared by its threads.
struct SharedArgs(*const *mut u8);
// SAFETY: chunks of a launch cover disjoint outer iterations, which write disjoint elements
// (the kernel IR's stores are indexed by the outer point), so sharing the pointers is
// race-free; the buffers stay allocated while the memory table is locked by the launch.
unsafe impl Sync for SharedArgs {}

impl CpuKernels {
    /// The JIT modules (optimised IR, function addresses); each kernel is in one of them.
    /// Modules an earlier compile made come last ([`crate::pool`]).
    pub fn modules(&self) -> Vec<&JitModule> {
        self.modules.iter().map(|(m, _)| &**m).collect()
    }

    /// The optimised IR of the modules this compile made, linked into one module's text
    /// ([`link_ir`]); then, as comments' headings and their own texts, the modules of earlier
    /// compiles whose kernels this one runs (whose function names may repeat this one's).
    pub fn optimized_ir(&self) -> Result<String, CpuError> {
        let texts: Vec<String> = self
            .modules
            .iter()
            .filter(|(_, fresh)| *fresh)
            .map(|(m, _)| m.optimized_ir())
            .collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut ir = link_ir("coil_cpu", &texts)?;
        for (m, _) in self.modules.iter().filter(|(_, fresh)| !*fresh) {
            ir.push_str(&format!(
                "\n; ---- module {} of an earlier compile, whose kernels this one runs\n",
                m.name()
            ));
            ir.push_str(&m.optimized_ir());
        }
        Ok(ir)
    }

    /// How kernel `index`'s outer loop is laid out.
    pub fn shape(&self, index: usize) -> Option<LaunchShape> {
        self.kernels.get(index).map(|k| k.shape)
    }

    /// Runs kernel `index` on `args` (see [`CompiledKernels::launch`]).
    pub fn run(&self, index: usize, args: &[BufferHandle]) -> Result<(), CpuError> {
        let k = self.kernels.get(index).ok_or_else(|| {
            CpuError::Runtime(format!(
                "no kernel {index}: {} kernels were compiled",
                self.kernels.len()
            ))
        })?;
        let runtime_err = |m: String| CpuError::Runtime(format!("kernel {}: {m}", k.name));
        if args.len() != k.args.len() {
            return Err(runtime_err(format!(
                "takes {} buffers, got {}",
                k.args.len(),
                args.len()
            )));
        }
        let mem = self.rt.memory();
        let mut ptrs = Vec::with_capacity(args.len());
        for (i, (&h, need)) in args.iter().zip(&k.args).enumerate() {
            let (p, size) = mem.get(h).map_err(|e| runtime_err(e.to_string()))?;
            if size < need.bytes {
                return Err(runtime_err(format!(
                    "argument {i} ({h}) has {size} bytes, the kernel needs {}",
                    need.bytes
                )));
            }
            ptrs.push(p);
        }
        if let Some(params) = &k.params {
            // Read only, through the pointer the function loads its size parameters from.
            ptrs.push(params.as_ptr().cast_mut().cast());
        }
        for (i, need) in k.args.iter().enumerate() {
            if need.writes
                && args
                    .iter()
                    .enumerate()
                    .any(|(j, h)| j != i && *h == args[i])
            {
                return Err(runtime_err(format!(
                    "argument {i} ({}) is written and also passed as another argument",
                    args[i]
                )));
            }
        }
        let outer = k.shape.outer as i64;
        if outer == 0 {
            return Ok(());
        }
        let threads = self.rt.pool.threads();
        let chunks = if k.shape.work < PARALLEL_WORK || threads == 1 || k.shape.serial {
            1
        } else {
            (threads * 4).min(k.shape.outer)
        } as i64;
        let shared = SharedArgs(ptrs.as_ptr());
        let entry = k.entry;
        // A flat kernel's chunks start at multiples of `FLAT_ALIGN` elements.
        let align = if k.shape.flat { FLAT_ALIGN as i64 } else { 1 };
        let bound = |c: i64| {
            if c == chunks {
                outer
            } else {
                outer * c / chunks / align * align
            }
        };
        let body = |c: usize| {
            let c = c as i64;
            let (start, end) = (bound(c), bound(c + 1));
            if start >= end {
                return;
            }
            let args = &shared;
            // SAFETY: the buffers are live and large enough for the kernel's `len`s (checked
            // above, table locked), written buffers are not aliased, and `start..end` lies in
            // `0..outer`, disjoint from other chunks.
            unsafe { entry(args.0, start, end) };
        };
        match self.rt.openmp {
            Some(omp) => omp.parallel_for(chunks as usize, &body),
            None => self.rt.pool.parallel_for(chunks as usize, body),
        }
        drop(mem);
        Ok(())
    }
}

impl CompiledKernels for CpuKernels {
    fn launch(&self, index: usize, args: &[BufferHandle]) -> Result<(), BackendError> {
        self.run(index, args).map_err(backend_err)
    }

    fn source(&self) -> String {
        // Linking only fails on IR LLVM itself printed; the modules' texts one after another
        // still show every kernel then.
        self.optimized_ir().unwrap_or_else(|e| {
            let mut text = format!("; {e}\n");
            for (m, _) in &self.modules {
                text.push_str(&m.optimized_ir());
            }
            text
        })
    }

    fn source_file_name(&self) -> &'static str {
        "output_code.ll"
    }

    fn machine_code(&self) -> coil_codegen::MachineCode {
        let words: Vec<&'static str> = self
            .modules
            .iter()
            .filter(|(_, fresh)| *fresh)
            .map(|(m, _)| m.cache())
            .collect();
        let cache = if words.contains(&"off") {
            "off"
        } else if words.contains(&"miss") {
            "miss"
        } else {
            "hit"
        };
        coil_codegen::MachineCode {
            modules: self
                .modules
                .iter()
                .map(|(m, fresh)| match (fresh, m.cache()) {
                    (false, _) => (m.name().to_string(), 0.0, "memory"),
                    (true, "hit") => (m.name().to_string(), m.codegen_ms(), "cache"),
                    (true, _) => (m.name().to_string(), m.codegen_ms(), "jit"),
                })
                .collect(),
            cache,
            reused_kernels: self.reused,
        }
    }
}
