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
