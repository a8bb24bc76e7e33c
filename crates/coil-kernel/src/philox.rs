//! coil's random numbers: Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as
//! 1, 2, 3", SC'11), the counter-based generator Inductor's kernels use too. An element's
//! numbers are a pure function of a key (the call's seed) and a counter (the element's
//! row-major position and the random op's number in its graph), so any kernel computes any
//! element's value wherever fusion puts it, and a seed drawn from torch's generator makes a
//! call reproducible under `torch.manual_seed`.
//!
//! This is the reference meaning: coil-eager computes it, the lowering's expansion
//! (`coil-lower/src/ops/random.rs`) builds the same function from integer ops every backend
//! has, and the Python module's eager kernels (`coil/_random.py`) compute it with torch ops.
//! The values are not eager PyTorch's (neither are Inductor's): only their distribution is.

/// The multiplier of words 0 and 1 in a round.
pub const M0: u64 = 0xD251_1F53;
/// The multiplier of words 2 and 3 in a round.
pub const M1: u64 = 0xCD9E_8D57;
/// Key word 0's increment per round (the golden ratio's first 32 bits).
pub const W0: u64 = 0x9E37_79B9;
/// Key word 1's increment per round (sqrt(3) - 1's first 32 bits).
pub const W1: u64 = 0xBB67_AE85;
/// Rounds.
pub const ROUNDS: usize = 10;

/// The four 32-bit words Philox-4x32-10 gives for `counter` under `key`.
pub fn philox(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = counter.map(u64::from);
    let [mut k0, mut k1] = key.map(u64::from);
    const MASK: u64 = 0xFFFF_FFFF;
    for _ in 0..ROUNDS {
        let p0 = M0 * c0;
        let p1 = M1 * c2;
        let (hi0, lo0) = (p0 >> 32, p0 & MASK);
        let (hi1, lo1) = (p1 >> 32, p1 & MASK);
        (c0, c1, c2, c3) = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0);
        k0 = (k0 + W0) & MASK;
        k1 = (k1 + W1) & MASK;
    }
    [c0 as u32, c1 as u32, c2 as u32, c3 as u32]
}

/// The words for element `index` of random op number `offset` under `seed`: the counter is
/// (index's low and high words, offset, 0), the key the seed's two words.
pub fn words(seed: i64, offset: u32, index: u64) -> [u32; 4] {
    let s = seed as u64;
    philox(
        [index as u32, (index >> 32) as u32, offset, 0],
        [s as u32, (s >> 32) as u32],
    )
}

/// How many random mantissa bits a uniform value of a float with `mantissa` stored bits
/// gets: one more than stored (the implicit bit), so every value is `k / 2^bits`, exactly
/// representable and below 1.
pub fn uniform_bits(mantissa: u32) -> u32 {
    mantissa + 1
}

/// A uniform value in `[0, 1)` with `bits` random bits (at most 53) from `w`: `k / 2^bits`,
/// `k` the top `bits` of `w[0]` (and `w[1]` above 32 bits).
pub fn uniform(w: [u32; 4], bits: u32) -> f64 {
    let k = if bits <= 32 {
        u64::from(w[0]) >> (32 - bits)
    } else {
        ((u64::from(w[1]) << 32) | u64::from(w[0])) >> (64 - bits)
    };
    k as f64 / (1u64 << bits) as f64
}

/// A standard normal value by Box and Muller: `sqrt(-2 ln u1) cos(2 pi u2)`, `u1` in
/// `(0, 1]` from `w[0]` (and `w[1]` above 32 bits), `u2` in `[0, 1)` from `w[2]` (and `w[3]`),
/// each with `bits` bits; computed in f64 here (the kernels compute in their opmath type).
pub fn normal(w: [u32; 4], bits: u32) -> f64 {
    let u1 = 1.0 - uniform(w, bits);
    let u2 = uniform([w[2], w[3], 0, 0], bits);
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// An integer in `[low, high)`: 63 bits of the words modulo the range (so the bias is below
/// range / 2^63, even for ranges near 2^32). `high > low`, with `high - low` an int64, is the
/// caller's check.
pub fn int_in(w: [u32; 4], low: i64, high: i64) -> i64 {
    let range = high - low;
    let v = (i64::from(w[1] & 0x7FFF_FFFF) << 32) | i64::from(w[0]);
    low + v % range
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random123's known-answer vectors for Philox-4x32-10.
    #[test]
    fn philox_matches_the_published_known_answers() {
        assert_eq!(
            philox([0, 0, 0, 0], [0, 0]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
        assert_eq!(
            philox([!0, !0, !0, !0], [!0, !0]),
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
        );
        assert_eq!(
            philox(
                [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
                [0xa409_3822, 0x299f_31d0]
            ),
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
        );
    }

    #[test]
    fn uniform_values_stay_below_one_and_use_their_bits() {
        let top = [!0u32; 4];
        for bits in [8, 11, 24, 53] {
            let u = uniform(top, bits);
            assert!(u < 1.0, "{bits}");
            assert_eq!(u, 1.0 - 1.0 / (1u64 << bits) as f64, "{bits}");
            assert_eq!(uniform([0; 4], bits), 0.0);
        }
        // The largest bf16 value below 1 is 1 - 2^-8: every uniform bf16 is exact.
        assert_eq!(uniform_bits(7), 8);
        assert!(normal([0; 4], 24).is_finite());
    }

    #[test]
    fn integers_cover_their_range() {
        let mut seen = [false; 7];
        for i in 0..200u64 {
            let v = int_in(words(5, 0, i), -3, 4);
            assert!((-3..4).contains(&v));
            seen[(v + 3) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        let big = int_in(words(5, 0, 1), 0, i64::MAX);
        assert!(big >= 0);
        assert_eq!(int_in(words(1, 2, 3), i64::MIN, i64::MIN + 1), i64::MIN);
        // A range of 3/4 of 2^32 is not biased toward its low end (32 bits would double it).
        let n = 40_000u64;
        let low_quarter = (0..n)
            .filter(|&i| int_in(words(9, 0, i), 0, 3 << 30) < 1 << 30)
            .count() as f64;
        assert!(
            (low_quarter / n as f64 - 1.0 / 3.0).abs() < 0.01,
            "{low_quarter}"
        );
    }
}
