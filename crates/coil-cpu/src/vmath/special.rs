//! `tanh`, `sigmoid` and `erf`, built on [`super::explog::exp`] plus small-argument polynomials.

use inkwell::FloatPredicate as P;

use super::FloatKind;
use super::coeffs;
use super::emit::{Em, V};
use super::explog::exp_general;
use crate::CpuError;

/// `tanh(x) = x + x³ T(x²)` for `|x| < 0.625`, else `sign(x) (1 - 2 / (e^(2|x|) + 1))` (which
/// saturates to ±1 when `e^(2|x|)` overflows). NaN flows through the second form.
pub(super) fn tanh<'ctx>(em: &Em<'_, 'ctx>, x: V<'ctx>) -> Result<V<'ctx>, CpuError> {
    let t = match em.kind {
        FloatKind::F32 => &coeffs::TANH_F32[..],
        FloatKind::F64 => &coeffs::TANH_F64[..],
    };
    let a = em.abs(x)?;
    let z = em.mul(x, x)?;
    let small = em.fma(em.mul(x, z)?, em.poly(z, t)?, x)?;
    // tanh(-0) = -0 (the FMA above gives +0).
    let small = em.select(em.fcmp(P::OEQ, x, em.c(0.0))?, x, small)?;
    let e = exp_general(em, em.add(a, a)?)?;
    let large = em.sub(em.c(1.0), em.div(em.c(2.0), em.add(e, em.c(1.0))?)?)?;
    let large = em.bi("llvm.copysign", large, x)?;
    em.select(em.fcmp(P::OLT, a, em.c(0.625))?, small, large)
}

/// `sigmoid(x)`: with `e = e^-|x|` (never overflows), `1 / (1 + e)` for `x >= 0` and
/// `e / (1 + e)` for `x < 0`, so results down to the subnormals are accurate.
pub(super) fn sigmoid<'ctx>(em: &Em<'_, 'ctx>, x: V<'ctx>) -> Result<V<'ctx>, CpuError> {
    let a = em.abs(x)?;
    let e = exp_general(em, em.sub(em.c(0.0), a)?)?;
    let r = em.div(em.c(1.0), em.add(e, em.c(1.0))?)?;
    em.select(em.fcmp(P::OGE, x, em.c(0.0))?, r, em.mul(e, r)?)
}

/// f32 `erf(x)`: `x + x (E(x²) - 1)` for `|x| < 1`; else `sign(x) (1 - e^(-x²) K(|x|))` with `K` fitted
/// to `erfc(x) e^(x²)` on `[1, 4]` (beyond 4, `erf` is 1 in f32). Only called for f32.
pub(super) fn erf<'ctx>(em: &Em<'_, 'ctx>, x: V<'ctx>) -> Result<V<'ctx>, CpuError> {
    let a = em.abs(x)?;
    // x E(x²) = x + x (E(x²) - 1): the correction is small, so its rounding errors are too.
    let mut e_minus_1 = coeffs::ERF_SMALL_F32;
    e_minus_1[0] -= 1.0;
    let small = em.fma(x, em.poly(em.mul(x, x)?, &e_minus_1)?, x)?;
    let ac = em.clamp(a, 1.0, 4.0)?;
    let k = em.poly(ac, &coeffs::ERFC_SCALED_F32)?;
    let e = exp_general(em, em.sub(em.c(0.0), em.mul(ac, ac)?)?)?;
    let big = em.fma(em.sub(em.c(0.0), e)?, k, em.c(1.0))?;
    let big = em.bi("llvm.copysign", big, x)?;
    let y = em.select(em.fcmp(P::OLT, a, em.c(1.0))?, small, big)?;
    em.select(em.is_nan(x)?, x, y)
}
