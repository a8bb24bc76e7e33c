//! [`CudaBackend`]: coil's [`Backend`] for NVIDIA GPUs. `compile` renders each distinct kernel
//! (twins of one code share it) into PTX (`.target` from the device's compute capability, `sm_90`
//! without one) and loads it with one driver call; `launch` runs a kernel's entries with the launch
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
use crate::exec::{Emulated, Executor, Gpu, LoadOptions, LoadedModule, Offline};
use crate::families::{self, Family, SizeFamilies};
use crate::jit::ModuleSplit;
use crate::ptx::PtxModule;
use crate::render::{
    self, KernelPlan, LaunchArg, RenderedKernel, oriented, plan_kernel, render_planned,
    walk_backwards,
};
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
    exec: Arc<dyn Executor>,
    caps: GpuCaps,
    target: PtxTarget,
    description: String,
    planner: Option<Planner>,
    /// Time each kernel's candidate plans at its first launch and keep the fastest.
    autotune: bool,
    /// How kernels are shared out over PTX modules ([`CudaBackend::with_modules`]).
    modules: ModuleSplit,
    /// A column of ones (its buffer and length) that broadcasts an `addmm`'s bias through
    /// cuBLAS (`ones[m, 1] @ bias[1, n]`), grown as needed.
    ones: Arc<std::sync::Mutex<Option<(BufferHandle, usize, DType)>>>,
    /// Convolutions through cuDNN (where it loads) rather than im2col and cuBLAS.
    cudnn_conv: bool,
    /// Every kernel rendered and loaded on its own ([`CudaBackend::with_every_kernel`]).
    every_kernel: bool,
    /// General kernels shared across sizes ([`crate::families`]); `None`: every compile
    /// renders all of its own code.
    families: Option<Arc<SizeFamilies>>,
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

    /// Renders `kernels` into one module (no device needed).
    pub fn render(
        &self,
        kernels: &[Kernel],
    ) -> Result<(PtxModule, Vec<RenderedKernel>), CudaError> {
        let refs: Vec<&Kernel> = kernels.iter().collect();
        // Kernels come in launch order: a pointwise kernel rereading what the one before it
        // read walks backwards, into what L2 still holds.
        self.render_oriented(&refs, &walk_backwards(kernels, &self.caps))
    }

    /// Renders `kernels` into one module, each walking backwards where `backwards` says.
    fn render_oriented(
        &self,
        kernels: &[&Kernel],
        backwards: &[bool],
    ) -> Result<(PtxModule, Vec<RenderedKernel>), CudaError> {
        let jobs: Vec<Job> = kernels.iter().map(|_| Job::Own).collect();
        self.render_jobs(kernels, backwards, &jobs)
    }

    /// Renders `kernels` into one module as `jobs` say: each its own code (walking backwards
    /// where `backwards` says), or a general kernel's entries ([`crate::families`]), each
    /// general kernel's entries once.
    fn render_jobs(
        &self,
        kernels: &[&Kernel],
        backwards: &[bool],
        jobs: &[Job],
    ) -> Result<(PtxModule, Vec<RenderedKernel>), CudaError> {
        let mut names = std::collections::HashSet::new();
        let mut module = PtxModule::new(self.target);
        let mut rendered = Vec::with_capacity(kernels.len());
        for k in kernels {
            if !names.insert(k.name.as_str()) {
                return Err(CudaError::Codegen {
                    kernel: k.name.clone(),
                    reason: "two kernels of one module have this name".into(),
                });
            }
        }
        let render = |k: &Kernel, reverse: bool| {
            let default =
                || render_planned(k, &self.caps, self.target, self.default_plan(k, reverse));
            match &self.planner {
                Some(plan) => render_planned(k, &self.caps, self.target, plan(k, &self.caps))
                    .or_else(|_| default()),
                None => default(),
            }
        };
        let bound = |k: &Kernel, f: &Family, values: &[i64]| {
            render::bound_rendering(
                k,
                &self.caps,
                f.plan,
                f.name.clone(),
                f.entries.clone(),
                values.to_vec(),
            )
        };
        // Each kernel renders on its own: runs of them on every core at once. A kernel
        // generalized now renders its general kernel (or, where that fails, its own code).
        let parts = crate::par::map_on_every_core(kernels.len(), |i| {
            let k = kernels[i];
            match &jobs[i] {
                Job::Own => render(k, backwards[i]).map(|r| (r, None)),
                Job::Bound(f, values) => Ok((bound(k, f, values), None)),
                Job::New {
                    key,
                    general,
                    params,
                    plan,
                    values,
                } => {
                    let name = families::entry_name(key, general, params);
                    match render::render_general(general, params, &name, self.target, *plan) {
                        Ok(entries) => {
                            let family = Arc::new(Family {
                                kernel: general.clone(),
                                params: params.clone(),
                                plan: *plan,
                                name,
                                entries,
                                outer_end: render::general_outer_end(general, plan.wide_indices),
                            });
                            Ok((bound(k, &family, values), Some((key.clone(), family))))
                        }
                        Err(e) => {
                            tracing::debug!(target: "cuda", kernel = %k.name, %e, "not generalized");
                            render(k, backwards[i]).map(|r| (r, None))
                        }
                    }
                }
            }
        });
        for (k, r) in kernels.iter().zip(parts) {
            let (r, new_family) = r.unwrap_or_else(|| {
                Err(CudaError::Codegen {
                    kernel: k.name.clone(),
                    reason: "rendering panicked".into(),
                })
            })?;
            if let (Some((key, family)), Some(families)) = (new_family, &self.families) {
                tracing::debug!(
                    target: "output_code",
                    "{} generalized over {} size parameters as {}",
                    k.name,
                    family.params.count,
                    family.name
                );
                families.add(key, family);
            }
            for l in &r.launches {
                // A general kernel's entries appear once, however many kernels launch them.
                if r.shared && module.kernels().iter().any(|m| m.name() == l.kernel.name()) {
                    continue;
                }
                module.push(l.kernel.clone())?;
            }
            rendered.push(r);
        }
        Ok((module, rendered))
    }

    /// How each of a compile's distinct kernels renders: a general kernel of its code and
    /// plan that an earlier compile made, one generalized now with the kernel of its code an
    /// earlier compile offered, or its own code (then offered for later compiles).
    fn size_jobs(&self, kernels: &[&Kernel], backwards: &[bool]) -> Vec<Job> {
        let own = || kernels.iter().map(|_| Job::Own).collect();
        let Some(families) = &self.families else {
            return own();
        };
        if self.planner.is_some() || self.every_kernel {
            return own();
        }
        let target = self.target.sm_name();
        let mut offers = Vec::new();
        let jobs = kernels
            .iter()
            .zip(backwards)
            .map(|(k, &reverse)| {
                let plan = self.default_plan(k, reverse);
                if !families::shareable(&plan) || k.numel() == 0 {
                    return Job::Own;
                }
                let key = families::key(k, &plan, &target);
                if let Some((f, values)) = families.find(&key, k) {
                    return Job::Bound(f, values);
                }
                // Generalized with a kernel of an earlier compile only: within one compile,
                // the kernels of one code at different sizes (a network's stages) keep their
                // own code.
                let Some(first) = families.representative(&key) else {
                    offers.push((key, *k));
                    return Job::Own;
                };
                let Some((general, params)) = coil_kernel::size_params::generalize(&first, k)
                else {
                    return Job::Own;
                };
                if !render::outer_only(&general, &params) {
                    return Job::Own;
                }
                match coil_kernel::size_params::bind(&general, &params, k) {
                    Some(values) => Job::New {
                        key,
                        general,
                        params,
                        plan,
                        values,
                    },
                    None => Job::Own,
                }
            })
            .collect();
        for (key, k) in offers {
            families.offer_representative(key, k);
        }
        jobs
    }

    /// Compiles like [`Backend::compile`], returning the concrete type.
    pub fn compile_cuda(&self, kernels: &[Kernel]) -> Result<CudaKernels, CudaError> {
        // Kernels with the same code and direction are rendered and loaded once.
        let backwards = walk_backwards(kernels, &self.caps);
        let twins = coil_kernel::Twins::of(kernels, self.every_kernel, |k| backwards[k]);
        let distinct: Vec<&Kernel> = twins.distinct.iter().map(|&k| &kernels[k]).collect();
        let directions: Vec<bool> = twins.distinct.iter().map(|&k| backwards[k]).collect();
        let jobs = self.size_jobs(&distinct, &directions);
        let reused = jobs.iter().filter(|j| matches!(j, Job::Bound(..))).count();
        let (module, rendered) = self.render_jobs(&distinct, &directions, &jobs)?;
        let source = module.to_string();
        // The plans, as comments heading the module (what `output_code.ptx` shows).
        let mut plans = String::new();
        for r in &rendered {
            for l in &r.launches {
                plans.push_str(&format!(
                    "// {}: {:?}, {} x {}{}\n",
                    l.kernel.name(),
                    r.plan.strategy,
                    l.config.grid.0,
                    l.config.block.0,
                    if r.shared {
                        format!(" (for {}, sizes {:?})", r.name, r.sizes)
                    } else {
                        String::new()
                    }
                ));
            }
        }
        let options = LoadOptions {
            caps: &self.caps,
            target: self.target,
            autotune: self.autotune && self.planner.is_none(),
            modules: self.modules,
        };
        let loaded = self
            .exec
            .load(&module, &source, &rendered, &distinct, &options)?;
        Ok(CudaKernels {
            loaded,
            source: plans + &source,
            rendered,
            slot: twins.slot,
            reused,
        })
    }
}

/// How one distinct kernel of a compile renders ([`CudaBackend::size_jobs`]).
#[derive(Clone)]
enum Job {
    /// Its own code.
    Own,
    /// A general kernel's entries, its parameters taking these values.
    Bound(Arc<Family>, Vec<i64>),
    /// A general kernel made now from it and an earlier compile's kernel of its code.
    New {
        key: String,
        general: Kernel,
        params: coil_kernel::SizeParams,
        plan: KernelPlan,
        values: Vec<i64>,
    },
}

impl CudaBackend {
    /// `kernel`'s default plan, walking backwards when `reverse` ([`walk_backwards`]).
    fn default_plan(&self, kernel: &Kernel, reverse: bool) -> KernelPlan {
        oriented(plan_kernel(kernel, &self.caps), reverse)
    }
}

/// A compiled model's kernels: one PTX module, each kernel's rendering (entries, launch
/// configurations, scratch), loaded by the backend's executor.
pub struct CudaKernels {
    loaded: Box<dyn LoadedModule>,
    source: String,
    /// The distinct kernels' renderings, in the order they were loaded.
    rendered: Vec<RenderedKernel>,
    /// For each kernel given to the compile, its rendering's place in `rendered` (twins
    /// share one).
    slot: Vec<usize>,
    /// Distinct kernels that launch a general kernel an earlier compile made.
    reused: usize,
}

impl std::fmt::Debug for CudaKernels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaKernels")
            .field(
                "kernels",
                &self.rendered.iter().map(|r| &r.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl CudaKernels {
    /// How each distinct kernel was rendered (strategy, entries, launch configurations): a
    /// kernel with the same code as an earlier one launches that one's rendering.
    pub fn rendered(&self) -> impl Iterator<Item = &RenderedKernel> {
        self.rendered.iter()
    }

    /// Launches kernel `index` with `args` (one buffer per kernel argument).
    pub fn launch_kernel(&self, index: usize, args: &[BufferHandle]) -> Result<(), BackendError> {
        let found = self.slot.get(index).map(|&d| (d, &self.rendered[d]));
        let (index, r) = found.ok_or_else(|| {
            BackendError::Runtime(format!(
                "kernel {index} of a module of {} kernels",
                self.slot.len()
            ))
        })?;
        if r.launches.is_empty() {
            return Ok(()); // a kernel of no points
        }
        let ir_args = r.launches.first().map_or(0, |l| {
            l.args
                .iter()
                .filter(|a| matches!(a, LaunchArg::Arg(_)))
                .count()
        });
        if args.len() != ir_args {
            return Err(BackendError::Runtime(format!(
                "{}: {} buffers for {ir_args} arguments",
                r.name,
                args.len()
            )));
        }
        self.loaded.launch(index, r, args)
    }

    /// Each kernel's name and the plan it runs with (the main plan until autotuning chose).
    pub fn chosen_plans(&self) -> Vec<(String, KernelPlan)> {
        self.rendered
            .iter()
            .enumerate()
            .map(|(i, r)| (r.name.clone(), self.loaded.chosen_plan(i).unwrap_or(r.plan)))
            .collect()
    }
}

impl CompiledKernels for CudaKernels {
    fn launch(&self, index: usize, args: &[BufferHandle]) -> Result<(), BackendError> {
        self.launch_kernel(index, args)
    }

    fn source(&self) -> String {
        self.source.clone()
    }

    fn source_file_name(&self) -> &'static str {
        "output_code.ptx"
    }

    fn machine_code(&self) -> coil_kernel::MachineCode {
        coil_kernel::MachineCode {
            reused_kernels: self.reused,
            ..self.loaded.machine_code()
        }
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
