//! Accurate f32 math for the GPU, written once against [`MathOps`] and instantiated twice: as
//! PTX (the [`KernelBuilder`](crate::ptx::KernelBuilder) implements `MathOps`; each call emits one instruction) and on the
//! host ([`Host`]; each call computes exactly what that PTX instruction computes). The host
//! instance is therefore a bit-exact model of the GPU code, which is how CI measures accuracy
//! without a GPU, and the GPU self-check compares the two bit for bit.
//!
//! Every routine uses only IEEE-exact PTX operations (`add.rn`, `mul.rn`, `fma.rn`, `div.rn`,
//! `rcp.rn`, `sqrt.rn`, conversions, integer ops): no `ex2.approx`/`lg2.approx`, whose results
//! the host could only approximate. The polynomials are short (6 to 9 fmas), so memory-bound
//! kernels do not notice them.
//!
//! | function | method | max error (ulp) |
//! | --- | --- | --- |
//! | `exp` | Cody-Waite `x = k ln2 + r`, degree-6 polynomial (Cephes), 2^k in two steps (exact subnormals) | 1.00 |
//! | `log` | `x = 2^e m`, `m` in [√½, √2), degree-9 polynomial (Cephes) | 0.81 |
//! | `log1p` | `log(u) + (x - (u - 1)) / u` with `u = 1 + x` | 1.44 |
//! | `tanh` | odd polynomial below 0.625, `1 - 2/(exp(2x)+1)` above | 1.32 |
//! | `sigmoid` | `e = exp(-abs(x))`: `1/(1+e)` or `e/(1+e)`, corrected for the rounding of `1+e` | 1.81 |
//! | `erf` | `x P(x²)` below 1, `1 - exp(-Q(x))` above (fitted here) | 1.37 |
//! | `sin`, `cos` | 3-part Cody-Waite below 105615, Payne-Hanek (2/π table, 64-bit integer product) above; Cephes polynomials | 1.57 |
//! | `sqrt`, `rsqrt` | `sqrt.rn` (correctly rounded); `rcp.rn(sqrt.rn(x))` | 0.5, 1.49 |
//! | `pow` | `exp(y log(abs(x)))` in f64 (series), one rounding to f32; C99 special cases | 0.50 |
//!
//! Errors are the maxima measured over [`accuracy_inputs`] and a sweep of every 61st f32 (see
//! `docs/cuda.md`); [`MathFn::max_ulp`] holds the bounds the tests assert.

mod funcs;
mod ops;

pub use funcs::{
    cos, cos_relaxed, erf, exp, log, log1p, pow, rsqrt, sigmoid, sin, sin_relaxed, sqrt, tanh,
};
pub use ops::{Host, MathOps, Table};

// ---- the function table -------------------------------------------------------------------

pub use coil_graph::MathFn;

/// What each [`MathFn`] is on the GPU: its PTX (through [`MathOps`]) and the host model of
/// the same operations, bit for bit.
pub trait MathFnExt {
    /// Applies the function (`y` is read by binary functions only).
    fn apply<M: MathOps + ?Sized>(self, m: &mut M, x: M::F, y: M::F) -> M::F;
    /// What the GPU computes for `x` (and `y`), evaluated on the host.
    fn host(self, x: f32, y: f32) -> f32;
    /// The exact value in f64 (std's f64 libm, `libm::erf`): the reference accuracy is
    /// measured against.
    fn reference(self, x: f32, y: f32) -> f64;
    /// The documented accuracy: the largest error in ulp over [`accuracy_inputs`] (the measured
    /// maximum, rounded up a little; `docs/cuda.md` has the measurements).
    fn max_ulp(self) -> f64;
}

impl MathFnExt for MathFn {
    fn apply<M: MathOps + ?Sized>(self, m: &mut M, x: M::F, y: M::F) -> M::F {
        match self {
            MathFn::Exp => exp(m, x),
            MathFn::Log => log(m, x),
            MathFn::Log1p => log1p(m, x),
            MathFn::Tanh => tanh(m, x),
            MathFn::Sigmoid => sigmoid(m, x),
            MathFn::Erf => erf(m, x),
            MathFn::Sin => sin(m, x),
            MathFn::Cos => cos(m, x),
            MathFn::Sqrt => sqrt(m, x),
            MathFn::Rsqrt => rsqrt(m, x),
            MathFn::Pow => pow(m, x, y),
        }
    }

    fn host(self, x: f32, y: f32) -> f32 {
        self.apply(&mut Host, x, y)
    }

    fn reference(self, x: f32, y: f32) -> f64 {
        let (x, y) = (f64::from(x), f64::from(y));
        match self {
            MathFn::Exp => x.exp(),
            MathFn::Log => x.ln(),
            MathFn::Log1p => x.ln_1p(),
            MathFn::Tanh => x.tanh(),
            MathFn::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            MathFn::Erf => libm::erf(x),
            MathFn::Sin => x.sin(),
            MathFn::Cos => x.cos(),
            MathFn::Sqrt => x.sqrt(),
            MathFn::Rsqrt => 1.0 / x.sqrt(),
            MathFn::Pow => x.powf(y),
        }
    }

    fn max_ulp(self) -> f64 {
        match self {
            MathFn::Exp => 1.05,
            MathFn::Log => 0.85,
            MathFn::Log1p => 1.5,
            MathFn::Tanh => 1.35,
            MathFn::Sigmoid => 1.95,
            MathFn::Erf => 1.4,
            MathFn::Sin | MathFn::Cos => 1.6,
            MathFn::Sqrt => 0.5,
            MathFn::Rsqrt => 1.5,
            MathFn::Pow => 0.51,
        }
    }
}

/// SplitMix64: a small deterministic generator.
struct SplitMix(u64);

impl SplitMix {
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
    /// |x| log-uniform in [2^lo, 2^hi], with a random sign when `signed`.
    fn log_uniform(&mut self, lo: f64, hi: f64, signed: bool) -> f32 {
        let m = (lo + (hi - lo) * self.unit()).exp2() as f32;
        if signed && self.next() & 1 == 1 {
            -m
        } else {
            m
        }
    }
    fn positive_bits(&mut self) -> f32 {
        f32::from_bits((self.next() as u32) % 0x7f80_0000)
    }
}

/// The `n` inputs (x, y) accuracy is measured over for `f` (deterministic in `seed`): half
/// uniform over the range models use, half spread over magnitudes (log-uniform, or random bit
/// patterns over every positive float for `log`, `sqrt`, `rsqrt`; up to 2^128 for `sin`/`cos`).
pub fn accuracy_inputs(f: MathFn, n: usize, seed: u64) -> Vec<(f32, f32)> {
    let mut r = SplitMix(seed);
    (0..n)
        .map(|i| {
            let even = i % 2 == 0;
            let x = match f {
                MathFn::Exp if even => r.uniform(-104.0, 89.0),
                MathFn::Exp => r.log_uniform(-30.0, 6.7, true),
                MathFn::Log if even => r.uniform(0.0, 10.0),
                MathFn::Log | MathFn::Sqrt | MathFn::Rsqrt => r.positive_bits(),
                MathFn::Log1p => match i % 4 {
                    0 | 2 => r.uniform(-1.0, 1.0),
                    1 => -r.log_uniform(-30.0, -0.0001, false),
                    _ => r.log_uniform(-30.0, 60.0, false),
                },
                MathFn::Tanh if even => r.uniform(-10.0, 10.0),
                MathFn::Tanh => r.log_uniform(-30.0, 4.5, true),
                MathFn::Sigmoid if even => r.uniform(-110.0, 110.0),
                MathFn::Sigmoid => r.log_uniform(-30.0, 7.0, true),
                MathFn::Erf if even => r.uniform(-5.0, 5.0),
                MathFn::Erf => r.log_uniform(-30.0, 3.0, true),
                MathFn::Sin | MathFn::Cos => match i % 4 {
                    0 => r.uniform(-10.0, 10.0),
                    1 => r.uniform(-2e5, 2e5),
                    _ => r.log_uniform(-30.0, 127.9, true),
                },
                MathFn::Pow if even => r.log_uniform(-20.0, 20.0, false),
                MathFn::Pow => r.log_uniform(-4.0, 4.0, true),
            };
            let y = match f {
                MathFn::Pow if even => r.uniform(-6.0, 6.0),
                MathFn::Pow => r.uniform(-30.0, 30.0).round(),
                _ => 0.0,
            };
            (x, y)
        })
        .collect()
}

/// The error of `got` against the exact value `want`, in units in the last place of the f32
/// nearest `want` (subnormal ulps below 2^-126). NaN against NaN and equal infinities are 0;
/// any other mismatch of class is infinite.
pub fn ulp_error(got: f32, want: f64) -> f64 {
    if want.is_nan() || got.is_nan() {
        return if want.is_nan() && got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let want_f = want as f32;
    if want_f.is_infinite() || got.is_infinite() {
        if got == want_f {
            return 0.0;
        }
        if want.is_infinite() {
            return f64::INFINITY;
        }
        // One side overflowed and the other did not: count inf as ±2^128.
        let g = if got.is_infinite() {
            2f64.powi(128).copysign(f64::from(got))
        } else {
            f64::from(got)
        };
        return (g - want).abs() / ulp_of(f32::MAX);
    }
    (f64::from(got) - want).abs() / ulp_of(want_f)
}

fn ulp_of(v: f32) -> f64 {
    let a = v.abs();
    if a < f32::MIN_POSITIVE {
        return f64::from(f32::from_bits(1));
    }
    let exp = ((a.to_bits() >> 23) as i32) - 127;
    2f64.powi(exp - 23)
}
