//! Element types: the storage types of [`Data`], PyTorch's conversions between them, the
//! arithmetic the kernels compute in, and typed (converted, broadcast) reads of tensors.

use std::borrow::Cow;

use coil_graph::{DType, Data, Scalar, Tensor, contiguous_strides, expand_strides};
use half::{bf16, f16};

use crate::error::OpError;
use crate::strided::Plan;

/// A storage element type (one per [`Data`] variant).
pub(crate) trait Elem: Copy + Default + PartialEq + Send + Sync + 'static {
    /// The dtype whose storage holds `Self`.
    const DTYPE: DType;
    /// The elements, when `data` holds this type.
    fn slice(data: &Data) -> Option<&[Self]>;
    /// Wraps elements as storage.
    fn into_data(v: Vec<Self>) -> Data;
    fn to_f32(self) -> f32;
    fn to_f64(self) -> f64;
    fn to_i64(self) -> i64;
    fn nonzero(self) -> bool;
    fn from_f32(x: f32) -> Self;
    fn from_f64(x: f64) -> Self;
    fn from_i64(x: i64) -> Self;
    fn from_bool(b: bool) -> Self;

    /// Converts with PyTorch's rules: to bool is "nonzero"; floats to ints truncate toward
    /// zero; floats round to the nearest narrower float once.
    #[inline(always)]
    fn cast<D: Elem>(self) -> D {
        match (Self::DTYPE, D::DTYPE) {
            (_, DType::Bool) => D::from_bool(self.nonzero()),
            (DType::F64, _) => D::from_f64(self.to_f64()),
            (DType::F16 | DType::BF16 | DType::F32, _) => D::from_f32(self.to_f32()),
            _ => D::from_i64(self.to_i64()),
        }
    }
}

macro_rules! elem_impl {
    ($t:ty, $variant:ident, $dtype:expr,
     to_f32: |$a:ident| $to_f32:expr, to_f64: |$b:ident| $to_f64:expr, to_i64: |$c:ident| $to_i64:expr,
     nonzero: |$d:ident| $nonzero:expr,
     from_f32: |$e:ident| $from_f32:expr, from_f64: |$f:ident| $from_f64:expr,
     from_i64: |$g:ident| $from_i64:expr, from_bool: |$h:ident| $from_bool:expr) => {
        impl Elem for $t {
            const DTYPE: DType = $dtype;
            #[inline]
            fn slice(data: &Data) -> Option<&[Self]> {
                match data {
                    Data::$variant(v) => Some(v),
                    _ => None,
                }
            }
            #[inline]
            fn into_data(v: Vec<Self>) -> Data {
                Data::$variant(v)
            }
            #[inline(always)]
            fn to_f32(self) -> f32 {
                let $a = self;
                $to_f32
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                let $b = self;
                $to_f64
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                let $c = self;
                $to_i64
            }
            #[inline(always)]
            fn nonzero(self) -> bool {
                let $d = self;
                $nonzero
            }
            #[inline(always)]
            fn from_f32($e: f32) -> Self {
                $from_f32
            }
            #[inline(always)]
            fn from_f64($f: f64) -> Self {
                $from_f64
            }
            #[inline(always)]
            fn from_i64($g: i64) -> Self {
                $from_i64
            }
            #[inline(always)]
            fn from_bool($h: bool) -> Self {
                $from_bool
            }
        }
    };
}

elem_impl!(bool, Bool, DType::Bool,
    to_f32: |x| x as u8 as f32, to_f64: |x| x as u8 as f64, to_i64: |x| x as i64,
    nonzero: |x| x,
    from_f32: |x| x != 0.0, from_f64: |x| x != 0.0, from_i64: |x| x != 0, from_bool: |x| x);
elem_impl!(u8, U8, DType::U8,
    to_f32: |x| x as f32, to_f64: |x| x as f64, to_i64: |x| x as i64,
    nonzero: |x| x != 0,
    from_f32: |x| x as i64 as u8, from_f64: |x| x as i64 as u8, from_i64: |x| x as u8, from_bool: |x| x as u8);
elem_impl!(i8, I8, DType::I8,
    to_f32: |x| x as f32, to_f64: |x| x as f64, to_i64: |x| x as i64,
    nonzero: |x| x != 0,
    from_f32: |x| x as i64 as i8, from_f64: |x| x as i64 as i8, from_i64: |x| x as i8, from_bool: |x| x as i8);
elem_impl!(i16, I16, DType::I16,
    to_f32: |x| x as f32, to_f64: |x| x as f64, to_i64: |x| x as i64,
    nonzero: |x| x != 0,
    from_f32: |x| x as i64 as i16, from_f64: |x| x as i64 as i16, from_i64: |x| x as i16, from_bool: |x| x as i16);
elem_impl!(i32, I32, DType::I32,
    to_f32: |x| x as f32, to_f64: |x| x as f64, to_i64: |x| x as i64,
    nonzero: |x| x != 0,
    from_f32: |x| x as i32, from_f64: |x| x as i32, from_i64: |x| x as i32, from_bool: |x| x as i32);
elem_impl!(i64, I64, DType::I64,
    to_f32: |x| x as f32, to_f64: |x| x as f64, to_i64: |x| x,
    nonzero: |x| x != 0,
    from_f32: |x| x as i64, from_f64: |x| x as i64, from_i64: |x| x, from_bool: |x| x as i64);
elem_impl!(f16, F16, DType::F16,
    to_f32: |x| x.to_f32(), to_f64: |x| x.to_f64(), to_i64: |x| x.to_f32() as i64,
    nonzero: |x| x.to_f32() != 0.0,
    from_f32: |x| f16::from_f32(x), from_f64: |x| f16::from_f64(x),
    from_i64: |x| f16::from_f64(x as f64), from_bool: |x| f16::from_f32(x as u8 as f32));
elem_impl!(bf16, BF16, DType::BF16,
    to_f32: |x| x.to_f32(), to_f64: |x| x.to_f64(), to_i64: |x| x.to_f32() as i64,
    nonzero: |x| x.to_f32() != 0.0,
    from_f32: |x| bf16::from_f32(x), from_f64: |x| bf16::from_f64(x),
    from_i64: |x| bf16::from_f64(x as f64), from_bool: |x| bf16::from_f32(x as u8 as f32));
elem_impl!(f32, F32, DType::F32,
    to_f32: |x| x, to_f64: |x| x as f64, to_i64: |x| x as i64,
    nonzero: |x| x != 0.0,
    from_f32: |x| x, from_f64: |x| x as f32, from_i64: |x| x as f32, from_bool: |x| x as u8 as f32);
elem_impl!(f64, F64, DType::F64,
    to_f32: |x| x as f32, to_f64: |x| x, to_i64: |x| x as i64,
    nonzero: |x| x != 0.0,
    from_f32: |x| x as f64, from_f64: |x| x, from_i64: |x| x as f64, from_bool: |x| x as u8 as f64);

/// Runs `$body` with `$T` bound to the storage type of `$dtype`.
macro_rules! with_elem {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            coil_graph::DType::Bool => {
                type $T = bool;
                $body
            }
            coil_graph::DType::U8 => {
                type $T = u8;
                $body
            }
            coil_graph::DType::I8 => {
                type $T = i8;
                $body
            }
            coil_graph::DType::I16 => {
                type $T = i16;
                $body
            }
            coil_graph::DType::I32 => {
                type $T = i32;
                $body
            }
            coil_graph::DType::I64 => {
                type $T = i64;
                $body
            }
            coil_graph::DType::F16 => {
                type $T = half::f16;
                $body
            }
            coil_graph::DType::BF16 => {
                type $T = half::bf16;
                $body
            }
            coil_graph::DType::F32 => {
                type $T = f32;
                $body
            }
            coil_graph::DType::F64 => {
                type $T = f64;
                $body
            }
        }
    };
}

/// Runs `$body` with `$T` bound to the type PyTorch's CPU kernels compute `$dtype` in (its
/// "opmath" type): f32 for f16/bf16/f32, f64 for f64, i64 for the integers and bool.
macro_rules! with_compute {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            coil_graph::DType::F16 | coil_graph::DType::BF16 | coil_graph::DType::F32 => {
                type $T = f32;
                $body
            }
            coil_graph::DType::F64 => {
                type $T = f64;
                $body
            }
            coil_graph::DType::Bool
            | coil_graph::DType::U8
            | coil_graph::DType::I8
            | coil_graph::DType::I16
            | coil_graph::DType::I32
            | coil_graph::DType::I64 => {
                type $T = i64;
                $body
            }
        }
    };
}

/// Like [`with_compute`], for ops only defined on floating-point values; other dtypes are an
/// error naming the op.
macro_rules! with_float {
    ($dtype:expr, $what:expr, $T:ident => $body:expr) => {
        match $dtype {
            coil_graph::DType::F16 | coil_graph::DType::BF16 | coil_graph::DType::F32 => {
                type $T = f32;
                $body
            }
            coil_graph::DType::F64 => {
                type $T = f64;
                $body
            }
            other => Err($crate::error::OpError::new(format!(
                "{} needs a floating-point dtype, got {other}",
                $what
            ))),
        }
    };
}

pub(crate) use {with_compute, with_elem, with_float};

/// Arithmetic in a compute type (f32, f64 or i64). Integer arithmetic wraps, as in C++.
pub(crate) trait Num: Elem + PartialOrd {
    const ZERO: Self;
    const ONE: Self;
    /// The smallest value (`-inf` for floats): the identity of `max`.
    const LOWEST: Self;
    /// The largest value (`inf` for floats): the identity of `min`.
    const HIGHEST: Self;
    /// Integer types: division by zero is an error, not `inf`.
    const IS_INT: bool;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    /// True division for floats; truncating (callers check for zero) for ints.
    fn div(self, o: Self) -> Self;
    /// `torch.div(a, b, rounding_mode='floor')`.
    fn div_floor(self, o: Self) -> Self;
    /// `torch.div(a, b, rounding_mode='trunc')`.
    fn div_trunc(self, o: Self) -> Self;
    /// `torch.fmod`: the remainder of truncating division, with the dividend's sign.
    fn fmod(self, o: Self) -> Self;
    /// `torch.remainder`: the remainder of flooring division, with the divisor's sign.
    fn remainder(self, o: Self) -> Self {
        let m = self.fmod(o);
        if m != Self::ZERO && ((o < Self::ZERO) != (m < Self::ZERO)) {
            m.add(o)
        } else {
            m
        }
    }
    fn pow(self, e: Self) -> Self;
    fn neg(self) -> Self;
    fn abs(self) -> Self;
    fn is_nan(self) -> bool;
    /// `torch.maximum`: NaN wins.
    #[inline(always)]
    fn max_nan(self, o: Self) -> Self {
        if self.is_nan() || self > o { self } else { o }
    }
    /// `torch.minimum`: NaN wins.
    #[inline(always)]
    fn min_nan(self, o: Self) -> Self {
        if self.is_nan() || self < o { self } else { o }
    }
}

macro_rules! float_num {
    ($t:ty) => {
        impl Num for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
            const IS_INT: bool = false;
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self + o
            }
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                self - o
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                self * o
            }
            #[inline(always)]
            fn div(self, o: Self) -> Self {
                self / o
            }
            /// ATen's `div_floor_floating`.
            #[inline]
            fn div_floor(self, o: Self) -> Self {
                if o == 0.0 {
                    return self / o;
                }
                let m = self % o;
                let mut d = (self - m) / o;
                if m != 0.0 && ((o < 0.0) != (m < 0.0)) {
                    d -= 1.0;
                }
                if d != 0.0 {
                    let f = d.floor();
                    if d - f > 0.5 { f + 1.0 } else { f }
                } else {
                    (0.0 as $t).copysign(self / o)
                }
            }
            #[inline(always)]
            fn div_trunc(self, o: Self) -> Self {
                (self / o).trunc()
            }
            /// C's `fmod` (exact; Rust's `%` on floats).
            #[inline(always)]
            fn fmod(self, o: Self) -> Self {
                self % o
            }
            #[inline(always)]
            fn pow(self, e: Self) -> Self {
                self.powf(e)
            }
            #[inline(always)]
            fn neg(self) -> Self {
                -self
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
    };
}

float_num!(f32);
float_num!(f64);

impl Num for i64 {
    const ZERO: Self = 0;
    const ONE: Self = 1;
    const LOWEST: Self = i64::MIN;
    const HIGHEST: Self = i64::MAX;
    const IS_INT: bool = true;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self.wrapping_add(o)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        self.wrapping_sub(o)
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        self.wrapping_mul(o)
    }
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        if o == 0 { 0 } else { self.wrapping_div(o) }
    }
    #[inline(always)]
    fn div_floor(self, o: Self) -> Self {
        if o == 0 {
            return 0;
        }
        let q = self.wrapping_div(o);
        if self.wrapping_rem(o) != 0 && ((self < 0) != (o < 0)) {
            q - 1
        } else {
            q
        }
    }
    #[inline(always)]
    fn div_trunc(self, o: Self) -> Self {
        self.div(o)
    }
    #[inline(always)]
    fn fmod(self, o: Self) -> Self {
        if o == 0 { 0 } else { self.wrapping_rem(o) }
    }
    /// ATen's integer `powi`: negative exponents give 0 except for bases 1 and -1.
    #[inline]
    fn pow(self, e: Self) -> Self {
        coil_kernel::scalar::int_pow(self, e)
    }
    #[inline(always)]
    fn neg(self) -> Self {
        self.wrapping_neg()
    }
    #[inline(always)]
    fn abs(self) -> Self {
        self.wrapping_abs()
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        false
    }
}

/// Transcendental functions, for the float compute types.
pub(crate) trait Float: Num {
    fn from_const(x: f64) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn ln_1p(self) -> Self;
    fn sqrt(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tanh(self) -> Self;
    fn erf(self) -> Self;
    /// The integral value `kind` (`Floor`, `Ceil`, `Round` half to even, `Trunc`) picks.
    fn integral(self, op: coil_kernel::Op) -> Self;
}

impl Float for f32 {
    #[inline(always)]
    fn from_const(x: f64) -> Self {
        x as f32
    }
    #[inline(always)]
    fn exp(self) -> Self {
        exp_f32(self)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        f32::ln(self)
    }
    #[inline(always)]
    fn ln_1p(self) -> Self {
        f32::ln_1p(self)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn sin(self) -> Self {
        f32::sin(self)
    }
    #[inline(always)]
    fn cos(self) -> Self {
        f32::cos(self)
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        f32::tanh(self)
    }
    #[inline(always)]
    fn erf(self) -> Self {
        libm::erff(self)
    }
    #[inline(always)]
    fn integral(self, op: coil_kernel::Op) -> Self {
        match op {
            coil_kernel::Op::Floor => f32::floor(self),
            coil_kernel::Op::Ceil => f32::ceil(self),
            coil_kernel::Op::Round => f32::round_ties_even(self),
            _ => f32::trunc(self),
        }
    }
}

/// `e^x` in f32 within 2 ulp of the exact value (Cephes' `expf`: `x = n ln2 + r`, a degree-6
/// polynomial for `e^r`, `2^n` applied in two halves so results reach the subnormals and
/// overflow to infinity). Branch-free, so loops over it vectorize, as ATen's Sleef `exp` does;
/// libm's `expf` is a call per element.
#[inline(always)]
pub(crate) fn exp_f32(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    // ln 2 split so that `n * LN2_HI` is exact.
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Adding 1.5 * 2^23 rounds to the nearest integer, which then sits in the low bits of
    // the sum: integer `n` without a float-to-int conversion (scalar on SSE2).
    const ROUND: f32 = 12_582_912.0;
    let xc = x.clamp(-104.0, 89.0);
    let t = xc * LOG2E + ROUND;
    let n = t - ROUND;
    let r = xc - n * LN2_HI - n * LN2_LO;
    let mut p = 1.987_569_2e-4f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5;
    let y = p * r * r + r + 1.0;
    let n = t.to_bits() as i32 - ROUND.to_bits() as i32;
    let half = n >> 1;
    let s1 = f32::from_bits(((half + 127) as u32) << 23);
    let s2 = f32::from_bits(((n - half + 127) as u32) << 23);
    let e = y * s1 * s2;
    if x.is_nan() { x } else { e }
}

impl Float for f64 {
    #[inline(always)]
    fn from_const(x: f64) -> Self {
        x
    }
    #[inline(always)]
    fn exp(self) -> Self {
        f64::exp(self)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        f64::ln(self)
    }
    #[inline(always)]
    fn ln_1p(self) -> Self {
        f64::ln_1p(self)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn sin(self) -> Self {
        f64::sin(self)
    }
    #[inline(always)]
    fn cos(self) -> Self {
        f64::cos(self)
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        f64::tanh(self)
    }
    #[inline(always)]
    fn erf(self) -> Self {
        libm::erf(self)
    }
    #[inline(always)]
    fn integral(self, op: coil_kernel::Op) -> Self {
        match op {
            coil_kernel::Op::Floor => f64::floor(self),
            coil_kernel::Op::Ceil => f64::ceil(self),
            coil_kernel::Op::Round => f64::round_ties_even(self),
            _ => f64::trunc(self),
        }
    }
}

/// A Python number as `T` (PyTorch converts wrapped numbers to the computation's type).
pub(crate) fn scalar_as<T: Elem>(s: Scalar) -> T {
    match s {
        Scalar::Bool(b) => T::from_bool(b),
        Scalar::Int(i) => T::from_i64(i),
        Scalar::Float(f) => T::from_f64(f),
    }
}

/// A tensor (or a Python number) read as elements of `T`, with strides broadcast to the
/// iteration space. Borrows the storage when it already holds `T`; converts (a contiguous copy
/// of the tensor's own elements, never of the broadcast) otherwise.
pub(crate) struct Src<'a, T: Clone> {
    /// The elements.
    pub(crate) data: Cow<'a, [T]>,
    /// Strides over the iteration space, in elements (0 where broadcast).
    pub(crate) strides: Vec<usize>,
    /// Position of element 0 in `data`.
    pub(crate) offset: usize,
}

impl<'a, T: Elem> Src<'a, T> {
    /// Reads `t` as `T`, broadcast to `sizes`.
    pub(crate) fn tensor(t: &'a Tensor, sizes: &[usize]) -> Result<Src<'a, T>, OpError> {
        let (data, strides, offset) = match T::slice(t.storage()) {
            Some(s) => (Cow::Borrowed(s), t.strides().to_vec(), t.offset()),
            None => (Cow::Owned(gather::<T>(t)), contiguous_strides(t.sizes()), 0),
        };
        let strides = expand_strides(t.sizes(), &strides, sizes)?;
        Ok(Src {
            data,
            strides,
            offset,
        })
    }

    /// Reads `t` as `T` with its own sizes.
    pub(crate) fn of(t: &'a Tensor) -> Result<Src<'a, T>, OpError> {
        Src::tensor(t, t.sizes())
    }

    /// A number, broadcast to a space of `rank` dims.
    pub(crate) fn scalar(v: T, rank: usize) -> Src<'a, T> {
        Src {
            data: Cow::Owned(vec![v]),
            strides: vec![0; rank],
            offset: 0,
        }
    }
}

/// The elements of `t` in logical order, converted to `D`.
pub(crate) fn gather<D: Elem>(t: &Tensor) -> Vec<D> {
    with_elem!(t.dtype(), S => gather_as::<S, D>(t))
}

fn gather_as<S: Elem, D: Elem>(t: &Tensor) -> Vec<D> {
    let Some(src) = S::slice(t.storage()) else {
        return Vec::new();
    };
    let numel = t.numel();
    if numel == 0 {
        // An empty view may start past its storage's end (a slice of an empty tensor).
        return Vec::new();
    }
    let mut out = Vec::with_capacity(numel);
    if t.is_contiguous() {
        let o = t.offset();
        out.extend(src[o..o + numel].iter().map(|x| x.cast::<D>()));
        return out;
    }
    let plan = Plan::new(t.sizes(), [t.strides()]);
    let (n, [s]) = (plan.inner_len, plan.inner_strides);
    plan.for_each_row([t.offset()], |[o]| {
        out.extend((0..n).map(|i| src[o + i * s].cast::<D>()));
    });
    out
}

/// A new contiguous tensor with the elements of `t` converted to `dtype`. Always copies.
pub(crate) fn convert(t: &Tensor, dtype: DType) -> Result<Tensor, OpError> {
    let data = with_elem!(dtype, D => D::into_data(gather::<D>(t)));
    Ok(Tensor::new(data, t.sizes().to_vec())?)
}

/// A contiguous tensor of `dtype` from values computed in `C`.
pub(crate) fn finish<C: Elem>(
    values: Vec<C>,
    dtype: DType,
    sizes: Vec<usize>,
) -> Result<Tensor, OpError> {
    let data = if C::DTYPE == dtype {
        C::into_data(values)
    } else {
        with_elem!(dtype, D => D::into_data(values.into_iter().map(|x| x.cast::<D>()).collect()))
    };
    Ok(Tensor::new(data, sizes)?)
}

/// `x` rounded to `dtype` and back (PyTorch materializes intermediate results in the tensor's
/// dtype, e.g. the sum inside `mean` of f16).
pub(crate) fn round_through<C: Elem>(dtype: DType, x: C) -> C {
    with_elem!(dtype, D => x.cast::<D>().cast::<C>())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in units in the last place between an f32 and the exact value.
    fn ulps(got: f32, exact: f64) -> f64 {
        let e = exact as f32;
        let ulp = (f32::from_bits(e.to_bits() + 1) - e)
            .abs()
            .max(f32::from_bits(1)) as f64;
        (got as f64 - exact).abs() / ulp
    }

    #[test]
    fn exp_f32_is_within_two_ulp_everywhere() {
        let mut worst = 0.0f64;
        let mut x = -104.0f32;
        while x < 89.0 {
            let exact = (x as f64).exp();
            if exact < f32::MAX as f64 && exact > f32::MIN_POSITIVE as f64 {
                worst = worst.max(ulps(exp_f32(x), exact));
            }
            x += 0.000_731;
        }
        assert!(worst <= 2.0, "worst error {worst} ulp");
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(-200.0), 0.0);
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(100.0), f32::INFINITY);
        assert!(exp_f32(f32::NAN).is_nan());
        // Subnormal results are close to exact.
        let sub = exp_f32(-100.0) as f64;
        assert!((sub - (-100f64).exp()).abs() <= f32::from_bits(2) as f64);
    }
}
