//! [`CudaBackend`]: coil's [`Backend`] for NVIDIA GPUs. `compile` renders every kernel of a
//! model into one PTX module (`.target` from the device's compute capability, `sm_90` without
//! one) and loads it with one driver call; `launch` runs a kernel's entries with the launch
//! configurations the translator chose; memory lives behind opaque handles; `matmul` calls
//! cuBLAS `sgemm` (strided batched for bmm, transposed operands as views).
//!
//! Three runtimes behind one type: a GPU ([`CudaBackend::new`]), none
//! ([`CudaBackend::offline`]: renders PTX only, for `--compile-only` and CI), and the PTX
//! emulator ([`CudaBackend::emulated`]: runs the same PTX on the host, slowly, so whole models
//! can be checked end to end on machines without a GPU).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use coil_codegen::{
    Backend, BackendError, BufferHandle, CompiledKernels, DeviceClock, DeviceTimes, ExternCall,
    ExternKind, Kernel, StridedOperand,
};
use coil_graph::DType;
use coil_lower::LowerConfig;

use crate::blas::{Gemm, MatLayout};
use crate::emu;
use crate::error::CudaError;
use crate::ptx::PtxModule;
use crate::render::{
    KernelPlan, LaunchArg, RenderedKernel, candidate_plans, oriented, plan_kernel, render_planned,
    walk_backwards,
};
use crate::runtime::{DeviceBuffer, Event, GpuDevice, LoadedKernel, ParamValue};
use coil_ptx::{GpuCaps, PtxTarget};

/// Instructions one emulated launch may execute before it is stopped.
const EMULATOR_BUDGET: u64 = 20_000_000_000;

enum Runtime {
    Offline,
    Gpu(GpuDevice),
    Emulated,
}

/// Memory behind handles: device buffers, or emulator addresses.
#[derive(Default)]
struct Memory {
    next: u64,
    gpu: HashMap<u64, DeviceBuffer>,
    emu: emu::Memory,
    emu_buffers: HashMap<u64, (u64, usize)>,
}

struct Shared {
    runtime: Runtime,
    memory: Mutex<Memory>,
    /// While profiling: every launch's entry name and its events.
    profile: Mutex<Option<Vec<ProfiledLaunch>>>,
    /// The event [`DeviceClock::start`] recorded, until `stop`.
    clock_start: Mutex<Option<Event>>,
}

impl Shared {
    fn new(runtime: Runtime) -> Arc<Shared> {
        Arc::new(Shared {
            runtime,
            memory: Mutex::new(Memory::default()),
            profile: Mutex::new(None),
            clock_start: Mutex::new(None),
        })
    }

    fn memory(&self) -> MutexGuard<'_, Memory> {
        self.memory.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `launch` between two events when profiling.
    fn timed(
        &self,
        name: &str,
        launch: impl FnOnce() -> Result<(), BackendError>,
    ) -> Result<(), BackendError> {
        let mut profile = self.profile.lock().unwrap_or_else(PoisonError::into_inner);
        let (Some(list), Runtime::Gpu(dev)) = (profile.as_mut(), &self.runtime) else {
            return launch();
        };
        let start = dev.record_event().map_err(err)?;
        launch()?;
        let end = dev.record_event().map_err(err)?;
        list.push(ProfiledLaunch {
            name: name.to_string(),
            start,
            end,
        });
        Ok(())
    }
}

/// One launch recorded while profiling: the entry (or `cublas_sgemm`) and CUDA events
/// recorded just before and after it on the device's stream.
#[derive(Debug)]
pub struct ProfiledLaunch {
    /// The `.entry` name, or `cublas_sgemm` for a matmul.
    pub name: String,
    /// Recorded before the launch.
    pub start: Event,
    /// Recorded after it.
    pub end: Event,
}

/// Chooses a kernel's plan (see [`crate::render::plan_kernel`]).
pub type Planner = Arc<dyn Fn(&Kernel, &GpuCaps) -> KernelPlan + Send + Sync>;

/// The CUDA backend (`cuda`). A clone shares the device (or emulator), memory and modules.
#[derive(Clone)]
pub struct CudaBackend {
    shared: Arc<Shared>,
    caps: GpuCaps,
    target: PtxTarget,
    description: String,
    planner: Option<Planner>,
    /// Time each kernel's candidate plans at its first launch and keep the fastest.
    autotune: bool,
}

impl std::fmt::Debug for CudaBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaBackend")
            .field("device", &self.description)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

fn err(e: CudaError) -> BackendError {
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

fn emu_err(e: emu::EmuError) -> BackendError {
    BackendError::Runtime(format!("PTX emulator: {e}"))
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
            shared: Shared::new(Runtime::Gpu(device)),
            caps,
            target,
            description,
            planner: None,
            autotune: true,
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
            shared: Shared::new(Runtime::Offline),
            caps,
            target,
            planner: None,
            autotune: true,
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
            shared: Shared::new(Runtime::Emulated),
            caps,
            target,
            planner: None,
            autotune: true,
        }
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

    /// Starts (or stops and discards) recording CUDA events around every launch and matmul
    /// (GPU only). Events cost a microsecond or two of host time per launch.
    pub fn set_profiling(&self, on: bool) {
        let mut p = self
            .shared
            .profile
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *p = on.then(Vec::new);
    }

    /// The launches recorded since profiling started or the last take (profiling stays on).
    pub fn take_profile(&self) -> Vec<ProfiledLaunch> {
        let mut p = self
            .shared
            .profile
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        p.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// The open GPU, if any (for timing with events, device copies, capability queries).
    pub fn gpu(&self) -> Option<&GpuDevice> {
        match &self.shared.runtime {
            Runtime::Gpu(d) => Some(d),
            _ => None,
        }
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
        let mut names = std::collections::HashSet::new();
        let mut module = PtxModule::new(self.target);
        let mut rendered = Vec::with_capacity(kernels.len());
        // Kernels come in launch order: a pointwise kernel rereading what the one before it
        // read walks backwards, into what L2 still holds.
        let backwards = walk_backwards(kernels, &self.caps);
        for (k, &reverse) in kernels.iter().zip(&backwards) {
            if !names.insert(k.name.as_str()) {
                return Err(CudaError::Codegen {
                    kernel: k.name.clone(),
                    reason: "two kernels of one module have this name".into(),
                });
            }
            let default =
                || render_planned(k, &self.caps, self.target, self.default_plan(k, reverse));
            let r = match &self.planner {
                Some(plan) => render_planned(k, &self.caps, self.target, plan(k, &self.caps))
                    .or_else(|_| default())?,
                None => default()?,
            };
            for l in &r.launches {
                module.push(l.kernel.clone())?;
            }
            rendered.push(r);
        }
        Ok((module, rendered))
    }

    /// Compiles like [`Backend::compile`], returning the concrete type.
    pub fn compile_cuda(&self, kernels: &[Kernel]) -> Result<CudaKernels, CudaError> {
        let (module, rendered) = self.render(kernels)?;
        let source = module.to_string();
        // The plans, as comments heading the module (what `output_code.ptx` shows).
        let mut plans = String::new();
        for r in &rendered {
            for l in &r.launches {
                plans.push_str(&format!(
                    "// {}: {:?}, {} x {}\n",
                    l.kernel.name(),
                    r.plan.strategy,
                    l.config.grid.0,
                    l.config.block.0
                ));
            }
        }
        let mut compiled = Vec::with_capacity(rendered.len());
        let (loaded, emulated) = match &self.shared.runtime {
            Runtime::Gpu(dev) => (dev.load_module(&module)?, None),
            Runtime::Emulated => (
                Vec::new(),
                Some(emu::parse(&source).map_err(|e| {
                    CudaError::Ptx(coil_ptx::PtxError {
                        kernel: "<module>".into(),
                        reason: e.to_string(),
                    })
                })?),
            ),
            Runtime::Offline => (Vec::new(), None),
        };
        let mut next_entry = 0;
        for (r, kernel) in rendered.into_iter().zip(kernels) {
            let n = r.launches.len();
            let entries: Vec<LoadedKernel> = loaded
                .get(next_entry..next_entry + n)
                .map(<[LoadedKernel]>::to_vec)
                .unwrap_or_default();
            next_entry += n;
            let scratch = match &self.shared.runtime {
                Runtime::Gpu(dev) => gpu_scratch(dev, &r.scratch_bytes)?,
                Runtime::Emulated => {
                    let mut mem = self.shared.memory();
                    r.scratch_bytes
                        .iter()
                        .map(|&b| Scratch::Emu(mem.emu.alloc(b)))
                        .collect()
                }
                Runtime::Offline => Vec::new(),
            };
            let alternatives = match &self.shared.runtime {
                Runtime::Gpu(dev) if self.autotune && self.planner.is_none() => {
                    self.alternatives(dev, kernel, &r)
                }
                _ => Vec::new(),
            };
            compiled.push(CompiledKernel {
                rendered: r,
                entries,
                scratch,
                alternatives,
                choice: Mutex::new(None),
            });
        }
        Ok(CudaKernels {
            shared: Arc::clone(&self.shared),
            source: plans + &source,
            kernels: compiled,
            emulated,
        })
    }
}

impl CudaBackend {
    /// `kernel`'s default plan, walking backwards when `reverse` ([`walk_backwards`]).
    fn default_plan(&self, kernel: &Kernel, reverse: bool) -> KernelPlan {
        oriented(plan_kernel(kernel, &self.caps), reverse)
    }

    /// `kernel` rendered and loaded under its other candidate plans (each in a module of its
    /// own, so entry names may repeat; each with its own scratch memory); plans that fail to
    /// render or load are left out.
    fn alternatives(
        &self,
        dev: &GpuDevice,
        kernel: &Kernel,
        main: &RenderedKernel,
    ) -> Vec<Variant> {
        let mut out = Vec::new();
        let reverse = matches!(
            main.plan.strategy,
            crate::render::Strategy::Pointwise { reverse: true, .. }
        );
        for plan in candidate_plans(kernel, &self.caps) {
            let plan = oriented(plan, reverse);
            if plan == main.plan {
                continue;
            }
            let loaded = render_planned(kernel, &self.caps, self.target, plan).and_then(|r| {
                if r.arg_bytes != main.arg_bytes {
                    return Ok(None);
                }
                let mut module = PtxModule::new(self.target);
                for l in &r.launches {
                    module.push(l.kernel.clone())?;
                }
                let entries = dev.load_module(&module)?;
                let scratch = gpu_scratch(dev, &r.scratch_bytes)?;
                Ok(Some(Variant {
                    rendered: r,
                    entries,
                    scratch,
                }))
            });
            match loaded {
                Ok(Some(v)) => out.push(v),
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(target: "cuda", kernel = %main.name, ?plan, %e, "candidate plan left out");
                }
            }
        }
        out
    }
}

/// Timed launches of each candidate plan when autotuning (after one warm-up launch).
const TUNE_RUNS: usize = 5;

/// Runs `work` `warmup` times, then `reps` times (at least once) between two CUDA events
/// each; the median device time in milliseconds.
fn median_device_ms(
    dev: &GpuDevice,
    warmup: usize,
    reps: usize,
    mut work: impl FnMut() -> Result<(), BackendError>,
) -> Result<f64, BackendError> {
    for _ in 0..warmup {
        work()?;
    }
    let mut times = Vec::with_capacity(reps.max(1));
    for _ in 0..reps.max(1) {
        let start = dev.record_event().map_err(err)?;
        work()?;
        let end = dev.record_event().map_err(err)?;
        times.push(f64::from(start.elapsed_ms(&end).map_err(err)?));
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// Zeroed device scratch buffers of these sizes (a fused split's counters must start at 0).
fn gpu_scratch(dev: &GpuDevice, bytes: &[usize]) -> Result<Vec<Scratch>, CudaError> {
    bytes
        .iter()
        .map(|&b| dev.alloc_zeroed(b).map(Scratch::Gpu))
        .collect()
}

enum Scratch {
    Gpu(DeviceBuffer),
    Emu(u64),
}

struct CompiledKernel {
    rendered: RenderedKernel,
    entries: Vec<LoadedKernel>,
    scratch: Vec<Scratch>,
    /// Other candidate plans, rendered and loaded (autotuning on a GPU only).
    alternatives: Vec<Variant>,
    /// Which plan runs: 0 the main one, `i` alternative `i - 1`; `None` until the first
    /// launch has timed them.
    choice: Mutex<Option<usize>>,
}

/// A kernel rendered under another plan, loaded, with its scratch memory.
struct Variant {
    rendered: RenderedKernel,
    entries: Vec<LoadedKernel>,
    scratch: Vec<Scratch>,
}

impl CompiledKernel {
    fn variant(&self, v: usize) -> (&RenderedKernel, &[LoadedKernel], &[Scratch]) {
        match v.checked_sub(1).and_then(|i| self.alternatives.get(i)) {
            Some(a) => (&a.rendered, &a.entries, &a.scratch),
            None => (&self.rendered, &self.entries, &self.scratch),
        }
    }
}

/// A compiled model's kernels: one PTX module, each kernel's entries, launch configurations
/// and scratch memory.
pub struct CudaKernels {
    shared: Arc<Shared>,
    source: String,
    kernels: Vec<CompiledKernel>,
    emulated: Option<emu::Module>,
}

impl std::fmt::Debug for CudaKernels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaKernels")
            .field(
                "kernels",
                &self
                    .kernels
                    .iter()
                    .map(|k| &k.rendered.name)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Drop for CudaKernels {
    fn drop(&mut self) {
        let mut mem = self.shared.memory();
        for k in &self.kernels {
            for s in &k.scratch {
                if let Scratch::Emu(addr) = s {
                    mem.emu.free(*addr);
                }
            }
        }
    }
}

impl CudaKernels {
    /// How each kernel was rendered (strategy, entries, launch configurations).
    pub fn rendered(&self) -> impl Iterator<Item = &RenderedKernel> {
        self.kernels.iter().map(|k| &k.rendered)
    }

    /// Launches kernel `index` with `args` (one buffer per kernel argument).
    pub fn launch_kernel(&self, index: usize, args: &[BufferHandle]) -> Result<(), BackendError> {
        let k = self.kernels.get(index).ok_or_else(|| {
            BackendError::Runtime(format!(
                "kernel {index} of a module of {} kernels",
                self.kernels.len()
            ))
        })?;
        let r = &k.rendered;
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
        let needs = &r.arg_bytes;
        let mut mem = self.shared.memory();
        match &self.shared.runtime {
            Runtime::Offline => Err(err(CudaError::Offline("launch kernels"))),
            Runtime::Gpu(dev) => {
                let bufs: Vec<&DeviceBuffer> = args
                    .iter()
                    .zip(needs)
                    .map(|(h, &need)| {
                        let b = mem.gpu.get(&h.0).ok_or_else(|| {
                            BackendError::Runtime(format!(
                                "{h} is not a live buffer of this backend"
                            ))
                        })?;
                        if b.len() < need {
                            return Err(BackendError::Runtime(format!(
                                "{}: buffer {h} has {} bytes, the kernel reads or writes {need}",
                                r.name,
                                b.len()
                            )));
                        }
                        Ok(b)
                    })
                    .collect::<Result<_, _>>()?;
                let v = self.choose(dev, k, &bufs)?;
                let (r, entries, scratch) = k.variant(v);
                self.launch_gpu(dev, r, entries, scratch, &bufs, true)
            }
            Runtime::Emulated => {
                let module = self
                    .emulated
                    .as_ref()
                    .ok_or_else(|| BackendError::Runtime("no emulated module".into()))?;
                let mut addrs = Vec::with_capacity(args.len());
                for (h, &need) in args.iter().zip(needs) {
                    let &(addr, len) = mem.emu_buffers.get(&h.0).ok_or_else(|| {
                        BackendError::Runtime(format!("{h} is not a live buffer of this backend"))
                    })?;
                    if len < need {
                        return Err(BackendError::Runtime(format!(
                            "{}: buffer {h} has {len} bytes, the kernel reads or writes {need}",
                            r.name
                        )));
                    }
                    addrs.push(addr);
                }
                for launch in &r.launches {
                    let params: Vec<u64> = launch
                        .args
                        .iter()
                        .map(|a| match a {
                            LaunchArg::Arg(i) => addrs[*i],
                            LaunchArg::Scratch(j) => match &k.scratch[*j] {
                                Scratch::Emu(a) => *a,
                                Scratch::Gpu(_) => 0,
                            },
                        })
                        .collect();
                    emu::launch(
                        module,
                        launch.kernel.name(),
                        launch.config.grid.0,
                        launch.config.block.0,
                        &params,
                        &mut mem.emu,
                        EMULATOR_BUDGET,
                    )
                    .map_err(emu_err)?;
                }
                Ok(())
            }
        }
    }
}

impl CudaKernels {
    /// Launches the entries of one rendering of a kernel on `bufs` (one per argument).
    fn launch_gpu(
        &self,
        dev: &GpuDevice,
        r: &RenderedKernel,
        entries: &[LoadedKernel],
        scratch: &[Scratch],
        bufs: &[&DeviceBuffer],
        profiled: bool,
    ) -> Result<(), BackendError> {
        for (launch, entry) in r.launches.iter().zip(entries) {
            let kargs: Vec<ParamValue<'_>> = launch
                .args
                .iter()
                .map(|a| match a {
                    LaunchArg::Arg(i) => ParamValue::buffer(bufs[*i]),
                    LaunchArg::Scratch(j) => match &scratch[*j] {
                        Scratch::Gpu(b) => ParamValue::buffer(b),
                        Scratch::Emu(_) => ParamValue::U64(0),
                    },
                })
                .collect();
            // SAFETY: every buffer holds at least the bytes the kernel's arguments span
            // (checked by the caller against `arg_bytes`, which every rendering of a kernel
            // shares; the translator indexes within `len` elements of each argument), and
            // scratch buffers were sized by the translator.
            let go = || unsafe { dev.launch(entry, launch.config, &kargs) }.map_err(err);
            if profiled {
                self.shared.timed(entry.name(), go)?;
            } else {
                go()?;
            }
        }
        Ok(())
    }

    /// The plan kernel `k` runs with: at its first launch, every candidate is timed on
    /// `bufs` and the fastest kept.
    fn choose(
        &self,
        dev: &GpuDevice,
        k: &CompiledKernel,
        bufs: &[&DeviceBuffer],
    ) -> Result<usize, BackendError> {
        let mut choice = k.choice.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(v) = *choice {
            return Ok(v);
        }
        if k.alternatives.is_empty() {
            *choice = Some(0);
            return Ok(0);
        }
        let mut medians = Vec::with_capacity(k.alternatives.len() + 1);
        for v in 0..=k.alternatives.len() {
            let (r, entries, scratch) = k.variant(v);
            medians.push(median_device_ms(dev, 1, TUNE_RUNS, || {
                self.launch_gpu(dev, r, entries, scratch, bufs, false)
            })?);
        }
        let best = (0..medians.len())
            .min_by(|&a, &b| medians[a].total_cmp(&medians[b]))
            .unwrap_or(0);
        tracing::debug!(
            target: "cuda",
            kernel = %k.rendered.name,
            plans = ?(0..medians.len()).map(|v| (k.variant(v).0.plan.strategy, medians[v] * 1e3)).collect::<Vec<_>>(),
            chosen = ?k.variant(best).0.plan,
            "autotuned (µs per plan)"
        );
        *choice = Some(best);
        Ok(best)
    }

    /// Each kernel's name and the plan it runs with (the main plan until autotuning chose).
    pub fn chosen_plans(&self) -> Vec<(String, KernelPlan)> {
        self.kernels
            .iter()
            .map(|k| {
                let v = k
                    .choice
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .unwrap_or(0);
                (k.rendered.name.clone(), k.variant(v).0.plan)
            })
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
}

/// A matmul operand as cuBLAS sees it: batch count, rows, cols and layout.
fn mat_layout(
    what: &str,
    op: &StridedOperand,
) -> Result<(usize, usize, usize, MatLayout), BackendError> {
    let bad = |msg: String| BackendError::Runtime(format!("matmul operand {what}: {msg}"));
    if op.dtype != DType::F32 {
        return Err(bad(format!(
            "{} matmuls are not supported (cuBLAS sgemm is float32)",
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
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn device(&self) -> String {
        self.description.clone()
    }

    fn lower_config(&self) -> LowerConfig {
        LowerConfig::gpu()
    }

    fn loop_compat(&self) -> &dyn coil_sched::LoopCompat {
        &coil_sched::SimdLoops
    }

    fn sched_config(&self) -> coil_sched::SchedConfig {
        coil_sched::SchedConfig::gpu()
    }

    /// Inductor's naming limit (rows up to 1024 are `per`); the translator still holds
    /// longer rows in registers when they fit (see [`crate::render::plan_kernel`]).
    fn build_options(&self) -> coil_codegen::BuildOptions {
        coil_codegen::BuildOptions::default()
    }

    fn compile(&self, kernels: &[Kernel]) -> Result<Box<dyn CompiledKernels>, BackendError> {
        Ok(Box::new(self.compile_cuda(kernels).map_err(err)?))
    }

    fn alloc(&self, bytes: usize) -> Result<BufferHandle, BackendError> {
        let mut mem = self.shared.memory();
        mem.next += 1;
        let h = mem.next;
        match &self.shared.runtime {
            // Offline, memory is a name only: `coil::compile` plans and "allocates" so that
            // `--compile-only` renders the PTX; copies and launches fail.
            Runtime::Offline => {}
            Runtime::Gpu(dev) => {
                // Zeroed: kernels may read padding a view never wrote.
                let b = dev.alloc_zeroed(bytes).map_err(err)?;
                mem.gpu.insert(h, b);
            }
            Runtime::Emulated => {
                let addr = mem.emu.alloc(bytes);
                mem.emu_buffers.insert(h, (addr, bytes));
            }
        }
        Ok(BufferHandle(h))
    }

    fn free(&self, buffer: BufferHandle) {
        let mut mem = self.shared.memory();
        mem.gpu.remove(&buffer.0);
        if let Some((addr, _)) = mem.emu_buffers.remove(&buffer.0) {
            mem.emu.free(addr);
        }
    }

    fn write(&self, buffer: BufferHandle, bytes: &[u8]) -> Result<(), BackendError> {
        let mut mem = self.shared.memory();
        match &self.shared.runtime {
            Runtime::Offline => Err(err(CudaError::Offline("copy memory"))),
            Runtime::Gpu(dev) => {
                let b = mem.gpu.get_mut(&buffer.0).ok_or_else(|| {
                    BackendError::Runtime(format!("{buffer} is not a live buffer"))
                })?;
                dev.copy_to_device(bytes, b, 0).map_err(err)
            }
            Runtime::Emulated => {
                let &(addr, _) = mem.emu_buffers.get(&buffer.0).ok_or_else(|| {
                    BackendError::Runtime(format!("{buffer} is not a live buffer"))
                })?;
                mem.emu.write(addr, bytes).map_err(emu_err)
            }
        }
    }

    fn read(&self, buffer: BufferHandle, out: &mut [u8]) -> Result<(), BackendError> {
        let mut mem = self.shared.memory();
        match &self.shared.runtime {
            Runtime::Offline => Err(err(CudaError::Offline("copy memory"))),
            Runtime::Gpu(dev) => {
                let b = mem.gpu.get(&buffer.0).ok_or_else(|| {
                    BackendError::Runtime(format!("{buffer} is not a live buffer"))
                })?;
                dev.copy_to_host(b, 0, out).map_err(err)
            }
            Runtime::Emulated => {
                let &(addr, _) = mem.emu_buffers.get(&buffer.0).ok_or_else(|| {
                    BackendError::Runtime(format!("{buffer} is not a live buffer"))
                })?;
                mem.emu.read(addr, out).map_err(emu_err)
            }
        }
    }

    fn supports_extern(&self, kind: &ExternKind) -> bool {
        matches!(kind, ExternKind::Matmul(_))
    }

    fn extern_call(&self, call: &ExternCall) -> Result<(), BackendError> {
        let ExternKind::Matmul(_) = call.kind;
        let (a, b) = call.matmul_operands()?;
        let (ba, m, k, la) = mat_layout("a", a)?;
        let (bb, k2, n, lb) = mat_layout("b", b)?;
        let (bc, m2, n2, lc) = mat_layout("out", &call.out)?;
        if k != k2 || m != m2 || n != n2 || ba != bb || ba != bc || lc.transposed {
            return Err(BackendError::Runtime(format!(
                "matmul shapes do not agree: {:?} @ {:?} -> {:?}",
                a.sizes, b.sizes, call.out.sizes
            )));
        }
        let gemm = Gemm {
            batch: ba,
            m,
            n,
            k,
            alpha: 1.0,
            beta: 0.0,
        };
        let mut mem = self.shared.memory();
        match &self.shared.runtime {
            Runtime::Offline => Err(err(CudaError::Offline("run matmuls"))),
            Runtime::Gpu(dev) => {
                let mut out = mem.gpu.remove(&call.out.buffer.0).ok_or_else(|| {
                    BackendError::Runtime(format!("{} is not a live buffer", call.out.buffer))
                })?;
                let result = (|| {
                    let a = mem.gpu.get(&a.buffer.0);
                    let b = mem.gpu.get(&b.buffer.0);
                    let (Some(a), Some(b)) = (a, b) else {
                        return Err(BackendError::Runtime(
                            "a matmul operand is not a live buffer (or aliases the output)".into(),
                        ));
                    };
                    dev.sgemm(gemm, (a, la), (b, lb), (&mut out, lc))
                        .map_err(err)
                })();
                mem.gpu.insert(call.out.buffer.0, out);
                result
            }
            Runtime::Emulated => {
                let mut read = |op: &StridedOperand| -> Result<Vec<f32>, BackendError> {
                    let &(addr, len) = mem.emu_buffers.get(&op.buffer.0).ok_or_else(|| {
                        BackendError::Runtime(format!("{} is not a live buffer", op.buffer))
                    })?;
                    let mut bytes = vec![0u8; len];
                    mem.emu.read(addr, &mut bytes).map_err(emu_err)?;
                    Ok(bytes
                        .chunks_exact(4)
                        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect())
                };
                let av = read(a)?;
                let bv = read(b)?;
                let mut cv = read(&call.out)?;
                let at = |l: &MatLayout, v: &[f32], bi: usize, i: usize, j: usize| -> f32 {
                    let (r, c) = if l.transposed { (j, i) } else { (i, j) };
                    v.get(l.offset + bi * l.batch_stride + r * l.row_stride + c)
                        .copied()
                        .unwrap_or(f32::NAN)
                };
                for bi in 0..ba {
                    // Row-major A and B^T, then dot products (cache-friendly).
                    let a: Vec<f32> = (0..m * k).map(|x| at(&la, &av, bi, x / k, x % k)).collect();
                    let bt: Vec<f32> = (0..n * k).map(|x| at(&lb, &bv, bi, x % k, x / k)).collect();
                    for i in 0..m {
                        let row = &a[i * k..(i + 1) * k];
                        for j in 0..n {
                            let col = &bt[j * k..(j + 1) * k];
                            let acc: f32 = row.iter().zip(col).map(|(x, y)| x * y).sum();
                            let o = lc.offset + bi * lc.batch_stride + i * lc.row_stride + j;
                            if let Some(slot) = cv.get_mut(o) {
                                *slot = acc;
                            }
                        }
                    }
                }
                let &(addr, _) = mem.emu_buffers.get(&call.out.buffer.0).ok_or_else(|| {
                    BackendError::Runtime(format!("{} is not a live buffer", call.out.buffer))
                })?;
                let bytes: Vec<u8> = cv.iter().flat_map(|x| x.to_le_bytes()).collect();
                mem.emu.write(addr, &bytes).map_err(emu_err)
            }
        }
    }

    fn synchronize(&self) -> Result<(), BackendError> {
        match &self.shared.runtime {
            Runtime::Gpu(dev) => dev.synchronize().map_err(err),
            Runtime::Emulated => Ok(()),
            Runtime::Offline => Err(err(CudaError::Offline("synchronize"))),
        }
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
        *self
            .shared
            .clock_start
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(event);
        Ok(())
    }

    fn stop(&self) -> Result<DeviceTimes, BackendError> {
        let dev = self
            .gpu()
            .ok_or_else(|| err(CudaError::Offline("record events")))?;
        let start = self
            .shared
            .clock_start
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
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
        let ms = median_device_ms(dev, 3, reps, || {
            dev.copy_device(&src, 0, &mut dst, 0, bytes).map_err(err)
        })?;
        Ok(2.0 * bytes as f64 / (ms * 1e-3) / 1e9)
    }
}
