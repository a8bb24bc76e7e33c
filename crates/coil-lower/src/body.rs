//! Loop bodies: hash-consed expression DAGs over index variables (`load`, constants, pointwise
//! ops, `index_expr`, casts, the reduction combine), the closed set of ops they use, and the
//! copy-with-substitution that inlines one body into another.

use std::collections::HashMap;
use std::fmt;

use coil_graph::DType;

use crate::idx::{Idx, IndexVec};
use crate::index::{IndexExpr, Var};
use crate::ir::BufRef;
use crate::typed_id;

typed_id!(
    /// A node of one body's expression DAG.
    ExprId,
    "tmp"
);

/// Every pointwise operation a body can use. Closed: a backend handles each of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    // Unary.
    /// `-x`.
    Neg,
    /// `|x|`.
    Abs,
    /// The largest integral value not above `x` (floats only; integers take no op).
    Floor,
    /// The smallest integral value not below `x`.
    Ceil,
    /// The nearest integral value, ties to even.
    Round,
    /// The integral part of `x` (towards zero).
    Trunc,
    /// `e^x`.
    Exp,
    /// Natural log.
    Log,
    /// `log(1 + x)`.
    Log1p,
    /// Square root.
    Sqrt,
    /// `1 / sqrt(x)`.
    Rsqrt,
    /// Sine.
    Sin,
    /// Cosine.
    Cos,
    /// Hyperbolic tangent.
    Tanh,
    /// The error function.
    Erf,
    /// `1 / (1 + e^-x)`.
    Sigmoid,
    /// `max(x, 0)` (NaN stays NaN).
    Relu,
    /// `1 / x`.
    Reciprocal,
    /// Boolean not (of a bool).
    LogicalNot,
    /// `~x` on integers, `not` on bools.
    BitwiseNot,
    // Binary.
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b` on floats.
    TrueDiv,
    /// `floor(a / b)` (Python's `//`).
    FloorDiv,
    /// `a / b` rounded toward zero.
    TruncDiv,
    /// `a ** b`.
    Pow,
    /// NaN-propagating max.
    Maximum,
    /// NaN-propagating min.
    Minimum,
    /// `a == b` (bool).
    Eq,
    /// `a != b` (bool).
    Ne,
    /// `a < b` (bool).
    Lt,
    /// `a <= b` (bool).
    Le,
    /// `a > b` (bool).
    Gt,
    /// `a >= b` (bool).
    Ge,
    /// `a and b` on bools.
    LogicalAnd,
    /// `a or b` on bools.
    LogicalOr,
    // Ternary.
    /// `cond ? a : b`.
    Where,
}

impl Op {
    /// The math-library function computing this op, for the ops backends send to one
    /// (`exp`, `log`, `log1p`, `sqrt`, `rsqrt`, `sin`, `cos`, `tanh`, `erf`, `sigmoid`, `pow`);
    /// each backend decides which of these it computes otherwise (a native square root, a
    /// `pow` built from `exp` and `log`).
    pub fn math_fn(self) -> Option<coil_graph::MathFn> {
        use coil_graph::MathFn as F;
        Some(match self {
            Op::Exp => F::Exp,
            Op::Log => F::Log,
            Op::Log1p => F::Log1p,
            Op::Sqrt => F::Sqrt,
            Op::Rsqrt => F::Rsqrt,
            Op::Sin => F::Sin,
            Op::Cos => F::Cos,
            Op::Tanh => F::Tanh,
            Op::Erf => F::Erf,
            Op::Sigmoid => F::Sigmoid,
            Op::Pow => F::Pow,
            _ => return None,
        })
    }

    /// How many operands it takes.
    pub fn arity(self) -> usize {
        use Op::*;
        match self {
            Neg | Abs | Floor | Ceil | Round | Trunc | Exp | Log | Log1p | Sqrt | Rsqrt | Sin
            | Cos | Tanh | Erf | Sigmoid | Relu | Reciprocal | LogicalNot | BitwiseNot => 1,
            Where => 3,
            _ => 2,
        }
    }

    /// Inductor's name for it (`ops.<name>`).
    pub fn name(self) -> &'static str {
        use Op::*;
        match self {
            Neg => "neg",
            Abs => "abs",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Trunc => "trunc",
            Exp => "exp",
            Log => "log",
            Log1p => "log1p",
            Sqrt => "sqrt",
            Rsqrt => "rsqrt",
            Sin => "sin",
            Cos => "cos",
            Tanh => "tanh",
            Erf => "erf",
            Sigmoid => "sigmoid",
            Relu => "relu",
            Reciprocal => "reciprocal",
            LogicalNot => "logical_not",
            BitwiseNot => "bitwise_not",
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            TrueDiv => "truediv",
            FloorDiv => "floordiv",
            TruncDiv => "truncdiv",
            Pow => "pow",
            Maximum => "maximum",
            Minimum => "minimum",
            Eq => "eq",
            Ne => "ne",
            Lt => "lt",
            Le => "le",
            Gt => "gt",
            Ge => "ge",
            LogicalAnd => "logical_and",
            LogicalOr => "logical_or",
            Where => "where",
        }
    }

    /// True when the result is a bool whatever the operands are.
    pub fn returns_bool(self) -> bool {
        use Op::*;
        matches!(
            self,
            Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr | LogicalNot
        )
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a reduction combines values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReductionType {
    /// Sum (0 for no elements).
    Sum,
    /// Product (1 for no elements).
    Prod,
    /// NaN-propagating max.
    Max,
    /// NaN-propagating min.
    Min,
    /// Position (flattened over the reduction ranges, row-major) of the first max; NaN wins.
    Argmax,
    /// Position of the first min; NaN wins.
    Argmin,
}

impl ReductionType {
    /// Inductor's name: `sum`, `prod`, `max`, `min`, `argmax`, `argmin`.
    pub fn name(self) -> &'static str {
        match self {
            ReductionType::Sum => "sum",
            ReductionType::Prod => "prod",
            ReductionType::Max => "max",
            ReductionType::Min => "min",
            ReductionType::Argmax => "argmax",
            ReductionType::Argmin => "argmin",
        }
    }
}

impl fmt::Display for ReductionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A constant's value. Floats compare by bits so that constants hash-cons (and `nan` equals
/// itself).
#[derive(Clone, Copy, Debug)]
pub enum Const {
    /// A float (kept as written, not rounded to the node's dtype).
    Float(f64),
    /// An integer.
    Int(i64),
    /// A bool.
    Bool(bool),
}

impl Const {
    /// The value as f64.
    pub fn to_f64(self) -> f64 {
        match self {
            Const::Float(x) => x,
            Const::Int(i) => i as f64,
            Const::Bool(b) => b as u8 as f64,
        }
    }
}

impl PartialEq for Const {
    fn eq(&self, other: &Const) -> bool {
        match (self, other) {
            (Const::Float(a), Const::Float(b)) => a.to_bits() == b.to_bits(),
            (Const::Int(a), Const::Int(b)) => a == b,
            (Const::Bool(a), Const::Bool(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Const {}

impl std::hash::Hash for Const {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            Const::Float(x) => (0u8, x.to_bits()).hash(state),
            Const::Int(i) => (1u8, *i).hash(state),
            Const::Bool(b) => (2u8, *b).hash(state),
        }
    }
}

/// Python's spelling: `1.1`, `inf`, `5`, `True`.
impl fmt::Display for Const {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Const::Float(x) => f.write_str(&coil_graph::format_float(*x)),
            Const::Int(i) => write!(f, "{i}"),
            Const::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
        }
    }
}

/// One node of a body.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// `buffer[index]`; with a mask, only where the mask (a bool node) holds, 0 elsewhere (no
    /// memory is touched there: `cat` reads each input only inside its own range).
    Load {
        /// The buffer read.
        buffer: BufRef,
        /// The flat element offset, over the body's variables.
        index: IndexExpr,
        /// Guard for the read.
        mask: Option<ExprId>,
    },
    /// A constant of a dtype.
    Constant {
        /// The value.
        value: Const,
        /// Its dtype.
        dtype: DType,
    },
    /// An index expression used as a value (`arange`, `cat` bounds).
    IndexExpr {
        /// The expression over the body's variables.
        index: IndexExpr,
        /// The integer dtype of the value.
        dtype: DType,
    },
    /// A cast with PyTorch's conversion rules.
    ToDtype {
        /// The value cast.
        value: ExprId,
        /// The target dtype.
        dtype: DType,
    },
    /// A one-operand op.
    Unary(Op, ExprId),
    /// A two-operand op (operands already share a dtype).
    Binary(Op, ExprId, ExprId),
    /// `where(cond, a, b)`.
    Ternary(Op, ExprId, ExprId, ExprId),
    /// Inductor's `indirect_indexing`: an integer `value` used as an index into a dim of
    /// `size`, an `i64`. Negative values count from the end when `wrap_negative` (Python's
    /// indexing; `embedding`, `gather` and `index_select` take none); a value still outside
    /// `0..size` is an error the run reports as check number `check` of
    /// [`crate::LoweredGraph::index_checks`], and reads index 0 meanwhile (never memory out of
    /// bounds). Index expressions use the result as the variable `ind<id>`.
    IndirectIndex {
        /// The index value (any integer dtype).
        value: ExprId,
        /// The size of the dim indexed.
        size: usize,
        /// Whether negative values wrap.
        wrap_negative: bool,
        /// Which check reports a bad value.
        check: u32,
    },
    /// Inductor's `ops.scan`: the inclusive scan (`Sum`: running sum, `Prod`: running
    /// product) of `value` along the body's reduction variables in row-major order, at the
    /// current point; only as a body's stored value, which is stored at every point.
    Scan {
        /// How values combine (`Sum` or `Prod`).
        scan_type: ReductionType,
        /// The value scanned.
        value: ExprId,
    },
    /// The reduction combine over the body's reduction variables; only as a body's stored value.
    Reduction {
        /// How values combine.
        reduction_type: ReductionType,
        /// The value reduced (over iteration and reduction variables).
        value: ExprId,
    },
}

impl Expr {
    /// The operands, in order.
    pub fn args(&self) -> Vec<ExprId> {
        let indirect = |index: &IndexExpr| index.indirect_nodes().into_iter().map(ExprId::new);
        match self {
            Expr::Load { mask, index, .. } => indirect(index).chain(mask.iter().copied()).collect(),
            Expr::IndexExpr { index, .. } => indirect(index).collect(),
            Expr::Constant { .. } => vec![],
            Expr::IndirectIndex { value, .. } => vec![*value],
            Expr::ToDtype { value, .. } => vec![*value],
            Expr::Unary(_, a) => vec![*a],
            Expr::Binary(_, a, b) => vec![*a, *b],
            Expr::Ternary(_, a, b, c) => vec![*a, *b, *c],
            Expr::Reduction { value, .. } | Expr::Scan { value, .. } => vec![*value],
        }
    }

    fn map_args(&self, f: &impl Fn(ExprId) -> ExprId) -> Expr {
        match self {
            Expr::Load {
                buffer,
                index,
                mask,
            } => Expr::Load {
                buffer: *buffer,
                index: index.rename_indirect(&mut |n| f(ExprId::new(n)).index()),
                mask: mask.map(f),
            },
            Expr::IndexExpr { index, dtype } => Expr::IndexExpr {
                index: index.rename_indirect(&mut |n| f(ExprId::new(n)).index()),
                dtype: *dtype,
            },
            Expr::Constant { .. } => self.clone(),
            Expr::IndirectIndex {
                value,
                size,
                wrap_negative,
                check,
            } => Expr::IndirectIndex {
                value: f(*value),
                size: *size,
                wrap_negative: *wrap_negative,
                check: *check,
            },
            Expr::ToDtype { value, dtype } => Expr::ToDtype {
                value: f(*value),
                dtype: *dtype,
            },
            Expr::Unary(op, a) => Expr::Unary(*op, f(*a)),
            Expr::Binary(op, a, b) => Expr::Binary(*op, f(*a), f(*b)),
            Expr::Ternary(op, a, b, c) => Expr::Ternary(*op, f(*a), f(*b), f(*c)),
            Expr::Reduction {
                reduction_type,
                value,
            } => Expr::Reduction {
                reduction_type: *reduction_type,
                value: f(*value),
            },
            Expr::Scan { scan_type, value } => Expr::Scan {
                scan_type: *scan_type,
                value: f(*value),
            },
        }
    }
}

/// What an [`Expr::IndirectIndex`] computes from `value`: the index into a dim of `size`
/// (negatives counted from the end when `wrap_negative`), or `None` when it is out of range.
pub fn resolve_indirect(value: i64, size: usize, wrap_negative: bool) -> Option<i64> {
    let s = i64::try_from(size).ok()?;
    let w = if wrap_negative && value < 0 {
        value.checked_add(s)?
    } else {
        value
    };
    (0..s).contains(&w).then_some(w)
}

/// A hash-consed expression DAG: building the same node twice returns the same id (so op
/// counts are of distinct values, like Inductor's `OpCounterCSE`). Ids are in creation order,
/// which is a topological order.
#[derive(Clone, Debug, Default)]
pub struct ExprGraph {
    exprs: IndexVec<ExprId, Expr>,
    dtypes: IndexVec<ExprId, DType>,
    dedup: HashMap<Expr, ExprId>,
}

impl ExprGraph {
    /// An empty DAG.
    pub fn new() -> ExprGraph {
        ExprGraph::default()
    }

    /// The node behind an id.
    pub fn expr(&self, id: ExprId) -> &Expr {
        &self.exprs[id]
    }

    /// The dtype of a node's value.
    pub fn dtype(&self, id: ExprId) -> DType {
        self.dtypes[id]
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.exprs.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.exprs.is_empty()
    }

    /// Nodes with their ids, in creation (topological) order.
    pub fn iter(&self) -> impl Iterator<Item = (ExprId, &Expr)> + '_ {
        self.exprs.iter_enumerated()
    }

    fn intern(&mut self, e: Expr, dtype: DType) -> ExprId {
        if let Some(&id) = self.dedup.get(&e) {
            return id;
        }
        let id = self.exprs.push(e.clone());
        self.dtypes.push(dtype);
        self.dedup.insert(e, id);
        id
    }

    /// `ops.load(buffer, index)` of a buffer of `dtype`.
    pub fn load(
        &mut self,
        buffer: BufRef,
        index: IndexExpr,
        mask: Option<ExprId>,
        dtype: DType,
    ) -> ExprId {
        self.intern(
            Expr::Load {
                buffer,
                index,
                mask,
            },
            dtype,
        )
    }

    /// `ops.constant(value, dtype)`; the value is converted to the dtype's kind.
    pub fn constant(&mut self, value: Const, dtype: DType) -> ExprId {
        let value = match (value, dtype) {
            (v, DType::Bool) => Const::Bool(v.to_f64() != 0.0),
            (Const::Float(x), d) if !d.is_float() => Const::Int(x as i64),
            (Const::Bool(b), d) if d.is_float() => Const::Float(b as u8 as f64),
            (Const::Bool(b), _) => Const::Int(b as i64),
            (Const::Int(i), d) if d.is_float() => Const::Float(i as f64),
            (v, _) => v,
        };
        self.intern(Expr::Constant { value, dtype }, dtype)
    }

    /// `ops.index_expr(index, dtype)`.
    pub fn index_expr(&mut self, index: IndexExpr, dtype: DType) -> ExprId {
        self.intern(Expr::IndexExpr { index, dtype }, dtype)
    }

    /// `ops.indirect_indexing(value, size)`: the checked index, as the variable `ind<n>` to
    /// use in index expressions (see [`Expr::IndirectIndex`]).
    pub fn indirect_index(
        &mut self,
        value: ExprId,
        size: usize,
        wrap_negative: bool,
        check: u32,
    ) -> IndexExpr {
        let id = self.intern(
            Expr::IndirectIndex {
                value,
                size,
                wrap_negative,
                check,
            },
            DType::I64,
        );
        IndexExpr::var(Var::indirect(id.index()))
    }

    /// `value` (a float) converted to `dtype` even where it is already of that dtype's
    /// compute class: a 16-bit rounding of an f32-held value ([`LowerConfig`]'s
    /// `emulate_precision_casts`).
    ///
    /// [`LowerConfig`]: crate::LowerConfig
    pub fn round_to(&mut self, value: ExprId, dtype: DType) -> ExprId {
        self.intern(Expr::ToDtype { value, dtype }, dtype)
    }

    /// `ops.to_dtype(value, dtype)`; no node when the dtype already matches.
    pub fn to_dtype(&mut self, value: ExprId, dtype: DType) -> ExprId {
        if self.dtypes[value] == dtype {
            return value;
        }
        if let Expr::Constant { value: c, .. } = self.exprs[value] {
            return self.constant(c, dtype);
        }
        self.intern(Expr::ToDtype { value, dtype }, dtype)
    }

    /// A one-operand op.
    pub fn unary(&mut self, op: Op, a: ExprId) -> ExprId {
        debug_assert_eq!(op.arity(), 1);
        let dtype = if op.returns_bool() {
            DType::Bool
        } else {
            self.dtypes[a]
        };
        self.intern(Expr::Unary(op, a), dtype)
    }

    /// A two-operand op; operands must already share a dtype (cast them first).
    pub fn binary(&mut self, op: Op, a: ExprId, b: ExprId) -> ExprId {
        debug_assert_eq!(op.arity(), 2);
        debug_assert_eq!(self.dtypes[a], self.dtypes[b], "{op} of mixed dtypes");
        let dtype = if op.returns_bool() {
            DType::Bool
        } else {
            self.dtypes[a]
        };
        self.intern(Expr::Binary(op, a, b), dtype)
    }

    /// `where(cond, a, b)`; `a` and `b` must share a dtype.
    pub fn where_(&mut self, cond: ExprId, a: ExprId, b: ExprId) -> ExprId {
        let dtype = self.dtypes[a];
        self.intern(Expr::Ternary(Op::Where, cond, a, b), dtype)
    }

    /// The reduction combine of `value`, producing `dtype` (the value is cast to it first).
    pub fn reduction(
        &mut self,
        reduction_type: ReductionType,
        value: ExprId,
        dtype: DType,
    ) -> ExprId {
        let value = match reduction_type {
            ReductionType::Argmax | ReductionType::Argmin => value,
            _ => self.to_dtype(value, dtype),
        };
        self.intern(
            Expr::Reduction {
                reduction_type,
                value,
            },
            dtype,
        )
    }

    /// `ops.scan` of `value` (cast to `dtype` first), `Sum` or `Prod`.
    pub fn scan(&mut self, scan_type: ReductionType, value: ExprId, dtype: DType) -> ExprId {
        let value = self.to_dtype(value, dtype);
        self.intern(Expr::Scan { scan_type, value }, dtype)
    }

    /// The nodes `root` depends on (itself included), as a mask over ids.
    pub fn reachable(&self, root: ExprId) -> Vec<bool> {
        let mut live = vec![false; self.exprs.len()];
        live[root.index()] = true;
        for (id, e) in self.exprs.iter_enumerated().rev() {
            if live[id.index()] {
                for a in e.args() {
                    live[a.index()] = true;
                }
            }
        }
        live
    }

    /// Copies the nodes `root` depends on from `src` into `self`, substituting the variables in
    /// every index (`subst`), then simplifying with `ranges`. When `mask` is given, every copied
    /// load is guarded by it too. Returns the copy of `root`.
    pub fn inline(
        &mut self,
        src: &ExprGraph,
        root: ExprId,
        subst: &mut impl FnMut(Var) -> Option<IndexExpr>,
        ranges: &crate::index::VarRanges,
        mask: Option<ExprId>,
    ) -> ExprId {
        let live = src.reachable(root);
        let mut map: Vec<Option<ExprId>> = vec![None; src.exprs.len()];
        for (id, e) in src.exprs.iter_enumerated() {
            if !live[id.index()] {
                continue;
            }
            let f = |a: ExprId| map[a.index()].expect("operands are copied first");
            let copied = match e.map_args(&f) {
                Expr::Load {
                    buffer,
                    index,
                    mask: inner,
                } => {
                    let index = index.subst(subst).simplify(ranges);
                    let mask = match (inner, mask) {
                        (Some(a), Some(b)) if a != b => Some(self.binary(Op::LogicalAnd, b, a)),
                        (a, b) => a.or(b),
                    };
                    self.load(buffer, index, mask, src.dtypes[id])
                }
                Expr::IndexExpr { index, dtype } => {
                    self.index_expr(index.subst(subst).simplify(ranges), dtype)
                }
                other => self.intern(other, src.dtypes[id]),
            };
            map[id.index()] = Some(copied);
        }
        map[root.index()].expect("root is copied")
    }

    /// What a value computes, for the realize heuristics: `(distinct nodes, distinct buffers
    /// read, ops used)`.
    pub fn stats(&self, root: ExprId) -> BodyStats {
        let live = self.reachable(root);
        let mut stats = BodyStats::default();
        for (id, e) in self.exprs.iter_enumerated() {
            if !live[id.index()] {
                continue;
            }
            stats.num_ops += 1;
            match e {
                Expr::Load { buffer, .. } if !stats.read_buffers.contains(buffer) => {
                    stats.read_buffers.push(*buffer);
                }
                Expr::Unary(op, ..) | Expr::Binary(op, ..) | Expr::Ternary(op, ..)
                    if !stats.used_ops.contains(op) =>
                {
                    stats.used_ops.push(*op);
                }
                _ => {}
            }
        }
        stats
    }
}

/// What a body computes, as the realize rules see it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BodyStats {
    /// Distinct values computed (loads and constants included), Inductor's `num_ops`.
    pub num_ops: usize,
    /// Distinct buffers read, in first-read order.
    pub read_buffers: Vec<BufRef>,
    /// Distinct pointwise ops used.
    pub used_ops: Vec<Op>,
}

/// A realized buffer's loop body: variables `p0..` over the iteration ranges then the
/// reduction ranges (size-1 dims have no variable), the DAG, the stored value and where it goes.
#[derive(Clone, Debug)]
pub struct LoopBody {
    /// `(var, range)` for every loop variable: iteration variables first, then reduction ones.
    pub var_ranges: Vec<(Var, usize)>,
    /// How many of `var_ranges` (the last ones) are reduction variables.
    pub num_reduction_vars: usize,
    /// The expression DAG (only nodes the stored value depends on).
    pub exprs: ExprGraph,
    /// The stored value: a [`Expr::Reduction`] node for reductions.
    pub value: ExprId,
    /// Where the value is stored: a flat offset over the iteration variables.
    pub store_index: IndexExpr,
}

impl LoopBody {
    /// The iteration variables and their ranges.
    pub fn iter_vars(&self) -> &[(Var, usize)] {
        &self.var_ranges[..self.var_ranges.len() - self.num_reduction_vars]
    }

    /// The reduction variables and their ranges.
    pub fn reduction_vars(&self) -> &[(Var, usize)] {
        &self.var_ranges[self.var_ranges.len() - self.num_reduction_vars..]
    }

    /// The loads, in body order.
    pub fn loads(&self) -> impl Iterator<Item = (ExprId, BufRef, &IndexExpr)> + '_ {
        self.exprs.iter().filter_map(|(id, e)| match e {
            Expr::Load { buffer, index, .. } => Some((id, *buffer, index)),
            _ => None,
        })
    }

    /// The scan node, when the body is a scan: how it combines and what it scans.
    pub fn scan(&self) -> Option<(ReductionType, ExprId)> {
        match self.exprs.expr(self.value) {
            Expr::Scan { scan_type, value } => Some((*scan_type, *value)),
            _ => None,
        }
    }

    /// The reduction node, when the body is a reduction.
    pub fn reduction(&self) -> Option<(ReductionType, ExprId)> {
        match self.exprs.expr(self.value) {
            Expr::Reduction {
                reduction_type,
                value,
            } => Some((*reduction_type, *value)),
            _ => None,
        }
    }
}
