//! The gamma family: `lgamma` (Lanczos, g = 7, with the reflection formula below 1/2),
//! `digamma` (shifted by ten, then its asymptotic series; reflection below 0), the Hurwitz
//! `zeta(x, q)` (Euler-Maclaurin: nine terms, then twelve Bernoulli corrections) and
//! `polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x)`. Poles and domain edges as PyTorch's.

use super::Arith;

/// Lanczos's coefficients for g = 7 (nine terms).
const LANCZOS: [f64; 9] = [
    0.999_999_999_999_809_9,
    676.520_368_121_885_1,
    -1_259.139_216_722_402_8,
    771.323_428_777_653_1,
    -176.615_029_162_140_6,
    12.507_343_278_686_905,
    -0.138_571_095_265_720_12,
    9.984_369_578_019_572e-6,
    1.505_632_735_149_311_6e-7,
];
const LANCZOS_G: f64 = 7.0;

/// Bernoulli numbers `B_2 .. B_24`.
const BERNOULLI: [f64; 12] = [
    1.0 / 6.0,
    -1.0 / 30.0,
    1.0 / 42.0,
    -1.0 / 30.0,
    5.0 / 66.0,
    -691.0 / 2730.0,
    7.0 / 6.0,
    -3617.0 / 510.0,
    43867.0 / 798.0,
    -174611.0 / 330.0,
    854513.0 / 138.0,
    -236364091.0 / 2730.0,
];

/// `ln(Gamma(z))` for `z >= 1/2`.
fn lgamma_pos<A: Arith>(a: &mut A, z: A::V) -> A::V {
    let zm = a.addc(z, -1.0);
    let mut s = a.c(LANCZOS[0]);
    for (i, &c) in LANCZOS.iter().enumerate().skip(1) {
        let d = a.addc(zm, i as f64);
        let q = a.rdivc(c, d);
        s = a.add(s, q);
    }
    let t = a.addc(zm, LANCZOS_G + 0.5);
    let lt = a.log(t);
    let h = a.addc(zm, 0.5);
    let p = a.mul(h, lt);
    let p = a.sub(p, t);
    let ls = a.log(s);
    let r = a.add(p, ls);
    a.addc(r, 0.5 * (2.0 * std::f64::consts::PI).ln())
}

/// `ln|Gamma(x)|`: +inf at the poles (0, -1, -2, ...) and at both infinities.
pub fn lgamma<A: Arith>(a: &mut A, x: A::V) -> A::V {
    let neg = a.ltc(x, 0.5);
    let one_minus = a.rsubc(1.0, x);
    let z = a.sel(neg, one_minus, x);
    let l = lgamma_pos(a, z);
    // Reflection: ln(pi) - ln|sin(pi x)| - lgamma(1 - x).
    let r = a.frac_near(x);
    let pr = a.mulc(r, std::f64::consts::PI);
    let s = a.sin(pr);
    let s = a.abs(s);
    let ls = a.log(s);
    let refl = a.rsubc(std::f64::consts::PI.ln(), ls);
    let refl = a.sub(refl, l);
    let v = a.sel(neg, refl, l);
    let nonpos = a.lec(x, 0.0);
    let int = a.is_int(x);
    let pole = a.and(nonpos, int);
    let v = a.selc(pole, f64::INFINITY, v);
    let ax = a.abs(x);
    let inf = a.eqc(ax, f64::INFINITY);
    a.selc(inf, f64::INFINITY, v)
}

/// `digamma(z)` for `z > 0`: shifted to `z + 10`, where the asymptotic series (to `B_14`) is
/// exact to f64.
fn digamma_pos<A: Arith>(a: &mut A, z: A::V) -> A::V {
    let mut acc = a.c(0.0);
    for k in 0..10 {
        let d = a.addc(z, k as f64);
        let q = a.rdivc(1.0, d);
        acc = a.add(acc, q);
    }
    let w = a.addc(z, 10.0);
    let lw = a.log(w);
    let inv = a.rdivc(1.0, w);
    let inv2 = a.mul(inv, inv);
    // sum_k B_2k / (2k w^2k), as a polynomial in 1/w^2.
    let coef: Vec<f64> = std::iter::once(0.0)
        .chain((1..=7).map(|k| BERNOULLI[k - 1] / (2 * k) as f64))
        .collect();
    let series = a.poly(inv2, &coef);
    let half = a.mulc(inv, 0.5);
    let v = a.sub(lw, half);
    let v = a.sub(v, series);
    a.sub(v, acc)
}

/// `digamma(x)`: -inf at +0 and +inf at -0, NaN at the negative integers and -inf.
pub fn digamma<A: Arith>(a: &mut A, x: A::V) -> A::V {
    let neg = a.ltc(x, 0.0);
    let one_minus = a.rsubc(1.0, x);
    let z = a.sel(neg, one_minus, x);
    let p = digamma_pos(a, z);
    // Reflection: digamma(1 - x) - pi / tan(pi x).
    let r = a.frac_near(x);
    let pr = a.mulc(r, std::f64::consts::PI);
    let s = a.sin(pr);
    let c = a.cos(pr);
    let cot = a.div(c, s);
    let k = a.mulc(cot, std::f64::consts::PI);
    let refl = a.sub(p, k);
    let v = a.sel(neg, refl, p);
    let int = a.is_int(x);
    let bad = a.and(neg, int);
    let v = a.selc(bad, f64::NAN, v);
    let zero = a.eqc(x, 0.0);
    let inv = a.rdivc(-1.0, x); // -inf at +0, +inf at -0
    a.sel(zero, inv, v)
}

/// The Hurwitz zeta function `sum_k (k + q)^-x`: inf at `x = 1` and at the non-positive
/// integer `q`s; NaN for `x < 1`, and for a negative `q` with a non-integer `x` (Cephes' and
/// PyTorch's domain); a `q` below -8 is out of the nine-term shift's reach (NaN).
pub fn zeta<A: Arith>(a: &mut A, x: A::V, q: A::V) -> A::V {
    const N: usize = 9;
    let nx = a.neg(x);
    let mut s = a.c(0.0);
    for k in 0..N {
        let b = a.addc(q, k as f64);
        let t = a.pow(b, nx);
        s = a.add(s, t);
    }
    let w = a.addc(q, N as f64);
    // w^(1-x) / (x - 1) + w^-x / 2
    let wpx = a.pow(w, nx);
    let xm1 = a.addc(x, -1.0);
    let wx1 = a.mul(wpx, w);
    let tail = a.div(wx1, xm1);
    s = a.add(s, tail);
    let half = a.mulc(wpx, 0.5);
    s = a.add(s, half);
    // sum_j B_2j / (2j)! * x (x+1) ... (x+2j-2) * w^(-x-2j+1)
    // The product is carried whole (each step times (x+2j-1)(x+2j) / w^2), so neither the
    // rising factorial nor the power overflows or underflows on its own for a large x.
    let inv_w = a.rdivc(1.0, w);
    let wx = a.mul(wpx, inv_w);
    let mut prod = a.mul(x, wx); // x w^(-x-1)
    let mut fact = 2.0f64; // (2j)!
    for j in 1..=BERNOULLI.len() {
        let term = a.mulc(prod, BERNOULLI[j - 1] / fact);
        s = a.add(s, term);
        let r1 = a.addc(x, (2 * j - 1) as f64);
        let r2 = a.addc(x, (2 * j) as f64);
        let r1 = a.mul(r1, inv_w);
        let r2 = a.mul(r2, inv_w);
        prod = a.mul(prod, r1);
        prod = a.mul(prod, r2);
        fact *= ((2 * j + 1) * (2 * j + 2)) as f64;
    }
    let one = a.eqc(x, 1.0);
    let below = a.ltc(x, 1.0);
    let qpos = a.lec(q, 0.0);
    let qint = a.is_int(q);
    let pole = a.and(qpos, qint);
    let xint = a.is_int(x);
    let qneg = a.ltc(q, 0.0);
    let not_int = a.not(xint);
    let xfrac_bad = a.and(not_int, qneg);
    let s = a.selc(xfrac_bad, f64::NAN, s);
    let s = a.selc(pole, f64::INFINITY, s);
    let s = a.selc(below, f64::NAN, s);
    a.selc(one, f64::INFINITY, s)
}

/// `polygamma(n, x)` for a degree known when compiling: digamma for 0, else
/// `(-1)^(n+1) n! zeta(n + 1, x)`.
pub fn polygamma<A: Arith>(a: &mut A, n: i64, x: A::V) -> A::V {
    if n == 0 {
        return digamma(a, x);
    }
    // n! overflows f64 past 170 (and so does the result).
    let fact: f64 = (1..=n.min(171)).map(|k| k as f64).product();
    let sign = if n % 2 == 1 { 1.0 } else { -1.0 };
    let s = a.c(n as f64 + 1.0);
    let z = zeta(a, s, x);
    let v = a.mulc(z, sign * fact);
    if n == 1 {
        // PyTorch's trigamma is 0 at +inf; its zeta there (so higher orders) is NaN.
        let inf = a.eqc(x, f64::INFINITY);
        a.selc(inf, 0.0, v)
    } else {
        v
    }
}

/// Terms of the series and steps of the continued fraction of [`igamma`]: each converges
/// within about `sqrt(74 a)` of them near `x = a`, so this is f64-exact for `a` up to about
/// 300 (beyond, where PyTorch switches to Temme's uniform expansion, the error grows slowly:
/// about 1e-9 at `a = 2000` with `x = a`).
const IGAMMA_TERMS: usize = 150;

/// The regularized incomplete gamma functions, `P(a, x)` or (`upper`) `Q(a, x) = 1 - P`:
/// below `x = a + 1` the series `x^a e^-x / Gamma(a + 1) sum x^n / ((a + 1)...(a + n))`,
/// above it Legendre's continued fraction for `Q` (Lentz's evaluation), the other one by
/// `1 - `. PyTorch's edges: NaN for a negative or NaN operand (and `a = x = 0`), `P(0, x) = 1`,
/// `P(a, 0) = 0`, `P(a, inf) = 1`, `P(inf, x) = 0` (NaN for `x = inf`).
pub fn igamma<A: Arith>(a: &mut A, s: A::V, x: A::V, upper: bool) -> A::V {
    // Safe operands for the main path (1 where an edge case decides instead).
    let s_pos = a.lec(s, 0.0);
    let s_pos = a.not(s_pos);
    let x_pos = a.lec(x, 0.0);
    let x_pos = a.not(x_pos);
    let s_inf = a.eqc(s, f64::INFINITY);
    let x_inf = a.eqc(x, f64::INFINITY);
    let finite = a.or(s_inf, x_inf);
    let finite = a.not(finite);
    let ok = a.and(s_pos, x_pos);
    let ok = a.and(ok, finite);
    let one = a.c(1.0);
    let sv = a.sel(ok, s, one);
    let xv = a.sel(ok, x, one);
    // x^a e^-x / Gamma(a), in logs.
    let lx = a.log(xv);
    let t = a.mul(sv, lx);
    let t = a.sub(t, xv);
    let lg = lgamma(a, sv);
    let t = a.sub(t, lg);
    let pre = a.exp(t);
    // Series: P = pre * sum_n x^n / (a (a+1) ... (a+n)).
    let mut term = a.rdivc(1.0, sv);
    let mut sum = term;
    for n in 1..IGAMMA_TERMS {
        let d = a.addc(sv, n as f64);
        let r = a.div(xv, d);
        term = a.mul(term, r);
        sum = a.add(sum, term);
    }
    let p_series = a.mul(pre, sum);
    // Continued fraction: Q = pre * h (Lentz).
    // Lentz's floor for a vanishing denominator (representable in f32, where the GPU computes).
    let tiny = 1e-30;
    let b0 = a.addc(xv, 1.0);
    let mut b = a.sub(b0, sv);
    let mut c = a.c(1.0 / tiny);
    let mut d = a.rdivc(1.0, b);
    let mut h = d;
    for i in 1..IGAMMA_TERMS {
        let fi = i as f64;
        let im = a.rsubc(fi, sv);
        let an = a.mulc(im, -fi);
        b = a.addc(b, 2.0);
        let ad = a.mul(an, d);
        let dd = a.add(ad, b);
        let dabs = a.abs(dd);
        let small = a.ltc(dabs, tiny);
        let dd = a.selc(small, tiny, dd);
        let ac = a.div(an, c);
        let cc = a.add(b, ac);
        let cabs = a.abs(cc);
        let small = a.ltc(cabs, tiny);
        c = a.selc(small, tiny, cc);
        d = a.rdivc(1.0, dd);
        let del = a.mul(d, c);
        h = a.mul(h, del);
    }
    let q_cf = a.mul(pre, h);
    let sp1 = a.addc(sv, 1.0);
    let series = a.lt(xv, sp1);
    let p_cf = a.rsubc(1.0, q_cf);
    let q_series = a.rsubc(1.0, p_series);
    let main = if upper {
        a.sel(series, q_series, q_cf)
    } else {
        a.sel(series, p_series, p_cf)
    };
    // Edges, in PyTorch's order (as P; Q = 1 - P there too): a negative operand, then a
    // zero shape, a zero argument, an infinite shape, an infinite argument. NaN operands
    // reach the main path, which gives NaN, except where an earlier edge decides
    // (`P(NaN, 0) = 0`).
    let (hi, lo) = if upper { (0.0, 1.0) } else { (1.0, 0.0) };
    let nan = a.c(f64::NAN);
    let r = a.selc(x_inf, hi, main);
    let lo_v = a.c(lo);
    let inf_inf = a.selc(x_inf, f64::NAN, lo_v);
    let r = a.sel(s_inf, inf_inf, r);
    let x0 = a.eqc(x, 0.0);
    let r = a.selc(x0, lo, r);
    let x_above = a.lec(x, 0.0);
    let x_above = a.not(x_above);
    let x_num = a.eq(x, x);
    let x_above = a.and(x_above, x_num);
    let zero_shape = a.selc(x_above, hi, nan);
    let s0 = a.eqc(s, 0.0);
    let r = a.sel(s0, zero_shape, r);
    let s_neg = a.ltc(s, 0.0);
    let x_neg = a.ltc(x, 0.0);
    let bad = a.or(s_neg, x_neg);
    a.sel(bad, nan, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::special::F64;

    fn close(got: f64, want: f64, tol: f64) -> bool {
        (got - want).abs() <= tol * want.abs().max(1.0)
    }

    #[test]
    fn lgamma_matches_libm() {
        for i in -400..600 {
            let x = i as f64 * 0.0731 + 0.013;
            let (got, want) = (lgamma(&mut F64, x), libm::lgamma(x));
            assert!(close(got, want, 1e-13), "lgamma({x}) = {got}, libm {want}");
        }
        for x in [1e-300, 1e-8, 0.5, 1.0, 2.0, 171.5, 1e10, 1e300] {
            let (got, want) = (lgamma(&mut F64, x), libm::lgamma(x));
            assert!(close(got, want, 1e-13), "lgamma({x}) = {got}, libm {want}");
        }
        assert_eq!(lgamma(&mut F64, 0.0), f64::INFINITY);
        assert_eq!(lgamma(&mut F64, -3.0), f64::INFINITY);
        assert_eq!(lgamma(&mut F64, f64::NEG_INFINITY), f64::INFINITY);
        assert_eq!(lgamma(&mut F64, f64::INFINITY), f64::INFINITY);
        assert!(lgamma(&mut F64, f64::NAN).is_nan());
    }

    #[test]
    fn digamma_has_its_known_values() {
        let euler = 0.577_215_664_901_532_9;
        assert!(close(digamma(&mut F64, 1.0), -euler, 1e-15));
        assert!(close(
            digamma(&mut F64, 0.5),
            -euler - 2.0 * 2f64.ln(),
            1e-15
        ));
        assert!(close(digamma(&mut F64, 10.0), 2.251_752_589_066_721, 1e-15));
        assert!(close(
            digamma(&mut F64, -0.5),
            0.036_489_973_978_576_52,
            1e-13
        ));
        assert!(close(digamma(&mut F64, 1e-9), -1e9 - euler, 1e-15));
        // digamma(x + 1) = digamma(x) + 1 / x everywhere.
        for i in -300..300 {
            let x = i as f64 * 0.0917 + 0.031;
            let d = digamma(&mut F64, x + 1.0) - digamma(&mut F64, x) - 1.0 / x;
            assert!(d.abs() < 1e-11 * (1.0 + 1.0 / x.abs()), "{x}: {d}");
        }
        assert_eq!(digamma(&mut F64, 0.0), f64::NEG_INFINITY);
        assert_eq!(digamma(&mut F64, -0.0), f64::INFINITY);
        assert!(digamma(&mut F64, -2.0).is_nan());
    }

    #[test]
    fn zeta_and_polygamma_have_their_known_values() {
        let pi2 = std::f64::consts::PI.powi(2);
        assert!(close(zeta(&mut F64, 2.0, 1.0), pi2 / 6.0, 1e-15));
        assert!(close(zeta(&mut F64, 4.0, 1.0), pi2 * pi2 / 90.0, 1e-15));
        assert!(close(
            zeta(&mut F64, 3.0, 2.0),
            0.202_056_903_159_594_3,
            1e-14
        ));
        assert!(close(
            zeta(&mut F64, 1.5, 0.25),
            10.213_055_360_466_601,
            1e-13
        ));
        assert_eq!(zeta(&mut F64, 1.0, 3.0), f64::INFINITY);
        assert!(zeta(&mut F64, 0.5, 3.0).is_nan());
        assert_eq!(zeta(&mut F64, 2.0, -3.0), f64::INFINITY);
        // trigamma(1) = pi^2 / 6, trigamma(1/2) = pi^2 / 2.
        assert!(close(polygamma(&mut F64, 1, 1.0), pi2 / 6.0, 1e-15));
        assert!(close(polygamma(&mut F64, 1, 0.5), pi2 / 2.0, 1e-14));
        // polygamma(2, 1) = -2 zeta(3).
        assert!(close(
            polygamma(&mut F64, 2, 1.0),
            -2.0 * 1.202_056_903_159_594,
            1e-14
        ));
    }

    #[test]
    fn incomplete_gamma_has_its_closed_forms() {
        let p = |s: f64, x: f64| super::igamma(&mut F64, s, x, false);
        let q = |s: f64, x: f64| super::igamma(&mut F64, s, x, true);
        for &x in &[1e-3, 0.1, 0.5, 1.0, 1.9, 2.0, 3.5, 10.0, 40.0, 200.0] {
            // P(1, x) = 1 - e^-x; P(1/2, x) = erf(sqrt(x)); Q(2, x) = (1 + x) e^-x.
            let want = -libm::expm1(-x);
            assert!(
                (p(1.0, x) - want).abs() <= 1e-14 * want.max(1e-300),
                "P(1, {x})"
            );
            let want = libm::erf(x.sqrt());
            assert!(
                (p(0.5, x) - want).abs() <= 2e-14,
                "P(1/2, {x}) = {} vs {want}",
                p(0.5, x)
            );
            let want = (1.0 + x) * (-x).exp();
            assert!(
                (q(2.0, x) - want).abs() <= 1e-13 * want + 1e-300,
                "Q(2, {x})"
            );
        }
        // Near x = a for a large a: P + Q = 1, P(a, a) just above 1/2.
        for &s in &[20.0, 100.0, 300.0] {
            let (pp, qq) = (p(s, s), q(s, s));
            assert!((pp + qq - 1.0).abs() < 1e-13, "{s}");
            assert!(pp > 0.5 && pp < 0.5 + 0.5 / s.sqrt(), "P({s}, {s}) = {pp}");
        }
        assert!(p(-1.0, 1.0).is_nan() && p(1.0, -1.0).is_nan() && p(0.0, 0.0).is_nan());
        assert_eq!(
            (
                p(0.0, 2.0),
                p(2.0, 0.0),
                p(2.0, f64::INFINITY),
                p(f64::INFINITY, 2.0)
            ),
            (1.0, 0.0, 1.0, 0.0)
        );
        assert_eq!((q(0.0, 2.0), q(2.0, 0.0)), (0.0, 1.0));
    }
}
