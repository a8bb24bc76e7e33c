//! The kernel IR translated to PTX text: each [`Kernel`] becomes one or two `.entry`s with the
//! launch configuration they need, chosen by [`plan_kernel`] from the kernel's shape and the
//! device's capability flags:
//!
//! - **pointwise**: a grid-stride loop over the flattened outer range in chunks of 4 elements
//!   per thread (8 when the kernel's buffers are 16-bit floats) when `numel` divides; each
//!   access is one 128-bit `ld.global.nc.v4` / `st.global.v4` (two 16-bit floats to a `.b32`
//!   word) when its index is contiguous and aligned across the chunk's lanes (proved on the
//!   index expression), one load shared by the lanes when it does not move with them, one per
//!   lane otherwise; values that do not depend on the loop are hoisted out of it.
//! - **persistent reduction** (the row fits in registers): one warp (short rows) or one block
//!   per row; each thread holds its slice of the row (4- or 8-wide chunks) in registers across every
//!   stage, so inputs are read from memory once; accumulators combine across slots, then warp
//!   shuffles, then shared memory, and every thread gets the results for later stages.
//! - **looped reduction**: one block per row, each stage a loop over the row with per-thread
//!   accumulators (two chunks per iteration), then the block all-reduce.
//! - **split reduction** (too few rows to fill the GPU, one reduction stage): a first kernel
//!   reduces `parts` interleaved sets of tiles of each row (tile `t` to part `t mod parts`)
//!   into a scratch buffer, a second combines the partials and runs the outer stages (or, in
//!   a fused split, the last block of a row to finish does).
//!
//! Sizes are compile-time constants in the PTX (kernels take only pointers), so divisions by
//! them are strength-reduced by ptxas; except in a kernel generalized over sizes
//! ([`render_general`], for [`crate::families`]), whose outermost range, and strides and offsets
//! that change with the size, are `.s64` parameters after the pointers (the divisors, inner
//! ranges and row lengths stay constants). Index arithmetic is 32-bit when every index of the
//! kernel fits, else 64-bit.

mod bits;
mod gather;
mod index;
mod looped;
mod memory;
mod persistent;
mod plan;
mod pointwise;
mod reduce;
mod scan;
mod split;
mod values;

pub use plan::{
    KernelPlan, MIN_TUNED_ELEMENTS, Strategy, candidate_plans, chunk_lanes, needs_wide_indices,
    only_16_bit_results, oriented, plan_kernel, walk_backwards,
};

use std::collections::HashMap;

use coil_codegen::{
    AccId, Accumulator, ArgId, ArgRole, KExpr, Kernel, Stage, StageKind, Store, StoreMode, ValueId,
};
use coil_graph::DType;
use coil_kernel::SizeParams;
use coil_lower::{IndexExpr, Var, VarRanges};

use crate::error::CudaError;
use crate::launch::LaunchConfig;
use crate::ptx::{Cmp, KernelBuilder, PtxKernel, Reg, Sreg, Ty, Val};
use coil_ptx::{GpuCaps, PtxTarget};

use gather::IndirectAt;
use index::{IndexEnv, address, flatten, lane_shape, outer_var, reduction_var};
use reduce::{AccRegs, AccSpec};
use values::Repr;

/// Whether a chunk of `width` lanes moving as `shape` is one vector access of `mem` elements:
/// consecutive and aligned to the chunk's bytes, 4 or 8 lanes of 4-byte or 16-bit elements.
fn vector_access(shape: Option<index::LaneShape>, width: usize, mem: DType) -> bool {
    shape.is_some_and(|s| s.is_vector(width as i64))
        && matches!(width, 4 | 8)
        && matches!(mem, DType::F32 | DType::I32 | DType::F16 | DType::BF16)
}

/// Threads per block of pointwise kernels.
pub const POINTWISE_BLOCK: u32 = 256;
/// Threads per block of looped and split reductions.
pub const LOOPED_BLOCK: u32 = 512;
/// Rows up to this length are held by one warp.
pub const WARP_ROW_LIMIT: usize = 512;
/// Values (registers) per thread a persistent reduction may hold across its stages.
pub const HELD_REGISTER_BUDGET: usize = 48;
/// Longest row a persistent reduction holds (1024 threads x 16 values).
pub const PERSISTENT_RNUMEL_LIMIT: usize = 16384;

/// Where a launch argument comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaunchArg {
    /// The kernel's argument `i` (a buffer, in [`Kernel::args`] order).
    Arg(usize),
    /// Scratch buffer `j` of the [`RenderedKernel`].
    Scratch(usize),
    /// Size parameter `j`: the [`RenderedKernel`]'s `sizes[j]` (an `.s64`).
    Size(usize),
}

/// One `.entry` and how to launch it.
#[derive(Clone, Debug)]
pub struct KernelLaunch {
    /// The rendered entry.
    pub kernel: PtxKernel,
    /// Grid and block.
    pub config: LaunchConfig,
    /// Its parameters, in order.
    pub args: Vec<LaunchArg>,
}

/// A kernel of the IR as PTX: the entries to launch in order, and the scratch memory they
/// share (split reductions' partials).
#[derive(Clone, Debug)]
pub struct RenderedKernel {
    /// The IR kernel's name with the backend prefix (`cuda_per_fused_..._0`).
    pub name: String,
    /// How it runs.
    pub plan: KernelPlan,
    /// Entries, launched in order.
    pub launches: Vec<KernelLaunch>,
    /// Bytes of each scratch buffer.
    pub scratch_bytes: Vec<usize>,
    /// Bytes each kernel argument spans (its buffer must be at least this long).
    pub arg_bytes: Vec<usize>,
    /// The size parameters' values, where the entries are a kernel's generalized over sizes
    /// ([`render_general`]): empty for a kernel rendered on its own.
    pub sizes: Vec<i64>,
    /// Whether the entries are a generalized kernel's, shared with other kernels of the same
    /// code at other sizes (loaded in a module of their own, so that its text, and so its
    /// machine code, is the same at every size).
    pub shared: bool,
}

/// Renders `k` (named `cuda_<k.name>`) for `target`, planned for a device with `caps`.
pub fn render_kernel(
    k: &Kernel,
    caps: &GpuCaps,
    target: PtxTarget,
) -> Result<RenderedKernel, CudaError> {
    render_planned(k, caps, target, plan_kernel(k, caps))
}

/// Renders `k` with a given plan (what [`plan_kernel`] would choose, or another one to
/// compare: a looped reduction where a persistent one fits, 64-bit indices where 32 bits
/// suffice). The strategy must suit the kernel: pointwise for kernels without reduction
/// ranges, a reduction strategy otherwise (and `Split` only for one reduction stage followed
/// by outer stages); `block` a multiple of 32 up to 1024 (for `Persistent` with `row_threads`
/// 32, a multiple of 32 rows; else `row_threads` itself); 32-bit indices only where they
/// suffice.
pub fn render_planned(
    k: &Kernel,
    caps: &GpuCaps,
    target: PtxTarget,
    plan: KernelPlan,
) -> Result<RenderedKernel, CudaError> {
    let name = format!("cuda_{}", k.name);
    let entries = emit_entries(k, None, &name, target, plan)?;
    Ok(assemble(k, caps, plan, name, entries, Vec::new(), false))
}

/// The entries of `general`, a kernel generalized over sizes ([`coil_kernel::size_params`])
/// whose outermost range at most is a size parameter (`params.ranges` says which), rendered
/// under `plan` and named `name`: they take the parameters' values after the buffers (and
/// scratch), as `.s64` parameters `size0..`, and serve every kernel of their code whose plan is
/// `plan` ([`bound_rendering`]). `general`'s own sizes are only hints: the outermost range may
/// be anything up to what `plan`'s index width holds.
pub fn render_general(
    general: &Kernel,
    params: &SizeParams,
    name: &str,
    target: PtxTarget,
    plan: KernelPlan,
) -> Result<Vec<PtxKernel>, CudaError> {
    if !outer_only(general, params) || matches!(plan.strategy, Strategy::Split { .. }) {
        return Err(CudaError::Codegen {
            kernel: general.name.clone(),
            reason: "only the outermost range of a pointwise, persistent or looped kernel may \
                     be a size parameter"
                .into(),
        });
    }
    emit_entries(general, Some(params), name, target, plan)
}

/// Whether no range of `k` but the outermost (an outer one) is a size parameter of `params`.
pub fn outer_only(k: &Kernel, params: &SizeParams) -> bool {
    params
        .ranges
        .iter()
        .enumerate()
        .all(|(i, p)| p.is_none() || (i == 0 && !k.ranges.is_empty()))
}

/// `k` launched through `entries`, rendered by [`render_general`] for a kernel of its code with
/// its plan, the parameters taking `sizes` ([`coil_kernel::size_params::bind`]).
pub fn bound_rendering(
    k: &Kernel,
    caps: &GpuCaps,
    plan: KernelPlan,
    name: String,
    entries: Vec<PtxKernel>,
    sizes: Vec<i64>,
) -> RenderedKernel {
    assemble(k, caps, plan, name, entries, sizes, true)
}

/// The largest outer extent (rows, or a pointwise kernel's elements) a kernel generalized
/// over its outermost range serves: what its index width holds, a whole number of the inner
/// ranges' products.
pub fn general_outer_end(k: &Kernel, wide: bool) -> usize {
    let inner: usize = k.ranges.iter().skip(1).product::<usize>().max(1);
    let limit: usize = if wide { 1 << 52 } else { i32::MAX as usize };
    (limit / inner) * inner
}

/// Checks `plan` against `k` and emits its entries (the main one, and a split's finish).
fn emit_entries(
    k: &Kernel,
    sizes: Option<&SizeParams>,
    name: &str,
    target: PtxTarget,
    plan: KernelPlan,
) -> Result<Vec<PtxKernel>, CudaError> {
    let KernelPlan {
        strategy,
        block,
        wide_indices: wide,
        min_blocks_per_sm,
        fast_math,
    } = plan;
    let bad = |reason: String| CudaError::Codegen {
        kernel: k.name.clone(),
        reason,
    };
    let pointwise = k.reduction_ranges.is_empty();
    if pointwise != matches!(strategy, Strategy::Pointwise { .. }) {
        return Err(bad(format!("{strategy:?} does not suit this kernel")));
    }
    if block == 0 || !block.is_multiple_of(32) || block > 1024 {
        return Err(bad(format!("{block} threads per block")));
    }
    // A generalized kernel's terms are size parameters: the kernels it is bound to were
    // planned (their index width chosen) on their own.
    if !wide && sizes.is_none() && needs_wide_indices(k) {
        return Err(bad("its indices need 64-bit arithmetic".into()));
    }
    let lanes = match strategy {
        Strategy::Pointwise { lanes, .. }
        | Strategy::Persistent { lanes, .. }
        | Strategy::Looped { lanes, .. }
        | Strategy::Split { lanes, .. } => lanes,
    };
    if plan::scans(k)
        && !matches!(
            strategy,
            Strategy::Looped {
                lanes: 1,
                unroll: 1
            }
        )
    {
        return Err(bad(format!(
            "{strategy:?} cannot scan (a scan runs looped, one lane)"
        )));
    }
    let extent = if pointwise { k.numel() } else { k.rnumel() };
    if !(lanes == 1 || (matches!(lanes, 4 | 8) && extent.is_multiple_of(lanes as usize))) {
        return Err(bad(format!("{lanes} lanes for an extent of {extent}")));
    }
    if let Strategy::Persistent {
        row_threads,
        chunks,
        ..
    } = strategy
        && ((row_threads != 32 && row_threads != block)
            || ((row_threads * lanes * chunks) as usize) < k.rnumel())
    {
        return Err(bad(format!(
            "{strategy:?} with {block} threads does not cover the row"
        )));
    }
    if let Strategy::Split {
        parts,
        lanes,
        unroll,
        ..
    } = strategy
    {
        let splittable = matches!(k.stages.first(), Some(s) if s.kind == StageKind::Reduction)
            && k.stages[1..].iter().all(|s| s.kind == StageKind::Outer);
        if !splittable || parts < 2 {
            return Err(bad(
                "a split reduction needs one reduction stage, then outer stages".into(),
            ));
        }
        // A part's loop position passes the row's end by up to one round of tiles.
        let round = parts as usize * (block * lanes * unroll.max(1)) as usize;
        if !wide && k.rnumel() + round >= 1 << 31 {
            return Err(bad("its split loop needs 64-bit indices".into()));
        }
    }
    let emitter = |name: &str, block: u32, scratch: usize| {
        Emitter::new(k, name, target, block, wide, scratch, sizes).with_fast_math(fast_math)
    };
    Ok(match strategy {
        Strategy::Pointwise {
            lanes,
            unroll,
            reverse,
            ..
        } => vec![
            emitter(name, block, 0)
                .occupancy(min_blocks_per_sm)
                .pointwise(lanes, unroll.max(1), reverse)?,
        ],
        Strategy::Persistent {
            lanes,
            row_threads,
            chunks,
            prefetch,
        } => vec![
            emitter(name, block, 0)
                .occupancy(min_blocks_per_sm)
                .persistent(lanes, row_threads, chunks, prefetch)?,
        ],
        Strategy::Looped { lanes, unroll } => vec![
            emitter(name, block, 0)
                .occupancy(min_blocks_per_sm)
                .looped(lanes, unroll)?,
        ],
        Strategy::Split {
            lanes,
            unroll,
            parts,
            fused,
        } => {
            let scratch = split_scratch_bytes(k, plan).len();
            let first = emitter(name, block, scratch)
                .occupancy(min_blocks_per_sm)
                .split_partials(lanes, unroll, parts, fused)?;
            if fused {
                vec![first]
            } else {
                let finish = emitter(
                    &format!("{name}_finish"),
                    split_finish_block(parts),
                    split_components(k, wide).len(),
                )
                .split_finish(parts)?;
                vec![first, finish]
            }
        }
    })
}

/// Threads per block of a split reduction's finishing entry.
fn split_finish_block(parts: u32) -> u32 {
    parts.next_multiple_of(32).min(256)
}

/// Bytes of a split reduction's scratch buffers: each partial's slots, then (fused) a u32
/// counter per row (zeroed at allocation, reset by the last block).
fn split_scratch_bytes(k: &Kernel, plan: KernelPlan) -> Vec<usize> {
    let Strategy::Split { parts, fused, .. } = plan.strategy else {
        return Vec::new();
    };
    let slots = k.numel() * parts as usize;
    let mut bytes: Vec<usize> = split_components(k, plan.wide_indices)
        .iter()
        .map(|r| slots * r.bytes() as usize)
        .collect();
    if fused {
        bytes.push(k.numel() * 4);
    }
    bytes
}

/// `k`'s rendering: `entries` (from [`emit_entries`] for `k` or a kernel of its code) with the
/// launch configurations `k`'s sizes need, its scratch, and the size parameters' values.
fn assemble(
    k: &Kernel,
    caps: &GpuCaps,
    plan: KernelPlan,
    name: String,
    entries: Vec<PtxKernel>,
    sizes: Vec<i64>,
    shared: bool,
) -> RenderedKernel {
    let KernelPlan {
        strategy,
        block,
        min_blocks_per_sm,
        ..
    } = plan;
    let scratch_bytes = split_scratch_bytes(k, plan);
    let mut args: Vec<LaunchArg> = (0..k.args.len()).map(LaunchArg::Arg).collect();
    args.extend((0..scratch_bytes.len()).map(LaunchArg::Scratch));
    args.extend((0..sizes.len()).map(LaunchArg::Size));
    let configs: Vec<LaunchConfig> = match strategy {
        Strategy::Pointwise {
            lanes,
            unroll,
            one_pass,
            ..
        } => {
            let items = (k.numel() / lanes as usize) as u64;
            // With a residency target, the grid is what the SMs hold at once under it.
            let caps = GpuCaps {
                max_threads_per_sm: match min_blocks_per_sm {
                    0 => caps.max_threads_per_sm,
                    b => b * block,
                },
                ..caps.clone()
            };
            let work = items.div_ceil(u64::from(unroll.max(1)));
            vec![if one_pass {
                let blocks = work.div_ceil(u64::from(block)).clamp(1, (1 << 31) - 1);
                LaunchConfig::linear(blocks as u32, block)
            } else {
                LaunchConfig::grid_stride(work, block, &caps)
            }]
        }
        Strategy::Persistent { row_threads, .. } => {
            let rows_per_block = (block / row_threads).max(1) as usize;
            let blocks = k.numel().div_ceil(rows_per_block).clamp(1, (1 << 31) - 1);
            vec![LaunchConfig::linear(blocks as u32, block)]
        }
        Strategy::Looped { .. } => vec![LaunchConfig::per_row(k.numel() as u64, block)],
        Strategy::Split { parts, .. } => vec![
            LaunchConfig::linear((k.numel() * parts as usize) as u32, block),
            LaunchConfig::per_row(k.numel() as u64, split_finish_block(parts)),
        ],
    };
    let launches = entries
        .into_iter()
        .zip(configs)
        .map(|(kernel, config)| KernelLaunch {
            kernel,
            config,
            args: args.clone(),
        })
        .collect();
    RenderedKernel {
        name,
        plan,
        // No point to compute: nothing to launch (a grid of no blocks is not a launch).
        launches: if k.numel() == 0 { Vec::new() } else { launches },
        scratch_bytes,
        arg_bytes: k.args.iter().map(|a| a.len * a.dtype.itemsize()).collect(),
        shared,
        sizes,
    }
}

/// The register reprs of a split reduction's partials, one scratch buffer each.
fn split_components(k: &Kernel, wide: bool) -> Vec<Repr> {
    let index = if wide { Repr::I64 } else { Repr::I32 };
    let mut out = Vec::new();
    if let Some(stage) = k.stages.first() {
        for acc in &stage.accumulators {
            let spec = AccSpec::new(acc, k.dtype(acc.value), index);
            out.push(spec.value);
            out.extend(spec.index);
        }
    }
    out
}

/// Values of one IR value across the slots of a lane context: one value for all, or one per
/// slot.
#[derive(Clone, Debug)]
pub(crate) enum Lv {
    One(Val),
    Lanes(Vec<Val>),
}

impl Lv {
    fn get(&self, slot: usize) -> Val {
        match self {
            Lv::One(v) => *v,
            Lv::Lanes(vs) => vs[slot],
        }
    }

    fn is_one(&self) -> bool {
        matches!(self, Lv::One(_))
    }
}

/// A chunk of `width` consecutive positions handled by one thread: the lane variable's value
/// at its first lane, and whether it is inside the range.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chunk {
    base: Reg,
    valid: Option<Reg>,
}

/// The slots a thread handles at once: `chunks x width` values of the lane variable.
#[derive(Clone, Debug)]
pub(crate) struct Lanes {
    var: Var,
    width: u32,
    chunks: Vec<Chunk>,
}

impl Lanes {
    fn slots(&self) -> usize {
        self.chunks.len() * self.width as usize
    }
}

/// The translator's state while rendering one entry.
pub(crate) struct Emitter<'k> {
    k: &'k Kernel,
    pub(crate) b: KernelBuilder,
    block: u32,
    error: Option<String>,
    ptrs: Vec<Reg>,
    scratch: Vec<Reg>,
    read_only: Vec<bool>,
    env: IndexEnv,
    ranges: VarRanges,
    flat: HashMap<IndexExpr, IndexExpr>,
    uniform: HashMap<ValueId, bool>,
    vals: HashMap<ValueId, Lv>,
    accs: HashMap<AccId, Val>,
    acc_info: HashMap<AccId, Accumulator>,
    /// Values computed earlier in the same straight-line scope, by expression (operands
    /// canonical): a persistent reduction's later stages reuse the loads and arithmetic of
    /// earlier ones instead of recomputing them.
    cse: Option<HashMap<(KExpr, DType), ValueId>>,
    canon: HashMap<ValueId, ValueId>,
    /// The packed words (per chunk) of a persistent row's 16-bit vector loads, by buffer and
    /// flat index: later stages unpack them again rather than hold the unpacked f32 values
    /// across a reduction (half the registers), and a prefetching plan fills them with the
    /// row loaded during the row before ([`Strategy::Persistent::prefetch`]).
    words: HashMap<(ArgId, IndexExpr), Vec<Vec<Reg>>>,
    /// A scan stage's state ([`scan`]): each scan's carry from the tiles before, and whether
    /// this thread's element of the tile is inside the row.
    scan_carry: HashMap<ValueId, Reg>,
    scan_valid: Option<Reg>,
    /// The relaxed math of 16-bit results ([`KernelPlan::fast_math`]).
    fast_math: bool,
    /// A kernel generalized over its outermost range: the size parameter's register (`.s64`)
    /// and the product of the inner ranges.
    outer_param: Option<(Reg, usize)>,
    /// How far the flat outer variable may run in a generalized kernel
    /// ([`general_outer_end`]).
    outer_end: Option<usize>,
}

fn param_name(i: usize, name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("arg{i}_{clean}")
}

impl<'k> Emitter<'k> {
    fn new(
        k: &'k Kernel,
        name: &str,
        target: PtxTarget,
        block: u32,
        wide: bool,
        scratch: usize,
        sizes: Option<&SizeParams>,
    ) -> Emitter<'k> {
        let mut b = KernelBuilder::new(name, target);
        b.max_threads_per_block(block);
        let ptrs = k
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| b.ptr_param(param_name(i, &a.name), 16))
            .collect();
        let scratch = (0..scratch)
            .map(|j| b.ptr_param(format!("scratch{j}"), 16))
            .collect();
        // A generalized kernel's size parameters: `.s64` values after the buffers, each bound
        // to its variable `s<j>` in index registers.
        let mut env = IndexEnv::new(wide);
        let mut size_regs = Vec::new();
        for j in 0..sizes.map_or(0, |sp| sp.count) {
            let p = b.param(format!("size{j}"), crate::ptx::ParamTy::S64);
            let r = b.load_param(p);
            let at = if wide {
                r
            } else {
                b.cvt(Ty::S32, Ty::S64, None, r)
            };
            env.bind(Var::size(j), at);
            size_regs.push(r);
        }
        let outer_param = sizes
            .filter(|_| !k.ranges.is_empty())
            .and_then(|sp| sp.range(0))
            .map(|p| {
                let inner: usize = k.ranges.iter().skip(1).product::<usize>().max(1);
                (size_regs[p as usize], inner)
            });
        let outer_end = outer_param.map(|_| general_outer_end(k, wide));
        let acc_info = k
            .stages
            .iter()
            .flat_map(|s| s.accumulators.iter())
            .map(|a| (a.id, a.clone()))
            .collect();
        Emitter {
            k,
            b,
            block,
            error: None,
            ptrs,
            scratch,
            read_only: k.args.iter().map(|a| a.role == ArgRole::Input).collect(),
            env,
            ranges: index::flat_ranges_to(k, outer_end),
            outer_param,
            outer_end,
            flat: HashMap::new(),
            uniform: HashMap::new(),
            vals: HashMap::new(),
            accs: HashMap::new(),
            acc_info,
            cse: None,
            scan_carry: HashMap::new(),
            scan_valid: None,
            canon: HashMap::new(),
            words: HashMap::new(),
            fast_math: false,
        }
    }

    /// The relaxed math of 16-bit results when `on` ([`KernelPlan::fast_math`]).
    fn with_fast_math(mut self, on: bool) -> Self {
        self.fast_math = on;
        self
    }

    /// Asks ptxas to fit `blocks` blocks per SM (none when 0).
    fn occupancy(mut self, blocks: u32) -> Self {
        if blocks > 0 {
            self.b.min_blocks_per_sm(blocks);
        }
        self
    }

    /// Records the first thing that cannot be rendered.
    pub(crate) fn fail(&mut self, reason: String) {
        if self.error.is_none() {
            self.error = Some(reason);
        }
    }

    fn finish(self) -> Result<PtxKernel, CudaError> {
        if let Some(reason) = self.error {
            return Err(CudaError::Codegen {
                kernel: self.b.name().to_string(),
                reason,
            });
        }
        Ok(self.b.finish()?)
    }

    fn index_ty(&self) -> Ty {
        self.env.ty()
    }

    fn index_repr(&self) -> Repr {
        if self.env.wide { Repr::I64 } else { Repr::I32 }
    }

    fn flat(&mut self, e: &IndexExpr) -> IndexExpr {
        if let Some(f) = self.flat.get(e) {
            return f.clone();
        }
        let f = index::flatten_to(self.k, e, self.outer_end);
        self.flat.insert(e.clone(), f.clone());
        f
    }

    /// A `.u32` register as an index register (widened when indices are 64-bit).
    fn as_index(&mut self, r: Reg) -> Reg {
        if self.env.wide {
            self.b.cvt(Ty::S64, Ty::U32, None, r)
        } else {
            r
        }
    }

    /// Whether `v` is the same for every value of the lane variable `x`.
    fn is_uniform(&mut self, v: ValueId, x: Var) -> bool {
        if let Some(&u) = self.uniform.get(&v) {
            return u;
        }
        let u = match self.k.expr(v).clone() {
            KExpr::Load { index, mask, .. } => {
                !self.flat(&index).contains_var(x)
                    && mask.is_none_or(|m| self.is_uniform(m, x))
                    && index
                        .indirect_nodes()
                        .into_iter()
                        .all(|n| self.is_uniform(ValueId(n as u32), x))
            }
            KExpr::Const(_) | KExpr::Acc(_) => true,
            // A scan moves along the row whatever it scans, and is a block-wide operation.
            KExpr::Scan { .. } => false,
            KExpr::Index(e) => {
                !self.flat(&e).contains_var(x)
                    && e.indirect_nodes()
                        .into_iter()
                        .all(|n| self.is_uniform(ValueId(n as u32), x))
            }
            other => other.operands().into_iter().all(|o| self.is_uniform(o, x)),
        };
        self.uniform.insert(v, u);
        u
    }

    /// `a && b` for optional guards.
    fn and_guard(&mut self, a: Option<Reg>, c: Option<Reg>) -> Option<Reg> {
        match (a, c) {
            (Some(x), Some(y)) => Some(self.b.and(Ty::Pred, x, y)),
            (x, None) => x,
            (None, y) => y,
        }
    }

    /// The index environment with the lane variable at slot `slot` of `cx`.
    fn slot_env(&mut self, cx: &Lanes, slot: usize) -> IndexEnv {
        let chunk = cx.chunks[slot / cx.width as usize];
        let k = (slot % cx.width as usize) as i64;
        let at = if k == 0 {
            chunk.base
        } else {
            let ty = self.index_ty();
            self.b.add(ty, chunk.base, k)
        };
        let mut env = self.env.clone();
        env.bind(cx.var, at);
        env
    }

    fn eval_in(&mut self, env: &IndexEnv, e: &IndexExpr) -> Val {
        let ranges = self.ranges.clone();
        env.eval(&mut self.b, e, &ranges)
    }

    fn lv(&mut self, v: ValueId) -> Lv {
        match self.vals.get(&v) {
            Some(lv) => lv.clone(),
            None => {
                self.fail(format!("value {v} is used before it is computed"));
                Lv::One(Val::Imm(crate::ptx::Imm::Int(0)))
            }
        }
    }

    fn map(&mut self, ops: &[Lv], mut f: impl FnMut(&mut Self, &[Val]) -> Val) -> Lv {
        let slots = ops.iter().find_map(|o| match o {
            Lv::Lanes(vs) => Some(vs.len()),
            Lv::One(_) => None,
        });
        match slots {
            None => {
                let args: Vec<Val> = ops.iter().map(|o| o.get(0)).collect();
                Lv::One(f(self, &args))
            }
            Some(n) => Lv::Lanes(
                (0..n)
                    .map(|s| {
                        let args: Vec<Val> = ops.iter().map(|o| o.get(s)).collect();
                        f(self, &args)
                    })
                    .collect(),
            ),
        }
    }

    // ---- values -------------------------------------------------------------------------

    /// Computes the values of `stage` not computed yet (only the lane-invariant ones when
    /// `uniform_only`, as single values).
    fn emit_values(&mut self, stage: &Stage, cx: Option<&Lanes>, uniform_only: bool) {
        for &v in &stage.values {
            if self.vals.contains_key(&v) {
                continue;
            }
            if let Some(key) = self.cse_key(v)
                && let Some(&earlier) = self.cse.as_ref().and_then(|c| c.get(&key))
                && let Some(lv) = self.vals.get(&earlier).cloned()
            {
                self.canon.insert(v, earlier);
                // Loads and costly results are held; cheap arithmetic is recomputed from
                // them, which keeps fewer values alive across the reduction.
                let lv = if self.worth_holding(v) && !self.packed(v) {
                    lv
                } else {
                    self.emit_value(v, cx)
                };
                self.vals.insert(v, lv);
                continue;
            }
            let lv = if uniform_only {
                let x = cx.map_or(reduction_var(), |c| c.var);
                if !self.is_uniform(v, x) {
                    continue;
                }
                self.emit_value(v, None)
            } else {
                self.emit_value(v, cx)
            };
            self.vals.insert(v, lv);
            if let Some(key) = self.cse_key(v)
                && let Some(cse) = self.cse.as_mut()
            {
                cse.insert(key, v);
            }
        }
    }

    /// Whether `v` is a load whose packed words this row keeps ([`Emitter::words`]).
    fn packed(&mut self, v: ValueId) -> bool {
        match self.k.expr(v).clone() {
            KExpr::Load { arg, index, .. } => {
                let flat = self.flat(&index);
                self.words.contains_key(&(arg, flat))
            }
            _ => false,
        }
    }

    /// Loads and transcendental functions and divisions: worth registers across stages.
    fn worth_holding(&self, v: ValueId) -> bool {
        use coil_lower::Op;
        match self.k.expr(v) {
            KExpr::Load { .. } => true,
            KExpr::Unary(op, _) => matches!(
                op,
                Op::Exp
                    | Op::Log
                    | Op::Log1p
                    | Op::Sin
                    | Op::Cos
                    | Op::Tanh
                    | Op::Erf
                    | Op::Sigmoid
                    | Op::Sqrt
                    | Op::Rsqrt
                    | Op::Reciprocal
            ),
            KExpr::Binary(op, _, _) => {
                matches!(op, Op::Pow | Op::TrueDiv | Op::FloorDiv | Op::TruncDiv)
            }
            _ => false,
        }
    }

    /// `v`'s expression with canonical operands, when cross-stage reuse is on. Loads the
    /// same for every row (weights such as a layer norm's gamma) are not held: reloading
    /// them hits L1 and spares registers.
    fn cse_key(&mut self, v: ValueId) -> Option<(KExpr, DType)> {
        self.cse.as_ref()?;
        if let KExpr::Scan { .. } = self.k.expr(v) {
            return None; // a running value: never one of another stage
        }
        if let KExpr::Load { index, .. } | KExpr::Index(index) = self.k.expr(v)
            && !index.indirect_nodes().is_empty()
        {
            return None; // `ind<n>` names a stage's own value
        }
        if let KExpr::Load { index, .. } = self.k.expr(v)
            && !self.flat(index).contains_var(outer_var())
        {
            return None;
        }
        let c = |x: &ValueId| *self.canon.get(x).unwrap_or(x);
        let e = match self.k.expr(v).clone() {
            KExpr::Load { arg, index, mask } => KExpr::Load {
                arg,
                index,
                mask: mask.as_ref().map(c),
            },
            KExpr::Cast(a) => KExpr::Cast(c(&a)),
            KExpr::Bitcast(a) => KExpr::Bitcast(c(&a)),
            KExpr::Unary(op, a) => KExpr::Unary(op, c(&a)),
            KExpr::Binary(op, a, b) => KExpr::Binary(op, c(&a), c(&b)),
            KExpr::Where(p, a, b) => KExpr::Where(c(&p), c(&a), c(&b)),
            // Keyed as they are (an indirect index's value is a stage's own).
            e @ (KExpr::Const(_)
            | KExpr::Index(_)
            | KExpr::Acc(_)
            | KExpr::Scan { .. }
            | KExpr::IndirectIndex { .. }) => e,
        };
        Some((e, self.k.dtype(v)))
    }

    fn emit_value(&mut self, v: ValueId, cx: Option<&Lanes>) -> Lv {
        let dtype = self.k.dtype(v);
        match self.k.expr(v).clone() {
            KExpr::Load { arg, index, mask } => self.emit_load(arg, &index, mask, dtype, cx),
            KExpr::Const(c) => Lv::One(self.constant(c, dtype)),
            KExpr::Index(e) => {
                let flat = self.flat(&e);
                let from = self.index_repr().dtype();
                let indirect = self.indirect_lanes(&e);
                let per_slot = indirect.iter().any(|(_, lv)| !lv.is_one());
                match cx {
                    Some(cx) if flat.contains_var(cx.var) || per_slot => Lv::Lanes(
                        (0..cx.slots())
                            .map(|s| {
                                let mut env = self.slot_env(cx, s);
                                self.bind_indirect(&mut env, &indirect, s);
                                let i = self.eval_in(&env, &flat);
                                self.cast(i, from, dtype)
                            })
                            .collect(),
                    ),
                    _ => {
                        let mut env = self.env.clone();
                        self.bind_indirect(&mut env, &indirect, 0);
                        let i = self.eval_in(&env, &flat);
                        Lv::One(self.cast(i, from, dtype))
                    }
                }
            }
            KExpr::Acc(a) => {
                let (val, from) = match (self.accs.get(&a), self.acc_info.get(&a)) {
                    (Some(v), Some(info)) => (*v, info.dtype),
                    _ => {
                        self.fail(format!("{a} is read before its reduction finished"));
                        return Lv::One(Val::Imm(crate::ptx::Imm::Int(0)));
                    }
                };
                Lv::One(self.cast(val, from, dtype))
            }
            KExpr::Cast(a) => {
                let from = self.k.dtype(a);
                let ops = [self.lv(a)];
                self.map(&ops, |em, x| em.cast(x[0], from, dtype))
            }
            KExpr::Bitcast(a) => {
                let from = self.k.dtype(a);
                let ops = [self.lv(a)];
                self.map(&ops, |em, x| em.bitcast(x[0], from, dtype))
            }
            KExpr::Unary(op, a) => {
                let din = self.k.dtype(a);
                let ops = [self.lv(a)];
                self.map(&ops, |em, x| em.unary(op, x[0], din, dtype))
            }
            KExpr::Binary(op, a, c) => {
                let (da, dc) = (self.k.dtype(a), self.k.dtype(c));
                let ops = [self.lv(a), self.lv(c)];
                if op == coil_lower::Op::TrueDiv
                    && self.fast_math
                    && Repr::of(da) == Repr::F32
                    && !ops[0].is_one()
                    && ops[1].is_one()
                {
                    let d = self.cast(ops[1].get(0), dc, da);
                    return self.divide_by_one(&ops[0], d, da, dtype);
                }
                self.map(&ops, |em, x| {
                    let y = em.cast(x[1], dc, da);
                    em.binary(op, x[0], y, da, dtype)
                })
            }
            KExpr::Where(c, a, e) => {
                let (dc, da, de) = (self.k.dtype(c), self.k.dtype(a), self.k.dtype(e));
                let ops = [self.lv(c), self.lv(a), self.lv(e)];
                self.map(&ops, |em, x| {
                    em.select((x[0], dc), (x[1], da), (x[2], de), dtype)
                })
            }
            KExpr::Scan { scan_type, value } => {
                let x = self.lv(value).get(0);
                Lv::Lanes(vec![self.block_scan(v, x, dtype, scan_type)])
            }
            KExpr::IndirectIndex {
                value,
                size,
                wrap_negative,
                flags,
                check,
            } => {
                let from = self.k.dtype(value);
                let at = IndirectAt {
                    size,
                    wrap_negative,
                    flags,
                    check,
                };
                match (self.lv(value), cx) {
                    // Slots past the row's end (a chunk's `valid`) compute an index too: it
                    // is not checked there.
                    (Lv::Lanes(xs), Some(cx)) => Lv::Lanes(
                        xs.iter()
                            .enumerate()
                            .map(|(s, &x)| {
                                let valid =
                                    cx.chunks.get(s / cx.width as usize).and_then(|c| c.valid);
                                self.indirect_index(x, from, at, valid)
                            })
                            .collect(),
                    ),
                    (lv, _) => self.map(&[lv], |em, x| em.indirect_index(x[0], from, at, None)),
                }
            }
        }
    }

    fn mask_guard(&mut self, mask: Option<&(Lv, DType)>, slot: usize) -> Option<Reg> {
        mask.map(|(lv, d)| {
            let v = lv.get(slot);
            self.truthy(v, *d)
        })
    }

    fn emit_load(
        &mut self,
        arg: ArgId,
        index: &IndexExpr,
        mask: Option<ValueId>,
        dtype: DType,
        cx: Option<&Lanes>,
    ) -> Lv {
        let flat = self.flat(index);
        let a = arg.0 as usize;
        let mem = self.k.args[a].dtype;
        let (ptr, nc) = (self.ptrs[a], self.read_only[a]);
        let size = mem.itemsize();
        let mask = mask.map(|m| (self.lv(m), self.k.dtype(m)));
        let mask_uniform = mask.as_ref().is_none_or(|(m, _)| m.is_one());
        let indirect = self.indirect_lanes(index);
        if !indirect.is_empty() {
            return self.emit_gather(arg, &flat, mask, &indirect, dtype, cx);
        }
        let lv = match cx {
            Some(cx) if flat.contains_var(cx.var) || !mask_uniform => {
                let w = cx.width as usize;
                let shape = lane_shape(&flat, cx.var, w as i64);
                let vector = vector_access(shape, w, mem);
                let broadcast = shape.is_some_and(|s| s.stride == 0);
                let mut out = Vec::with_capacity(cx.slots());
                let key = (arg, flat.clone());
                let keep = vector && mask.is_none() && self.cse.is_some() && mem.is_16_bit_float();
                let mut kept = Vec::new();
                for (c, chunk) in cx.chunks.clone().into_iter().enumerate() {
                    if vector && let Some(words) = self.words.get(&key).and_then(|w| w.get(c)) {
                        let words = words.clone();
                        out.extend(self.unpack_words(&words, mem));
                        continue;
                    }
                    if (vector || broadcast) && mask_uniform {
                        let m = self.mask_guard(mask.as_ref(), 0);
                        let guard = self.and_guard(chunk.valid, m);
                        let env = self.slot_env(cx, c * w);
                        let i = self.eval_in(&env, &flat);
                        let at = address(&mut self.b, &self.env, ptr, i, size);
                        if vector {
                            let words = self.load_words(at, mem, nc, guard, w as u32);
                            out.extend(self.unpack_words(&words, mem));
                            kept.push(words);
                        } else {
                            let v = self.load_scalar(at, mem, nc, guard);
                            out.extend(std::iter::repeat_n(v, w));
                        }
                        continue;
                    }
                    for lane in 0..w {
                        let slot = c * w + lane;
                        let m = self.mask_guard(mask.as_ref(), slot);
                        let guard = self.and_guard(chunk.valid, m);
                        let env = self.slot_env(cx, slot);
                        let i = self.eval_in(&env, &flat);
                        let at = address(&mut self.b, &self.env, ptr, i, size);
                        out.push(self.load_scalar(at, mem, nc, guard));
                    }
                }
                if keep && kept.len() == cx.chunks.len() {
                    self.words.insert(key, kept);
                }
                Lv::Lanes(out)
            }
            _ => {
                let guard = self.mask_guard(mask.as_ref(), 0);
                let env = self.env.clone();
                let i = self.eval_in(&env, &flat);
                let at = address(&mut self.b, &self.env, ptr, i, size);
                Lv::One(self.load_scalar(at, mem, nc, guard))
            }
        };
        if mem == dtype {
            lv
        } else {
            self.map(&[lv], |em, x| em.cast(x[0], mem, dtype))
        }
    }

    fn emit_store(&mut self, st: &Store, cx: Option<&Lanes>, guard: Option<Reg>) {
        let a = st.arg.0 as usize;
        let mem = self.k.args[a].dtype;
        let from = self.k.dtype(st.value);
        let lv = self.lv(st.value);
        let lv = self.map(&[lv], |em, x| em.cast(x[0], from, mem));
        let flat = self.flat(&st.index);
        let ptr = self.ptrs[a];
        let size = mem.itemsize();
        let indirect = self.indirect_lanes(&st.index);
        if st.mode == StoreMode::AtomicAdd || !indirect.is_empty() {
            self.emit_scatter_store(st, &lv, &flat, &indirect, cx, guard);
        } else {
            match cx {
                Some(cx) if flat.contains_var(cx.var) || !lv.is_one() => {
                    let w = cx.width as usize;
                    let shape = lane_shape(&flat, cx.var, w as i64);
                    let vector = vector_access(shape, w, mem);
                    for (c, chunk) in cx.chunks.clone().into_iter().enumerate() {
                        let g = self.and_guard(guard, chunk.valid);
                        if vector {
                            let env = self.slot_env(cx, c * w);
                            let i = self.eval_in(&env, &flat);
                            let at = address(&mut self.b, &self.env, ptr, i, size);
                            let vs: Vec<Val> = (0..w).map(|l| lv.get(c * w + l)).collect();
                            self.store_vector(at, mem, &vs, g);
                            continue;
                        }
                        for lane in 0..w {
                            let slot = c * w + lane;
                            let env = self.slot_env(cx, slot);
                            let i = self.eval_in(&env, &flat);
                            let at = address(&mut self.b, &self.env, ptr, i, size);
                            self.store_scalar(at, mem, lv.get(slot), g);
                        }
                    }
                }
                _ => {
                    let env = self.env.clone();
                    let i = self.eval_in(&env, &flat);
                    let at = address(&mut self.b, &self.env, ptr, i, size);
                    self.store_scalar(at, mem, lv.get(0), guard);
                }
            }
        }
        // Later loads of this buffer must read memory again.
        if let Some(cse) = self.cse.as_mut() {
            cse.retain(|(e, _), _| !matches!(e, KExpr::Load { arg, .. } if *arg == st.arg));
        }
        self.words.retain(|(arg, _), _| *arg != st.arg);
    }

    fn emit_stores(&mut self, stage: &Stage, cx: Option<&Lanes>, guard: Option<Reg>) {
        for st in &stage.stores {
            self.emit_store(st, cx, guard);
        }
    }

    // ---- accumulators -------------------------------------------------------------------

    fn acc_regs(&mut self, stage: &Stage) -> Vec<AccRegs> {
        let index = self.index_repr();
        stage
            .accumulators
            .iter()
            .map(|acc| {
                let spec = AccSpec::new(acc, self.k.dtype(acc.value), index);
                self.acc_init(spec)
            })
            .collect()
    }

    /// Folds every slot of `cx` into the stage's accumulators.
    fn feed(&mut self, stage: &Stage, cx: &Lanes, regs: &[AccRegs]) {
        for (acc, r) in stage.accumulators.iter().zip(regs) {
            let lv = self.lv(acc.value);
            let dtype = self.k.dtype(acc.value);
            for (c, chunk) in cx.chunks.clone().into_iter().enumerate() {
                for lane in 0..cx.width as usize {
                    let slot = c * cx.width as usize + lane;
                    let pos = r.spec.index.map(|_| {
                        let ty = self.index_ty();
                        if lane == 0 {
                            Val::Reg(chunk.base)
                        } else {
                            Val::Reg(self.b.add(ty, chunk.base, lane as i64))
                        }
                    });
                    self.acc_feed(r, lv.get(slot), dtype, pos, chunk.valid);
                }
            }
        }
    }

    fn finish_accs(&mut self, stage: &Stage, regs: &[AccRegs]) {
        for (acc, r) in stage.accumulators.iter().zip(regs) {
            let v = self.acc_finish(r, acc.dtype);
            self.accs.insert(acc.id, v);
        }
    }

    // ---- loops --------------------------------------------------------------------------

    /// `for i in (start..end).step_by(step)` over `ty`, tested at the top.
    fn counted_loop(
        &mut self,
        ty: Ty,
        start: Val,
        end: Val,
        step: Val,
        body: impl FnOnce(&mut Self, Reg),
    ) {
        let i = self.b.mov(ty, start);
        let top = self.b.label("loop");
        let done = self.b.label("loop_end");
        let exit = self.b.setp(Cmp::Ge, ty, i, end);
        self.b.bra_if(exit, &done);
        self.b.place(&top);
        body(self, i);
        let next = self.b.add(ty, i, step);
        self.b.assign(ty, i, next);
        let more = self.b.setp(Cmp::Lt, ty, i, end);
        self.b.bra_if(more, &top);
        self.b.place(&done);
    }

    /// Index-typed immediate.
    fn imm(n: usize) -> Val {
        Val::Imm(crate::ptx::Imm::Int(n as i64))
    }

    /// The outer extent (rows, or a pointwise kernel's elements) over `div` (which divides it)
    /// as a value of `ty` (`.u32` or `.u64`): an immediate, or, in a kernel generalized over its
    /// outermost range, computed from the launch's size parameter (emitted where it is asked
    /// for: ask before loops).
    fn outer_extent(&mut self, ty: Ty, div: usize) -> Val {
        let Some((size, inner)) = self.outer_param else {
            return Self::imm(self.k.numel() / div);
        };
        let n = self.b.mul(Ty::S64, size, inner as i64);
        let n = if div > 1 {
            self.b.div(Ty::U64, n, div as i64)
        } else {
            n
        };
        Val::Reg(if ty == Ty::U64 {
            n
        } else {
            self.b.cvt(Ty::U32, Ty::U64, None, n)
        })
    }

    // ---- entries ------------------------------------------------------------------------

    fn bind_row(&mut self, row: Reg) {
        let o = self.as_index(row);
        self.env.bind(outer_var(), o);
    }
}
