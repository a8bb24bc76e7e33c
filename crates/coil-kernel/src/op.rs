//! The scalar vocabulary of loop bodies and kernels: the closed set of pointwise ops, the
//! reduction kinds and constants.

use std::fmt;

/// What an op's result is, given its operands' dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpResult {
    /// The operands' dtype (the value operands' for `where`).
    Same,
    /// A bool, whatever the operands are.
    Bool,
}

/// Roughly what an op costs per element against an add (1): a division or square root 4, a
/// transcendental function 20. Backends' heuristics (the CPU's row cache) read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum OpCost {
    /// An add, a compare, a select.
    Cheap,
    /// A division, a square root.
    Divide,
    /// A library function (`exp`, `log`, `tanh`, `pow`).
    Transcendental,
}

impl OpCost {
    /// The weight: 1, 4 or 20.
    pub fn weight(self) -> u32 {
        match self {
            OpCost::Cheap => 1,
            OpCost::Divide => 4,
            OpCost::Transcendental => 20,
        }
    }
}

/// The op table: each kernel op declared once, with its Inductor name, arity, result rule,
/// cost and the math-library function that computes it (`-` for none). [`Op`] and every
/// per-op query come from it, so a new op is one line here plus its meaning in
/// [`crate::scalar`] and each backend's renderer, which match on [`Op`] without wildcards
/// (a missing case does not compile).
macro_rules! op_table {
    ($($(#[$doc:meta])* $v:ident = $name:literal, $arity:literal, $res:ident, $cost:ident, $math:tt;)*) => {
        /// Every pointwise operation a body can use. Closed: a backend handles each of these.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Op {
            $($(#[$doc])* $v,)*
        }

        impl Op {
            /// Every op, in the table's order.
            pub const ALL: &'static [Op] = &[$(Op::$v,)*];

            /// Inductor's name for it (`ops.<name>`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Op::$v => $name,)*
                }
            }

            /// How many operands it takes.
            pub fn arity(self) -> usize {
                match self {
                    $(Op::$v => $arity,)*
                }
            }

            /// What its result is.
            pub fn result(self) -> OpResult {
                match self {
                    $(Op::$v => OpResult::$res,)*
                }
            }

            /// What it costs per element.
            pub fn cost(self) -> OpCost {
                match self {
                    $(Op::$v => OpCost::$cost,)*
                }
            }

            /// The math-library function computing this op, for the ops backends send to one
            /// (`exp`, `log`, `log1p`, `sqrt`, `rsqrt`, `sin`, `cos`, `tanh`, `erf`,
            /// `sigmoid`, `pow`); each backend decides which of these it computes otherwise (a
            /// native square root, a `pow` built from `exp` and `log`).
            pub fn math_fn(self) -> Option<crate::MathFn> {
                match self {
                    $(Op::$v => op_table!(@math $math),)*
                }
            }
        }
    };
    (@math -) => { None };
    (@math $f:ident) => { Some(crate::MathFn::$f) };
}

op_table! {
    // Unary.
    /// `-x`.
    Neg = "neg", 1, Same, Cheap, -;
    /// `|x|`.
    Abs = "abs", 1, Same, Cheap, -;
    /// The largest integral value not above `x` (floats only; integers take no op).
    Floor = "floor", 1, Same, Cheap, -;
    /// The smallest integral value not below `x`.
    Ceil = "ceil", 1, Same, Cheap, -;
    /// The nearest integral value, ties to even.
    Round = "round", 1, Same, Cheap, -;
    /// The integral part of `x` (towards zero).
    Trunc = "trunc", 1, Same, Cheap, -;
    /// `e^x`.
    Exp = "exp", 1, Same, Transcendental, Exp;
    /// Natural log.
    Log = "log", 1, Same, Transcendental, Log;
    /// `log(1 + x)`.
    Log1p = "log1p", 1, Same, Transcendental, Log1p;
    /// Square root.
    Sqrt = "sqrt", 1, Same, Divide, Sqrt;
    /// `1 / sqrt(x)`.
    Rsqrt = "rsqrt", 1, Same, Divide, Rsqrt;
    /// Sine.
    Sin = "sin", 1, Same, Transcendental, Sin;
    /// Cosine.
    Cos = "cos", 1, Same, Transcendental, Cos;
    /// Hyperbolic tangent.
    Tanh = "tanh", 1, Same, Transcendental, Tanh;
    /// The error function.
    Erf = "erf", 1, Same, Transcendental, Erf;
    /// `1 / (1 + e^-x)`.
    Sigmoid = "sigmoid", 1, Same, Transcendental, Sigmoid;
    /// `max(x, 0)` (NaN stays NaN).
    Relu = "relu", 1, Same, Cheap, -;
    /// `1 / x`.
    Reciprocal = "reciprocal", 1, Same, Divide, -;
    /// Boolean not (of a bool).
    LogicalNot = "logical_not", 1, Bool, Cheap, -;
    /// `~x` on integers, `not` on bools.
    BitwiseNot = "bitwise_not", 1, Same, Cheap, -;
    // Binary.
    /// `a + b`.
    Add = "add", 2, Same, Cheap, -;
    /// `a - b`.
    Sub = "sub", 2, Same, Cheap, -;
    /// `a * b`.
    Mul = "mul", 2, Same, Cheap, -;
    /// `a / b` on floats.
    TrueDiv = "truediv", 2, Same, Divide, -;
    /// `floor(a / b)` (Python's `//`).
    FloorDiv = "floordiv", 2, Same, Divide, -;
    /// `a / b` rounded toward zero.
    TruncDiv = "truncdiv", 2, Same, Divide, -;
    /// `a ** b`.
    Pow = "pow", 2, Same, Transcendental, Pow;
    /// C's `fmod(a, b)` on floats (exact: `a - trunc(a / b) * b` without rounding). Backends
    /// with a native one take it (the lowering's `LowerConfig::native_fmod`); for the others
    /// the lowering builds it from integer ops.
    Fmod = "fmod", 2, Same, Divide, -;
    /// NaN-propagating max.
    Maximum = "maximum", 2, Same, Cheap, -;
    /// NaN-propagating min.
    Minimum = "minimum", 2, Same, Cheap, -;
    /// `a == b` (bool).
    Eq = "eq", 2, Bool, Cheap, -;
    /// `a != b` (bool).
    Ne = "ne", 2, Bool, Cheap, -;
    /// `a < b` (bool).
    Lt = "lt", 2, Bool, Cheap, -;
    /// `a <= b` (bool).
    Le = "le", 2, Bool, Cheap, -;
    /// `a > b` (bool).
    Gt = "gt", 2, Bool, Cheap, -;
    /// `a >= b` (bool).
    Ge = "ge", 2, Bool, Cheap, -;
    /// `a and b` on bools.
    LogicalAnd = "logical_and", 2, Bool, Cheap, -;
    /// `a or b` on bools.
    LogicalOr = "logical_or", 2, Bool, Cheap, -;
    /// `a & b` on integers (`and` on bools).
    BitAnd = "bitwise_and", 2, Same, Cheap, -;
    /// `a | b` on integers (`or` on bools).
    BitOr = "bitwise_or", 2, Same, Cheap, -;
    /// `a ^ b` on integers (`xor` on bools).
    BitXor = "bitwise_xor", 2, Same, Cheap, -;
    /// `a << b` in the dtype's width: 0 when `b` is negative or not below the width
    /// (PyTorch's `lshift`).
    Shl = "bitwise_left_shift", 2, Same, Cheap, -;
    /// `a >> b` (arithmetic for signed types) in the dtype's width: when `b` is negative or
    /// not below it, a shift by the width less one (signed) or 0 (unsigned), PyTorch's
    /// `rshift`.
    Shr = "bitwise_right_shift", 2, Same, Cheap, -;
    // Ternary.
    /// `cond ? a : b`.
    Where = "where", 3, Same, Cheap, -;
}

/// A pattern matching every one-operand [`Op`] (a test checks it against the table's arities):
/// for the arms of a match that say "not a two-operand op" without a wildcard.
#[macro_export]
macro_rules! unary_ops {
    () => {
        $crate::Op::Neg
            | $crate::Op::Abs
            | $crate::Op::Floor
            | $crate::Op::Ceil
            | $crate::Op::Round
            | $crate::Op::Trunc
            | $crate::Op::Exp
            | $crate::Op::Log
            | $crate::Op::Log1p
            | $crate::Op::Sqrt
            | $crate::Op::Rsqrt
            | $crate::Op::Sin
            | $crate::Op::Cos
            | $crate::Op::Tanh
            | $crate::Op::Erf
            | $crate::Op::Sigmoid
            | $crate::Op::Relu
            | $crate::Op::Reciprocal
            | $crate::Op::LogicalNot
            | $crate::Op::BitwiseNot
    };
}

/// A pattern matching every two-operand [`Op`] (checked as [`unary_ops!`] is).
#[macro_export]
macro_rules! binary_ops {
    () => {
        $crate::Op::Add
            | $crate::Op::Sub
            | $crate::Op::Mul
            | $crate::Op::TrueDiv
            | $crate::Op::FloorDiv
            | $crate::Op::TruncDiv
            | $crate::Op::Pow
            | $crate::Op::Fmod
            | $crate::Op::Maximum
            | $crate::Op::Minimum
            | $crate::Op::Eq
            | $crate::Op::Ne
            | $crate::Op::Lt
            | $crate::Op::Le
            | $crate::Op::Gt
            | $crate::Op::Ge
            | $crate::Op::LogicalAnd
            | $crate::Op::LogicalOr
            | $crate::Op::BitAnd
            | $crate::Op::BitOr
            | $crate::Op::BitXor
            | $crate::Op::Shl
            | $crate::Op::Shr
    };
}

impl Op {
    /// True when the result is a bool whatever the operands are.
    pub fn returns_bool(self) -> bool {
        self.result() == OpResult::Bool
    }

    /// The op named `name` (Inductor's spelling, as [`Op::name`] gives it).
    pub fn from_name(name: &str) -> Option<Op> {
        Op::ALL.iter().copied().find(|op| op.name() == name)
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
    /// `log(exp(a) + exp(b))` (-inf for no elements); in scans only (`logcumsumexp`).
    LogAddExp,
}

impl ReductionType {
    /// Every reduction type.
    pub const ALL: [ReductionType; 7] = {
        use ReductionType::*;
        [Sum, Prod, Max, Min, Argmax, Argmin, LogAddExp]
    };

    /// The reduction named `name` (as [`ReductionType::name`] gives it).
    pub fn from_name(name: &str) -> Option<ReductionType> {
        ReductionType::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Inductor's name: `sum`, `prod`, `max`, `min`, `argmax`, `argmin`.
    pub fn name(self) -> &'static str {
        match self {
            ReductionType::Sum => "sum",
            ReductionType::Prod => "prod",
            ReductionType::Max => "max",
            ReductionType::Min => "min",
            ReductionType::Argmax => "argmax",
            ReductionType::Argmin => "argmin",
            ReductionType::LogAddExp => "logaddexp",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_op_table_names_each_op_once_and_reads_its_names_back() {
        for (i, &op) in Op::ALL.iter().enumerate() {
            assert_eq!(Op::from_name(op.name()), Some(op));
            assert!(Op::ALL[..i].iter().all(|o| o.name() != op.name()), "{op}");
            assert!((1..=3).contains(&op.arity()), "{op}");
            if let Some(f) = op.math_fn() {
                assert_ne!(op.cost(), OpCost::Cheap, "{op} calls a library function");
                assert!(crate::MathFn::ALL.contains(&f), "{op}");
            }
        }
        for r in ReductionType::ALL {
            assert_eq!(ReductionType::from_name(r.name()), Some(r));
        }
        assert_eq!(Op::from_name("nope"), None);
        for &op in Op::ALL {
            assert_eq!(matches!(op, unary_ops!()), op.arity() == 1, "{op}");
            assert_eq!(matches!(op, binary_ops!()), op.arity() == 2, "{op}");
        }
        assert!(Op::Lt.returns_bool() && !Op::Add.returns_bool());
    }
}
