//! The vectorized math library: LLVM IR for `exp log log1p tanh sigmoid erf sin cos sqrt rsqrt`
//! on `float`/`double` scalars and vectors of any width, emitted into the caller's module as
//! `alwaysinline` internal functions (`coil_exp_v8f32`, `coil_exp_f32`, `coil_log_v4f64`, ...)
//! that disappear into the kernel once LLVM inlines them.
//!
//! Every f32 function is computed with vector instructions only: Cody–Waite range reduction and
//! polynomials fitted by `tools/vmath_coeffs.py`, evaluated with FMA; special values (±0, ±inf,
//! NaN, overflow, underflow into subnormals) are handled by selects, with two per-vector
//! branches: `exp` takes a short path when every lane's result is a normal number and the
//! general one otherwise, and `sin`/`cos` of arguments above 2^24 in magnitude (and ±inf) take
//! a rarely taken branch to a per-lane call of the host's libm. For f64, `exp log
//! log1p tanh sigmoid sqrt rsqrt` are native; `erf sin cos` call the host's libm per lane (a
//! documented fallback). Accuracy is measured by the crate's tests; see `docs/cpu.md`.

mod coeffs;
mod emit;
mod explog;
mod special;
mod trig;

use inkwell::attributes::AttributeLoc;
use inkwell::builder::Builder;
use inkwell::context::ContextRef;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicTypeEnum, FloatType, IntType};
use inkwell::values::{BasicValueEnum, FunctionValue};

use crate::CpuError;
use emit::{Em, V};

/// A float element type the math library handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatKind {
    /// IEEE single (`float`).
    F32,
    /// IEEE double (`double`).
    F64,
}

impl FloatKind {
    fn llvm_type<'ctx>(self, cx: ContextRef<'ctx>) -> FloatType<'ctx> {
        match self {
            FloatKind::F32 => cx.f32_type(),
            FloatKind::F64 => cx.f64_type(),
        }
    }

    fn int_type<'ctx>(self, cx: ContextRef<'ctx>) -> IntType<'ctx> {
        match self {
            FloatKind::F32 => cx.i32_type(),
            FloatKind::F64 => cx.i64_type(),
        }
    }

    fn exp_bias(self) -> i64 {
        match self {
            FloatKind::F32 => 127,
            FloatKind::F64 => 1023,
        }
    }

    fn mantissa_bits(self) -> i64 {
        match self {
            FloatKind::F32 => 23,
            FloatKind::F64 => 52,
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            FloatKind::F32 => "f32",
            FloatKind::F64 => "f64",
        }
    }
}

pub use coil_graph::MathFn;

/// How the vector math library emits each [`MathFn`] (`pow` is not among them: the translator
/// builds it from `exp` and `log`).
pub trait VMathFn {
    /// Whether `kind` values are computed with vector code (`false`: a per-lane call of the
    /// host's libm, only for f64 `erf`, `sin`, `cos`).
    fn vectorized(self, kind: FloatKind) -> bool;
    /// The name of the emitted function for `kind` values with `width` lanes, e.g.
    /// `coil_exp_v8f32` (`coil_exp_f32` for width 1).
    fn symbol(self, kind: FloatKind, width: u32) -> String;
}

impl VMathFn for MathFn {
    fn vectorized(self, kind: FloatKind) -> bool {
        kind == FloatKind::F32 || !matches!(self, MathFn::Erf | MathFn::Sin | MathFn::Cos)
    }

    fn symbol(self, kind: FloatKind, width: u32) -> String {
        if width == 1 {
            format!("coil_{}_{}", self.name(), kind.suffix())
        } else {
            format!("coil_{}_v{width}{}", self.name(), kind.suffix())
        }
    }
}

/// Which algorithms the math library emits where it has a choice. The default uses plain
/// LLVM IR only, for any target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VMathOptions {
    /// f32 `exp` on 8-lane vectors reduces its argument by `ln 2 / 8` and looks `2^(j/8)` up in
    /// an eight-entry table held in one register (AVX2's `vpermps`), so a degree-3 polynomial
    /// replaces the degree-6 one: three FMAs fewer, a shorter dependency chain and two constant
    /// registers fewer in the hot loops of softmax-like kernels, within 2 ulp like the
    /// polynomial. JIT code runs on this host, so the option is ignored where the host lacks
    /// AVX2 (LLVM could not select `vpermps` there).
    pub table_exp: bool,
}

/// The math library bound to one module: emits each function the first time it is used.
#[derive(Debug, Clone, Copy)]
pub struct VMath<'m, 'ctx> {
    module: &'m Module<'ctx>,
    options: VMathOptions,
}

impl<'m, 'ctx> VMath<'m, 'ctx> {
    /// Binds the library to `module` with the default options. Functions are defined lazily, on
    /// first [`VMath::call`] or [`VMath::function`], so unused ones cost nothing.
    pub fn declare(module: &'m Module<'ctx>) -> Self {
        Self::with_options(module, VMathOptions::default())
    }

    /// Binds the library to `module` with `options` (those this host cannot run turned off).
    pub fn with_options(module: &'m Module<'ctx>, options: VMathOptions) -> Self {
        let options = VMathOptions {
            table_exp: options.table_exp && crate::jit::host_has_feature("avx2"),
        };
        VMath { module, options }
    }

    /// Emits `f(value)` at `builder`'s position. `value` is a `float` or `double` scalar or a
    /// vector of them, of any width; the result has the same type.
    pub fn call(
        &self,
        builder: &Builder<'ctx>,
        f: MathFn,
        value: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, CpuError> {
        self.emit_call(builder, f, value, false)
    }

    /// Emits `e^value` for a `value` whose every lane the caller knows to be within
    /// `±`[`exp_in_range_limit`] and not NaN (softmax's `x - max` in a row whose spread is
    /// small): the short path of [`MathFn::Exp`] alone, without its per-vector range test and
    /// branch, so the same bits as [`VMath::call`] for such arguments. Other arguments give
    /// wrong results (never undefined behaviour).
    pub fn call_exp_in_range(
        &self,
        builder: &Builder<'ctx>,
        value: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, CpuError> {
        self.emit_call(builder, MathFn::Exp, value, true)
    }

    /// The call of [`VMath::call`] (or, with `in_range`, of [`VMath::call_exp_in_range`]).
    fn emit_call(
        &self,
        builder: &Builder<'ctx>,
        f: MathFn,
        value: BasicValueEnum<'ctx>,
        in_range: bool,
    ) -> Result<BasicValueEnum<'ctx>, CpuError> {
        if f.arity() != 1 {
            return Err(CpuError::UnsupportedType {
                function: f.name(),
                ty: "one value (the translator builds pow from exp and log)".into(),
            });
        }
        let (kind, width) = classify(f, value, self.module.get_context())?;
        let function = self.function_of(f, kind, width, in_range)?;
        builder
            .build_call(function, &[value.into()], f.name())?
            .try_as_basic_value()
            .basic()
            .ok_or(CpuError::MissingIntrinsic("(void math call)"))
    }

    /// The function computing `f` on `kind` values with `width` lanes (1 = scalar), defined in
    /// the module if it is not there yet.
    pub fn function(
        &self,
        f: MathFn,
        kind: FloatKind,
        width: u32,
    ) -> Result<FunctionValue<'ctx>, CpuError> {
        self.function_of(f, kind, width, false)
    }

    /// [`VMath::function`], or with `in_range` the `exp` of [`VMath::call_exp_in_range`]
    /// (`coil_exp_v8f32_table_inrange`, ...).
    fn function_of(
        &self,
        f: MathFn,
        kind: FloatKind,
        width: u32,
        in_range: bool,
    ) -> Result<FunctionValue<'ctx>, CpuError> {
        let table_exp = self.options.table_exp
            && f == MathFn::Exp
            && kind == FloatKind::F32
            && width == explog::TABLE_EXP_LANES;
        let in_range = in_range && f == MathFn::Exp;
        let mut name = f.symbol(kind, width);
        if table_exp {
            name.push_str("_table");
        }
        if in_range {
            name.push_str("_inrange");
        }
        if let Some(existing) = self.module.get_function(&name) {
            return Ok(existing);
        }
        let cx = self.module.get_context();
        let builder = cx.create_builder();
        let em = Em {
            cx,
            b: &builder,
            module: self.module,
            kind,
            width,
        };
        let ty = em.fty();
        let fn_type = match ty {
            BasicTypeEnum::FloatType(t) => t.fn_type(&[ty.into()], false),
            BasicTypeEnum::VectorType(t) => t.fn_type(&[ty.into()], false),
            _ => unreachable!("fty is a float or float vector type"),
        };
        let function = self
            .module
            .add_function(&name, fn_type, Some(Linkage::Internal));
        for attr in ["alwaysinline", "nounwind", "willreturn"] {
            let kind_id = inkwell::attributes::Attribute::get_named_enum_kind_id(attr);
            function.add_attribute(AttributeLoc::Function, cx.create_enum_attribute(kind_id, 0));
        }
        let entry = cx.append_basic_block(function, "entry");
        builder.position_at_end(entry);
        let x = function
            .get_nth_param(0)
            .ok_or(CpuError::MissingIntrinsic("(math function parameter)"))?;
        let y = if in_range {
            explog::exp_in_range(&em, x, table_exp)?
        } else if table_exp {
            explog::exp_table(&em, function, x)?
        } else {
            emit_body(&em, function, f, x)?
        };
        builder.build_return(Some(&y))?;
        Ok(function)
    }
}

/// The largest `|x|` for which [`VMath::call_exp_in_range`] computes `e^x` (`kind`'s normal
/// results with room to spare: 86 for f32, 700 for f64).
pub fn exp_in_range_limit(kind: FloatKind) -> f64 {
    explog::in_range_limit(kind)
}

fn classify<'ctx>(
    f: MathFn,
    value: BasicValueEnum<'ctx>,
    cx: ContextRef<'ctx>,
) -> Result<(FloatKind, u32), CpuError> {
    let unsupported = || CpuError::UnsupportedType {
        function: f.name(),
        ty: value.get_type().to_string(),
    };
    let kind_of = |t: FloatType<'_>| {
        if t == cx.f32_type() {
            Some(FloatKind::F32)
        } else if t == cx.f64_type() {
            Some(FloatKind::F64)
        } else {
            None
        }
    };
    match value {
        BasicValueEnum::FloatValue(v) => Ok((kind_of(v.get_type()).ok_or_else(unsupported)?, 1)),
        BasicValueEnum::VectorValue(v) => match v.get_type().get_element_type() {
            BasicTypeEnum::FloatType(t) => {
                Ok((kind_of(t).ok_or_else(unsupported)?, v.get_type().get_size()))
            }
            _ => Err(unsupported()),
        },
        _ => Err(unsupported()),
    }
}

fn emit_body<'ctx>(
    em: &Em<'_, 'ctx>,
    function: FunctionValue<'ctx>,
    f: MathFn,
    x: V<'ctx>,
) -> Result<V<'ctx>, CpuError> {
    if !f.vectorized(em.kind) {
        return trig::per_lane_host_call(em, f, x);
    }
    match f {
        MathFn::Exp => explog::exp(em, function, x),
        MathFn::Log => explog::log(em, x),
        MathFn::Log1p => explog::log1p(em, x),
        MathFn::Tanh => special::tanh(em, x),
        MathFn::Sigmoid => special::sigmoid(em, x),
        MathFn::Erf => special::erf(em, x),
        MathFn::Sin => trig::sin_cos(em, function, x, false),
        MathFn::Cos => trig::sin_cos(em, function, x, true),
        MathFn::Sqrt => em.un("llvm.sqrt", x),
        MathFn::Rsqrt => {
            let s = em.un("llvm.sqrt", x)?;
            em.div(em.c(1.0), s)
        }
        MathFn::Pow => Err(CpuError::UnsupportedType {
            function: f.name(),
            ty: "one value (the translator builds pow from exp and log)".into(),
        }),
    }
}

extern "C" fn coil_rt_sin_f32(x: f32) -> f32 {
    (x as f64).sin() as f32
}
extern "C" fn coil_rt_cos_f32(x: f32) -> f32 {
    (x as f64).cos() as f32
}
extern "C" fn coil_rt_sin_f64(x: f64) -> f64 {
    x.sin()
}
extern "C" fn coil_rt_cos_f64(x: f64) -> f64 {
    x.cos()
}
extern "C" fn coil_rt_erf_f64(x: f64) -> f64 {
    libm::erf(x)
}

/// The host functions JIT-compiled math code may call (the slow paths above), by symbol name,
/// with their addresses. [`crate::JitModule::compile`] maps them into every module.
pub fn runtime_symbols() -> Vec<(&'static str, usize)> {
    vec![
        (
            "coil_rt_sin_f32",
            coil_rt_sin_f32 as extern "C" fn(f32) -> f32 as usize,
        ),
        (
            "coil_rt_cos_f32",
            coil_rt_cos_f32 as extern "C" fn(f32) -> f32 as usize,
        ),
        (
            "coil_rt_sin_f64",
            coil_rt_sin_f64 as extern "C" fn(f64) -> f64 as usize,
        ),
        (
            "coil_rt_cos_f64",
            coil_rt_cos_f64 as extern "C" fn(f64) -> f64 as usize,
        ),
        (
            "coil_rt_erf_f64",
            coil_rt_erf_f64 as extern "C" fn(f64) -> f64 as usize,
        ),
    ]
}

/// The host function for `f` on `kind` scalars (the slow path or the f64 fallback).
fn runtime_symbol(f: MathFn, kind: FloatKind) -> Option<&'static str> {
    Some(match (f, kind) {
        (MathFn::Sin, FloatKind::F32) => "coil_rt_sin_f32",
        (MathFn::Cos, FloatKind::F32) => "coil_rt_cos_f32",
        (MathFn::Sin, FloatKind::F64) => "coil_rt_sin_f64",
        (MathFn::Cos, FloatKind::F64) => "coil_rt_cos_f64",
        (MathFn::Erf, FloatKind::F64) => "coil_rt_erf_f64",
        _ => return None,
    })
}
