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
    /// The scaled complementary error function `e^(x^2) erfc(x)`.
    Erfcx,
    /// The standard normal quantile, `sqrt(2) erfinv(2p - 1)`.
    Ndtri,
    /// `ln|Gamma(x)|`.
    Lgamma,
    /// The logarithmic derivative of Gamma.
    Digamma,
    /// `polygamma(n, x)`, the `n`-th derivative of digamma (`n` a number).
    Polygamma,
    /// The Hurwitz zeta function `zeta(x, q)`.
    Zeta,
    /// The regularized lower incomplete gamma function `P(a, x)`.
    Igamma,
    /// The regularized upper incomplete gamma function `Q(a, x) = 1 - P(a, x)`.
    Igammac,
    /// The modified Bessel function `I_0`.
    I0,
    /// `e^-|x| I_0(x)`.
    I0e,
    /// The modified Bessel function `I_1`.
    I1,
    /// `e^-|x| I_1(x)`.
    I1e,
    /// The modified Bessel function of the second kind `K_0`.
    K0,
    /// The modified Bessel function of the second kind `K_1`.
    K1,
    /// `e^x K_0(x)`.
    K0e,
    /// `e^x K_1(x)`.
    K1e,
    /// The spherical Bessel function `j_0(x) = sin(x) / x`.
    SphericalJ0,
    /// The Bessel function of the first kind `J_0`.
    J0,
    /// The Bessel function of the first kind `J_1`.
    J1,
    /// The Bessel function of the second kind `Y_0`.
    Y0,
    /// The Bessel function of the second kind `Y_1`.
    Y1,
    /// The Airy function `Ai`.
    AiryAi,
    /// Chebyshev polynomial `T_n(x)` (`n` a number, as the other polynomials).
    ChebyshevT,
    /// Chebyshev polynomial `U_n(x)`.
    ChebyshevU,
    /// Chebyshev polynomial `V_n(x)`.
    ChebyshevV,
    /// Chebyshev polynomial `W_n(x)`.
    ChebyshevW,
    /// Shifted Chebyshev polynomial `T*_n(x) = T_n(2x - 1)`.
    ShiftedChebyshevT,
    /// Shifted Chebyshev polynomial `U*_n(x)`.
    ShiftedChebyshevU,
    /// Shifted Chebyshev polynomial `V*_n(x)`.
    ShiftedChebyshevV,
    /// Shifted Chebyshev polynomial `W*_n(x)`.
    ShiftedChebyshevW,
    /// Physicists' Hermite polynomial `H_n(x)`.
    HermiteH,
    /// Probabilists' Hermite polynomial `He_n(x)`.
    HermiteHe,
    /// Laguerre polynomial `L_n(x)`.
    LaguerreL,
    /// Legendre polynomial `P_n(x)`.
    LegendreP,
}

impl FloatFn {
    /// Every function, in declaration order.
    pub const ALL: [FloatFn; 47] = [
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
        FloatFn::Erfcx,
        FloatFn::Ndtri,
        FloatFn::Lgamma,
        FloatFn::Digamma,
        FloatFn::Polygamma,
        FloatFn::Zeta,
        FloatFn::Igamma,
        FloatFn::Igammac,
        FloatFn::I0,
        FloatFn::I0e,
        FloatFn::I1,
        FloatFn::I1e,
        FloatFn::K0,
        FloatFn::K1,
        FloatFn::K0e,
        FloatFn::K1e,
        FloatFn::SphericalJ0,
        FloatFn::J0,
        FloatFn::J1,
        FloatFn::Y0,
        FloatFn::Y1,
        FloatFn::AiryAi,
        FloatFn::ChebyshevT,
        FloatFn::ChebyshevU,
        FloatFn::ChebyshevV,
        FloatFn::ChebyshevW,
        FloatFn::ShiftedChebyshevT,
        FloatFn::ShiftedChebyshevU,
        FloatFn::ShiftedChebyshevV,
        FloatFn::ShiftedChebyshevW,
        FloatFn::HermiteH,
        FloatFn::HermiteHe,
        FloatFn::LaguerreL,
        FloatFn::LegendreP,
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
            FloatFn::Erfcx => "special_erfcx",
            FloatFn::Ndtri => "special_ndtri",
            FloatFn::Lgamma => "lgamma",
            FloatFn::Digamma => "digamma",
            FloatFn::Polygamma => "polygamma",
            FloatFn::Zeta => "special_zeta",
            FloatFn::Igamma => "igamma",
            FloatFn::Igammac => "igammac",
            FloatFn::I0 => "i0",
            FloatFn::I0e => "special_i0e",
            FloatFn::I1 => "special_i1",
            FloatFn::I1e => "special_i1e",
            FloatFn::K0 => "special_modified_bessel_k0",
            FloatFn::K1 => "special_modified_bessel_k1",
            FloatFn::K0e => "special_scaled_modified_bessel_k0",
            FloatFn::K1e => "special_scaled_modified_bessel_k1",
            FloatFn::SphericalJ0 => "special_spherical_bessel_j0",
            FloatFn::J0 => "special_bessel_j0",
            FloatFn::J1 => "special_bessel_j1",
            FloatFn::Y0 => "special_bessel_y0",
            FloatFn::Y1 => "special_bessel_y1",
            FloatFn::AiryAi => "special_airy_ai",
            FloatFn::ChebyshevT => "special_chebyshev_polynomial_t",
            FloatFn::ChebyshevU => "special_chebyshev_polynomial_u",
            FloatFn::ChebyshevV => "special_chebyshev_polynomial_v",
            FloatFn::ChebyshevW => "special_chebyshev_polynomial_w",
            FloatFn::ShiftedChebyshevT => "special_shifted_chebyshev_polynomial_t",
            FloatFn::ShiftedChebyshevU => "special_shifted_chebyshev_polynomial_u",
            FloatFn::ShiftedChebyshevV => "special_shifted_chebyshev_polynomial_v",
            FloatFn::ShiftedChebyshevW => "special_shifted_chebyshev_polynomial_w",
            FloatFn::HermiteH => "special_hermite_polynomial_h",
            FloatFn::HermiteHe => "special_hermite_polynomial_he",
            FloatFn::LaguerreL => "special_laguerre_polynomial_l",
            FloatFn::LegendreP => "special_legendre_polynomial_p",
        }
    }

    /// How many operands it takes (tensors, or numbers where [`FloatFn::params`] says).
    pub fn arity(self) -> usize {
        self.params().len()
    }

    /// Its operands' parameter names, in schema order.
    pub fn params(self) -> &'static [&'static str] {
        match self {
            FloatFn::Atan2
            | FloatFn::Hypot
            | FloatFn::Logaddexp
            | FloatFn::Zeta
            | FloatFn::Igamma
            | FloatFn::Igammac => &["self", "other"],
            FloatFn::Polygamma => &["n", "self"],
            FloatFn::K0e | FloatFn::K1e | FloatFn::SphericalJ0 | FloatFn::AiryAi => &["x"],
            f if f.polynomial().is_some() => &["x", "n"],
            _ => &["self"],
        }
    }

    /// The orthogonal polynomial it is, and whether shifted (`T_n(2x - 1)`).
    pub fn polynomial(self) -> Option<(crate::special::poly::Family, bool)> {
        use crate::special::poly::Family as P;
        Some(match self {
            FloatFn::ChebyshevT => (P::ChebyshevT, false),
            FloatFn::ChebyshevU => (P::ChebyshevU, false),
            FloatFn::ChebyshevV => (P::ChebyshevV, false),
            FloatFn::ChebyshevW => (P::ChebyshevW, false),
            FloatFn::ShiftedChebyshevT => (P::ChebyshevT, true),
            FloatFn::ShiftedChebyshevU => (P::ChebyshevU, true),
            FloatFn::ShiftedChebyshevV => (P::ChebyshevV, true),
            FloatFn::ShiftedChebyshevW => (P::ChebyshevW, true),
            FloatFn::HermiteH => (P::HermiteH, false),
            FloatFn::HermiteHe => (P::HermiteHe, false),
            FloatFn::LaguerreL => (P::Laguerre, false),
            FloatFn::LegendreP => (P::Legendre, false),
            _ => return None,
        })
    }

    /// The operand that must be a number known when compiling (a polynomial's degree,
    /// polygamma's order), by its index in [`FloatFn::params`].
    pub fn constant_operand(self) -> Option<usize> {
        match self {
            FloatFn::Polygamma => Some(0),
            f if f.polynomial().is_some() => Some(1),
            _ => None,
        }
    }

    /// Whether it is computed in f64 whatever the dtype (the special functions, whose
    /// series and branches are written for f64; a 32-bit result is then one rounding away).
    pub fn wide(self) -> bool {
        !matches!(
            self,
            FloatFn::Atan
                | FloatFn::Asin
                | FloatFn::Acos
                | FloatFn::Atan2
                | FloatFn::Hypot
                | FloatFn::Asinh
                | FloatFn::Acosh
                | FloatFn::Atanh
                | FloatFn::Expm1
                | FloatFn::Logaddexp
                | FloatFn::Erfc
                | FloatFn::Erfinv
                | FloatFn::Exp2
                | FloatFn::Erfcx
                | FloatFn::Ndtri
        )
    }

    /// Whether integer and bool operands are refused (PyTorch's `hypot` and `logaddexp`
    /// have float kernels only); the others compute integers in the default float dtype.
    pub fn floats_only(self) -> bool {
        matches!(self, FloatFn::Hypot | FloatFn::Logaddexp)
    }

    /// The function written once over [`crate::special::Arith`] (the special functions), or
    /// `None` for the ones each side writes itself. `x` holds the operands in
    /// [`FloatFn::params`] order; `constant` is the value of the one operand known when
    /// compiling ([`FloatFn::constant_operand`]), if any.
    pub fn generic<A: crate::special::Arith>(
        self,
        a: &mut A,
        x: &[A::V],
        constant: f64,
    ) -> Option<A::V> {
        use crate::special::{bessel, gamma, poly};
        if let Some((family, shifted)) = self.polynomial() {
            return Some(poly::eval(a, family, shifted, x[0], constant as i64));
        }
        Some(match self {
            FloatFn::Lgamma => gamma::lgamma(a, x[0]),
            FloatFn::Digamma => gamma::digamma(a, x[0]),
            FloatFn::Polygamma => gamma::polygamma(a, constant as i64, x[1]),
            FloatFn::Zeta => gamma::zeta(a, x[0], x[1]),
            FloatFn::Igamma => gamma::igamma(a, x[0], x[1], false),
            FloatFn::Igammac => gamma::igamma(a, x[0], x[1], true),
            FloatFn::I0 => bessel::bessel_i(a, 0, x[0], false),
            FloatFn::I0e => bessel::bessel_i(a, 0, x[0], true),
            FloatFn::I1 => bessel::bessel_i(a, 1, x[0], false),
            FloatFn::I1e => bessel::bessel_i(a, 1, x[0], true),
            FloatFn::K0 => bessel::bessel_k(a, 0, x[0], false),
            FloatFn::K1 => bessel::bessel_k(a, 1, x[0], false),
            FloatFn::K0e => bessel::bessel_k(a, 0, x[0], true),
            FloatFn::K1e => bessel::bessel_k(a, 1, x[0], true),
            FloatFn::SphericalJ0 => bessel::spherical_j0(a, x[0]),
            FloatFn::J0 => bessel::bessel_j(a, 0, x[0]),
            FloatFn::J1 => bessel::bessel_j(a, 1, x[0]),
            FloatFn::Y0 => bessel::bessel_y(a, 0, x[0]),
            FloatFn::Y1 => bessel::bessel_y(a, 1, x[0]),
            FloatFn::AiryAi => bessel::airy_ai(a, x[0]),
            _ => return None,
        })
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
            FloatFn::Erfcx => erfcx(a),
            FloatFn::Ndtri => {
                if !(0.0..=1.0).contains(&a) {
                    f64::NAN
                } else {
                    let x = 2.0 * a - 1.0;
                    std::f64::consts::SQRT_2 * erfinv_of(x.abs(), 2.0 * a.min(1.0 - a)).copysign(x)
                }
            }
            f => {
                let constant = f.constant_operand().map_or(0.0, |i| x[i]);
                f.generic(&mut crate::special::F64, x, constant)
                    .expect("every other function is generic")
            }
        }
    }
}

/// `erfcx(x) = e^(x^2) erfc(x)` in f64: directly below 26, its asymptotic series above
/// (where erfc underflows), `2 e^(x^2) - erfcx(-x)` for negative `x`.
fn erfcx(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 0.0 {
        return 2.0 * libm::exp(x * x) - erfcx(-x);
    }
    if x < 26.0 {
        return libm::exp(x * x) * libm::erfc(x);
    }
    // 1/(x sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2x^2)^k
    let inv = 1.0 / (2.0 * x * x);
    let (mut term, mut sum) = (1.0, 1.0);
    for k in 1..12 {
        term *= -((2 * k - 1) as f64) * inv;
        sum += term;
    }
    sum / (x * std::f64::consts::PI.sqrt())
}

/// `erfinv(x)` in f64.
fn erfinv(x: f64) -> f64 {
    if x.is_nan() || x.abs() > 1.0 {
        return f64::NAN;
    }
    erfinv_of(x.abs(), 1.0 - x.abs()).copysign(x)
}

/// `erfinv(a)` for `a` in [0, 1] given `target = 1 - a` (exact: it keeps a tail
/// probability's digits where `a` has rounded to 1): Winitzki's closed-form guess, then Newton
/// steps (on `erfc(y) = target` from 1/2 on, where `erf(y)` cannot tell values apart).
fn erfinv_of(a: f64, target: f64) -> f64 {
    if target == 0.0 {
        return f64::INFINITY;
    }
    if a == 0.0 {
        return 0.0;
    }
    // A guess within a few percent: Winitzki's closed form.
    let k = 0.147;
    let l = if a < 0.5 {
        libm::log1p(-a * a)
    } else {
        libm::log(target) + libm::log1p(a)
    };
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
            // Newton on log(erfc(y)) in the tail, nearly linear there.
            let c = libm::erfc(y);
            c * libm::log(c / target) / slope
        };
        y += step;
        if step.abs() <= 1e-17 * y {
            break;
        }
    }
    y
}
