//! Accuracy of the GPU math routines, measured on the host: `MathFn::host` runs the same
//! algorithm the PTX runs (bit for bit), so the maximum ulp error over 1M points per function
//! against an f64 reference is the GPU's error.

use coil_ptx::math::{MathFn, MathFnExt, accuracy_inputs, ulp_error};

/// (max ulp, worst x, worst y) over `points`.
fn max_ulp(f: MathFn, points: &[(f32, f32)]) -> (f64, f32, f32) {
    let mut worst = (0.0, 0.0, 0.0);
    for &(x, y) in points {
        let e = ulp_error(f.host(x, y), f.reference(x, y));
        if e > worst.0 || e.is_nan() {
            worst = (e, x, y);
        }
    }
    worst
}

fn bound(f: MathFn) -> f64 {
    f.max_ulp()
}

#[test]
fn every_function_is_within_its_bound_over_a_million_points() {
    let mut failures = Vec::new();
    for f in MathFn::ALL {
        let points = accuracy_inputs(f, 1_000_000, 42);
        let (e, x, y) = max_ulp(f, &points);
        if e > bound(f) {
            failures.push(format!(
                "{}: {e:.3} ulp at x={x:e} y={y:e} (bound {})",
                f.name(),
                bound(f)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const SPECIALS: [f32; 24] = [
    0.0,
    -0.0,
    1e-45,
    -1e-45,
    1.1754942e-38,
    -1.1754942e-38,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    -2.0,
    3.0,
    -3.0,
    f32::MAX,
    -f32::MAX,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    88.72284,
    -103.0,
    1e30,
];

#[test]
fn special_values_match_libm_including_the_sign_of_zero() {
    let mut failures = Vec::new();
    for f in MathFn::ALL {
        let ys: &[f32] = if f == MathFn::Pow { &SPECIALS } else { &[0.0] };
        for &x in &SPECIALS {
            for &y in ys {
                let got = f.host(x, y);
                let want = f.reference(x, y);
                let e = ulp_error(got, want);
                let sign_ok = want != 0.0 || got.is_sign_negative() == want.is_sign_negative();
                if e > bound(f) || !sign_ok {
                    failures.push(format!(
                        "{}({x:e}, {y:e}) = {got:e}, libm {want:e} ({e} ulp)",
                        f.name()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ulp_error_counts_in_units_of_the_reference() {
    assert_eq!(ulp_error(1.0, 1.0), 0.0);
    assert_eq!(ulp_error(1.0 + f32::EPSILON, 1.0), 1.0);
    assert_eq!(ulp_error(f32::NAN, f64::NAN), 0.0);
    assert_eq!(ulp_error(1.0, f64::NAN), f64::INFINITY);
    assert_eq!(ulp_error(f32::INFINITY, 1e39), 0.0);
    assert_eq!(
        ulp_error(f32::from_bits(3), 2.0 * 1.401298464324817e-45),
        1.0
    );
}

/// The accuracy report in docs/cuda.md: the maximum error over the 1M accuracy inputs and over
/// every 61st f32 bit pattern of both signs (~140M evaluations; minutes in release). Run by
/// hand: `cargo test --release -p coil-cuda --test it accuracy_report -- --ignored --nocapture`.
#[test]
#[ignore]
#[allow(clippy::print_stderr)]
fn accuracy_report() {
    eprintln!("| function | 1M inputs: max ulp (at x) | every 61st f32: max ulp (at x) |");
    for f in MathFn::ALL {
        let (sample, sx, _) = max_ulp(f, &accuracy_inputs(f, 1_000_000, 42));
        if f == MathFn::Pow {
            eprintln!("| {} | {sample:.3} ({sx:e}) | - |", f.name());
            continue;
        }
        let mut worst = (0.0f64, 0.0f32);
        let mut bits = 0u32;
        while bits < 0x7f80_0000 {
            for x in [f32::from_bits(bits), -f32::from_bits(bits)] {
                let e = ulp_error(f.host(x, 0.0), f.reference(x, 0.0));
                if e > worst.0 {
                    worst = (e, x);
                }
            }
            bits += 61;
        }
        eprintln!(
            "| {} | {sample:.3} ({sx:e}) | {:.3} ({:e}) |",
            f.name(),
            worst.0,
            worst.1
        );
    }
}

/// The 16-bit results' sine and cosine (`sin_relaxed`, `cos_relaxed`: one reduction by π, one
/// odd polynomial): within 3 ulp of f32 (2.34 the worst seen) over every 613th f32 bit pattern of both signs (the
/// fast path's range and the slow path's beyond it), the sign of zero kept, infinities NaN; rounded to bf16, at most one bf16
/// ulp from the correctly rounded value (and only where f32's few ulps cross a bf16 tie).
#[test]
fn relaxed_sin_and_cos_are_within_a_few_f32_ulps_everywhere() {
    use coil_ptx::math::{Host, cos_relaxed, sin_relaxed};
    let bf16 = |v: f64| half::bf16::from_f64(v).to_bits();
    let mut failures = Vec::new();
    for (name, f, reference) in [
        (
            "sin",
            sin_relaxed as fn(&mut Host, f32) -> f32,
            f64::sin as fn(f64) -> f64,
        ),
        ("cos", cos_relaxed, f64::cos),
    ] {
        let mut worst = 0.0f64;
        let mut bits = 0u32;
        while bits < 0x7f80_0000 {
            for x in [f32::from_bits(bits), -f32::from_bits(bits)] {
                let got = f(&mut Host, x);
                let want = reference(f64::from(x));
                let e = ulp_error(got, want);
                worst = worst.max(e);
                let (gb, wb) = (bf16(f64::from(got)), bf16(want));
                let step = (i32::from(gb) - i32::from(wb)).abs();
                if e > 3.0
                    || step > 1
                    || (want == 0.0 && got.is_sign_negative() != x.is_sign_negative())
                {
                    failures.push(format!(
                        "{name}({x:e}) = {got:e}, libm {want:e} ({e:.2} ulp)"
                    ));
                }
            }
            bits += 613;
        }
        assert!(worst > 0.0, "{name}: no error measured at all");
        for x in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
            if !f(&mut Host, x).is_nan() {
                failures.push(format!("{name}({x}) is not NaN"));
            }
        }
    }
    for z in [0.0f32, -0.0] {
        let s = sin_relaxed(&mut Host, z);
        if s != 0.0 || s.is_sign_negative() != z.is_sign_negative() {
            failures.push(format!("sin({z:e}) = {s:e}"));
        }
        // r = -π/2 in three parts: the polynomial's 1 is within an ulp (below 1).
        let c = cos_relaxed(&mut Host, z);
        if (1.0 - c) > f32::EPSILON / 2.0 || c > 1.0 {
            failures.push(format!("cos({z:e}) = {c:e}"));
        }
    }
    failures.truncate(20);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
