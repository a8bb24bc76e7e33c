//! Deterministic pseudo-random numbers and tensors for tests: one generator for every crate's
//! tests instead of one per crate. xorshift64, seeded through a multiply by the golden ratio
//! (so every seed, 0 included, gives a good stream); not for anything but test inputs.

use coil_graph::{DType, Data, Graph, Tensor};

/// A deterministic stream of pseudo-random numbers.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// The stream of `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [0, 1), with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform over the integers `lo..=hi`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.unit() * (hi - lo + 1) as f64).floor() as i64
    }

    /// A fair coin.
    pub fn coin(&mut self) -> bool {
        self.unit() < 0.5
    }
}

/// A contiguous tensor of `dtype` and `sizes` drawn from `seed`'s stream: floats uniform in
/// [-2, 2), integers in [-5, 5], bools fair coins.
pub fn random_tensor(dtype: DType, sizes: &[usize], seed: u64) -> Tensor {
    let mut rng = Rng::new(seed);
    let n: usize = sizes.iter().product();
    let vals: Vec<f64> = (0..n)
        .map(|_| match dtype {
            DType::Bool => f64::from(u8::from(rng.coin())),
            d if d.is_float() => rng.uniform(-2.0, 2.0),
            _ => rng.int(-5, 5) as f64,
        })
        .collect();
    Tensor::new(Data::from_f64(dtype, vals.into_iter()), sizes.to_vec())
        .expect("the values fill the sizes")
}

/// One [`random_tensor`] per input of `graph`, of the input's dtype and sizes, the `i`-th
/// drawn from seed `seed + i`.
pub fn random_inputs(graph: &Graph, seed: u64) -> Vec<Tensor> {
    graph
        .inputs()
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            let m = graph.node(id).meta();
            random_tensor(m.dtype, &m.sizes, seed + i as u64)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_deterministic_and_in_range() {
        let (mut a, mut b) = (Rng::new(0), Rng::new(0));
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        let mut r = Rng::new(7);
        let ints: Vec<i64> = (0..2000).map(|_| r.int(-3, 3)).collect();
        assert!(ints.iter().all(|i| (-3..=3).contains(i)));
        assert!((-3..=3).all(|v| ints.contains(&v)), "every value drawn");
        assert!((0..2000).all(|_| (-2.0..2.0).contains(&r.uniform(-2.0, 2.0))));
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }

    #[test]
    fn random_tensors_have_their_dtype_and_ranges() {
        let t = random_tensor(DType::I64, &[3, 50], 1);
        assert_eq!(t.sizes(), &[3, 50]);
        assert!(t.to_f64_vec().iter().all(|v| (-5.0..=5.0).contains(v)));
        let b = random_tensor(DType::Bool, &[100], 2).to_f64_vec();
        assert!(b.contains(&0.0) && b.contains(&1.0));
        let f = random_tensor(DType::F32, &[64], 3);
        assert_eq!(f.dtype(), DType::F32);
    }
}
