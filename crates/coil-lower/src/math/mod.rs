//! The float functions of `coil_graph::FloatFn` as loop-body ops: each described once here, in
//! the ops every backend already renders (arithmetic, comparisons, `where`, `sqrt`, `exp`,
//! `log`, `log1p`, `erf`, `floor`), so the CPU, the GPU, the C backend and the scalar evaluator
//! all compute the same function from the same reductions and coefficients. Computed in f32 for
//! f32, bf16 and f16 (opmath; rounded once at the store) and in f64 for f64.
//!
//! Accuracy (tested against the f64 reference in `coil_graph::FloatFn::reference`): a few f32
//! ulp in f32 and about 1e-15 relative in f64 (`erfc`'s and `erfinv`'s bounded by `erfc`'s fitted
//! polynomial); see the tests below and the op cases `float_table_*`.

mod atan;
mod erfc;
pub(crate) mod fmod;
mod hyperbolic;

use coil_graph::{DType, FloatFn};

use crate::body::{Const, ExprGraph, ExprId, Op};

/// `f` of `args` (already in the compute dtype `t`, f32 or f64), built into `g`.
pub(crate) fn expand(f: FloatFn, g: &mut ExprGraph, args: &[ExprId], t: DType) -> ExprId {
    // A polynomial's degree or polygamma's order: a number, so a constant of the body.
    let constant = f
        .constant_operand()
        .and_then(|i| match *g.expr(args[i]) {
            crate::body::Expr::Constant { value, .. } => Some(value.to_f64()),
            _ => None,
        })
        .unwrap_or(f64::NAN);
    let mut m = M { g, t };
    if let Some(v) = f.generic(&mut m, args, constant) {
        return v;
    }
    let x = args[0];
    match f {
        FloatFn::Atan => atan::atan(&mut m, x),
        FloatFn::Asin => atan::asin(&mut m, x),
        FloatFn::Acos => atan::acos(&mut m, x),
        FloatFn::Atan2 => atan::atan2(&mut m, x, args[1]),
        FloatFn::Hypot => hyperbolic::hypot(&mut m, x, args[1]),
        FloatFn::Asinh => hyperbolic::asinh(&mut m, x),
        FloatFn::Acosh => hyperbolic::acosh(&mut m, x),
        FloatFn::Atanh => hyperbolic::atanh(&mut m, x),
        FloatFn::Expm1 => hyperbolic::expm1(&mut m, x),
        FloatFn::Logaddexp => hyperbolic::logaddexp(&mut m, x, args[1]),
        FloatFn::Erfc => erfc::erfc(&mut m, x),
        FloatFn::Erfinv => erfc::erfinv(&mut m, x),
        FloatFn::Erfcx => erfc::erfcx(&mut m, x),
        FloatFn::Ndtri => erfc::ndtri(&mut m, x),
        // `pow` of a constant base: every backend's pow is exact at integers and as accurate
        // as its `exp(x log 2)` (computed in f64 for f32 on the CPU).
        FloatFn::Exp2 => {
            let two = m.c(2.0);
            m.bin(Op::Pow, two, x)
        }
        other => unreachable!("{} is generic", other.name()),
    }
}

/// The special functions' algorithms (`coil_graph::special`) built as loop-body ops.
impl coil_graph::special::Arith for M<'_> {
    type V = ExprId;
    fn c(&mut self, v: f64) -> ExprId {
        M::c(self, v)
    }
    fn add(&mut self, a: ExprId, b: ExprId) -> ExprId {
        M::add(self, a, b)
    }
    fn sub(&mut self, a: ExprId, b: ExprId) -> ExprId {
        M::sub(self, a, b)
    }
    fn mul(&mut self, a: ExprId, b: ExprId) -> ExprId {
        M::mul(self, a, b)
    }
    fn div(&mut self, a: ExprId, b: ExprId) -> ExprId {
        M::div(self, a, b)
    }
    fn pow(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bin(Op::Pow, a, b)
    }
    fn neg(&mut self, a: ExprId) -> ExprId {
        M::neg(self, a)
    }
    fn abs(&mut self, a: ExprId) -> ExprId {
        M::abs(self, a)
    }
    fn sqrt(&mut self, a: ExprId) -> ExprId {
        M::sqrt(self, a)
    }
    fn exp(&mut self, a: ExprId) -> ExprId {
        M::exp(self, a)
    }
    fn log(&mut self, a: ExprId) -> ExprId {
        M::log(self, a)
    }
    fn sin(&mut self, a: ExprId) -> ExprId {
        self.un(Op::Sin, a)
    }
    fn cos(&mut self, a: ExprId) -> ExprId {
        self.un(Op::Cos, a)
    }
    fn floor(&mut self, a: ExprId) -> ExprId {
        self.un(Op::Floor, a)
    }
    fn lt(&mut self, a: ExprId, b: ExprId) -> ExprId {
        M::lt(self, a, b)
    }
    fn le(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bin(Op::Le, a, b)
    }
    fn eq(&mut self, a: ExprId, b: ExprId) -> ExprId {
        M::eq(self, a, b)
    }
    fn and(&mut self, a: ExprId, b: ExprId) -> ExprId {
        M::and(self, a, b)
    }
    fn or(&mut self, a: ExprId, b: ExprId) -> ExprId {
        M::or(self, a, b)
    }
    fn not(&mut self, a: ExprId) -> ExprId {
        self.un(Op::LogicalNot, a)
    }
    fn sel(&mut self, cond: ExprId, a: ExprId, b: ExprId) -> ExprId {
        M::sel(self, cond, a, b)
    }
}

/// The compute dtype of a float function whose result is `out`: f64 for f64, else f32.
pub(crate) fn compute_dtype(out: DType) -> DType {
    if out == DType::F64 {
        DType::F64
    } else {
        DType::F32
    }
}

/// The few operations the expansions are written in (the body graph in one float dtype).
pub(crate) struct M<'a> {
    g: &'a mut ExprGraph,
    t: DType,
}

impl M<'_> {
    fn f64(&self) -> bool {
        self.t == DType::F64
    }
    fn c(&mut self, v: f64) -> ExprId {
        self.g.constant(Const::Float(v), self.t)
    }
    fn un(&mut self, op: Op, a: ExprId) -> ExprId {
        self.g.unary(op, a)
    }
    fn bin(&mut self, op: Op, a: ExprId, b: ExprId) -> ExprId {
        self.g.binary(op, a, b)
    }
    fn add(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bin(Op::Add, a, b)
    }
    fn sub(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bin(Op::Sub, a, b)
    }
    fn mul(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bin(Op::Mul, a, b)
    }
    fn div(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bin(Op::TrueDiv, a, b)
    }
    fn addc(&mut self, a: ExprId, v: f64) -> ExprId {
        let c = self.c(v);
        self.add(a, c)
    }
    fn mulc(&mut self, a: ExprId, v: f64) -> ExprId {
        let c = self.c(v);
        self.mul(a, c)
    }
    /// `v - a`.
    fn rsubc(&mut self, v: f64, a: ExprId) -> ExprId {
        let c = self.c(v);
        self.sub(c, a)
    }
    fn neg(&mut self, a: ExprId) -> ExprId {
        self.un(Op::Neg, a)
    }
    fn abs(&mut self, a: ExprId) -> ExprId {
        self.un(Op::Abs, a)
    }
    fn sqrt(&mut self, a: ExprId) -> ExprId {
        self.un(Op::Sqrt, a)
    }
    fn exp(&mut self, a: ExprId) -> ExprId {
        self.un(Op::Exp, a)
    }
    fn log(&mut self, a: ExprId) -> ExprId {
        self.un(Op::Log, a)
    }
    fn log1p(&mut self, a: ExprId) -> ExprId {
        self.un(Op::Log1p, a)
    }
    /// NaN-propagating maximum and minimum.
    fn max(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bin(Op::Maximum, a, b)
    }
    fn min(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bin(Op::Minimum, a, b)
    }
    fn lt(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bin(Op::Lt, a, b)
    }
    fn gt(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bin(Op::Gt, a, b)
    }
    fn eq(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bin(Op::Eq, a, b)
    }
    fn ltc(&mut self, a: ExprId, v: f64) -> ExprId {
        let c = self.c(v);
        self.lt(a, c)
    }
    fn gtc(&mut self, a: ExprId, v: f64) -> ExprId {
        let c = self.c(v);
        self.gt(a, c)
    }
    fn eqc(&mut self, a: ExprId, v: f64) -> ExprId {
        let c = self.c(v);
        self.eq(a, c)
    }
    fn and(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bin(Op::LogicalAnd, a, b)
    }
    fn or(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.bin(Op::LogicalOr, a, b)
    }
    fn sel(&mut self, cond: ExprId, a: ExprId, b: ExprId) -> ExprId {
        self.g.where_(cond, a, b)
    }
    fn selc(&mut self, cond: ExprId, v: f64, b: ExprId) -> ExprId {
        let c = self.c(v);
        self.sel(cond, c, b)
    }
    /// Whether `x`'s sign bit is set (negative numbers and -0; not NaN).
    fn sign_bit(&mut self, x: ExprId) -> ExprId {
        let neg = self.ltc(x, 0.0);
        let zero = self.eqc(x, 0.0);
        let one = self.c(1.0);
        let inv = self.div(one, x); // -inf for -0
        let neg_inv = self.ltc(inv, 0.0);
        let neg_zero = self.and(zero, neg_inv);
        self.or(neg, neg_zero)
    }
    /// `mag` (not negative, or NaN) with the sign of `s`.
    fn with_sign_of(&mut self, mag: ExprId, s: ExprId) -> ExprId {
        let neg = self.sign_bit(s);
        let m = self.neg(mag);
        self.sel(neg, m, mag)
    }
    /// `c[0] + x (c[1] + x (c[2] + ...))`.
    fn poly(&mut self, x: ExprId, c: &[f64]) -> ExprId {
        let mut r = self.c(c[c.len() - 1]);
        for &k in c[..c.len() - 1].iter().rev() {
            let p = self.mul(r, x);
            r = self.addc(p, k);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use coil_kernel::scalar::{Scalar, binary, unary};

    /// Evaluates `f`'s expansion on scalars through the scalar evaluator's op meanings.
    fn eval(f: FloatFn, args: &[f64], t: DType) -> f64 {
        let mut g = ExprGraph::new();
        let ids: Vec<ExprId> = args
            .iter()
            .map(|&v| g.constant(Const::Float(v), t))
            .collect();
        let root = expand(f, &mut g, &ids, t);
        let mut vals: Vec<Scalar> = Vec::new();
        for (_, e) in g.iter() {
            use crate::body::Expr;
            let v = match *e {
                Expr::Constant { value, .. } => {
                    let v = value.to_f64();
                    match value {
                        Const::Bool(b) => Scalar::B(b),
                        _ if t == DType::F64 => Scalar::F(v),
                        _ => Scalar::F(v as f32 as f64),
                    }
                }
                Expr::Unary(op, a) => unary(op, vals[a.index()], t).expect("unary"),
                Expr::Binary(op, a, b) => {
                    let dt = if matches!(op, Op::LogicalAnd | Op::LogicalOr) {
                        DType::Bool
                    } else {
                        t
                    };
                    binary(op, vals[a.index()], vals[b.index()], dt).expect("binary")
                }
                Expr::Ternary(_, c, a, b) => match vals[c.index()] {
                    Scalar::B(true) => vals[a.index()],
                    _ => vals[b.index()],
                },
                ref other => panic!("unexpected {other:?}"),
            };
            vals.push(v);
        }
        match vals[root.index()] {
            Scalar::F(v) => v,
            other => panic!("not a float: {other:?}"),
        }
    }

    /// `|got - want|` in f32 ulp of `scale` (at least `want`'s).
    fn ulps32(got: f64, want: f64, scale: f64) -> f64 {
        let w = want as f32;
        if got.is_nan() || w.is_nan() {
            return if got.is_nan() == w.is_nan() {
                0.0
            } else {
                f64::INFINITY
            };
        }
        if (got as f32) == w {
            return 0.0;
        }
        let s = scale.abs().max(want.abs()) as f32;
        let ulp = (s.max(f32::MIN_POSITIVE) * f32::EPSILON) as f64;
        (got - want).abs() / ulp
    }

    fn samples() -> Vec<f64> {
        let mut v = vec![
            0.0,
            -0.0,
            1e-30,
            -1e-30,
            1e-8,
            1e-4,
            0.1,
            0.25,
            0.2679,
            0.3,
            0.4999,
            0.5,
            0.75,
            0.9,
            0.99,
            0.999999,
            1.0,
            -1.0,
            1.5,
            2.0,
            3.0,
            5.0,
            9.0,
            10.0,
            26.0,
            100.0,
            1e6,
            1e20,
            3e38,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let n = v.len();
        for i in 0..n {
            v.push(-v[i]);
        }
        for k in 0..400 {
            let u = (k as f64 * 0.6180339887).fract();
            v.push((u - 0.5) * 8.0);
            v.push((u * 2.0 - 1.0) * 0.9999);
        }
        v
    }

    /// Each function within `limit` f32 ulp of the reference (or, where the value is tiny,
    /// within f32's denormal step), in f32; within 1e-12 relative in f64 (1e-13 for the
    /// fitted erfc and erfinv).
    #[test]
    fn expansions_match_the_reference() {
        for f in FloatFn::ALL {
            let limit = match f {
                FloatFn::Erfinv | FloatFn::Ndtri => 8.0,
                _ => 4.0,
            };
            let mut w32: f64 = 0.0;
            let mut w64: f64 = 0.0;
            let xs = samples();
            for (i, &x) in xs.iter().enumerate() {
                let y = xs[(i * 7 + 3) % xs.len()];
                let args: Vec<f64> = if f.arity() == 2 { vec![x, y] } else { vec![x] };
                // The f32 inputs as f32 holds them.
                let a32: Vec<f64> = args.iter().map(|&v| v as f32 as f64).collect();
                let want32 = f.reference(&a32);
                // The special functions compute in f64 for every dtype, as the lowering does.
                let got32 = if f.wide() {
                    eval(f, &a32, DType::F64) as f32 as f64
                } else {
                    eval(f, &a32, DType::F32)
                };
                // logaddexp's sum cancels where the result is small beside its operands (as
                // PyTorch's own does): its error is measured against the operands' size.
                let scale = match f {
                    FloatFn::Logaddexp => a32.iter().fold(0.0f64, |s, v| s.max(v.abs())),
                    _ => 0.0,
                };
                let u = if want32.abs() < 1e-37 && got32.abs() < 1e-37 {
                    0.0
                } else {
                    ulps32(got32, want32, scale)
                };
                assert!(
                    u <= limit,
                    "{} {a32:?}: {got32} vs {want32} ({u} ulp)",
                    f.name()
                );
                w32 = w32.max(u);
                let want64 = f.reference(&args);
                let got64 = eval(f, &args, DType::F64);
                let rel = if want64.is_nan() || got64.is_nan() {
                    assert_eq!(want64.is_nan(), got64.is_nan(), "{} {args:?}", f.name());
                    0.0
                } else if want64 == got64 {
                    0.0
                } else {
                    (got64 - want64).abs() / want64.abs().max(1e-300)
                };
                let tol = match f {
                    FloatFn::Erfc | FloatFn::Erfinv | FloatFn::Erfcx | FloatFn::Ndtri => 1e-13,
                    _ => 1e-12,
                };
                assert!(
                    rel <= tol || (want64.abs() < 1e-300 && got64.abs() < 1e-300),
                    "{} f64 {args:?}: {got64} vs {want64} ({rel:e})",
                    f.name()
                );
                w64 = w64.max(rel);
            }
            assert!(
                w32 <= limit && w64 <= 1e-12,
                "{}: {w32} ulp, {w64:e}",
                f.name()
            );
        }
    }
}
