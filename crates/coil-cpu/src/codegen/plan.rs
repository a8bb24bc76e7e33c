//! A kernel's plan: everything the translator decides before it emits any IR (the launch
//! shape, the row cache, the pipelined late stage, the bounded `exp` stages and their extra
//! min accumulators, the next-row prefetch), computed once per kernel. The backend's
//! compile-cost estimate and the emitter both read this one plan, so the estimate counts the
//! code that is emitted.

use coil_codegen::{Kernel, KernelKind};
use coil_kernel::SizeParams;

use super::{
    CodegenOptions, HEAVY_STAGE_COST, LaunchShape, Prefetch, bounds, pipeline, plan_prefetch,
    rowcache,
};

/// What the translator decided for one kernel.
#[derive(Clone, Debug)]
pub struct KernelPlan {
    /// The kernel emitted: the input kernel, or its copy with the bounded `exp`'s extra min
    /// accumulators.
    pub(super) kernel: Kernel,
    /// f32 lanes of the vector loops.
    pub(super) width: u32,
    /// What a launch's `start..end` counts.
    pub(super) shape: LaunchShape,
    /// Values a later stage reloads from a row array instead of recomputing.
    pub(super) cached: Vec<rowcache::CachedValue>,
    /// The last stage run one row late inside the previous stage's loop.
    pub(super) pipeline: Option<pipeline::PipelinePlan>,
    /// Stages emitted twice, with and without `exp`'s range test, chosen per row.
    pub(super) row_bounds: Vec<bounds::BoundedStage>,
    /// The next row's loads prefetched during the last stage.
    pub(super) prefetch: Option<Prefetch>,
    /// A kernel generalized over sizes: which ranges, strides and offsets its launch gives.
    pub(super) size_params: Option<SizeParams>,
    /// Elements of a row-cache array where that is not the row's length (a generalized
    /// kernel's, [`ROW_CAPACITY`]).
    pub(super) row_capacity: Option<usize>,
}

/// Plans `kernel` for vector loops of `width` f32 lanes.
pub fn plan_kernel(kernel: &Kernel, options: &CodegenOptions, width: u32) -> KernelPlan {
    // The launch shape depends on the ranges only, which the bounded kernel shares.
    let shape = LaunchShape::of(kernel, width);
    // A scan visits its row in order, one element at a time: none of the row-level plans
    // (row cache, pipelined stage, bounded exp, prefetch) applies.
    if (0..kernel.stages.len()).any(|s| kernel.stage_scans(s)) {
        return KernelPlan {
            kernel: kernel.clone(),
            width,
            shape,
            cached: vec![],
            pipeline: None,
            row_bounds: vec![],
            prefetch: None,
            size_params: None,
            row_capacity: None,
        };
    }
    let cached = options
        .row_cache_min_cost
        .map(|min_cost| rowcache::plan(kernel, min_cost))
        .unwrap_or_default();
    // The pipelined late stage runs with the previous row's accumulators: never bounded. The
    // row cache and the pipeline plan the same on the bounded kernel (it only adds a min
    // accumulator to a max's stage).
    let pipeline = options
        .pipeline_rows
        .then(|| {
            pipeline::plan(
                kernel,
                &cached,
                HEAVY_STAGE_COST,
                rowcache::MAX_SCRATCH_BYTES,
            )
        })
        .flatten();
    let late: Vec<usize> = pipeline.iter().map(|p| p.late).collect();
    let (kernel, row_bounds, prefetch) = bounded_and_prefetch(kernel, options, &late, &cached);
    KernelPlan {
        kernel,
        width,
        shape,
        cached,
        pipeline,
        row_bounds,
        prefetch,
        size_params: None,
        row_capacity: None,
    }
}

/// Plans `kernel`, generalized over sizes with `params` (from
/// [`coil_kernel::size_params::generalize`]), or `None` where the translator cannot emit it
/// with sizes given at launch: a scan, an argmax or argmin, or an atomic add (their code
/// depends on the sizes); checked indices' sizes and floor divisions' divisors [`generalize`]
/// keeps fixed.
/// What the code holds must not depend on a size: a multi-range pointwise kernel's rows are
/// not cut into blocks, and the pipelined stage and the guarded max/min are left out. With
/// `row_cache`, a kernel of one reduction range keeps its row cache in arrays of
/// [`ROW_CAPACITY`] elements (so it serves rows of at most that many: [`KernelPlan::serves`]);
/// the bounded `exp` and the next row's prefetch need no length and stay.
///
/// [`generalize`]: coil_kernel::size_params::generalize
pub fn plan_general(
    kernel: &Kernel,
    params: SizeParams,
    options: &CodegenOptions,
    width: u32,
    row_cache: bool,
) -> Option<KernelPlan> {
    let ordered = (0..kernel.stages.len()).any(|s| kernel.stage_scans(s));
    let arg_reductions = kernel.stages.iter().flat_map(|s| &s.accumulators).any(|a| {
        matches!(
            a.reduction_type,
            coil_lower::ReductionType::Argmax | coil_lower::ReductionType::Argmin
        )
    });
    let atomic = kernel
        .stages
        .iter()
        .flat_map(|s| &s.stores)
        .any(|st| st.mode == coil_codegen::StoreMode::AtomicAdd);
    if ordered || arg_reductions || atomic {
        return None;
    }
    let shape = unblocked_shape(kernel, width);
    let cached = match options.row_cache_min_cost {
        Some(min_cost) if row_cache && kernel.reduction_ranges.len() == 1 => {
            rowcache::plan_rows(kernel, min_cost, ROW_CAPACITY)
        }
        _ => vec![],
    };
    let (kernel, row_bounds, prefetch) = bounded_and_prefetch(kernel, options, &[], &cached);
    Some(KernelPlan {
        row_capacity: (!cached.is_empty()).then_some(ROW_CAPACITY),
        kernel,
        width,
        shape,
        cached,
        pipeline: None,
        row_bounds,
        prefetch,
        size_params: Some(params),
    })
}

/// `k`'s launch shape with a multi-range pointwise kernel's rows never cut into blocks (one
/// outer iteration a row): a generalized kernel's code may not depend on the sizes that decide
/// the cut.
fn unblocked_shape(k: &Kernel, width: u32) -> LaunchShape {
    let mut shape = LaunchShape::of(k, width);
    if k.kind == KernelKind::Pointwise && !shape.flat {
        let inner = k.ranges.last().copied().unwrap_or(1);
        shape.outer = if k.numel() == 0 {
            0
        } else {
            k.numel() / inner.max(1)
        };
        shape.blocks = 1;
        shape.block_len = inner;
    }
    shape
}

/// The kernel emitted (`kernel`, or its copy with the bounded `exp`'s extra min accumulators),
/// its bounded stages (none among `late`, which runs with the previous row's accumulators),
/// and the next row's prefetch, as `options` ask.
fn bounded_and_prefetch(
    kernel: &Kernel,
    options: &CodegenOptions,
    late: &[usize],
    cached: &[rowcache::CachedValue],
) -> (Kernel, Vec<bounds::BoundedStage>, Option<Prefetch>) {
    let (bounded, row_bounds) = options
        .bounded_exp
        .then(|| bounds::plan(kernel, late))
        .flatten()
        .map_or((None, vec![]), |(k, b)| (Some(k), b));
    let kernel = bounded.unwrap_or_else(|| kernel.clone());
    let prefetch = if options.prefetch_next_row {
        plan_prefetch(&kernel, cached)
    } else {
        None
    };
    (kernel, row_bounds, prefetch)
}

/// The longest row a generalized kernel's row cache holds.
pub(crate) const ROW_CAPACITY: usize = 4096;

impl KernelPlan {
    /// A rough measure of the LLVM work the emitted kernel makes: each stage's per-element
    /// work as emitted (a transcendental, inlined vector math, counts 20; a value the row
    /// cache reloads counts 1) and a fixed amount per stage for its loops; a bounded stage is
    /// emitted twice and counts twice.
    pub fn compile_cost(&self) -> u64 {
        let stage = |s: usize| u64::from(rowcache::stage_cost(&self.kernel, s, &self.cached)) + 8;
        let twice: u64 = self.row_bounds.iter().map(|b| stage(b.stage)).sum();
        (0..self.kernel.stages.len()).map(stage).sum::<u64>() + twice
    }

    /// The kernel's launch shape.
    pub fn shape(&self) -> LaunchShape {
        self.shape
    }

    /// Whether this plan's code computes `k` (a kernel of its code bound to it): its rows fit
    /// the row cache's arrays.
    pub fn serves(&self, k: &Kernel) -> bool {
        self.row_capacity.is_none_or(|c| k.rnumel() <= c)
    }

    /// The launch shape of `k` (a kernel of this plan's code, at its own sizes) for this
    /// plan's code: a generalized kernel's rows are never cut into blocks.
    pub fn shape_of(&self, k: &Kernel) -> LaunchShape {
        if self.size_params.is_some() {
            unblocked_shape(k, self.width)
        } else {
            LaunchShape::of(k, self.width)
        }
    }
}
