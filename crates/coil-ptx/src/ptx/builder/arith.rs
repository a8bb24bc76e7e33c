//! [`KernelBuilder`]'s arithmetic: integer and float operations, the math approximations,
//! conversions, comparisons and selects, each checking its operands' classes.

use super::*;

impl KernelBuilder {
    /// `add`: `add.rn.f32` for floats (never contracted into an fma), `add.s64` etc. for
    /// integers.
    pub fn add(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let op = if ty.is_float() {
            format!("add.rn.{ty}")
        } else {
            format!("add.{ty}")
        };
        self.typed(op, ty, vec![a.into(), b.into()])
    }

    /// `sub` (`sub.rn.f32` for floats).
    pub fn sub(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let op = if ty.is_float() {
            format!("sub.rn.{ty}")
        } else {
            format!("sub.{ty}")
        };
        self.typed(op, ty, vec![a.into(), b.into()])
    }

    /// `mul`: `mul.rn.f32` for floats, `mul.lo` (the low half) for integers.
    pub fn mul(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let op = if ty.is_float() {
            format!("mul.rn.{ty}")
        } else {
            format!("mul.lo.{ty}")
        };
        self.typed(op, ty, vec![a.into(), b.into()])
    }

    /// `mul.hi`: the high half of an integer product.
    pub fn mul_hi(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        if !ty.is_int() {
            self.fail(format!("mul.hi needs an integer type, not .{ty}"));
        }
        self.typed(format!("mul.hi.{ty}"), ty, vec![a.into(), b.into()])
    }

    /// `mul.wide.u32`/`.s32`: the full 64-bit product of two 32-bit integers.
    pub fn mul_wide(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let op = format!("mul.wide.{ty}");
        let (a, b) = (a.into(), b.into());
        if !matches!(ty, Ty::U32 | Ty::S32 | Ty::U16 | Ty::S16) {
            self.fail(format!("{op}: needs a 16- or 32-bit integer type"));
        }
        self.check(&op, ty, &a, Fit::Exact);
        self.check(&op, ty, &b, Fit::Exact);
        let class = if ty.bits() == 32 {
            RegClass::B64
        } else {
            RegClass::B32
        };
        self.def(op, class, vec![a, b])
    }

    /// `mad.wide.u32 d, a, b, c`: `a * b + c` with 32-bit `a`, `b` and a 64-bit `c` (address
    /// arithmetic: `base + index * size`).
    pub fn mad_wide(
        &mut self,
        ty: Ty,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
    ) -> Reg {
        let op = format!("mad.wide.{ty}");
        let (a, b, c) = (a.into(), b.into(), c.into());
        if !matches!(ty, Ty::U32 | Ty::S32) {
            self.fail(format!("{op}: needs .u32 or .s32"));
        }
        self.check(&op, ty, &a, Fit::Exact);
        self.check(&op, ty, &b, Fit::Exact);
        self.check_class(&op, &c, RegClass::B64);
        self.def(op, RegClass::B64, vec![a, b, c])
    }

    /// `a * b + c`: `fma.rn` (one rounding) for floats, `mad.lo` for integers.
    pub fn fma(
        &mut self,
        ty: Ty,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
    ) -> Reg {
        let op = if ty.is_float() {
            format!("fma.rn.{ty}")
        } else {
            format!("mad.lo.{ty}")
        };
        self.typed(op, ty, vec![a.into(), b.into(), c.into()])
    }

    /// `div`: `div.rn.f32` (IEEE, correctly rounded) for floats, integer division otherwise
    /// (a shift for an unsigned one by a power of two).
    pub fn div(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let b = b.into();
        if let Some(k) = unsigned_power_of_two(ty, &b) {
            return self.shr(ty, a, Imm::Uint(u64::from(k)));
        }
        let op = if ty.is_float() {
            format!("div.rn.{ty}")
        } else {
            format!("div.{ty}")
        };
        self.typed(op, ty, vec![a.into(), b])
    }

    /// `rem`: integer remainder (a mask for an unsigned one by a power of two).
    pub fn rem(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        if !ty.is_int() {
            self.fail(format!("rem needs an integer type, not .{ty}"));
        }
        let b = b.into();
        if let Some(k) = unsigned_power_of_two(ty, &b) {
            let bits = if ty.bits() == 64 { Ty::B64 } else { Ty::B32 };
            return self.and(bits, a, Imm::Uint((1u64 << k) - 1));
        }
        self.typed(format!("rem.{ty}"), ty, vec![a.into(), b])
    }

    /// `neg`.
    pub fn neg(&mut self, ty: Ty, a: impl Into<Operand>) -> Reg {
        self.typed(format!("neg.{ty}"), ty, vec![a.into()])
    }

    /// `abs`.
    pub fn abs(&mut self, ty: Ty, a: impl Into<Operand>) -> Reg {
        self.typed(format!("abs.{ty}"), ty, vec![a.into()])
    }

    /// `min`: for floats, the non-NaN operand when one is NaN (C's `fminf`).
    pub fn min(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.typed(format!("min.{ty}"), ty, vec![a.into(), b.into()])
    }

    /// `max`: for floats, the non-NaN operand when one is NaN (C's `fmaxf`).
    pub fn max(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.typed(format!("max.{ty}"), ty, vec![a.into(), b.into()])
    }

    /// `min.NaN.f32`: NaN if either operand is NaN (PyTorch's `minimum`/`amin`; sm_80+).
    pub fn min_nan(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        if ty != Ty::F32 {
            self.fail(format!("min.NaN is .f32 only, not .{ty}"));
        }
        self.typed(format!("min.NaN.{ty}"), ty, vec![a.into(), b.into()])
    }

    /// `max.NaN.f32`: NaN if either operand is NaN (PyTorch's `maximum`/`amax`; sm_80+).
    pub fn max_nan(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        if ty != Ty::F32 {
            self.fail(format!("max.NaN is .f32 only, not .{ty}"));
        }
        self.typed(format!("max.NaN.{ty}"), ty, vec![a.into(), b.into()])
    }

    /// `and` (bit types and `.pred`).
    pub fn and(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.logic("and", ty, vec![a.into(), b.into()])
    }

    /// `or` (bit types and `.pred`).
    pub fn or(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.logic("or", ty, vec![a.into(), b.into()])
    }

    /// `xor` (bit types and `.pred`).
    pub fn xor(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.logic("xor", ty, vec![a.into(), b.into()])
    }

    /// `not` (bit types and `.pred`).
    pub fn not(&mut self, ty: Ty, a: impl Into<Operand>) -> Reg {
        self.logic("not", ty, vec![a.into()])
    }

    fn logic(&mut self, name: &str, ty: Ty, srcs: Vec<Operand>) -> Reg {
        if !(ty.is_bits() || ty == Ty::Pred) {
            self.fail(format!("{name} needs a .bN or .pred type, not .{ty}"));
        }
        self.typed(format!("{name}.{ty}"), ty, srcs)
    }

    /// `shl.bN d, a, amount` (`amount` is a `.u32`).
    pub fn shl(&mut self, ty: Ty, a: impl Into<Operand>, amount: impl Into<Operand>) -> Reg {
        self.shift("shl", ty, a.into(), amount.into())
    }

    /// `shr`: arithmetic for `.sN`, logical for `.uN`/`.bN`.
    pub fn shr(&mut self, ty: Ty, a: impl Into<Operand>, amount: impl Into<Operand>) -> Reg {
        self.shift("shr", ty, a.into(), amount.into())
    }

    fn shift(&mut self, name: &str, ty: Ty, a: Operand, amount: Operand) -> Reg {
        let op = format!("{name}.{ty}");
        if !ty.is_int() || (name == "shl" && !ty.is_bits()) {
            self.fail(format!("{op}: shl needs a .bN type, shr an integer type"));
        }
        self.check(&op, ty, &a, Fit::Exact);
        self.check(&op, Ty::U32, &amount, Fit::Exact);
        self.def_pure(op, ty, vec![a, amount])
    }

    /// `sqrt.rn`: IEEE square root, correctly rounded.
    pub fn sqrt(&mut self, ty: Ty, a: impl Into<Operand>) -> Reg {
        self.typed(format!("sqrt.rn.{ty}"), ty, vec![a.into()])
    }

    /// `rcp.rn`: IEEE reciprocal, correctly rounded.
    pub fn rcp(&mut self, ty: Ty, a: impl Into<Operand>) -> Reg {
        self.typed(format!("rcp.rn.{ty}"), ty, vec![a.into()])
    }

    /// `copysign d, sign, magnitude`: `magnitude` with the sign of `sign` (PTX's operand order).
    pub fn copysign(
        &mut self,
        ty: Ty,
        sign: impl Into<Operand>,
        magnitude: impl Into<Operand>,
    ) -> Reg {
        self.typed(
            format!("copysign.{ty}"),
            ty,
            vec![sign.into(), magnitude.into()],
        )
    }

    /// `ex2.approx.ftz.f32`: 2^a, about 2 ulp, subnormal results flushed to zero.
    pub fn ex2_approx(&mut self, a: impl Into<Operand>) -> Reg {
        self.typed("ex2.approx.ftz.f32".into(), Ty::F32, vec![a.into()])
    }

    /// `lg2.approx.ftz.f32`: log2(a), about 2^-22 absolute error.
    pub fn lg2_approx(&mut self, a: impl Into<Operand>) -> Reg {
        self.typed("lg2.approx.ftz.f32".into(), Ty::F32, vec![a.into()])
    }

    /// `rsqrt.approx.ftz.f32`: 1/sqrt(a), about 2 ulp.
    pub fn rsqrt_approx(&mut self, a: impl Into<Operand>) -> Reg {
        self.typed("rsqrt.approx.ftz.f32".into(), Ty::F32, vec![a.into()])
    }

    /// `tanh.approx.f32` (sm_75+): about 2^-11 relative error; see `math::tanh` for an accurate
    /// one.
    pub fn tanh_approx(&mut self, a: impl Into<Operand>) -> Reg {
        self.typed("tanh.approx.f32".into(), Ty::F32, vec![a.into()])
    }

    /// `cvt{.rnd}.to.from`: converts between types. Float-to-integer and float narrowing need a
    /// rounding mode; `cvt.rni.f32.f32` rounds a float to an integral float.
    pub fn cvt(&mut self, to: Ty, from: Ty, round: Option<Round>, a: impl Into<Operand>) -> Reg {
        let rnd = round.map(|r| format!(".{}", r.name())).unwrap_or_default();
        let op = format!("cvt{rnd}.{to}.{from}");
        let a = a.into();
        self.check(&op, from, &a, Fit::Widen);
        let class = if to.bits() < 32 && to.is_int() {
            RegClass::B32
        } else {
            to.class()
        };
        self.def(op, class, vec![a])
    }

    /// `setp.cmp.ty p, a, b`.
    pub fn setp(&mut self, cmp: Cmp, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let op = format!("setp.{}.{ty}", cmp.name());
        if cmp.float_only() && !ty.is_float() {
            self.fail(format!("{op}: unordered comparisons are for floats"));
        }
        let (a, b) = (a.into(), b.into());
        self.check(&op, ty, &a, Fit::Exact);
        self.check(&op, ty, &b, Fit::Exact);
        self.def(op, RegClass::Pred, vec![a, b])
    }

    /// `selp.ty d, a, b, p`: `p ? a : b`.
    pub fn selp(
        &mut self,
        ty: Ty,
        if_true: impl Into<Operand>,
        if_false: impl Into<Operand>,
        p: Reg,
    ) -> Reg {
        let op = format!("selp.{ty}");
        let (a, b) = (if_true.into(), if_false.into());
        self.check(&op, ty, &a, Fit::Exact);
        self.check(&op, ty, &b, Fit::Exact);
        self.check_class(&op, &Operand::Reg(p), RegClass::Pred);
        self.def(op, ty.class(), vec![a, b, Operand::Reg(p)])
    }

    /// `testp.class.ty p, a`.
    pub fn testp(&mut self, test: TestP, ty: Ty, a: impl Into<Operand>) -> Reg {
        let op = format!("testp.{}.{ty}", test.name());
        let a = a.into();
        self.check(&op, ty, &a, Fit::Exact);
        self.def(op, RegClass::Pred, vec![a])
    }
}
