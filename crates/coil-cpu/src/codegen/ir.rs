//! A small untyped LLVM emitter for the translator: values are scalars or `W`-lane vectors of
//! one of five compute types (`i1`, `i32`, `i64`, `float`, `double`); operations broadcast a
//! scalar operand when the other is a vector, so one code path serves the vector body and the
//! scalar tail. Memory encodings (bools as bytes, f16 as `half`, bf16 as `i16`) are converted to
//! and from compute types at loads and stores.

use coil_graph::DType;
use inkwell::builder::Builder;
use inkwell::context::ContextRef;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::Module;
use inkwell::types::{BasicTypeEnum, FloatType, IntType, VectorType};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValue, BasicValueEnum, FunctionValue, IntValue, PointerValue,
};
use inkwell::{FloatPredicate, IntPredicate};

use crate::CpuError;
use crate::vmath::{VMath, VMathOptions};

/// A value: a scalar or a vector of a compute type.
pub(crate) type V<'ctx> = BasicValueEnum<'ctx>;

/// The register type a dtype computes in (PyTorch's opmath: f16 and bf16 compute in f32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Bool,
    I32,
    I64,
    F32,
    F64,
}

impl Class {
    pub(crate) fn of(d: DType) -> Class {
        match d {
            DType::Bool => Class::Bool,
            // The narrow integers compute in i32 and wrap after every op (`Ir::wrap`).
            DType::U8 | DType::I8 | DType::I16 | DType::I32 => Class::I32,
            DType::I64 => Class::I64,
            DType::F16 | DType::BF16 | DType::F32 => Class::F32,
            DType::F64 => Class::F64,
        }
    }

    pub(crate) fn is_float(self) -> bool {
        matches!(self, Class::F32 | Class::F64)
    }

    /// Bytes of one element in registers (and in the row cache).
    pub(crate) fn bytes(self) -> usize {
        match self {
            Class::Bool => 1,
            Class::I32 | Class::F32 => 4,
            Class::I64 | Class::F64 => 8,
        }
    }
}

pub(crate) fn err(msg: impl Into<String>) -> CpuError {
    CpuError::Codegen {
        kernel: String::new(),
        message: msg.into(),
    }
}

fn mismatch(what: &str, a: V<'_>, b: V<'_>) -> CpuError {
    err(format!(
        "{what}: operand types {} and {} do not match",
        a.get_type(),
        b.get_type()
    ))
}

macro_rules! bin {
    ($name:ident, $method:ident, float) => {
        pub(crate) fn $name(&self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>, CpuError> {
            let (a, b) = self.unify(a, b)?;
            Ok(match (a, b) {
                (V::FloatValue(x), V::FloatValue(y)) => self.b.$method(x, y, "")?.into(),
                (V::VectorValue(x), V::VectorValue(y)) => self.b.$method(x, y, "")?.into(),
                _ => return Err(mismatch(stringify!($name), a, b)),
            })
        }
    };
    ($name:ident, $method:ident, int) => {
        pub(crate) fn $name(&self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>, CpuError> {
            let (a, b) = self.unify(a, b)?;
            Ok(match (a, b) {
                (V::IntValue(x), V::IntValue(y)) => self.b.$method(x, y, "")?.into(),
                (V::VectorValue(x), V::VectorValue(y)) => self.b.$method(x, y, "")?.into(),
                _ => return Err(mismatch(stringify!($name), a, b)),
            })
        }
    };
}

/// Emits instructions at `b`'s position.
pub(crate) struct Ir<'a, 'ctx> {
    pub(crate) cx: ContextRef<'ctx>,
    pub(crate) b: &'a Builder<'ctx>,
    pub(crate) module: &'a Module<'ctx>,
    pub(crate) vm: VMath<'a, 'ctx>,
}

impl<'a, 'ctx> Ir<'a, 'ctx> {
    pub(crate) fn new(b: &'a Builder<'ctx>, module: &'a Module<'ctx>, math: VMathOptions) -> Self {
        Ir {
            cx: module.get_context(),
            b,
            module,
            vm: VMath::with_options(module, math),
        }
    }

    // ---- types ----

    pub(crate) fn i1(&self) -> IntType<'ctx> {
        self.cx.bool_type()
    }

    pub(crate) fn i64t(&self) -> IntType<'ctx> {
        self.cx.i64_type()
    }

    /// The scalar register type of a class.
    pub(crate) fn scalar_ty(&self, c: Class) -> BasicTypeEnum<'ctx> {
        match c {
            Class::Bool => self.cx.bool_type().into(),
            Class::I32 => self.cx.i32_type().into(),
            Class::I64 => self.cx.i64_type().into(),
            Class::F32 => self.cx.f32_type().into(),
            Class::F64 => self.cx.f64_type().into(),
        }
    }

    /// `ty` with `width` lanes (itself for width 1).
    pub(crate) fn lanes(&self, ty: BasicTypeEnum<'ctx>, width: u32) -> BasicTypeEnum<'ctx> {
        if width == 1 {
            return ty;
        }
        match ty {
            BasicTypeEnum::FloatType(t) => t.vec_type(width).into(),
            BasicTypeEnum::IntType(t) => t.vec_type(width).into(),
            BasicTypeEnum::PointerType(t) => t.vec_type(width).into(),
            other => other,
        }
    }

    pub(crate) fn ty(&self, c: Class, width: u32) -> BasicTypeEnum<'ctx> {
        self.lanes(self.scalar_ty(c), width)
    }

    /// The element type a dtype has in memory.
    pub(crate) fn mem_ty(&self, d: DType) -> BasicTypeEnum<'ctx> {
        match d {
            DType::Bool | DType::U8 | DType::I8 => self.cx.i8_type().into(),
            DType::I16 => self.cx.i16_type().into(),
            DType::I32 => self.cx.i32_type().into(),
            DType::I64 => self.cx.i64_type().into(),
            DType::F16 => self.cx.f16_type().into(),
            DType::BF16 => self.cx.i16_type().into(),
            DType::F32 => self.cx.f32_type().into(),
            DType::F64 => self.cx.f64_type().into(),
        }
    }

    /// Lanes of a value (1 for a scalar).
    pub(crate) fn width(v: V<'ctx>) -> u32 {
        match v {
            V::VectorValue(x) => x.get_type().get_size(),
            _ => 1,
        }
    }

    /// The scalar type of a value's lanes.
    fn elem_ty(v: V<'ctx>) -> BasicTypeEnum<'ctx> {
        match v {
            V::VectorValue(x) => x.get_type().get_element_type(),
            other => other.get_type(),
        }
    }

    // ---- constants, lanes, broadcast ----

    pub(crate) fn cf(&self, c: Class, x: f64) -> V<'ctx> {
        match c {
            Class::F64 => self.cx.f64_type().const_float(x).into(),
            _ => self.cx.f32_type().const_float(x as f32 as f64).into(),
        }
    }

    pub(crate) fn ci(&self, c: Class, x: i64) -> V<'ctx> {
        match c {
            Class::Bool => self.i1().const_int((x != 0) as u64, false).into(),
            Class::I32 => self.cx.i32_type().const_int(x as i32 as u64, true).into(),
            _ => self.i64t().const_int(x as u64, true).into(),
        }
    }

    pub(crate) fn i64c(&self, x: i64) -> IntValue<'ctx> {
        self.i64t().const_int(x as u64, true)
    }

    /// `0` of a class (false, 0, 0.0).
    pub(crate) fn zero(&self, c: Class) -> V<'ctx> {
        if c.is_float() {
            self.cf(c, 0.0)
        } else {
            self.ci(c, 0)
        }
    }

    /// `<0, 1, ..., width-1>` as i64 lanes.
    pub(crate) fn lane_offsets(&self, width: u32) -> V<'ctx> {
        let lanes: Vec<IntValue<'ctx>> = (0..width as i64).map(|i| self.i64c(i)).collect();
        VectorType::const_vector(&lanes).into()
    }

    /// `s` in every one of `width` lanes (itself for width 1).
    pub(crate) fn splat(&self, s: V<'ctx>, width: u32) -> Result<V<'ctx>, CpuError> {
        if width == 1 || matches!(s, V::VectorValue(_)) {
            return Ok(s);
        }
        let vt = match self.lanes(s.get_type(), width) {
            BasicTypeEnum::VectorType(t) => t,
            other => return Err(err(format!("cannot splat {other}"))),
        };
        let poison = vt.get_poison();
        let zero = self.cx.i32_type().const_zero();
        let ins = self.b.build_insert_element(poison, s, zero, "")?;
        let mask = self.cx.i32_type().vec_type(width).const_zero();
        Ok(self.b.build_shuffle_vector(ins, poison, mask, "")?.into())
    }

    /// Both operands at the wider one's width.
    pub(crate) fn unify(&self, a: V<'ctx>, b: V<'ctx>) -> Result<(V<'ctx>, V<'ctx>), CpuError> {
        let w = Self::width(a).max(Self::width(b));
        Ok((self.splat(a, w)?, self.splat(b, w)?))
    }

    pub(crate) fn extract(&self, v: V<'ctx>, lane: u32) -> Result<V<'ctx>, CpuError> {
        match v {
            V::VectorValue(x) => Ok(self.b.build_extract_element(
                x,
                self.cx.i32_type().const_int(lane as u64, false),
                "",
            )?),
            s => Ok(s),
        }
    }

    /// Lanes `from..from+n` of a vector (a scalar for `n == 1`).
    pub(crate) fn sub_vector(&self, v: V<'ctx>, from: u32, n: u32) -> Result<V<'ctx>, CpuError> {
        if n == 1 {
            return self.extract(v, from);
        }
        let V::VectorValue(x) = v else {
            return Err(err("sub_vector of a scalar"));
        };
        let mask: Vec<IntValue<'ctx>> = (from..from + n)
            .map(|i| self.cx.i32_type().const_int(i as u64, false))
            .collect();
        Ok(self
            .b
            .build_shuffle_vector(
                x,
                x.get_type().get_poison(),
                VectorType::const_vector(&mask),
                "",
            )?
            .into())
    }

    /// An undefined vector of `width` lanes of `elem`.
    pub(crate) fn poison(&self, elem: BasicTypeEnum<'ctx>, width: u32) -> V<'ctx> {
        match self.lanes(elem, width) {
            BasicTypeEnum::VectorType(t) => t.get_poison().into(),
            BasicTypeEnum::FloatType(t) => t.get_poison().into(),
            BasicTypeEnum::IntType(t) => t.get_poison().into(),
            BasicTypeEnum::PointerType(t) => t.get_poison().into(),
            other => other.const_zero(),
        }
    }

    /// Names an instruction (constants and arguments keep theirs).
    pub(crate) fn name(&self, v: V<'ctx>, name: &str) {
        if v.as_instruction_value().is_some() && v.get_name().to_bytes().is_empty() {
            v.set_name(name);
        }
    }

    // ---- arithmetic ----

    bin!(fadd, build_float_add, float);
    bin!(fsub, build_float_sub, float);
    bin!(fmul, build_float_mul, float);
    bin!(fdiv, build_float_div, float);
    bin!(frem, build_float_rem, float);
    bin!(iadd, build_int_add, int);
    bin!(isub, build_int_sub, int);
    bin!(imul, build_int_mul, int);
    bin!(sdiv, build_int_signed_div, int);
    bin!(srem, build_int_signed_rem, int);
    bin!(and, build_and, int);
    bin!(or, build_or, int);
    bin!(xor, build_xor, int);
    bin!(shl, build_left_shift, int);

    pub(crate) fn ashr(&self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        let (a, b) = self.unify(a, b)?;
        Ok(match (a, b) {
            (V::IntValue(x), V::IntValue(y)) => self.b.build_right_shift(x, y, true, "")?.into(),
            (V::VectorValue(x), V::VectorValue(y)) => {
                self.b.build_right_shift(x, y, true, "")?.into()
            }
            _ => return Err(mismatch("ashr", a, b)),
        })
    }

    pub(crate) fn lshr(&self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        let (a, b) = self.unify(a, b)?;
        Ok(match (a, b) {
            (V::IntValue(x), V::IntValue(y)) => self.b.build_right_shift(x, y, false, "")?.into(),
            (V::VectorValue(x), V::VectorValue(y)) => {
                self.b.build_right_shift(x, y, false, "")?.into()
            }
            _ => return Err(mismatch("lshr", a, b)),
        })
    }

    pub(crate) fn fneg(&self, a: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        Ok(match a {
            V::FloatValue(x) => self.b.build_float_neg(x, "")?.into(),
            V::VectorValue(x) => self.b.build_float_neg(x, "")?.into(),
            _ => return Err(err(format!("fneg of {}", a.get_type()))),
        })
    }

    pub(crate) fn fcmp(
        &self,
        p: FloatPredicate,
        a: V<'ctx>,
        b: V<'ctx>,
    ) -> Result<V<'ctx>, CpuError> {
        let (a, b) = self.unify(a, b)?;
        Ok(match (a, b) {
            (V::FloatValue(x), V::FloatValue(y)) => self.b.build_float_compare(p, x, y, "")?.into(),
            (V::VectorValue(x), V::VectorValue(y)) => {
                self.b.build_float_compare(p, x, y, "")?.into()
            }
            _ => return Err(mismatch("fcmp", a, b)),
        })
    }

    pub(crate) fn icmp(
        &self,
        p: IntPredicate,
        a: V<'ctx>,
        b: V<'ctx>,
    ) -> Result<V<'ctx>, CpuError> {
        let (a, b) = self.unify(a, b)?;
        Ok(match (a, b) {
            (V::IntValue(x), V::IntValue(y)) => self.b.build_int_compare(p, x, y, "")?.into(),
            (V::VectorValue(x), V::VectorValue(y)) => self.b.build_int_compare(p, x, y, "")?.into(),
            _ => return Err(mismatch("icmp", a, b)),
        })
    }

    /// `cond ? a : b`, lane by lane; a scalar condition selects whole values.
    pub(crate) fn select(
        &self,
        cond: V<'ctx>,
        a: V<'ctx>,
        b: V<'ctx>,
    ) -> Result<V<'ctx>, CpuError> {
        let w = Self::width(cond).max(Self::width(a)).max(Self::width(b));
        let (a, b) = (self.splat(a, w)?, self.splat(b, w)?);
        let cond = self.splat(cond, w)?;
        Ok(match cond {
            V::IntValue(c) => self.b.build_select(c, a, b, "")?,
            V::VectorValue(c) => self.b.build_select(c, a, b, "")?,
            _ => return Err(mismatch("select", cond, a)),
        })
    }

    // ---- conversions (the target given as a scalar type; lanes follow the value) ----

    fn vec_of_float(&self, t: FloatType<'ctx>, w: u32) -> inkwell::types::VectorType<'ctx> {
        t.vec_type(w)
    }

    pub(crate) fn fpcast(&self, a: V<'ctx>, to: FloatType<'ctx>) -> Result<V<'ctx>, CpuError> {
        let from = Self::elem_ty(a).into_float_type();
        if from == to {
            return Ok(a);
        }
        let widen = from.get_bit_width() < to.get_bit_width();
        Ok(match a {
            V::FloatValue(x) if widen => self.b.build_float_ext(x, to, "")?.into(),
            V::FloatValue(x) => self.b.build_float_trunc(x, to, "")?.into(),
            V::VectorValue(x) => {
                let vt = self.vec_of_float(to, x.get_type().get_size());
                if widen {
                    self.b.build_float_ext(x, vt, "")?.into()
                } else {
                    self.b.build_float_trunc(x, vt, "")?.into()
                }
            }
            _ => return Err(err("fpcast of a non-float")),
        })
    }

    /// Integer to float (`signed`: sitofp, else uitofp).
    pub(crate) fn itofp(
        &self,
        a: V<'ctx>,
        to: FloatType<'ctx>,
        signed: bool,
    ) -> Result<V<'ctx>, CpuError> {
        Ok(match a {
            V::IntValue(x) if signed => self.b.build_signed_int_to_float(x, to, "")?.into(),
            V::IntValue(x) => self.b.build_unsigned_int_to_float(x, to, "")?.into(),
            V::VectorValue(x) => {
                let vt = to.vec_type(x.get_type().get_size());
                if signed {
                    self.b.build_signed_int_to_float(x, vt, "")?.into()
                } else {
                    self.b.build_unsigned_int_to_float(x, vt, "")?.into()
                }
            }
            _ => return Err(err("itofp of a non-integer")),
        })
    }

    /// Integer resize: truncate, or extend (`signed`: sext, else zext).
    pub(crate) fn iresize(
        &self,
        a: V<'ctx>,
        to: IntType<'ctx>,
        signed: bool,
    ) -> Result<V<'ctx>, CpuError> {
        let from = Self::elem_ty(a).into_int_type();
        let (fb, tb) = (from.get_bit_width(), to.get_bit_width());
        if fb == tb {
            return Ok(a);
        }
        Ok(match a {
            V::IntValue(x) if fb > tb => self.b.build_int_truncate(x, to, "")?.into(),
            V::IntValue(x) if signed => self.b.build_int_s_extend(x, to, "")?.into(),
            V::IntValue(x) => self.b.build_int_z_extend(x, to, "")?.into(),
            V::VectorValue(x) => {
                let vt = to.vec_type(x.get_type().get_size());
                if fb > tb {
                    self.b.build_int_truncate(x, vt, "")?.into()
                } else if signed {
                    self.b.build_int_s_extend(x, vt, "")?.into()
                } else {
                    self.b.build_int_z_extend(x, vt, "")?.into()
                }
            }
            _ => return Err(err("iresize of a non-integer")),
        })
    }

    /// Reinterprets the bits of every lane as `to`.
    pub(crate) fn bitcast(&self, a: V<'ctx>, to: BasicTypeEnum<'ctx>) -> Result<V<'ctx>, CpuError> {
        let t = self.lanes(to, Self::width(a));
        Ok(self.b.build_bit_cast(a, t, "")?)
    }

    // ---- intrinsics and calls ----

    /// Calls the overloaded intrinsic `name` instantiated at `types`.
    pub(crate) fn intrinsic(
        &self,
        name: &'static str,
        types: &[BasicTypeEnum<'ctx>],
        args: &[V<'ctx>],
    ) -> Result<V<'ctx>, CpuError> {
        let f = Intrinsic::find(name)
            .and_then(|i| i.get_declaration(self.module, types))
            .ok_or(CpuError::MissingIntrinsic(name))?;
        self.call(f, args)
    }

    /// A float intrinsic overloaded on its operand type (`llvm.fabs`, `llvm.floor`, ...).
    pub(crate) fn fintr(&self, name: &'static str, args: &[V<'ctx>]) -> Result<V<'ctx>, CpuError> {
        let w = args.iter().map(|&a| Self::width(a)).max().unwrap_or(1);
        let args: Vec<V<'ctx>> = args
            .iter()
            .map(|&a| self.splat(a, w))
            .collect::<Result<_, _>>()?;
        self.intrinsic(name, &[args[0].get_type()], &args)
    }

    pub(crate) fn call(
        &self,
        f: FunctionValue<'ctx>,
        args: &[V<'ctx>],
    ) -> Result<V<'ctx>, CpuError> {
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|&a| a.into()).collect();
        self.b
            .build_call(f, &args, "")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| err("a call without a value"))
    }

    // ---- memory ----

    /// `&base[index]` for elements of `elem`.
    pub(crate) fn gep(
        &self,
        elem: BasicTypeEnum<'ctx>,
        base: PointerValue<'ctx>,
        index: IntValue<'ctx>,
    ) -> Result<PointerValue<'ctx>, CpuError> {
        // SAFETY (of the IR): the kernel IR promises its indices stay within the argument's
        // `len` elements, which the launch checks against the buffer's size.
        Ok(unsafe { self.b.build_in_bounds_gep(elem, base, &[index], "")? })
    }

    /// Loads `width` consecutive elements of dtype `d` at `base[index]`, decoded to compute
    /// form.
    pub(crate) fn load(
        &self,
        d: DType,
        base: PointerValue<'ctx>,
        index: IntValue<'ctx>,
        width: u32,
    ) -> Result<V<'ctx>, CpuError> {
        let elem = self.mem_ty(d);
        let p = self.gep(elem, base, index)?;
        let raw = self.b.build_load(self.lanes(elem, width), p, "")?;
        if let Some(i) = raw.as_instruction_value() {
            i.set_alignment(d.itemsize() as u32)
                .map_err(|e| err(e.to_string()))?;
        }
        self.decode(raw, d)
    }

    /// Loads one element at each lane's index: a gather, as LLVM's `llvm.masked.gather` of a
    /// vector of addresses with every lane on. LLVM lowers it to the host's gather
    /// instruction where its cost model finds one fast (AVX-512), and to one scalar load per
    /// lane otherwise; one instruction instead of four a lane also keeps the IR of a kernel
    /// full of strided loads small, which is most of what optimising it costs.
    pub(crate) fn gather(
        &self,
        d: DType,
        base: PointerValue<'ctx>,
        index: V<'ctx>,
    ) -> Result<V<'ctx>, CpuError> {
        let w = Self::width(index);
        let elem = self.mem_ty(d);
        if w == 1 {
            return self.load(d, base, index.into_int_value(), 1);
        }
        let ptrs = self.vector_gep(elem, base, index)?;
        let on = self.cx.bool_type().const_all_ones();
        let mask = self.splat(on.into(), w)?;
        let passthru = self.poison(elem, w);
        let align = self.cx.i32_type().const_int(d.itemsize() as u64, false);
        let raw = self.intrinsic(
            "llvm.masked.gather",
            &[self.lanes(elem, w), ptrs.get_type()],
            &[ptrs, align.into(), mask, passthru],
        )?;
        self.decode(raw, d)
    }

    /// `&base[index[lane]]` for every lane of the vector `index` (a vector of pointers).
    fn vector_gep(
        &self,
        elem: BasicTypeEnum<'ctx>,
        base: PointerValue<'ctx>,
        index: V<'ctx>,
    ) -> Result<V<'ctx>, CpuError> {
        use inkwell::llvm_sys::core::LLVMBuildInBoundsGEP2;
        use inkwell::types::AsTypeRef;
        use inkwell::values::AsValueRef;
        let mut indices = [index.as_value_ref()];
        // SAFETY: the builder is positioned in a function of this context, `elem` and `base`
        // are of it, and a vector of i64 is a valid GEP index (the result is a vector of
        // pointers, wrapped as such). The kernel IR promises its indices stay within the
        // argument's `len` elements, as for a scalar GEP.
        let gep = unsafe {
            LLVMBuildInBoundsGEP2(
                self.b.as_mut_ptr(),
                elem.as_type_ref(),
                base.as_value_ref(),
                indices.as_mut_ptr(),
                1,
                c"".as_ptr(),
            )
        };
        if gep.is_null() {
            return Err(err("a vector GEP was not built"));
        }
        // SAFETY: `gep` is a value of vector-of-pointers type, just built.
        Ok(unsafe { inkwell::values::VectorValue::new(gep) }.into())
    }

    /// Stores `value` (compute form of dtype `d`, any width) at `base[index]`, consecutively.
    pub(crate) fn store(
        &self,
        d: DType,
        base: PointerValue<'ctx>,
        index: IntValue<'ctx>,
        value: V<'ctx>,
    ) -> Result<(), CpuError> {
        self.store_hinted(d, base, index, value, None)
    }

    /// [`Ir::store`], optionally as a non-temporal (streaming) store aligned to `align` bytes:
    /// it bypasses the caches and skips reading the line first.
    pub(crate) fn store_hinted(
        &self,
        d: DType,
        base: PointerValue<'ctx>,
        index: IntValue<'ctx>,
        value: V<'ctx>,
        nontemporal_align: Option<u32>,
    ) -> Result<(), CpuError> {
        let raw = self.encode(value, d)?;
        let p = self.gep(self.mem_ty(d), base, index)?;
        let st = self.b.build_store(p, raw)?;
        let align = nontemporal_align.unwrap_or(d.itemsize() as u32);
        st.set_alignment(align).map_err(|e| err(e.to_string()))?;
        if nontemporal_align.is_some() {
            let kind = self.cx.get_kind_id("nontemporal");
            let one = self.cx.i32_type().const_int(1, false);
            let node = self.cx.metadata_node(&[one.into()]);
            st.set_metadata(node, kind)
                .map_err(|e| err(e.to_string()))?;
        }
        Ok(())
    }

    /// Stores a compute-form value (any width) at `base[index]` of an `elem` array.
    pub(crate) fn store_raw(
        &self,
        elem: BasicTypeEnum<'ctx>,
        base: PointerValue<'ctx>,
        index: IntValue<'ctx>,
        value: V<'ctx>,
    ) -> Result<(), CpuError> {
        let p = self.gep(elem, base, index)?;
        let st = self.b.build_store(p, value)?;
        st.set_alignment(Self::elem_align(elem))
            .map_err(|e| err(e.to_string()))?;
        Ok(())
    }

    /// Loads `width` consecutive compute-form values at `base[index]` of an `elem` array.
    pub(crate) fn load_raw(
        &self,
        elem: BasicTypeEnum<'ctx>,
        base: PointerValue<'ctx>,
        index: IntValue<'ctx>,
        width: u32,
    ) -> Result<V<'ctx>, CpuError> {
        let p = self.gep(elem, base, index)?;
        let v = self.b.build_load(self.lanes(elem, width), p, "")?;
        if let Some(i) = v.as_instruction_value() {
            i.set_alignment(Self::elem_align(elem))
                .map_err(|e| err(e.to_string()))?;
        }
        Ok(v)
    }

    /// The alignment of a scalar element type (its size).
    fn elem_align(elem: BasicTypeEnum<'ctx>) -> u32 {
        match elem {
            BasicTypeEnum::IntType(t) => (t.get_bit_width() / 8).max(1),
            BasicTypeEnum::FloatType(t) => (t.get_bit_width() / 8).max(1),
            _ => 8,
        }
    }

    /// Memory form to compute form.
    pub(crate) fn decode(&self, raw: V<'ctx>, d: DType) -> Result<V<'ctx>, CpuError> {
        match d {
            DType::Bool => self.icmp(IntPredicate::NE, raw, self.zero_like(raw)?),
            DType::F16 => self.fpcast(raw, self.cx.f32_type()),
            DType::BF16 => {
                let wide = self.iresize(raw, self.cx.i32_type(), false)?;
                let bits = self.shl(wide, self.ci(Class::I32, 16))?;
                self.bitcast(bits, self.cx.f32_type().into())
            }
            DType::U8 | DType::I8 | DType::I16 => {
                self.iresize(raw, self.cx.i32_type(), !d.is_unsigned())
            }
            _ => Ok(raw),
        }
    }

    /// A narrow integer's value (held in i32) wrapped to its width and signedness, as PyTorch
    /// stores it after every op; other dtypes unchanged.
    pub(crate) fn wrap(&self, v: V<'ctx>, d: DType) -> Result<V<'ctx>, CpuError> {
        if !d.is_narrow_int() {
            return Ok(v);
        }
        // Through the memory form and back: truncate, then sign- or zero-extend.
        let raw = self.encode(v, d)?;
        self.decode(raw, d)
    }

    /// `v` (of `from`, in compute form) read as `to`, of the same size: its memory form's
    /// bits reinterpreted, then widened to `to`'s compute form.
    pub(crate) fn bitcast_value(
        &self,
        v: V<'ctx>,
        from: DType,
        to: DType,
    ) -> Result<V<'ctx>, CpuError> {
        if from.itemsize() != to.itemsize() {
            return Err(err(format!("bitcast from {from} to {to}: sizes differ")));
        }
        let raw = self.encode(v, from)?;
        let raw = self.bitcast(raw, self.mem_ty(to))?;
        self.decode(raw, to)
    }

    /// Compute form to memory form.
    pub(crate) fn encode(&self, v: V<'ctx>, d: DType) -> Result<V<'ctx>, CpuError> {
        match d {
            DType::Bool => self.iresize(v, self.cx.i8_type(), false),
            DType::F16 => self.fpcast(v, self.cx.f16_type()),
            DType::BF16 => self.f32_to_bf16_bits(v),
            DType::U8 | DType::I8 | DType::I16 => {
                let narrow = self.mem_ty(d).into_int_type();
                self.iresize(v, narrow, true)
            }
            _ => Ok(v),
        }
    }

    fn zero_like(&self, v: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        let z = Self::elem_ty(v).const_zero();
        self.splat(z, Self::width(v))
    }

    /// f32 lanes rounded to bf16 (nearest, ties to even; NaN stays a quiet NaN), as `i16` bits.
    pub(crate) fn f32_to_bf16_bits(&self, v: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        let i32c = |x: i64| self.ci(Class::I32, x);
        let bits = self.bitcast(v, self.cx.i32_type().into())?;
        let lsb = self.and(self.lshr(bits, i32c(16))?, i32c(1))?;
        let rounded = self.iadd(bits, self.iadd(i32c(0x7FFF), lsb)?)?;
        let hi = self.lshr(rounded, i32c(16))?;
        let is_nan = self.fcmp(FloatPredicate::UNO, v, v)?;
        let hi = self.select(is_nan, i32c(0x7FC0), hi)?;
        self.iresize(hi, self.cx.i16_type(), false)
    }

    /// f32 lanes rounded to f16 precision (and back to f32).
    pub(crate) fn round_to_f16(&self, v: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        let h = self.fpcast(v, self.cx.f16_type())?;
        self.fpcast(h, self.cx.f32_type())
    }

    /// f32 lanes rounded to bf16 precision (and back to f32).
    pub(crate) fn round_to_bf16(&self, v: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        let bits = self.f32_to_bf16_bits(v)?;
        self.decode(bits, DType::BF16)
    }

    /// Stores a value that is not a kernel value (an accumulator slot).
    pub(crate) fn store_slot(&self, p: PointerValue<'ctx>, v: V<'ctx>) -> Result<(), CpuError> {
        self.b.build_store(p, v)?;
        Ok(())
    }

    pub(crate) fn load_slot(
        &self,
        p: PointerValue<'ctx>,
        ty: BasicTypeEnum<'ctx>,
        name: &str,
    ) -> Result<V<'ctx>, CpuError> {
        Ok(self.b.build_load(ty, p, name)?)
    }
}
