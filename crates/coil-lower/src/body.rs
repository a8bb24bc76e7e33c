//! Loop bodies: hash-consed expression DAGs over index variables (`load`, constants, pointwise
//! ops, `index_expr`, casts, the reduction combine), the closed set of ops they use, and the
//! copy-with-substitution that inlines one body into another.

use std::collections::HashMap;

use coil_graph::DType;
pub(crate) use coil_kernel::{Const, Op, ReductionType};

use crate::idx::{Idx, IndexVec};
use crate::index::{IndexExpr, Var};
use crate::ir::BufRef;
use crate::typed_id;

typed_id!(
    /// A node of one body's expression DAG.
    ExprId,
    "tmp"
);

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
    /// Inductor's `to_dtype_bitcast`: the value's bits read as `dtype`, of the same size.
    Bitcast {
        /// The value reinterpreted.
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
            Expr::ToDtype { value, .. } | Expr::Bitcast { value, .. } => vec![*value],
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
            Expr::Bitcast { value, dtype } => Expr::Bitcast {
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

    /// Every load's buffer replaced by `f`'s answer (the hash-consing rebuilt to match).
    pub(crate) fn map_loads(&mut self, f: impl Fn(BufRef) -> BufRef) {
        for e in self.exprs.iter_mut() {
            if let Expr::Load { buffer, .. } = e {
                *buffer = f(*buffer);
            }
        }
        self.dedup = self
            .exprs
            .iter_enumerated()
            .map(|(id, e)| (e.clone(), id))
            .collect();
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

    /// `ops.to_dtype_bitcast(value, dtype)` (same size); no node when the dtype already
    /// matches.
    pub fn bitcast(&mut self, value: ExprId, dtype: DType) -> ExprId {
        if self.dtypes[value] == dtype {
            return value;
        }
        self.intern(Expr::Bitcast { value, dtype }, dtype)
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
        self.inline_all(src, &[root], subst, ranges, mask)[0]
    }

    /// [`Self::inline`] for several roots at once (shared nodes copied once); returns their
    /// copies in order.
    pub fn inline_all(
        &mut self,
        src: &ExprGraph,
        roots: &[ExprId],
        subst: &mut impl FnMut(Var) -> Option<IndexExpr>,
        ranges: &crate::index::VarRanges,
        mask: Option<ExprId>,
    ) -> Vec<ExprId> {
        let mut live = vec![false; src.exprs.len()];
        for &r in roots {
            for (l, x) in live.iter_mut().zip(src.reachable(r)) {
                *l |= x;
            }
        }
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
        roots
            .iter()
            .map(|r| map[r.index()].expect("roots are copied"))
            .collect()
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
