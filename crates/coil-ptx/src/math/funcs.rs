//! The routines: exp, log, log1p, tanh, sigmoid, erf, sin, cos, sqrt, rsqrt, pow, each generic
//! over [`MathOps`] so one body gives both the PTX and the host model.

use super::ops::{MathOps, Table};
use crate::ptx::Cmp;

// ---- helpers ------------------------------------------------------------------------------

fn horner<M: MathOps + ?Sized>(m: &mut M, x: M::F, coeffs: &[f32]) -> M::F {
    let mut p = m.f(coeffs[0]);
    for &c in &coeffs[1..] {
        let c = m.f(c);
        p = m.ffma(p, x, c);
    }
    p
}

fn horner_d<M: MathOps + ?Sized>(m: &mut M, x: M::D, coeffs: &[f64]) -> M::D {
    let mut p = m.d(coeffs[0]);
    for &c in &coeffs[1..] {
        let c = m.d(c);
        p = m.dfma(p, x, c);
    }
    p
}

// ---- exp ----------------------------------------------------------------------------------

/// log2(e), rounded to f32.
const LOG2E: f32 = std::f32::consts::LOG2_E;
/// ln 2 = LN2_HI + LN2_LO; LN2_HI has 9 significant bits so `k * LN2_HI` is exact for
/// |k| <= 150 (Cephes).
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;
/// exp(r) = 1 + r + r² P(r) on [-ln2/2, ln2/2] (Cephes expf).
const EXP_P: [f32; 6] = [
    1.987_569_1e-4,
    1.398_199_9e-3,
    8.333_452e-3,
    4.166_579_6e-2,
    1.666_666_5e-1,
    5e-1,
];

/// e^x. Inputs are clamped to [-104, 89] (beyond which the result is 0 or inf); `2^k` is applied
/// as two factors so that subnormal results round once, correctly.
pub fn exp<M: MathOps + ?Sized>(m: &mut M, x: M::F) -> M::F {
    let lo = m.f(-104.0);
    let hi = m.f(89.0);
    let xc = m.fmax(x, lo);
    let xc = m.fmin(xc, hi);
    // k = round(x · log2 e) through the 1.5·2^23 sum (see `trig_reduce`), its integer from the
    // sum's bits: no conversion instructions.
    let log2e = m.f(LOG2E);
    let magic = m.f(ROUND_MAGIC);
    let t = m.ffma(xc, log2e, magic);
    let k = m.fsub(t, magic);
    let c = m.f(-LN2_HI);
    let r = m.ffma(k, c, xc);
    let c = m.f(-LN2_LO);
    let r = m.ffma(k, c, r);
    let z = m.fmul(r, r);
    let p = horner(m, r, &EXP_P);
    let y = m.ffma(p, z, r);
    let one = m.f(1.0);
    let y = m.fadd(y, one);
    // 2^k = 2^k1 * 2^k2 with k1 = k >> 1, both factors normal for k in [-150, 128].
    let tb = m.fbits(t);
    let magic_bits = m.i(ROUND_MAGIC.to_bits() as i32);
    let ki = m.isub(tb, magic_bits);
    let k1 = arith_half(m, ki);
    let k2 = m.isub(ki, k1);
    let s1 = pow2(m, k1);
    let s2 = pow2(m, k2);
    let y = m.fmul(y, s1);
    let y = m.fmul(y, s2);
    let nan = m.fisnan(x);
    m.fsel(nan, x, y)
}

/// `k >> 1` rounded toward -inf, for `k` in [-150, 128], without an arithmetic shift:
/// `((k + 256) >> 1) - 128`.
fn arith_half<M: MathOps + ?Sized>(m: &mut M, k: M::I) -> M::I {
    let bias = m.i(256);
    let kb = m.iadd(k, bias);
    let one = m.i(1);
    let h = m.ishr(kb, one);
    let unbias = m.i(128);
    m.isub(h, unbias)
}

/// The f32 `2^k` for `k` in [-126, 127], from its bits.
fn pow2<M: MathOps + ?Sized>(m: &mut M, k: M::I) -> M::F {
    let bias = m.i(127);
    let e = m.iadd(k, bias);
    let sh = m.i(23);
    let bits = m.ishl(e, sh);
    m.ffrombits(bits)
}

// ---- log, log1p ---------------------------------------------------------------------------

const SQRT_HALF: f32 = std::f32::consts::FRAC_1_SQRT_2;
/// log(1+f) = f - f²/2 + f³ P(f) for f in [√½-1, √2-1] (Cephes logf).
const LOG_P: [f32; 9] = [
    7.037_683_6e-2,
    -1.151_461e-1,
    1.167_699_9e-1,
    -1.242_014_1e-1,
    1.424_932_3e-1,
    -1.666_805_8e-1,
    2.000_071_4e-1,
    -2.499_999_4e-1,
    3.333_333e-1,
];

/// Natural logarithm: `log(x)` for x > 0 (subnormals included), -inf at ±0, NaN below 0.
pub fn log<M: MathOps + ?Sized>(m: &mut M, x: M::F) -> M::F {
    let min_normal = m.f(f32::MIN_POSITIVE);
    let tiny = m.fcmp(Cmp::Lt, x, min_normal);
    let two23 = m.f(8_388_608.0);
    let scaled = m.fmul(x, two23);
    let xs = m.fsel(tiny, scaled, x);
    let b_tiny = m.i(-126 - 23);
    let b_norm = m.i(-126);
    let bias = m.isel(tiny, b_tiny, b_norm);
    let bits = m.fbits(xs);
    let sh = m.i(23);
    let e = m.ishr(bits, sh);
    let ff = m.i(0xff);
    let e = m.iand(e, ff);
    let e = m.iadd(e, bias);
    let mask = m.i(0x007f_ffff);
    let mant = m.iand(bits, mask);
    let half_exp = m.i(0x3f00_0000);
    let mant = m.ior(mant, half_exp);
    let mm = m.ffrombits(mant); // [0.5, 1)
    let sqrt_half = m.f(SQRT_HALF);
    let below = m.fcmp(Cmp::Lt, mm, sqrt_half);
    let one_i = m.i(1);
    let zero_i = m.i(0);
    let dec = m.isel(below, one_i, zero_i);
    let e = m.isub(e, dec);
    let twice = m.fadd(mm, mm);
    let base = m.fsel(below, twice, mm);
    let one = m.f(1.0);
    let f = m.fsub(base, one);
    let fe = m.itof(e);
    let z = m.fmul(f, f);
    let p = horner(m, f, &LOG_P);
    let t = m.fmul(f, z);
    let y = m.fmul(p, t);
    let c = m.f(LN2_LO);
    let y = m.ffma(fe, c, y);
    let c = m.f(-0.5);
    let y = m.ffma(z, c, y);
    let r = m.fadd(f, y);
    let c = m.f(LN2_HI);
    let r = m.ffma(fe, c, r);
    log_specials(m, x, r)
}

fn log_specials<M: MathOps + ?Sized>(m: &mut M, x: M::F, r: M::F) -> M::F {
    let inf = m.f(f32::INFINITY);
    let is_inf = m.fcmp(Cmp::Eq, x, inf);
    let r = m.fsel(is_inf, x, r);
    let zero = m.f(0.0);
    let is_zero = m.fcmp(Cmp::Eq, x, zero);
    let ninf = m.f(f32::NEG_INFINITY);
    let r = m.fsel(is_zero, ninf, r);
    let negative = m.fcmp(Cmp::Lt, x, zero);
    let nan = m.f(f32::NAN);
    let r = m.fsel(negative, nan, r);
    let is_nan = m.fisnan(x);
    m.fsel(is_nan, x, r)
}

/// `log(1 + x)`, accurate for small x: `log(u) + (x - (u - 1)) / u` with `u = 1 + x` rounded
/// (the quotient corrects the rounding of `u`).
pub fn log1p<M: MathOps + ?Sized>(m: &mut M, x: M::F) -> M::F {
    let one = m.f(1.0);
    let u = m.fadd(x, one);
    let lu = log(m, u);
    let um1 = m.fsub(u, one);
    let c = m.fsub(x, um1);
    let q = m.fdiv(c, u);
    let r = m.fadd(lu, q);
    let exact = m.fcmp(Cmp::Eq, u, one);
    let r = m.fsel(exact, x, r);
    let m1 = m.f(-1.0);
    let at_m1 = m.fcmp(Cmp::Eq, x, m1);
    let ninf = m.f(f32::NEG_INFINITY);
    let r = m.fsel(at_m1, ninf, r);
    let inf = m.f(f32::INFINITY);
    let at_inf = m.fcmp(Cmp::Eq, x, inf);
    m.fsel(at_inf, x, r)
}

// ---- tanh, sigmoid ------------------------------------------------------------------------

/// tanh(x) = x + x³ P(x²) on [0, 0.625] (Cephes tanhf).
const TANH_P: [f32; 5] = [
    -5.704_988_7e-3,
    2.063_909e-2,
    -5.373_971_6e-2,
    1.333_144_2e-1,
    -3.333_328e-1,
];

/// Hyperbolic tangent: a polynomial below |x| = 0.625, `1 - 2/(e^{2|x|} + 1)` above; odd.
pub fn tanh<M: MathOps + ?Sized>(m: &mut M, x: M::F) -> M::F {
    let ax = m.fabs(x);
    let s = m.fmul(ax, ax);
    let p = horner(m, s, &TANH_P);
    let t = m.fmul(s, ax);
    let small = m.ffma(p, t, ax);
    let twice = m.fadd(ax, ax);
    let e = exp(m, twice);
    let one = m.f(1.0);
    let d = m.fadd(e, one);
    let two = m.f(2.0);
    let q = m.fdiv(two, d);
    let big = m.fsub(one, q);
    let cut = m.f(0.625);
    let is_small = m.fcmp(Cmp::Lt, ax, cut);
    let r = m.fsel(is_small, small, big);
    m.fcopysign(x, r)
}

/// The logistic function `1 / (1 + e^-x)`, as `1/(1+e)` for x >= 0 and `e/(1+e)` below, with
/// `e = exp(-|x|)` (no overflow, exact subnormal tails), both corrected for the rounding of
/// `1 + e`.
pub fn sigmoid<M: MathOps + ?Sized>(m: &mut M, x: M::F) -> M::F {
    let ax = m.fabs(x);
    let nax = m.fneg(ax);
    let e = exp(m, nax);
    let one = m.f(1.0);
    let d = m.fadd(one, e);
    // d + err = 1 + e exactly (Fast2Sum, 1 >= e); correct both quotients for err.
    let one_minus_d = m.fsub(one, d);
    let err = m.fadd(one_minus_d, e);
    let r = m.frcp(d);
    let re = m.fmul(err, r);
    let nre = m.fneg(re);
    let pos = m.ffma(r, nre, r);
    let q = m.fdiv(e, d);
    let neg = m.ffma(q, nre, q);
    let zero = m.f(0.0);
    let nonneg = m.fcmp(Cmp::Ge, x, zero);
    m.fsel(nonneg, pos, neg)
}

// ---- erf ----------------------------------------------------------------------------------

/// erf(x) = x·ERF_C0 + x·P(x²) on [0, 1]: ERF_C0 is 2/√π rounded to f32 and P's constant term
/// carries the rounding error (fitted for relative error, 1.2e-9 before rounding to f32).
const ERF_C0: f32 = std::f32::consts::FRAC_2_SQRT_PI;
const ERF_SMALL: [f32; 7] = [
    7.854_118e-5,
    -8.010_277_5e-4,
    5.188_338_5e-3,
    -2.685_381_8e-2,
    1.128_358_5e-1,
    -3.761_262_6e-1,
    -5.999_556e-8,
];
/// -log(erfc(t)) = Q(t) on [1, 4] (fitted for relative error, 1.2e-9 before rounding).
const ERF_LARGE: [f32; 9] = [
    -1.643_233_9e-6,
    4.616_577_6e-5,
    -5.975_986e-4,
    4.762_727_3e-3,
    -2.642_825_6e-2,
    1.100_893_2e-1,
    6.318_199e-1,
    1.130_234_8,
    -3.199_485_4e-4,
];

/// The error function: `x (C0 + P(x²))` below |x| = 1, `1 - exp(-Q(|x|))` above (Q fitted to
/// -log erfc on [1, 4]; |x| is clamped to 4, where erf rounds to 1); odd.
pub fn erf<M: MathOps + ?Sized>(m: &mut M, x: M::F) -> M::F {
    let ax = m.fabs(x);
    let s = m.fmul(ax, ax);
    let p = horner(m, s, &ERF_SMALL);
    let tail = m.fmul(ax, p);
    let c0 = m.f(ERF_C0);
    let small = m.ffma(ax, c0, tail);
    let four = m.f(4.0);
    let t = m.fmin(ax, four);
    let q = horner(m, t, &ERF_LARGE);
    let nq = m.fneg(q);
    let e = exp(m, nq);
    let one = m.f(1.0);
    let big = m.fsub(one, e);
    let is_small = m.fcmp(Cmp::Lt, ax, one);
    let r = m.fsel(is_small, small, big);
    let r = m.fcopysign(x, r);
    let is_nan = m.fisnan(x);
    m.fsel(is_nan, x, r)
}

// ---- sin, cos -----------------------------------------------------------------------------

const TWO_OVER_PI: f32 = std::f32::consts::FRAC_2_PI;
/// π/2 = PIO2_1 + PIO2_2 + PIO2_3 (+ 1e-22): PIO2_1 has 19 significant bits, so `x - j PIO2_1`
/// is exact for |x| < 105615.
const PIO2_1: f32 = 1.570_797; // 0x1.921fcp+0
const PIO2_2: f32 = -6.397_578_4e-7; // -0x1.5777a6p-21
const PIO2_3: f32 = 5.390_303e-15; // 0x1.84698ap-48
/// Above this, reduce with Payne-Hanek (CUDA's bound for the 3-part reduction).
const TRIG_FAST_LIMIT: f32 = 105_615.0;
/// π/2 · 2^-64: scales the 64-bit fixed-point fraction of Payne-Hanek.
const PIO2_SCALED: f64 = 8.515_303_950_216_386e-20;
/// A zero word, then the first 256 bits of 2/π.
static TWO_OVER_PI_BITS: Table = Table {
    name: "coil_two_over_pi",
    values: &[
        0,
        0xa2f9_836e_4e44_1529,
        0xfc27_57d1_f534_ddc0,
        0xdb62_9599_3c43_9041,
        0xfe51_63ab_debb_c561,
    ],
};
/// sin(r) = r + r³ S(r²) on [-π/4, π/4] (Cephes sinf).
const SIN_P: [f32; 3] = [-1.951_529_6e-4, 8.332_161e-3, -1.666_665_5e-1];
/// cos(r) = 1 - r²/2 + r⁴ C(r²) on [-π/4, π/4] (Cephes cosf).
const COS_P: [f32; 3] = [2.443_315_7e-5, -1.388_731_6e-3, 4.166_664_6e-2];
/// π/2 in three parts, each truncated (so all positive: `0 · -part` is `-0`, which keeps a
/// reduced `-0` negative): 18, 24 and 24 significant bits; 2e-21 left over.
const HALF_PI_PARTS: [f32; 3] = [1.570_793_2, 3.174_939_4e-6, 6.223_372e-14];
/// sin(r) = r (1 + z P(z)), z = r², on |r| <= 1.58: minimax for relative error (6.4e-9 before rounding
/// the coefficients to f32), fitted by `tools/fit_sin_poly.py`.
const SIN_HALF_P: [f32; 4] = [2.604_023_8e-6, -1.980_884_7e-4, 8.333_056e-3, -1.666_666e-1];

/// 1.5 · 2^23: added to a float below 2^22 in magnitude, rounds it to an integer.
const ROUND_MAGIC: f32 = 12_582_912.0;

/// Reduces `ax` (>= 0) to `r` in about [-π/4, π/4] and the quadrant `q` with
/// `ax = q π/2 + r (mod 2π)`: the three-part reduction, or Payne-Hanek in a branch at or
/// beyond [`TRIG_FAST_LIMIT`]. (Sharing that branch among a thread's lanes was measured on the
/// H200: fewer instructions, but every lane's reduced argument stays live across it, and bf16
/// `chain` ran slower.)
fn trig_reduce<M: MathOps + ?Sized>(m: &mut M, ax: M::F) -> (M::F, M::I) {
    let fast = trig_reduce_fast(m, ax);
    let slow = trig_is_slow(m, ax);
    m.branch(slow, fast, |m| trig_reduce_slow(m, ax))
}

/// Whether `ax` (>= 0) takes the slow path. One comparison: infinities take it too, which
/// turns them into NaN (NaN compares false and stays on the fast path, which keeps it NaN).
fn trig_is_slow<M: MathOps + ?Sized>(m: &mut M, ax: M::F) -> M::P {
    let limit = m.f(TRIG_FAST_LIMIT);
    m.fcmp(Cmp::Ge, ax, limit)
}

/// Payne-Hanek's `(r, q)` for `ax` at or beyond [`TRIG_FAST_LIMIT`]; NaN for infinity.
fn trig_reduce_slow<M: MathOps + ?Sized>(m: &mut M, ax: M::F) -> (M::F, M::I) {
    let (r, q) = payne_hanek(m, ax);
    // ax - ax: 0 for finite ax, NaN for infinity.
    let nan_if_inf = m.fsub(ax, ax);
    (m.fadd(r, nan_if_inf), q)
}

/// `ax - k PIO2` in three parts (Cody-Waite): exact for `k` from `|x| <` [`TRIG_FAST_LIMIT`].
fn minus_pio2_times<M: MathOps + ?Sized>(m: &mut M, k: M::F, ax: M::F) -> M::F {
    let c = m.f(-PIO2_1);
    let r = m.ffma(k, c, ax);
    let c = m.f(-PIO2_2);
    let r = m.ffma(k, c, r);
    let c = m.f(-PIO2_3);
    m.ffma(k, c, r)
}

/// The three-part (Cody-Waite) reduction of `ax` (>= 0): exact below [`TRIG_FAST_LIMIT`].
fn trig_reduce_fast<M: MathOps + ?Sized>(m: &mut M, ax: M::F) -> (M::F, M::I) {
    // j = round(ax · 2/π) by adding 1.5·2^23 in the fma (ulp 1 there), and the quadrant from
    // that sum's low mantissa bits (2^22 + j, so bits mod 4 = j mod 4): no conversions, which
    // issue at a quarter of the FMA rate. Exact for ax · 2/π < 2^22, far above the fast
    // range's limit; the slow path replaces both beyond it.
    let c = m.f(TWO_OVER_PI);
    let magic = m.f(ROUND_MAGIC);
    let t = m.ffma(ax, c, magic);
    let j = m.fsub(t, magic);
    let r = minus_pio2_times(m, j, ax);
    (r, m.fbits(t))
}

/// Payne-Hanek reduction of `ax >= 2^16` (meaningful for finite `ax`; an infinity reads its
/// table in bounds): `ax · 2/π mod 4` from a 128-bit window of
/// the bits of 2/π times the 24-bit mantissa, in 64-bit integer arithmetic.
fn payne_hanek<M: MathOps + ?Sized>(m: &mut M, ax: M::F) -> (M::F, M::I) {
    let bits = m.fbits(ax);
    let sh23 = m.i(23);
    let e = m.ishr(bits, sh23);
    let mask = m.i(0x007f_ffff);
    let mant = m.iand(bits, mask);
    let hidden = m.i(0x0080_0000);
    let mant = m.ior(mant, hidden);
    // ax = mant 2^(e-150); the window starts at bit e - 88 of the table (after its zero word).
    let c = m.i(88);
    let offset = m.isub(e, c);
    let six = m.i(6);
    let word = m.ishr(offset, six);
    let c63 = m.i(63);
    let shift = m.iand(offset, c63);
    let c64 = m.i(64);
    let back = m.isub(c64, shift);
    let w0 = m.ltable(&TWO_OVER_PI_BITS, word);
    let one = m.i(1);
    let word1 = m.iadd(word, one);
    let w1 = m.ltable(&TWO_OVER_PI_BITS, word1);
    let word2 = m.iadd(word1, one);
    let w2 = m.ltable(&TWO_OVER_PI_BITS, word2);
    let a = m.lshl(w0, shift);
    let b = m.lshr(w1, back);
    let th = m.lor(a, b);
    let a = m.lshl(w1, shift);
    let b = m.lshr(w2, back);
    let tl = m.lor(a, b);
    let ml = m.lzext(mant);
    let h0 = m.lmulhi(ml, tl);
    let l0 = m.lmul(ml, tl);
    let l1 = m.lmul(ml, th);
    let p1 = m.ladd(h0, l1);
    // Bits 126..127 of the product are the quadrant, bits 62..125 the fraction.
    let c62 = m.i(62);
    let qw = m.lshr(p1, c62);
    let q = m.ltrunc(qw);
    let two = m.i(2);
    let a = m.lshl(p1, two);
    let b = m.lshr(l0, c62);
    let frac = m.lor(a, b);
    // A fraction >= 1/2 rounds up to the next quadrant and reads as negative (signed).
    let c63l = m.lshr(frac, c63);
    let up = m.ltrunc(c63l);
    let q = m.iadd(q, up);
    let fd = m.dfroml(frac);
    let scale = m.d(PIO2_SCALED);
    let rd = m.dmul(fd, scale);
    let r = m.dtof(rd);
    (r, q)
}

fn sin_poly<M: MathOps + ?Sized>(m: &mut M, r: M::F, z: M::F) -> M::F {
    let p = horner(m, z, &SIN_P);
    let t = m.fmul(r, z);
    m.ffma(t, p, r)
}

fn cos_poly<M: MathOps + ?Sized>(m: &mut M, z: M::F) -> M::F {
    let p = horner(m, z, &COS_P);
    let one = m.f(1.0);
    let half = m.f(-0.5);
    let w = m.ffma(z, half, one);
    let z2 = m.fmul(z, z);
    m.ffma(p, z2, w)
}

/// Picks the sin or cos polynomial for quadrant `q` and applies the quadrant's sign and
/// `sign_bits` (the sign of x for sin, 0 for cos).
fn trig_finish<M: MathOps + ?Sized>(m: &mut M, r: M::F, q: M::I, sign_bits: M::I) -> M::F {
    let z = m.fmul(r, r);
    let s = sin_poly(m, r, z);
    let c = cos_poly(m, z);
    let one = m.i(1);
    let odd = m.iand(q, one);
    let zero = m.i(0);
    let use_cos = m.icmp(Cmp::Ne, odd, zero);
    let v = m.fsel(use_cos, c, s);
    let two = m.i(2);
    let q2 = m.iand(q, two);
    let c30 = m.i(30);
    let flip = m.ishl(q2, c30);
    let sign = m.ixor(flip, sign_bits);
    let vb = m.fbits(v);
    let vb = m.ixor(vb, sign);
    m.ffrombits(vb)
}

/// Sine, accurate over the whole f32 range (Payne-Hanek above 105615).
pub fn sin<M: MathOps + ?Sized>(m: &mut M, x: M::F) -> M::F {
    sin_reduced(m, x)
}

/// Cosine, accurate over the whole f32 range (Payne-Hanek above 105615).
pub fn cos<M: MathOps + ?Sized>(m: &mut M, x: M::F) -> M::F {
    cos_reduced(m, x)
}

/// Sine for results that are rounded to 16 bits ([`trig_half_period`]).
pub fn sin_relaxed<M: MathOps + ?Sized>(m: &mut M, x: M::F) -> M::F {
    trig_half_period(m, x, false)
}

/// Cosine for results that are rounded to 16 bits ([`trig_half_period`]).
pub fn cos_relaxed<M: MathOps + ?Sized>(m: &mut M, x: M::F) -> M::F {
    trig_half_period(m, x, true)
}

/// sin (or cos) with one reduction by π and one odd polynomial, [`SIN_HALF_P`], about 9
/// instructions fewer than [`sin`]'s quadrant pair of polynomials and its select: for sin,
/// `x = 2n · π/2 + r` with `n = round(x/π)` and `sin x = (-1)^n sin r`; for cos,
/// `|x| = (2n + 1) · π/2 + r` with `n = round(|x|/π - 1/2)` and `cos x = (-1)^(n+1) sin r`
/// (relative accuracy where cos is near zero, which an even polynomial would lose). `|r|`
/// stays below 1.582 (π/2 and the roundings of 1/π and, for cos, of the half at the fast
/// path's limit; the fit covers 1.58, 3e-8 relative error at 1.5811). Under 3 ulp of
/// f32 (`tests/it/math_accuracy.rs`), far below a 16-bit result's rounding. The slow path is
/// [`sin`]'s. sin reduces the signed `x` (its sign needs no instructions of its own): the parts
/// of π/2 are all positive and the polynomial is `r (1 + z P)`, so `x = -0` stays `-0`.
fn trig_half_period<M: MathOps + ?Sized>(m: &mut M, x: M::F, is_cos: bool) -> M::F {
    let ax = m.fabs(x);
    let inv_pi = m.f(std::f32::consts::FRAC_1_PI);
    let magic = m.f(ROUND_MAGIC);
    // n = round(...) as in trig_reduce_fast; t's low mantissa bit is n's parity (n may be
    // negative for sin: t = 1.5·2^23 + n keeps its exponent).
    let (t, r) = if is_cos {
        let half = m.f(-0.5);
        let h = m.ffma(ax, inv_pi, half);
        let t = m.fadd(h, magic);
        let n = m.fsub(t, magic);
        let two = m.f(2.0);
        let one = m.f(1.0);
        let k = m.ffma(n, two, one);
        (t, minus_parts_times(m, k, ax, 1.0))
    } else {
        let t = m.ffma(x, inv_pi, magic);
        let n = m.fsub(t, magic);
        (t, minus_parts_times(m, n, x, 2.0))
    };
    let z = m.fmul(r, r);
    let p = horner(m, z, &SIN_HALF_P);
    let one = m.f(1.0);
    let w = m.ffma(z, p, one);
    let v = m.fmul(r, w);
    // The sign: n's parity, flipped for cos.
    let tb = m.fbits(t);
    let c31 = m.i(31);
    let odd = m.ishl(tb, c31);
    let sign = if is_cos {
        let sign_bit = m.i(i32::MIN);
        m.ixor(odd, sign_bit)
    } else {
        odd
    };
    let vb = m.fbits(v);
    let vb = m.ixor(vb, sign);
    let fast = m.ffrombits(vb);
    let slow = trig_is_slow(m, ax);
    let unused = m.i(0);
    let (y, _) = m.branch(slow, (fast, unused), |m| {
        let y = if is_cos { cos(m, x) } else { sin(m, x) };
        (y, unused)
    });
    y
}

/// `x - k · scale · π/2` in three positive parts of π/2 ([`HALF_PI_PARTS`]), `scale` 1 or 2
/// (exact scalings of the parts): the first is exact for `|k| < 2^17` (18 significant bits
/// against the fma's exact product), the error of the rest below 2^-70 for the fast path's
/// `k`.
fn minus_parts_times<M: MathOps + ?Sized>(m: &mut M, k: M::F, x: M::F, scale: f32) -> M::F {
    let mut r = x;
    for part in HALF_PI_PARTS {
        let c = m.f(-part * scale);
        r = m.ffma(k, c, r);
    }
    r
}

fn sin_reduced<M: MathOps + ?Sized>(m: &mut M, x: M::F) -> M::F {
    let ax = m.fabs(x);
    let (r, q) = trig_reduce(m, ax);
    let xb = m.fbits(x);
    let sign_mask = m.i(i32::MIN);
    let sign = m.iand(xb, sign_mask);
    trig_finish(m, r, q, sign)
}

fn cos_reduced<M: MathOps + ?Sized>(m: &mut M, x: M::F) -> M::F {
    let ax = m.fabs(x);
    let (r, q) = trig_reduce(m, ax);
    let one = m.i(1);
    let q = m.iadd(q, one);
    let zero = m.i(0);
    trig_finish(m, r, q, zero)
}

// ---- sqrt, rsqrt --------------------------------------------------------------------------

/// `sqrt.rn.f32`: correctly rounded.
pub fn sqrt<M: MathOps + ?Sized>(m: &mut M, x: M::F) -> M::F {
    m.fsqrt(x)
}

/// `1 / sqrt(x)` as `rcp.rn(sqrt.rn(x))`: two correct roundings, at most 1 ulp.
pub fn rsqrt<M: MathOps + ?Sized>(m: &mut M, x: M::F) -> M::F {
    let s = m.fsqrt(x);
    m.frcp(s)
}

// ---- pow ----------------------------------------------------------------------------------

const SQRT2_D: f64 = std::f64::consts::SQRT_2;
const LN2_D: f64 = std::f64::consts::LN_2;
const INV_LN2_D: f64 = std::f64::consts::LOG2_E;
/// ln 2 = LN2_HI_D + LN2_LO_D with LN2_HI_D's low bits zero (fdlibm).
const LN2_HI_D: f64 = 6.931_471_803_691_238e-1;
const LN2_LO_D: f64 = 1.908_214_929_270_587_7e-10;
/// atanh series: ln(m) = 2t Σ t^{2k}/(2k+1), t = (m-1)/(m+1), |t| <= 0.172.
const LOG_SERIES: [f64; 10] = [
    1.0 / 19.0,
    1.0 / 17.0,
    1.0 / 15.0,
    1.0 / 13.0,
    1.0 / 11.0,
    1.0 / 9.0,
    1.0 / 7.0,
    1.0 / 5.0,
    1.0 / 3.0,
    1.0,
];
/// Taylor series of e^r to degree 11, |r| <= ln2/2.
const EXP_SERIES: [f64; 12] = [
    1.0 / 39_916_800.0,
    1.0 / 3_628_800.0,
    1.0 / 362_880.0,
    1.0 / 40_320.0,
    1.0 / 5_040.0,
    1.0 / 720.0,
    1.0 / 120.0,
    1.0 / 24.0,
    1.0 / 6.0,
    1.0 / 2.0,
    1.0,
    1.0,
];

/// `x^y` with C99's special cases: `exp(y log|x|)` evaluated in f64 (about 2^-45 relative
/// error) and rounded once to f32, so nearly always correctly rounded.
pub fn pow<M: MathOps + ?Sized>(m: &mut M, x: M::F, y: M::F) -> M::F {
    let ax = m.fabs(x);
    // log|x| in f64: |x| = 2^e m, m in [√½, √2).
    let min_normal = m.f(f32::MIN_POSITIVE);
    let tiny = m.fcmp(Cmp::Lt, ax, min_normal);
    let two23 = m.f(8_388_608.0);
    let scaled = m.fmul(ax, two23);
    let axs = m.fsel(tiny, scaled, ax);
    let b_tiny = m.i(-127 - 23);
    let b_norm = m.i(-127);
    let bias = m.isel(tiny, b_tiny, b_norm);
    let bits = m.fbits(axs);
    let sh = m.i(23);
    let e = m.ishr(bits, sh);
    let e = m.iadd(e, bias);
    let mask = m.i(0x007f_ffff);
    let mant = m.iand(bits, mask);
    let one_exp = m.i(0x3f80_0000);
    let mant = m.ior(mant, one_exp);
    let mf = m.ffrombits(mant);
    let md = m.dfromf(mf);
    let sqrt2 = m.d(SQRT2_D);
    let high = m.dcmp(Cmp::Gt, md, sqrt2);
    let half = m.d(0.5);
    let md_half = m.dmul(md, half);
    let md = m.dsel(high, md_half, md);
    let one_i = m.i(1);
    let zero_i = m.i(0);
    let inc = m.isel(high, one_i, zero_i);
    let e = m.iadd(e, inc);
    let one_d = m.d(1.0);
    let num = m.dsub(md, one_d);
    let den = m.dadd(md, one_d);
    let t = m.ddiv(num, den);
    let t2 = m.dmul(t, t);
    let series = horner_d(m, t2, &LOG_SERIES);
    let two_d = m.d(2.0);
    let t_twice = m.dmul(t, two_d);
    let ln_m = m.dmul(t_twice, series);
    let ed = m.dfromi(e);
    let ln2 = m.d(LN2_D);
    let ln_x = m.dfma(ed, ln2, ln_m);
    // e^(y ln|x|) in f64, clamped to where the f32 result is 0 or inf anyway.
    let yd = m.dfromf(y);
    let z = m.dmul(yd, ln_x);
    let zlo = m.d(-110.0);
    let zhi = m.d(100.0);
    let z = m.dmax(z, zlo);
    let z = m.dmin(z, zhi);
    let inv_ln2 = m.d(INV_LN2_D);
    let k = m.dmul(z, inv_ln2);
    let k = m.dround(k);
    let c = m.d(-LN2_HI_D);
    let r = m.dfma(k, c, z);
    let c = m.d(-LN2_LO_D);
    let r = m.dfma(k, c, r);
    let p = horner_d(m, r, &EXP_SERIES);
    let ki = m.dtoi(k);
    let bias = m.i(1023);
    let kb = m.iadd(ki, bias);
    let kl = m.lzext(kb);
    let c52 = m.i(52);
    let sbits = m.lshl(kl, c52);
    let scale = m.dfrombits(sbits);
    let v = m.dmul(p, scale);
    let mag = m.dtof(v);
    pow_specials(m, x, y, ax, mag)
}

fn pow_specials<M: MathOps + ?Sized>(m: &mut M, x: M::F, y: M::F, ax: M::F, mag: M::F) -> M::F {
    let zero = m.f(0.0);
    let one = m.f(1.0);
    let inf = m.f(f32::INFINITY);
    let nan = m.f(f32::NAN);
    // y an integer; an odd one (|y| >= 2^24 is even; inf counts as even).
    let yr = m.fround(y);
    let y_int = m.fcmp(Cmp::Eq, yr, y);
    let half = m.f(0.5);
    let yh = m.fmul(y, half);
    let yhr = m.fround(yh);
    let yh_int = m.fcmp(Cmp::Eq, yhr, yh);
    let yh_frac = m.pnot(yh_int);
    let y_odd = m.pand(y_int, yh_frac);
    let y_neg = m.fcmp(Cmp::Lt, y, zero);
    // |x| = 0 or inf.
    let ax_zero = m.fcmp(Cmp::Eq, ax, zero);
    let at_zero = m.fsel(y_neg, inf, zero);
    let mag = m.fsel(ax_zero, at_zero, mag);
    let ax_inf = m.fcmp(Cmp::Eq, ax, inf);
    let at_inf = m.fsel(y_neg, zero, inf);
    let mag = m.fsel(ax_inf, at_inf, mag);
    // Sign: negative x (-0 included) to an odd integer power.
    let xb = m.fbits(x);
    let sign_mask = m.i(i32::MIN);
    let xs = m.iand(xb, sign_mask);
    let zero_i = m.i(0);
    let x_signed = m.icmp(Cmp::Ne, xs, zero_i);
    let negate = m.pand(x_signed, y_odd);
    let neg_mag = m.fneg(mag);
    let r = m.fsel(negate, neg_mag, mag);
    // Negative finite x to a non-integer power: NaN.
    let x_neg = m.fcmp(Cmp::Lt, x, zero);
    let ninf = m.f(f32::NEG_INFINITY);
    let x_fin = m.fcmp(Cmp::Gt, x, ninf);
    let y_frac = m.pnot(y_int);
    let bad = m.pand(x_neg, x_fin);
    let bad = m.pand(bad, y_frac);
    let r = m.fsel(bad, nan, r);
    // NaN in, NaN out.
    let x_nan = m.fisnan(x);
    let y_nan = m.fisnan(y);
    let r = m.fsel(x_nan, x, r);
    let r = m.fsel(y_nan, y, r);
    // (-1)^±inf = 1, x^0 = 1, 1^y = 1 (even for NaN).
    let m1 = m.f(-1.0);
    let x_m1 = m.fcmp(Cmp::Eq, x, m1);
    let ay = m.fabs(y);
    let y_inf = m.fcmp(Cmp::Eq, ay, inf);
    let m1_inf = m.pand(x_m1, y_inf);
    let r = m.fsel(m1_inf, one, r);
    let y_zero = m.fcmp(Cmp::Eq, y, zero);
    let r = m.fsel(y_zero, one, r);
    let x_one = m.fcmp(Cmp::Eq, x, one);
    m.fsel(x_one, one, r)
}
