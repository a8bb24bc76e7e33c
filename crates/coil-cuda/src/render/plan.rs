//! The plan of a kernel, decided before any PTX is emitted: its [`Strategy`] (pointwise,
//! persistent, looped or split reduction) with lanes, unroll, block and grid, the candidates
//! autotuning times, and which kernels walk backwards into what L2 holds. Emission reads the
//! plan and decides nothing of its own.

use super::*;

/// How a kernel runs on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// A grid-stride loop over `numel` in chunks of `lanes` (8, 4 or 1: [`chunk_lanes`]) elements, `unroll`
    /// chunks (a grid apart, so each load instruction stays coalesced) per thread and
    /// iteration.
    Pointwise {
        /// Elements per chunk.
        lanes: u32,
        /// Chunks per thread and iteration.
        unroll: u32,
        /// Walk the elements from the last to the first ([`walk_backwards`]).
        reverse: bool,
        /// A grid that covers every element, so each thread runs the loop once (as Triton
        /// launches pointwise kernels; the block scheduler then balances the SMs), instead of
        /// as many blocks as the SMs hold at once.
        one_pass: bool,
    },
    /// The row held in registers: `row_threads` threads per row (32: a warp), each holding
    /// `chunks` chunks of `lanes` elements.
    Persistent {
        /// Elements per chunk (4 when rows are 16-byte aligned, else 1).
        lanes: u32,
        /// Threads per row: 32 (a warp per row, several rows per block) or the block.
        row_threads: u32,
        /// Chunks per thread.
        chunks: u32,
        /// Load the next row's slices (of the inputs that move along rows) while this row
        /// is reduced: one row's loads in flight across every barrier and reduction of the
        /// row before, at the price of a second set of packed registers.
        prefetch: bool,
    },
    /// One block per row, each stage a loop over the row.
    Looped {
        /// Elements per chunk.
        lanes: u32,
        /// Chunks per loop iteration.
        unroll: u32,
    },
    /// `parts` blocks per row write partial accumulators; a second kernel finishes.
    Split {
        /// Elements per chunk.
        lanes: u32,
        /// Chunks per loop iteration.
        unroll: u32,
        /// Blocks (slices) per row.
        parts: u32,
        /// One entry: the block that finishes a row's partials last (an atomic counter per
        /// row says which) combines them and runs the outer stages, instead of a second
        /// kernel doing it.
        fused: bool,
    },
}

impl Strategy {
    /// A short name for reports: `pointwise`, `persistent`, `looped`, `split`.
    pub fn name(&self) -> &'static str {
        match self {
            Strategy::Pointwise { .. } => "pointwise",
            Strategy::Persistent { .. } => "persistent",
            Strategy::Looped { .. } => "looped",
            Strategy::Split { .. } => "split",
        }
    }
}

/// How a kernel is rendered: its strategy, threads per block, and whether index arithmetic
/// is 64-bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelPlan {
    /// The strategy.
    pub strategy: Strategy,
    /// Threads per block of the (first) entry.
    pub block: u32,
    /// 64-bit index arithmetic (needed when some index may pass 2^31; allowed always).
    pub wide_indices: bool,
    /// Blocks each SM should hold at once (`.minnctapersm`: ptxas limits registers to fit);
    /// 0 leaves ptxas free.
    pub min_blocks_per_sm: u32,
    /// The relaxed float math of kernels whose every kept result is rounded to a 16-bit float
    /// at its store ([`only_16_bit_results`]), where each error below stays far under half a
    /// 16-bit ulp (2^-9 relative for bf16, 2^-12 for f16) while the kernel, at half the bytes
    /// of f32, is often bound by its arithmetic (softmax): `exp` as `ex2.approx(x · log2 e)`
    /// (two instructions, relative error below 2^-17, instead of the math library's routine of
    /// about twenty; Inductor's Triton kernels take the same fast `exp`), and a division of a
    /// row's slots by one value of the row as a multiplication by its correctly rounded
    /// reciprocal (at most 1.5 f32 ulps; Triton's own f32 division is `div.full`, 2 ulps), taken
    /// once per row instead of a full division per element; `sin` and `cos` reduce their
    /// argument with two parts of π/2 instead of three (below 4e-10 absolute).
    pub fast_math: bool,
}

/// Whether every value `k` writes is a 16-bit float rounded once at its store: each store is
/// to a 16-bit float buffer, and no value is rounded to 16 bits elsewhere in the kernel (as
/// `emulate_precision_casts` or an explicit cast between ops does: results eager's
/// roundings must reproduce bit for bit).
pub fn only_16_bit_results(k: &Kernel) -> bool {
    let mut stores = k.stages.iter().flat_map(|s| &s.stores).peekable();
    if stores.peek().is_none()
        || !stores.all(|st| k.args[st.arg.0 as usize].dtype.is_16_bit_float())
    {
        return false;
    }
    let rounds =
        |v: ValueId| matches!(k.values[v.0 as usize], (KExpr::Cast(_), d) if d.is_16_bit_float());
    // A 16-bit rounding that anything but a store reads (an op, an accumulator).
    let read_by_values = k
        .values
        .iter()
        .any(|(e, _)| e.operands().into_iter().any(rounds));
    let read_by_accumulators = k
        .stages
        .iter()
        .flat_map(|s| &s.accumulators)
        .any(|a| rounds(a.value));
    !read_by_values && !read_by_accumulators
}

/// Pointwise kernels reading more buffers than this take one chunk a thread, not two.
pub(crate) const POINTWISE_UNROLL_MAX_INPUTS: usize = 8;

/// The plan for `k` on a device with `caps`.
pub fn plan_kernel(k: &Kernel, caps: &GpuCaps) -> KernelPlan {
    let (strategy, block) = choose_strategy(k, caps);
    // Persistent rows: half the SM's threads at least (at most 64 registers a thread).
    let min_blocks_per_sm = match strategy {
        Strategy::Persistent { .. } => (caps.max_threads_per_sm / 2 / block).max(1),
        _ => 0,
    };
    KernelPlan {
        strategy,
        block,
        wide_indices: needs_wide_indices(k),
        min_blocks_per_sm,
        fast_math: only_16_bit_results(k),
    }
}

/// For each kernel of `kernels` (in launch order), whether it walks its elements backwards:
/// a pointwise kernel does when the kernel launched before it read one of its inputs, a
/// buffer larger than half the L2 cache, front to back, so what is left of it in L2 is its
/// end. Walking back from the end, the kernel finds that part there instead of evicting it
/// while it reads the start (`wall`: the global mean reads x, then `relu(x - mean)` reads it
/// again). A pointwise kernel that itself walked backwards left the start of its inputs in
/// L2, so the one after it walks forwards. One pass over the launch order.
pub fn walk_backwards(kernels: &[Kernel], caps: &GpuCaps) -> Vec<bool> {
    let reads = |k: &Kernel, name: &str| {
        k.args
            .iter()
            .any(|a| a.name == name && a.role != ArgRole::Output)
    };
    let mut backwards: Vec<bool> = Vec::with_capacity(kernels.len());
    for (i, k) in kernels.iter().enumerate() {
        let after = match i.checked_sub(1) {
            Some(j) if !backwards[j] => {
                let prev = &kernels[j];
                k.reduction_ranges.is_empty()
                    && k.args.iter().any(|a| {
                        a.role != ArgRole::Output
                            && (a.len * a.dtype.itemsize()) as u64 > caps.l2_bytes / 2
                            && reads(prev, &a.name)
                    })
            }
            _ => false,
        };
        backwards.push(after);
    }
    backwards
}

/// `plan` walking backwards when `reverse` (pointwise plans only; others are unchanged).
pub fn oriented(mut plan: KernelPlan, reverse: bool) -> KernelPlan {
    if let Strategy::Pointwise { reverse: r, .. } = &mut plan.strategy {
        *r = reverse;
    }
    plan
}

/// Kernels over fewer elements (iterations times reduction length) than this have one
/// plan, the default ([`candidate_plans`]).
pub const MIN_TUNED_ELEMENTS: usize = 1 << 13;

/// Plans worth timing against each other for `k` on the device (autotuning, as Inductor's
/// reduction heuristics hand Triton several configs to benchmark at the first call; only for
/// idempotent kernels, [`Kernel::is_idempotent`], since each is timed on the real buffers):
/// the default first, then, for pointwise kernels of a million elements or more, one chunk per
/// thread and iteration, and guaranteed residency (eight or four blocks an SM); for split
/// reductions, four chunks per thread and iteration, or sixteen times the parts; for
/// reductions over rows longer than a warp holds, looped reductions of [`LOOPED_BLOCK`]
/// threads (two or four chunks per iteration) and persistent rows of 256 threads (four
/// blocks an SM) when the row fits their registers. Which of these wins depends on how much
/// work sits between a row's loads and its stores (measured on an H200: softmax is fastest
/// with 256-thread rows, seed_model looped), which the plan cannot see in advance.
pub fn candidate_plans(k: &Kernel, caps: &GpuCaps) -> Vec<KernelPlan> {
    let default = plan_kernel(k, caps);
    let mut plans = vec![default];
    // Timing runs a candidate on the real buffers: only where running it again is harmless.
    if scans(k) || !k.is_idempotent() {
        return plans;
    }
    let rnumel = k.rnumel();
    // A kernel over fewer elements than this is a launch's few microseconds under any plan:
    // timing others gains nothing, while rendering and compiling them cost the compile (a
    // 1,000-op chain of [64, 64] softmaxes: 157 candidate modules to turn into machine code).
    if k.numel().saturating_mul(rnumel.max(1)) < MIN_TUNED_ELEMENTS {
        return plans;
    }
    if let Strategy::Pointwise {
        lanes,
        unroll,
        reverse,
        ..
    } = default.strategy
    {
        // Big pointwise kernels: one chunk a thread and iteration against the default two
        // (fewer live registers, where the kernel's math is long); a grid covering every
        // element (each thread one pass, with one or two chunks); and the default with every
        // block resident at once guaranteed (registers capped for eight blocks an SM, or
        // four blocks with more registers), the grid sized to match.
        if k.numel() >= 1 << 20 {
            let pointwise = |unroll, one_pass| KernelPlan {
                strategy: Strategy::Pointwise {
                    lanes,
                    unroll,
                    reverse,
                    one_pass,
                },
                ..default
            };
            if unroll != 1 {
                plans.push(pointwise(1, false));
            }
            plans.push(pointwise(unroll, true));
            if unroll != 1 {
                plans.push(pointwise(1, true));
            }
            let full = (caps.max_threads_per_sm / default.block).max(1);
            for blocks in [full, full / 2] {
                if blocks > 0 {
                    plans.push(KernelPlan {
                        min_blocks_per_sm: blocks,
                        ..default
                    });
                }
            }
        }
        return dedup(plans);
    }
    if let Strategy::Split {
        lanes,
        unroll,
        parts,
        ..
    } = default.strategy
    {
        // Four chunks in flight a thread instead of two; one launch instead of two; and sixteen
        // times the parts (short parts, as many blocks as a row reduction of the same bytes,
        // in many waves so that no SM idles at the end).
        plans.push(KernelPlan {
            strategy: Strategy::Split {
                lanes,
                unroll: 4,
                parts,
                fused: false,
            },
            ..default
        });
        // The partials combined by the last block to finish: one launch, no second kernel.
        plans.push(KernelPlan {
            strategy: Strategy::Split {
                lanes,
                unroll,
                parts,
                fused: true,
            },
            ..default
        });
        if let Some(Strategy::Split { lanes, parts, .. }) = split_strategy(k, caps, 64) {
            // Short parts read like the rows of a row reduction: every chunk of a thread's
            // part in flight at once (four chunks of two loop steps' worth), finished by the
            // last block.
            plans.push(KernelPlan {
                strategy: Strategy::Split {
                    lanes,
                    unroll: 4,
                    parts,
                    fused: true,
                },
                ..default
            });
        }
        return dedup(plans);
    }
    // Any persistent plan, with the next row's loads in flight during this row's reduction.
    if let Strategy::Persistent {
        lanes,
        row_threads,
        chunks,
        prefetch: false,
    } = default.strategy
    {
        plans.push(KernelPlan {
            strategy: Strategy::Persistent {
                lanes,
                row_threads,
                chunks,
                prefetch: true,
            },
            ..default
        });
    }
    if rnumel <= WARP_ROW_LIMIT {
        return plans;
    }
    let lanes = chunk_lanes(k, rnumel);
    for unroll in [2, 4] {
        plans.push(KernelPlan {
            strategy: Strategy::Looped { lanes, unroll },
            block: LOOPED_BLOCK,
            min_blocks_per_sm: 0,
            ..default
        });
    }
    let threads = 256u32;
    let chunks = rnumel.div_ceil((threads * lanes) as usize);
    if rnumel <= PERSISTENT_RNUMEL_LIMIT
        && held_loads(k) * chunks * lanes as usize <= HELD_REGISTER_BUDGET
    {
        for prefetch in [false, true] {
            plans.push(KernelPlan {
                strategy: Strategy::Persistent {
                    lanes,
                    row_threads: threads,
                    chunks: chunks as u32,
                    prefetch,
                },
                block: threads,
                min_blocks_per_sm: (caps.max_threads_per_sm / 2 / threads).max(1),
                ..default
            });
        }
    }
    dedup(plans)
}

/// Elements a thread takes per chunk along an extent of `extent`: eight where the kernel's
/// buffers hold 16-bit floats and nothing wider (one 128-bit access holds eight), four
/// otherwise (one 128-bit access of 4-byte elements), one where `extent` does not divide.
pub fn chunk_lanes(k: &Kernel, extent: usize) -> u32 {
    let sixteen_bit = k.args.iter().any(|a| a.dtype.is_16_bit_float())
        && k.args.iter().all(|a| a.dtype.itemsize() <= 2);
    if sixteen_bit && extent.is_multiple_of(8) {
        8
    } else if extent.is_multiple_of(4) {
        4
    } else {
        1
    }
}

pub(super) fn dedup(plans: Vec<KernelPlan>) -> Vec<KernelPlan> {
    let mut unique: Vec<KernelPlan> = Vec::with_capacity(plans.len());
    for p in plans {
        if !unique.contains(&p) {
            unique.push(p);
        }
    }
    unique
}

pub(super) fn choose_strategy(k: &Kernel, caps: &GpuCaps) -> (Strategy, u32) {
    let numel = k.numel();
    let rnumel = k.rnumel();
    if k.reduction_ranges.is_empty() {
        let lanes = chunk_lanes(k, numel);
        // As for rows (below): 16-bit kernels none of whose loads is a 128-bit access (an
        // im2col gather, a pooling window) take four lanes; their stores stay vectors (8
        // bytes).
        let lanes = if lanes == 8 && !reads_a_vector(k, outer_var(), 8) {
            4
        } else {
            lanes
        };
        // Two chunks a thread, unless the kernel reads many buffers: ptxas spills two chunks
        // of such a body (resnet18's bf16 batch norms of a residual pair read ten buffers and
        // kept 64 registers, spilling 8 bytes).
        let inputs = k.args.iter().filter(|a| a.role != ArgRole::Output).count();
        let unroll = if inputs > POINTWISE_UNROLL_MAX_INPUTS {
            1
        } else {
            2
        };
        return (
            Strategy::Pointwise {
                lanes,
                unroll,
                reverse: false,
                one_pass: false,
            },
            POINTWISE_BLOCK,
        );
    }
    if scans(k) || rnumel == 0 {
        // A block per row, one element per thread and tile, the tiles in order (and rows of
        // no elements, whose loop runs no tile: the accumulators keep their identities).
        let threads = rnumel.next_multiple_of(32).clamp(32, LOOPED_BLOCK as usize) as u32;
        return (
            Strategy::Looped {
                lanes: 1,
                unroll: 1,
            },
            threads,
        );
    }
    let lanes = chunk_lanes(k, rnumel);
    // 16-bit rows that no load reads contiguously along the row (a window's taps, a strided
    // view) take four lanes, as f32 rows do: eight lanes of such rows are eight scalar loads
    // each, with no 128-bit access to gain, and doubled the code of timm_convnext_atto's bf16
    // head (a mean over 2x2 windows and a layer norm: 5,172 PTX lines, 865 ms in ptxas).
    let lanes =
        if lanes == 8 && row_loads(k).all(|(_, _, flat)| flat.coefficient(reduction_var()) != 1) {
            4
        } else {
            lanes
        };
    let held = held_loads(k);
    let fits = |threads: usize, chunks: usize| {
        held * chunks * lanes as usize <= HELD_REGISTER_BUDGET
            && threads * chunks * (lanes as usize) >= rnumel
    };
    if rnumel > 0 && rnumel <= WARP_ROW_LIMIT {
        let chunks = rnumel.div_ceil(32 * lanes as usize);
        if fits(32, chunks) {
            let rows_per_block = numel.clamp(1, 8) as u32;
            return (
                Strategy::Persistent {
                    lanes,
                    row_threads: 32,
                    chunks: chunks as u32,
                    prefetch: false,
                },
                32 * rows_per_block,
            );
        }
    }
    if rnumel > 0 && rnumel <= PERSISTENT_RNUMEL_LIMIT {
        // 8 values per thread for short rows, 16 for long ones: blocks of at most 512 threads
        // up to rows of 8192, so that two or more blocks share an SM and one block's loads
        // overlap another's reduction.
        let per_thread = if rnumel >= 4096 { 16 } else { 8 };
        let threads = rnumel
            .div_ceil(per_thread)
            .next_multiple_of(32)
            .clamp(64, 1024);
        let chunks = rnumel.div_ceil(threads * lanes as usize);
        if fits(threads, chunks) {
            return (
                Strategy::Persistent {
                    lanes,
                    row_threads: threads as u32,
                    chunks: chunks as u32,
                    prefetch: false,
                },
                threads as u32,
            );
        }
    }
    if let Some(split) = split_strategy(k, caps, 4) {
        return (split, LOOPED_BLOCK);
    }
    (Strategy::Looped { lanes, unroll: 2 }, LOOPED_BLOCK)
}

/// A split reduction for a kernel with too few rows to fill the GPU (one reduction stage, then
/// outer stages): about `blocks_per_sm` blocks of [`LOOPED_BLOCK`] threads an SM over all
/// rows, each part at least two loop steps long; `None` when the kernel does not qualify.
pub(super) fn split_strategy(k: &Kernel, caps: &GpuCaps, blocks_per_sm: usize) -> Option<Strategy> {
    let numel = k.numel();
    let rnumel = k.rnumel();
    let lanes = chunk_lanes(k, rnumel);
    let unroll = 2;
    let step = (LOOPED_BLOCK * lanes * unroll) as usize;
    let splittable = matches!(k.stages.first(), Some(s) if s.kind == StageKind::Reduction)
        && k.stages[1..].iter().all(|s| s.kind == StageKind::Outer);
    if !(splittable && numel > 0 && numel < caps.sm_count as usize && rnumel >= 4 * step) {
        return None;
    }
    let want = (blocks_per_sm * caps.sm_count as usize).div_ceil(numel.max(1));
    let most = rnumel / (2 * step);
    let parts = want.clamp(2, most.max(2));
    let span = rnumel.div_ceil(parts).next_multiple_of(step);
    let parts = rnumel.div_ceil(span) as u32;
    (parts >= 2).then_some(Strategy::Split {
        lanes,
        unroll,
        parts,
        fused: false,
    })
}

/// Whether some load of `k` is a vector access of `width` lanes along `x` (its flat index).
fn reads_a_vector(k: &Kernel, x: coil_lower::Var, width: u32) -> bool {
    k.stages
        .iter()
        .flat_map(|s| s.values.iter())
        .any(|&v| match k.expr(v) {
            KExpr::Load { arg, index, .. } => {
                let flat = flatten(k, index);
                let mem = k.args[arg.0 as usize].dtype;
                super::vector_access(lane_shape(&flat, x, i64::from(width)), width as usize, mem)
            }
            _ => false,
        })
}

/// Whether some stage of `k` scans: such kernels run looped, one element per thread.
pub(crate) fn scans(k: &Kernel) -> bool {
    (0..k.stages.len()).any(|s| k.stage_scans(s))
}

/// The loads of `k`'s reduction stages that move along the row and differ between rows, each
/// with its value and its flat index (repeats included): what a persistent reduction holds
/// per element, and what a prefetching one loads a row ahead.
pub(super) fn row_loads(k: &Kernel) -> impl Iterator<Item = (ValueId, ArgId, IndexExpr)> + '_ {
    let (r, o) = (reduction_var(), outer_var());
    k.stages
        .iter()
        .filter(|s| s.kind == StageKind::Reduction)
        .flat_map(|s| s.values.iter().copied())
        .filter_map(move |v| match k.expr(v) {
            KExpr::Load { arg, index, .. } => {
                let flat = flatten(k, index);
                (flat.contains_var(r) && flat.contains_var(o)).then_some((v, *arg, flat))
            }
            _ => None,
        })
}

/// Distinct loads (buffer, index) of [`row_loads`]: what a persistent reduction holds per
/// element.
pub(super) fn held_loads(k: &Kernel) -> usize {
    let mut seen: Vec<(ArgId, IndexExpr)> = Vec::new();
    for (_, arg, flat) in row_loads(k) {
        if !seen.iter().any(|(a, e)| *a == arg && *e == flat) {
            seen.push((arg, flat));
        }
    }
    seen.len().max(1)
}

/// Whether some index of `k` may leave the 32-bit range (so index arithmetic must be
/// 64-bit).
pub fn needs_wide_indices(k: &Kernel) -> bool {
    let limit = (1usize << 31) - (1 << 22);
    let total = k.numel().saturating_mul(k.rnumel().max(1));
    if total >= limit || k.args.iter().any(|a| a.len >= limit) {
        return true;
    }
    // Indirect indices lie in `0..size` once checked.
    let ranges = coil_lower::VarRanges::new(
        index::flat_ranges(k)
            .iter()
            .chain(
                k.values
                    .iter()
                    .enumerate()
                    .filter_map(|(i, (e, _))| match e {
                        KExpr::IndirectIndex { size, .. } => {
                            Some((coil_lower::Var::indirect(i), *size))
                        }
                        _ => None,
                    }),
            )
            .collect(),
    );
    let fits = |e: &IndexExpr| index::fits_i32(&flatten(k, e), &ranges);
    for s in &k.stages {
        for &v in &s.values {
            let ok = match k.expr(v) {
                KExpr::Load { index, .. } | KExpr::Index(index) => fits(index),
                _ => true,
            };
            if !ok {
                return true;
            }
        }
        if !s.stores.iter().all(|st| fits(&st.index)) {
            return true;
        }
    }
    false
}
