//! Accuracy of the GPU math routines, measured on the host: `MathFn::host` runs the same
//! algorithm the PTX runs (bit for bit), so the maximum ulp error over 1M points per function
//! against an f64 reference is the GPU's error.

use coil_cuda::math::{MathFn, ulp_error};

/// SplitMix64: a small deterministic generator (no dependency).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f32 {
        (lo + (hi - lo) * self.unit()) as f32
    }
    /// |x| log-uniform in [2^lo, 2^hi], random sign when `signed`.
    fn log_uniform(&mut self, lo: f64, hi: f64, signed: bool) -> f32 {
        let m = (lo + (hi - lo) * self.unit()).exp2() as f32;
        if signed && self.next() & 1 == 1 {
            -m
        } else {
            m
        }
    }
}

/// The inputs for `f`: half uniform over the useful range, half log-uniform magnitudes.
pub(crate) fn sample(f: MathFn, n: usize, seed: u64) -> Vec<(f32, f32)> {
    let mut r = Rng(seed);
    (0..n)
        .map(|i| {
            let u = i % 2 == 0;
            match f {
                MathFn::Exp => (
                    if u {
                        r.uniform(-104.0, 89.0)
                    } else {
                        r.log_uniform(-30.0, 6.7, true)
                    },
                    0.0,
                ),
                MathFn::Log => (
                    if u {
                        r.uniform(0.0, 10.0)
                    } else {
                        f32::from_bits((r.next() as u32) % 0x7f80_0000)
                    },
                    0.0,
                ),
                MathFn::Log1p => (
                    if u {
                        r.uniform(-1.0, 1.0)
                    } else {
                        r.log_uniform(-30.0, 60.0, false)
                            * if i % 4 == 1 {
                                -1e-30f32.max(0.0) - 1.0
                            } else {
                                1.0
                            }
                    },
                    0.0,
                ),
                MathFn::Tanh => (
                    if u {
                        r.uniform(-10.0, 10.0)
                    } else {
                        r.log_uniform(-30.0, 4.5, true)
                    },
                    0.0,
                ),
                MathFn::Sigmoid => (
                    if u {
                        r.uniform(-110.0, 110.0)
                    } else {
                        r.log_uniform(-30.0, 7.0, true)
                    },
                    0.0,
                ),
                MathFn::Erf => (
                    if u {
                        r.uniform(-5.0, 5.0)
                    } else {
                        r.log_uniform(-30.0, 3.0, true)
                    },
                    0.0,
                ),
                MathFn::Sin | MathFn::Cos => (
                    match i % 4 {
                        0 => r.uniform(-10.0, 10.0),
                        1 => r.uniform(-2e5, 2e5),
                        _ => r.log_uniform(-30.0, 127.9, true),
                    },
                    0.0,
                ),
                MathFn::Sqrt | MathFn::Rsqrt => {
                    (f32::from_bits((r.next() as u32) % 0x7f80_0000), 0.0)
                }
                MathFn::Pow => {
                    if u {
                        let x = r.log_uniform(-20.0, 20.0, false);
                        (x, r.uniform(-6.0, 6.0))
                    } else {
                        let x = r.log_uniform(-4.0, 4.0, true);
                        (x, (r.uniform(-30.0, 30.0)).round())
                    }
                }
            }
        })
        .map(|(x, y)| {
            if f == MathFn::Log1p && x < -1.0 {
                (-x.abs().min(1.0) * 0.999, y)
            } else {
                (x, y)
            }
        })
        .collect()
}

/// (max ulp, worst x, worst y) over `points`.
pub(crate) fn max_ulp(f: MathFn, points: &[(f32, f32)]) -> (f64, f32, f32) {
    let mut worst = (0.0, 0.0, 0.0);
    for &(x, y) in points {
        let e = ulp_error(f.host(x, y), f.reference(x, y));
        if e > worst.0 || e.is_nan() {
            worst = (e, x, y);
        }
    }
    worst
}

/// The largest error each function may have over the sample, in ulp: the measured maximum
/// (docs/cuda.md) rounded up a little. A change that makes any routine less accurate fails here.
fn bound(f: MathFn) -> f64 {
    match f {
        MathFn::Exp => 1.05,
        MathFn::Log => 0.85,
        MathFn::Log1p => 1.5,
        MathFn::Tanh => 1.35,
        MathFn::Sigmoid => 1.85,
        MathFn::Erf => 1.4,
        MathFn::Sin | MathFn::Cos => 1.6,
        MathFn::Sqrt => 0.5,
        MathFn::Rsqrt => 1.5,
        MathFn::Pow => 0.51,
    }
}

#[test]
fn every_function_is_within_its_bound_over_a_million_points() {
    let mut failures = Vec::new();
    for f in MathFn::ALL {
        let points = sample(f, 1_000_000, 42);
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

/// Every 61st f32 bit pattern (both signs): ~140M evaluations, minutes in release. Run by hand:
/// `cargo test --release -p coil-cuda --test it strided_sweep -- --ignored --nocapture`.
#[test]
#[ignore]
#[allow(clippy::print_stderr)]
fn strided_sweep() {
    for f in MathFn::ALL {
        if f == MathFn::Pow {
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
        eprintln!("{:8} max {:8.3} ulp at x={:e}", f.name(), worst.0, worst.1);
    }
}
