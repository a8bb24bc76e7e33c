//! Machine code shared by every compile in the process, across sizes (issue "Dynamic
//! shapes"): one graph compiled for two batch sizes or two sequence lengths gives kernels that
//! mostly differ only in their outermost range and their buffers' lengths, and the translator's
//! code reads neither. A reduction's or a multi-range pointwise kernel's outer iteration
//! unflattens into its loop variables by the inner ranges alone (the outermost never takes a
//! remainder), a one-range pointwise kernel runs the elements `start..end` it is launched on
//! ([`LaunchShape::flat`]), and lengths only bound the run-time checks. The launch, not the
//! code, takes those sizes: it counts the outer iterations of the kernel at hand.
//!
//! So a compiled function serves every kernel with the same [`code_key`]: the kernel's code
//! with those sizes left out, and every decision the translator makes from a size (the launch
//! shape's row blocks and serial adds, which stores stream past the caches), and the set-up
//! that shapes the code (vector width, translator and LLVM options). The compile of a graph at
//! a new size then generates machine code only for the kernels whose code does change (an
//! attention's `[s, s]` scores), and each reused kernel runs exactly the code a compile of that
//! size alone would have made.
//!
//! A backend has one pool, shared by its clones; backends share one where their owner hands the
//! same [`CodePool`] to each ([`crate::CpuOptions::code_pool`]: the Python module's one for the
//! process). Entries hold their module alive; at most [`CAPACITY`] kernels are kept, the least
//! recently used going first (a module is freed with its last kernel, pooled or launched).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};

use coil_codegen::Kernel;

use crate::codegen::{CodegenOptions, LaunchShape};
use crate::{JitModule, JitOptions, KernelFn};

/// The most kernels the pool keeps.
pub const CAPACITY: usize = 4096;

/// One pooled kernel: its function and the module that holds it.
#[derive(Clone)]
pub(crate) struct Pooled {
    pub(crate) module: Arc<JitModule>,
    pub(crate) entry: KernelFn,
}

struct Entry {
    code: Pooled,
    used: u64,
}

#[derive(Default)]
struct Pool {
    entries: HashMap<String, Entry>,
    /// Generalized kernels by [`family_key`].
    families: HashMap<String, Vec<Arc<Family>>>,
    /// The first concrete kernel compiled of each [`family_key`]: what a second one of other
    /// sizes is generalized with.
    representatives: HashMap<String, Kernel>,
    clock: u64,
}

/// The most generalized kernels kept of one code.
const FAMILIES_PER_KEY: usize = 4;

/// Compiled kernels kept for later compiles, by what their code depends on.
#[derive(Default)]
pub struct CodePool(Mutex<Pool>);

impl std::fmt::Debug for CodePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CodePool({} kernels)", self.len())
    }
}

/// What a kernel's compiled function depends on, as text: see the module's documentation.
pub(crate) fn code_key(
    k: &Kernel,
    shape: &LaunchShape,
    width: u32,
    codegen: &CodegenOptions,
    jit: &JitOptions,
) -> String {
    let mut sizeless = k.clone();
    sizeless.name.clear();
    if let Some(outer) = sizeless.ranges.first_mut() {
        *outer = 0;
    }
    for a in &mut sizeless.args {
        a.name.clear();
        a.len = 0;
    }
    format!(
        "{sizeless}\n{}",
        code_decisions(k, shape, width, codegen, jit)
    )
}

/// The key of the generalized kernels `k` may be bound to ([`coil_kernel::size_params`]):
/// its code with every range, stride and offset left out, and the set-up that shapes the
/// code.
pub(crate) fn family_key(
    k: &Kernel,
    width: u32,
    codegen: &CodegenOptions,
    jit: &JitOptions,
) -> String {
    let key = coil_kernel::size_params::structure_key(k);
    format!("{key}\nwidth {width}; {codegen:?}; {jit:?}")
}

/// The decisions the translator makes from `k`'s sizes, and the set-up that shapes its code.
fn code_decisions(
    k: &Kernel,
    shape: &LaunchShape,
    width: u32,
    codegen: &CodegenOptions,
    jit: &JitOptions,
) -> String {
    let mut key = String::new();
    let streams: Vec<bool> = k
        .args
        .iter()
        .map(|a| {
            codegen
                .streaming_store_min_bytes
                .is_some_and(|min| a.len * a.dtype.itemsize() >= min)
        })
        .collect();
    // A multi-range pointwise kernel's rows are cut into blocks: the code has their number and
    // length. A reduction's or a flat kernel's code has no launch-shape number.
    let shape_part = if shape.flat || k.kind != coil_codegen::KernelKind::Pointwise {
        String::new()
    } else {
        format!("blocks {} of {}", shape.blocks, shape.block_len)
    };
    let _ = write!(
        key,
        "{shape_part}; serial {}; streams {streams:?}; width {width}; {codegen:?}; {jit:?}",
        shape.serial
    );
    key
}

/// A generalized kernel's compiled code: the kernel (its size parameters in place of the
/// integers in which two kernels of its code differed), which of them are parameters, and its
/// function.
pub(crate) struct Family {
    pub(crate) kernel: Kernel,
    pub(crate) params: coil_kernel::SizeParams,
    /// Whether its plan keeps a row cache ([`crate::plan_general`]).
    pub(crate) row_cache: bool,
    pub(crate) code: Pooled,
}

impl CodePool {
    /// An empty pool.
    pub fn new() -> CodePool {
        CodePool::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pool> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The pooled function of `key`, if any.
    pub(crate) fn find(&self, key: &str) -> Option<Pooled> {
        let mut pool = self.lock();
        pool.clock += 1;
        let now = pool.clock;
        let entry = pool.entries.get_mut(key)?;
        entry.used = now;
        Some(entry.code.clone())
    }

    /// Pools `code` under `key`, dropping the least recently used kernels beyond [`CAPACITY`].
    pub(crate) fn insert(&self, key: String, code: Pooled) {
        let mut pool = self.lock();
        pool.clock += 1;
        let used = pool.clock;
        pool.entries.insert(key, Entry { code, used });
        if pool.entries.len() > CAPACITY {
            let mut ages: Vec<(u64, String)> = pool
                .entries
                .iter()
                .map(|(k, e)| (e.used, k.clone()))
                .collect();
            ages.sort_unstable();
            let excess = pool.entries.len() - CAPACITY;
            for (_, k) in ages.into_iter().take(excess) {
                pool.entries.remove(&k);
            }
        }
    }

    /// The generalized kernels of `key`.
    pub(crate) fn families(&self, key: &str) -> Vec<Arc<Family>> {
        self.lock().families.get(key).cloned().unwrap_or_default()
    }

    /// Keeps a generalized kernel under `key` (the oldest of the key's going past
    /// [`FAMILIES_PER_KEY`]).
    pub(crate) fn add_family(&self, key: String, family: Arc<Family>) {
        let mut pool = self.lock();
        let list = pool.families.entry(key).or_default();
        list.push(family);
        if list.len() > FAMILIES_PER_KEY {
            list.remove(0);
        }
        if pool.families.len() > CAPACITY {
            pool.families.clear();
        }
    }

    /// The first concrete kernel of `key` an earlier compile made, if any.
    pub(crate) fn representative(&self, key: &str) -> Option<Kernel> {
        self.lock().representatives.get(key).cloned()
    }

    /// Makes `k` the representative of `key`, where there is none yet.
    pub(crate) fn offer_representative(&self, key: String, k: &Kernel) {
        let mut pool = self.lock();
        if pool.representatives.len() >= CAPACITY {
            pool.representatives.clear();
        }
        pool.representatives.entry(key).or_insert_with(|| k.clone());
    }

    /// Kernels in the pool now.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether the pool holds no kernel.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
