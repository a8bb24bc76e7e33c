//! The reference scalar meaning of every op: one element at a time, floats as f64 rounded
//! to their dtype after every op, integers wrapped to theirs; the reductions' accumulators.
//! The lowering's interpreter and the kernel evaluator both compute with these.

use half::{bf16, f16};

use crate::{DType, Op, ReductionType};

/// One element: floats as f64 (rounded to their dtype after every op), integers as i64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A float, rounded to its dtype.
    F(f64),
    /// An integer.
    I(i64),
    /// A bool.
    B(bool),
}

/// An op its operands do not admit (a float op of integers, integer division by zero), in
/// words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ScalarError(pub String);

type R<T> = Result<T, ScalarError>;

fn eval_err<T>(msg: impl Into<String>) -> R<T> {
    Err(ScalarError(msg.into()))
}

/// `x` rounded to `dtype` (floats; other dtypes unchanged).
pub fn round_float(x: f64, dtype: DType) -> f64 {
    match dtype {
        DType::F32 => x as f32 as f64,
        DType::F16 => f16::from_f64(x).to_f64(),
        DType::BF16 => bf16::from_f64(x).to_f64(),
        _ => x,
    }
}

/// `i` wrapped to `dtype`'s width and signedness (`i64` unchanged): [`DType::wrap`].
pub fn wrap_int(i: i64, dtype: DType) -> i64 {
    dtype.wrap(i)
}

/// The bits of `x` (a value of `from`) in `from`'s storage encoding, read as `to` (of the same
/// size): `view(dtype)`'s meaning, one element.
pub fn bitcast(x: Scalar, from: DType, to: DType) -> Scalar {
    let bits: u64 = match (from, x.cast(from)) {
        (DType::F32, Scalar::F(v)) => u64::from((v as f32).to_bits()),
        (DType::F64, Scalar::F(v)) => v.to_bits(),
        (DType::F16, Scalar::F(v)) => u64::from(f16::from_f64(v).to_bits()),
        (DType::BF16, Scalar::F(v)) => u64::from(bf16::from_f64(v).to_bits()),
        (DType::Bool, Scalar::B(b)) => u64::from(b),
        (_, Scalar::I(i)) => i as u64,
        (_, other) => other.as_f64() as i64 as u64,
    };
    let low = |n: u32| bits & (u64::MAX >> (64 - n));
    match to {
        DType::F32 => Scalar::F(f64::from(f32::from_bits(low(32) as u32))),
        DType::F64 => Scalar::F(f64::from_bits(bits)),
        DType::F16 => Scalar::F(f16::from_bits(low(16) as u16).to_f64()),
        DType::BF16 => Scalar::F(bf16::from_bits(low(16) as u16).to_f64()),
        DType::Bool => Scalar::B(low(8) != 0),
        d => Scalar::I(d.wrap(low(d.bits()) as i64)),
    }
}

impl Scalar {
    /// Zero of `dtype`.
    pub fn zero(dtype: DType) -> Scalar {
        match dtype {
            DType::Bool => Scalar::B(false),
            d if d.is_float() => Scalar::F(0.0),
            _ => Scalar::I(0),
        }
    }

    /// The value as f64.
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::F(x) => x,
            Scalar::I(i) => i as f64,
            Scalar::B(b) => b as u8 as f64,
        }
    }

    /// The value as a condition (nonzero is true).
    pub fn truthy(self) -> bool {
        match self {
            Scalar::F(x) => x != 0.0,
            Scalar::I(i) => i != 0,
            Scalar::B(b) => b,
        }
    }

    /// PyTorch's conversions: floats to ints truncate, nonzero is true.
    pub fn cast(self, to: DType) -> Scalar {
        match (self, to) {
            (v, DType::Bool) => Scalar::B(v.truthy()),
            (v, d) if d.is_float() => Scalar::F(round_float(v.as_f64(), d)),
            (Scalar::F(x), d) => Scalar::I(wrap_int(x as i64, d)),
            (Scalar::I(i), d) => Scalar::I(wrap_int(i, d)),
            (Scalar::B(b), d) => Scalar::I(wrap_int(b as i64, d)),
        }
    }
}

/// The reference semantics of a one-operand op on one element (PyTorch's), producing `dtype`.
pub fn unary(op: Op, a: Scalar, dtype: DType) -> R<Scalar> {
    Ok(match a {
        Scalar::F(x) => {
            let y = match op {
                Op::Neg => -x,
                Op::Abs => x.abs(),
                Op::Floor => x.floor(),
                Op::Ceil => x.ceil(),
                Op::Round => x.round_ties_even(),
                Op::Trunc => x.trunc(),
                Op::Exp => x.exp(),
                Op::Log => x.ln(),
                Op::Log1p => x.ln_1p(),
                Op::Sqrt => x.sqrt(),
                Op::Rsqrt => 1.0 / x.sqrt(),
                Op::Sin => x.sin(),
                Op::Cos => x.cos(),
                Op::Tanh => x.tanh(),
                Op::Erf => libm::erf(x),
                Op::Sigmoid => 1.0 / (1.0 + (-x).exp()),
                Op::Relu => {
                    if x.is_nan() || x > 0.0 {
                        x
                    } else {
                        0.0
                    }
                }
                Op::Reciprocal => 1.0 / x,
                Op::LogicalNot => return Ok(Scalar::B(x == 0.0)),
                Op::BitwiseNot | Op::Where | crate::binary_ops!() => {
                    return eval_err(format!("{op} of a float"));
                }
            };
            Scalar::F(round_float(y, dtype))
        }
        Scalar::I(i) => {
            let y = match op {
                Op::Neg => i.wrapping_neg(),
                Op::Abs => i.wrapping_abs(),
                Op::Floor | Op::Ceil | Op::Round | Op::Trunc => i,
                Op::Relu => i.max(0),
                Op::BitwiseNot => !i,
                Op::LogicalNot => return Ok(Scalar::B(i == 0)),
                // The float functions of an integer: of its value as f64.
                Op::Exp
                | Op::Log
                | Op::Log1p
                | Op::Sqrt
                | Op::Rsqrt
                | Op::Sin
                | Op::Cos
                | Op::Tanh
                | Op::Erf
                | Op::Sigmoid
                | Op::Reciprocal
                | Op::Where
                | crate::binary_ops!() => {
                    return unary(op, Scalar::F(i as f64), DType::F64).map(|v| v.cast(dtype));
                }
            };
            Scalar::I(wrap_int(y, dtype))
        }
        Scalar::B(b) => match op {
            Op::LogicalNot | Op::BitwiseNot => Scalar::B(!b),
            Op::Abs | Op::Relu | Op::Floor | Op::Ceil | Op::Round | Op::Trunc => Scalar::B(b),
            Op::Neg
            | Op::Exp
            | Op::Log
            | Op::Log1p
            | Op::Sqrt
            | Op::Rsqrt
            | Op::Sin
            | Op::Cos
            | Op::Tanh
            | Op::Erf
            | Op::Sigmoid
            | Op::Reciprocal
            | Op::Where
            | crate::binary_ops!() => {
                return unary(op, Scalar::I(b as i64), DType::I64).map(|v| v.cast(dtype));
            }
        },
    })
}

/// PyTorch's `lshift` / `rshift` of `x` by `y` in `dtype`'s width (values held sign- or
/// zero-extended): a left shift by a negative amount or the width or more is 0; a right shift
/// by those is one by the width less one (the sign) for signed types, 0 for unsigned ones.
pub fn shift(left: bool, x: i64, y: i64, dtype: DType) -> i64 {
    let bits = if dtype.is_int() {
        dtype.bits() as i64
    } else {
        64
    };
    let out_of_range = y < 0 || y >= bits;
    if left || (out_of_range && dtype.is_unsigned()) {
        if out_of_range {
            0
        } else {
            x.wrapping_shl(y as u32)
        }
    } else {
        x >> (if out_of_range { bits - 1 } else { y })
    }
}

/// `round(x, decimals=d)`'s power of ten and whether `x` is divided by it first (negative
/// `d`), as PyTorch's kernel computes it: what the lowering and coil-eager both use.
pub fn round_decimals_scale(d: i64) -> (f64, bool) {
    (10f64.powi(d.unsigned_abs().min(400) as i32), d < 0)
}

/// PyTorch's integer `pow` (wrapping); to a negative power: 1 of 1, +-1 of -1 (by the
/// exponent's parity), 0 of everything else.
pub fn int_pow(x: i64, y: i64) -> i64 {
    if y < 0 {
        return match x {
            1 => 1,
            -1 if y % 2 != 0 => -1,
            -1 => 1,
            _ => 0,
        };
    }
    let (mut r, mut base, mut e) = (1i64, x, y);
    while e > 0 {
        if e & 1 == 1 {
            r = r.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        e >>= 1;
    }
    r
}

fn nan_max(a: f64, b: f64, max: bool) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if max {
        a.max(b)
    } else {
        a.min(b)
    }
}

/// The reference semantics of a two-operand op on one element, producing `dtype`.
pub fn binary(op: Op, a: Scalar, b: Scalar, dtype: DType) -> R<Scalar> {
    use Op::*;
    if matches!(op, LogicalAnd | LogicalOr) {
        let (x, y) = (a.truthy(), b.truthy());
        return Ok(Scalar::B(if op == LogicalAnd { x && y } else { x || y }));
    }
    Ok(match (a, b) {
        (Scalar::F(x), Scalar::F(y)) => {
            let z = match op {
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                TrueDiv => x / y,
                FloorDiv => (x / y).floor(),
                TruncDiv => (x / y).trunc(),
                Pow => x.powf(y),
                Fmod => x % y,
                Maximum => nan_max(x, y, true),
                Minimum => nan_max(x, y, false),
                Eq => return Ok(Scalar::B(x == y)),
                Ne => return Ok(Scalar::B(x != y)),
                Lt => return Ok(Scalar::B(x < y)),
                Le => return Ok(Scalar::B(x <= y)),
                Gt => return Ok(Scalar::B(x > y)),
                Ge => return Ok(Scalar::B(x >= y)),
                LogicalAnd
                | LogicalOr
                | BitAnd
                | BitOr
                | BitXor
                | Shl
                | Shr
                | Where
                | crate::unary_ops!() => {
                    return eval_err(format!("{op} of two floats"));
                }
            };
            Scalar::F(round_float(z, dtype))
        }
        (Scalar::I(x), Scalar::I(y)) => {
            let z = match op {
                Add => x.wrapping_add(y),
                Sub => x.wrapping_sub(y),
                Mul => x.wrapping_mul(y),
                FloorDiv | TruncDiv | TrueDiv | Fmod if y == 0 => {
                    return eval_err("integer division by zero");
                }
                Fmod => x.wrapping_rem(y),
                FloorDiv => {
                    let q = x.wrapping_div(y);
                    if x.wrapping_rem(y) != 0 && ((x < 0) != (y < 0)) {
                        q - 1
                    } else {
                        q
                    }
                }
                TruncDiv | TrueDiv => x.wrapping_div(y),
                Pow => int_pow(x, y),
                Maximum => x.max(y),
                Minimum => x.min(y),
                Eq => return Ok(Scalar::B(x == y)),
                Ne => return Ok(Scalar::B(x != y)),
                Lt => return Ok(Scalar::B(x < y)),
                Le => return Ok(Scalar::B(x <= y)),
                Gt => return Ok(Scalar::B(x > y)),
                Ge => return Ok(Scalar::B(x >= y)),
                BitAnd => x & y,
                BitOr => x | y,
                BitXor => x ^ y,
                Shl | Shr => shift(op == Shl, x, y, dtype),
                LogicalAnd | LogicalOr | Where | crate::unary_ops!() => {
                    return eval_err(format!("{op} of two integers"));
                }
            };
            Scalar::I(wrap_int(z, dtype))
        }
        (Scalar::B(x), Scalar::B(y)) => match op {
            Add | Maximum => Scalar::B(x || y),
            Mul | Minimum => Scalar::B(x && y),
            Eq => Scalar::B(x == y),
            Ne => Scalar::B(x != y),
            Lt => Scalar::B(!x & y),
            Le => Scalar::B(x <= y),
            Gt => Scalar::B(x & !y),
            Ge => Scalar::B(x >= y),
            BitAnd => Scalar::B(x & y),
            BitOr => Scalar::B(x | y),
            BitXor => Scalar::B(x ^ y),
            Sub
            | Shl
            | Shr
            | TrueDiv
            | FloorDiv
            | TruncDiv
            | Pow
            | Fmod
            | LogicalAnd
            | LogicalOr
            | Where
            | crate::unary_ops!() => {
                return binary(op, Scalar::I(x as i64), Scalar::I(y as i64), DType::I64)
                    .map(|v| v.cast(dtype));
            }
        },
        (a, b) => return eval_err(format!("{op} of mixed values {a:?} and {b:?}")),
    })
}

/// A reduction in progress, with PyTorch's rules (NaN-propagating max/min, first index for
/// argmax/argmin with NaN winning).
#[allow(missing_docs)]
#[derive(Clone, Debug)]
pub enum Acc {
    Sum(f64, i64),
    Prod(f64, i64),
    Extreme(Option<Scalar>),
    Arg(Option<(Scalar, i64)>),
    LogAddExp(f64),
}

/// `log(exp(a) + exp(b))`: the larger plus `log1p(exp(-|a - b|))`; -inf when both are, NaN
/// when either is.
pub fn log_add_exp(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if m == f64::NEG_INFINITY {
        m
    } else {
        m + (-(a - b).abs()).exp().ln_1p()
    }
}

/// True when `a` beats `b` for max (or min): NaN wins, ties keep the first.
fn beats(a: Scalar, b: Scalar, max: bool) -> bool {
    match (a, b) {
        (Scalar::I(x), Scalar::I(y)) => {
            if max {
                x > y
            } else {
                x < y
            }
        }
        _ => {
            let (x, y) = (a.as_f64(), b.as_f64());
            if y.is_nan() {
                false
            } else if x.is_nan() {
                true
            } else if max {
                x > y
            } else {
                x < y
            }
        }
    }
}

impl Acc {
    /// The identity of `rt`.
    pub fn new(rt: ReductionType) -> Acc {
        match rt {
            ReductionType::Sum => Acc::Sum(0.0, 0),
            ReductionType::Prod => Acc::Prod(1.0, 1),
            ReductionType::Max | ReductionType::Min => Acc::Extreme(None),
            ReductionType::Argmax | ReductionType::Argmin => Acc::Arg(None),
            ReductionType::LogAddExp => Acc::LogAddExp(f64::NEG_INFINITY),
        }
    }

    /// Folds in the element at flat reduction position `pos`.
    pub fn combine(&mut self, rt: ReductionType, v: Scalar, pos: i64) {
        let max = matches!(rt, ReductionType::Max | ReductionType::Argmax);
        match self {
            Acc::Sum(f, i) => match v {
                Scalar::F(x) => *f += x,
                other => *i = i.wrapping_add(other.cast(DType::I64).as_i64()),
            },
            Acc::Prod(f, i) => match v {
                Scalar::F(x) => *f *= x,
                other => *i = i.wrapping_mul(other.cast(DType::I64).as_i64()),
            },
            Acc::Extreme(best) => {
                if best.is_none_or(|b| beats(v, b, max)) {
                    *best = Some(v);
                }
            }
            Acc::Arg(best) => {
                if best.is_none_or(|(b, _)| beats(v, b, max)) {
                    *best = Some((v, pos));
                }
            }
            Acc::LogAddExp(f) => *f = log_add_exp(*f, v.as_f64()),
        }
    }

    /// The result, as `dtype`.
    pub fn finish(self, dtype: DType) -> Scalar {
        match self {
            Acc::Sum(f, i) | Acc::Prod(f, i) => {
                if dtype.is_float() {
                    Scalar::F(round_float(f, dtype))
                } else {
                    Scalar::I(i).cast(dtype)
                }
            }
            Acc::Extreme(best) => match best {
                Some(v) => v.cast(dtype),
                // Max of nothing: PyTorch raises; the identity is what a kernel would leave.
                None if dtype.is_float() => Scalar::F(f64::NAN),
                None => Scalar::zero(dtype),
            },
            Acc::Arg(best) => Scalar::I(best.map_or(0, |(_, p)| p)),
            Acc::LogAddExp(f) => Scalar::F(round_float(f, dtype)),
        }
    }
}

impl Scalar {
    /// The value as an integer (floats truncate, bools are 0 or 1).
    pub fn as_i64(self) -> i64 {
        match self {
            Scalar::I(i) => i,
            Scalar::F(x) => x as i64,
            Scalar::B(b) => b as i64,
        }
    }
}
