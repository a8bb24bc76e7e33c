//! The scalar vocabulary of loop bodies and kernels: the closed set of pointwise ops, the
//! reduction kinds and constants.

use std::fmt;

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
    pub fn math_fn(self) -> Option<crate::MathFn> {
        use crate::MathFn as F;
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
            Const::Float(x) => f.write_str(&crate::format_float(*x)),
            Const::Int(i) => write!(f, "{i}"),
            Const::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
        }
    }
}

/// What an indirect index (`Expr::IndirectIndex` in bodies, `KExpr::IndirectIndex` in kernels) computes from `value`: the index into a dim of `size`
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
