//! The orthogonal polynomials of `torch.special` at an integer degree known when compiling
//! (the `n_scalar` overloads): their three-term recurrences, unrolled. Degree below 0 is 0, as
//! PyTorch's.

use super::Arith;

/// Which polynomial.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Chebyshev of the first kind, `T`.
    ChebyshevT,
    /// Chebyshev of the second kind, `U`.
    ChebyshevU,
    /// Chebyshev of the third kind, `V`.
    ChebyshevV,
    /// Chebyshev of the fourth kind, `W`.
    ChebyshevW,
    /// Physicists' Hermite, `H`.
    HermiteH,
    /// Probabilists' Hermite, `He`.
    HermiteHe,
    /// Laguerre, `L`.
    Laguerre,
    /// Legendre, `P`.
    Legendre,
}

/// The largest degree coil unrolls (a graph asking for more is refused when built).
pub const MAX_DEGREE: i64 = 4096;

/// `P_n(x)` (of `2x - 1` when `shifted`: the shifted Chebyshev polynomials).
pub fn eval<A: Arith>(a: &mut A, family: Family, shifted: bool, x: A::V, n: i64) -> A::V {
    if n < 0 {
        return a.c(0.0);
    }
    let x = if shifted {
        let t = a.mulc(x, 2.0);
        a.addc(t, -1.0)
    } else {
        x
    };
    let mut prev = a.c(1.0);
    if n == 0 {
        return prev;
    }
    let two_x = a.mulc(x, 2.0);
    let mut cur = match family {
        Family::ChebyshevT | Family::HermiteHe | Family::Legendre => x,
        Family::ChebyshevU | Family::HermiteH => two_x,
        Family::ChebyshevV => a.addc(two_x, -1.0),
        Family::ChebyshevW => a.addc(two_x, 1.0),
        Family::Laguerre => a.rsubc(1.0, x),
    };
    for k in 1..n.min(MAX_DEGREE) {
        let kf = k as f64;
        let next = match family {
            Family::ChebyshevT | Family::ChebyshevU | Family::ChebyshevV | Family::ChebyshevW => {
                let p = a.mul(two_x, cur);
                a.sub(p, prev)
            }
            Family::HermiteH => {
                let p = a.mul(two_x, cur);
                let q = a.mulc(prev, 2.0 * kf);
                a.sub(p, q)
            }
            Family::HermiteHe => {
                let p = a.mul(x, cur);
                let q = a.mulc(prev, kf);
                a.sub(p, q)
            }
            Family::Laguerre => {
                let s = a.rsubc(2.0 * kf + 1.0, x);
                let p = a.mul(s, cur);
                let q = a.mulc(prev, kf);
                let d = a.sub(p, q);
                a.mulc(d, 1.0 / (kf + 1.0))
            }
            Family::Legendre => {
                let p = a.mul(x, cur);
                let p = a.mulc(p, 2.0 * kf + 1.0);
                let q = a.mulc(prev, kf);
                let d = a.sub(p, q);
                a.mulc(d, 1.0 / (kf + 1.0))
            }
        };
        prev = cur;
        cur = next;
    }
    cur
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::special::F64;

    #[test]
    fn recurrences_give_the_closed_forms() {
        let x = 0.3f64;
        let f = |fam, s, n| eval(&mut F64, fam, s, x, n);
        assert!((f(Family::ChebyshevT, false, 5) - (5.0 * x.acos()).cos()).abs() < 1e-14);
        let th = x.acos();
        assert!((f(Family::ChebyshevU, false, 4) - (5.0 * th).sin() / th.sin()).abs() < 1e-14);
        assert!((f(Family::HermiteH, false, 3) - (8.0 * x.powi(3) - 12.0 * x)).abs() < 1e-14);
        assert!((f(Family::HermiteHe, false, 3) - (x.powi(3) - 3.0 * x)).abs() < 1e-14);
        let l2 = 0.5 * (x * x - 4.0 * x + 2.0);
        assert!((f(Family::Laguerre, false, 2) - l2).abs() < 1e-14);
        assert!((f(Family::Legendre, false, 2) - 0.5 * (3.0 * x * x - 1.0)).abs() < 1e-14);
        let y = 2.0 * x - 1.0;
        assert!((f(Family::ChebyshevT, true, 2) - (2.0 * y * y - 1.0)).abs() < 1e-14);
        assert!((f(Family::ChebyshevV, false, 1) - (2.0 * x - 1.0)).abs() < 1e-15);
        assert!((f(Family::ChebyshevW, false, 1) - (2.0 * x + 1.0)).abs() < 1e-15);
        assert_eq!(f(Family::Legendre, false, -1), 0.0);
        assert_eq!(f(Family::HermiteH, false, 0), 1.0);
    }
}
