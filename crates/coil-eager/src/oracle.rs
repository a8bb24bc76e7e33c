//! The oracle: whether a result is as accurate as eager's, judged against float64. One
//! function, [`judge`], that the CLI's checks, the conformance suite, the Python tests
//! (`coil.judge`) and the tools call, so there is one rule and one set of constants.
//!
//! - **f32 and f64 outputs** (the float64 rule), element by element: `|got - ref| <= atol +
//!   1e-4 |ref|`, where `ref` is float64's value (eager's where either is not finite: an
//!   overflow or NaN float64 avoids) and `atol = 1e-6 + 8 x` eager's own largest error
//!   against float64 on this output, at least `floor` for outputs of fewer than 256 elements
//!   (one sample of eager's error may happen to be tiny). Eager and coil sum in different
//!   orders, and the largest difference over many outputs is a few of the typical one.
//! - **bf16 and f16 outputs** (the 16-bit rule, Inductor's): eager rounds after every op and
//!   coil once per store, so neither is the other's reference; coil's RMS error against
//!   float64 is at most twice eager's, plus a tenth of the dtype's relative tolerance
//!   (PyTorch's: 1.6e-2 for bf16, 1e-3 for f16) times the output's largest magnitude.
//! - Integers and bools: equal to eager's, or within `floor` (an argmax near a tie).
//!
//! NaN matches NaN everywhere; an infinity matches only the same infinity.

use coil_graph::DType;

/// `atol`'s fixed part in the float64 rule.
pub const EXACT_ATOL: f64 = 1e-6;
/// How many times eager's own error against float64 an output may be off.
pub const EAGER_ERROR_MARGIN: f64 = 8.0;
/// The float64 rule's relative tolerance.
pub const RTOL: f64 = 1e-4;
/// Outputs with fewer elements take at least the caller's `floor` as their `atol`.
pub const FEW_ELEMENTS: usize = 256;

/// Which rule judged an output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Element by element against float64, the allowance from eager's own error.
    Float64,
    /// RMS error against float64, at most twice eager's (16-bit floats).
    SixteenBit,
    /// Equal to eager's, or within `floor` (integers and bools).
    Exact,
}

/// One output judged.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// Within the rule.
    pub ok: bool,
    /// The rule used.
    pub rule: Rule,
    /// The absolute allowance (per element; for the 16-bit rule, of the RMS error).
    pub atol: f64,
    /// The relative allowance per element (0 for the 16-bit rule).
    pub rtol: f64,
    /// The largest absolute error against the reference (the RMS error for the 16-bit rule;
    /// infinite where an infinity or NaN does not match).
    pub max_abs_err: f64,
    /// The largest `|got - ref| / max(|ref|, atol)`.
    pub max_rel_err: f64,
    /// What failed, in words (empty when ok).
    pub detail: String,
}

fn rms(a: &[f64], b: &[f64]) -> f64 {
    let (sum, n) = a
        .iter()
        .zip(b)
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .fold((0.0, 0usize), |(s, n), (x, y)| {
            (s + (x - y) * (x - y), n + 1)
        });
    if n == 0 { 0.0 } else { (sum / n as f64).sqrt() }
}

/// PyTorch's relative tolerance for a 16-bit dtype (`torch.testing.assert_close`'s default).
pub fn sixteen_bit_rtol(dtype: DType) -> f64 {
    match dtype {
        DType::BF16 => 1.6e-2,
        _ => 1e-3,
    }
}

/// Judges `got` (one output of `dtype`, as f64 values) against `exact` (float64's result) and
/// `eager` (eager's result in `dtype`); `floor` is the smallest `atol` a short output (or an
/// integer one) may use. Lengths must agree.
pub fn judge(got: &[f64], eager: &[f64], exact: &[f64], dtype: DType, floor: f64) -> Verdict {
    if got.len() != exact.len() || eager.len() != exact.len() {
        return Verdict {
            ok: false,
            rule: Rule::Exact,
            atol: 0.0,
            rtol: 0.0,
            max_abs_err: f64::INFINITY,
            max_rel_err: f64::INFINITY,
            detail: format!(
                "{} elements, eager {}, float64 {}",
                got.len(),
                eager.len(),
                exact.len()
            ),
        };
    }
    if !dtype.is_float() {
        return elementwise(got, eager, floor, 0.0, Rule::Exact);
    }
    if dtype.is_16_bit_float() {
        return sixteen_bit(got, eager, exact, dtype);
    }
    let mut eager_error = 0.0f64;
    let reference: Vec<f64> = eager
        .iter()
        .zip(exact)
        .map(|(&y, &z)| {
            if y.is_finite() && z.is_finite() {
                eager_error = eager_error.max((y - z).abs());
                z
            } else {
                y
            }
        })
        .collect();
    let mut atol = EXACT_ATOL + EAGER_ERROR_MARGIN * eager_error;
    if got.len() < FEW_ELEMENTS {
        atol = atol.max(floor);
    }
    elementwise(got, &reference, atol, RTOL, Rule::Float64)
}

fn elementwise(got: &[f64], reference: &[f64], atol: f64, rtol: f64, rule: Rule) -> Verdict {
    let mut v = Verdict {
        ok: true,
        rule,
        atol,
        rtol,
        max_abs_err: 0.0,
        max_rel_err: 0.0,
        detail: String::new(),
    };
    for (i, (&x, &y)) in got.iter().zip(reference).enumerate() {
        if (x.is_nan() && y.is_nan()) || x == y {
            continue;
        }
        let bad = if !x.is_finite() || !y.is_finite() {
            v.max_abs_err = f64::INFINITY;
            v.max_rel_err = f64::INFINITY;
            true
        } else {
            let abs = (x - y).abs();
            v.max_abs_err = v.max_abs_err.max(abs);
            v.max_rel_err = v.max_rel_err.max(abs / y.abs().max(atol));
            abs > atol + rtol * y.abs()
        };
        if bad && v.ok {
            v.ok = false;
            v.detail = format!(
                "element {i}: got {x}, the reference is {y} (allowed {atol:e} + {rtol:e} relative)"
            );
        }
    }
    v
}

fn sixteen_bit(got: &[f64], eager: &[f64], exact: &[f64], dtype: DType) -> Verdict {
    // Non-finite values must match eager's (float64 may stay finite where 16 bits overflow).
    for (i, (&x, &y)) in got.iter().zip(eager).enumerate() {
        let both_nan = x.is_nan() && y.is_nan();
        if !both_nan && (!x.is_finite() || !y.is_finite()) && x != y {
            return Verdict {
                ok: false,
                rule: Rule::SixteenBit,
                atol: 0.0,
                rtol: 0.0,
                max_abs_err: f64::INFINITY,
                max_rel_err: f64::INFINITY,
                detail: format!("element {i}: got {x}, eager gives {y}"),
            };
        }
    }
    let scale = exact
        .iter()
        .filter(|z| z.is_finite())
        .fold(0.0f64, |m, z| m.max(z.abs()));
    let (coil, theirs) = (rms(got, exact), rms(eager, exact));
    let atol = 2.0 * theirs + sixteen_bit_rtol(dtype) * scale / 10.0;
    let ok = coil <= atol;
    Verdict {
        ok,
        rule: Rule::SixteenBit,
        atol,
        rtol: 0.0,
        max_abs_err: coil,
        max_rel_err: if scale > 0.0 { coil / scale } else { 0.0 },
        detail: if ok {
            String::new()
        } else {
            format!("RMS error {coil:e} against float64, eager's {theirs:e} (allowed {atol:e})")
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_float64_rule_allows_eight_times_eagers_error() {
        let exact = [1.0, 2.0, 3.0];
        let eager = [1.0, 2.0 + 1e-5, 3.0];
        // atol = 1e-6 + 8e-5; plus 1e-4 relative.
        assert!(judge(&[1.0, 2.0, 3.0 + 3e-4], &eager, &exact, DType::F32, 0.0).ok);
        let v = judge(&[1.0, 2.0, 3.0 + 5e-4], &eager, &exact, DType::F32, 0.0);
        assert!(!v.ok && v.detail.starts_with("element 2"), "{v:?}");
        // Where float64 stays finite and eager overflows, eager's infinity is the reference.
        let v = judge(
            &[f64::INFINITY],
            &[f64::INFINITY],
            &[3e38 * 2.0],
            DType::F32,
            0.0,
        );
        assert!(v.ok);
        assert!(!judge(&[f64::NAN], &[1.0], &[1.0], DType::F32, 0.0).ok);
    }

    #[test]
    fn short_outputs_take_the_floor() {
        let v = judge(&[1.001], &[1.0], &[1.0], DType::F32, 1e-2);
        assert!(v.ok && v.atol == 1e-2);
    }

    #[test]
    fn the_16_bit_rule_compares_rms_errors() {
        let exact: Vec<f64> = (0..100).map(|i| f64::from(i) / 10.0).collect();
        let eager: Vec<f64> = exact.iter().map(|x| x + 0.01).collect();
        let close: Vec<f64> = exact.iter().map(|x| x - 0.015).collect();
        let far: Vec<f64> = exact.iter().map(|x| x + 0.2).collect();
        assert!(judge(&close, &eager, &exact, DType::BF16, 0.0).ok);
        let v = judge(&far, &eager, &exact, DType::BF16, 0.0);
        assert!(!v.ok && v.rule == Rule::SixteenBit, "{v:?}");
        let v = judge(&[f64::INFINITY], &[65504.0], &[65504.0], DType::F16, 0.0);
        assert!(!v.ok);
    }

    #[test]
    fn integers_must_equal_eagers() {
        assert!(judge(&[3.0], &[3.0], &[3.0], DType::I64, 0.0).ok);
        assert!(!judge(&[2.0], &[3.0], &[3.0], DType::I64, 0.0).ok);
        assert!(!judge(&[1.0, 2.0], &[1.0], &[1.0], DType::F32, 0.0).ok);
    }
}
