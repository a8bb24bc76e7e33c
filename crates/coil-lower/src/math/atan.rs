//! `atan`, `atan2`, `asin` and `acos`, from one arctangent of [0, 1]: a reduction by pi/6 below
//! tan(pi/12) and the alternating Taylor series there (no fitted coefficients: |u| <= 0.268
//! makes 7 terms exact to f32 and 14 to f64).

use super::M;
use crate::body::ExprId;
use std::f64::consts::{FRAC_PI_2, FRAC_PI_6, PI};

/// tan(pi/12) = 2 - sqrt(3).
const TAN_PI_12: f64 = 0.267_949_192_431_122_7;
const SQRT_3: f64 = 1.732_050_807_568_877_2;

/// `atan(r)` for `r` in [0, 1] (NaN stays NaN).
fn atan_unit(m: &mut M<'_>, r: ExprId) -> ExprId {
    // atan(r) = pi/6 + atan((r sqrt3 - 1) / (r + sqrt3)) above tan(pi/12).
    let mid = m.gtc(r, TAN_PI_12);
    let num = m.mulc(r, SQRT_3);
    let num = m.addc(num, -1.0);
    let den = m.addc(r, SQRT_3);
    let reduced = m.div(num, den);
    let u = m.sel(mid, reduced, r);
    // atan(u) = u + u z (-1/3 + z/5 - z^2/7 + ...), z = u^2.
    let terms = if m.f64() { 14 } else { 7 };
    let coeffs: Vec<f64> = (1..=terms)
        .map(|k| {
            let sign = if k % 2 == 1 { -1.0 } else { 1.0 };
            sign / (2 * k + 1) as f64
        })
        .collect();
    let z = m.mul(u, u);
    let q = m.poly(z, &coeffs);
    let uz = m.mul(u, z);
    let tail = m.mul(uz, q);
    let p = m.add(u, tail);
    let shifted = m.addc(p, FRAC_PI_6);
    m.sel(mid, shifted, p)
}

/// `atan(x)`: odd, `pi/2 - atan(1/|x|)` above 1.
pub(super) fn atan(m: &mut M<'_>, x: ExprId) -> ExprId {
    let a = m.abs(x);
    let big = m.gtc(a, 1.0);
    let one = m.c(1.0);
    let inv = m.div(one, a);
    let r = m.sel(big, inv, a);
    let v = atan_unit(m, r);
    let flipped = m.rsubc(FRAC_PI_2, v);
    let w = m.sel(big, flipped, v);
    m.with_sign_of(w, x)
}

/// `atan2(y, x)`: the angle of `(x, y)` in [-pi, pi], with C's signed zeros and infinities.
pub(super) fn atan2(m: &mut M<'_>, y: ExprId, x: ExprId) -> ExprId {
    let (ax, ay) = (m.abs(x), m.abs(y));
    let hi = m.max(ax, ay);
    let lo = m.min(ax, ay);
    let x_inf = m.eqc(ax, f64::INFINITY);
    let y_inf = m.eqc(ay, f64::INFINITY);
    let both_inf = m.and(x_inf, y_inf);
    let ratio = m.div(lo, hi);
    let r = m.selc(both_inf, 1.0, ratio);
    let t = atan_unit(m, r);
    let steep = m.gt(ay, ax);
    let flipped = m.rsubc(FRAC_PI_2, t);
    let t = m.sel(steep, flipped, t);
    let x_neg = m.sign_bit(x);
    let back = m.rsubc(PI, t);
    let t = m.sel(x_neg, back, t);
    // Both zero: 0 or pi by the sign of x (0/0 gave NaN above).
    let x0 = m.eqc(ax, 0.0);
    let y0 = m.eqc(ay, 0.0);
    let zeros = m.and(x0, y0);
    let pi = m.c(PI);
    let zero = m.c(0.0);
    let at_zero = m.sel(x_neg, pi, zero);
    let t = m.sel(zeros, at_zero, t);
    m.with_sign_of(t, y)
}

/// `sqrt((1 - x)(1 + x))`, exact in its factors near +-1 (NaN outside [-1, 1]).
fn cofactor(m: &mut M<'_>, x: ExprId) -> ExprId {
    let a = m.rsubc(1.0, x);
    let b = m.addc(x, 1.0);
    let p = m.mul(a, b);
    m.sqrt(p)
}

/// `asin(x) = atan2(x, sqrt(1 - x^2))`.
pub(super) fn asin(m: &mut M<'_>, x: ExprId) -> ExprId {
    let c = cofactor(m, x);
    atan2(m, x, c)
}

/// `acos(x) = atan2(sqrt(1 - x^2), x)`.
pub(super) fn acos(m: &mut M<'_>, x: ExprId) -> ExprId {
    let c = cofactor(m, x);
    atan2(m, c, x)
}
