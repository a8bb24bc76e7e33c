//! `exp`, `log` and `log1p`: Cody–Waite reduction by ln 2 and a polynomial for `exp`; fdlibm's
//! `log1p(f) = f - (f²/2 - s (f²/2 + R(s²)))` with `s = f / (2 + f)` for `log`; `log1p` as
//! `log(1 + x)` plus the rounding error of `1 + x` divided by `1 + x`.

use inkwell::FloatPredicate as P;

use super::FloatKind;
use super::coeffs;
use super::emit::{Em, V};
use crate::CpuError;

/// ln 2 split so that `hi + lo` carries about 80 bits.
fn ln2(kind: FloatKind) -> (f64, f64) {
    match kind {
        FloatKind::F32 => {
            let hi = std::f64::consts::LN_2 as f32 as f64;
            (hi, (std::f64::consts::LN_2 - hi) as f32 as f64)
        }
        // fdlibm's split: `hi` has 32 trailing zero bits.
        FloatKind::F64 => (
            f64::from_bits(0x3fe6_2e42_fee0_0000),
            f64::from_bits(0x3dea_39ef_3579_3c76),
        ),
    }
}

/// `e^x`: `n = rint(x / ln 2)`, `r = x - n ln 2` (two FMA steps), `e^r = 1 + r + r² q(r)`,
/// scaled by `2^n` in two steps so subnormal results round once. `x` is clamped first, so
/// overflow gives `inf` and underflow `0`; NaN is passed through.
pub(super) fn exp<'ctx>(em: &Em<'_, 'ctx>, x: V<'ctx>) -> Result<V<'ctx>, CpuError> {
    let (lo, hi, q) = match em.kind {
        FloatKind::F32 => (-104.0, 89.0, &coeffs::EXP_F32[..]),
        FloatKind::F64 => (-746.0, 710.0, &coeffs::EXP_F64[..]),
    };
    let (ln2_hi, ln2_lo) = ln2(em.kind);
    let xc = em.clamp(x, lo, hi)?;
    let n = em.un("llvm.rint", em.mul(xc, em.c(std::f64::consts::LOG2_E))?)?;
    let r = em.fma(n, em.c(-ln2_hi), xc)?;
    let r = em.fma(n, em.c(-ln2_lo), r)?;
    let poly = em.poly(r, q)?;
    let p = em.fma(em.mul(r, r)?, poly, r)?;
    let p = em.add(p, em.c(1.0))?;
    let y = em.ldexp(p, em.fptosi(n)?)?;
    em.select(em.is_nan(x)?, x, y)
}

/// `log(x)` for `x > 0` finite and normal after scaling subnormals up: `x = 2^k m` with
/// `m` in `[sqrt(1/2), sqrt(2))`, `f = m - 1` (exact). Then the special cases: `log(0) = -inf`,
/// `log(inf) = inf`, negative or NaN gives NaN.
pub(super) fn log<'ctx>(em: &Em<'_, 'ctx>, x: V<'ctx>) -> Result<V<'ctx>, CpuError> {
    let (min_normal, scale_bits, sqrt_half_bits, one_bits, mant_mask, lg) = match em.kind {
        FloatKind::F32 => (
            f32::MIN_POSITIVE as f64,
            25,
            0x3f35_04f3_i64,
            0x3f80_0000_i64,
            0x007f_ffff_i64,
            &coeffs::LOG_F32[..],
        ),
        FloatKind::F64 => (
            f64::MIN_POSITIVE,
            54,
            0x3fe6_a09e_667f_3bcd_i64,
            0x3ff0_0000_0000_0000_i64,
            0x000f_ffff_ffff_ffff_i64,
            &coeffs::LOG_F64[..],
        ),
    };
    let (ln2_hi, ln2_lo) = ln2(em.kind);
    let tiny = em.fcmp(P::OLT, x, em.c(min_normal))?;
    let scaled = em.mul(x, em.c(2f64.powi(scale_bits)))?;
    let xs = em.select(tiny, scaled, x)?;
    let k_adjust = em.select(tiny, em.ci(-(scale_bits as i64)), em.ci(0))?;
    let ix = em.iadd(em.float_to_bits(xs)?, em.ci(one_bits - sqrt_half_bits))?;
    let k = em.ashr(ix, em.ci(em.kind.mantissa_bits()))?;
    let k = em.iadd(em.isub(k, em.ci(em.kind.exp_bias()))?, k_adjust)?;
    let m = em.iadd(em.and(ix, em.ci(mant_mask))?, em.ci(sqrt_half_bits))?;
    let f = em.sub(em.bits_to_float(m)?, em.c(1.0))?;
    let hfsq = em.mul(em.mul(f, f)?, em.c(0.5))?;
    let s = em.div(f, em.add(f, em.c(2.0))?)?;
    let z = em.mul(s, s)?;
    let r = em.mul(z, em.poly(z, lg)?)?;
    let dk = em.sitofp(k)?;
    let lo = em.fma(s, em.add(hfsq, r)?, em.mul(dk, em.c(ln2_lo))?)?;
    let y = em.fma(dk, em.c(ln2_hi), em.sub(f, em.sub(hfsq, lo)?)?)?;
    let y = em.select(
        em.fcmp(P::OEQ, x, em.c(f64::INFINITY))?,
        em.c(f64::INFINITY),
        y,
    )?;
    let y = em.select(em.fcmp(P::OEQ, x, em.c(0.0))?, em.c(f64::NEG_INFINITY), y)?;
    em.select(em.fcmp(P::ULT, x, em.c(0.0))?, em.c(f64::NAN), y)
}

/// `log1p(x) = log(u) + (x - (u - 1)) / u` with `u = 1 + x` rounded; `x = -0`, `x = inf` and
/// `x <= -1` are special-cased.
pub(super) fn log1p<'ctx>(em: &Em<'_, 'ctx>, x: V<'ctx>) -> Result<V<'ctx>, CpuError> {
    let u = em.add(x, em.c(1.0))?;
    let log_u = log(em, u)?;
    let c = em.div(em.sub(x, em.sub(u, em.c(1.0))?)?, u)?;
    let y = em.add(log_u, c)?;
    let plain = em.or(
        em.fcmp(P::OLE, x, em.c(-1.0))?,
        em.fcmp(P::OEQ, x, em.c(f64::INFINITY))?,
    )?;
    let y = em.select(plain, log_u, y)?;
    em.select(em.fcmp(P::OEQ, x, em.c(0.0))?, x, y)
}
