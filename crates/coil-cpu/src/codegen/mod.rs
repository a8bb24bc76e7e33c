//! The translator from coil's kernel IR to LLVM IR: one function `cpu_<name>(args, start, end)`
//! per kernel (the [`crate::KernelFn`] ABI), running iterations `start..end` of the kernel's
//! flattened outer loop.
//!
//! - **Pointwise kernels**: an outer iteration is a block of one row of the innermost outer
//!   variable (long rows are split into blocks so that small outer ranges still spread over
//!   threads); that variable is vectorized (`W` lanes, `W = vector bytes / 4`) with a scalar
//!   tail.
//! - **Reduction kernels**: an outer iteration is one point of the outer ranges. Outer stages
//!   run once (scalar code); a reduction stage loops over the reduction ranges with the
//!   innermost reduction variable vectorized, keeps vector accumulators and combines them once
//!   after the loop ([`reduce`]); its finished values ([`KExpr::Acc`]) are loop-invariant
//!   scalars for later stages.
//! - **Loads**: an index with coefficient 1 in the vectorized variable (and no other use of it)
//!   is a vector load, one without the variable a scalar load used as a broadcast, anything else
//!   (other strides, `FloorDiv`/`ModularIndexing` of the variable, masked loads) one scalar load
//!   per lane. Masked-off lanes load element 0 instead (never out of bounds) and yield 0.
//! - **Gathers** (indirect indices, [`gather`]): each checked index computed once per copy of
//!   the body; a load through one is a vector load when the index is the same for every lane,
//!   one scalar load per lane otherwise.
//! - **Scatters** ([`scatter`]): a store through indirect indices is written lane by lane; an
//!   atomic add is a compare-and-swap loop per lane.
//! - **Values** are named after the kernel IR (`v12`; `v12.s` in the scalar tail), accumulators
//!   `acc0`, loop variables `p1`, arguments by their buffer names.

mod bounds;
mod fmod;
mod gather;
mod hoist;
mod ir;
mod ops;
mod pipeline;
mod plan;
mod reduce;
mod rowcache;
mod rows_bounded;
mod rows_guarded;
mod rows_pipelined;
mod scatter;

use std::collections::{HashMap, HashSet};

use coil_codegen::{
    AccId, Accumulator, ArgId, KExpr, Kernel, KernelKind, Stage, StageKind, Store, ValueId,
};
use coil_graph::DType;
use coil_kernel::{SizeParams, VarPrefix};
use coil_lower::{Const, IndexExpr, Op, Term, Var};
use inkwell::AddressSpace;
use inkwell::IntPredicate;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Module;
use inkwell::types::{BasicType, BasicTypeEnum};
use inkwell::values::{BasicValue, FunctionValue, IntValue, PointerValue};

use crate::CpuError;
use crate::vmath::VMathOptions;
use ir::{Class, Ir, V, err};
pub(crate) use plan::ROW_CAPACITY;
pub use plan::{KernelPlan, plan_general, plan_kernel};
use reduce::AccSlot;

/// How a kernel's outer loop is laid out: what `start..end` of its function counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    /// Iterations of the function's outer loop (`end` of a whole launch).
    pub outer: usize,
    /// Elements of work in all (`numel * rnumel`), to decide whether threads pay off.
    pub work: usize,
    /// Pointwise kernels: blocks each row of the innermost variable is cut into (1 otherwise).
    pub blocks: usize,
    /// Pointwise kernels: elements of the innermost variable per block (a multiple of the
    /// vector width unless one block covers the row).
    pub block_len: usize,
    /// Runs on one thread, its atomic adds plain reads, adds and writes ([`serial_adds`]).
    pub serial: bool,
    /// A pointwise kernel of one range: `start..end` count its elements, and the function
    /// reads no size (chunk starts are multiples of [`FLAT_ALIGN`], so its vectors stay
    /// aligned). Its code is the same for every length of the range.
    pub flat: bool,
}

/// Elements a launch chunk of a flat kernel starts at a multiple of: a whole vector of any
/// width the translator emits, and a cache line of any dtype.
pub(crate) const FLAT_ALIGN: usize = 64;

/// Iterations of the unrolled vector loop between two folds of a float sum's accumulators.
const CASCADE_BLOCK: u64 = 16;

/// Outer iterations that are enough to keep every thread busy with several chunks each.
const TARGET_OUTER: usize = 64;
/// The shortest block a row is split into.
const MIN_BLOCK: usize = 2048;

impl LaunchShape {
    /// The layout of `k` for vectors of `width` lanes.
    pub fn of(k: &Kernel, width: u32) -> LaunchShape {
        let numel = k.numel();
        let work = numel.saturating_mul(k.rnumel().max(1));
        if matches!(k.kind, KernelKind::Reduction { .. }) || k.ranges.is_empty() {
            return LaunchShape {
                outer: numel,
                work,
                blocks: 1,
                block_len: k.ranges.last().copied().unwrap_or(1),
                serial: scatter::serial_adds(k),
                flat: false,
            };
        }
        if let [len] = k.ranges[..] {
            return LaunchShape {
                outer: len,
                work,
                blocks: 1,
                block_len: len,
                serial: scatter::serial_adds(k),
                flat: true,
            };
        }
        let inner = *k.ranges.last().unwrap_or(&1);
        let rows = numel / inner.max(1);
        let w = width as usize;
        let max_blocks = inner.div_ceil(MIN_BLOCK).max(1);
        let blocks = if rows >= TARGET_OUTER {
            1
        } else {
            TARGET_OUTER.div_ceil(rows.max(1)).min(max_blocks)
        };
        let (blocks, block_len) = if blocks <= 1 {
            (1, inner)
        } else {
            let len = inner.div_ceil(blocks).div_ceil(w) * w;
            (inner.div_ceil(len), len)
        };
        LaunchShape {
            outer: if numel == 0 { 0 } else { rows * blocks },
            work,
            blocks,
            block_len,
            serial: scatter::serial_adds(k),
            flat: false,
        }
    }
}

/// How kernels are translated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodegenOptions {
    /// Contiguous vector stores into buffers of at least this many bytes are non-temporal
    /// (they bypass the caches and skip reading each line before writing it); `None`: never.
    /// The generated code then assumes 64-byte aligned buffers, as the backend allocates.
    pub streaming_store_min_bytes: Option<usize>,
    /// Reduction kernels with long rows prefetch the next row's streamed loads during their
    /// last stage.
    pub prefetch_next_row: bool,
    /// A later reduction stage reloads values an earlier one computed, when recomputing them
    /// costs at least this much (rough instruction count; a transcendental is 20); `None`:
    /// never ([`rowcache`]).
    pub row_cache_min_cost: Option<u32>,
    /// A float division whose divisor does not change along the reduction loop (a finished
    /// accumulator, as in softmax's `e / sum`, or an outer value) becomes one division per row
    /// and a multiplication per element. The result can differ from the quotient by an ulp;
    /// off: every element divides.
    pub invariant_reciprocal: bool,
    /// A reduction kernel whose last stage only writes runs that stage one row late, in the
    /// loop of the stage before it when that stage computes a transcendental per element
    /// ([`pipeline`]): softmax's stores overlap the next row's `exp`.
    pub pipeline_rows: bool,
    /// A reduction stage that only accumulates, with a float max or min over 8-lane f32
    /// vectors (AVX), takes one `vmaxps`/`vminps` per vector instead of the NaN-propagating
    /// compare, compare and blend, plus a guard (a running sum of the values, on the add
    /// pipes) that is NaN once a NaN went by (or, rarely, after `inf + -inf`); the row's loop
    /// then runs again with the exact updates. Results are identical.
    pub guarded_max_min: bool,
    /// A reduction stage's `exp(x - max)`, where `max` is an earlier stage's max of the same
    /// `x` over the row, runs without the math library's per-vector range test in rows whose
    /// min is within 86 (f32; 700 for f64) of their max (the max's stage also takes the row's
    /// min; [`bounds`]). Results are identical.
    pub bounded_exp: bool,
    /// f32 `exp` on 8-lane vectors looks `2^(j/8)` up in a register-held table
    /// ([`crate::VMathOptions::table_exp`]; ignored where the host lacks AVX2).
    /// On by default.
    pub table_exp: bool,
    /// A kernel that calls the math library at more than this many places (as emitted: each
    /// copy of a loop body counts) calls its functions instead of inlining each call: LLVM's
    /// time grows with the inlined code (a chain of softmaxes fused 4 to a kernel took 2.4
    /// times as long with every `exp` inlined), while a call costs a few cycles per vector
    /// (10% on that chain's run; `docs/perf.md`). `None`: always inline.
    pub max_inlined_math_calls: Option<usize>,
}

/// [`CodegenOptions::max_inlined_math_calls`]'s default: kernels with one or two
/// transcendentals per stage (softmax, gelu, layer norm's `rsqrt`), as real models fuse them,
/// stay inlined.
pub(crate) const DEFAULT_MAX_INLINED_MATH_CALLS: usize = 24;

impl Default for CodegenOptions {
    /// Streaming stores into buffers of 64 MiB and more (well past a last-level cache), and
    /// every other choice on.
    fn default() -> CodegenOptions {
        CodegenOptions {
            streaming_store_min_bytes: Some(64 << 20),
            prefetch_next_row: true,
            row_cache_min_cost: Some(rowcache::DEFAULT_MIN_COST),
            invariant_reciprocal: true,
            pipeline_rows: true,
            guarded_max_min: true,
            bounded_exp: true,
            table_exp: true,
            max_inlined_math_calls: Some(DEFAULT_MAX_INLINED_MATH_CALLS),
        }
    }
}

/// Emits `kernel` into `module` as the function `fname`, with vector loops of `width` f32 lanes
/// (the host's vector bytes / 4: 8 with AVX2, 16 with AVX-512): [`plan_kernel`], then
/// [`emit_planned`].
pub fn emit_kernel<'ctx>(
    module: &Module<'ctx>,
    kernel: &Kernel,
    fname: &str,
    options: &CodegenOptions,
    width: u32,
) -> Result<LaunchShape, CpuError> {
    emit_planned(module, &plan_kernel(kernel, options, width), fname, options)
}

/// Emits a planned kernel into `module` as the function `fname`; `options` must be the ones it
/// was planned with.
pub fn emit_planned<'ctx>(
    module: &Module<'ctx>,
    plan: &KernelPlan,
    fname: &str,
    options: &CodegenOptions,
) -> Result<LaunchShape, CpuError> {
    let KernelPlan {
        kernel,
        width,
        shape,
        cached,
        pipeline,
        row_bounds,
        prefetch,
        size_params,
        row_capacity,
    } = plan.clone();
    let kernel = &kernel;
    let cx = module.get_context();
    let builder = cx.create_builder();
    let ptr = cx.ptr_type(AddressSpace::default());
    let i64t = cx.i64_type();
    let f = module.add_function(
        fname,
        cx.void_type()
            .fn_type(&[ptr.into(), i64t.into(), i64t.into()], false),
        None,
    );
    let nounwind = Attribute::get_named_enum_kind_id("nounwind");
    f.add_attribute(
        AttributeLoc::Function,
        cx.create_enum_attribute(nounwind, 0),
    );
    let mut em = Emitter {
        ir: Ir::new(
            &builder,
            module,
            VMathOptions {
                table_exp: options.table_exp,
            },
        ),
        k: kernel,
        f,
        width,
        shape,
        args: vec![],
        slots: HashMap::new(),
        acc_values: HashMap::new(),
        outer_values: HashMap::new(),
        hoisted: HashMap::new(),
        prefetch,
        cached,
        row_arrays: vec![],
        cache_loads: HashMap::new(),
        streaming_store_min_bytes: options.streaming_store_min_bytes,
        invariant_reciprocal: options.invariant_reciprocal,
        pipeline,
        // A generalized kernel's rows have no known length for the guarded redo.
        guarded_max_min: options.guarded_max_min && size_params.is_none(),
        pipe: None,
        row_bounds,
        exp_in_range: HashSet::new(),
        next_vars: HashMap::new(),
        streamed: std::cell::Cell::new(false),
        indirect: std::cell::RefCell::new(HashMap::new()),
        scan_slots: HashMap::new(),
        size_params: size_params.clone(),
        param_values: vec![],
        row_capacity: row_capacity.unwrap_or(kernel.rnumel()),
    };
    let emitted = em.emit();
    if emitted.is_ok() {
        mark_math_calls(f, options.max_inlined_math_calls);
    }
    emitted.map_err(|e| match e {
        CpuError::Codegen { message, .. } => CpuError::Codegen {
            kernel: kernel.name.clone(),
            message,
        },
        other => CpuError::Codegen {
            kernel: kernel.name.clone(),
            message: other.to_string(),
        },
    })?;
    Ok(shape)
}

/// Marks `f`'s calls of the math library (the module's internal, defined functions: the
/// library's `alwaysinline` ones) `noinline` when there are more than `max` of them, so that
/// LLVM compiles each function once instead of once per call ([`CodegenOptions::
/// max_inlined_math_calls`]).
fn mark_math_calls(f: FunctionValue<'_>, max: Option<usize>) {
    let Some(max) = max else { return };
    let mut calls = Vec::new();
    for block in f.get_basic_block_iter() {
        for inst in block.get_instructions() {
            if inst.get_opcode() != inkwell::values::InstructionOpcode::Call {
                continue;
            }
            let Ok(call) = inkwell::values::CallSiteValue::try_from(inst) else {
                continue;
            };
            let callee = call.get_called_fn_value();
            if let Some(callee) = callee
                && callee.get_linkage() == inkwell::module::Linkage::Internal
                && callee.count_basic_blocks() > 0
            {
                calls.push(call);
            }
        }
    }
    if calls.len() <= max {
        return;
    }
    let cx = f.get_type().get_context();
    let noinline = cx.create_enum_attribute(Attribute::get_named_enum_kind_id("noinline"), 0);
    for call in calls {
        call.add_attribute(AttributeLoc::Function, noinline);
    }
}

/// Where the loop variables stand while emitting a body.
#[derive(Clone)]
struct Env<'ctx> {
    vars: HashMap<Var, IntValue<'ctx>>,
    /// The vectorized variable: lane `l` sees `vars[v] + l`.
    vec: Option<Var>,
    width: u32,
    /// Which of the vector accumulators this copy of the body feeds.
    acc: u32,
}

impl<'ctx> Env<'ctx> {
    fn scalar(vars: HashMap<Var, IntValue<'ctx>>) -> Self {
        Env {
            vars,
            vec: None,
            width: 1,
            acc: 0,
        }
    }

    fn suffix(&self) -> &'static str {
        if self.width > 1 { "" } else { ".s" }
    }
}

/// How a load or store touches memory across the lanes of the vectorized variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    /// The same element for every lane.
    Uniform,
    /// Consecutive elements.
    Contiguous,
    /// Anything else.
    Strided,
}

fn access(index: &IndexExpr, env: &Env<'_>) -> Access {
    let Some(v) = env.vec.filter(|_| env.width > 1) else {
        return Access::Uniform;
    };
    if !index.contains_var(v) {
        return Access::Uniform;
    }
    let only_linear = index.terms().iter().all(|(t, _)| match t {
        Term::Var(_) => true,
        Term::FloorDiv(e, _) | Term::ModularIndexing(e, _, _) => !e.contains_var(v),
        Term::SizeTimes(..) => !t.contains_var(v),
    });
    if only_linear && index.coefficient(v) == 1 {
        Access::Contiguous
    } else {
        Access::Strided
    }
}

type Body<'s, 'a, 'ctx> =
    &'s mut dyn FnMut(&mut Emitter<'a, 'ctx>, IntValue<'ctx>) -> Result<(), CpuError>;
/// Emits one copy of a loop body at a loop position.
type EnvBody<'s, 'a, 'ctx> =
    &'s mut dyn FnMut(&mut Emitter<'a, 'ctx>, &Env<'ctx>) -> Result<(), CpuError>;
/// Emits code between blocks of a loop.
type Fold<'s, 'a, 'ctx> = &'s mut dyn FnMut(&mut Emitter<'a, 'ctx>) -> Result<(), CpuError>;

struct Emitter<'a, 'ctx> {
    ir: Ir<'a, 'ctx>,
    k: &'a Kernel,
    f: FunctionValue<'ctx>,
    width: u32,
    shape: LaunchShape,
    args: Vec<PointerValue<'ctx>>,
    slots: HashMap<AccId, AccSlot<'ctx>>,
    /// Finished accumulators of the current outer point.
    acc_values: HashMap<AccId, V<'ctx>>,
    /// Values of the current outer point's outer stages.
    outer_values: HashMap<ValueId, V<'ctx>>,
    /// Values computed once, at the kernel's entry ([`Emitter::hoist_invariants`]): what
    /// depends only on constants and on read-only elements at fixed positions (an optimizer
    /// step's `beta ** step`, read from a 0-d tensor).
    hoisted: HashMap<ValueId, V<'ctx>>,
    /// What the row cache holds ([`rowcache`]), planned once per kernel.
    cached: Vec<rowcache::CachedValue>,
    /// The current row's scratch array of each `cached` entry (a pipelined kernel alternates
    /// two per entry, [`pipeline`]).
    row_arrays: Vec<PointerValue<'ctx>>,
    /// Values reloaded from the row cache: value -> index into `cached`.
    cache_loads: HashMap<ValueId, usize>,
    /// Streamed loads of the first reduction stage, prefetched for the next outer point by a
    /// later reduction stage ([`plan_prefetch`]).
    prefetch: Option<Prefetch>,
    /// The outer variables of the next outer point.
    next_vars: HashMap<Var, IntValue<'ctx>>,
    /// Whether a non-temporal store was emitted (the function then ends with a fence).
    streamed: std::cell::Cell<bool>,
    /// The current body copy's indirect indices (`ind<n>` is value `n`): scalars, or lanes.
    indirect: std::cell::RefCell<HashMap<u32, V<'ctx>>>,
    /// Each scan value's running value (a stack slot of its compute type, in the entry block).
    scan_slots: HashMap<ValueId, (PointerValue<'ctx>, BasicTypeEnum<'ctx>)>,
    streaming_store_min_bytes: Option<usize>,
    invariant_reciprocal: bool,
    /// The row pipeline's plan, until [`Emitter::setup_pipeline`] takes it.
    pipeline: Option<pipeline::PipelinePlan>,
    /// [`CodegenOptions::guarded_max_min`].
    guarded_max_min: bool,
    /// The row pipeline, when the kernel has one ([`pipeline`]).
    pipe: Option<Pipe<'ctx>>,
    /// Stages whose `exp`s are bounded per row ([`bounds`]).
    row_bounds: Vec<bounds::BoundedStage>,
    /// The `exp` values emitted without the range test (in the in-range copy of their stage's
    /// loop).
    exp_in_range: HashSet<ValueId>,
    /// A kernel generalized over sizes: which ranges its launch gives ([`SizeParams`]).
    size_params: Option<SizeParams>,
    /// The size parameters' values, loaded at the entry (`s0`, `s1`, ...).
    param_values: Vec<IntValue<'ctx>>,
    /// Elements of each row-cache array (the row's length, or a generalized kernel's
    /// capacity).
    row_capacity: usize,
}

/// A pipelined kernel's state while emitting ([`pipeline`]).
struct Pipe<'ctx> {
    plan: pipeline::PipelinePlan,
    /// The row cache's arrays: `base[i]` (the first) and `alt[i]` (the second); rows alternate.
    base: Vec<PointerValue<'ctx>>,
    alt: Vec<PointerValue<'ctx>>,
    /// Stack slots of the late stage's accumulators, written by each row for the next.
    acc_slots: Vec<(AccId, PointerValue<'ctx>, BasicTypeEnum<'ctx>)>,
    /// The first outer iteration of this call (`start`).
    start: IntValue<'ctx>,
    /// Per row: whether a previous row waits for its late stage, its variables, its row-cache
    /// arrays and its accumulators.
    has_prev: Option<IntValue<'ctx>>,
    prev_vars: HashMap<Var, IntValue<'ctx>>,
    prev_cache: Vec<PointerValue<'ctx>>,
    prev_accs: HashMap<AccId, V<'ctx>>,
}

/// Software prefetch of the next row.
#[derive(Clone, Debug)]
struct Prefetch {
    /// The stage whose vector loop issues the prefetches.
    stage: usize,
    /// `(argument, index)` of each load to prefetch.
    loads: Vec<(ArgId, IndexExpr)>,
}

/// Per-element cost (as [`rowcache::stage_cost`] counts it: a transcendental is 20) from which
/// a reduction stage unrolls [`HEAVY_STAGE_UNROLL`] times instead of [`reduce::ACC_VECTORS`].
const HEAVY_STAGE_COST: u32 = 20;
/// Unrolled copies (and vector accumulators in use) of a heavy reduction stage.
const HEAVY_STAGE_UNROLL: u32 = 2;

/// Rows shorter than this many bytes are left to the hardware prefetcher.
const PREFETCH_MIN_ROW_BYTES: usize = 4096;

/// In a reduction kernel with several reduction stages over long rows, the hardware prefetcher
/// stops at each row's end (and at page boundaries), and the later stages of a row (computing
/// from cache) leave memory idle. So one later reduction stage, the one that computes the most
/// per element once the row cache is taken into account (softmax's `exp` stage; the last stage
/// on ties and in two-stage kernels such as layernorm's), prefetches the first stage's streamed
/// loads (contiguous in the innermost reduction variable, moving with the outer point) for the
/// next outer point, one vector's worth per iteration.
fn plan_prefetch(k: &Kernel, cached: &[rowcache::CachedValue]) -> Option<Prefetch> {
    if !matches!(k.kind, KernelKind::Reduction { .. }) || k.ranges.is_empty() {
        return None;
    }
    let reduction_stages: Vec<usize> = (0..k.stages.len())
        .filter(|&i| k.stages[i].kind == StageKind::Reduction)
        .collect();
    let (&first, &last) = (reduction_stages.first()?, reduction_stages.last()?);
    // With one reduction stage, the row's only loop streams and the hardware keeps up.
    if first == last {
        return None;
    }
    let (inner, _) = *k.reduction_vars().last()?;
    let n = k.ranges.len();
    let mut loads: Vec<(ArgId, IndexExpr)> = vec![];
    for &v in &k.stages[first].values {
        let KExpr::Load {
            arg,
            index,
            mask: None,
        } = k.expr(v)
        else {
            continue;
        };
        let row_bytes = k.rnumel() * k.arg(*arg).dtype.itemsize();
        let env = Env {
            vars: HashMap::new(),
            vec: Some(inner),
            width: 2,
            acc: 0,
        };
        let moves = (0..n).any(|i| index.contains_var(Var::p(i)));
        if row_bytes >= PREFETCH_MIN_ROW_BYTES
            && moves
            && access(index, &env) == Access::Contiguous
            && !loads.contains(&(*arg, index.clone()))
        {
            loads.push((*arg, index.clone()));
        }
    }
    // The stage that computes the most per element (ties: the later one) keeps the core busy
    // longest while the next row arrives; a stage that computes little would wait for it.
    let stage = reduction_stages[1..]
        .iter()
        .copied()
        .max_by_key(|&s| (rowcache::stage_cost(k, s, cached), s))
        .unwrap_or(last);
    (!loads.is_empty()).then_some(Prefetch { stage, loads })
}

impl<'a, 'ctx> Emitter<'a, 'ctx> {
    fn emit(&mut self) -> Result<(), CpuError> {
        let cx = self.ir.cx;
        let b = self.ir.b;
        let entry = cx.append_basic_block(self.f, "entry");
        b.position_at_end(entry);
        let param = |i: u32, name: &str| {
            let p = self.f.get_nth_param(i).expect("three parameters");
            p.set_name(name);
            p
        };
        let args = param(0, "args").into_pointer_value();
        let start = param(1, "start").into_int_value();
        let end = param(2, "end").into_int_value();
        let ptr = cx.ptr_type(AddressSpace::default());
        for (i, a) in self.k.args.iter().enumerate() {
            let slot = self.ir.gep(ptr.into(), args, self.ir.i64c(i as i64))?;
            let p = b.build_load(ptr, slot, &a.name)?.into_pointer_value();
            self.args.push(p);
        }
        // A generalized kernel's size parameters: an i64 array after the buffers' pointers.
        if let Some(sp) = &self.size_params {
            let i64t = cx.i64_type();
            let n = self.k.args.len() as i64;
            let slot = self.ir.gep(ptr.into(), args, self.ir.i64c(n))?;
            let array = b.build_load(ptr, slot, "sizes")?.into_pointer_value();
            for k in 0..sp.count {
                let at = self.ir.gep(i64t.into(), array, self.ir.i64c(k as i64))?;
                let v = b.build_load(i64t, at, &format!("s{k}"))?.into_int_value();
                self.param_values.push(v);
            }
        }
        // Accumulator slots live in the entry block, so LLVM promotes them to registers.
        for stage in &self.k.stages {
            for acc in &stage.accumulators {
                let value_dtype = self.k.dtype(acc.value);
                let slot = self.ir.acc_slot(acc, value_dtype, self.width)?;
                self.slots.insert(acc.id, slot);
            }
            self.assign_guards(&stage.accumulators)?;
        }
        // Scan slots, also in the entry block.
        for stage in &self.k.stages {
            for &v in &stage.values {
                if let KExpr::Scan { .. } = self.k.expr(v) {
                    let ty = self.ir.scalar_ty(Class::of(self.k.dtype(v)));
                    let p = b.build_alloca(ty, &format!("scan_{v}"))?;
                    self.scan_slots.insert(v, (p, ty));
                }
            }
        }
        // Row-cache scratch arrays, also in the entry block.
        for i in 0..self.cached.len() {
            let p = self.row_array(i, "")?;
            for &u in &self.cached[i].users {
                self.cache_loads.insert(u, i);
            }
            self.row_arrays.push(p);
        }
        self.setup_pipeline(start)?;
        self.hoist_invariants()?;
        if self.shape.flat {
            // The elements `start..end` of the one range, as one row.
            self.vector_and_tail(
                Var::p(0),
                (start, end),
                HashMap::new(),
                1,
                None,
                &mut |em, env| em.pointwise_body(env),
            )?;
        } else {
            self.counted_loop(start, end, 1, "it", &mut |em, it| em.outer_iteration(it))?;
        }
        self.late_stage_of_last_row(start, end)?;
        if self.streamed.get() {
            // Streaming stores are weakly ordered: fence them before the caller signals
            // completion to other threads.
            b.build_fence(inkwell::AtomicOrdering::SequentiallyConsistent, false, "")?;
        }
        b.build_return(None)?;
        Ok(())
    }

    /// `for (iv = from; iv + step <= to; iv += step) body(iv)`; returns `iv`'s value on exit
    /// (where a tail loop starts).
    fn counted_loop(
        &mut self,
        from: IntValue<'ctx>,
        to: IntValue<'ctx>,
        step: u64,
        name: &str,
        body: Body<'_, 'a, 'ctx>,
    ) -> Result<IntValue<'ctx>, CpuError> {
        let cx = self.ir.cx;
        let b = self.ir.b;
        let i64t = self.ir.i64t();
        let pre = b
            .get_insert_block()
            .ok_or_else(|| err("builder not positioned"))?;
        let header = cx.append_basic_block(self.f, &format!("{name}.loop"));
        let body_bb = cx.append_basic_block(self.f, &format!("{name}.body"));
        let exit = cx.append_basic_block(self.f, &format!("{name}.exit"));
        b.build_unconditional_branch(header)?;
        b.position_at_end(header);
        let iv = b.build_phi(i64t, name)?;
        iv.add_incoming(&[(&from, pre)]);
        let ivv = iv.as_basic_value().into_int_value();
        let step_c = i64t.const_int(step, false);
        let next = b.build_int_add(ivv, step_c, &format!("{name}.next"))?;
        let go = b.build_int_compare(IntPredicate::SLE, next, to, "")?;
        b.build_conditional_branch(go, body_bb, exit)?;
        b.position_at_end(body_bb);
        body(self, ivv)?;
        let latch = b
            .get_insert_block()
            .ok_or_else(|| err("builder not positioned"))?;
        b.build_unconditional_branch(header)?;
        iv.add_incoming(&[(&next, latch)]);
        b.position_at_end(exit);
        Ok(ivv)
    }

    /// `flat` as row-major coordinates over the first `vars.len()` outer ranges, bound to
    /// `vars` (the outermost takes no remainder: its size is never read).
    fn unflatten(
        &self,
        flat: IntValue<'ctx>,
        vars: &[Var],
        out: &mut HashMap<Var, IntValue<'ctx>>,
    ) -> Result<(), CpuError> {
        let b = self.ir.b;
        // The stride so far: a number while every range inside is one, else a value.
        let mut stride: Result<usize, IntValue<'ctx>> = Ok(1);
        for (i, &v) in vars.iter().enumerate().rev() {
            let mut x = flat;
            match stride {
                Ok(1) => {}
                Ok(s) => x = b.build_int_unsigned_div(x, self.ir.i64c(s as i64), "")?,
                Err(s) => x = b.build_int_unsigned_div(x, s, "")?,
            }
            let size = self.range_size(i);
            if i > 0 {
                x = b.build_int_unsigned_rem(x, self.range_value(i), "")?;
            }
            x.set_name(&v.to_string());
            out.insert(v, x);
            stride = match (stride, size) {
                (Ok(s), Some(n)) => Ok(s * n),
                (s, _) => {
                    let s = match s {
                        Ok(c) => self.ir.i64c(c as i64),
                        Err(v) => v,
                    };
                    Err(b.build_int_mul(s, self.range_value(i), "")?)
                }
            };
        }
        Ok(())
    }

    /// Range `i` (outer ranges first, then reduction ranges) as a number, or `None` where the
    /// launch gives it (a size parameter).
    fn range_size(&self, i: usize) -> Option<usize> {
        match self.size_params.as_ref().and_then(|sp| sp.range(i)) {
            Some(_) => None,
            None => self
                .k
                .ranges
                .iter()
                .chain(&self.k.reduction_ranges)
                .nth(i)
                .copied(),
        }
    }

    /// Range `i`'s value: a constant, or its size parameter.
    fn range_value(&self, i: usize) -> IntValue<'ctx> {
        match self.size_params.as_ref().and_then(|sp| sp.range(i)) {
            Some(p) => self.param_values[p as usize],
            None => self.ir.i64c(self.range_size(i).unwrap_or(0) as i64),
        }
    }

    /// The outer variables `p0, p1, ...` of outer iteration `it` (row-major over the ranges).
    fn outer_point(&self, it: IntValue<'ctx>) -> Result<HashMap<Var, IntValue<'ctx>>, CpuError> {
        let outer_vars: Vec<Var> = (0..self.k.ranges.len()).map(Var::p).collect();
        let mut vars = HashMap::new();
        self.unflatten(it, &outer_vars, &mut vars)?;
        Ok(vars)
    }

    fn outer_iteration(&mut self, it: IntValue<'ctx>) -> Result<(), CpuError> {
        let n = self.k.ranges.len();
        let outer_vars: Vec<Var> = (0..n).map(Var::p).collect();
        if matches!(self.k.kind, KernelKind::Reduction { .. }) {
            let vars = self.outer_point(it)?;
            if self.prefetch.is_some() {
                let next = self
                    .ir
                    .b
                    .build_int_add(it, self.ir.i64c(1), "it.prefetch")?;
                self.next_vars = self.outer_point(next)?;
            }
            self.acc_values.clear();
            self.outer_values.clear();
            self.pipeline_row(it)?;
            let late = self.pipe.as_ref().map(|p| p.plan.late);
            let k = self.k;
            for (si, stage) in k.stages.iter().enumerate() {
                if Some(si) == late {
                    // Runs in the next row's host loop (or after the last row).
                    self.keep_late_accs()?;
                    continue;
                }
                match stage.kind {
                    StageKind::Outer => {
                        let env = Env::scalar(vars.clone());
                        let vals = self.stage_values(stage, &env, None)?;
                        self.stores(stage, &vals, &env)?;
                        self.outer_values.extend(vals);
                    }
                    StageKind::Reduction => self.reduction_stage(si, stage, &vars)?,
                }
            }
            return Ok(());
        }
        if n == 0 {
            return self.pointwise_body(&Env::scalar(HashMap::new()));
        }
        // Pointwise: `it` is (row, block); the innermost variable runs over the block.
        let b = self.ir.b;
        let shape = self.shape;
        let inner = self.k.ranges[n - 1];
        let (row, lo, hi) = if shape.blocks == 1 {
            (it, self.ir.i64c(0), self.range_value(n - 1))
        } else {
            let blocks = self.ir.i64c(shape.blocks as i64);
            let row = b.build_int_unsigned_div(it, blocks, "row")?;
            let blk = b.build_int_unsigned_rem(it, blocks, "block")?;
            let lo = b.build_int_mul(blk, self.ir.i64c(shape.block_len as i64), "lo")?;
            let hi = b.build_int_add(lo, self.ir.i64c(shape.block_len as i64), "")?;
            let inner_c = self.ir.i64c(inner as i64);
            let short = b.build_int_compare(IntPredicate::SLT, hi, inner_c, "")?;
            let hi = b.build_select(short, hi, inner_c, "hi")?.into_int_value();
            (row, lo, hi)
        };
        let mut vars = HashMap::new();
        self.unflatten(row, &outer_vars[..n - 1], &mut vars)?;
        self.vector_and_tail(
            outer_vars[n - 1],
            (lo, hi),
            vars,
            1,
            None,
            &mut |em, env| em.pointwise_body(env),
        )
    }

    /// Emits `unroll` copies of `body` for the vectors at `iv`, `iv + W`, ...; copy `u` feeds
    /// vector accumulator `u`.
    fn unrolled_copies(
        &mut self,
        iv: IntValue<'ctx>,
        var: Var,
        vars: &HashMap<Var, IntValue<'ctx>>,
        unroll: u32,
        body: EnvBody<'_, 'a, 'ctx>,
    ) -> Result<(), CpuError> {
        let width = self.width;
        for u in 0..unroll {
            let mut vars = vars.clone();
            let at = self.ir.b.build_int_add(
                iv,
                self.ir.i64c((u * width) as i64),
                &format!("{var}.{u}"),
            )?;
            vars.insert(var, at);
            let env = Env {
                vars,
                vec: Some(var),
                width,
                acc: u,
            };
            body(self, &env)?;
        }
        Ok(())
    }

    /// Runs `body` over `var` in `lo..hi`: `unroll` times `W` lanes at a time (copy `u` feeding
    /// vector accumulator `u`), then `W` lanes at a time, then one at a time. With `fold`, the
    /// unrolled loop runs in blocks of [`CASCADE_BLOCK`] iterations and calls `fold` after
    /// each (a two-level summation).
    fn vector_and_tail(
        &mut self,
        var: Var,
        (lo, hi): (IntValue<'ctx>, IntValue<'ctx>),
        vars: HashMap<Var, IntValue<'ctx>>,
        unroll: u32,
        mut fold: Option<Fold<'_, 'a, 'ctx>>,
        body: EnvBody<'_, 'a, 'ctx>,
    ) -> Result<(), CpuError> {
        let width = self.width;
        let name = var.to_string();
        let mut from = lo;
        // A cascading fold needs the blocked loop even without unrolling.
        if width > 1 && (unroll > 1 || fold.is_some()) {
            let step = (width * unroll) as u64;
            if let Some(fold) = fold.as_mut() {
                let block = step * CASCADE_BLOCK;
                from = self.phase(lo, hi, block, &format!("{name}.block"), &mut |em, start| {
                    let end = em.ir.b.build_int_add(start, em.ir.i64c(block as i64), "")?;
                    em.counted_loop(
                        start,
                        end,
                        step,
                        &format!("{name}.x{unroll}"),
                        &mut |em, iv| em.unrolled_copies(iv, var, &vars, unroll, body),
                    )?;
                    fold(em)
                })?;
            }
            from = self.phase(
                from,
                hi,
                step,
                &format!("{name}.x{unroll}"),
                &mut |em, iv| em.unrolled_copies(iv, var, &vars, unroll, body),
            )?;
        }
        if width > 1 {
            from = self.phase(from, hi, width as u64, &name, &mut |em, iv| {
                let mut vars = vars.clone();
                vars.insert(var, iv);
                body(
                    em,
                    &Env {
                        vars,
                        vec: Some(var),
                        width,
                        acc: 0,
                    },
                )
            })?;
        }
        self.phase(from, hi, 1, &format!("{name}.tail"), &mut |em, iv| {
            let mut vars = vars.clone();
            vars.insert(var, iv);
            body(em, &Env::scalar(vars))
        })?;
        Ok(())
    }

    /// One phase of [`Emitter::vector_and_tail`]: `counted_loop(from, to, step, ..)`, returning
    /// where the next phase starts. With both bounds constant (a reduction row's, or a pointwise
    /// row in one block), the trip count is known here: a phase with none is not emitted at
    /// all, and the next phase starts at a constant, so a row whose length the vectors divide
    /// gets no remainder loop and no scalar tail (less IR for LLVM to optimise; nothing changes
    /// at run time).
    fn phase(
        &mut self,
        from: IntValue<'ctx>,
        to: IntValue<'ctx>,
        step: u64,
        name: &str,
        body: Body<'_, 'a, 'ctx>,
    ) -> Result<IntValue<'ctx>, CpuError> {
        let known = |v: IntValue<'ctx>| v.get_sign_extended_constant().filter(|&c| c >= 0);
        let (Some(a), Some(b)) = (known(from), known(to)) else {
            return self.counted_loop(from, to, step, name, body);
        };
        let trips = (b - a).max(0) as u64 / step;
        if trips == 0 {
            return Ok(from);
        }
        self.counted_loop(from, to, step, name, body)?;
        Ok(self.ir.i64c(a + (trips * step) as i64))
    }

    fn pointwise_body(&mut self, env: &Env<'ctx>) -> Result<(), CpuError> {
        let k = self.k;
        for stage in &k.stages {
            let vals = self.stage_values(stage, env, None)?;
            self.stores(stage, &vals, env)?;
        }
        Ok(())
    }

    fn reduction_stage(
        &mut self,
        si: usize,
        stage: &Stage,
        vars: &HashMap<Var, IntValue<'ctx>>,
    ) -> Result<(), CpuError> {
        for acc in &stage.accumulators {
            self.ir.acc_init(&self.slots[&acc.id])?;
        }
        let rvars: Vec<(Var, usize)> = self.k.reduction_vars();
        // The position argmax/argmin report: row-major over the reduction ranges.
        let mut pos = IndexExpr::zero();
        let mut stride = 1i64;
        for &(v, s) in rvars.iter().rev() {
            pos = pos.add(&IndexExpr::var(v).scale(stride));
            stride *= s as i64;
        }
        if self.k.stage_scans(si) {
            // A scan: its running values start from the identity, and the row is visited in
            // order, one element at a time.
            for &v in &stage.values {
                if let KExpr::Scan { scan_type, .. } = self.k.expr(v) {
                    let identity = match scan_type {
                        coil_lower::ReductionType::Prod => Const::Int(1),
                        coil_lower::ReductionType::LogAddExp => Const::Float(f64::NEG_INFINITY),
                        _ => Const::Int(0),
                    };
                    let init = self.ir.constant(identity, self.k.dtype(v));
                    self.ir.store_slot(self.scan_slots[&v].0, init)?;
                }
            }
            self.scan_nest(si, stage, &rvars, 0, vars.clone(), &pos)?;
        } else if rvars.is_empty() {
            self.reduction_body(si, stage, &Env::scalar(vars.clone()), &pos)?;
        } else if self.guarded_stage(si, stage) {
            self.guarded_reduction_nest(si, stage, &rvars, vars, &pos)?;
        } else if let Some(row) = self.row_in_range(si)? {
            self.bounded_reduction_nest((si, stage), &rvars, vars, &pos, row)?;
        } else {
            self.reduction_nest(si, stage, &rvars, 0, vars.clone(), &pos)?;
        }
        for acc in &stage.accumulators {
            let v = self.ir.acc_finish(&self.slots[&acc.id])?;
            self.acc_values.insert(acc.id, v);
        }
        Ok(())
    }

    fn reduction_nest(
        &mut self,
        si: usize,
        stage: &Stage,
        rvars: &[(Var, usize)],
        depth: usize,
        vars: HashMap<Var, IntValue<'ctx>>,
        pos: &IndexExpr,
    ) -> Result<(), CpuError> {
        let (v, _) = rvars[depth];
        let (lo, hi) = (self.ir.i64c(0), self.range_value(v.n as usize));
        if depth + 1 < rvars.len() {
            self.counted_loop(lo, hi, 1, &v.to_string(), &mut |em, iv| {
                let mut vars = vars.clone();
                vars.insert(v, iv);
                em.reduction_nest(si, stage, rvars, depth + 1, vars, pos)
            })?;
            return Ok(());
        }
        // Stages that accumulate unroll, so the accumulators' updates overlap. A stage that
        // computes a transcendental per element takes longer per vector than an update's
        // latency: fewer copies leave registers for its constants (16 vector registers with
        // AVX2), which would otherwise be reloaded for every vector.
        let unroll = if stage.accumulators.is_empty() {
            1
        } else if self.stage_cost(si) >= HEAVY_STAGE_COST {
            HEAVY_STAGE_UNROLL
        } else {
            reduce::ACC_VECTORS
        };
        // Float sums fold their vector accumulators into a second level every block, so a
        // long row's rounding error grows with the block and the number of blocks, not with
        // the row (close to the pairwise summation eager and PyTorch use).
        let cascading: Vec<AccId> = stage
            .accumulators
            .iter()
            .map(|a| a.id)
            .filter(|id| self.slots[id].cascades())
            .collect();
        let mut fold = |em: &mut Self| -> Result<(), CpuError> {
            for id in &cascading {
                em.ir.acc_fold(&em.slots[id])?;
            }
            Ok(())
        };
        let fold: Option<Fold<'_, 'a, 'ctx>> = if cascading.is_empty() {
            None
        } else {
            Some(&mut fold)
        };
        self.vector_and_tail(v, (lo, hi), vars, unroll, fold, &mut |em, env| {
            em.reduction_body(si, stage, env, pos)
        })
    }

    /// A scan stage's loop nest: every reduction variable in order, scalar.
    fn scan_nest(
        &mut self,
        si: usize,
        stage: &Stage,
        rvars: &[(Var, usize)],
        depth: usize,
        vars: HashMap<Var, IntValue<'ctx>>,
        pos: &IndexExpr,
    ) -> Result<(), CpuError> {
        let Some(&(v, size)) = rvars.get(depth) else {
            return self.reduction_body(si, stage, &Env::scalar(vars), pos);
        };
        let (lo, hi) = (self.ir.i64c(0), self.ir.i64c(size as i64));
        self.counted_loop(lo, hi, 1, &v.to_string(), &mut |em, iv| {
            let mut vars = vars.clone();
            vars.insert(v, iv);
            em.scan_nest(si, stage, rvars, depth + 1, vars, pos)
        })?;
        Ok(())
    }

    /// [`rowcache::stage_cost`] of stage `si` with this kernel's row cache.
    fn stage_cost(&self, si: usize) -> u32 {
        rowcache::stage_cost(self.k, si, &self.cached)
    }

    /// A new 64-byte aligned scratch array for row-cache entry `i` (`row_cache<i><suffix>`),
    /// at the builder's position (the entry block).
    fn row_array(&self, i: usize, suffix: &str) -> Result<PointerValue<'ctx>, CpuError> {
        let elem = self.ir.scalar_ty(Class::of(self.cached[i].dtype));
        let array = elem.array_type(self.row_capacity as u32);
        let p = self
            .ir
            .b
            .build_alloca(array, &format!("row_cache{i}{suffix}"))?;
        if let Some(ins) = p.as_instruction_value() {
            ins.set_alignment(64).map_err(|e| err(e.to_string()))?;
        }
        Ok(p)
    }

    fn reduction_body(
        &mut self,
        si: usize,
        stage: &Stage,
        env: &Env<'ctx>,
        pos: &IndexExpr,
    ) -> Result<(), CpuError> {
        // The row cache is indexed by the position in the row (lane 0's, in vector code).
        let uses_cache = self.cached.iter().any(|c| c.source_stage == si)
            || stage
                .values
                .iter()
                .any(|v| self.cache_loads.contains_key(v));
        let row_pos = if uses_cache {
            Some(self.scalar_index(pos, env)?)
        } else {
            None
        };
        let vals = self.stage_values(stage, env, row_pos)?;
        for (entry, scratch) in self.cached.iter().zip(&self.row_arrays) {
            if entry.source_stage == si {
                let p = row_pos.ok_or_else(|| err("row cache without a position"))?;
                let elem = self.ir.scalar_ty(Class::of(entry.dtype));
                let v = self.ir.splat(vals[&entry.source], env.width)?;
                self.ir.store_raw(elem, *scratch, p, v)?;
            }
        }
        self.stores(stage, &vals, env)?;
        self.prefetch_next_row(si, env)?;
        self.late_stage_of_previous_row(si, env, pos)?;
        if stage.accumulators.is_empty() {
            return Ok(());
        }
        let needs_pos = stage
            .accumulators
            .iter()
            .any(|a| self.slots[&a.id].vec_pos_needed());
        let p = if needs_pos {
            self.index_value(pos, env)?
        } else {
            self.ir.i64c(0).into()
        };
        for acc in &stage.accumulators {
            let x = vals[&acc.value];
            let slot = (env.width > 1).then_some(env.acc);
            self.ir.acc_update(&self.slots[&acc.id], x, p, slot)?;
        }
        Ok(())
    }

    fn prefetch_next_row(&self, si: usize, env: &Env<'ctx>) -> Result<(), CpuError> {
        let Some(pf) = self.prefetch.as_ref().filter(|p| p.stage == si) else {
            return Ok(());
        };
        if env.width == 1 {
            return Ok(());
        }
        let mut vars = env.vars.clone();
        vars.extend(self.next_vars.iter().map(|(v, x)| (*v, *x)));
        let next = Env::scalar(vars);
        for (arg, index) in &pf.loads {
            let i = self.index_value(index, &next)?.into_int_value();
            let d = self.k.arg(*arg).dtype;
            // A plain (not inbounds) address: past the last row it points nowhere, which a
            // prefetch may do.
            let bytes = self
                .ir
                .b
                .build_int_mul(i, self.ir.i64c(d.itemsize() as i64), "")?;
            // SAFETY (of the IR): a byte offset from the argument, only prefetched.
            let p = unsafe {
                self.ir.b.build_gep(
                    self.ir.cx.i8_type(),
                    self.args[arg.0 as usize],
                    &[bytes],
                    "prefetch",
                )?
            };
            let i32c = |x: u64| self.ir.cx.i32_type().const_int(x, false);
            let f = inkwell::intrinsics::Intrinsic::find("llvm.prefetch")
                .and_then(|f| f.get_declaration(self.ir.module, &[p.get_type().into()]))
                .ok_or(CpuError::MissingIntrinsic("llvm.prefetch"))?;
            self.ir.b.build_call(
                f,
                &[p.into(), i32c(0).into(), i32c(3).into(), i32c(1).into()],
                "",
            )?;
        }
        Ok(())
    }

    /// Computes at the kernel's entry, once, the values [`hoist::entry_invariants`] picks
    /// (those the row cache loads stay where they are).
    fn hoist_invariants(&mut self) -> Result<(), CpuError> {
        let entry = Stage {
            kind: StageKind::Outer,
            values: hoist::entry_invariants(self.k, |v| self.cache_loads.contains_key(&v)),
            accumulators: Vec::new(),
            stores: Vec::new(),
        };
        self.hoisted = self.stage_values(&entry, &Env::scalar(HashMap::new()), None)?;
        Ok(())
    }

    fn value(&self, vals: &HashMap<ValueId, V<'ctx>>, v: ValueId) -> Result<V<'ctx>, CpuError> {
        vals.get(&v)
            .or_else(|| self.outer_values.get(&v))
            .or_else(|| self.hoisted.get(&v))
            .copied()
            .ok_or_else(|| err(format!("{v} is used outside the stage that computes it")))
    }

    /// Every value of `stage` at the loop position `env`.
    fn stage_values(
        &self,
        stage: &Stage,
        env: &Env<'ctx>,
        row_pos: Option<IntValue<'ctx>>,
    ) -> Result<HashMap<ValueId, V<'ctx>>, CpuError> {
        let k = self.k;
        let mut vals: HashMap<ValueId, V<'ctx>> = HashMap::new();
        // Values that do not change along this stage's loop: constants, finished accumulators,
        // outer values, and what is computed from those alone.
        let mut invariant: HashSet<ValueId> = HashSet::new();
        for &v in &stage.values {
            let dt = k.dtype(v);
            if let Some(&x) = self.hoisted.get(&v) {
                invariant.insert(v);
                vals.insert(v, x);
                continue;
            }
            let fixed = match k.expr(v) {
                KExpr::Const(_) | KExpr::Acc(_) => true,
                KExpr::Load { .. }
                | KExpr::Index(_)
                | KExpr::IndirectIndex { .. }
                | KExpr::Scan { .. } => false,
                e => e
                    .operands()
                    .iter()
                    .all(|o| invariant.contains(o) || self.outer_values.contains_key(o)),
            };
            if fixed {
                invariant.insert(v);
            }
            if let (Some(&ci), Some(p)) = (self.cache_loads.get(&v), row_pos) {
                let elem = self.ir.scalar_ty(Class::of(dt));
                let x = self.ir.load_raw(elem, self.row_arrays[ci], p, env.width)?;
                self.ir.name(x, &format!("{v}{}.cached", env.suffix()));
                vals.insert(v, x);
                continue;
            }
            let x = match k.expr(v) {
                KExpr::Load { arg, index, mask } => {
                    let mask = match mask {
                        Some(m) => Some(
                            self.ir
                                .truthy(self.value(&vals, *m)?, Class::of(k.dtype(*m)))?,
                        ),
                        None => None,
                    };
                    self.load(*arg, index, mask, dt, env)?
                }
                KExpr::Const(c) => self.ir.constant(*c, dt),
                KExpr::Index(e) => {
                    let i = self.index_value(e, env)?;
                    self.ir.convert(i, DType::I64, dt, false)?
                }
                KExpr::Acc(a) => {
                    let x = *self
                        .acc_values
                        .get(a)
                        .ok_or_else(|| err(format!("{a} is read before its stage finished")))?;
                    self.ir.convert(x, self.slots[a].acc.dtype, dt, false)?
                }
                KExpr::Cast(x) => self
                    .ir
                    .convert(self.value(&vals, *x)?, k.dtype(*x), dt, true)?,
                KExpr::Bitcast(x) => {
                    self.ir
                        .bitcast_value(self.value(&vals, *x)?, k.dtype(*x), dt)?
                }
                KExpr::Unary(Op::Exp, x) if self.exp_in_range.contains(&v) => self
                    .ir
                    .exp_in_range(self.value(&vals, *x)?, k.dtype(*x), dt)?,
                KExpr::Unary(op, x) => {
                    self.ir
                        .unary(*op, self.value(&vals, *x)?, k.dtype(*x), dt)?
                }
                KExpr::Binary(op, a, b) => {
                    let (da, db) = (k.dtype(*a), k.dtype(*b));
                    let xa = self.value(&vals, *a)?;
                    let xb = self.ir.convert(self.value(&vals, *b)?, db, da, false)?;
                    let b_const = match k.expr(*b) {
                        KExpr::Const(c) => Some(c.to_f64()),
                        _ => None,
                    };
                    let b_fixed = invariant.contains(b) || self.outer_values.contains_key(b);
                    if *op == Op::TrueDiv
                        && self.invariant_reciprocal
                        && b_const.is_none()
                        && b_fixed
                        && !invariant.contains(a)
                        && matches!(Class::of(da), Class::F32 | Class::F64)
                    {
                        // LLVM hoists `1 / b` out of the loop: one division per row.
                        let one = self.ir.constant(Const::Float(1.0), da);
                        let r = self.ir.fdiv(one, xb)?;
                        self.ir.binary(Op::Mul, xa, r, da, dt, None)?
                    } else {
                        self.ir.binary(*op, xa, xb, da, dt, b_const)?
                    }
                }
                KExpr::Scan { scan_type, value } => {
                    let (p, ty) = *self
                        .scan_slots
                        .get(&v)
                        .ok_or_else(|| err(format!("{v} scans outside a scan stage")))?;
                    let x = self.value(&vals, *value)?;
                    let cur = self.ir.load_slot(p, ty, "")?;
                    let next = match scan_type {
                        coil_lower::ReductionType::Prod => {
                            self.ir.binary(Op::Mul, cur, x, dt, dt, None)?
                        }
                        coil_lower::ReductionType::LogAddExp => self.ir.log_add_exp(cur, x, dt)?,
                        _ => self.ir.binary(Op::Add, cur, x, dt, dt, None)?,
                    };
                    self.ir.store_slot(p, next)?;
                    next
                }
                KExpr::IndirectIndex {
                    value,
                    size,
                    wrap_negative,
                    flags,
                    check,
                } => {
                    let x = self.value(&vals, *value)?;
                    let x = self.ir.convert(x, k.dtype(*value), DType::I64, false)?;
                    let i = self.indirect_index(x, *size, *wrap_negative, *flags, *check)?;
                    self.indirect.borrow_mut().insert(v.0, i);
                    i
                }
                KExpr::Where(c, a, b) => {
                    let cond = self
                        .ir
                        .truthy(self.value(&vals, *c)?, Class::of(k.dtype(*c)))?;
                    let xa = self
                        .ir
                        .convert(self.value(&vals, *a)?, k.dtype(*a), dt, false)?;
                    let xb = self
                        .ir
                        .convert(self.value(&vals, *b)?, k.dtype(*b), dt, false)?;
                    self.ir.select(cond, xa, xb)?
                }
            };
            self.ir.name(x, &format!("{v}{}", env.suffix()));
            vals.insert(v, x);
        }
        Ok(vals)
    }

    fn var_value(&self, v: Var, env: &Env<'ctx>) -> Result<V<'ctx>, CpuError> {
        if v.prefix == VarPrefix::S {
            let x = self.param_values.get(v.n as usize).copied();
            return Ok(x
                .ok_or_else(|| err(format!("index uses {v}, which is no size parameter")))?
                .into());
        }
        if v.indirect_node().is_some() {
            let x = self.indirect.borrow().get(&v.n).copied();
            return x.ok_or_else(|| err(format!("index uses {v} before it is computed")));
        }
        let s = *env
            .vars
            .get(&v)
            .ok_or_else(|| err(format!("index uses {v}, which is not a loop variable here")))?;
        if env.vec == Some(v) && env.width > 1 {
            let lanes = self.ir.splat(s.into(), env.width)?;
            self.ir.iadd(lanes, self.ir.lane_offsets(env.width))
        } else {
            Ok(s.into())
        }
    }

    /// An index expression's value: i64, or i64 lanes where it uses the vectorized variable.
    fn index_value(&self, e: &IndexExpr, env: &Env<'ctx>) -> Result<V<'ctx>, CpuError> {
        let ir = &self.ir;
        let mut acc: Option<V<'ctx>> = None;
        for (t, coef) in e.terms() {
            let x = self.term_value(t, env)?;
            let x = if *coef == 1 {
                x
            } else {
                ir.imul(x, ir.i64c(*coef).into())?
            };
            acc = Some(match acc {
                None => x,
                Some(a) => ir.iadd(a, x)?,
            });
        }
        let c: V<'ctx> = ir.i64c(e.constant_part()).into();
        match acc {
            None => Ok(c),
            Some(a) if e.constant_part() == 0 => Ok(a),
            Some(a) => ir.iadd(a, c),
        }
    }

    fn term_value(&self, t: &Term, env: &Env<'ctx>) -> Result<V<'ctx>, CpuError> {
        let ir = &self.ir;
        Ok(match t {
            Term::Var(v) => self.var_value(*v, env)?,
            Term::FloorDiv(inner, d) => self.floor_div(self.index_value(inner, env)?, *d)?,
            Term::ModularIndexing(inner, d, m) => {
                let q = self.floor_div(self.index_value(inner, env)?, *d)?;
                let r = ir.srem(q, ir.i64c(*m).into())?;
                let neg = ir.ashr(r, ir.i64c(63).into())?;
                ir.iadd(r, ir.and(neg, ir.i64c(*m).into())?)?
            }
            Term::SizeTimes(k, t) => {
                let s = self.var_value(Var::size(*k as usize), env)?;
                ir.imul(s, self.term_value(t, env)?)?
            }
        })
    }

    /// `floor(x / d)` for `d > 0`.
    fn floor_div(&self, x: V<'ctx>, d: i64) -> Result<V<'ctx>, CpuError> {
        if d == 1 {
            return Ok(x);
        }
        let ir = &self.ir;
        let dc: V<'ctx> = ir.i64c(d).into();
        let q = ir.sdiv(x, dc)?;
        let r = ir.srem(x, dc)?;
        ir.iadd(q, ir.ashr(r, ir.i64c(63).into())?)
    }

    /// The index at lane 0 (the vectorized variable at its base), as a scalar.
    fn scalar_index(&self, e: &IndexExpr, env: &Env<'ctx>) -> Result<IntValue<'ctx>, CpuError> {
        let scalar_env = Env::scalar(env.vars.clone());
        Ok(self.index_value(e, &scalar_env)?.into_int_value())
    }

    fn load(
        &self,
        arg: ArgId,
        index: &IndexExpr,
        mask: Option<V<'ctx>>,
        dtype: DType,
        env: &Env<'ctx>,
    ) -> Result<V<'ctx>, CpuError> {
        let ir = &self.ir;
        let a = self.k.arg(arg);
        let base = self.args[arg.0 as usize];
        let d = a.dtype;
        let acc = self.access(index, env);
        let raw = match mask {
            None => match acc {
                Access::Uniform => ir.load(d, base, self.scalar_index(index, env)?, 1)?,
                Access::Contiguous => {
                    ir.load(d, base, self.scalar_index(index, env)?, env.width)?
                }
                Access::Strided => ir.gather(d, base, self.index_value(index, env)?)?,
            },
            Some(m) if Ir::width(m) == 1 && acc == Access::Uniform => {
                let i = self.scalar_index(index, env)?;
                let safe = ir.select(m, i.into(), ir.i64c(0).into())?;
                let x = ir.load(d, base, safe.into_int_value(), 1)?;
                ir.select(m, x, ir.zero(Class::of(d)))?
            }
            Some(m) => {
                let w = env.width;
                let i = ir.splat(self.index_value(index, env)?, w)?;
                let m = ir.splat(m, w)?;
                let safe = ir.select(m, i, ir.i64c(0).into())?;
                let x = ir.gather(d, base, safe)?;
                ir.select(m, x, ir.zero(Class::of(d)))?
            }
        };
        ir.convert(raw, d, dtype, false)
    }

    fn stores(
        &self,
        stage: &Stage,
        vals: &HashMap<ValueId, V<'ctx>>,
        env: &Env<'ctx>,
    ) -> Result<(), CpuError> {
        for st in &stage.stores {
            self.store(st, vals, env)?;
        }
        Ok(())
    }

    fn store(
        &self,
        st: &Store,
        vals: &HashMap<ValueId, V<'ctx>>,
        env: &Env<'ctx>,
    ) -> Result<(), CpuError> {
        let ir = &self.ir;
        let a = self.k.arg(st.arg);
        let base = self.args[st.arg.0 as usize];
        let d = a.dtype;
        // The memory encoding rounds to f16/bf16, so the conversion need not.
        let v = ir.convert(
            self.value(vals, st.value)?,
            self.k.dtype(st.value),
            d,
            false,
        )?;
        if st.mode == coil_codegen::StoreMode::AtomicAdd {
            return self.atomic_add_store(st, v, env);
        }
        match self.access(&st.index, env) {
            Access::Uniform => {
                // Every lane writes the same element: the last lane's value is the one left.
                let v = ir.extract(v, Ir::width(v).max(1) - 1)?;
                ir.store(d, base, self.scalar_index(&st.index, env)?, v)
            }
            Access::Contiguous => {
                let nt = self.streaming_store_align(st, env);
                ir.store_hinted(
                    d,
                    base,
                    self.scalar_index(&st.index, env)?,
                    ir.splat(v, env.width)?,
                    nt,
                )
            }
            Access::Strided => {
                let idx = self.index_value(&st.index, env)?;
                let v = ir.splat(v, env.width)?;
                for lane in 0..env.width {
                    let i = ir.extract(idx, lane)?.into_int_value();
                    ir.store(d, base, i, ir.extract(v, lane)?)?;
                }
                Ok(())
            }
        }
    }
}

impl Emitter<'_, '_> {
    /// The alignment of a contiguous vector store to stream past the caches, if it should:
    /// the buffer is much larger than the last-level cache (so what is written will be gone
    /// from it before anyone reads it), and the store's address is a multiple of the vector
    /// (buffers are 64-byte aligned; the vector loops start at multiples of `W`, so every
    /// other summand of the index must be a multiple of `W`).
    fn streaming_store_align(&self, st: &Store, env: &Env<'_>) -> Option<u32> {
        let min_bytes = self.streaming_store_min_bytes?;
        let a = self.k.arg(st.arg);
        let bytes = a.len * a.dtype.itemsize();
        let vector_bytes = env.width as usize * a.dtype.itemsize();
        let v = env.vec?;
        let w = env.width as i64;
        let aligned = st.index.constant_part() % w == 0
            && st
                .index
                .terms()
                .iter()
                .all(|(t, c)| matches!(t, Term::Var(x) if *x == v) || c % w == 0);
        let stream = bytes >= min_bytes && vector_bytes <= 64 && aligned;
        if stream {
            self.streamed.set(true);
        }
        stream.then_some(vector_bytes as u32)
    }
}

impl AccSlot<'_> {
    fn vec_pos_needed(&self) -> bool {
        matches!(
            self.acc.reduction_type,
            coil_lower::ReductionType::Argmax | coil_lower::ReductionType::Argmin
        )
    }
}
