//! The kernel IR's operations on compute values, with PyTorch's semantics (the reference is
//! `coil_lower`'s interpreter): conversions, unary and binary ops, `where`, constants.
//! Transcendental functions go through the vector math library; integer division never traps.

use coil_graph::DType;
use coil_lower::{Const, Op};
use inkwell::{FloatPredicate as F, IntPredicate as I};

use super::ir::{Class, Ir, V, err};
use crate::CpuError;
use crate::vmath::MathFn;

impl<'ctx> Ir<'_, 'ctx> {
    /// `log(exp(a) + exp(b))` of floats of `dtype`: the larger plus `log1p(exp(-|a - b|))`,
    /// -inf where both are, NaN where either is (a `logcumsumexp` scan's combine).
    pub(crate) fn log_add_exp(
        &self,
        a: V<'ctx>,
        b: V<'ctx>,
        dtype: DType,
    ) -> Result<V<'ctx>, CpuError> {
        let m = self.binary(Op::Maximum, a, b, dtype, dtype, None)?;
        let d = self.binary(Op::Sub, a, b, dtype, dtype, None)?;
        let d = self.unary(Op::Abs, d, dtype, dtype)?;
        let d = self.unary(Op::Neg, d, dtype, dtype)?;
        let e = self.unary(Op::Exp, d, dtype, dtype)?;
        let l = self.unary(Op::Log1p, e, dtype, dtype)?;
        let r = self.binary(Op::Add, m, l, dtype, dtype, None)?;
        let ninf = self.cf(Class::of(dtype), f64::NEG_INFINITY);
        let none = self.fcmp(F::OEQ, m, ninf)?;
        self.select(none, m, r)
    }

    /// A constant of `dtype` (PyTorch's conversion of the written value to the dtype).
    pub(crate) fn constant(&self, c: Const, dtype: DType) -> V<'ctx> {
        let class = Class::of(dtype);
        match (c, class) {
            (c, Class::Bool) => self.ci(Class::Bool, (c.to_f64() != 0.0) as i64),
            (Const::Float(x), Class::F32 | Class::F64) => self.cf(class, round_const(x, dtype)),
            (Const::Int(i), Class::F32 | Class::F64) => {
                self.cf(class, round_const(i as f64, dtype))
            }
            (Const::Bool(b), Class::F32 | Class::F64) => self.cf(class, b as u8 as f64),
            (Const::Float(x), _) => self.ci(class, dtype.wrap(x as i64)),
            (Const::Int(i), _) => self.ci(class, dtype.wrap(i)),
            (Const::Bool(b), _) => self.ci(class, b as i64),
        }
    }

    /// Nonzero lanes (`i1`).
    pub(crate) fn truthy(&self, v: V<'ctx>, from: Class) -> Result<V<'ctx>, CpuError> {
        match from {
            Class::Bool => Ok(v),
            Class::F32 | Class::F64 => self.fcmp(F::UNE, v, self.zero(from)),
            Class::I32 | Class::I64 => self.icmp(I::NE, v, self.zero(from)),
        }
    }

    /// PyTorch's conversion from `from` to `to`: floats to integers truncate (saturating, NaN
    /// to 0, as the interpreter), nonzero is true, bools are 0/1. With `round`, a conversion to
    /// f16/bf16 rounds to that precision (an explicit cast); otherwise low-precision values
    /// stay in f32 (opmath).
    pub(crate) fn convert(
        &self,
        v: V<'ctx>,
        from: DType,
        to: DType,
        round: bool,
    ) -> Result<V<'ctx>, CpuError> {
        let (fc, tc) = (Class::of(from), Class::of(to));
        let out = match (fc, tc) {
            (_, Class::Bool) => self.truthy(v, fc)?,
            (Class::F32 | Class::F64, Class::F32 | Class::F64) => {
                self.fpcast(v, self.scalar_ty(tc).into_float_type())?
            }
            (Class::Bool, Class::F32 | Class::F64) => {
                self.itofp(v, self.scalar_ty(tc).into_float_type(), false)?
            }
            (Class::I32 | Class::I64, Class::F32 | Class::F64) => {
                self.itofp(v, self.scalar_ty(tc).into_float_type(), true)?
            }
            (Class::F32 | Class::F64, Class::I32 | Class::I64) => {
                let i64t = self.i64t();
                let w = Ir::width(v);
                let wide = self.intrinsic(
                    "llvm.fptosi.sat",
                    &[self.lanes(i64t.into(), w), v.get_type()],
                    &[v],
                )?;
                self.iresize(wide, self.scalar_ty(tc).into_int_type(), true)?
            }
            (Class::Bool, _) => self.iresize(v, self.scalar_ty(tc).into_int_type(), false)?,
            (_, _) => self.iresize(v, self.scalar_ty(tc).into_int_type(), true)?,
        };
        // Every op's result passes through here: a narrow integer wraps to its width.
        let out = self.wrap(out, to)?;
        if !round || from == to {
            return Ok(out);
        }
        match to {
            DType::F16 => self.round_to_f16(out),
            DType::BF16 => self.round_to_bf16(out),
            _ => Ok(out),
        }
    }

    /// `exp(a)` where the caller knows every lane of `a` (a float) to be within
    /// `±`[`crate::vmath::exp_in_range_limit`] and not NaN ([`crate::VMath::call_exp_in_range`]).
    pub(crate) fn exp_in_range(
        &self,
        a: V<'ctx>,
        from: DType,
        to: DType,
    ) -> Result<V<'ctx>, CpuError> {
        let x = self.convert(a, from, to, false)?;
        self.vm.call_exp_in_range(self.b, x)
    }

    /// A one-operand op on a value of dtype `from`, giving dtype `to`.
    pub(crate) fn unary(
        &self,
        op: Op,
        a: V<'ctx>,
        from: DType,
        to: DType,
    ) -> Result<V<'ctx>, CpuError> {
        let c = Class::of(from);
        if let Some(f) = math_fn(op) {
            // Float functions of integers compute in the result's float type (or f64).
            let fdt = if to.is_float() { to } else { DType::F64 };
            let x = self.convert(a, from, fdt, false)?;
            let y = self.vm.call(self.b, f, x)?;
            return self.convert(y, fdt, to, false);
        }
        let (r, rdt) = match (op, c) {
            (Op::LogicalNot, _) => (
                self.xor(self.truthy(a, c)?, self.ci(Class::Bool, 1))?,
                DType::Bool,
            ),
            (Op::BitwiseNot, _) => (self.xor(a, self.all_ones(c))?, from),
            (Op::Neg, Class::F32 | Class::F64) => (self.fneg(a)?, from),
            (Op::Neg, Class::Bool) => (a, from),
            (Op::Neg, _) => (self.isub(self.zero(c), a)?, from),
            (Op::Abs, Class::F32 | Class::F64) => (self.fintr("llvm.fabs", &[a])?, from),
            (Op::Abs, Class::Bool) => (a, from),
            (Op::Abs, _) => {
                let neg = self.isub(self.zero(c), a)?;
                let is_neg = self.icmp(I::SLT, a, self.zero(c))?;
                (self.select(is_neg, neg, a)?, from)
            }
            (Op::Floor | Op::Ceil | Op::Round | Op::Trunc, Class::F32 | Class::F64) => {
                let name = match op {
                    Op::Floor => "llvm.floor",
                    Op::Ceil => "llvm.ceil",
                    Op::Round => "llvm.roundeven",
                    _ => "llvm.trunc",
                };
                (self.fintr(name, &[a])?, from)
            }
            (Op::Floor | Op::Ceil | Op::Round | Op::Trunc, _) => (a, from),
            (Op::Relu, Class::F32 | Class::F64) => {
                // NaN stays NaN, -0 becomes 0 (the interpreter's `x > 0 || isnan(x)`).
                let keep = self.fcmp(F::UGT, a, self.zero(c))?;
                (self.select(keep, a, self.zero(c))?, from)
            }
            (Op::Relu, Class::Bool) => (a, from),
            (Op::Relu, _) => {
                let pos = self.icmp(I::SGT, a, self.zero(c))?;
                (self.select(pos, a, self.zero(c))?, from)
            }
            (Op::Reciprocal, Class::F32 | Class::F64) => (self.fdiv(self.cf(c, 1.0), a)?, from),
            (Op::Reciprocal, _) => {
                let fdt = if to.is_float() { to } else { DType::F64 };
                let x = self.convert(a, from, fdt, false)?;
                let fc = Class::of(fdt);
                (self.fdiv(self.cf(fc, 1.0), x)?, fdt)
            }
            // Sent to the math library above.
            (
                Op::Exp
                | Op::Log
                | Op::Log1p
                | Op::Sqrt
                | Op::Rsqrt
                | Op::Sin
                | Op::Cos
                | Op::Tanh
                | Op::Erf
                | Op::Sigmoid,
                _,
            ) => return Err(err(format!("{op} has no math function on the CPU"))),
            (Op::Where | coil_kernel::binary_ops!(), _) => {
                return Err(err(format!("{op} is not a one-operand op")));
            }
        };
        self.convert(r, rdt, to, false)
    }

    fn all_ones(&self, c: Class) -> V<'ctx> {
        self.ci(c, -1)
    }

    /// A two-operand op on values of dtype `from` (both), giving dtype `to`. `b_const` is the
    /// second operand's constant value, when it is one (for `pow`'s special exponents).
    pub(crate) fn binary(
        &self,
        op: Op,
        a: V<'ctx>,
        b: V<'ctx>,
        from: DType,
        to: DType,
        b_const: Option<f64>,
    ) -> Result<V<'ctx>, CpuError> {
        let c = Class::of(from);
        if matches!(op, Op::LogicalAnd | Op::LogicalOr) {
            let (x, y) = (self.truthy(a, c)?, self.truthy(b, c)?);
            let r = if op == Op::LogicalAnd {
                self.and(x, y)?
            } else {
                self.or(x, y)?
            };
            return self.convert(r, DType::Bool, to, false);
        }
        let (r, rdt) = match c {
            Class::F32 | Class::F64 => self.float_binary(op, a, b, c, b_const)?,
            Class::I32 | Class::I64 => self.int_binary(op, a, b, from, b_const)?,
            Class::Bool => self.bool_binary(op, a, b)?,
        };
        let rdt = rdt.unwrap_or(from);
        self.convert(r, rdt, to, false)
    }

    fn float_binary(
        &self,
        op: Op,
        a: V<'ctx>,
        b: V<'ctx>,
        c: Class,
        b_const: Option<f64>,
    ) -> Result<(V<'ctx>, Option<DType>), CpuError> {
        let cmp = |p| Ok((self.fcmp(p, a, b)?, Some(DType::Bool)));
        let r = match op {
            Op::Add => self.fadd(a, b)?,
            Op::Sub => self.fsub(a, b)?,
            Op::Mul => self.fmul(a, b)?,
            Op::TrueDiv => self.fdiv(a, b)?,
            Op::FloorDiv => self.fintr("llvm.floor", &[self.fdiv(a, b)?])?,
            Op::TruncDiv => self.fintr("llvm.trunc", &[self.fdiv(a, b)?])?,
            Op::Pow => self.fpow(a, b, c, b_const)?,
            Op::Fmod => self.ffmod(a, b, c)?,
            Op::Maximum | Op::Minimum => {
                // NaN-propagating: a wins when it is NaN or beats b.
                let p = if op == Op::Maximum { F::OGT } else { F::OLT };
                let a_wins = self.or(self.fcmp(p, a, b)?, self.fcmp(F::UNO, a, a)?)?;
                self.select(a_wins, a, b)?
            }
            Op::Eq => return cmp(F::OEQ),
            Op::Ne => return cmp(F::UNE),
            Op::Lt => return cmp(F::OLT),
            Op::Le => return cmp(F::OLE),
            Op::Gt => return cmp(F::OGT),
            Op::Ge => return cmp(F::OGE),
            Op::LogicalAnd
            | Op::LogicalOr
            | Op::BitAnd
            | Op::BitOr
            | Op::BitXor
            | Op::Shl
            | Op::Shr
            | Op::Where
            | coil_kernel::unary_ops!() => {
                return Err(err(format!("{op} of two floats")));
            }
        };
        Ok((r, None))
    }

    fn int_binary(
        &self,
        op: Op,
        a: V<'ctx>,
        b: V<'ctx>,
        from: DType,
        b_const: Option<f64>,
    ) -> Result<(V<'ctx>, Option<DType>), CpuError> {
        let c = Class::of(from);
        let cmp = |p| Ok((self.icmp(p, a, b)?, Some(DType::Bool)));
        let r = match op {
            Op::Add => self.iadd(a, b)?,
            Op::Sub => self.isub(a, b)?,
            Op::Mul => self.imul(a, b)?,
            Op::TrueDiv | Op::TruncDiv | Op::FloorDiv => {
                // Division by zero gives 0 and MIN / -1 wraps, instead of trapping.
                let zero = self.zero(c);
                let minus_one = self.ci(c, -1);
                let b_zero = self.icmp(I::EQ, b, zero)?;
                let b_m1 = self.icmp(I::EQ, b, minus_one)?;
                let safe_b = self.select(self.or(b_zero, b_m1)?, self.ci(c, 1), b)?;
                let q = self.sdiv(a, safe_b)?;
                let q = self.select(b_m1, self.isub(zero, a)?, q)?;
                let q = if op == Op::FloorDiv {
                    // Round toward -inf: one less when the remainder's sign differs from b's.
                    let r = self.srem(a, safe_b)?;
                    let r = self.select(b_m1, zero, r)?;
                    let differ = self.icmp(I::SLT, self.xor(r, b)?, zero)?;
                    let adjust = self.and(self.icmp(I::NE, r, zero)?, differ)?;
                    self.select(adjust, self.isub(q, self.ci(c, 1))?, q)?
                } else {
                    q
                };
                self.select(b_zero, zero, q)?
            }
            Op::Pow => self.ipow(a, b, c, b_const)?,
            Op::Fmod => return Err(err("fmod of integers (the lowering computes it)")),
            Op::Maximum => self.select(self.icmp(I::SGT, a, b)?, a, b)?,
            Op::Minimum => self.select(self.icmp(I::SLT, a, b)?, a, b)?,
            Op::Eq => return cmp(I::EQ),
            Op::Ne => return cmp(I::NE),
            Op::Lt => return cmp(I::SLT),
            Op::Le => return cmp(I::SLE),
            Op::Gt => return cmp(I::SGT),
            Op::Ge => return cmp(I::SGE),
            Op::BitAnd => self.and(a, b)?,
            Op::BitOr => self.or(a, b)?,
            Op::BitXor => self.xor(a, b)?,
            Op::Shl | Op::Shr => {
                // PyTorch's rule in the dtype's width (LLVM's shifts past the register's
                // width are poison, so the amount is clamped first).
                let bits = i64::from(from.bits());
                let (a, b) = self.unify(a, b)?;
                let bad = self.or(
                    self.icmp(I::SLT, b, self.zero(c))?,
                    self.icmp(I::SGE, b, self.ci(c, bits))?,
                )?;
                if op == Op::Shl {
                    let amount = self.select(bad, self.zero(c), b)?;
                    self.select(bad, self.zero(c), self.shl(a, amount)?)?
                } else if from.is_unsigned() {
                    let amount = self.select(bad, self.zero(c), b)?;
                    self.select(bad, self.zero(c), self.ashr(a, amount)?)?
                } else {
                    let amount = self.select(bad, self.ci(c, bits - 1), b)?;
                    self.ashr(a, amount)?
                }
            }
            Op::LogicalAnd | Op::LogicalOr | Op::Where | coil_kernel::unary_ops!() => {
                return Err(err(format!("{op} of two integers")));
            }
        };
        Ok((r, None))
    }

    fn bool_binary(
        &self,
        op: Op,
        a: V<'ctx>,
        b: V<'ctx>,
    ) -> Result<(V<'ctx>, Option<DType>), CpuError> {
        let r = match op {
            Op::Add | Op::Maximum | Op::BitOr => self.or(a, b)?,
            Op::Mul | Op::Minimum | Op::BitAnd => self.and(a, b)?,
            Op::Sub | Op::Ne | Op::BitXor => self.xor(a, b)?,
            Op::Eq => self.icmp(I::EQ, a, b)?,
            Op::Lt => self.icmp(I::ULT, a, b)?,
            Op::Le => self.icmp(I::ULE, a, b)?,
            Op::Gt => self.icmp(I::UGT, a, b)?,
            Op::Ge => self.icmp(I::UGE, a, b)?,
            _ => {
                // As the interpreter: compute on 0/1 integers.
                let (x, y) = (
                    self.convert(a, DType::Bool, DType::I64, false)?,
                    self.convert(b, DType::Bool, DType::I64, false)?,
                );
                let (r, rdt) = self.int_binary(op, x, y, DType::I64, None)?;
                return Ok((r, Some(rdt.unwrap_or(DType::I64))));
            }
        };
        Ok((r, None))
    }

    /// `a ** b` for floats: PyTorch's special exponents (2, 3, 0.5, -0.5, -1, -2) as
    /// multiplications and roots; otherwise `exp(b log|a|)` computed in f64 (for f32) with C's
    /// special cases (`pow(x, 0) = pow(1, y) = 1`, negative bases need integer exponents,
    /// signs of odd powers, `pow(-1, ±inf) = 1`).
    fn fpow(
        &self,
        a: V<'ctx>,
        b: V<'ctx>,
        c: Class,
        b_const: Option<f64>,
    ) -> Result<V<'ctx>, CpuError> {
        let one = self.cf(c, 1.0);
        let k = b_const.unwrap_or(f64::NAN);
        if k == 2.0 {
            return self.fmul(a, a);
        } else if k == 3.0 {
            return self.fmul(self.fmul(a, a)?, a);
        } else if k == 0.5 {
            return self.vm.call(self.b, MathFn::Sqrt, a);
        } else if k == -0.5 {
            return self.vm.call(self.b, MathFn::Rsqrt, a);
        } else if k == -1.0 {
            return self.fdiv(one, a);
        } else if k == -2.0 {
            return self.fdiv(one, self.fmul(a, a)?);
        } else if k == 1.0 {
            return Ok(a);
        }
        let (a, b) = self.unify(a, b)?;
        let f64t = self.cx.f64_type();
        let (x, y) = (self.fpcast(a, f64t)?, self.fpcast(b, f64t)?);
        let d = Class::F64;
        let ax = self.fintr("llvm.fabs", &[x])?;
        let log = self.vm.call(self.b, MathFn::Log, ax)?;
        let r = self.vm.call(self.b, MathFn::Exp, self.fmul(y, log)?)?;
        let y_trunc = self.fintr("llvm.trunc", &[y])?;
        let y_int = self.fcmp(F::OEQ, y_trunc, y)?;
        let half = self.fmul(y, self.cf(d, 0.5))?;
        let half_int = self.fcmp(F::OEQ, self.fintr("llvm.trunc", &[half])?, half)?;
        let y_odd = self.and(y_int, self.xor(half_int, self.ci(Class::Bool, 1))?)?;
        let signed = self.fintr("llvm.copysign", &[r, x])?;
        let r = self.select(y_odd, signed, r)?;
        let neg_base = self.fcmp(F::OLT, x, self.zero(d))?;
        let not_ninf = self.fcmp(F::ONE, x, self.cf(d, f64::NEG_INFINITY))?;
        let y_not_int = self.fcmp(F::UNE, y_trunc, y)?;
        let nan = self.and(self.and(neg_base, not_ninf)?, y_not_int)?;
        let r = self.select(nan, self.cf(d, f64::NAN), r)?;
        let y_inf = self.fcmp(
            F::OEQ,
            self.fintr("llvm.fabs", &[y])?,
            self.cf(d, f64::INFINITY),
        )?;
        let ax_one = self.fcmp(F::OEQ, ax, self.cf(d, 1.0))?;
        let is_one = self.or(
            self.or(
                self.fcmp(F::OEQ, y, self.zero(d))?,
                self.fcmp(F::OEQ, x, self.cf(d, 1.0))?,
            )?,
            self.and(y_inf, ax_one)?,
        )?;
        let r = self.select(is_one, self.cf(d, 1.0), r)?;
        self.fpcast(r, self.scalar_ty(c).into_float_type())
    }

    /// `a ** b` for integers: square-and-multiply over the exponent's bits (wrapping); a
    /// negative exponent gives 0 (PyTorch raises).
    fn ipow(
        &self,
        a: V<'ctx>,
        b: V<'ctx>,
        c: Class,
        b_const: Option<f64>,
    ) -> Result<V<'ctx>, CpuError> {
        if let Some(k) = b_const.filter(|k| (0.0..=8.0).contains(k) && k.fract() == 0.0) {
            let mut r = self.ci(c, 1);
            for _ in 0..k as u32 {
                r = self.imul(r, a)?;
            }
            return Ok(r);
        }
        let bits = if c == Class::I32 { 31 } else { 63 };
        let zero = self.zero(c);
        let one = self.ci(c, 1);
        let (mut r, mut base, mut e) = (one, a, b);
        for _ in 0..bits {
            let bit = self.icmp(I::NE, self.and(e, one)?, zero)?;
            r = self.select(bit, self.imul(r, base)?, r)?;
            base = self.imul(base, base)?;
            e = self.ashr(e, one)?;
        }
        // To a negative power (PyTorch's rule): 1 of 1, +-1 of -1 by the parity, else 0.
        let negative = self.icmp(I::SLT, b, zero)?;
        let minus_one = self.ci(c, -1);
        let odd = self.icmp(I::NE, self.and(b, one)?, zero)?;
        let of_minus_one = self.select(odd, minus_one, one)?;
        let small = self.select(self.icmp(I::EQ, a, one)?, one, zero)?;
        let small = self.select(self.icmp(I::EQ, a, minus_one)?, of_minus_one, small)?;
        self.select(negative, small, r)
    }
}

/// A float op computed by the vector math library: the ops that reach one ([`Op::math_fn`])
/// but `pow`, which the translator builds from `exp` and `log` (`fpow`).
fn math_fn(op: Op) -> Option<MathFn> {
    op.math_fn().filter(|f| f.arity() == 1)
}

/// A float constant at the precision its dtype computes in: f32 for f32, f16 and bf16 (a
/// Python scalar meets a 16-bit tensor in f32, PyTorch's opmath; a 16-bit tensor holding
/// the constant rounds it at its store, or where the lowering's `emulate_precision_casts`
/// says eager would).
fn round_const(x: f64, dtype: DType) -> f64 {
    match dtype {
        DType::F32 | DType::F16 | DType::BF16 => x as f32 as f64,
        _ => x,
    }
}
