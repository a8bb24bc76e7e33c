//! The functions a backend's math library computes (`exp`, `log1p`, `erf`, ..., `pow`): one
//! list for every backend (coil-cpu's vector math and coil-cuda's PTX math implement it; which
//! ops of the lowering reach it is `coil_lower::Op::math_fn`).

/// A function of the math library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MathFn {
    /// `e^x`.
    Exp,
    /// Natural logarithm.
    Log,
    /// `log(1 + x)`, accurate for small `x`.
    Log1p,
    /// Hyperbolic tangent.
    Tanh,
    /// `1 / (1 + e^-x)`.
    Sigmoid,
    /// The error function.
    Erf,
    /// Sine.
    Sin,
    /// Cosine.
    Cos,
    /// Square root (correctly rounded).
    Sqrt,
    /// `1 / sqrt(x)` (a division, not an approximate reciprocal square root).
    Rsqrt,
    /// `x^y` (binary).
    Pow,
}

impl MathFn {
    /// Every function, in declaration order.
    pub const ALL: [MathFn; 11] = [
        MathFn::Exp,
        MathFn::Log,
        MathFn::Log1p,
        MathFn::Tanh,
        MathFn::Sigmoid,
        MathFn::Erf,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Sqrt,
        MathFn::Rsqrt,
        MathFn::Pow,
    ];

    /// The one-argument functions (all but [`MathFn::Pow`]).
    pub const UNARY: [MathFn; 10] = [
        MathFn::Exp,
        MathFn::Log,
        MathFn::Log1p,
        MathFn::Tanh,
        MathFn::Sigmoid,
        MathFn::Erf,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Sqrt,
        MathFn::Rsqrt,
    ];

    /// The name as ATen spells the op (`exp`, `log1p`, ...).
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Exp => "exp",
            MathFn::Log => "log",
            MathFn::Log1p => "log1p",
            MathFn::Tanh => "tanh",
            MathFn::Sigmoid => "sigmoid",
            MathFn::Erf => "erf",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Sqrt => "sqrt",
            MathFn::Rsqrt => "rsqrt",
            MathFn::Pow => "pow",
        }
    }

    /// 1, or 2 for [`MathFn::Pow`].
    pub fn arity(self) -> usize {
        if self == MathFn::Pow { 2 } else { 1 }
    }
}

#[cfg(test)]
mod tests {
    use super::MathFn;

    #[test]
    fn the_lists_agree() {
        assert_eq!(MathFn::UNARY.to_vec(), MathFn::ALL[..10].to_vec());
        assert!(MathFn::UNARY.iter().all(|f| f.arity() == 1));
        assert_eq!(MathFn::Pow.arity(), 2);
        let mut names: Vec<&str> = MathFn::ALL.iter().map(|f| f.name()).collect();
        names.dedup();
        assert_eq!(names.len(), 11);
    }
}
