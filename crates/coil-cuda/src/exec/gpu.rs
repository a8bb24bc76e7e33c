//! A GPU through the CUDA driver (cudarc) as an executor: device buffers behind handles, one
//! module load per model, launches with the translator's configurations, cuBLAS `sgemm`, CUDA
//! events for profiling, and autotuning: at a kernel's first launch each candidate plan
//! (rendered and loaded beside the main one) is timed on that launch's buffers and the fastest
//! kept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use coil_codegen::{BackendError, BufferHandle, Kernel};

use super::{Executor, LoadOptions, LoadedModule, dead, too_small};
use crate::backend::err;
use crate::blas::{Gemm, MatLayout};
use crate::error::CudaError;
use crate::ptx::PtxModule;
use crate::render::{
    KernelPlan, LaunchArg, RenderedKernel, Strategy, candidate_plans, oriented, render_planned,
};
use crate::runtime::{DeviceBuffer, Event, GpuDevice, LoadedKernel, ParamValue};

/// Timed launches of each candidate plan when autotuning (after one warm-up launch).
const TUNE_RUNS: usize = 5;

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

struct State {
    dev: GpuDevice,
    memory: Mutex<(u64, HashMap<u64, DeviceBuffer>)>,
    /// While profiling: every launch's entry name and its events.
    profile: Mutex<Option<Vec<ProfiledLaunch>>>,
    /// The event `DeviceClock::start` recorded, until `stop`.
    clock_start: Mutex<Option<Event>>,
}

/// The executor of [`crate::CudaBackend::new`]: an open GPU (clones share it).
#[derive(Clone)]
pub(crate) struct Gpu(Arc<State>);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Gpu {
    pub(crate) fn new(dev: GpuDevice) -> Gpu {
        Gpu(Arc::new(State {
            dev,
            memory: Mutex::new((0, HashMap::new())),
            profile: Mutex::new(None),
            clock_start: Mutex::new(None),
        }))
    }

    /// The open device.
    pub(crate) fn device(&self) -> &GpuDevice {
        &self.0.dev
    }

    /// Starts (`on`) or stops and discards recording events around every launch.
    pub(crate) fn set_profiling(&self, on: bool) {
        *lock(&self.0.profile) = on.then(Vec::new);
    }

    /// The launches recorded since profiling started or the last take.
    pub(crate) fn take_profile(&self) -> Vec<ProfiledLaunch> {
        lock(&self.0.profile)
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Where the device clock's start event is kept.
    pub(crate) fn clock_start(&self) -> MutexGuard<'_, Option<Event>> {
        lock(&self.0.clock_start)
    }

    /// Runs `launch` between two events when profiling.
    fn timed(
        &self,
        name: &str,
        launch: impl FnOnce() -> Result<(), BackendError>,
    ) -> Result<(), BackendError> {
        let mut profile = lock(&self.0.profile);
        let Some(list) = profile.as_mut() else {
            return launch();
        };
        let start = self.0.dev.record_event().map_err(err)?;
        launch()?;
        let end = self.0.dev.record_event().map_err(err)?;
        list.push(ProfiledLaunch {
            name: name.to_string(),
            start,
            end,
        });
        Ok(())
    }
}

/// Runs `work` `warmup` times, then `reps` times (at least once) between two CUDA events
/// each; the median device time in milliseconds.
pub(crate) fn median_device_ms(
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
fn scratch(dev: &GpuDevice, bytes: &[usize]) -> Result<Vec<DeviceBuffer>, CudaError> {
    bytes.iter().map(|&b| dev.alloc_zeroed(b)).collect()
}

/// One rendering of a kernel, loaded, with its scratch memory.
struct Variant {
    /// The rendering (`None` for the main one, which the caller passes).
    rendered: Option<RenderedKernel>,
    entries: Vec<LoadedKernel>,
    scratch: Vec<DeviceBuffer>,
}

struct GpuKernel {
    /// The main plan's entries first, then the other candidates' (autotuning).
    variants: Vec<Variant>,
    /// Which variant runs; `None` until the first launch has timed them (or known from the
    /// compile cache: `tune_cache`).
    choice: Mutex<Option<usize>>,
    /// Where the first launch keeps its choice, and each variant's index in
    /// `candidate_plans`' list (what the cache holds); `None`: nothing to keep.
    tune: Option<(coil_cache::Key, Vec<usize>)>,
}

struct GpuModule {
    gpu: Gpu,
    kernels: Vec<GpuKernel>,
    machine_code: coil_kernel::MachineCode,
}

impl GpuModule {
    /// Launches one rendering of a kernel on `bufs` (one per argument).
    fn launch_variant(
        &self,
        r: &RenderedKernel,
        v: &Variant,
        bufs: &[&DeviceBuffer],
        profiled: bool,
    ) -> Result<(), BackendError> {
        for (launch, entry) in r.launches.iter().zip(&v.entries) {
            let kargs: Vec<ParamValue<'_>> = launch
                .args
                .iter()
                .map(|a| match a {
                    LaunchArg::Arg(i) => ParamValue::buffer(bufs[*i]),
                    LaunchArg::Scratch(j) => ParamValue::buffer(&v.scratch[*j]),
                    LaunchArg::Size(j) => ParamValue::S64(r.sizes.get(*j).copied().unwrap_or(0)),
                })
                .collect();
            // SAFETY: every buffer holds at least the bytes the kernel's arguments span
            // (checked by the caller against `arg_bytes`, which every rendering of a kernel
            // shares; the translator indexes within `len` elements of each argument), and
            // scratch buffers were sized by the translator.
            let go = || unsafe { self.gpu.0.dev.launch(entry, launch.config, &kargs) }.map_err(err);
            if profiled {
                self.gpu.timed(entry.name(), go)?;
            } else {
                go()?;
            }
        }
        Ok(())
    }

    /// The variant kernel `k` runs with: at its first launch, every candidate is timed on
    /// `bufs` and the fastest kept.
    fn choose(
        &self,
        main: &RenderedKernel,
        k: &GpuKernel,
        bufs: &[&DeviceBuffer],
    ) -> Result<usize, BackendError> {
        let mut choice = lock(&k.choice);
        if let Some(v) = *choice {
            return Ok(v);
        }
        if k.variants.len() <= 1 {
            *choice = Some(0);
            return Ok(0);
        }
        let mut medians = Vec::with_capacity(k.variants.len());
        for v in &k.variants {
            let r = v.rendered.as_ref().unwrap_or(main);
            medians.push(median_device_ms(&self.gpu.0.dev, 1, TUNE_RUNS, || {
                self.launch_variant(r, v, bufs, false)
            })?);
        }
        let best = (0..medians.len())
            .min_by(|&a, &b| medians[a].total_cmp(&medians[b]))
            .unwrap_or(0);
        let plan = |v: &Variant| v.rendered.as_ref().unwrap_or(main).plan;
        tracing::debug!(
            target: "cuda",
            kernel = %main.name,
            plans = ?k.variants.iter().zip(&medians).map(|(v, ms)| (plan(v).strategy, ms * 1e3)).collect::<Vec<_>>(),
            chosen = ?plan(&k.variants[best]),
            "autotuned (µs per plan)"
        );
        *choice = Some(best);
        if let Some((key, plans)) = &k.tune
            && let Some(&plan) = plans.get(best)
        {
            super::tune_cache::store(&self.gpu.0.dev.compile_cache(), key, plan);
        }
        Ok(best)
    }
}

impl LoadedModule for GpuModule {
    fn machine_code(&self) -> coil_kernel::MachineCode {
        self.machine_code.clone()
    }

    fn launch(
        &self,
        index: usize,
        main: &RenderedKernel,
        args: &[BufferHandle],
    ) -> Result<(), BackendError> {
        let k = self
            .kernels
            .get(index)
            .ok_or_else(|| BackendError::Runtime(format!("no kernel {index}")))?;
        let mem = lock(&self.gpu.0.memory);
        let bufs: Vec<&DeviceBuffer> = args
            .iter()
            .zip(&main.arg_bytes)
            .map(|(&h, &need)| {
                let b = mem.1.get(&h.0).ok_or_else(|| dead(h))?;
                if b.len() < need {
                    return Err(too_small(&main.name, h, b.len(), need));
                }
                Ok(b)
            })
            .collect::<Result<_, _>>()?;
        let v = self.choose(main, k, &bufs)?;
        let variant = &k.variants[v];
        self.launch_variant(
            variant.rendered.as_ref().unwrap_or(main),
            variant,
            &bufs,
            true,
        )
    }

    fn chosen_plan(&self, index: usize) -> Option<KernelPlan> {
        let k = self.kernels.get(index)?;
        let v = (*lock(&k.choice))?;
        k.variants.get(v)?.rendered.as_ref().map(|r| r.plan)
    }
}

/// A kernel rendered under another candidate plan, with its module, not yet loaded.
struct Candidate {
    rendered: RenderedKernel,
    module: PtxModule,
    /// Its plan's index in `candidate_plans`' list.
    index: usize,
}

/// What autotuning knows of a kernel before its first launch.
struct Tuning {
    /// The candidates to load, besides the main plan.
    candidates: Vec<Candidate>,
    /// The main plan's index in `candidate_plans`' list.
    main_index: usize,
    /// The choice kept in the compile cache, as a variant (0: the main plan).
    known: Option<usize>,
    /// The cache key, where the cache is on.
    key: Option<coil_cache::Key>,
}

impl Gpu {
    /// `kernel` rendered under its other candidate plans (each in a module of its own, so
    /// entry names may repeat); plans that fail to render are left out.
    /// `kernel`'s candidates, or, where the compile cache holds its choice, that plan alone
    /// (nothing to render when it is the main plan).
    fn tuning(&self, kernel: &Kernel, main: &RenderedKernel, options: &LoadOptions<'_>) -> Tuning {
        let cache = self.0.dev.compile_cache();
        let key = cache
            .is_on()
            .then(|| super::tune_cache::key(kernel, options.caps));
        let kept = key
            .as_ref()
            .and_then(|k| super::tune_cache::lookup(&cache, k));
        let (mut candidates, main_index) = Gpu::candidates(kernel, main, options, kept);
        let known = match kept {
            Some(i) if i == main_index => Some(0),
            Some(i) => candidates.iter().position(|c| c.index == i).map(|p| p + 1),
            None => None,
        };
        if kept.is_some() && known.is_none() {
            // The kept choice names no plan of this kernel any more: tune again.
            candidates = Gpu::candidates(kernel, main, options, None).0;
        }
        Tuning {
            candidates,
            main_index,
            known,
            key,
        }
    }

    /// `kernel` rendered under its other candidate plans (each in a module of its own, so
    /// entry names may repeat), or under plan `only` alone; plans that fail to render are
    /// left out. Also gives the main plan's index in `candidate_plans`' list.
    fn candidates(
        kernel: &Kernel,
        main: &RenderedKernel,
        options: &LoadOptions<'_>,
        only: Option<usize>,
    ) -> (Vec<Candidate>, usize) {
        let mut out = Vec::new();
        let mut main_index = 0;
        let reverse = matches!(
            main.plan.strategy,
            Strategy::Pointwise { reverse: true, .. }
        );
        for (index, plan) in candidate_plans(kernel, options.caps)
            .into_iter()
            .enumerate()
        {
            let plan = oriented(plan, reverse);
            if plan == main.plan {
                main_index = index;
                continue;
            }
            if only.is_some_and(|o| o != index) {
                continue;
            }
            let rendered =
                render_planned(kernel, options.caps, options.target, plan).and_then(|r| {
                    if r.arg_bytes != main.arg_bytes {
                        return Ok(None);
                    }
                    let mut module = PtxModule::new(options.target);
                    for l in &r.launches {
                        module.push(l.kernel.clone())?;
                    }
                    Ok(Some(Candidate {
                        rendered: r,
                        module,
                        index,
                    }))
                });
            match rendered {
                Ok(Some(c)) => out.push(c),
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(target: "cuda", kernel = %main.name, ?plan, %e, "candidate plan left out");
                }
            }
        }
        (out, main_index)
    }

    /// The candidates loaded (each with its own scratch memory), with their plans' indices;
    /// those that fail to load are left out.
    fn load_candidates(
        &self,
        main: &RenderedKernel,
        candidates: Vec<Candidate>,
    ) -> Vec<(Variant, usize)> {
        let mut out = Vec::new();
        for c in candidates {
            let plan = c.rendered.plan;
            let index = c.index;
            let loaded = self.0.dev.load_module(&c.module).and_then(|entries| {
                Ok(Variant {
                    scratch: scratch(&self.0.dev, &c.rendered.scratch_bytes)?,
                    rendered: Some(c.rendered),
                    entries,
                })
            });
            match loaded {
                Ok(v) => out.push((v, index)),
                Err(e) => {
                    tracing::warn!(target: "cuda", kernel = %main.name, ?plan, %e, "candidate plan left out");
                }
            }
        }
        out
    }
}

impl Executor for Gpu {
    fn load(
        &self,
        _module: &PtxModule,
        _source: &str,
        rendered: &[RenderedKernel],
        kernels: &[&Kernel],
        options: &LoadOptions<'_>,
    ) -> Result<Box<dyn LoadedModule>, CudaError> {
        // Each kernel's candidates (or its kept choice), rendered on every core at once; a run
        // that panicked tunes nothing (its kernels run their main plans). A kernel launching a
        // general kernel's entries is not tuned: its candidates would be code of its own.
        let mut tunings: Vec<Option<Tuning>> = crate::par::map_on_every_core(rendered.len(), |i| {
            (options.autotune && !rendered[i].shared)
                .then(|| self.tuning(kernels[i], &rendered[i], options))
        })
        .into_iter()
        .map(Option::flatten)
        .collect();
        let first = |m: &PtxModule| {
            m.kernels()
                .first()
                .map_or(String::new(), |k| k.name().to_string())
        };
        let module_of = |rs: &mut dyn Iterator<Item = &RenderedKernel>| {
            let mut m = PtxModule::new(options.target);
            for r in rs {
                for l in &r.launches {
                    m.push(l.kernel.clone())?;
                }
            }
            Ok::<_, CudaError>(m)
        };
        // The kernels of their own code shared out over modules (`CudaBackend::with_modules`):
        // runs of consecutive kernels. Each general kernel's entries are a module of their own,
        // the same text at every size ([`crate::families`]).
        let own: Vec<&RenderedKernel> = rendered.iter().filter(|r| !r.shared).collect();
        let mut mains: Vec<PtxModule> = match options.modules {
            crate::ModuleSplit::Whole => vec![module_of(&mut own.iter().copied())?],
            split => {
                // Each kernel's size: its entries' PTX text (already rendered).
                let sizes: Vec<usize> = own
                    .iter()
                    .map(|r| r.launches.iter().map(|l| l.kernel.entry_text().len()).sum())
                    .collect();
                split
                    .runs(&sizes)
                    .into_iter()
                    .map(|run| module_of(&mut own[run].iter().copied()))
                    .collect::<Result<_, CudaError>>()?
            }
        };
        mains.retain(|m| !m.kernels().is_empty());
        let mut general = std::collections::HashSet::new();
        for r in rendered.iter().filter(|r| r.shared) {
            if r.launches
                .first()
                .is_some_and(|l| general.insert(l.kernel.name().to_string()))
            {
                mains.push(module_of(&mut std::iter::once(r))?);
            }
        }
        // Every module this compile loads (the kernels', and each autotuning candidate's)
        // turned into machine code at once, on every core, before the loads.
        let mut texts: Vec<(String, String)> =
            mains.iter().map(|m| (m.to_string(), first(m))).collect();
        for c in tunings.iter().flatten().flat_map(|t| &t.candidates) {
            texts.push((c.module.to_string(), first(&c.module)));
        }
        self.0.dev.precompile(&texts);
        let mut loaded: HashMap<String, LoadedKernel> = HashMap::new();
        for m in &mains {
            for (entry, k) in m.kernels().iter().zip(self.0.dev.load_module(m)?) {
                loaded.insert(entry.name().to_string(), k);
            }
        }
        let mut out = Vec::with_capacity(rendered.len());
        for (r, tuning) in rendered.iter().zip(tunings.iter_mut()) {
            let entries: Vec<LoadedKernel> = r
                .launches
                .iter()
                .map(|l| {
                    loaded
                        .get(l.kernel.name())
                        .cloned()
                        .ok_or_else(|| CudaError::Codegen {
                            kernel: r.name.clone(),
                            reason: format!("entry {} was not loaded", l.kernel.name()),
                        })
                })
                .collect::<Result<_, _>>()?;
            let mut variants = vec![Variant {
                rendered: None,
                entries,
                scratch: scratch(&self.0.dev, &r.scratch_bytes)?,
            }];
            let (mut choice, mut tune) = (None, None);
            if let Some(t) = tuning.take() {
                let mut plans = vec![t.main_index];
                for (v, index) in self.load_candidates(r, t.candidates) {
                    variants.push(v);
                    plans.push(index);
                }
                // A choice kept by an earlier compile: that plan, loaded alone, runs (if it
                // failed to load, the main plan does and is timed no more).
                choice = t.known.map(|k| k.min(variants.len() - 1));
                tune = t.key.map(|key| (key, plans));
            }
            out.push(GpuKernel {
                variants,
                choice: Mutex::new(choice),
                tune,
            });
        }
        let records = self.0.dev.take_jit_records();
        let cache = if !self.0.dev.compile_cache().is_on() {
            "off"
        } else if records.iter().any(|r| r.source == "jit") {
            "miss"
        } else {
            "hit"
        };
        let machine_code = coil_kernel::MachineCode {
            modules: records
                .into_iter()
                .map(|r| (r.kernel, r.ms, r.source))
                .collect(),
            cache,
            reused_kernels: 0,
        };
        Ok(Box::new(GpuModule {
            gpu: self.clone(),
            kernels: out,
            machine_code,
        }))
    }

    fn alloc(&self, bytes: usize) -> Result<BufferHandle, BackendError> {
        // Zeroed: kernels may read padding a view never wrote.
        let b = self.0.dev.alloc_zeroed(bytes).map_err(err)?;
        Ok(self.insert(b))
    }

    fn free(&self, buffer: BufferHandle) {
        lock(&self.0.memory).1.remove(&buffer.0);
    }

    unsafe fn borrow_device(&self, ptr: u64, bytes: usize) -> Option<BufferHandle> {
        // Kernels read and write 16 bytes at a time where an index is contiguous, which
        // needs every buffer 16-byte aligned: an address off that (a view into a tensor's
        // storage) is not borrowed, and the caller copies.
        if ptr == 0 || bytes == 0 || !ptr.is_multiple_of(16) {
            return None;
        }
        // SAFETY: the caller's promise (Backend::borrow_device).
        let b = unsafe { self.0.dev.borrow(ptr, bytes) };
        Some(self.insert(b))
    }

    unsafe fn use_stream(&self, stream: u64) -> Result<bool, BackendError> {
        // SAFETY: the caller's promise (Backend::use_stream).
        unsafe { self.0.dev.use_stream(stream) }.map_err(err)?;
        Ok(true)
    }

    fn write(&self, buffer: BufferHandle, bytes: &[u8]) -> Result<(), BackendError> {
        let mut mem = lock(&self.0.memory);
        let b = mem.1.get_mut(&buffer.0).ok_or_else(|| dead(buffer))?;
        self.0.dev.copy_to_device(bytes, b, 0).map_err(err)
    }

    fn read(&self, buffer: BufferHandle, out: &mut [u8]) -> Result<(), BackendError> {
        let mem = lock(&self.0.memory);
        let b = mem.1.get(&buffer.0).ok_or_else(|| dead(buffer))?;
        self.0.dev.copy_to_host(b, 0, out).map_err(err)
    }

    fn copy_buffer(
        &self,
        src: BufferHandle,
        src_offset: usize,
        dst: BufferHandle,
        bytes: usize,
    ) -> Result<bool, BackendError> {
        if src == dst {
            return Err(BackendError::Runtime(
                "a buffer copied onto itself (an output aliasing its source)".into(),
            ));
        }
        self.with_output(dst, |live, out| {
            let from = live.get(&src.0).ok_or_else(|| dead(src))?;
            self.0
                .dev
                .copy_device(from, src_offset, out, 0, bytes)
                .map_err(err)
        })?;
        Ok(true)
    }

    fn sgemm(
        &self,
        gemm: Gemm,
        (a, la): (BufferHandle, MatLayout),
        (b, lb): (BufferHandle, MatLayout),
        (c, lc): (BufferHandle, MatLayout),
    ) -> Result<(), BackendError> {
        self.with_output(c, |live, out| {
            let (Some(a), Some(b)) = (live.get(&a.0), live.get(&b.0)) else {
                return Err(BackendError::Runtime(
                    "a matmul operand is not a live buffer (or aliases the output)".into(),
                ));
            };
            self.0
                .dev
                .sgemm(gemm, (a, la), (b, lb), (out, lc))
                .map_err(err)
        })
    }

    fn sgemm_bias(
        &self,
        gemm: Gemm,
        (a, la): (BufferHandle, MatLayout),
        (b, lb): (BufferHandle, MatLayout),
        (c, lc): (BufferHandle, MatLayout),
        (bias, offset): (BufferHandle, usize),
    ) -> Result<bool, BackendError> {
        self.with_output(c, |live, out| {
            let (Some(a), Some(b), Some(bias)) =
                (live.get(&a.0), live.get(&b.0), live.get(&bias.0))
            else {
                return Err(BackendError::Runtime(
                    "a matmul operand or its bias is not a live buffer (or aliases the output)"
                        .into(),
                ));
            };
            self.0
                .dev
                .sgemm_bias(gemm, (a, la), (b, lb), (out, lc), (bias, offset))
                .map_err(err)
        })
    }

    fn has_convolution(&self) -> bool {
        crate::dnn::cudnn_present()
    }

    fn convolution(
        &self,
        conv: &coil_lower::ConvOp,
        call: &coil_codegen::ExternCall,
    ) -> Result<(), BackendError> {
        self.with_output(call.out.buffer, |live, out| {
            let x = conv_operand(live, &call.inputs[0])?;
            let w = conv_operand(live, &call.inputs[1])?;
            let bias = call
                .inputs
                .get(2)
                .map(|b| conv_operand(live, b))
                .transpose()?;
            self.0
                .dev
                .convolution(conv, x, w, bias, (out, &call.out.sizes))
                .map_err(err)
        })
    }

    fn synchronize(&self) -> Result<(), BackendError> {
        self.0.dev.synchronize().map_err(err)
    }

    fn gpu(&self) -> Option<&Gpu> {
        Some(self)
    }
}

impl Gpu {
    /// Runs `f` on the live buffers and `c`'s buffer, taken out of the table meanwhile (an
    /// external call writes it while reading the others; an operand that aliases it is then
    /// not live, and `f` says so).
    fn with_output<T>(
        &self,
        c: BufferHandle,
        f: impl FnOnce(
            &std::collections::HashMap<u64, crate::runtime::DeviceBuffer>,
            &mut crate::runtime::DeviceBuffer,
        ) -> Result<T, BackendError>,
    ) -> Result<T, BackendError> {
        let mut mem = lock(&self.0.memory);
        let mut out = mem.1.remove(&c.0).ok_or_else(|| dead(c))?;
        let result = f(&mem.1, &mut out);
        mem.1.insert(c.0, out);
        result
    }

    /// Adds a buffer to the memory table under a fresh handle.
    fn insert(&self, b: crate::runtime::DeviceBuffer) -> BufferHandle {
        let mut mem = lock(&self.0.memory);
        mem.0 += 1;
        let h = mem.0;
        mem.1.insert(h, b);
        BufferHandle(h)
    }
}

/// A convolution operand in `live` memory.
fn conv_operand<'a>(
    live: &'a std::collections::HashMap<u64, crate::runtime::DeviceBuffer>,
    o: &'a coil_codegen::StridedOperand,
) -> Result<crate::dnn::ConvOperand<'a>, BackendError> {
    live.get(&o.buffer.0)
        .map(|buffer| crate::dnn::ConvOperand {
            buffer,
            dtype: o.dtype,
            offset: o.offset,
            sizes: &o.sizes,
            strides: &o.strides,
        })
        .ok_or_else(|| {
            BackendError::Runtime(
                "a convolution operand is not a live buffer (or aliases the output)".into(),
            )
        })
}
