//! `erfc` and `erfinv`. Below 1/2, `erfc(x) = 1 - erf(x)` (at least 0.48: no cancellation);
//! from 1/2 on, `erfc(x) = t exp(P(t) - x^2)`, `t = 2 / (2 + x)`, with one polynomial `P` for
//! the whole half-line (`tools/fit_erfc.py`: degree 12 for f32, 22 for f64) and `exp(-x^2)` split so that
//! `x^2`'s rounding does not grow with `x`. `erfinv` refines Winitzki's closed-form guess by
//! Newton steps (on `erfc` against `1 - |x|`, exact from 1/2 on, where `erf` saturates).

use super::M;
use crate::body::ExprId;

/// `P(t)` of `erfc(x) = t exp(P(t) - x^2)` for f32 (and the 16-bit types), coefficients of
/// `t^0 .. t^12` (`tools/fit_erfc.py --degree 12`, max error 4.5e-10).
const P: [f64; 13] = [
    -1.2655121231817994,
    0.9999998796796217,
    0.3750077817284085,
    0.08314062931408278,
    -0.08355476501861805,
    -0.16015488080009957,
    -0.028015049006866074,
    -0.08934956157660776,
    0.092171595239577,
    0.8324258677886979,
    -1.513010793686272,
    0.996456410065404,
    -0.23966442715275377,
];

/// The same for f64 (`tools/fit_erfc.py --degree 22`, max error 1.3e-15).
const P64: [f64; 23] = [
    -1.2655121234846454,
    1.00000000000002,
    0.37499999999422784,
    0.0833333339734418,
    -0.0859375366691677,
    -0.14374873523725026,
    -0.09182567066818785,
    0.030035599870158407,
    0.12750830163004767,
    0.16916565907294173,
    -0.346759770363372,
    1.4731322561428402,
    -7.156629295509857,
    22.837941768958864,
    -58.01149033175355,
    117.43698707038028,
    -179.66944640577273,
    201.91850286488085,
    -164.09112034680072,
    94.198583742884,
    -36.39756193999221,
    8.528701411561329,
    -0.9188600046555245,
];

/// `2 / sqrt(pi)`, the slope of `erf` at 0.
const TWO_OVER_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

/// `exp(-x^2)` as `exp(-h^2) exp(-(x - h)(x + h))`, `h` = `x` cut to a few bits so `h^2` is
/// exact (4 fraction bits in f32, 20 in f64) and the second factor's argument is small.
fn exp_minus_square(m: &mut M<'_>, x: ExprId) -> ExprId {
    let scale = if m.f64() { 1_048_576.0 } else { 16.0 };
    let s = m.mulc(x, scale);
    let f = m.un(crate::body::Op::Floor, s);
    let h = m.mulc(f, 1.0 / scale);
    let h2 = m.mul(h, h);
    let nh2 = m.neg(h2);
    let e1 = m.exp(nh2);
    let lo = m.sub(x, h);
    let hi = m.add(x, h);
    let d = m.mul(lo, hi);
    let nd = m.neg(d);
    let e2 = m.exp(nd);
    m.mul(e1, e2)
}

/// `t` and `exp(P(t))`, `t = 2 / (2 + x)`: the tail form's factors but `exp(-x^2)`.
fn tail_factors(m: &mut M<'_>, x: ExprId) -> (ExprId, ExprId) {
    let d = m.addc(x, 2.0);
    let two = m.c(2.0);
    let t = m.div(two, d);
    let p = if m.f64() {
        m.poly(t, &P64)
    } else {
        m.poly(t, &P)
    };
    (t, m.exp(p))
}

/// `erfc(x)` for `x >= 1/2` (any `x` computes, the caller selects), given `g = exp(-x^2)`.
fn erfc_tail(m: &mut M<'_>, x: ExprId, g: ExprId) -> ExprId {
    let (t, ep) = tail_factors(m, x);
    let tg = m.mul(t, g);
    m.mul(tg, ep)
}

/// `erfc(x)`.
pub(super) fn erfc(m: &mut M<'_>, x: ExprId) -> ExprId {
    let e = m.un(crate::body::Op::Erf, x);
    let head = m.rsubc(1.0, e);
    let g = exp_minus_square(m, x);
    let tail = erfc_tail(m, x, g);
    let low = m.ltc(x, 0.5);
    let r = m.sel(low, head, tail);
    // Where erfc is below the dtype's least denormal it is 0 (and the split square would
    // overflow on the way for huge x).
    let cutoff = if m.f64() { 27.3 } else { 10.5 };
    let gone = m.gtc(x, cutoff);
    m.selc(gone, 0.0, r)
}

/// `erfcx(x) = e^(x^2) erfc(x)`: `t exp(P(t))` from 1/2 on (erfc's tail form without its
/// `exp(-x^2)`), `e^(x^2) (1 - erf(x))` between -1/2 and 1/2, and `2 e^(x^2) - erfcx(-x)`
/// below -1/2 (infinite where `e^(x^2)` is).
pub(super) fn erfcx(m: &mut M<'_>, x: ExprId) -> ExprId {
    let tail = |m: &mut M<'_>, x: ExprId| {
        let (t, ep) = tail_factors(m, x);
        m.mul(t, ep)
    };
    let g = exp_minus_square(m, x);
    let one = m.c(1.0);
    let ex2 = m.div(one, g); // e^(x^2), inf where exp(-x^2) underflows
    let e = m.un(crate::body::Op::Erf, x);
    let head = m.rsubc(1.0, e);
    let mid = m.mul(ex2, head);
    let right = tail(m, x);
    let nx = m.neg(x);
    let mirrored = tail(m, nx);
    let twice = m.mulc(ex2, 2.0);
    let left = m.sub(twice, mirrored);
    let low = m.ltc(x, -0.5);
    let high = m.ltc(x, 0.5);
    let v = m.sel(high, mid, right);
    let v = m.sel(low, left, v);
    // Far left e^(x^2) overflows (and its split square would itself overflow: NaN).
    let edge = if m.f64() { -27.0 } else { -9.5 };
    let far = m.ltc(x, edge);
    m.selc(far, f64::INFINITY, v)
}

/// `erfinv(x)`: odd, NaN outside [-1, 1], infinite at +-1.
pub(super) fn erfinv(m: &mut M<'_>, x: ExprId) -> ExprId {
    let a = m.abs(x);
    let target = m.rsubc(1.0, a); // exact from 1/2 on
    let y = erfinv_magnitude(m, a, target);
    m.with_sign_of(y, x)
}

/// `ndtri(p)`, the standard normal quantile: `sqrt(2) erfinv(2p - 1)`, with `1 - |2p - 1|`
/// computed as `2 min(p, 1 - p)` (exact), so tiny tail probabilities keep their digits.
pub(super) fn ndtri(m: &mut M<'_>, p: ExprId) -> ExprId {
    let x = m.mulc(p, 2.0);
    let x = m.addc(x, -1.0);
    let a = m.abs(x);
    let q = m.rsubc(1.0, p);
    let lo = m.min(p, q);
    let target = m.mulc(lo, 2.0);
    let y = erfinv_magnitude(m, a, target);
    let y = m.mulc(y, std::f64::consts::SQRT_2);
    m.with_sign_of(y, x)
}

/// `erfinv(a)` for `a` in [0, 1] given `target = 1 - a` (exactly, for the tail).
fn erfinv_magnitude(m: &mut M<'_>, a: ExprId, target: ExprId) -> ExprId {
    // Winitzki: y^2 = sqrt((2/(pi k) + l/2)^2 - l/k) - (2/(pi k) + l/2), l = log(1 - a^2).
    let k = 0.147;
    // log(1 - a): log1p(-a) below 1/2, log of the exact `target` above (the tail).
    let na = m.neg(a);
    let near = m.log1p(na);
    let far = m.log(target);
    let half = m.ltc(a, 0.5);
    let l1 = m.sel(half, near, far);
    let l2 = m.log1p(a);
    let l = m.add(l1, l2);
    let half_l = m.mulc(l, 0.5);
    let t = m.addc(half_l, 2.0 / (std::f64::consts::PI * k));
    let t2 = m.mul(t, t);
    let lk = m.mulc(l, 1.0 / k);
    let disc = m.sub(t2, lk);
    let root = m.sqrt(disc);
    let y2 = m.sub(root, t);
    let mut y = m.sqrt(y2);
    // erfinv(0.53) = 0.51: the tail form's fit starts at 1/2.
    let low = m.ltc(a, 0.53);
    // Newton doubles the correct digits: from the guess's 3e-3, two steps reach f32, three f64.
    let steps = if m.f64() { 3 } else { 2 };
    for _ in 0..steps {
        // Newton on erf(y) = a: a - erf(y) (as erfc(y) - (1 - a) from 1/2 on) over the slope.
        let e = m.un(crate::body::Op::Erf, y);
        let head = m.sub(a, e);
        // exp(-y^2) once, for the tail form and the slope.
        let g = exp_minus_square(m, y);
        let c = erfc_tail(m, y, g);
        // In the tail, Newton on log(erfc(y)) (nearly linear there, so far-out guesses
        // converge as fast as near ones): the residual c log(c / target).
        let ratio = m.div(c, target);
        let lr = m.log(ratio);
        let tail = m.mul(c, lr);
        let resid = m.sel(low, head, tail);
        let slope = m.mulc(g, TWO_OVER_SQRT_PI);
        let step = m.div(resid, slope);
        let next = m.add(y, step);
        // A zero slope (far out in f32): keep the guess.
        let flat = m.eqc(slope, 0.0);
        y = m.sel(flat, y, next);
    }
    let one = m.eqc(target, 0.0);
    let y = m.selc(one, f64::INFINITY, y);
    let beyond = m.gtc(a, 1.0);
    let y = m.selc(beyond, f64::NAN, y);
    let zero = m.eqc(a, 0.0);
    m.selc(zero, 0.0, y)
}
