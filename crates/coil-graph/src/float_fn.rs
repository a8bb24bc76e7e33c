//! The float functions coil builds from the pointwise ops every backend already has (`atan`,
//! `asinh`, `erfc`, `logaddexp`, ...): each declared once here with its ATen name, arity,
//! dtype rule and reference meaning, one op kind for all of them
//! ([`crate::OpKind::Float`]). The lowering expands each into loop-body ops
//! (`coil-lower/src/math/`), the same expansion for every backend and the scalar evaluator;
//! coil-eager computes the reference below. So a new function touches its variant here, its
//! schema in `ops.rs`, its expansion, and its op case: no backend, no interpreter arm.

/// A float function of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FloatFn {
    /// Arctangent.
    Atan,
    /// Arcsine (NaN outside [-1, 1]).
    Asin,
    /// Arccosine (NaN outside [-1, 1]).
    Acos,
    /// `atan2(self, other)`: the angle of the point `(other, self)`, signed zeros and
    /// infinities as C's.
    Atan2,
    /// `sqrt(self^2 + other^2)` without overflow or underflow on the way.
    Hypot,
    /// Inverse hyperbolic sine.
    Asinh,
    /// Inverse hyperbolic cosine (NaN below 1).
    Acosh,
    /// Inverse hyperbolic tangent (NaN outside [-1, 1]).
    Atanh,
    /// `e^x - 1`, accurate for small `x`.
    Expm1,
    /// `log(e^self + e^other)` without overflow.
    Logaddexp,
    /// The complementary error function `1 - erf(x)`, accurate where it is small.
    Erfc,
    /// The inverse error function (NaN outside [-1, 1], infinite at +-1).
    Erfinv,
    /// `2^x`.
    Exp2,
}

impl FloatFn {
    /// Every function, in declaration order.
    pub const ALL: [FloatFn; 13] = [
        FloatFn::Atan,
        FloatFn::Asin,
        FloatFn::Acos,
        FloatFn::Atan2,
        FloatFn::Hypot,
        FloatFn::Asinh,
        FloatFn::Acosh,
        FloatFn::Atanh,
        FloatFn::Expm1,
        FloatFn::Logaddexp,
        FloatFn::Erfc,
        FloatFn::Erfinv,
        FloatFn::Exp2,
    ];

    /// The ATen name (`atan2`).
    pub fn name(self) -> &'static str {
        match self {
            FloatFn::Atan => "atan",
            FloatFn::Asin => "asin",
            FloatFn::Acos => "acos",
            FloatFn::Atan2 => "atan2",
            FloatFn::Hypot => "hypot",
            FloatFn::Asinh => "asinh",
            FloatFn::Acosh => "acosh",
            FloatFn::Atanh => "atanh",
            FloatFn::Expm1 => "expm1",
            FloatFn::Logaddexp => "logaddexp",
            FloatFn::Erfc => "erfc",
            FloatFn::Erfinv => "erfinv",
            FloatFn::Exp2 => "exp2",
        }
    }

    /// How many tensor operands it takes (`self`, and `other` for the binary ones).
    pub fn arity(self) -> usize {
        match self {
            FloatFn::Atan2 | FloatFn::Hypot | FloatFn::Logaddexp => 2,
            FloatFn::Atan
            | FloatFn::Asin
            | FloatFn::Acos
            | FloatFn::Asinh
            | FloatFn::Acosh
            | FloatFn::Atanh
            | FloatFn::Expm1
            | FloatFn::Erfc
            | FloatFn::Erfinv
            | FloatFn::Exp2 => 1,
        }
    }

    /// Whether integer and bool operands are refused (PyTorch's `hypot` and `logaddexp`
    /// have float kernels only); the others compute integers in the default float dtype.
    pub fn floats_only(self) -> bool {
        match self {
            FloatFn::Hypot | FloatFn::Logaddexp => true,
            FloatFn::Atan
            | FloatFn::Asin
            | FloatFn::Acos
            | FloatFn::Atan2
            | FloatFn::Asinh
            | FloatFn::Acosh
            | FloatFn::Atanh
            | FloatFn::Expm1
            | FloatFn::Erfc
            | FloatFn::Erfinv
            | FloatFn::Exp2 => false,
        }
    }

    /// The reference meaning, in f64 (C's libm where it has the function): what coil-eager
    /// computes and the expansions are tested against. `x[1]` is `other` for the binary ones.
    pub fn reference(self, x: &[f64]) -> f64 {
        let a = x[0];
        let b = x.get(1).copied().unwrap_or(f64::NAN);
        match self {
            FloatFn::Atan => libm::atan(a),
            FloatFn::Asin => libm::asin(a),
            FloatFn::Acos => libm::acos(a),
            FloatFn::Atan2 => libm::atan2(a, b),
            FloatFn::Hypot => libm::hypot(a, b),
            FloatFn::Asinh => libm::asinh(a),
            FloatFn::Acosh => libm::acosh(a),
            FloatFn::Atanh => libm::atanh(a),
            FloatFn::Expm1 => libm::expm1(a),
            FloatFn::Logaddexp => {
                if a == b && a.is_infinite() {
                    a
                } else {
                    let m = a.max(b);
                    if m.is_nan() || a.is_nan() || b.is_nan() {
                        f64::NAN
                    } else {
                        m + libm::log1p(libm::exp(-(a - b).abs()))
                    }
                }
            }
            FloatFn::Erfc => libm::erfc(a),
            FloatFn::Erfinv => erfinv(a),
            FloatFn::Exp2 => libm::exp2(a),
        }
    }
}

/// `erfinv(x)` in f64: Winitzki's closed-form guess, then Newton steps (on `erfc(y) = 1 - x`
/// near +-1, where `erf(y)` cannot tell values apart).
fn erfinv(x: f64) -> f64 {
    if x.is_nan() || x.abs() > 1.0 {
        return f64::NAN;
    }
    if x.abs() == 1.0 {
        return x * f64::INFINITY;
    }
    if x == 0.0 {
        return x;
    }
    let a = x.abs();
    // A guess within a few percent: Winitzki's closed form.
    let k = 0.147;
    let l = libm::log1p(-a * a);
    let t = 2.0 / (std::f64::consts::PI * k) + l / 2.0;
    let mut y = (libm::sqrt(t * t - l / k) - t).sqrt();
    for _ in 0..6 {
        let slope = 2.0 / std::f64::consts::PI.sqrt() * libm::exp(-y * y);
        if slope == 0.0 {
            break;
        }
        // Below 1/2 on erf (relative accuracy for small values), above on erfc against
        // 1 - a (exact there): both give a - erf(y) over erf's slope.
        let step = if a < 0.5 {
            (a - libm::erf(y)) / slope
        } else {
            (libm::erfc(y) - (1.0 - a)) / slope
        };
        y += step;
        if step.abs() <= 1e-17 * y {
            break;
        }
    }
    y.copysign(x)
}
