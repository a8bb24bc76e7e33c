//! Values of the kernel IR in PTX registers: how each dtype is held (bool as a predicate,
//! f16/bf16 as f32 rounded after every op, as PyTorch's eager kernels round at every op),
//! constants, PyTorch's casts, the pointwise ops with `coil_lower`'s evaluation semantics
//! (NaN-propagating maximum/minimum, floor division, relu keeping NaN), and loads and stores of
//! every dtype.

use coil_graph::DType;
use coil_lower::{Const, Op};
use half::{bf16, f16};

use super::Emitter;
use crate::math::{self, MathFnExt};
use crate::ptx::{Cmp, Imm, Operand, Reg, RegClass, Round, Ty, Val};

/// How a dtype's values are held in registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Repr {
    /// `bool`: a predicate.
    Pred,
    /// `int32`: `.s32`.
    I32,
    /// `int64`: `.s64`.
    I64,
    /// `float32`, and `float16`/`bfloat16` widened (rounded to their precision after each op).
    F32,
    /// `float64`.
    F64,
}

impl Repr {
    pub(crate) fn of(d: DType) -> Repr {
        match d {
            DType::Bool => Repr::Pred,
            // The narrow integers are held in .s32 and wrap after every op (`wrap`).
            DType::U8 | DType::I8 | DType::I16 | DType::I32 => Repr::I32,
            DType::I64 => Repr::I64,
            DType::F16 | DType::BF16 | DType::F32 => Repr::F32,
            DType::F64 => Repr::F64,
        }
    }

    pub(crate) fn ty(self) -> Ty {
        match self {
            Repr::Pred => Ty::Pred,
            Repr::I32 => Ty::S32,
            Repr::I64 => Ty::S64,
            Repr::F32 => Ty::F32,
            Repr::F64 => Ty::F64,
        }
    }

    /// The dtype a register of this repr holds exactly.
    pub(crate) fn dtype(self) -> DType {
        match self {
            Repr::Pred => DType::Bool,
            Repr::I32 => DType::I32,
            Repr::I64 => DType::I64,
            Repr::F32 => DType::F32,
            Repr::F64 => DType::F64,
        }
    }

    pub(crate) fn is_float(self) -> bool {
        matches!(self, Repr::F32 | Repr::F64)
    }

    /// Bytes of one value in shared memory or a scratch buffer.
    pub(crate) fn bytes(self) -> u32 {
        match self {
            Repr::Pred | Repr::I32 | Repr::F32 => 4,
            Repr::I64 | Repr::F64 => 8,
        }
    }

    pub(crate) fn zero(self) -> Imm {
        match self {
            Repr::F32 => Imm::F32(0.0),
            Repr::F64 => Imm::F64(0.0),
            _ => Imm::Int(0),
        }
    }
}

fn round_host(x: f64, d: DType) -> f64 {
    match d {
        DType::F16 => f16::from_f64(x).to_f64(),
        DType::BF16 => bf16::from_f64(x).to_f64(),
        DType::F32 => f64::from(x as f32),
        _ => x,
    }
}

fn int_of(c: Const) -> i64 {
    match c {
        // Rust's `as` saturates and maps NaN to 0, as PTX's cvt.rzi does.
        Const::Float(x) => x as i64,
        Const::Int(i) => i,
        Const::Bool(b) => i64::from(b),
    }
}

fn truthy_const(c: Const) -> bool {
    match c {
        Const::Float(x) => x != 0.0,
        Const::Int(i) => i != 0,
        Const::Bool(b) => b,
    }
}

/// A float value computed through the math library: the ops that reach it
/// ([`Op::math_fn`]), except the square root (`sqrt.rn` is exact) and `pow` (emitted apart).
fn math_fn(op: Op) -> Option<math::MathFn> {
    op.math_fn()
        .filter(|f| !matches!(f, math::MathFn::Sqrt | math::MathFn::Pow))
}

fn cmp_of(op: Op) -> Option<Cmp> {
    Some(match op {
        Op::Eq => Cmp::Eq,
        Op::Ne => Cmp::Ne,
        Op::Lt => Cmp::Lt,
        Op::Le => Cmp::Le,
        Op::Gt => Cmp::Gt,
        Op::Ge => Cmp::Ge,
        _ => return None,
    })
}

impl Emitter<'_> {
    /// `v` in a register of `repr` (immediates get a `mov`).
    pub(crate) fn reg(&mut self, repr: Repr, v: Val) -> Reg {
        match v {
            Val::Reg(r) => r,
            Val::Imm(_) if repr == Repr::Pred => {
                self.fail("a predicate immediate".into());
                self.pred_const(false)
            }
            Val::Imm(_) => self.b.materialize(repr.ty(), v),
        }
    }

    fn reg_val(&mut self, repr: Repr, v: Val) -> Val {
        Val::Reg(self.reg(repr, v))
    }

    /// A predicate register holding `value`.
    pub(crate) fn pred_const(&mut self, value: bool) -> Reg {
        let r = self.b.mov(Ty::U32, u32::from(value));
        self.b.setp(Cmp::Ne, Ty::U32, r, 0u32)
    }

    /// A constant of `dtype`, at the precision the dtype computes in (f32 for 16-bit floats: a
    /// Python scalar meets a 16-bit tensor in f32, PyTorch's opmath).
    pub(crate) fn constant(&mut self, c: Const, dtype: DType) -> Val {
        match Repr::of(dtype) {
            Repr::F32 => Val::Imm(Imm::F32(c.to_f64() as f32)),
            Repr::F64 => Val::Imm(Imm::F64(c.to_f64())),
            Repr::I32 => Val::Imm(Imm::Int(dtype.wrap(int_of(c)))),
            Repr::I64 => Val::Imm(Imm::Int(int_of(c))),
            Repr::Pred => Val::Reg(self.pred_const(truthy_const(c))),
        }
    }

    /// Rounds an f32-held value to `to`'s precision (f16, bf16; nothing for the others).
    pub(crate) fn round_to(&mut self, v: Val, to: DType) -> Val {
        if !matches!(to, DType::F16 | DType::BF16) {
            return v;
        }
        if let Val::Imm(Imm::F32(x)) = v {
            return Val::Imm(Imm::F32(round_host(f64::from(x), to) as f32));
        }
        let v = self.reg(Repr::F32, v);
        if to == DType::F16 {
            let h = self.b.cvt(Ty::F16, Ty::F32, Some(Round::Rn), v);
            return Val::Reg(self.b.cvt(Ty::F32, Ty::F16, None, h));
        }
        let h = self.b.reg(RegClass::B16);
        self.b
            .emit("cvt.rn.bf16.f32", vec![Operand::Reg(h), Operand::Reg(v)]);
        Val::Reg(self.bf16_to_f32(h))
    }

    /// Widens the bits of a bf16 (in a 16-bit register) to f32 (exact: a shift).
    fn bf16_to_f32(&mut self, h: Reg) -> Reg {
        let w = self.b.cvt(Ty::U32, Ty::U16, None, h);
        let w = self.b.shl(Ty::B32, w, 16u32);
        self.b.bitcast(Ty::F32, w)
    }

    /// `v != 0` (NaN is true), as PyTorch converts to bool.
    pub(crate) fn truthy(&mut self, v: Val, from: DType) -> Reg {
        let repr = Repr::of(from);
        if repr == Repr::Pred {
            return self.reg(repr, v);
        }
        let r = self.reg(repr, v);
        let cmp = if repr.is_float() { Cmp::Neu } else { Cmp::Ne };
        self.b.setp(cmp, repr.ty(), r, repr.zero())
    }

    /// PyTorch's conversion of `v` from `from` to `to`: floats to integers truncate
    /// (saturating, NaN to 0), integers wrap, nonzero is true.
    pub(crate) fn cast(&mut self, v: Val, from: DType, to: DType) -> Val {
        if from == to {
            return v;
        }
        let r = self.cast_unwrapped(v, from, to);
        self.wrap(r, to)
    }

    fn cast_unwrapped(&mut self, v: Val, from: DType, to: DType) -> Val {
        let (rf, rt) = (Repr::of(from), Repr::of(to));
        if rt == Repr::Pred {
            return Val::Reg(self.truthy(v, from));
        }
        // Immediates convert on the host.
        if let Val::Imm(imm) = v {
            let c = match imm {
                Imm::F32(x) => Const::Float(f64::from(x)),
                Imm::F64(x) => Const::Float(x),
                Imm::Int(i) => Const::Int(i),
                Imm::Uint(u) => Const::Int(u as i64),
            };
            return self.constant(c, to);
        }
        let b = &mut self.b;
        match (rf, rt) {
            (Repr::Pred, _) => {
                let p = self.reg(Repr::Pred, v);
                let one = match rt {
                    Repr::F32 => Imm::F32(1.0),
                    Repr::F64 => Imm::F64(1.0),
                    _ => Imm::Int(1),
                };
                Val::Reg(
                    self.b
                        .selp(rt.ty(), Operand::Imm(one), Operand::Imm(rt.zero()), p),
                )
            }
            (Repr::I32, Repr::I64) => Val::Reg(b.cvt(Ty::S64, Ty::S32, None, v)),
            (Repr::I64, Repr::I32) => Val::Reg(b.cvt(Ty::U32, Ty::U64, None, v)),
            (Repr::I32 | Repr::I64, Repr::F32) => {
                let r = b.cvt(Ty::F32, rf.ty(), Some(Round::Rn), v);
                self.round_to(Val::Reg(r), to)
            }
            (Repr::I32 | Repr::I64, Repr::F64) => {
                Val::Reg(b.cvt(Ty::F64, rf.ty(), Some(Round::Rn), v))
            }
            (Repr::F32 | Repr::F64, Repr::I32 | Repr::I64) => {
                let wide = b.cvt(Ty::S64, rf.ty(), Some(Round::Rzi), v);
                if rt == Repr::I32 {
                    Val::Reg(b.cvt(Ty::U32, Ty::U64, None, wide))
                } else {
                    Val::Reg(wide)
                }
            }
            (Repr::F32, Repr::F32) => self.round_to(v, to),
            (Repr::F32, Repr::F64) => Val::Reg(b.cvt(Ty::F64, Ty::F32, None, v)),
            (Repr::F64, Repr::F32) => {
                if to == DType::F16 {
                    let h = b.cvt(Ty::F16, Ty::F64, Some(Round::Rn), v);
                    Val::Reg(self.b.cvt(Ty::F32, Ty::F16, None, h))
                } else {
                    let r = b.cvt(Ty::F32, Ty::F64, Some(Round::Rn), v);
                    self.round_to(Val::Reg(r), to)
                }
            }
            (Repr::I32, Repr::I32) | (Repr::I64, Repr::I64) | (Repr::F64, Repr::F64) => v,
            (_, Repr::Pred) => Val::Reg(self.truthy(v, from)),
        }
    }

    /// A one-operand op on a value of `din`, giving `dout`.
    pub(crate) fn unary(&mut self, op: Op, a: Val, din: DType, dout: DType) -> Val {
        let r = self.unary_unwrapped(op, a, din, dout);
        self.wrap(r, dout)
    }

    fn unary_unwrapped(&mut self, op: Op, a: Val, din: DType, dout: DType) -> Val {
        let repr = Repr::of(din);
        match repr {
            Repr::F32 => {
                let a = self.reg(repr, a);
                let b = &mut self.b;
                let r: Val = match op {
                    Op::Neg => b.neg(Ty::F32, a).into(),
                    Op::Abs => b.abs(Ty::F32, a).into(),
                    Op::Floor | Op::Ceil | Op::Round | Op::Trunc => {
                        b.cvt(Ty::F32, Ty::F32, Some(integral_round(op)), a).into()
                    }
                    Op::Sqrt => b.sqrt(Ty::F32, a).into(),
                    Op::Reciprocal => b.rcp(Ty::F32, a).into(),
                    Op::Relu => {
                        let keep = b.setp(Cmp::Gtu, Ty::F32, a, 0.0f32);
                        b.selp(Ty::F32, a, 0.0f32, keep).into()
                    }
                    Op::LogicalNot => {
                        let p = b.setp(Cmp::Eq, Ty::F32, a, 0.0f32);
                        return self.cast(Val::Reg(p), DType::Bool, dout);
                    }
                    Op::Exp if self.fast_math => {
                        // 2^(x log2 e): below 2^-17 relative error for |x| < 88 (the
                        // product's rounding), subnormal results flushed to 0.
                        let t = b.mul(Ty::F32, a, std::f32::consts::LOG2_E);
                        b.ex2_approx(t).into()
                    }
                    // One reduction by π and one polynomial (under 3 f32 ulp): about 6
                    // instructions fewer an element for a pointwise `sin`, bound by its
                    // instructions at 16-bit bytes.
                    Op::Sin if self.fast_math => math::sin_relaxed(b, Val::Reg(a)),
                    Op::Cos if self.fast_math => math::cos_relaxed(b, Val::Reg(a)),
                    Op::Exp
                    | Op::Log
                    | Op::Log1p
                    | Op::Rsqrt
                    | Op::Sin
                    | Op::Cos
                    | Op::Tanh
                    | Op::Erf
                    | Op::Sigmoid
                    | Op::BitwiseNot
                    | coil_kernel::binary_ops!()
                    | Op::Where => match math_fn(op) {
                        Some(f) => f.apply(b, Val::Reg(a), Val::Imm(Imm::F32(0.0))),
                        None => {
                            self.fail(format!("{op} of a float"));
                            Val::Reg(a)
                        }
                    },
                };
                self.float_result(r, din, dout)
            }
            Repr::F64 => {
                let a = self.reg(repr, a);
                let b = &mut self.b;
                let r: Val = match op {
                    Op::Neg => b.neg(Ty::F64, a).into(),
                    Op::Abs => b.abs(Ty::F64, a).into(),
                    Op::Floor | Op::Ceil | Op::Round | Op::Trunc => {
                        b.cvt(Ty::F64, Ty::F64, Some(integral_round(op)), a).into()
                    }
                    Op::Sqrt => b.sqrt(Ty::F64, a).into(),
                    Op::Reciprocal => b.rcp(Ty::F64, a).into(),
                    Op::Rsqrt => {
                        let s = b.sqrt(Ty::F64, a);
                        b.rcp(Ty::F64, s).into()
                    }
                    Op::Relu => {
                        let keep = b.setp(Cmp::Gtu, Ty::F64, a, 0.0f64);
                        b.selp(Ty::F64, a, 0.0f64, keep).into()
                    }
                    Op::LogicalNot => {
                        let p = b.setp(Cmp::Eq, Ty::F64, a, 0.0f64);
                        return self.cast(Val::Reg(p), DType::Bool, dout);
                    }
                    Op::Exp
                    | Op::Log
                    | Op::Log1p
                    | Op::Sin
                    | Op::Cos
                    | Op::Tanh
                    | Op::Erf
                    | Op::Sigmoid
                    | Op::BitwiseNot
                    | coil_kernel::binary_ops!()
                    | Op::Where => {
                        self.fail(format!(
                            "float64 {op} is not supported by the CUDA backend (its math library is float32)"
                        ));
                        Val::Reg(a)
                    }
                };
                self.float_result(r, din, dout)
            }
            Repr::I32 | Repr::I64 => {
                let ty = repr.ty();
                let a = self.reg(repr, a);
                let b = &mut self.b;
                let r: Val = match op {
                    Op::Neg => b.neg(ty, a).into(),
                    Op::Abs => b.abs(ty, a).into(),
                    Op::Floor | Op::Ceil | Op::Round | Op::Trunc => Val::Reg(a),
                    Op::Relu => b.max(ty, a, 0i64).into(),
                    Op::BitwiseNot => {
                        let bits = if repr == Repr::I32 { Ty::B32 } else { Ty::B64 };
                        b.not(bits, a).into()
                    }
                    Op::LogicalNot => {
                        let p = b.setp(Cmp::Eq, ty, a, 0i64);
                        return self.cast(Val::Reg(p), DType::Bool, dout);
                    }
                    Op::Exp
                    | Op::Log
                    | Op::Log1p
                    | Op::Sqrt
                    | Op::Rsqrt
                    | Op::Sin
                    | Op::Cos
                    | Op::Tanh
                    | Op::Erf
                    | Op::Sigmoid
                    | Op::Reciprocal
                    | coil_kernel::binary_ops!()
                    | Op::Where => {
                        // exp of an integer and friends: in the result's float type.
                        let f = if Repr::of(dout).is_float() {
                            dout
                        } else {
                            DType::F32
                        };
                        let x = self.cast(Val::Reg(a), din, f);
                        let r = self.unary(op, x, f, f);
                        return self.cast(r, f, dout);
                    }
                };
                self.cast(r, din, dout)
            }
            Repr::Pred => {
                let p = self.reg(repr, a);
                match op {
                    Op::LogicalNot | Op::BitwiseNot => {
                        let n = self.b.not(Ty::Pred, p);
                        self.cast(Val::Reg(n), DType::Bool, dout)
                    }
                    Op::Abs | Op::Relu => self.cast(Val::Reg(p), DType::Bool, dout),
                    Op::Neg
                    | Op::Floor
                    | Op::Ceil
                    | Op::Round
                    | Op::Trunc
                    | Op::Exp
                    | Op::Log
                    | Op::Log1p
                    | Op::Sqrt
                    | Op::Rsqrt
                    | Op::Sin
                    | Op::Cos
                    | Op::Tanh
                    | Op::Erf
                    | Op::Sigmoid
                    | Op::Reciprocal
                    | coil_kernel::binary_ops!()
                    | Op::Where => {
                        let i = self.cast(Val::Reg(p), DType::Bool, DType::I64);
                        self.unary(op, i, DType::I64, dout)
                    }
                }
            }
        }
    }

    /// An arithmetic float result of `din`'s repr, converted to `dout`. A 16-bit result stays
    /// f32 in its register (Inductor's semantics: one rounding at the store or at an explicit
    /// cast; the lowering's `emulate_precision_casts` adds the casts where eager rounds).
    fn float_result(&mut self, r: Val, din: DType, dout: DType) -> Val {
        if Repr::of(dout) == Repr::of(din) {
            r
        } else {
            self.cast(r, Repr::of(din).dtype(), dout)
        }
    }

    /// `xs / d` in f32 for a divisor `d` the same in every slot (a row's sum, in softmax), with
    /// [`KernelPlan::fast_math`](super::KernelPlan::fast_math): `x · rcp.rn(d)`, the reciprocal
    /// taken once, where it is a normal float (`2^-126 <= |d| <= 2^126`); a zero, subnormal,
    /// huge, infinite or NaN divisor takes the full divisions instead, in a branch all threads
    /// sharing `d` take alike. `x / 0`, `x / inf` and NaNs therefore keep IEEE's results.
    pub(crate) fn divide_by_one(
        &mut self,
        xs: &super::Lv,
        d: Val,
        din: DType,
        dout: DType,
    ) -> super::Lv {
        let d = self.reg(Repr::F32, d);
        let ad = self.b.abs(Ty::F32, d);
        let tiny = self.b.setp(Cmp::Ltu, Ty::F32, ad, f32::MIN_POSITIVE);
        let huge = self.b.setp(Cmp::Gt, Ty::F32, ad, 2f32.powi(126));
        let full = self.b.or(Ty::Pred, tiny, huge);
        let slots = match xs {
            super::Lv::Lanes(v) => v.len(),
            super::Lv::One(_) => 1,
        };
        let xs: Vec<Reg> = (0..slots).map(|s| self.reg(Repr::F32, xs.get(s))).collect();
        let out: Vec<Reg> = (0..slots).map(|_| self.b.reg(RegClass::F32)).collect();
        let divide = self.b.label("full_division");
        let done = self.b.label("division_done");
        self.b.bra_if(full, &divide);
        let r = self.b.rcp(Ty::F32, d);
        for (&x, &o) in xs.iter().zip(&out) {
            let q = self.b.mul(Ty::F32, x, r);
            self.b.assign(Ty::F32, o, q);
        }
        self.b.bra(&done);
        self.b.place(&divide);
        for (&x, &o) in xs.iter().zip(&out) {
            let q = self.b.div(Ty::F32, x, d);
            self.b.assign(Ty::F32, o, q);
        }
        self.b.place(&done);
        super::Lv::Lanes(
            out.into_iter()
                .map(|o| self.float_result(Val::Reg(o), din, dout))
                .collect(),
        )
    }

    /// A two-operand op on values of `din`, giving `dout`.
    pub(crate) fn binary(&mut self, op: Op, a: Val, c: Val, din: DType, dout: DType) -> Val {
        let r = self.binary_unwrapped(op, a, c, din, dout);
        self.wrap(r, dout)
    }

    fn binary_unwrapped(&mut self, op: Op, a: Val, c: Val, din: DType, dout: DType) -> Val {
        let repr = Repr::of(din);
        if matches!(op, Op::LogicalAnd | Op::LogicalOr) {
            let (x, y) = (self.truthy(a, din), self.truthy(c, din));
            let p = if op == Op::LogicalAnd {
                self.b.and(Ty::Pred, x, y)
            } else {
                self.b.or(Ty::Pred, x, y)
            };
            return self.cast(Val::Reg(p), DType::Bool, dout);
        }
        if let Some(cmp) = cmp_of(op) {
            let p = match repr {
                Repr::Pred => self.pred_compare(op, a, c),
                _ => {
                    let cmp = if repr.is_float() && cmp == Cmp::Ne {
                        // NaN != x is true.
                        Cmp::Neu
                    } else {
                        cmp
                    };
                    let a = self.reg(repr, a);
                    self.b.setp(cmp, repr.ty(), a, c)
                }
            };
            return self.cast(Val::Reg(p), DType::Bool, dout);
        }
        match repr {
            Repr::F32 | Repr::F64 => {
                let ty = repr.ty();
                let a = self.reg_val(repr, a);
                let r: Val = match op {
                    Op::Add => self.b.add(ty, a, c).into(),
                    Op::Sub => self.b.sub(ty, a, c).into(),
                    Op::Mul => self.b.mul(ty, a, c).into(),
                    Op::TrueDiv => self.b.div(ty, a, c).into(),
                    Op::FloorDiv | Op::TruncDiv => {
                        let q = self.b.div(ty, a, c);
                        let rnd = if op == Op::FloorDiv {
                            Round::Rmi
                        } else {
                            Round::Rzi
                        };
                        self.b.cvt(ty, ty, Some(rnd), q).into()
                    }
                    Op::Maximum | Op::Minimum if repr == Repr::F32 => {
                        if op == Op::Maximum {
                            self.b.max_nan(ty, a, c).into()
                        } else {
                            self.b.min_nan(ty, a, c).into()
                        }
                    }
                    Op::Maximum | Op::Minimum => {
                        let m = if op == Op::Maximum {
                            self.b.max(ty, a, c)
                        } else {
                            self.b.min(ty, a, c)
                        };
                        let nan = self.b.setp(Cmp::Nan, ty, a, c);
                        let sum = self.b.add(ty, a, c);
                        self.b.selp(ty, sum, m, nan).into()
                    }
                    Op::Pow if repr == Repr::F32 => {
                        let c = self.reg_val(repr, c);
                        math::pow(&mut self.b, a, c)
                    }
                    _ => {
                        self.fail(format!("{op} of {din} values"));
                        a
                    }
                };
                self.float_result(r, din, dout)
            }
            Repr::I32 | Repr::I64 => {
                let ty = repr.ty();
                let a = self.reg(repr, a);
                let r: Val = match op {
                    Op::Add => self.b.add(ty, a, c).into(),
                    Op::Sub => self.b.sub(ty, a, c).into(),
                    Op::Mul => self.b.mul(ty, a, c).into(),
                    Op::TrueDiv | Op::TruncDiv => self.b.div(ty, a, c).into(),
                    Op::FloorDiv => {
                        let q = self.b.div(ty, a, c);
                        let r = self.b.rem(ty, a, c);
                        let nonzero = self.b.setp(Cmp::Ne, ty, r, 0i64);
                        let bits = if repr == Repr::I32 { Ty::B32 } else { Ty::B64 };
                        let signs = self.b.xor(bits, r, c);
                        let differ = self.b.setp(Cmp::Lt, ty, signs, 0i64);
                        let adjust = self.b.and(Ty::Pred, nonzero, differ);
                        let less = self.b.sub(ty, q, 1i64);
                        self.b.selp(ty, less, q, adjust).into()
                    }
                    Op::Maximum => self.b.max(ty, a, c).into(),
                    Op::Minimum => self.b.min(ty, a, c).into(),
                    Op::Pow => Val::Reg(self.int_pow(repr, a, c)),
                    Op::BitAnd | Op::BitOr | Op::BitXor => {
                        let bits = if repr == Repr::I32 { Ty::B32 } else { Ty::B64 };
                        match op {
                            Op::BitAnd => self.b.and(bits, a, c).into(),
                            Op::BitOr => self.b.or(bits, a, c).into(),
                            _ => self.b.xor(bits, a, c).into(),
                        }
                    }
                    Op::Shl | Op::Shr => Val::Reg(self.shift(op == Op::Shl, repr, a, c, din)),
                    _ => {
                        self.fail(format!("{op} of {din} values"));
                        Val::Reg(a)
                    }
                };
                self.cast(r, din, dout)
            }
            Repr::Pred => {
                let (x, y) = (self.reg(repr, a), self.reg(repr, c));
                let r = match op {
                    Op::Add | Op::Maximum | Op::BitOr => Some(self.b.or(Ty::Pred, x, y)),
                    Op::Mul | Op::Minimum | Op::BitAnd => Some(self.b.and(Ty::Pred, x, y)),
                    Op::BitXor => Some(self.b.xor(Ty::Pred, x, y)),
                    _ => None,
                };
                match r {
                    Some(p) => self.cast(Val::Reg(p), DType::Bool, dout),
                    None => {
                        let xi = self.cast(Val::Reg(x), DType::Bool, DType::I64);
                        let yi = self.cast(Val::Reg(y), DType::Bool, DType::I64);
                        self.binary(op, xi, yi, DType::I64, dout)
                    }
                }
            }
        }
    }

    /// Comparisons of two bools (`false < true`).
    fn pred_compare(&mut self, op: Op, a: Val, c: Val) -> Reg {
        let (x, y) = (self.reg(Repr::Pred, a), self.reg(Repr::Pred, c));
        let b = &mut self.b;
        match op {
            Op::Eq => {
                let d = b.xor(Ty::Pred, x, y);
                b.not(Ty::Pred, d)
            }
            Op::Ne => b.xor(Ty::Pred, x, y),
            Op::Lt => {
                let nx = b.not(Ty::Pred, x);
                b.and(Ty::Pred, nx, y)
            }
            Op::Le => {
                let nx = b.not(Ty::Pred, x);
                b.or(Ty::Pred, nx, y)
            }
            Op::Gt => {
                let ny = b.not(Ty::Pred, y);
                b.and(Ty::Pred, x, ny)
            }
            _ => {
                let ny = b.not(Ty::Pred, y);
                b.or(Ty::Pred, x, ny)
            }
        }
    }

    /// `a ** e` for integers by squaring (a negative exponent gives 1).
    fn int_pow(&mut self, repr: Repr, a: Reg, e: Val) -> Reg {
        let ty = repr.ty();
        let bits = if repr == Repr::I32 { Ty::B32 } else { Ty::B64 };
        let result = self.b.mov(ty, 1i64);
        let base = self.b.mov(ty, a);
        let exp = self.b.mov(ty, e);
        let top = self.b.label("pow");
        let done = self.b.label("pow_end");
        self.b.place(&top);
        let stop = self.b.setp(Cmp::Le, ty, exp, 0i64);
        self.b.bra_if(stop, &done);
        let low = self.b.and(bits, exp, 1i64);
        let odd = self.b.setp(Cmp::Ne, ty, low, 0i64);
        let times = self.b.mul(ty, result, base);
        self.b.guarded(odd, false, |b| b.assign(ty, result, times));
        let sq = self.b.mul(ty, base, base);
        self.b.assign(ty, base, sq);
        let half = self.b.shr(ty, exp, 1u32);
        self.b.assign(ty, exp, half);
        self.b.bra(&top);
        self.b.place(&done);
        // To a negative power (PyTorch's rule): 1 of 1, +-1 of -1 by the parity, else 0.
        let e = self.reg(repr, e);
        let negative = self.b.setp(Cmp::Lt, ty, e, 0i64);
        let low = self.b.and(bits, e, 1i64);
        let odd = self.b.setp(Cmp::Ne, ty, low, 0i64);
        let of_minus_one = self.b.selp(ty, -1i64, 1i64, odd);
        let is_one = self.b.setp(Cmp::Eq, ty, a, 1i64);
        let is_minus_one = self.b.setp(Cmp::Eq, ty, a, -1i64);
        let small = self.b.selp(ty, 1i64, 0i64, is_one);
        let small = self.b.selp(ty, of_minus_one, small, is_minus_one);
        self.b.selp(ty, small, result, negative)
    }

    /// `cond ? a : c` with `a`, `c` converted to `dout`.
    pub(crate) fn select(
        &mut self,
        cond: (Val, DType),
        a: (Val, DType),
        c: (Val, DType),
        dout: DType,
    ) -> Val {
        let p = self.truthy(cond.0, cond.1);
        let x = self.cast(a.0, a.1, dout);
        let y = self.cast(c.0, c.1, dout);
        let repr = Repr::of(dout);
        if repr == Repr::Pred {
            let (x, y) = (self.reg(repr, x), self.reg(repr, y));
            let t = self.b.and(Ty::Pred, p, x);
            let np = self.b.not(Ty::Pred, p);
            let f = self.b.and(Ty::Pred, np, y);
            return Val::Reg(self.b.or(Ty::Pred, t, f));
        }
        let x = self.reg_val(repr, x);
        Val::Reg(self.b.selp(repr.ty(), x, y, p))
    }
}

/// The `cvt` rounding of a float to an integral float that `op` (`Floor`, `Ceil`, `Round`,
/// `Trunc`) is.
fn integral_round(op: Op) -> Round {
    match op {
        Op::Floor => Round::Rmi,
        Op::Ceil => Round::Rpi,
        Op::Round => Round::Rni,
        _ => Round::Rzi,
    }
}
