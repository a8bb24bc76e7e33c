//! Buffers as bytes of a dtype: filling them, reading their elements, the blessed form of an
//! output and the comparison of a backend's output with the evaluator's.

use coil_kernel::{DType, format_float};
use half::{bf16, f16};

use crate::Fill;

/// A buffer's contents.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// Its name in the kernel (`x`, `buf1`).
    pub name: String,
    /// Element type.
    pub dtype: DType,
    /// The bytes, `len * itemsize`.
    pub bytes: Vec<u8>,
}

/// Element `i` as f64 (integers and bools exactly; `None` past the end).
fn element(dtype: DType, bytes: &[u8], i: usize) -> Option<f64> {
    let w = dtype.itemsize();
    let b = bytes.get(i * w..(i + 1) * w)?;
    let arr = |n: usize| -> [u8; 8] {
        let mut a = [0u8; 8];
        a[..n].copy_from_slice(&b[..n]);
        a
    };
    Some(match dtype {
        DType::Bool => f64::from(b[0] != 0),
        DType::U8 => f64::from(b[0]),
        DType::I8 => f64::from(b[0] as i8),
        DType::I16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
        DType::I32 => f64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DType::I64 => i64::from_le_bytes(arr(8)) as f64,
        DType::F16 => f16::from_le_bytes([b[0], b[1]]).to_f64(),
        DType::BF16 => bf16::from_le_bytes([b[0], b[1]]).to_f64(),
        DType::F32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DType::F64 => f64::from_le_bytes(arr(8)),
    })
}

fn encode(dtype: DType, x: f64, out: &mut Vec<u8>) {
    match dtype {
        DType::Bool => out.push(u8::from(x != 0.0)),
        DType::U8 | DType::I8 => out.push(dtype.wrap(x as i64) as u8),
        DType::I16 => out.extend((dtype.wrap(x as i64) as i16).to_le_bytes()),
        DType::I32 => out.extend((x as i32).to_le_bytes()),
        DType::I64 => out.extend((x as i64).to_le_bytes()),
        DType::F16 => out.extend(f16::from_f64(x).to_le_bytes()),
        DType::BF16 => out.extend(bf16::from_f64(x).to_le_bytes()),
        DType::F32 => out.extend((x as f32).to_le_bytes()),
        DType::F64 => out.extend(x.to_le_bytes()),
    }
}

/// splitmix64: a small deterministic generator, so every backend sees the same inputs.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: &str) -> Rng {
        Rng(seed.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        }))
    }

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
}

const SPECIALS: [f64; 10] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f32::MIN_POSITIVE as f64,
    1e-40,
    f32::MAX as f64,
];

impl Buffer {
    /// `len` elements of `dtype` filled as `fill` says.
    pub(crate) fn filled(
        name: &str,
        dtype: DType,
        len: usize,
        fill: Fill,
        rng: &mut Rng,
    ) -> Buffer {
        let mut bytes = Vec::with_capacity(len * dtype.itemsize());
        for i in 0..len {
            let x = match fill {
                Fill::Zeros => 0.0,
                Fill::Ints(lo, hi) => (lo + (rng.next() % (hi - lo).max(1) as u64) as i64) as f64,
                Fill::Floats(lo, hi) if dtype == DType::Bool => {
                    f64::from(rng.unit() * (hi - lo) + lo > 0.0)
                }
                Fill::Floats(lo, hi) => lo + rng.unit() * (hi - lo),
                Fill::Specials => match SPECIALS.get(i) {
                    Some(&s) => s,
                    None => rng.unit() * 8.0 - 4.0,
                },
            };
            encode(dtype, x, &mut bytes);
        }
        Buffer {
            name: name.to_string(),
            dtype,
            bytes,
        }
    }

    /// Elements.
    pub fn len(&self) -> usize {
        self.bytes.len() / self.dtype.itemsize()
    }

    /// True when it has no elements.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The elements as f64.
    pub fn values(&self) -> Vec<f64> {
        (0..self.len())
            .filter_map(|i| element(self.dtype, &self.bytes, i))
            .collect()
    }
}

/// Outputs up to this many elements are blessed whole; longer ones as a hash, a sum and their
/// first elements.
const WHOLE: usize = 64;

fn show(dtype: DType, x: f64) -> String {
    if dtype.is_float() {
        format_float(x)
    } else {
        format!("{}", x as i64)
    }
}

/// The blessed form of the evaluator's outputs, one line per output buffer:
/// `arg2: f32[7] = 0.5, -1.25, ...`, or for longer ones
/// `arg2: f32[4096] hash=0123abcd sum=12.5 first=0.5, ...` (the hash of the bytes).
pub fn expect_lines(outputs: &[(String, Buffer)]) -> Vec<String> {
    outputs
        .iter()
        .map(|(arg, b)| {
            let vals = b.values();
            let list = |v: &[f64]| {
                v.iter()
                    .map(|&x| show(b.dtype, x))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if vals.is_empty() {
                format!("{arg}: {}[0] (empty)", b.dtype)
            } else if vals.len() <= WHOLE {
                format!("{arg}: {}[{}] = {}", b.dtype, vals.len(), list(&vals))
            } else {
                let hash = b.bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
                    (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3)
                });
                let sum: f64 = vals.iter().sum();
                format!(
                    "{arg}: {}[{}] hash={hash:016x} sum={} first={}",
                    b.dtype,
                    vals.len(),
                    format_float(sum),
                    list(&vals[..8])
                )
            }
        })
        .collect()
}

/// How far a backend's float may be from the evaluator's (which computes in f64 and rounds
/// each value to its dtype): `atol + rtol * |reference|`, by dtype.
fn tolerance(dtype: DType) -> (f64, f64) {
    match dtype {
        DType::F64 => (1e-12, 1e-12),
        DType::F32 => (1e-5, 1e-5),
        DType::F16 => (2e-3, 2e-3),
        DType::BF16 => (1.6e-2, 1.6e-2),
        DType::Bool | DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => (0.0, 0.0),
    }
}

/// A backend's outputs against the evaluator's: the first differences (at most 5 per
/// buffer), empty when they agree. NaN matches NaN; infinities must match exactly.
pub fn compare(reference: &[(String, Buffer)], got: &[(String, Buffer)]) -> Vec<String> {
    let mut out = Vec::new();
    for ((arg, want), (_, have)) in reference.iter().zip(got) {
        let (atol, rtol) = tolerance(want.dtype);
        let (w, h) = (want.values(), have.values());
        if w.len() != h.len() {
            out.push(format!("{arg}: {} elements, expected {}", h.len(), w.len()));
            continue;
        }
        let mut bad = 0;
        for (i, (&x, &y)) in w.iter().zip(&h).enumerate() {
            let same = (x.is_nan() && y.is_nan())
                || x == y
                || (x.is_finite() && y.is_finite() && (x - y).abs() <= atol + rtol * x.abs());
            if !same {
                bad += 1;
                if bad <= 5 {
                    out.push(format!(
                        "{arg}[{i}]: {} where the evaluator gives {}",
                        show(want.dtype, y),
                        show(want.dtype, x)
                    ));
                }
            }
        }
        if bad > 5 {
            out.push(format!("{arg}: {bad} elements differ in all"));
        }
    }
    out
}
