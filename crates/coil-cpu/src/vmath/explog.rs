//! `exp`, `log` and `log1p`: Cody–Waite reduction by ln 2 and a polynomial for `exp`; fdlibm's
//! `log1p(f) = f - (f²/2 - s (f²/2 + R(s²)))` with `s = f / (2 + f)` for `log`; `log1p` as
//! `log(1 + x)` plus the rounding error of `1 + x` divided by `1 + x`.

use inkwell::FloatPredicate as P;
use inkwell::values::FunctionValue;

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

/// `e^x`. When every lane has `|x| <= FAST_EXP_LIMIT` (results normal, no NaN) a short path
/// runs ([`exp_normal`]); otherwise the whole vector takes the general path ([`exp_general`]),
/// which handles overflow, subnormal results and NaN. The branch is per vector and, in the
/// softmax-like rows where `exp` is hot, always goes the same way.
pub(super) fn exp<'ctx>(
    em: &Em<'_, 'ctx>,
    function: FunctionValue<'ctx>,
    x: V<'ctx>,
) -> Result<V<'ctx>, CpuError> {
    let limit = match em.kind {
        FloatKind::F32 => FAST_EXP_LIMIT_F32,
        FloatKind::F64 => FAST_EXP_LIMIT_F64,
    };
    // Unordered: a NaN lane is "out of range" and takes the general path.
    let out_of_range = em.fcmp(P::UGT, em.abs(x)?, em.c(limit))?;
    short_or_general(
        em,
        function,
        x,
        out_of_range,
        ("exp_normal", &|| exp_normal(em, x)),
    )
}

/// `short()` when no lane of `out_of_range` is set, [`exp_general`] otherwise: one branch per
/// vector, each path in its own block (the short one named `name`), joined by a phi.
fn short_or_general<'ctx>(
    em: &Em<'_, 'ctx>,
    function: FunctionValue<'ctx>,
    x: V<'ctx>,
    out_of_range: V<'ctx>,
    (name, short): (&str, &dyn Fn() -> Result<V<'ctx>, CpuError>),
) -> Result<V<'ctx>, CpuError> {
    let any_out = em.any_lane(out_of_range)?;
    let general_block = em.cx.append_basic_block(function, "exp_general");
    let short_block = em.cx.append_basic_block(function, name);
    let done_block = em.cx.append_basic_block(function, "exp_done");
    em.b.build_conditional_branch(any_out, general_block, short_block)?;
    em.b.position_at_end(short_block);
    let fast = short()?;
    let fast_end = em.block()?;
    em.b.build_unconditional_branch(done_block)?;
    em.b.position_at_end(general_block);
    let general = exp_general(em, x)?;
    let general_end = em.block()?;
    em.b.build_unconditional_branch(done_block)?;
    em.b.position_at_end(done_block);
    let phi = em.b.build_phi(em.fty(), "exp")?;
    phi.add_incoming(&[(&fast, fast_end), (&general, general_end)]);
    Ok(phi.as_basic_value())
}

/// Below this `|x|`, `e^x` is a normal f32 and `2^n` (`n = rint(x / ln 2)`, `|n| <= 126`)
/// added to the exponent of `e^r` in `[0.7, 1.42]` stays a normal number: `e^-87 = 1.6e-38`
/// is above f32's smallest normal (1.18e-38), `e^87 = 6.1e37` below its largest.
const FAST_EXP_LIMIT_F32: f64 = 87.0;
/// The same for f64 (`e^-708 = 3.3e-308` > 2.2e-308, `e^708 = 3.0e307` < 1.8e308).
const FAST_EXP_LIMIT_F64: f64 = 708.0;

/// `e^x` for lanes whose result is normal: `t = x / ln 2 + 1.5 * 2^m` rounds `x / ln 2` to an
/// integer `n` in `t`'s low mantissa bits (`m` = the mantissa width), `n = t - 1.5 * 2^m` as a
/// float, `r = x - n ln 2` (two FMA steps), `e^r = 1 + r (1 + r q(r))`, and `2^n` applied by adding
/// `t`'s bits shifted into the exponent field (the magic number's own bits shift out).
fn exp_normal<'ctx>(em: &Em<'_, 'ctx>, x: V<'ctx>) -> Result<V<'ctx>, CpuError> {
    let q = match em.kind {
        FloatKind::F32 => &coeffs::EXP_F32[..],
        FloatKind::F64 => &coeffs::EXP_F64[..],
    };
    let (ln2_hi, ln2_lo) = ln2(em.kind);
    let shift = em.kind.mantissa_bits();
    let magic = 1.5 * 2f64.powi(shift as i32);
    let t = em.fma(x, em.c(std::f64::consts::LOG2_E), em.c(magic))?;
    let n = em.sub(t, em.c(magic))?;
    let r = em.fma(n, em.c(-ln2_hi), x)?;
    let r = em.fma(n, em.c(-ln2_lo), r)?;
    let p = exp_reduced(em, r, q)?;
    let scale = em.shl(em.float_to_bits(t)?, em.ci(shift))?;
    em.bits_to_float(em.iadd(em.float_to_bits(p)?, scale)?)
}

/// `e^r = 1 + r (1 + r q(r))` for the reduced argument, all of it in Horner form: one FMA
/// per coefficient and two more, no separate square or add.
fn exp_reduced<'ctx>(em: &Em<'_, 'ctx>, r: V<'ctx>, q: &[f64]) -> Result<V<'ctx>, CpuError> {
    let s = em.fma(em.poly(r, q)?, r, em.c(1.0))?;
    em.fma(s, r, em.c(1.0))
}

/// Lanes of the table `exp` ([`exp_table`]): one AVX2 register of f32.
pub(super) const TABLE_EXP_LANES: u32 = 8;

/// The table `exp`'s reduction: `x = (8k + j) ln 2 / 8 + r`.
const TABLE_EXP_STEPS: f64 = 8.0;

/// Largest `|n|` (in eighths of `ln 2`) the table's short path takes: `2^(n/8)` stays normal
/// with room for `e^r` (within 5% of 1) on either side.
const TABLE_EXP_MAX_N: f64 = 1000.0;

/// `e^x` for 8-lane f32 vectors on AVX2 (see [`super::VMathOptions::table_exp`]):
/// `t = x 8 / ln 2 + 1.5 * 2^23` rounds to `n = 8k + j` in `t`'s low mantissa bits,
/// `r = x - n ln 2 / 8` (two FMA steps, `|r| <= ln 2 / 16`), `e^r = 1 + r (1 + r q(r))` with `q`
/// of degree 1 (fitted for the relative error of `e^r`, 2.6e-8: 0.43 ulp of values just
/// below 1), and `2^(n/8) = 2^(j/8) 2^k` built in the integer domain: `vpermps` indexes the
/// register-held table by `t`'s low three bits, each entry holding `2^(j/8)`'s bits less
/// `j << 20`, so adding `t`'s bits shifted left by 20 (which is `(8k + j) << 20`; the magic
/// number's bits shift out) puts `k` into the exponent field. One multiply by `e^r` then rounds
/// once. Lanes with `|n| > 1000` (results near or past the normal range), infinities and NaN
/// make the whole vector take [`exp_general`]; the test `n² > 1000²` needs one constant, where
/// `|x| > limit` needs two.
pub(super) fn exp_table<'ctx>(
    em: &Em<'_, 'ctx>,
    function: FunctionValue<'ctx>,
    x: V<'ctx>,
) -> Result<V<'ctx>, CpuError> {
    let (t, n) = table_exp_round(em, x)?;
    // Unordered: NaN lanes (x NaN, or inf - inf) are out of range too.
    let out_of_range = em.fcmp(
        P::UGT,
        em.mul(n, n)?,
        em.c(TABLE_EXP_MAX_N * TABLE_EXP_MAX_N),
    )?;
    let table = || table_exp_short(em, x, t, n);
    short_or_general(em, function, x, out_of_range, ("exp_table", &table))
}

/// The table `exp`'s rounding: `t = x 8 / ln 2 + 1.5 * 2^23` (`n` in its low mantissa bits)
/// and `n` as a float.
fn table_exp_round<'ctx>(em: &Em<'_, 'ctx>, x: V<'ctx>) -> Result<(V<'ctx>, V<'ctx>), CpuError> {
    let magic = 1.5 * 2f64.powi(em.kind.mantissa_bits() as i32);
    let t = em.fma(
        x,
        em.c(TABLE_EXP_STEPS * std::f64::consts::LOG2_E),
        em.c(magic),
    )?;
    let n = em.sub(t, em.c(magic))?;
    Ok((t, n))
}

/// The table `exp`'s short path for lanes with `|n| <= 1000`: reduction, polynomial, and the
/// table entry scaled into place.
fn table_exp_short<'ctx>(
    em: &Em<'_, 'ctx>,
    x: V<'ctx>,
    t: V<'ctx>,
    n: V<'ctx>,
) -> Result<V<'ctx>, CpuError> {
    let step = std::f64::consts::LN_2 / TABLE_EXP_STEPS;
    let hi = step as f32 as f64;
    let lo = (step - hi) as f32 as f64;
    let r = em.fma(n, em.c(-hi), x)?;
    let r = em.fma(n, em.c(-lo), r)?;
    let p = exp_reduced(em, r, &coeffs::EXP_TABLE_F32)?;
    let bits = em.float_to_bits(t)?;
    let entry = em.permute8(table_2_pow_eighths(em)?, bits)?;
    let scale = em.iadd(em.float_to_bits(entry)?, em.shl(bits, em.ci(20))?)?;
    em.mul(p, em.bits_to_float(scale)?)
}

/// Below this `|x|` both short paths apply: the table's (`|n| <= 1000` needs
/// `|x| <= 1000 ln 2 / 8 = 86.6`) and [`exp_normal`]'s ([`FAST_EXP_LIMIT_F32`]).
const IN_RANGE_LIMIT_F32: f64 = 86.0;
/// The same for f64, below [`FAST_EXP_LIMIT_F64`].
const IN_RANGE_LIMIT_F64: f64 = 700.0;

/// See [`super::exp_in_range_limit`].
pub(super) fn in_range_limit(kind: FloatKind) -> f64 {
    match kind {
        FloatKind::F32 => IN_RANGE_LIMIT_F32,
        FloatKind::F64 => IN_RANGE_LIMIT_F64,
    }
}

/// `e^x` for `|x| <= `[`in_range_limit`] and not NaN: the short path that [`exp_table`]
/// (`table`) or [`exp`] takes for such vectors, without the test, so the same bits.
pub(super) fn exp_in_range<'ctx>(
    em: &Em<'_, 'ctx>,
    x: V<'ctx>,
    table: bool,
) -> Result<V<'ctx>, CpuError> {
    if table {
        let (t, n) = table_exp_round(em, x)?;
        table_exp_short(em, x, t, n)
    } else {
        exp_normal(em, x)
    }
}

/// The table of [`exp_table`]: lane `j` holds the bits of `2^(j/8)` (rounded to f32) less
/// `j << 20`, as a float vector.
fn table_2_pow_eighths<'ctx>(em: &Em<'_, 'ctx>) -> Result<V<'ctx>, CpuError> {
    let i32t = em.cx.i32_type();
    let lanes: Vec<_> = (0..TABLE_EXP_LANES as i64)
        .map(|j| {
            let entry = (2f64.powf(j as f64 / TABLE_EXP_STEPS) as f32).to_bits() as i64;
            i32t.const_int((entry - (j << 20)) as u64, true)
        })
        .collect();
    em.bits_to_float(inkwell::types::VectorType::const_vector(&lanes).into())
}

/// `e^x` for any `x`: `n = rint(x / ln 2)`, `r = x - n ln 2` (two FMA steps),
/// `e^r = 1 + r (1 + r q(r))`, scaled by `2^n` in two steps so subnormal results round once. `x`
/// is clamped first, so overflow gives `inf` and underflow `0`; NaN is passed through.
pub(super) fn exp_general<'ctx>(em: &Em<'_, 'ctx>, x: V<'ctx>) -> Result<V<'ctx>, CpuError> {
    let (lo, hi, q) = match em.kind {
        FloatKind::F32 => (-104.0, 89.0, &coeffs::EXP_F32[..]),
        FloatKind::F64 => (-746.0, 710.0, &coeffs::EXP_F64[..]),
    };
    let (ln2_hi, ln2_lo) = ln2(em.kind);
    let xc = em.clamp(x, lo, hi)?;
    let n = em.un("llvm.rint", em.mul(xc, em.c(std::f64::consts::LOG2_E))?)?;
    let r = em.fma(n, em.c(-ln2_hi), xc)?;
    let r = em.fma(n, em.c(-ln2_lo), r)?;
    let p = exp_reduced(em, r, q)?;
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
