//! Kernels shared across sizes on the GPU (issue "Dynamic shapes"): one graph compiled for
//! two batch sizes or sequence lengths gives kernels that mostly differ only in their
//! outermost range and in a few strides and offsets. The first compile offers each kernel as
//! its code's representative; a later compile whose kernel of the same code and plan differs
//! in those integers generalizes the pair ([`coil_kernel::size_params::generalize`]) and renders
//! the general kernel once ([`crate::render::render_general`]: the integers that differ are
//! `.s64` parameters); every compile after binds its kernel to it
//! ([`coil_kernel::size_params::bind`]) and launches the same entries with its own values and
//! grid. A general kernel's entries are a PTX module of their own whose text does not change
//! with the size, so its machine code comes from the process's cubins (or the persistent
//! cache) instead of the PTX JIT.
//!
//! Only the outermost range may be a parameter: a kernel's plan (lanes, a persistent row's
//! threads, split or not) follows from its inner and reduction ranges, which stay fixed, and
//! the family's key holds the plan, so a kernel binds only where it would have been planned
//! the same on its own. A kernel whose size is a reduction's length or an inner range (an
//! attention's `[s, s]` scores) compiles its own code at each size.
//!
//! A [`SizeFamilies`] is shared by a backend's clones; the Python module hands one to every
//! compile of the process ([`crate::CudaBackend::with_size_families`]).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError};

use coil_codegen::Kernel;
use coil_kernel::SizeParams;

use crate::ptx::PtxKernel;
use crate::render::{KernelPlan, Strategy};

/// How a general kernel's entry name starts (the JIT keeps their cubins for the process).
pub(crate) const ENTRY_PREFIX: &str = "cuda_general_";

/// The most general kernels kept of one code and plan.
const PER_KEY: usize = 4;
/// The most keys kept (families or representatives); past it the map starts again.
const CAPACITY: usize = 4096;

/// A general kernel: the kernel with size parameters, its plan, and its rendered entries.
pub(crate) struct Family {
    pub(crate) kernel: Kernel,
    pub(crate) params: SizeParams,
    pub(crate) plan: KernelPlan,
    pub(crate) name: String,
    pub(crate) entries: Vec<PtxKernel>,
    /// The largest outer extent its indices serve ([`crate::render::general_outer_end`]).
    pub(crate) outer_end: usize,
}

#[derive(Default)]
struct State {
    families: HashMap<String, Vec<Arc<Family>>>,
    representatives: HashMap<String, Kernel>,
}

/// The general kernels of a process's compiles, and the first kernel of each code and plan.
#[derive(Default)]
pub struct SizeFamilies(Mutex<State>);

impl std::fmt::Debug for SizeFamilies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SizeFamilies({} general kernels)", self.len())
    }
}

/// Whether a kernel under `plan` may share code across sizes (a split reduction's grid and
/// scratch follow its row count inside the code).
pub(crate) fn shareable(plan: &KernelPlan) -> bool {
    !matches!(plan.strategy, Strategy::Split { .. })
}

/// The key kernels of one code and plan share whatever their sizes.
pub(crate) fn key(k: &Kernel, plan: &KernelPlan, target: &str) -> String {
    format!(
        "{}\n{plan:?}\n{target}",
        coil_kernel::size_params::structure_key(k)
    )
}

/// The entry name of a general kernel: the same text gives the same name in every process.
pub(crate) fn entry_name(key: &str, general: &Kernel, params: &SizeParams) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    general.to_string().hash(&mut h);
    format!("{params:?}").hash(&mut h);
    format!("{ENTRY_PREFIX}{:016x}", h.finish())
}

impl SizeFamilies {
    /// None yet.
    pub fn new() -> SizeFamilies {
        SizeFamilies::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A general kernel of `key` that computes `k`, and the values its parameters take.
    pub(crate) fn find(&self, key: &str, k: &Kernel) -> Option<(Arc<Family>, Vec<i64>)> {
        let families = self.lock().families.get(key).cloned()?;
        families.into_iter().find_map(|f| {
            if k.numel() > f.outer_end {
                return None;
            }
            let values = coil_kernel::size_params::bind(&f.kernel, &f.params, k)?;
            Some((f, values))
        })
    }

    /// Keeps a general kernel under `key` (the oldest of the key's going past [`PER_KEY`]).
    pub(crate) fn add(&self, key: String, family: Arc<Family>) {
        let mut state = self.lock();
        if state.families.len() >= CAPACITY {
            state.families.clear();
        }
        let list = state.families.entry(key).or_default();
        list.push(family);
        if list.len() > PER_KEY {
            list.remove(0);
        }
    }

    /// The first kernel of `key` an earlier compile made, if any.
    pub(crate) fn representative(&self, key: &str) -> Option<Kernel> {
        self.lock().representatives.get(key).cloned()
    }

    /// Makes `k` the representative of `key`, where there is none yet.
    pub(crate) fn offer_representative(&self, key: String, k: &Kernel) {
        let mut state = self.lock();
        if state.representatives.len() >= CAPACITY {
            state.representatives.clear();
        }
        state
            .representatives
            .entry(key)
            .or_insert_with(|| k.clone());
    }

    /// General kernels kept now.
    pub fn len(&self) -> usize {
        self.lock().families.values().map(Vec::len).sum()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// How one distinct kernel of a compile renders.
pub(crate) enum Job {
    /// Its own code: under this plan where the jobs chose it already, else as the backend
    /// plans it.
    Own(Option<KernelPlan>),
    /// A general kernel's entries, its parameters taking these values.
    Bound(Arc<Family>, Vec<i64>),
    /// A general kernel made now from it and an earlier compile's kernel of its code.
    New(Box<NewFamily>),
}

/// A general kernel to render: its key, the kernel, its parameters and plan, and the values
/// that make it compute the kernel at hand.
pub(crate) struct NewFamily {
    pub(crate) key: String,
    general: Kernel,
    params: SizeParams,
    pub(crate) plan: KernelPlan,
    pub(crate) values: Vec<i64>,
}

/// How each of a compile's distinct `kernels` renders (each walking backwards where
/// `backwards` says, planned by `plan`): launching a general kernel of its code and plan that
/// an earlier compile made, a general kernel made now with the kernel of its code an earlier
/// compile offered, or its own code (then offered to later compiles). Generalized with an
/// earlier compile's kernel only: within one compile, kernels of one code at different sizes
/// (a network's stages) keep their own code.
pub(crate) fn jobs(
    families: &SizeFamilies,
    kernels: &[&Kernel],
    backwards: &[bool],
    target: &str,
    plan: &dyn Fn(&Kernel, bool) -> KernelPlan,
) -> Vec<Job> {
    let mut offers = Vec::new();
    let jobs = kernels
        .iter()
        .zip(backwards)
        .map(|(k, &reverse)| {
            let plan = plan(k, reverse);
            if !shareable(&plan) || k.numel() == 0 {
                return Job::Own(Some(plan));
            }
            let key = key(k, &plan, target);
            if let Some((f, values)) = families.find(&key, k) {
                return Job::Bound(f, values);
            }
            let Some(first) = families.representative(&key) else {
                offers.push((key, *k));
                return Job::Own(Some(plan));
            };
            let Some((general, params)) = coil_kernel::size_params::generalize(&first, k) else {
                return Job::Own(Some(plan));
            };
            if !crate::render::outer_only(&general, &params) {
                return Job::Own(Some(plan));
            }
            match coil_kernel::size_params::bind(&general, &params, k) {
                Some(values) => Job::New(Box::new(NewFamily {
                    key,
                    general,
                    params,
                    plan,
                    values,
                })),
                None => Job::Own(Some(plan)),
            }
        })
        .collect();
    for (key, k) in offers {
        families.offer_representative(key, k);
    }
    jobs
}

/// Renders a general kernel ([`crate::render::render_general`]).
pub(crate) fn render_new(
    new: &NewFamily,
    target: crate::PtxTarget,
) -> Result<Arc<Family>, crate::CudaError> {
    let name = entry_name(&new.key, &new.general, &new.params);
    let entries =
        crate::render::render_general(&new.general, &new.params, &name, target, new.plan)?;
    Ok(Arc::new(Family {
        kernel: new.general.clone(),
        params: new.params.clone(),
        plan: new.plan,
        name,
        entries,
        outer_end: crate::render::general_outer_end(&new.general, new.plan.wide_indices),
    }))
}
