//! The functions built from `log1p`, `exp`, `log` and `sqrt` (each accurate on every
//! backend): `expm1` (Kahan's), `asinh`, `acosh`, `atanh`, `hypot` and `logaddexp`.

use super::M;
use crate::body::ExprId;
use std::f64::consts::LN_2;

/// Above this, `asinh(x) = log(2x)` and `acosh(x) = log(2x)` to the last bit (`x^2` still
/// finite in f32).
const HUGE: f64 = 268_435_456.0; // 2^28

/// `log(2x)` where `x` passes [`HUGE`] (the value of `asinh` and `acosh` there), else `small`.
fn log_twice_when_huge(m: &mut M<'_>, x: ExprId, small: ExprId) -> ExprId {
    let lx = m.log(x);
    let large = m.addc(lx, LN_2);
    let big = m.gtc(x, HUGE);
    m.sel(big, large, small)
}

/// `e^x - 1` by Kahan's `(u - 1) x / log(u)`, `u = e^x`: the rounding of `u` cancels between
/// numerator and denominator, so the result is accurate where `u - 1` alone is not.
pub(super) fn expm1(m: &mut M<'_>, x: ExprId) -> ExprId {
    let u = m.exp(x);
    let um1 = m.addc(u, -1.0);
    let lu = m.log(u);
    let scale = m.div(x, lu);
    let r = m.mul(um1, scale);
    let tiny = m.eqc(u, 1.0);
    let r = m.sel(tiny, x, r); // |x| below half an ulp of 1 (and +-0)
    let floor = m.eqc(um1, -1.0);
    let r = m.selc(floor, -1.0, r);
    let inf = m.eqc(u, f64::INFINITY);
    m.selc(inf, f64::INFINITY, r)
}

/// `asinh(x) = sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))`, `log(2|x|)` when huge.
pub(super) fn asinh(m: &mut M<'_>, x: ExprId) -> ExprId {
    let a = m.abs(x);
    let a2 = m.mul(a, a);
    let h = m.addc(a2, 1.0);
    let s = m.sqrt(h);
    let d = m.addc(s, 1.0);
    let q = m.div(a2, d);
    let arg = m.add(a, q);
    let small = m.log1p(arg);
    let r = log_twice_when_huge(m, a, small);
    m.with_sign_of(r, x)
}

/// `acosh(x) = log1p(t + sqrt(2t + t^2))`, `t = x - 1` (exact near 1), `log(2x)` when huge;
/// NaN below 1.
pub(super) fn acosh(m: &mut M<'_>, x: ExprId) -> ExprId {
    let t = m.addc(x, -1.0);
    let t2 = m.mul(t, t);
    let twice = m.add(t, t);
    let h = m.add(twice, t2);
    let s = m.sqrt(h);
    let arg = m.add(t, s);
    let small = m.log1p(arg);
    let r = log_twice_when_huge(m, x, small);
    let below = m.ltc(x, 1.0);
    m.selc(below, f64::NAN, r)
}

/// `atanh(x) = sign(x) log1p(2|x| / (1 - |x|)) / 2` (infinite at +-1, NaN beyond).
pub(super) fn atanh(m: &mut M<'_>, x: ExprId) -> ExprId {
    let a = m.abs(x);
    let twice = m.add(a, a);
    let d = m.rsubc(1.0, a);
    let q = m.div(twice, d);
    let l = m.log1p(q);
    let r = m.mulc(l, 0.5);
    let beyond = m.gtc(a, 1.0);
    let r = m.selc(beyond, f64::NAN, r);
    m.with_sign_of(r, x)
}

/// `hypot(x, y) = hi sqrt(1 + (lo/hi)^2)`: no overflow or underflow on the way; infinite when
/// either is (even beside a NaN), as C's.
pub(super) fn hypot(m: &mut M<'_>, x: ExprId, y: ExprId) -> ExprId {
    let (ax, ay) = (m.abs(x), m.abs(y));
    let hi = m.max(ax, ay);
    let lo = m.min(ax, ay);
    let r = m.div(lo, hi);
    let r2 = m.mul(r, r);
    let h = m.addc(r2, 1.0);
    let s = m.sqrt(h);
    let v = m.mul(hi, s);
    let zero = m.eqc(hi, 0.0);
    let v = m.selc(zero, 0.0, v);
    let xi = m.eqc(ax, f64::INFINITY);
    let yi = m.eqc(ay, f64::INFINITY);
    let inf = m.or(xi, yi);
    m.selc(inf, f64::INFINITY, v)
}

/// `logaddexp(a, b) = max + log1p(e^-|a - b|)`; `a` itself when both are the same infinity.
pub(super) fn logaddexp(m: &mut M<'_>, a: ExprId, b: ExprId) -> ExprId {
    let hi = m.max(a, b);
    let d = m.sub(a, b);
    let ad = m.abs(d);
    let nd = m.neg(ad);
    let e = m.exp(nd);
    let l = m.log1p(e);
    let r = m.add(hi, l);
    let same = m.eq(a, b);
    let aa = m.abs(a);
    let inf = m.eqc(aa, f64::INFINITY);
    let both = m.and(same, inf);
    m.sel(both, a, r)
}
