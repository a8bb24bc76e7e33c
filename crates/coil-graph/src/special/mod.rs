//! PyTorch's special functions (the gamma family, Bessel functions, orthogonal polynomials), each written once over [`Arith`]: the operations every backend's loop bodies
//! have (arithmetic, comparisons, `where`, `exp`, `log`, `sqrt`, `sin`, `cos`, `floor`,
//! `pow`). [`F64`] evaluates an algorithm on one `f64`: that is the reference meaning
//! (coil-eager's); the lowering implements [`Arith`] by building loop-body ops, so every
//! backend computes the same algorithm, with the same branches and coefficients. No loop
//! depends on a value: iteration counts are fixed, and branches are computed both ways and
//! selected. Computed in f64 for every float dtype (these are rare, costly functions; f64
//! leaves their f32 results a rounding away from exact).
//!
//! Accuracy in f64 (checked against libm and known values in the tests below): about 1e-14
//! relative for `lgamma`, `digamma`, `zeta` and the `I` Bessel functions, 1e-13 for `K`;
//! the polynomials are their three-term recurrences (PyTorch's too).
//!
//! The series and asymptotic coefficients are computed from their closed forms
//! ([`bessel`]), not tabulated; the one table is Lanczos's (g = 7, 9 terms).

mod airy_fit;
pub mod bessel;
mod bessel_y_fit;
pub mod gamma;
pub mod poly;

/// The operations an algorithm here is written in. Booleans are values too (comparisons
/// make them; [`Arith::sel`] and the logical ops take them).
pub trait Arith {
    /// A value (a number, or a boolean from a comparison).
    type V: Copy;
    /// The constant `v`.
    fn c(&mut self, v: f64) -> Self::V;
    /// `a + b`.
    fn add(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a - b`.
    fn sub(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a * b`.
    fn mul(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a / b`.
    fn div(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a ^ b` (C's `pow`).
    fn pow(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `-a`.
    fn neg(&mut self, a: Self::V) -> Self::V;
    /// `|a|`.
    fn abs(&mut self, a: Self::V) -> Self::V;
    /// `sqrt(a)`.
    fn sqrt(&mut self, a: Self::V) -> Self::V;
    /// `e^a`.
    fn exp(&mut self, a: Self::V) -> Self::V;
    /// `ln(a)`.
    fn log(&mut self, a: Self::V) -> Self::V;
    /// `sin(a)`.
    fn sin(&mut self, a: Self::V) -> Self::V;
    /// `cos(a)`.
    fn cos(&mut self, a: Self::V) -> Self::V;
    /// `floor(a)`.
    fn floor(&mut self, a: Self::V) -> Self::V;
    /// `a < b`.
    fn lt(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a <= b`.
    fn le(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a == b`.
    fn eq(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// Both booleans.
    fn and(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// Either boolean.
    fn or(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// The boolean's negation.
    fn not(&mut self, a: Self::V) -> Self::V;
    /// `a` where `cond`, else `b`.
    fn sel(&mut self, cond: Self::V, a: Self::V, b: Self::V) -> Self::V;

    /// `a + v`.
    fn addc(&mut self, a: Self::V, v: f64) -> Self::V {
        let c = self.c(v);
        self.add(a, c)
    }
    /// `a * v`.
    fn mulc(&mut self, a: Self::V, v: f64) -> Self::V {
        let c = self.c(v);
        self.mul(a, c)
    }
    /// `v - a`.
    fn rsubc(&mut self, v: f64, a: Self::V) -> Self::V {
        let c = self.c(v);
        self.sub(c, a)
    }
    /// `v / a`.
    fn rdivc(&mut self, v: f64, a: Self::V) -> Self::V {
        let c = self.c(v);
        self.div(c, a)
    }
    /// `a < v`.
    fn ltc(&mut self, a: Self::V, v: f64) -> Self::V {
        let c = self.c(v);
        self.lt(a, c)
    }
    /// `a <= v`.
    fn lec(&mut self, a: Self::V, v: f64) -> Self::V {
        let c = self.c(v);
        self.le(a, c)
    }
    /// `a == v`.
    fn eqc(&mut self, a: Self::V, v: f64) -> Self::V {
        let c = self.c(v);
        self.eq(a, c)
    }
    /// `v` where `cond`, else `b`.
    fn selc(&mut self, cond: Self::V, v: f64, b: Self::V) -> Self::V {
        let c = self.c(v);
        self.sel(cond, c, b)
    }
    /// `c[0] + x (c[1] + x (c[2] + ...))`.
    fn poly(&mut self, x: Self::V, c: &[f64]) -> Self::V {
        let mut r = self.c(c[c.len() - 1]);
        for &k in c[..c.len() - 1].iter().rev() {
            let p = self.mul(r, x);
            r = self.addc(p, k);
        }
        r
    }
    /// Whether `x` is an integer (false for infinities and NaN).
    fn is_int(&mut self, x: Self::V) -> Self::V {
        let f = self.floor(x);
        let same = self.eq(f, x);
        let a = self.abs(x);
        let finite = self.ltc(a, f64::INFINITY);
        self.and(same, finite)
    }
    /// `x - round(x)` (in [-1/2, 1/2]): `sin(pi x)` and `tan(pi x)` keep their accuracy
    /// far from 0 when computed from it.
    fn frac_near(&mut self, x: Self::V) -> Self::V {
        let h = self.addc(x, 0.5);
        let k = self.floor(h);
        self.sub(x, k)
    }
}

/// [`Arith`] on `f64`: the reference meaning. Booleans are 1.0 and 0.0.
pub struct F64;

impl Arith for F64 {
    type V = f64;
    fn c(&mut self, v: f64) -> f64 {
        v
    }
    fn add(&mut self, a: f64, b: f64) -> f64 {
        a + b
    }
    fn sub(&mut self, a: f64, b: f64) -> f64 {
        a - b
    }
    fn mul(&mut self, a: f64, b: f64) -> f64 {
        a * b
    }
    fn div(&mut self, a: f64, b: f64) -> f64 {
        a / b
    }
    fn pow(&mut self, a: f64, b: f64) -> f64 {
        libm::pow(a, b)
    }
    fn neg(&mut self, a: f64) -> f64 {
        -a
    }
    fn abs(&mut self, a: f64) -> f64 {
        a.abs()
    }
    fn sqrt(&mut self, a: f64) -> f64 {
        a.sqrt()
    }
    fn exp(&mut self, a: f64) -> f64 {
        libm::exp(a)
    }
    fn log(&mut self, a: f64) -> f64 {
        libm::log(a)
    }
    fn sin(&mut self, a: f64) -> f64 {
        libm::sin(a)
    }
    fn cos(&mut self, a: f64) -> f64 {
        libm::cos(a)
    }
    fn floor(&mut self, a: f64) -> f64 {
        a.floor()
    }
    fn lt(&mut self, a: f64, b: f64) -> f64 {
        f64::from(u8::from(a < b))
    }
    fn le(&mut self, a: f64, b: f64) -> f64 {
        f64::from(u8::from(a <= b))
    }
    fn eq(&mut self, a: f64, b: f64) -> f64 {
        f64::from(u8::from(a == b))
    }
    fn and(&mut self, a: f64, b: f64) -> f64 {
        f64::from(u8::from(a != 0.0 && b != 0.0))
    }
    fn or(&mut self, a: f64, b: f64) -> f64 {
        f64::from(u8::from(a != 0.0 || b != 0.0))
    }
    fn not(&mut self, a: f64) -> f64 {
        f64::from(u8::from(a == 0.0))
    }
    fn sel(&mut self, cond: f64, a: f64, b: f64) -> f64 {
        if cond != 0.0 { a } else { b }
    }
}
