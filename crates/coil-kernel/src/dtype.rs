//! Element types and PyTorch's type-promotion rules (`promote_types`, `result_type`).

use std::fmt;

/// The element type of a tensor: bool, the integer widths PyTorch computes with (`uint8`, `int8`,
/// `int16`, `int32`, `int64`) and the floats. Complex is out.
///
/// The narrow integers (8 and 16 bits) compute in `i32` registers, as f16 and bf16 compute in
/// f32: every op that gives one wraps its result to the width ([`DType::wrap`]), so a fused chain
/// computes what PyTorch's one-op-at-a-time kernels do.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum DType {
    /// `torch.bool`, printed `b8`.
    Bool,
    /// `torch.uint8`, printed `u8`.
    U8,
    /// `torch.int8`, printed `i8`.
    I8,
    /// `torch.int16`, printed `i16`.
    I16,
    /// `torch.int32`, printed `i32`.
    I32,
    /// `torch.int64`, printed `i64`.
    I64,
    /// `torch.float16`, printed `f16`.
    F16,
    /// `torch.bfloat16`, printed `bf16`.
    BF16,
    /// `torch.float32`, printed `f32`.
    F32,
    /// `torch.float64`, printed `f64`.
    F64,
}

/// The dtype PyTorch gives a Python float when nothing else decides (`torch.get_default_dtype()`).
pub const DEFAULT_FLOAT: DType = DType::F32;

impl DType {
    /// Every dtype, in promotion order.
    pub const ALL: [DType; 10] = [
        DType::Bool,
        DType::U8,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];

    /// The short name FX annotations use: `f32`, `b8`, `bf16`, ...
    pub fn short_name(self) -> &'static str {
        match self {
            DType::Bool => "b8",
            DType::U8 => "u8",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    /// The Python spelling: `torch.float32`, `torch.bool`, ...
    pub fn torch_name(self) -> &'static str {
        match self {
            DType::Bool => "torch.bool",
            DType::U8 => "torch.uint8",
            DType::I8 => "torch.int8",
            DType::I16 => "torch.int16",
            DType::I32 => "torch.int32",
            DType::I64 => "torch.int64",
            DType::F16 => "torch.float16",
            DType::BF16 => "torch.bfloat16",
            DType::F32 => "torch.float32",
            DType::F64 => "torch.float64",
        }
    }

    /// Parses a short name (`f32`) as written in annotations.
    pub fn from_short_name(s: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.short_name() == s)
    }

    /// Parses `torch.float32` and its aliases (`torch.float`, `torch.long`, `torch.half`, ...).
    pub fn from_torch_name(s: &str) -> Option<DType> {
        let name = s.strip_prefix("torch.")?;
        Some(match name {
            "bool" => DType::Bool,
            "uint8" => DType::U8,
            "int8" => DType::I8,
            "int16" | "short" => DType::I16,
            "int32" | "int" => DType::I32,
            "int64" | "long" => DType::I64,
            "float16" | "half" => DType::F16,
            "bfloat16" => DType::BF16,
            "float32" | "float" => DType::F32,
            "float64" | "double" => DType::F64,
            _ => return None,
        })
    }

    /// Bytes per element.
    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 => 8,
        }
    }

    /// True for the 16-bit floats (f16, bf16), which compute in f32 (see [`DType::opmath`]).
    pub fn is_16_bit_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16)
    }

    /// True for the floating-point types.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// The stored mantissa bits of a float type (23 for f32); 0 for the others.
    pub fn mantissa_bits(self) -> u32 {
        match self {
            DType::F64 => 52,
            DType::F32 => 23,
            DType::F16 => 10,
            DType::BF16 => 7,
            _ => 0,
        }
    }

    /// PyTorch's "opmath" type: half types compute (and keep statistics) in f32, every other
    /// type in itself.
    pub fn opmath(self) -> DType {
        match self {
            DType::F16 | DType::BF16 => DType::F32,
            other => other,
        }
    }

    /// True for the integer types (not bool).
    pub fn is_int(self) -> bool {
        matches!(
            self,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64
        )
    }

    /// True for the integers narrower than 32 bits, which compute in `i32` and wrap after
    /// every op ([`DType::wrap`]).
    pub fn is_narrow_int(self) -> bool {
        matches!(self, DType::U8 | DType::I8 | DType::I16)
    }

    /// True for the unsigned integers.
    pub fn is_unsigned(self) -> bool {
        matches!(self, DType::U8)
    }

    /// `i` wrapped to this integer type's width and signedness, as PyTorch's kernels store it
    /// (two's complement; `i64` and the non-integers unchanged).
    pub fn wrap(self, i: i64) -> i64 {
        match self {
            DType::U8 => i as u8 as i64,
            DType::I8 => i as i8 as i64,
            DType::I16 => i as i16 as i64,
            DType::I32 => i as i32 as i64,
            _ => i,
        }
    }

    /// The bit width of an integer type's storage (bool: 8).
    pub fn bits(self) -> u32 {
        self.itemsize() as u32 * 8
    }

    /// The promotion category: bool < integer < floating.
    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => Category::Int,
            _ => Category::Float,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_name())
    }
}

/// Kinds of numbers, ordered as PyTorch ranks them when promoting across categories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    /// `bool`.
    Bool,
    /// Signed integers.
    Int,
    /// Floating point.
    Float,
}

/// `torch.promote_types(a, b)`: the smallest dtype both convert to without losing their category.
pub fn promote_types(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    match (a, b) {
        (Bool, x) | (x, Bool) => x,
        (F16, BF16) | (BF16, F16) => F32,
        // Neither holds the other's range: the next signed width holds both.
        (U8, I8) | (I8, U8) => I16,
        _ => a.max(b),
    }
}

/// One operand of a pointwise op, as `torch.result_type` sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    /// A tensor with this dtype and rank (rank 0 tensors rank below dimensioned ones).
    Tensor {
        /// Element type.
        dtype: DType,
        /// Number of dimensions.
        rank: usize,
    },
    /// A Python number (a "wrapped" scalar): it only decides the category.
    Scalar(Category),
}

/// `torch.result_type`: dimensioned tensors outrank zero-dim tensors, which outrank Python
/// scalars, except that a lower rank of operand with a higher category lifts the category.
pub fn result_type(operands: &[Operand]) -> DType {
    let mut dim: Option<DType> = None;
    let mut zero: Option<DType> = None;
    let mut wrapped: Option<DType> = None;
    let join = |slot: &mut Option<DType>, d: DType| {
        *slot = Some(match *slot {
            None => d,
            Some(s) => promote_types(s, d),
        })
    };
    for op in operands {
        match *op {
            Operand::Tensor { dtype, rank: 0 } => join(&mut zero, dtype),
            Operand::Tensor { dtype, .. } => join(&mut dim, dtype),
            Operand::Scalar(c) => join(
                &mut wrapped,
                match c {
                    Category::Bool => DType::Bool,
                    Category::Int => DType::I64,
                    Category::Float => DEFAULT_FLOAT,
                },
            ),
        }
    }
    let lower = combine_categories(zero, wrapped);
    combine_categories(dim, lower).unwrap_or(DEFAULT_FLOAT)
}

/// c10's `combine_categories`: keep `higher` unless `lower` is of a higher category.
fn combine_categories(higher: Option<DType>, lower: Option<DType>) -> Option<DType> {
    match (higher, lower) {
        (None, l) => l,
        (h, None) => h,
        (Some(h), Some(l)) => {
            if h.is_float() {
                Some(h)
            } else if h == DType::Bool || l.is_float() {
                Some(promote_types(h, l))
            } else {
                Some(h)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(dtype: DType, rank: usize) -> Operand {
        Operand::Tensor { dtype, rank }
    }

    #[test]
    fn promotion_follows_pytorch() {
        assert_eq!(promote_types(DType::F16, DType::BF16), DType::F32);
        assert_eq!(promote_types(DType::I32, DType::F16), DType::F16);
        assert_eq!(promote_types(DType::Bool, DType::I32), DType::I32);
        assert_eq!(promote_types(DType::U8, DType::I8), DType::I16);
        assert_eq!(promote_types(DType::U8, DType::I16), DType::I16);
        assert_eq!(promote_types(DType::I8, DType::I32), DType::I32);
        assert_eq!(promote_types(DType::U8, DType::Bool), DType::U8);
        assert_eq!(promote_types(DType::I16, DType::F16), DType::F16);
        // An int8 tensor with a Python int stays int8.
        assert_eq!(
            result_type(&[t(DType::I8, 1), Operand::Scalar(Category::Int)]),
            DType::I8
        );
        assert_eq!(result_type(&[t(DType::U8, 1), t(DType::I64, 0)]), DType::U8);
        // f32 tensor * python float stays f32; i64 tensor * python float -> default float.
        assert_eq!(
            result_type(&[t(DType::F32, 2), Operand::Scalar(Category::Float)]),
            DType::F32
        );
        assert_eq!(
            result_type(&[t(DType::I64, 2), Operand::Scalar(Category::Float)]),
            DType::F32
        );
        assert_eq!(
            result_type(&[t(DType::I32, 2), Operand::Scalar(Category::Int)]),
            DType::I32
        );
        assert_eq!(
            result_type(&[t(DType::Bool, 1), Operand::Scalar(Category::Int)]),
            DType::I64
        );
        assert_eq!(
            result_type(&[t(DType::F16, 1), Operand::Scalar(Category::Float)]),
            DType::F16
        );
        // zero-dim tensors only matter when they lift the category.
        assert_eq!(
            result_type(&[t(DType::F32, 2), t(DType::F64, 0)]),
            DType::F32
        );
        assert_eq!(
            result_type(&[t(DType::I64, 2), t(DType::F64, 0)]),
            DType::F64
        );
        assert_eq!(
            result_type(&[t(DType::F32, 0), t(DType::F64, 0)]),
            DType::F64
        );
    }
}
