//! A tiny untyped IR emitter for the math library: float and integer arithmetic on values that
//! are either scalars (`float`) or vectors (`<8 x float>`), with splatted constants, so each
//! algorithm is written once for every width and both float types.

use inkwell::FloatPredicate;
use inkwell::IntPredicate;
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::ContextRef;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::Module;
use inkwell::types::{BasicType, BasicTypeEnum, VectorType};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, IntValue};

use super::FloatKind;
use crate::CpuError;

pub(crate) type V<'ctx> = BasicValueEnum<'ctx>;

/// Emits instructions at `b`'s position for values of `kind` with `width` lanes (1 = scalar).
pub(crate) struct Em<'a, 'ctx> {
    pub(crate) cx: ContextRef<'ctx>,
    pub(crate) b: &'a Builder<'ctx>,
    pub(crate) module: &'a Module<'ctx>,
    pub(crate) kind: FloatKind,
    pub(crate) width: u32,
}

fn mismatch(what: &str, a: V<'_>, b: V<'_>) -> CpuError {
    CpuError::UnsupportedType {
        function: "vmath emitter",
        ty: format!("{what}: {} and {}", a.get_type(), b.get_type()),
    }
}

macro_rules! bin {
    ($name:ident, $method:ident, float) => {
        pub(crate) fn $name(&self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>, CpuError> {
            Ok(match (a, b) {
                (V::FloatValue(x), V::FloatValue(y)) => self.b.$method(x, y, "")?.into(),
                (V::VectorValue(x), V::VectorValue(y)) => self.b.$method(x, y, "")?.into(),
                _ => return Err(mismatch(stringify!($name), a, b)),
            })
        }
    };
    ($name:ident, $method:ident, int) => {
        pub(crate) fn $name(&self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>, CpuError> {
            Ok(match (a, b) {
                (V::IntValue(x), V::IntValue(y)) => self.b.$method(x, y, "")?.into(),
                (V::VectorValue(x), V::VectorValue(y)) => self.b.$method(x, y, "")?.into(),
                _ => return Err(mismatch(stringify!($name), a, b)),
            })
        }
    };
}

impl<'a, 'ctx> Em<'a, 'ctx> {
    fn lanes(&self, scalar: BasicTypeEnum<'ctx>) -> BasicTypeEnum<'ctx> {
        if self.width == 1 {
            scalar
        } else {
            match scalar {
                BasicTypeEnum::FloatType(t) => t.vec_type(self.width).into(),
                BasicTypeEnum::IntType(t) => t.vec_type(self.width).into(),
                other => other,
            }
        }
    }

    /// The float type (`float`, `<8 x float>`, `double`, ...).
    pub(crate) fn fty(&self) -> BasicTypeEnum<'ctx> {
        self.lanes(self.kind.llvm_type(self.cx).into())
    }

    /// The integer type with the float type's bits and lanes.
    pub(crate) fn ity(&self) -> BasicTypeEnum<'ctx> {
        self.lanes(self.kind.int_type(self.cx).into())
    }

    fn splat(&self, scalar: V<'ctx>) -> V<'ctx> {
        if self.width == 1 {
            scalar
        } else {
            VectorType::const_vector(&vec![scalar; self.width as usize]).into()
        }
    }

    /// A float constant in every lane.
    pub(crate) fn c(&self, value: f64) -> V<'ctx> {
        self.splat(self.kind.llvm_type(self.cx).const_float(value).into())
    }

    /// An integer constant (of the float's width) in every lane.
    pub(crate) fn ci(&self, value: i64) -> V<'ctx> {
        let t = self.kind.int_type(self.cx);
        self.splat(t.const_int(value as u64, true).into())
    }

    bin!(add, build_float_add, float);
    bin!(sub, build_float_sub, float);
    bin!(mul, build_float_mul, float);
    bin!(div, build_float_div, float);
    bin!(iadd, build_int_add, int);
    bin!(isub, build_int_sub, int);
    bin!(and, build_and, int);
    bin!(or, build_or, int);
    bin!(xor, build_xor, int);
    bin!(shl, build_left_shift, int);

    /// Arithmetic (sign-extending) right shift.
    pub(crate) fn ashr(&self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        Ok(match (a, b) {
            (V::IntValue(x), V::IntValue(y)) => self.b.build_right_shift(x, y, true, "")?.into(),
            (V::VectorValue(x), V::VectorValue(y)) => {
                self.b.build_right_shift(x, y, true, "")?.into()
            }
            _ => return Err(mismatch("ashr", a, b)),
        })
    }

    /// Float comparison; gives an `i1` (or a vector of them).
    pub(crate) fn fcmp(
        &self,
        p: FloatPredicate,
        a: V<'ctx>,
        b: V<'ctx>,
    ) -> Result<V<'ctx>, CpuError> {
        Ok(match (a, b) {
            (V::FloatValue(x), V::FloatValue(y)) => self.b.build_float_compare(p, x, y, "")?.into(),
            (V::VectorValue(x), V::VectorValue(y)) => {
                self.b.build_float_compare(p, x, y, "")?.into()
            }
            _ => return Err(mismatch("fcmp", a, b)),
        })
    }

    /// Integer comparison; gives an `i1` (or a vector of them).
    pub(crate) fn icmp(
        &self,
        p: IntPredicate,
        a: V<'ctx>,
        b: V<'ctx>,
    ) -> Result<V<'ctx>, CpuError> {
        Ok(match (a, b) {
            (V::IntValue(x), V::IntValue(y)) => self.b.build_int_compare(p, x, y, "")?.into(),
            (V::VectorValue(x), V::VectorValue(y)) => self.b.build_int_compare(p, x, y, "")?.into(),
            _ => return Err(mismatch("icmp", a, b)),
        })
    }

    /// `cond ? a : b`, lane by lane.
    pub(crate) fn select(
        &self,
        cond: V<'ctx>,
        a: V<'ctx>,
        b: V<'ctx>,
    ) -> Result<V<'ctx>, CpuError> {
        Ok(match cond {
            V::IntValue(c) => self.b.build_select(c, a, b, "")?,
            V::VectorValue(c) => self.b.build_select(c, a, b, "")?,
            _ => return Err(mismatch("select", cond, a)),
        })
    }

    /// Reinterprets floats as integers of the same width.
    pub(crate) fn float_to_bits(&self, a: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        Ok(self.b.build_bit_cast(a, self.ity(), "")?)
    }

    /// Reinterprets integers as floats of the same width.
    pub(crate) fn bits_to_float(&self, a: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        Ok(self.b.build_bit_cast(a, self.fty(), "")?)
    }

    /// Float to signed integer (the value must be in range; callers clamp first).
    pub(crate) fn fptosi(&self, a: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        Ok(match (a, self.ity()) {
            (V::FloatValue(x), BasicTypeEnum::IntType(t)) => {
                self.b.build_float_to_signed_int(x, t, "")?.into()
            }
            (V::VectorValue(x), BasicTypeEnum::VectorType(t)) => {
                self.b.build_float_to_signed_int(x, t, "")?.into()
            }
            _ => return Err(mismatch("fptosi", a, a)),
        })
    }

    /// Signed integer to float.
    pub(crate) fn sitofp(&self, a: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        Ok(match (a, self.fty()) {
            (V::IntValue(x), BasicTypeEnum::FloatType(t)) => {
                self.b.build_signed_int_to_float(x, t, "")?.into()
            }
            (V::VectorValue(x), BasicTypeEnum::VectorType(t)) => {
                self.b.build_signed_int_to_float(x, t, "")?.into()
            }
            _ => return Err(mismatch("sitofp", a, a)),
        })
    }

    /// The declaration of the overloaded intrinsic `name` at the float type.
    pub(crate) fn intrinsic(&self, name: &'static str) -> Result<FunctionValue<'ctx>, CpuError> {
        intrinsic(self.module, name, self.fty())
    }

    fn call(&self, f: FunctionValue<'ctx>, args: &[V<'ctx>]) -> Result<V<'ctx>, CpuError> {
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|&a| a.into()).collect();
        self.b
            .build_call(f, &args, "")?
            .try_as_basic_value()
            .basic()
            .ok_or(CpuError::MissingIntrinsic("(void call)"))
    }

    /// A one-operand float intrinsic (`llvm.fabs`, `llvm.sqrt`, `llvm.rint`, ...).
    pub(crate) fn un(&self, name: &'static str, a: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        self.call(self.intrinsic(name)?, &[a])
    }

    /// A two-operand float intrinsic (`llvm.minnum`, `llvm.maxnum`, `llvm.copysign`).
    pub(crate) fn bi(
        &self,
        name: &'static str,
        a: V<'ctx>,
        b: V<'ctx>,
    ) -> Result<V<'ctx>, CpuError> {
        self.call(self.intrinsic(name)?, &[a, b])
    }

    /// `a * b + c` with one rounding (`llvm.fma`).
    pub(crate) fn fma(&self, a: V<'ctx>, b: V<'ctx>, c: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        self.call(self.intrinsic("llvm.fma")?, &[a, b, c])
    }

    /// `coeffs[0] + x * (coeffs[1] + x * (...))` by Horner's rule with FMA.
    pub(crate) fn poly(&self, x: V<'ctx>, coeffs: &[f64]) -> Result<V<'ctx>, CpuError> {
        let mut acc = self.c(coeffs[coeffs.len() - 1]);
        for &k in coeffs.iter().rev().skip(1) {
            acc = self.fma(acc, x, self.c(k))?;
        }
        Ok(acc)
    }

    /// Lane `i` of the result is lane `index[i] & 7` of `table`: AVX2's `vpermps`, for 8-lane
    /// f32 vectors only.
    pub(crate) fn permute8(&self, table: V<'ctx>, index: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        const NAME: &str = "llvm.x86.avx2.permps";
        let f = Intrinsic::find(NAME)
            .and_then(|i| i.get_declaration(self.module, &[]))
            .ok_or(CpuError::MissingIntrinsic(NAME))?;
        self.call(f, &[table, index])
    }

    /// `|a|`.
    pub(crate) fn abs(&self, a: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        self.un("llvm.fabs", a)
    }

    /// Lanes that are NaN.
    pub(crate) fn is_nan(&self, a: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        self.fcmp(FloatPredicate::UNO, a, a)
    }

    /// `a` clamped to `[lo, hi]` (NaN becomes `lo`; callers restore NaN themselves). Written
    /// as compare-and-select, which x86 does in one `maxps`/`minps` each (`llvm.maxnum`'s
    /// NaN rule costs two more instructions per bound).
    pub(crate) fn clamp(&self, a: V<'ctx>, lo: f64, hi: f64) -> Result<V<'ctx>, CpuError> {
        let (lo, hi) = (self.c(lo), self.c(hi));
        let above = self.fcmp(FloatPredicate::OGT, a, lo)?;
        let a = self.select(above, a, lo)?;
        let below = self.fcmp(FloatPredicate::OLT, a, hi)?;
        self.select(below, a, hi)
    }

    /// True when any lane of the `i1` mask `m` is set (`m` itself for a scalar).
    pub(crate) fn any_lane(&self, m: V<'ctx>) -> Result<IntValue<'ctx>, CpuError> {
        match m {
            V::IntValue(h) => Ok(h),
            V::VectorValue(h) => {
                let reduce = intrinsic(self.module, "llvm.vector.reduce.or", h.get_type().into())?;
                Ok(self
                    .b
                    .build_call(reduce, &[h.into()], "")?
                    .try_as_basic_value()
                    .basic()
                    .ok_or(CpuError::MissingIntrinsic("llvm.vector.reduce.or"))?
                    .into_int_value())
            }
            other => Err(mismatch("any_lane", other, other)),
        }
    }

    /// The block the builder emits into.
    pub(crate) fn block(&self) -> Result<BasicBlock<'ctx>, CpuError> {
        self.b
            .get_insert_block()
            .ok_or(CpuError::MissingIntrinsic("(builder not positioned)"))
    }

    /// `2^k` for integer lanes `k` in the normal exponent range.
    pub(crate) fn pow2i(&self, k: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        let biased = self.iadd(k, self.ci(self.kind.exp_bias()))?;
        let bits = self.shl(biased, self.ci(self.kind.mantissa_bits()))?;
        self.bits_to_float(bits)
    }

    /// `a * 2^k` for integer lanes `k` with `|k|` up to twice the exponent range, rounding once
    /// (subnormal results included): scales by `2^(k/2)` and `2^(k - k/2)`.
    pub(crate) fn ldexp(&self, a: V<'ctx>, k: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        let k1 = self.ashr(k, self.ci(1))?;
        let k2 = self.isub(k, k1)?;
        let a = self.mul(a, self.pow2i(k1)?)?;
        self.mul(a, self.pow2i(k2)?)
    }
}

/// The declaration of the overloaded intrinsic `name` at type `ty`.
pub(crate) fn intrinsic<'ctx>(
    module: &Module<'ctx>,
    name: &'static str,
    ty: BasicTypeEnum<'ctx>,
) -> Result<FunctionValue<'ctx>, CpuError> {
    Intrinsic::find(name)
        .and_then(|i| i.get_declaration(module, &[ty.as_basic_type_enum()]))
        .ok_or(CpuError::MissingIntrinsic(name))
}
