//! The kernel IR: one loop nest over `ranges` (parallel) x `reduction_ranges`, as a sequence
//! of stages whose values are a hash-consed expression DAG. Backends translate this, and only
//! this, into code (LLVM IR, PTX).
//!
//! Loop variables are `p0..p{n-1}` for `ranges` and `p{n}..p{n+m-1}` for `reduction_ranges`
//! (the lowering's convention for loop bodies). A kernel runs, for every point of `ranges`
//! (in any order, in parallel), its stages in order:
//!
//! - an [`StageKind::Outer`] stage computes values of the outer variables only and stores them;
//! - a [`StageKind::Reduction`] stage loops over every point of `reduction_ranges`, feeding its
//!   accumulators and storing per-element values; after the loop, its accumulators' finished
//!   values ([`KExpr::Acc`]) are available to later stages.
//!
//! A pointwise kernel has no reduction ranges and one outer stage.

use std::collections::HashMap;
use std::fmt;

use crate::{Const, DType, IndexExpr, Op, ReductionType, Var};

crate::typed_id!(
    /// A kernel argument's position in [`Kernel::args`] (`arg2`).
    ArgId(pub),
    "arg"
);

crate::typed_id!(
    /// A value of a kernel's expression DAG (`v12`), its position in [`Kernel::values`].
    ValueId(pub),
    "v"
);

crate::typed_id!(
    /// An accumulator of a reduction stage (`acc0`).
    AccId(pub),
    "acc"
);

/// How a kernel uses a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgRole {
    /// Only read.
    Input,
    /// Only written.
    Output,
    /// Read and written.
    InOut,
}

/// A buffer the kernel reads or writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelArg {
    /// The buffer's name in the plan (`x`, `buf1`).
    pub name: String,
    /// Element type.
    pub dtype: DType,
    /// Elements the kernel may touch (the storage length).
    pub len: usize,
    /// Read, written or both.
    pub role: ArgRole,
}

/// A node of a kernel's expression DAG.
///
/// Index expressions may use, besides the loop variables, indirect indices: `ind<n>` is the
/// value `v<n>`, a [`KExpr::IndirectIndex`] (a gather: `load arg1[64*ind3 + p1]`); such a load
/// or index lists `v<n>` among its operands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KExpr {
    /// `args[arg][index]`, or 0 where `mask` is false (no memory touched there).
    Load {
        /// The buffer.
        arg: ArgId,
        /// The element offset over the kernel's variables.
        index: IndexExpr,
        /// Guard.
        mask: Option<ValueId>,
    },
    /// A constant.
    Const(Const),
    /// An index expression as an integer value.
    Index(IndexExpr),
    /// The finished value of an accumulator of an earlier stage.
    Acc(AccId),
    /// A cast with PyTorch's conversion rules.
    Cast(ValueId),
    /// The same bits read as another dtype of the same size (`view(dtype)`, Inductor's
    /// `to_dtype_bitcast`): the operand's storage encoding reinterpreted.
    Bitcast(ValueId),
    /// A one-operand op.
    Unary(Op, ValueId),
    /// A two-operand op (operands share a dtype).
    Binary(Op, ValueId, ValueId),
    /// `where(cond, a, b)`.
    Where(ValueId, ValueId, ValueId),
    /// Inductor's `ops.scan`, in a reduction stage only: the inclusive scan (`Sum` or `Prod`)
    /// of `value` along the reduction ranges in row-major order, at the current point, for the
    /// current outer point (it starts again at every outer point). Backends must visit the
    /// reduction points in order for it (or scan in parallel).
    Scan {
        /// How values combine.
        scan_type: ReductionType,
        /// The value scanned (a value of the same stage, of the scan's dtype).
        value: ValueId,
    },
    /// An integer `value` checked as an index into a dim of `size`, an `i64` (Inductor's
    /// `indirect_indexing`): negatives count from the end when `wrap_negative`; a value still
    /// outside `0..size` stores 1 at `args[flags][2 * check]` and the value at
    /// `args[flags][2 * check + 1]` (an `i64` buffer the runtime reads after the run) and
    /// gives 0, so no load ever leaves its buffer.
    IndirectIndex {
        /// The index value (any integer dtype).
        value: ValueId,
        /// The size of the dim indexed.
        size: usize,
        /// Whether negative values wrap.
        wrap_negative: bool,
        /// The `i64` flags buffer (an `InOut` argument).
        flags: ArgId,
        /// Which check (of the lowered graph's) this is.
        check: u32,
    },
}

impl KExpr {
    /// The values this one reads.
    pub fn operands(&self) -> Vec<ValueId> {
        let indirect = |index: &IndexExpr| {
            index
                .indirect_nodes()
                .into_iter()
                .map(|n| ValueId(n as u32))
        };
        match self {
            KExpr::Load { mask, index, .. } => {
                indirect(index).chain(mask.iter().copied()).collect()
            }
            KExpr::Index(index) => indirect(index).collect(),
            KExpr::IndirectIndex { value, .. } | KExpr::Scan { value, .. } => vec![*value],
            KExpr::Const(_) | KExpr::Acc(_) => vec![],
            KExpr::Cast(v) | KExpr::Bitcast(v) | KExpr::Unary(_, v) => vec![*v],
            KExpr::Binary(_, a, b) => vec![*a, *b],
            KExpr::Where(c, a, b) => vec![*c, *a, *b],
        }
    }
}

/// A reduction into an accumulator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    /// Its id.
    pub id: AccId,
    /// How values combine.
    pub reduction_type: ReductionType,
    /// The value reduced (a value of this stage).
    pub value: ValueId,
    /// The dtype of the finished value (`i64` for argmax/argmin).
    pub dtype: DType,
}

/// How a store combines with what its element holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum StoreMode {
    /// The element becomes the value.
    #[default]
    Set,
    /// The value is added to the element, atomically (Inductor's `atomic_add` scatter mode):
    /// points that store to the same element all add, in some order.
    AtomicAdd,
}

/// A write of a value to a buffer. Its index may use indirect indices (`ind<n>`, a scatter),
/// whose values are then among the stage's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Store {
    /// The buffer.
    pub arg: ArgId,
    /// The element offset.
    pub index: IndexExpr,
    /// The value (converted to the buffer's dtype by the backend if it differs).
    pub value: ValueId,
    /// Set or add.
    pub mode: StoreMode,
}

/// Whether a stage loops over the reduction ranges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageKind {
    /// Once per outer point.
    Outer,
    /// A loop over every point of the reduction ranges.
    Reduction,
}

/// One step of the loop nest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stage {
    /// Loop or not.
    pub kind: StageKind,
    /// Values this stage computes, in a valid order (operands first).
    pub values: Vec<ValueId>,
    /// Reductions fed in the loop (reduction stages only).
    pub accumulators: Vec<Accumulator>,
    /// Writes, in order.
    pub stores: Vec<Store>,
}

/// What a kernel's loop nest looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelKind {
    /// No reduction ranges.
    Pointwise,
    /// With reduction ranges; `persistent` when a whole reduction row is meant to be held at
    /// once (short rows), looped otherwise.
    Reduction {
        /// Hold the whole row (`per` in the name) or loop over it (`red`).
        persistent: bool,
    },
}

/// A backend-neutral kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// The name without the backend prefix: `per_fused_add_mean_mul_relu_sub_0`.
    pub name: String,
    /// Loop shape.
    pub kind: KernelKind,
    /// Parallel loop sizes (`p0..`).
    pub ranges: Vec<usize>,
    /// Reduction loop sizes (the variables after the outer ones).
    pub reduction_ranges: Vec<usize>,
    /// Buffers read and written.
    pub args: Vec<KernelArg>,
    /// Every value, indexed by [`ValueId`], with its dtype.
    pub values: Vec<(KExpr, DType)>,
    /// The stages, in order.
    pub stages: Vec<Stage>,
}

impl Kernel {
    /// What makes two kernels the same code: the kernel's text with its name and its
    /// arguments' names left out. Kernels with equal keys compute the same function of their
    /// arguments, so a backend may compile one of them and launch it for both (as Inductor's
    /// wrapper reuses a kernel whose source it generated before).
    pub fn code_key(&self) -> String {
        let mut k = self.clone();
        k.name.clear();
        for a in &mut k.args {
            a.name.clear();
        }
        k.to_string()
    }

    /// Whether stage `stage` scans (has a [`KExpr::Scan`] value): its reduction points must be
    /// visited in order.
    pub fn stage_scans(&self, stage: usize) -> bool {
        self.stages[stage]
            .values
            .iter()
            .any(|v| matches!(self.expr(*v), KExpr::Scan { .. }))
    }

    /// Whether running the kernel twice leaves what running it once does: no atomic add, and
    /// no load of a buffer it also stores to. A backend that times candidate launches on the
    /// real buffers (autotuning) may only do so for these.
    pub fn is_idempotent(&self) -> bool {
        let stores = self.stages.iter().flat_map(|s| &s.stores);
        let written: Vec<ArgId> = stores.clone().map(|st| st.arg).collect();
        !stores.clone().any(|st| st.mode == StoreMode::AtomicAdd)
            && !self
                .values
                .iter()
                .any(|(e, _)| matches!(e, KExpr::Load { arg, .. } if written.contains(arg)))
    }

    /// Product of `ranges`.
    pub fn numel(&self) -> usize {
        self.ranges.iter().product()
    }

    /// Product of `reduction_ranges` (1 for pointwise kernels).
    pub fn rnumel(&self) -> usize {
        self.reduction_ranges.iter().product()
    }

    /// The outer variables `p0..`.
    pub fn outer_vars(&self) -> Vec<(Var, usize)> {
        self.ranges
            .iter()
            .enumerate()
            .map(|(i, &s)| (Var::p(i), s))
            .collect()
    }

    /// The reduction variables.
    pub fn reduction_vars(&self) -> Vec<(Var, usize)> {
        let n = self.ranges.len();
        self.reduction_ranges
            .iter()
            .enumerate()
            .map(|(i, &s)| (Var::p(n + i), s))
            .collect()
    }

    /// A value's node.
    pub fn expr(&self, v: ValueId) -> &KExpr {
        &self.values[v.0 as usize].0
    }

    /// A value's dtype.
    pub fn dtype(&self, v: ValueId) -> DType {
        self.values[v.0 as usize].1
    }

    /// An argument.
    pub fn arg(&self, a: ArgId) -> &KernelArg {
        &self.args[a.0 as usize]
    }

    /// Bytes the kernel reads plus writes, each argument counted once (Inductor's
    /// `num_bytes_accessed` for one kernel).
    pub fn bytes_accessed(&self) -> usize {
        self.args
            .iter()
            .map(|a| a.len * a.dtype.itemsize() * if a.role == ArgRole::InOut { 2 } else { 1 })
            .sum()
    }

    /// Every index expression the kernel evaluates: its loads', its index values' and its
    /// stores'.
    pub fn index_exprs(&self) -> impl Iterator<Item = &IndexExpr> {
        self.values
            .iter()
            .filter_map(|(e, _)| match e {
                KExpr::Load { index, .. } | KExpr::Index(index) => Some(index),
                _ => None,
            })
            .chain(
                self.stages
                    .iter()
                    .flat_map(|s| s.stores.iter().map(|st| &st.index)),
            )
    }

    /// Replaces every index expression ([`Kernel::index_exprs`]) by `f` of it: for loop
    /// transformations that rewrite the loop variables.
    pub fn map_index_exprs(&mut self, f: impl Fn(&IndexExpr) -> IndexExpr) {
        for (e, _) in &mut self.values {
            if let KExpr::Load { index, .. } | KExpr::Index(index) = e {
                *index = f(index);
            }
        }
        for stage in &mut self.stages {
            for st in &mut stage.stores {
                st.index = f(&st.index);
            }
        }
    }

    /// Number of loads of each argument across all stages (after CSE).
    pub fn load_count(&self, arg: ArgId) -> usize {
        self.stages
            .iter()
            .flat_map(|s| &s.values)
            .filter(|v| matches!(self.expr(**v), KExpr::Load { arg: a, .. } if *a == arg))
            .count()
    }
}

/// Builds a kernel's value DAG with hash-consing: the same expression of the same dtype in the
/// same stage is one value (CSE of identical loads and expressions; a constant 0 of i64 and one
/// of f32 stay two values).
#[derive(Debug, Default)]
pub struct KernelBuilder {
    values: Vec<(KExpr, DType)>,
    /// Per stage: (expression, dtype) -> value, so CSE never reaches across a loop boundary.
    dedup: HashMap<(usize, KExpr, DType), ValueId>,
    stages: Vec<Stage>,
    accs: u32,
}

impl KernelBuilder {
    /// An empty builder.
    pub fn new() -> KernelBuilder {
        KernelBuilder::default()
    }

    /// Starts a stage; values added next belong to it.
    pub fn begin_stage(&mut self, kind: StageKind) -> usize {
        self.stages.push(Stage {
            kind,
            values: vec![],
            accumulators: vec![],
            stores: vec![],
        });
        self.stages.len() - 1
    }

    /// The current stage's index.
    pub fn current_stage(&self) -> usize {
        self.stages.len().saturating_sub(1)
    }

    /// Adds (or finds) a value in the current stage.
    pub fn value(&mut self, e: KExpr, dtype: DType) -> ValueId {
        let stage = self.current_stage();
        if let Some(&v) = self.dedup.get(&(stage, e.clone(), dtype)) {
            return v;
        }
        let v = ValueId(self.values.len() as u32);
        self.values.push((e.clone(), dtype));
        self.dedup.insert((stage, e, dtype), v);
        if let Some(s) = self.stages.last_mut() {
            s.values.push(v);
        }
        v
    }

    /// The dtype of a value.
    pub fn dtype(&self, v: ValueId) -> DType {
        self.values[v.0 as usize].1
    }

    /// Adds an accumulator to the current (reduction) stage.
    pub fn reduce(&mut self, reduction_type: ReductionType, value: ValueId, dtype: DType) -> AccId {
        let id = AccId(self.accs);
        self.accs += 1;
        let stage = self.stages.last_mut().expect("a stage was begun");
        stage.accumulators.push(Accumulator {
            id,
            reduction_type,
            value,
            dtype,
        });
        id
    }

    /// Adds a store to the current stage.
    pub fn store(&mut self, arg: ArgId, index: IndexExpr, value: ValueId) {
        self.store_with(arg, index, value, StoreMode::Set);
    }

    /// Adds a store of `mode` to the current stage.
    pub fn store_with(&mut self, arg: ArgId, index: IndexExpr, value: ValueId, mode: StoreMode) {
        let stage = self.stages.last_mut().expect("a stage was begun");
        stage.stores.push(Store {
            arg,
            index,
            value,
            mode,
        });
    }

    /// Finishes the kernel.
    pub fn finish(
        self,
        name: String,
        kind: KernelKind,
        ranges: Vec<usize>,
        reduction_ranges: Vec<usize>,
        args: Vec<KernelArg>,
    ) -> Kernel {
        let stages = self
            .stages
            .into_iter()
            .filter(|s| !(s.values.is_empty() && s.stores.is_empty()))
            .collect();
        Kernel {
            name,
            kind,
            ranges,
            reduction_ranges,
            args,
            values: self.values,
            stages,
        }
    }
}

/// The kernel IR as text, one statement per line:
///
/// ```text
/// kernel per_fused_add_mean_mul_relu_sub_0 ranges=[1024] reduction_ranges=[1024]
///   arg0 x: f32[1048576] in
///   ...
///   reduction loop:
///     v0 = load arg0[1024*p0 + p1]
///     ...
///     acc0 = sum(v7)
///   outer:
///     ...
/// ```
/// A compile's kernels grouped by code ([`Kernel::code_key`]), so that a backend compiles each
/// code once and launches it for every kernel that has it (its twins).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Twins {
    /// The index of the first kernel of each code, in launch order: the kernels to compile.
    pub distinct: Vec<usize>,
    /// For each kernel, its code's place in `distinct`.
    pub slot: Vec<usize>,
}

impl Twins {
    /// `kernels` grouped by their code and by `tag(k)`, what else of kernel `k` its compiled
    /// form depends on (a walking direction; `()` for nothing); with `apart`, every kernel is
    /// its own group.
    pub fn of<T: std::hash::Hash + Eq>(
        kernels: &[Kernel],
        apart: bool,
        tag: impl Fn(usize) -> T,
    ) -> Twins {
        let mut distinct = Vec::new();
        let mut seen: HashMap<(String, T), usize> = HashMap::new();
        let slot = (0..kernels.len())
            .map(|k| {
                let mut new = || {
                    distinct.push(k);
                    distinct.len() - 1
                };
                if apart {
                    return new();
                }
                *seen
                    .entry((kernels[k].code_key(), tag(k)))
                    .or_insert_with(new)
            })
            .collect();
        Twins { distinct, slot }
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            KernelKind::Pointwise => "pointwise",
            KernelKind::Reduction { persistent: true } => "persistent reduction",
            KernelKind::Reduction { persistent: false } => "looped reduction",
        };
        writeln!(
            f,
            "kernel {} ({kind}) ranges={:?} reduction_ranges={:?}",
            self.name, self.ranges, self.reduction_ranges
        )?;
        for (i, a) in self.args.iter().enumerate() {
            let role = match a.role {
                ArgRole::Input => "in",
                ArgRole::Output => "out",
                ArgRole::InOut => "inout",
            };
            writeln!(f, "  arg{i} {}: {}[{}] {role}", a.name, a.dtype, a.len)?;
        }
        for s in &self.stages {
            writeln!(
                f,
                "  {}:",
                if s.kind == StageKind::Outer {
                    "outer"
                } else {
                    "reduction loop"
                }
            )?;
            for &v in &s.values {
                let rhs = match self.expr(v) {
                    KExpr::Load {
                        arg,
                        index,
                        mask: None,
                    } => format!("load {arg}[{index}]"),
                    KExpr::Load {
                        arg,
                        index,
                        mask: Some(m),
                    } => format!("load {arg}[{index}] if {m}"),
                    KExpr::Const(c) => format!("const {c}"),
                    KExpr::Index(i) => format!("index {i}"),
                    KExpr::Acc(a) => format!("{a}"),
                    KExpr::Cast(x) => format!("cast {x}"),
                    KExpr::Bitcast(x) => format!("bitcast {x}"),
                    KExpr::Unary(op, x) => format!("{op}({x})"),
                    KExpr::Binary(op, a, b) => format!("{op}({a}, {b})"),
                    KExpr::Where(c, a, b) => format!("where({c}, {a}, {b})"),
                    KExpr::Scan { scan_type, value } => format!("scan_{scan_type}({value})"),
                    KExpr::IndirectIndex {
                        value,
                        size,
                        wrap_negative,
                        flags,
                        check,
                    } => format!(
                        "indirect({value}, size={size}{}, check={flags}[{check}])",
                        if *wrap_negative { ", wrap" } else { "" }
                    ),
                };
                writeln!(f, "    {v}: {} = {rhs}", self.dtype(v))?;
            }
            for a in &s.accumulators {
                writeln!(
                    f,
                    "    {}: {} = {}({})",
                    a.id, a.dtype, a.reduction_type, a.value
                )?;
            }
            for st in &s.stores {
                let word = match st.mode {
                    StoreMode::Set => "store",
                    StoreMode::AtomicAdd => "atomic_add",
                };
                writeln!(f, "    {word} {}[{}] = {}", st.arg, st.index, st.value)?;
            }
        }
        Ok(())
    }
}
