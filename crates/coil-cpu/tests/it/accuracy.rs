//! Accuracy of every math function: a JIT'ed loop kernel `y[i] = f(x[i])` (8-wide vectors plus a
//! scalar tail, rows split over threads) on about a million points across each function's range,
//! edge cases included, against an f64 reference (f32) or the host libm (f64).

use coil_cpu::{
    ArgSpec, FloatKind, HostTarget, JitKernel, JitModule, JitOptions, KernelArgs, MathFn,
    ThreadPool, VMathFn, VMathOptions,
};

use crate::kernels::build_unary_with;

const ROW: u64 = 4099;
const ROWS: u64 = 256;
const ROW_F64: u64 = 1027;

/// Per function: the reference in f64, the range the uniform sweep covers, and the f32 bound.
struct Case {
    f: MathFn,
    reference: fn(f64) -> f64,
    domain: (f64, f64),
    max_ulp_f32: f64,
}

/// `1 / (1 + e^-x)`, written so that `e^-x` never overflows.
fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        x.exp() / (1.0 + x.exp())
    }
}

const CASES: [Case; 10] = [
    Case {
        f: MathFn::Exp,
        reference: f64::exp,
        domain: (-104.0, 89.0),
        max_ulp_f32: 2.0,
    },
    Case {
        f: MathFn::Log,
        reference: f64::ln,
        domain: (0.0, 1e6),
        max_ulp_f32: 2.0,
    },
    Case {
        f: MathFn::Log1p,
        reference: f64::ln_1p,
        domain: (-1.0, 1e4),
        max_ulp_f32: 2.0,
    },
    Case {
        f: MathFn::Tanh,
        reference: f64::tanh,
        domain: (-10.0, 10.0),
        max_ulp_f32: 3.0,
    },
    Case {
        f: MathFn::Sigmoid,
        reference: sigmoid,
        domain: (-110.0, 30.0),
        max_ulp_f32: 3.0,
    },
    Case {
        f: MathFn::Erf,
        reference: libm::erf,
        domain: (-5.0, 5.0),
        max_ulp_f32: 2.0,
    },
    Case {
        f: MathFn::Sin,
        reference: f64::sin,
        domain: (-1e4, 1e4),
        max_ulp_f32: 2.0,
    },
    Case {
        f: MathFn::Cos,
        reference: f64::cos,
        domain: (-1e4, 1e4),
        max_ulp_f32: 2.0,
    },
    Case {
        f: MathFn::Sqrt,
        reference: f64::sqrt,
        domain: (0.0, 1e6),
        max_ulp_f32: 0.5,
    },
    Case {
        f: MathFn::Rsqrt,
        reference: rsqrt,
        domain: (0.0, 1e6),
        max_ulp_f32: 2.0,
    },
];

fn rsqrt(x: f64) -> f64 {
    1.0 / x.sqrt()
}

fn edge_cases() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        1e-45,
        -1e-45,
        1e-40,
        -1e-40,
        1.17549435e-38,
        -1.17549435e-38,
        3.4028235e38,
        -3.4028235e38,
        1e-30,
        1e-10,
        1e-7,
        -1e-7,
        0.625,
        -0.625,
        0.62499994,
        0.9999999,
        1.0000001,
        3.9,
        3.92,
        4.0,
        88.72283,
        88.72284,
        88.8,
        89.0,
        -87.33655,
        -87.4,
        -103.9,
        -103.97,
        -104.0,
        -150.0,
        9.0,
        -9.0,
        20.0,
        -0.99999994,
        -0.9999,
        16777216.0,
        16777218.0,
        16777214.0,
        -16777216.0,
        1e20,
        -1e30,
        8192.0,
        65536.0,
        1e-20,
        -1e-20,
    ];
    for c in [
        std::f32::consts::PI,
        std::f32::consts::FRAC_PI_2,
        std::f32::consts::TAU,
    ] {
        v.extend([c as f64, -(c as f64)]);
    }
    for k in 0..400 {
        v.push(k as f64 * std::f64::consts::FRAC_PI_2);
        v.push(-(k as f64) * std::f64::consts::FRAC_PI_4);
    }
    v
}

/// About `n` inputs: edge cases, a uniform sweep over `domain`, log-uniform magnitudes (both
/// signs), and random bit patterns (every class of float, NaN and ±inf included).
fn inputs(n: usize, domain: (f64, f64), kind: FloatKind, seed: u64) -> Vec<f64> {
    let mut rng = coil_testkit::Rng::new(seed);
    let mut v = edge_cases();
    let (lo, hi) = domain;
    let max_exp = match kind {
        FloatKind::F32 => 128.0,
        FloatKind::F64 => 1024.0,
    };
    while v.len() < n {
        let x = match v.len() % 4 {
            0 | 1 => lo + (hi - lo) * rng.unit(),
            2 => {
                let mag = 2f64.powf(-40.0 + (hi.abs().max(lo.abs()).log2() + 40.0) * rng.unit());
                if rng.next_u64() & 1 == 0 && lo < 0.0 {
                    -mag
                } else {
                    mag
                }
            }
            _ => match kind {
                FloatKind::F32 => f32::from_bits(rng.next_u64() as u32) as f64,
                FloatKind::F64 => {
                    // Random magnitude over the whole exponent range (uniform bits are mostly huge).
                    let mag = 2f64.powf(-max_exp + 2.0 * max_exp * rng.unit());
                    if rng.next_u64() & 1 == 0 { -mag } else { mag }
                }
            },
        };
        v.push(x);
    }
    v.truncate(n);
    v
}

fn ulp_f32(r: f64) -> f64 {
    let e = if r == 0.0 {
        -126
    } else {
        (r.abs().log2().floor() as i32).max(-126)
    };
    2f64.powi(e - 23)
}

fn ulp_f64(r: f64) -> f64 {
    let e = if r == 0.0 {
        -1022
    } else {
        (r.abs().log2().floor() as i64).max(-1022)
    };
    // 2^(e - 52), built from bits (`powi` underflows through 1 / 2^1074).
    if e - 52 >= -1022 {
        f64::from_bits(((e - 52 + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e - 52 + 1074))
    }
}

/// Error of `y` against the real `r`, in units of the last place of `r`'s f32 neighbourhood;
/// infinities count as ±2^128, NaN must match NaN.
fn err_f32(y: f32, r: f64) -> f64 {
    if r.is_nan() || y.is_nan() {
        return if r.is_nan() && y.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let cap = |v: f64| v.clamp(-(2f64.powi(128)), 2f64.powi(128));
    let (y, r) = (cap(y as f64), cap(r));
    (y - r).abs() / ulp_f32(r)
}

fn err_f64(y: f64, r: f64) -> f64 {
    if r.is_nan() || y.is_nan() {
        return if r.is_nan() && y.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if r.is_infinite() || y.is_infinite() {
        return if y == r { 0.0 } else { f64::INFINITY };
    }
    (y - r).abs() / ulp_f64(r)
}

fn compile_unary(target: &HostTarget, f: MathFn, kind: FloatKind, row: u64) -> JitModule {
    compile_unary_with(target, (f, VMathOptions::default()), kind, row)
}

fn compile_unary_with(
    target: &HostTarget,
    (f, options): (MathFn, VMathOptions),
    kind: FloatKind,
    row: u64,
) -> JitModule {
    let name = format!("unary_{}", f.name());
    JitModule::compile(&name, target, &JitOptions::default(), |cx, module| {
        build_unary_with(cx, module, &name, (f, options), kind, row, 8)
    })
    .unwrap_or_else(|e| panic!("{} compiles: {e}", f.name()))
}

/// Runs the kernel on `x` (rows of `row`), returning `y`.
fn run<T: coil_cpu::Element + Default>(
    jit: &JitModule,
    pool: &ThreadPool,
    x: &[T],
    row: u64,
) -> Vec<T> {
    let mut y = vec![T::default(); x.len()];
    let bytes = std::mem::size_of_val(x);
    let rows = (x.len() as u64 / row) as i64;
    // SAFETY: `build_unary` reads x[r*row..(r+1)*row] and writes the same range of y for each
    // row r in start..end, so disjoint row ranges write disjoint bytes.
    let kernel = unsafe {
        JitKernel::new(
            jit,
            jit.function_names()[0],
            vec![
                ArgSpec {
                    bytes,
                    writes: false,
                },
                ArgSpec {
                    bytes,
                    writes: true,
                },
            ],
            rows,
        )
    }
    .expect("kernel found");
    kernel
        .run(pool, KernelArgs::new().input(x).output(&mut y))
        .expect("kernel runs");
    y
}

#[allow(clippy::print_stderr)] // The measured accuracy table is this test's report.
#[test]
fn f32_functions_are_within_their_ulp_bounds() {
    let target = HostTarget::detect().unwrap();
    let pool = ThreadPool::new().unwrap();
    let n = (ROW * ROWS) as usize;
    let mut failures = Vec::new();
    for (seed, case) in CASES.iter().enumerate() {
        let jit = compile_unary(&target, case.f, FloatKind::F32, ROW);
        let x: Vec<f32> = inputs(n, case.domain, FloatKind::F32, seed as u64 + 1)
            .into_iter()
            .map(|v| v as f32)
            .collect();
        let y = run(&jit, &pool, &x, ROW);
        let (mut worst, mut at) = (0.0f64, 0.0f32);
        for (&xi, &yi) in x.iter().zip(&y) {
            let e = err_f32(yi, (case.reference)(xi as f64));
            if e > worst {
                (worst, at) = (e, xi);
            }
        }
        eprintln!(
            "f32 {:8} max error {worst:.3} ulp at x = {at:e} (bound {}) over {n} points",
            case.f.name(),
            case.max_ulp_f32
        );
        if worst > case.max_ulp_f32 {
            failures.push(format!("{}: {worst} ulp at {at:e}", case.f.name()));
        }
    }
    assert!(failures.is_empty(), "over the bound: {failures:?}");
}

/// The table `exp` (AVX2 only) over exp's range, its edges, and every eighth of `ln 2` near
/// the short path's limits (where the table index and the exponent step change).
#[allow(clippy::print_stderr)] // The measured error is this test's report.
#[test]
fn f32_table_exp_is_within_2_ulp() {
    let target = HostTarget::detect().unwrap();
    if !target.has_feature("avx2") {
        eprintln!("skipped: the table exp needs AVX2, which this host lacks");
        return;
    }
    let pool = ThreadPool::new().unwrap();
    let mut x: Vec<f32> = inputs((ROW * ROWS) as usize, (-104.0, 89.0), FloatKind::F32, 77)
        .into_iter()
        .map(|v| v as f32)
        .collect();
    // Near each n (in eighths of ln 2), one vector of points that all round to n, and one
    // around the half step to n + 1 (where the table index changes). Each group fills one
    // 8-lane vector of a row (a row holds 512 of them and a 3-element scalar tail), so the
    // groups with |n| <= 1000 take the table path: none shares a vector with a lane beyond it.
    let step = std::f64::consts::LN_2 / 8.0;
    let mut groups: Vec<[f32; 8]> = Vec::new();
    for n in (-1010..=-990).chain(-20..=20).chain(990..=1010) {
        let at = n as f64 * step;
        let near = [0.0, 0.25, -0.25, 0.125, -0.125, 0.3, -0.3, 0.05];
        groups.push(near.map(|f| (at + f * step) as f32));
        let half = [-3e-6, -2e-6, -1e-6, 0.0, 1e-6, 2e-6, 3e-6, 4e-6];
        groups.push(half.map(|f| (at + (0.5 + f) * step) as f32));
    }
    assert_eq!(ROW % 8, 3);
    for row in groups.chunks(ROW as usize / 8) {
        let start = x.len();
        x.extend(row.iter().flatten());
        x.resize(start + ROW as usize, 0.5);
    }
    let options = VMathOptions { table_exp: true };
    let jit = compile_unary_with(&target, (MathFn::Exp, options), FloatKind::F32, ROW);
    assert!(
        jit.optimized_ir().contains("llvm.x86.avx2.permps"),
        "the table exp looks its table up with vpermps"
    );
    let y = run(&jit, &pool, &x, ROW);
    let (mut worst, mut at) = (0.0f64, 0.0f32);
    for (&xi, &yi) in x.iter().zip(&y) {
        let e = err_f32(yi, (xi as f64).exp());
        if e > worst {
            (worst, at) = (e, xi);
        }
    }
    eprintln!("f32 table exp max error {worst:.3} ulp at x = {at:e}");
    assert!(worst <= 2.0, "table exp: {worst} ulp at {at:e}");
}

#[allow(clippy::print_stderr)] // The measured accuracy table is this test's report.
#[test]
fn f64_functions_match_libm_within_4_ulp() {
    let target = HostTarget::detect().unwrap();
    let pool = ThreadPool::new().unwrap();
    let n = (ROW_F64 * ROWS) as usize;
    let mut failures = Vec::new();
    for (seed, case) in CASES.iter().enumerate() {
        let jit = compile_unary(&target, case.f, FloatKind::F64, ROW_F64);
        let x = inputs(n, case.domain, FloatKind::F64, 100 + seed as u64);
        let y = run(&jit, &pool, &x, ROW_F64);
        let (mut worst, mut at) = (0.0f64, 0.0f64);
        for (&xi, &yi) in x.iter().zip(&y) {
            let e = err_f64(yi, (case.reference)(xi));
            if e > worst {
                (worst, at) = (e, xi);
            }
        }
        let how = if case.f.vectorized(FloatKind::F64) {
            "vector"
        } else {
            "libm per lane"
        };
        eprintln!(
            "f64 {:8} max error {worst:.3} ulp vs libm at x = {at:e} ({how})",
            case.f.name()
        );
        if worst > 4.0 {
            failures.push(format!("{}: {worst} ulp at {at:e}", case.f.name()));
        }
    }
    assert!(failures.is_empty(), "over 4 ulp: {failures:?}");
}

#[test]
fn special_values_follow_ieee() {
    let target = HostTarget::detect().unwrap();
    let pool = ThreadPool::with_threads(1).unwrap();
    let inf = f32::INFINITY;
    let nan = f32::NAN;
    // (function, input, expected); the row is padded to 9 values so both paths (vector, tail) run.
    let checks: &[(MathFn, f32, f32)] = &[
        (MathFn::Exp, inf, inf),
        (MathFn::Exp, -inf, 0.0),
        (MathFn::Exp, 100.0, inf),
        (MathFn::Exp, -0.0, 1.0),
        (MathFn::Log, 0.0, -inf),
        (MathFn::Log, -0.0, -inf),
        (MathFn::Log, inf, inf),
        (MathFn::Log, -1.0, nan),
        (MathFn::Log, 1.0, 0.0),
        (MathFn::Log1p, -1.0, -inf),
        (MathFn::Log1p, -0.0, -0.0),
        (MathFn::Log1p, inf, inf),
        (MathFn::Log1p, -2.0, nan),
        (MathFn::Tanh, -0.0, -0.0),
        (MathFn::Tanh, inf, 1.0),
        (MathFn::Tanh, -inf, -1.0),
        (MathFn::Sigmoid, inf, 1.0),
        (MathFn::Sigmoid, -inf, 0.0),
        (MathFn::Sigmoid, 0.0, 0.5),
        (MathFn::Erf, -0.0, -0.0),
        (MathFn::Erf, inf, 1.0),
        (MathFn::Erf, -inf, -1.0),
        (MathFn::Sin, -0.0, -0.0),
        (MathFn::Sin, inf, nan),
        (MathFn::Cos, -inf, nan),
        (MathFn::Cos, 0.0, 1.0),
        (MathFn::Sqrt, -0.0, -0.0),
        (MathFn::Sqrt, -1.0, nan),
        (MathFn::Rsqrt, 0.0, inf),
        (MathFn::Rsqrt, -0.0, -inf),
        (MathFn::Rsqrt, inf, 0.0),
    ];
    for f in MathFn::UNARY {
        let jit = compile_unary(&target, f, FloatKind::F32, 9);
        let mut x = vec![0.0f32; 18];
        let mut expect = Vec::new();
        for (k, &(_, xi, yi)) in checks.iter().filter(|c| c.0 == f).enumerate() {
            // Lane k of the vector part and element 8 (the scalar tail) of row 1.
            x[k] = xi;
            expect.push((k, xi, yi));
        }
        x[7] = nan;
        expect.push((7, nan, nan));
        x[17] = x[0];
        expect.push((17, x[0], expect[0].2));
        let y = run(&jit, &pool, &x, 9);
        for (k, xi, yi) in expect {
            let ok = (yi.is_nan() && y[k].is_nan())
                || (yi == y[k] && yi.is_sign_negative() == y[k].is_sign_negative());
            assert!(ok, "{}({xi:e}) = {:e}, expected {yi:e}", f.name(), y[k]);
        }
    }
}

/// `VMath::call_exp_in_range` is `exp`'s short path without the range test: over its whole
/// range (±86 for f32, ±700 for f64: a dense sweep, the limits, signed zeros and tiny values)
/// it gives `VMath::call`'s bits, table exp and polynomial, vector lanes and scalar tail.
#[test]
fn exp_in_range_gives_the_bits_of_exp() {
    let target = HostTarget::detect().unwrap();
    let pool = ThreadPool::new().unwrap();
    let mut cases = vec![
        (FloatKind::F32, VMathOptions { table_exp: false }),
        (FloatKind::F64, VMathOptions { table_exp: false }),
    ];
    if target.has_feature("avx2") {
        cases.push((FloatKind::F32, VMathOptions { table_exp: true }));
    }
    for (kind, options) in cases {
        let limit = coil_cpu::vmath::exp_in_range_limit(kind);
        let n = (ROW * 64) as usize;
        let mut x: Vec<f64> = (0..n)
            .map(|i| -limit + 2.0 * limit * i as f64 / (n - 1) as f64)
            .collect();
        x.extend([limit, -limit, 0.0, -0.0, 1e-30, -1e-30, 1e-6, -1e-6]);
        x.resize(x.len().div_ceil(ROW as usize) * ROW as usize, 0.5);
        let compile = |in_range: bool| {
            JitModule::compile("exp", &target, &JitOptions::default(), |cx, module| {
                let call: &crate::kernels::UnaryCall<'_, '_> = &|vm, b, v| {
                    if in_range {
                        vm.call_exp_in_range(b, v)
                    } else {
                        vm.call(b, MathFn::Exp, v)
                    }
                };
                crate::kernels::build_unary_by(cx, module, "exp", (call, options), kind, ROW, 8)
            })
            .expect("compiles")
        };
        let (plain, short) = (compile(false), compile(true));
        let differ = |a: &[u64], b: &[u64]| a.iter().zip(b).position(|(p, q)| p != q);
        let bad = match kind {
            FloatKind::F32 => {
                let x: Vec<f32> = x.iter().map(|&v| v as f32).collect();
                let bits = |jit| {
                    run(jit, &pool, &x, ROW)
                        .iter()
                        .map(|v| u64::from(v.to_bits()))
                        .collect::<Vec<_>>()
                };
                differ(&bits(&plain), &bits(&short))
            }
            FloatKind::F64 => {
                let bits = |jit| {
                    run(jit, &pool, &x, ROW)
                        .iter()
                        .map(|v| v.to_bits())
                        .collect::<Vec<_>>()
                };
                differ(&bits(&plain), &bits(&short))
            }
        };
        assert_eq!(
            bad.map(|i| x[i]),
            None,
            "{kind:?} {options:?}: in-range exp differs"
        );
    }
}

/// `fmod` is C's, bit for bit, on random bit patterns of f32 and f64 (the vectors that take
/// the exact quotient path and the ones that take `frem`), against Rust's `%`.
#[test]
fn fmod_is_exact_on_random_bits() {
    let backend: std::sync::Arc<dyn coil_codegen::Backend> =
        std::sync::Arc::new(coil_cpu::CpuBackend::new().unwrap());
    let failures = coil_testkit::fmod_is_exact_on_random_bits(&backend);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
