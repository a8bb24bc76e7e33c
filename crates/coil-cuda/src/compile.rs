//! A compile on the GPU: each distinct kernel of a compile (twins of one code share one)
//! rendered into PTX on every core at once, under its plan or as a general kernel shared across
//! sizes ([`crate::families`]), then loaded by the backend's executor; and [`CudaKernels`], what
//! launches them.

use coil_codegen::{BackendError, BufferHandle, CompiledKernels, Kernel};

use crate::backend::CudaBackend;
use crate::error::CudaError;
use crate::exec::{LoadOptions, LoadedModule};
use crate::families::{self, Family, Job};
use crate::ptx::PtxModule;
use crate::render::{
    self, KernelPlan, LaunchArg, RenderedKernel, oriented, plan_kernel, render_planned,
    walk_backwards,
};

impl CudaBackend {
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
        let jobs: Vec<Job> = kernels.iter().map(|_| Job::Own(None)).collect();
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
        // `known`: the default plan, where the jobs made it already.
        let render = |k: &Kernel, reverse: bool, known: Option<KernelPlan>| {
            let default = || {
                let plan = known.unwrap_or_else(|| self.default_plan(k, reverse));
                render_planned(k, &self.caps, self.target, plan)
            };
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
                Job::Own(known) => render(k, backwards[i], *known).map(|r| (r, None)),
                Job::Bound(f, values) => Ok((bound(k, f, values), None)),
                Job::New(new) => match families::render_new(new, self.target) {
                    Ok(family) => Ok((bound(k, &family, &new.values), Some(family))),
                    Err(e) => {
                        tracing::debug!(target: "cuda", kernel = %k.name, %e, "not generalized");
                        render(k, backwards[i], Some(new.plan)).map(|r| (r, None))
                    }
                },
            }
        });
        // The general kernels whose entries the module holds already.
        let mut general = std::collections::HashSet::new();
        for ((k, r), job) in kernels.iter().zip(parts).zip(jobs) {
            let (r, new_family) = r.unwrap_or_else(|| {
                Err(CudaError::Codegen {
                    kernel: k.name.clone(),
                    reason: "rendering panicked".into(),
                })
            })?;
            if let (Some(family), Some(families), Job::New(new)) = (new_family, &self.families, job)
            {
                tracing::debug!(
                    target: "output_code",
                    "{} generalized over {} size parameters as {}",
                    k.name,
                    family.params.count,
                    family.name
                );
                families.add(new.key.clone(), family);
            }
            // A general kernel's entries appear once, however many kernels launch them.
            if !r.shared || general.insert(r.launches.first().map(|l| l.kernel.name().to_string()))
            {
                for l in &r.launches {
                    module.push(l.kernel.clone())?;
                }
            }
            rendered.push(r);
        }
        Ok((module, rendered))
    }

    /// How each of a compile's distinct kernels renders ([`families::jobs`]).
    fn size_jobs(&self, kernels: &[&Kernel], backwards: &[bool]) -> Vec<Job> {
        match &self.families {
            Some(families) if self.planner.is_none() && !self.every_kernel => {
                let target = self.target.sm_name();
                families::jobs(families, kernels, backwards, &target, &|k, reverse| {
                    self.default_plan(k, reverse)
                })
            }
            _ => kernels.iter().map(|_| Job::Own(None)).collect(),
        }
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
