//! [`CpuBackend`]: coil's [`Backend`] for the host CPU. `compile` translates the kernels of a
//! model into LLVM modules (one function `cpu_<name>` per distinct kernel, twins with the
//! same code sharing the first one's; the kernels are shared out
//! over one module per thread, compiled in parallel), optimises them with a lean pipeline for
//! the host and JIT-compiles them; memory is 64-byte aligned host allocations
//! behind opaque handles; `launch` splits a kernel's outer loop over the thread pool; `matmul`
//! calls the `gemm` crate on strided operands.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::collections::HashMap;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use coil_codegen::{
    ArgRole, Backend, BackendError, BufferHandle, Capabilities, CompiledKernels, Compiler, DType,
    Device, ExternCall, ExternKind, Kernel, Target,
};

use crate::codegen::{
    CodegenOptions, KernelPlan, LaunchShape, emit_planned, plan_general, plan_kernel,
};
use crate::kernels::{ArgNeed, CompiledKernel, CpuKernels};
use crate::{CpuError, HostTarget, JitModule, JitOptions, KernelFn, ThreadPool, pool};

/// Alignment (and granularity) of every allocation: a cache line, and a whole vector of any
/// width the translator emits.
const ALIGN: usize = 64;
/// Below this many elements of work a launch runs on the calling thread alone.
pub(crate) const PARALLEL_WORK: usize = 1 << 15;

/// How the backend is set up.
#[derive(Clone, Debug, Default)]
pub struct CpuOptions {
    /// Threads kernels and matmuls run on, and LLVM modules compile on (at most one module per
    /// thread); 0 means every core.
    pub threads: usize,
    /// The LLVM pipeline ([`crate::jit::LEAN_PIPELINE`] by default, no vectorizers or unroller) and
    /// whether to keep assembly.
    pub jit: JitOptions,
    /// The persistent compile cache modules' machine code goes through (none by default;
    /// the CLI and the Python module hand down the one the environment describes,
    /// [`coil_cache::Cache::from_env`]).
    pub compile_cache: Option<Arc<coil_cache::Cache>>,
    /// The translator's choices (streaming stores, prefetch, row cache, pipelined rows, guarded
    /// max/min, bounded and table `exp`); the vector width comes from the host.
    pub codegen: CodegenOptions,
    /// Convolutions as im2col and a matmul even where oneDNN loads (by default they are one
    /// oneDNN call each when `libdnnl.so.2` is present: see `docs/perf.md`).
    pub im2col_conv: bool,
    /// Every convolution one oneDNN call where it loads, the small ones too (by default small
    /// ungrouped f32 convolutions take im2col: [`coil_lower::LowerConfig::conv_im2col_max_flops`]).
    pub library_conv_always: bool,
    /// 16-bit (bf16, f16) matmuls widened to f32 for `gemm` even where oneDNN has a 16-bit
    /// kernel for them (by default oneDNN's matmul runs them, AMX / AVX-512 BF16 where the
    /// host has them: see `docs/perf.md`).
    pub widen_16bit_matmul: bool,
    /// f32 matmuls through the `gemm` crate even where oneDNN loads (by default oneDNN's
    /// matmul runs them: measured faster here, see `docs/perf.md`).
    pub gemm_f32_matmul: bool,
    /// f32 matmuls through OpenBLAS's `cblas_sgemm` (`libopenblas.so.0`, loaded at run time;
    /// the gemm crate where it is missing) instead of oneDNN: for measuring the libraries
    /// against each other on the same graphs (oneDNN measured faster: see `docs/perf.md`).
    pub openblas_f32_matmul: bool,
    /// f32 matmuls through coil's own libraries even in a process where PyTorch is loaded
    /// (by default they take PyTorch's BLAS there, called as eager calls it, so that they
    /// equal eager's bit for bit: [`crate::eager_blas_loaded`]).
    pub own_f32_matmul_under_torch: bool,
    /// Pointwise consumers of a matmul as kernels of their own, even where oneDNN's matmul
    /// could apply them as post-ops (by default it does, for f32, and for bf16 where it has
    /// a bf16 kernel: [`coil_lower::LowerConfig::matmul_post_ops`]).
    pub unfused_matmul_epilogues: bool,
    /// Every kernel compiled into a function of its own, even one with the same code
    /// ([`Kernel::code_key`]) as an earlier kernel of the compile. By default such twins
    /// (a transformer's layers, a network's repeated blocks) share the first one's function,
    /// so LLVM optimises and generates each distinct kernel once.
    pub compile_every_kernel: bool,
    /// Every compile generates its own machine code, even for a kernel whose code an earlier
    /// compile in the process made (of the same graph at another size: [`crate::pool`]). By
    /// default such a kernel runs that code, so a new size compiles only the kernels whose
    /// code changes.
    pub compile_every_size: bool,
    /// The pool of compiled kernels later compiles reuse ([`crate::pool`]); by default the
    /// backend makes its own, which its clones share.
    pub code_pool: Option<Arc<pool::CodePool>>,
    /// Kernels launch on the OpenMP runtime the process holds (PyTorch's libgomp, or the one
    /// oneDNN brings: [`crate::openmp`]) where there is one, instead of on the backend's pool
    /// (which still compiles). The Python module and the CLI set it; without a loaded libgomp
    /// it changes nothing.
    pub openmp_launches: bool,
}

/// Host memory of one allocation (or memory a caller lent, `owned: false`, never freed here).
struct Allocation {
    ptr: NonNull<u8>,
    bytes: usize,
    layout: Layout,
    owned: bool,
}

/// Every live allocation, by handle.
pub(crate) struct Memory {
    next: u64,
    live: HashMap<u64, Allocation>,
}

// SAFETY: the allocations are plain heap memory owned by the table; the raw pointers are only
// dereferenced while the table's mutex is held (copies, launches, matmuls).
unsafe impl Send for Memory {}

impl Memory {
    /// Adds an allocation to the table under a fresh handle.
    fn insert(&mut self, a: Allocation) -> BufferHandle {
        let h = self.next;
        self.next += 1;
        self.live.insert(h, a);
        BufferHandle(h)
    }

    /// The pointer and size of a live buffer.
    pub(crate) fn get(&self, h: BufferHandle) -> Result<(*mut u8, usize), CpuError> {
        self.live
            .get(&h.0)
            .map(|a| (a.ptr.as_ptr(), a.bytes))
            .ok_or_else(|| CpuError::Runtime(format!("{h} is not a live buffer of this backend")))
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        for (_, a) in self.live.drain().filter(|(_, a)| a.owned) {
            // SAFETY: `a` came from `alloc_zeroed(a.layout)` and is freed once (drained).
            unsafe { dealloc(a.ptr.as_ptr(), a.layout) };
        }
    }
}

/// What launches share: the threads and the memory table.
/// Writes of at least this many bytes are copied by the whole pool ([`Backend::write`]).
const PARALLEL_WRITE_BYTES: usize = 8 << 20;
/// The piece of such a write one chunk copies.
const WRITE_PIECE_BYTES: usize = 2 << 20;

/// A destination pointer shared by the pieces of one parallel copy.
struct SharedPtr(*mut u8);
// SAFETY: each piece writes a disjoint range of the allocation.
unsafe impl Sync for SharedPtr {}

impl SharedPtr {
    fn get(&self) -> *mut u8 {
        self.0
    }
}

pub(crate) struct Runtime {
    pub(crate) pool: ThreadPool,
    /// Where kernels launch instead of `pool`, if anywhere ([`CpuOptions::openmp_launches`]).
    pub(crate) openmp: Option<&'static crate::openmp::OpenMp>,
    memory: Mutex<Memory>,
}

impl Runtime {
    pub(crate) fn memory(&self) -> MutexGuard<'_, Memory> {
        self.memory.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The CPU backend (`cpu`). A clone shares the thread pool and the memory.
#[derive(Clone)]
pub struct CpuBackend {
    rt: Arc<Runtime>,
    jit: JitOptions,
    codegen: CodegenOptions,
    /// f32 lanes of the vector loops (the host's vector width).
    width: u32,
    cpu: String,
    vector_bytes: u32,
    /// Convolutions go to oneDNN.
    onednn: bool,
    /// Small convolutions too (see [`CpuOptions::library_conv_always`]).
    library_conv_always: bool,
    /// Which matmuls go to oneDNN's matmul where it has a kernel.
    matmul_libs: crate::matmul::MatmulLibraries,
    /// Matmul epilogues as oneDNN post-ops (see [`CpuOptions::unfused_matmul_epilogues`]).
    post_ops: bool,
    /// The compile cache machine code goes through.
    compile_cache: Option<Arc<coil_cache::Cache>>,
    /// See [`CpuOptions::compile_every_kernel`].
    compile_every_kernel: bool,
    /// See [`CpuOptions::compile_every_size`].
    compile_every_size: bool,
    /// See [`CpuOptions::code_pool`].
    code_pool: Arc<pool::CodePool>,
}

impl std::fmt::Debug for CpuBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CpuBackend")
            .field("cpu", &self.cpu)
            .field("threads", &self.rt.pool.threads())
            .field("vector_bytes", &self.vector_bytes)
            .finish()
    }
}

impl CpuBackend {
    /// A backend using every core and the default pipeline.
    pub fn new() -> Result<CpuBackend, CpuError> {
        CpuBackend::with_options(CpuOptions::default())
    }

    /// A backend set up by `options`.
    pub fn with_options(options: CpuOptions) -> Result<CpuBackend, CpuError> {
        let target = HostTarget::detect()?;
        let pool = if options.threads == 0 {
            ThreadPool::new()?
        } else {
            ThreadPool::with_threads(options.threads)?
        };
        Ok(CpuBackend {
            rt: Arc::new(Runtime {
                pool,
                // oneDNN (where it loads) brings libgomp: loaded first, its team is found.
                openmp: options
                    .openmp_launches
                    .then(|| {
                        let _ = crate::dnnl::onednn();
                        crate::openmp::OpenMp::loaded()
                    })
                    .flatten(),
                memory: Mutex::new(Memory {
                    next: 1,
                    live: HashMap::new(),
                }),
            }),
            jit: options.jit,
            codegen: options.codegen,
            compile_cache: options.compile_cache.clone(),
            compile_every_kernel: options.compile_every_kernel,
            compile_every_size: options.compile_every_size,
            code_pool: options.code_pool.clone().unwrap_or_default(),
            width: (target.vector_bytes() / 4).max(1),
            cpu: target.cpu().to_string(),
            vector_bytes: target.vector_bytes(),
            onednn: !options.im2col_conv && crate::dnnl::onednn().is_some(),
            library_conv_always: options.library_conv_always,
            matmul_libs: crate::matmul::MatmulLibraries {
                sixteen: !options.widen_16bit_matmul && crate::dnnl::onednn().is_some(),
                f32: !options.gemm_f32_matmul
                    && !options.openblas_f32_matmul
                    && crate::dnnl::onednn().is_some(),
                openblas: options.openblas_f32_matmul,
                eager: !options.own_f32_matmul_under_torch,
            },
            post_ops: !options.unfused_matmul_epilogues,
        })
    }

    /// Whether convolutions run through oneDNN (one call each) rather than im2col and a
    /// matmul.
    pub fn uses_onednn(&self) -> bool {
        self.onednn
    }

    /// Threads a launch runs on.
    pub fn threads(&self) -> usize {
        self.rt.pool.threads()
    }

    /// The matmuls whose pointwise epilogues go into oneDNN's matmul as post-ops: f32 where
    /// oneDNN runs f32 matmuls (those above the small-product bound, which take OpenBLAS or
    /// gemm; not where PyTorch's BLAS runs them), bf16 where it has a bf16 matmul kernel on
    /// this host.
    fn post_op_dtypes(&self) -> Vec<(coil_graph::DType, usize)> {
        let mut dtypes = Vec::new();
        // f32 products through the loaded PyTorch's BLAS take no post-ops: their epilogues
        // are kernels of their own.
        let eager = self.matmul_libs.eager && crate::eager_blas::eager_blas_loaded();
        if self.post_ops && self.matmul_libs.f32 && !eager {
            dtypes.push((
                coil_graph::DType::F32,
                crate::matmul::SMALL_F32_MATMUL_FLOPS + 1,
            ));
        }
        if self.post_ops && self.matmul_libs.sixteen && crate::dnnl::has_bf16_matmul() {
            dtypes.push((coil_graph::DType::BF16, 0));
        }
        dtypes
    }

    /// Lanes of the vectorized loops (f32 lanes of the host's vectors).
    pub fn vector_width(&self) -> u32 {
        self.width
    }

    /// Compiles kernels like [`Backend::compile`], returning the concrete type (launch shapes,
    /// the JIT modules). Compiling holds the pool: launches from other threads on this backend
    /// wait until it is done.
    pub fn compile_kernels(&self, kernels: &[Kernel]) -> Result<CpuKernels, CpuError> {
        let mut names = std::collections::HashSet::new();
        for k in kernels {
            if !names.insert(k.name.as_str()) {
                return Err(CpuError::Codegen {
                    kernel: k.name.clone(),
                    message: "two kernels of one module have this name".into(),
                });
            }
        }
        // Kernels with the same code are compiled once: only the first of each code is planned
        // and emitted.
        let twins = coil_kernel::Twins::of(kernels, self.compile_every_kernel, |_| ());
        let distinct: Vec<&Kernel> = twins.distinct.iter().map(|&k| &kernels[k]).collect();
        // Each kernel is planned once: the plan's cost shares the kernels out over modules,
        // and the same plan is emitted.
        let mut plans: Vec<KernelPlan> = distinct
            .iter()
            .map(|k| plan_kernel(k, &self.codegen, self.width))
            .collect();
        // A kernel whose code an earlier compile made (of this graph at another size, say)
        // runs that code: only the others are compiled.
        let keys: Vec<Option<String>> = distinct
            .iter()
            .zip(&plans)
            .map(|(k, p)| {
                (!self.compile_every_size)
                    .then(|| pool::code_key(k, &p.shape(), self.width, &self.codegen, &self.jit))
            })
            .collect();
        let mut code: Vec<Option<pool::Pooled>> = keys
            .iter()
            .map(|key| key.as_deref().and_then(|key| self.code_pool.find(key)))
            .collect();
        // The others: a generalized kernel of their code (compiled for other sizes) with their
        // sizes as its parameters, or one generalized now from the first kernel of their
        // code compiled and compiled once for every size after.
        let mut params: Vec<Option<Vec<i64>>> = vec![None; distinct.len()];
        type NewFamily = (String, Kernel, coil_kernel::SizeParams, bool);
        let mut new_family: Vec<Option<NewFamily>> = vec![None; distinct.len()];
        let mut representatives: Vec<(String, usize)> = Vec::new();
        let misses: Vec<usize> = (0..distinct.len())
            .filter(|&d| code[d].is_none() && keys[d].is_some())
            .collect();
        for d in misses {
            let k = distinct[d];
            let fkey = pool::family_key(k, self.width, &self.codegen, &self.jit);
            let general_plan = |g: &Kernel, sp: &coil_kernel::SizeParams, row_cache| {
                plan_general(g, sp.clone(), &self.codegen, self.width, row_cache)
            };
            let found = self.code_pool.families(&fkey).into_iter().find_map(|f| {
                let values = coil_kernel::size_params::bind(&f.kernel, &f.params, k)?;
                let plan = general_plan(&f.kernel, &f.params, f.row_cache)?;
                plan.serves(k).then_some((f, values, plan))
            });
            if let Some((family, values, plan)) = found {
                code[d] = Some(family.code.clone());
                params[d] = Some(values);
                plans[d] = plan;
                continue;
            }
            // Generalized with a kernel of an earlier compile only: within one compile, the
            // kernels of one code at different sizes (a network's stages) keep their own,
            // faster, code.
            let Some(first) = self.code_pool.representative(&fkey) else {
                representatives.push((fkey, d));
                continue;
            };
            let Some((general, sp)) = coil_kernel::size_params::generalize(&first, k) else {
                continue;
            };
            let values = coil_kernel::size_params::bind(&general, &sp, k);
            // A row cache where this kernel's rows fit it (a family for longer rows has none).
            let row_cache = k.rnumel() <= crate::codegen::ROW_CAPACITY;
            let plan = general_plan(&general, &sp, row_cache);
            if let (Some(values), Some(plan), true) = (values, plan, sp.count > 0) {
                tracing::debug!(
                    target: "output_code",
                    "{} generalized over {} size parameters with {} (ranges {:?})",
                    k.name,
                    sp.count,
                    first.name,
                    sp.ranges
                );
                plans[d] = plan;
                params[d] = Some(values);
                new_family[d] = Some((fkey, general, sp, row_cache));
            }
        }
        let reused_code: Vec<bool> = code.iter().map(Option::is_some).collect();
        let fresh: Vec<usize> = (0..distinct.len()).filter(|&d| code[d].is_none()).collect();
        let fresh_plans: Vec<&KernelPlan> = fresh.iter().map(|&d| &plans[d]).collect();
        let parts: Vec<Vec<usize>> = share_out(&fresh_plans, self.rt.pool.threads())
            .into_iter()
            .map(|part| part.into_iter().map(|i| fresh[i]).collect())
            .collect();
        let results: Vec<Mutex<Option<CompiledPart>>> =
            parts.iter().map(|_| Mutex::new(None)).collect();
        self.rt.pool.parallel_for(parts.len(), |i| {
            let part = self.compile_part(i, &parts[i], &distinct, &plans);
            *results[i].lock().unwrap_or_else(PoisonError::into_inner) = Some(part);
        });
        let mut modules: Vec<(Arc<JitModule>, bool)> = Vec::with_capacity(parts.len());
        for (part, result) in parts.iter().zip(results) {
            let jit = result
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner)
                .ok_or_else(|| CpuError::Runtime("a module was not compiled".into()))??;
            let jit = Arc::new(jit.0);
            for &d in part {
                // SAFETY: `emit_kernel` defined this function with the `KernelFn` signature.
                let entry: KernelFn = unsafe { jit.function(&function_name(distinct[d]))? };
                let pooled = pool::Pooled {
                    module: Arc::clone(&jit),
                    entry,
                };
                if let Some((fkey, kernel, sp, row_cache)) = new_family[d].take() {
                    let family = pool::Family {
                        kernel,
                        params: sp,
                        row_cache,
                        code: pooled.clone(),
                    };
                    self.code_pool.add_family(fkey, Arc::new(family));
                } else if let Some(key) = keys[d].clone() {
                    self.code_pool.insert(key, pooled.clone());
                }
                code[d] = Some(pooled);
            }
            modules.push((jit, true));
        }
        for (fkey, d) in representatives {
            self.code_pool.offer_representative(fkey, distinct[d]);
        }
        let reused = distinct.len() - fresh.len();
        for pooled in code.iter().flatten() {
            if !modules.iter().any(|(m, _)| Arc::ptr_eq(m, &pooled.module)) {
                modules.push((Arc::clone(&pooled.module), false));
            }
        }
        if reused > 0 {
            tracing::debug!(
                target: "output_code",
                "{reused} of {} distinct kernels run machine code compiled before",
                distinct.len()
            );
        }
        let mut compiled = Vec::with_capacity(kernels.len());
        for (k, &d) in kernels.iter().zip(&twins.slot) {
            let entry = code[d]
                .as_ref()
                .ok_or_else(|| CpuError::Runtime(format!("{} was not compiled", k.name)))?
                .entry;
            compiled.push(CompiledKernel {
                name: k.name.clone(),
                entry,
                shape: plans[d].shape_of(k),
                params: params[d].clone(),
                args: k
                    .args
                    .iter()
                    .map(|a| ArgNeed {
                        bytes: a.len * a.dtype.itemsize(),
                        writes: a.role != ArgRole::Input,
                    })
                    .collect(),
            });
        }
        Ok(CpuKernels {
            reused: twins.slot.iter().filter(|&&d| reused_code[d]).count(),
            modules,
            kernels: compiled,
            rt: Arc::clone(&self.rt),
        })
    }
}

/// One module's compiled code and its kernels' launch shapes (in the part's order).
type CompiledPart = Result<(JitModule, Vec<LaunchShape>), CpuError>;

impl CpuBackend {
    /// Translates, optimises and JIT-compiles the kernels `part` (indices into `kernels`) as
    /// module `i` (`coil_cpu`, `coil_cpu.1`, ...), with its own LLVM context and target
    /// machine, so parts compile on different threads.
    fn compile_part(
        &self,
        i: usize,
        part: &[usize],
        kernels: &[&Kernel],
        plans: &[KernelPlan],
    ) -> CompiledPart {
        let target = HostTarget::detect()?;
        let name = match i {
            0 => "coil_cpu".to_string(),
            i => format!("coil_cpu.{i}"),
        };
        let mut shapes = Vec::with_capacity(part.len());
        let cache = self.compile_cache.as_deref();
        let jit = JitModule::compile_cached(&name, &target, &self.jit, cache, |_cx, module| {
            for &k in part {
                shapes.push(emit_planned(
                    module,
                    &plans[k],
                    &function_name(kernels[k]),
                    &self.codegen,
                )?);
            }
            Ok(())
        })?;
        Ok((jit, shapes))
    }
}

/// The kernels shared out over at most `threads` modules, each a list of kernel indices in
/// launch order: the costliest kernel first onto the module with the least work so far, with
/// LLVM's time taken as proportional to each plan's [`KernelPlan::compile_cost`].
fn share_out(plans: &[&KernelPlan], threads: usize) -> Vec<Vec<usize>> {
    let n = threads.clamp(1, plans.len().max(1));
    let cost: Vec<u64> = plans.iter().map(|p| p.compile_cost()).collect();
    let mut order: Vec<usize> = (0..plans.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(cost[k]));
    let mut parts = vec![(0u64, Vec::new()); n];
    for k in order {
        let lightest = (0..n).min_by_key(|&p| parts[p].0).unwrap_or(0);
        parts[lightest].0 += cost[k];
        parts[lightest].1.push(k);
    }
    parts
        .into_iter()
        .filter(|(_, p)| !p.is_empty())
        .map(|(_, mut p)| {
            p.sort_unstable();
            p
        })
        .collect()
}

/// The LLVM function of a kernel: `cpu_<name>`.
pub fn function_name(k: &Kernel) -> String {
    format!("cpu_{}", k.name)
}

pub(crate) fn backend_err(e: CpuError) -> BackendError {
    match e {
        CpuError::Codegen { kernel, message } => BackendError::Codegen {
            kernel,
            msg: message,
        },
        CpuError::Runtime(m) => BackendError::Runtime(m),
        other => BackendError::Device(other.to_string()),
    }
}

impl Backend for CpuBackend {
    fn target(&self) -> Target {
        let description = format!(
            "cpu ({}, {} threads, {}-bit vectors)",
            self.cpu,
            self.threads(),
            self.vector_bytes * 8
        );
        let mut t = Target::new("cpu", description, Device::Cpu);
        t.caps = Capabilities {
            // Integers as PyTorch's CPU kernels do them (wrapping, in their own width; no
            // library has them): `matmul::run_naive`.
            matmul: vec![
                DType::F32,
                DType::F64,
                DType::F16,
                DType::BF16,
                DType::I64,
                DType::I32,
                DType::I16,
                DType::I8,
                DType::U8,
            ],
            matmul_post_ops: self.post_op_dtypes(),
            conv: if self.onednn {
                let mut dtypes = vec![DType::F32];
                if crate::dnnl::has_bf16_convolution() {
                    dtypes.push(DType::BF16);
                }
                dtypes
            } else {
                Vec::new()
            },
            // Small, ungrouped f32 convolutions are faster as im2col and a small matmul than
            // as a oneDNN call (`tools/conv_sweep.py`: 60 of the real models' 85).
            conv_im2col_max_flops: if self.library_conv_always { 0 } else { 1 << 21 },
            // Relu, gelu, ... after a oneDNN convolution run as its post-ops.
            conv_post_ops: self.post_ops,
            // oneDNN's backward-data and backward-weights primitives (bf16 where the host has
            // kernels for them).
            conv_backward: if self.onednn {
                let mut dtypes = vec![DType::F32];
                if crate::dnnl::has_bf16_conv_backward() {
                    dtypes.push(DType::BF16);
                }
                dtypes
            } else {
                Vec::new()
            },
        };
        // A matmul's epilogue inside its oneDNN call saves a pass over the whole product
        // (its write and read); the ordinary fusions that would otherwise go first share
        // far less (a bias vector read by several consumers), and once they have merged
        // the consumers, none can join its matmul. So template epilogues go first here
        // (Inductor's `epilogue_fusion_first`, false by default).
        t.epilogue_fusion_first = true;
        t
    }
}

impl Compiler for CpuBackend {
    fn compile(&self, kernels: &[Kernel]) -> Result<Box<dyn CompiledKernels>, BackendError> {
        Ok(Box::new(
            self.compile_kernels(kernels).map_err(backend_err)?,
        ))
    }
}

impl coil_codegen::Runtime for CpuBackend {
    fn alloc(&self, bytes: usize) -> Result<BufferHandle, BackendError> {
        let size = bytes.max(1).div_ceil(ALIGN) * ALIGN;
        let layout = Layout::from_size_align(size, ALIGN)
            .map_err(|e| BackendError::Runtime(format!("allocation of {bytes} bytes: {e}")))?;
        // SAFETY: `layout` has a nonzero size.
        let ptr = NonNull::new(unsafe { alloc_zeroed(layout) }).ok_or_else(|| {
            BackendError::Runtime(format!("out of memory allocating {bytes} bytes"))
        })?;
        Ok(self.rt.memory().insert(Allocation {
            ptr,
            bytes: size,
            layout,
            owned: true,
        }))
    }

    unsafe fn borrow_host(&self, ptr: *mut u8, bytes: usize) -> Option<BufferHandle> {
        // Kernels assume 64-byte aligned buffers (vector and streaming stores).
        let ptr = NonNull::new(ptr)
            .filter(|p| (p.as_ptr() as usize).is_multiple_of(ALIGN) && bytes > 0)?;
        let layout = Layout::from_size_align(bytes, ALIGN).ok()?;
        Some(self.rt.memory().insert(Allocation {
            ptr,
            bytes,
            layout,
            owned: false,
        }))
    }

    fn free(&self, buffer: BufferHandle) {
        if let Some(a) = self.rt.memory().live.remove(&buffer.0)
            && a.owned
        {
            // SAFETY: `a` came from `alloc_zeroed(a.layout)` and left the table, so once.
            unsafe { dealloc(a.ptr.as_ptr(), a.layout) };
        }
    }

    fn write(&self, buffer: BufferHandle, bytes: &[u8]) -> Result<(), BackendError> {
        let mem = self.rt.memory();
        let (ptr, size) = mem.get(buffer).map_err(backend_err)?;
        if bytes.len() > size {
            return Err(BackendError::Runtime(format!(
                "writing {} bytes into {buffer} of {size}",
                bytes.len()
            )));
        }
        // Large writes are spread over the pool in pieces: a fresh allocation's pages are
        // placed on the memory node of the thread that first touches them, so a copy by one
        // thread would put a whole input on one node of a multi-socket host, and the kernels'
        // threads on the others would read it across the interconnect.
        let pieces = if bytes.len() >= PARALLEL_WRITE_BYTES && self.threads() > 1 {
            bytes.len().div_ceil(WRITE_PIECE_BYTES)
        } else {
            1
        };
        let dst = SharedPtr(ptr);
        self.rt.pool.parallel_for(pieces, |i| {
            let (start, end) = if pieces == 1 {
                (0, bytes.len())
            } else {
                (
                    i * WRITE_PIECE_BYTES,
                    ((i + 1) * WRITE_PIECE_BYTES).min(bytes.len()),
                )
            };
            // SAFETY: `ptr` is live (the table is locked) with `size >= bytes.len()` bytes, a
            // caller's slice cannot overlap backend memory it has no reference to, and the
            // pieces are disjoint.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr().add(start),
                    dst.get().add(start),
                    end - start,
                )
            };
        });
        Ok(())
    }

    fn read(&self, buffer: BufferHandle, out: &mut [u8]) -> Result<(), BackendError> {
        let mem = self.rt.memory();
        let (ptr, size) = mem.get(buffer).map_err(backend_err)?;
        if out.len() > size {
            return Err(BackendError::Runtime(format!(
                "reading {} bytes from {buffer} of {size}",
                out.len()
            )));
        }
        // SAFETY: as in `write`, in the other direction; the memory is initialised (zeroed at
        // allocation).
        unsafe { std::ptr::copy_nonoverlapping(ptr, out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    fn extern_call(&self, call: &ExternCall) -> Result<(), BackendError> {
        let mem = self.rt.memory();
        match call.kind {
            ExternKind::Matmul(_) | ExternKind::FusedMatmul(..) => {
                crate::matmul::matmul(&mem, call, self.threads(), self.matmul_libs)
                    .map_err(backend_err)
            }
            ExternKind::Convolution(_) | ExternKind::ConvolutionBackward(..) if self.onednn => {
                crate::matmul::convolution(&mem, call).map_err(backend_err)
            }
            _ => Err(BackendError::Runtime(format!(
                "{} is not run by this backend (host fallbacks are the facade's)",
                call.kind.kernel_name()
            ))),
        }
    }

    fn synchronize(&self) -> Result<(), BackendError> {
        // Launches and matmuls return when they are done.
        Ok(())
    }
}
