//! `sin` and `cos` (f32): the argument is reduced by π/2 in double precision (`n = rint(x 2/π)`,
//! `r = x - n π/2` with π/2 as two doubles, exact enough for every `|x| <= 2^24`), then the
//! quadrant picks `±sin r` or `±cos r` from two polynomials. Larger arguments (and ±inf) send
//! the whole vector down a rarely taken branch that calls the host's libm per lane. Also the
//! per-lane host fallback used for f64 `sin`, `cos` and `erf`.

use inkwell::FloatPredicate as P;
use inkwell::IntPredicate;
use inkwell::module::Linkage;
use inkwell::types::{BasicType, BasicTypeEnum};
use inkwell::values::{BasicValueEnum, FunctionValue};

use super::emit::{Em, V};
use super::{FloatKind, MathFn, coeffs, runtime_symbol};
use crate::CpuError;

/// Above this magnitude the f32 fast path's reduction is not trusted.
const FAST_PATH_LIMIT: f64 = 16_777_216.0;
/// π/2 as a double-double.
const PIO2_HI: f64 = std::f64::consts::FRAC_PI_2;
const PIO2_LO: f64 = 6.123_233_995_736_766e-17;

pub(super) fn sin_cos<'ctx>(
    em: &Em<'_, 'ctx>,
    function: FunctionValue<'ctx>,
    x: V<'ctx>,
    cos: bool,
) -> Result<V<'ctx>, CpuError> {
    let ed = Em {
        cx: em.cx,
        b: em.b,
        module: em.module,
        kind: FloatKind::F64,
        width: em.width,
    };
    // Reduction in double.
    let xd: V<'ctx> = match (x, ed.fty()) {
        (V::FloatValue(v), BasicTypeEnum::FloatType(t)) => em.b.build_float_ext(v, t, "")?.into(),
        (V::VectorValue(v), BasicTypeEnum::VectorType(t)) => em.b.build_float_ext(v, t, "")?.into(),
        _ => return Err(type_error(x)),
    };
    let n = ed.un("llvm.rint", ed.mul(xd, ed.c(std::f64::consts::FRAC_2_PI))?)?;
    let n = ed.clamp(n, -(2f64.powi(30)), 2f64.powi(30))?;
    let r = ed.fma(n, ed.c(-PIO2_HI), xd)?;
    let r = ed.fma(n, ed.c(-PIO2_LO), r)?;
    let (r, q): (V<'ctx>, V<'ctx>) = match (r, n, em.fty(), em.ity()) {
        (
            V::FloatValue(r),
            V::FloatValue(n),
            BasicTypeEnum::FloatType(ft),
            BasicTypeEnum::IntType(it),
        ) => (
            em.b.build_float_trunc(r, ft, "")?.into(),
            em.b.build_float_to_signed_int(n, it, "")?.into(),
        ),
        (
            V::VectorValue(r),
            V::VectorValue(n),
            BasicTypeEnum::VectorType(ft),
            BasicTypeEnum::VectorType(it),
        ) => (
            em.b.build_float_trunc(r, ft, "")?.into(),
            em.b.build_float_to_signed_int(n, it, "")?.into(),
        ),
        _ => return Err(type_error(x)),
    };
    // Polynomials on [-π/4, π/4].
    let z = em.mul(r, r)?;
    let s = em.fma(em.mul(r, z)?, em.poly(z, &coeffs::SIN_F32)?, r)?;
    let c = em.fma(
        em.mul(z, z)?,
        em.poly(z, &coeffs::COS_F32)?,
        em.fma(z, em.c(-0.5), em.c(1.0))?,
    )?;
    let q = if cos { em.iadd(q, em.ci(1))? } else { q };
    let odd = em.icmp(IntPredicate::NE, em.and(q, em.ci(1))?, em.ci(0))?;
    let y = em.select(odd, c, s)?;
    let sign = em.shl(em.and(q, em.ci(2))?, em.ci(30))?;
    let mut y = em.bits_to_float(em.xor(em.float_to_bits(y)?, sign)?)?;
    if !cos {
        // sin(-0) = -0 (the reduction turns -0 into +0).
        y = em.select(em.fcmp(P::OEQ, x, em.c(0.0))?, x, y)?;
    }

    // Rare slow path: any lane with |x| > 2^24 or ±inf.
    let huge = em.fcmp(P::OGT, em.abs(x)?, em.c(FAST_PATH_LIMIT))?;
    let any_huge = em.any_lane(huge)?;
    let fast_block = em.block()?;
    let slow_block = em.cx.append_basic_block(function, "huge_argument");
    let done_block = em.cx.append_basic_block(function, "done");
    em.b.build_conditional_branch(any_huge, slow_block, done_block)?;
    em.b.position_at_end(slow_block);
    let f = if cos { MathFn::Cos } else { MathFn::Sin };
    let slow = per_lane_host_call(em, f, x)?;
    let slow_end = em.block()?;
    em.b.build_unconditional_branch(done_block)?;
    em.b.position_at_end(done_block);
    let phi = em.b.build_phi(em.fty(), "y")?;
    phi.add_incoming(&[(&y, fast_block), (&slow, slow_end)]);
    Ok(phi.as_basic_value())
}

fn type_error(x: V<'_>) -> CpuError {
    CpuError::UnsupportedType {
        function: "sin/cos",
        ty: x.get_type().to_string(),
    }
}

/// `f(x)` by calling the host function for `f` once per lane.
pub(super) fn per_lane_host_call<'ctx>(
    em: &Em<'_, 'ctx>,
    f: MathFn,
    x: V<'ctx>,
) -> Result<V<'ctx>, CpuError> {
    let name = runtime_symbol(f, em.kind).ok_or(CpuError::UnsupportedType {
        function: f.name(),
        ty: x.get_type().to_string(),
    })?;
    let scalar = em.kind.llvm_type(em.cx);
    let host = match em.module.get_function(name) {
        Some(h) => h,
        None => em.module.add_function(
            name,
            scalar.fn_type(&[scalar.as_basic_type_enum().into()], false),
            Some(Linkage::External),
        ),
    };
    let call = |v: BasicValueEnum<'ctx>| -> Result<BasicValueEnum<'ctx>, CpuError> {
        em.b.build_call(host, &[v.into()], "")?
            .try_as_basic_value()
            .basic()
            .ok_or(CpuError::MissingIntrinsic("(void host call)"))
    };
    match x {
        V::FloatValue(_) => call(x),
        V::VectorValue(v) => {
            let mut out = v;
            for lane in 0..em.width {
                let index = em.cx.i32_type().const_int(u64::from(lane), false);
                let xi = em.b.build_extract_element(v, index, "")?;
                let yi = call(xi)?;
                out = em.b.build_insert_element(out, yi, index, "")?;
            }
            Ok(out.into())
        }
        _ => Err(type_error(x)),
    }
}
