//! Exact float `fmod` (C's, PyTorch's `fmod` and the base of its float `remainder`) in integer
//! loop-body ops, so every backend computes it the same way and it fuses like any pointwise
//! op. `a - trunc(a / b) * b` is wrong once the quotient has more digits than the float;
//! instead, with `|x| = mx 2^ex` and `|y| = my 2^ey` (integer significands, `ex >= ey`),
//! `fmod(|x|, |y|) = ((mx mod my) (2^(ex - ey) mod my) mod my) 2^ey`: the power of two
//! modulo `my` by square-and-multiply over the bits of `ex - ey`, every product modulo `my`,
//! then the result scaled back (exactly: it is a multiple of `y`'s unit in the last place below
//! `|y|`) and given `x`'s sign.
//!
//! Backends with an exact fmod of their own (the CPU's LLVM `frem`, C's `fmod`) take
//! [`Op::Fmod`] instead ([`crate::LowerConfig::native_fmod`]): this is for the GPU, where it
//! costs about 7 times Inductor's `fmodf` (a loop with an early exit, which a body cannot
//! express) on an H200.
//!
//! In f32 (for f32, bf16 and f16, whose fmod is the f32 one rounded, exactly) the products of
//! two 24-bit significands fit an `i64`. In f64 they do not: a product modulo `m` takes the
//! quotient estimated in f64 (off by at most a few units) and the remainder in wrapping `i64`
//! arithmetic, then corrects it into `0..m`.

use coil_graph::DType;

use crate::body::{Const, ExprGraph, ExprId, Op};

struct Ints<'a> {
    g: &'a mut ExprGraph,
}

impl Ints<'_> {
    fn c(&mut self, v: i64) -> ExprId {
        self.g.constant(Const::Int(v), DType::I64)
    }
    fn op(&mut self, op: Op, a: ExprId, b: ExprId) -> ExprId {
        self.g.binary(op, a, b)
    }
    fn opc(&mut self, op: Op, a: ExprId, b: i64) -> ExprId {
        let b = self.c(b);
        self.g.binary(op, a, b)
    }
    /// `a mod m` for `a >= 0`, `m >= 1`.
    fn rem(&mut self, a: ExprId, m: ExprId) -> ExprId {
        let q = self.op(Op::TruncDiv, a, m);
        let back = self.op(Op::Mul, q, m);
        self.op(Op::Sub, a, back)
    }
    /// `a b mod m` for `0 <= a, b < m`, `m` below `2^(bits + 1)`.
    fn mulmod(&mut self, a: ExprId, b: ExprId, m: ExprId, wide: bool) -> ExprId {
        let ab = self.op(Op::Mul, a, b);
        if !wide {
            return self.rem(ab, m);
        }
        // The quotient from f64 (within a few units of the true one), the remainder in wrapping
        // i64 (exact: it is small), then brought into 0..m.
        let f = |s: &mut Self, v: ExprId| s.g.to_dtype(v, DType::F64);
        let (af, bf, mf) = (f(self, a), f(self, b), f(self, m));
        let p = self.op(Op::Mul, af, bf);
        let qf = self.op(Op::TrueDiv, p, mf);
        let q = self.g.to_dtype(qf, DType::I64);
        let qm = self.op(Op::Mul, q, m);
        let mut r = self.op(Op::Sub, ab, qm);
        let zero = self.c(0);
        for _ in 0..3 {
            let neg = self.op(Op::Lt, r, zero);
            let up = self.op(Op::Add, r, m);
            r = self.g.where_(neg, up, r);
        }
        for _ in 0..3 {
            let over = self.op(Op::Ge, r, m);
            let down = self.op(Op::Sub, r, m);
            r = self.g.where_(over, down, r);
        }
        r
    }
}

/// `fmod(x, y)` of `x` and `y` of float dtype `t` (f32 or f64): exact, with `x`'s sign; NaN
/// when `y` is 0, `x` infinite or either NaN; `x` itself when `|x| < |y|`.
pub(crate) fn fmod(g: &mut ExprGraph, x: ExprId, y: ExprId, t: DType) -> ExprId {
    let wide = t == DType::F64;
    let (ibits, mbits, bias, ebits): (DType, i64, i64, u32) = if wide {
        (DType::I64, 52, 1023, 11)
    } else {
        (DType::I32, 23, 127, 8)
    };
    let mut n = Ints { g };
    // The bits as i64 (f32's sign-extended: the masks below take what they need).
    let bits = |n: &mut Ints<'_>, v: ExprId| {
        let b = n.g.bitcast(v, ibits);
        n.g.to_dtype(b, DType::I64)
    };
    let (xb, yb) = (bits(&mut n, x), bits(&mut n, y));
    let abs_mask = if wide { i64::MAX } else { 0x7fff_ffff };
    let bx = n.opc(Op::BitAnd, xb, abs_mask);
    let by = n.opc(Op::BitAnd, yb, abs_mask);
    let one = n.c(1);
    let frac = (1i64 << mbits) - 1;
    // Significand and exponent (subnormals: exponent 1, no hidden bit).
    let parts = |n: &mut Ints<'_>, b: ExprId| {
        let e = n.opc(Op::Shr, b, mbits);
        let f = n.opc(Op::BitAnd, b, frac);
        let zero = n.c(0);
        let normal = n.op(Op::Gt, e, zero);
        let hidden = n.opc(Op::BitOr, f, 1i64 << mbits);
        let m = n.g.where_(normal, hidden, f);
        let e = n.op(Op::Maximum, e, one);
        (m, e)
    };
    let (mx, ex) = parts(&mut n, bx);
    let (my, ey) = parts(&mut n, by);
    // A zero divisor gives NaN below; divide by 1 meanwhile.
    let zero = n.c(0);
    let y_zero = n.op(Op::Eq, my, zero);
    let my = n.g.where_(y_zero, one, my);
    let diff = n.op(Op::Sub, ex, ey);
    let d = n.op(Op::Maximum, diff, zero);
    let m0 = n.rem(mx, my);
    let two = n.c(2);
    let mut base = n.rem(two, my);
    let mut pw = n.rem(one, my);
    // `d` is below 2^(ebits): square-and-multiply over its bits.
    for k in 0..ebits as i64 {
        let shifted = n.opc(Op::Shr, d, k);
        let bit = n.opc(Op::BitAnd, shifted, 1);
        let set = n.op(Op::Eq, bit, one);
        let times = n.mulmod(pw, base, my, wide);
        pw = n.g.where_(set, times, pw);
        if k + 1 < ebits as i64 {
            base = n.mulmod(base, base, my, wide);
        }
    }
    let m = n.mulmod(m0, pw, my, wide);
    // m 2^(ey - bias - mbits), in two power-of-two factors (each a normal float).
    let k = n.opc(Op::Sub, ey, bias + mbits);
    let k1 = n.opc(Op::TruncDiv, k, 2);
    let k2 = n.op(Op::Sub, k, k1);
    let pow2 = |n: &mut Ints<'_>, e: ExprId| {
        let biased = n.opc(Op::Add, e, bias);
        let b = n.opc(Op::Shl, biased, mbits);
        let b = n.g.to_dtype(b, ibits);
        n.g.bitcast(b, t)
    };
    let (p1, p2) = (pow2(&mut n, k1), pow2(&mut n, k2));
    let mf = n.g.to_dtype(m, t);
    let r = n.g.binary(Op::Mul, mf, p1);
    let r = n.g.binary(Op::Mul, r, p2);
    // x's sign.
    let sign = n.opc(Op::BitAnd, xb, if wide { i64::MIN } else { 1i64 << 31 });
    let rb = bits(&mut n, r);
    let rb = n.op(Op::BitOr, rb, sign);
    let rb = n.g.to_dtype(rb, ibits);
    let signed = n.g.bitcast(rb, t);
    // NaN: y zero, x infinite or NaN, y NaN. x itself: |x| < |y| (x zero, y infinite).
    let inf_bits = ((1i64 << ebits) - 1) << mbits;
    let x_special = n.opc(Op::Ge, bx, inf_bits);
    let y_nan = n.opc(Op::Gt, by, inf_bits);
    let bad = n.op(Op::LogicalOr, x_special, y_nan);
    let bad = n.op(Op::LogicalOr, bad, y_zero);
    let small = n.op(Op::Lt, bx, by);
    let nan = n.g.constant(Const::Float(f64::NAN), t);
    let kept = n.g.where_(small, x, signed);
    n.g.where_(bad, nan, kept)
}

/// `fmod(x, y)`: the backend's own [`Op::Fmod`] where it has one (`native`), else [`fmod`].
pub(crate) fn fmod_of(g: &mut ExprGraph, x: ExprId, y: ExprId, t: DType, native: bool) -> ExprId {
    if native {
        g.binary(Op::Fmod, x, y)
    } else {
        fmod(g, x, y, t)
    }
}

/// PyTorch's float `remainder`: `fmod`, plus `y` where it is nonzero and its sign differs
/// from `y`'s.
pub(crate) fn remainder(g: &mut ExprGraph, x: ExprId, y: ExprId, t: DType, native: bool) -> ExprId {
    let m = fmod_of(g, x, y, t, native);
    let zero = g.constant(Const::Float(0.0), t);
    let nonzero = g.binary(Op::Ne, m, zero);
    let m_neg = g.binary(Op::Lt, m, zero);
    let y_neg = g.binary(Op::Lt, y, zero);
    let differ = g.binary(Op::Ne, m_neg, y_neg);
    let fix = g.binary(Op::LogicalAnd, nonzero, differ);
    let shifted = g.binary(Op::Add, m, y);
    g.where_(fix, shifted, m)
}
