//! Values at the bit level: narrow integers (held in .s32 and wrapped to their width after
//! every op, as PyTorch stores them), bitcasts through a dtype's storage bits (`view(dtype)`),
//! and PyTorch's shifts.

use coil_graph::DType;

use super::Emitter;
use super::values::Repr;
use crate::ptx::{Cmp, Imm, Operand, Reg, RegClass, Round, Ty, Val};

impl Emitter<'_> {
    /// A narrow integer's value (held in .s32) wrapped to its width and signedness, as
    /// PyTorch stores it after every op (a mask, or two shifts that sign-extend); other
    /// dtypes unchanged.
    pub(crate) fn wrap(&mut self, v: Val, d: DType) -> Val {
        if !d.is_narrow_int() {
            return v;
        }
        if let Val::Imm(Imm::Int(i)) = v {
            return Val::Imm(Imm::Int(d.wrap(i)));
        }
        let x = self.reg(Repr::I32, v);
        if d.is_unsigned() {
            let m = (1u32 << d.bits()) - 1;
            return Val::Reg(self.b.and(Ty::B32, x, m));
        }
        // The low bits to the top, then an arithmetic shift back down.
        let k = 32 - d.bits();
        let up = self.b.shl(Ty::B32, x, k);
        Val::Reg(self.b.shr(Ty::S32, up, k))
    }

    /// `v` (of `from`) read as `to`, of the same size: its storage bits, reinterpreted.
    pub(crate) fn bitcast(&mut self, v: Val, from: DType, to: DType) -> Val {
        if from.itemsize() != to.itemsize() {
            self.fail(format!("bitcast from {from} to {to}: sizes differ"));
            return v;
        }
        let bits = self.storage_bits(v, from);
        self.value_of_bits(bits, to)
    }

    /// The storage bits of `v` (of `d`) in the low bits of a 32-bit register (64-bit for
    /// 8-byte dtypes).
    pub(super) fn storage_bits(&mut self, v: Val, d: DType) -> Reg {
        match d {
            DType::F32 => {
                let f = self.reg(Repr::F32, v);
                self.b.bitcast(Ty::B32, f)
            }
            DType::F64 => {
                let f = self.reg(Repr::F64, v);
                self.b.bitcast(Ty::B64, f)
            }
            DType::F16 | DType::BF16 => {
                let f = self.reg(Repr::F32, v);
                let h = if d == DType::F16 {
                    self.b.cvt(Ty::F16, Ty::F32, Some(Round::Rn), f)
                } else {
                    let h = self.b.reg(RegClass::B16);
                    self.b
                        .emit("cvt.rn.bf16.f32", vec![Operand::Reg(h), Operand::Reg(f)]);
                    h
                };
                self.b.cvt(Ty::U32, Ty::U16, None, h)
            }
            DType::Bool => {
                let p = self.reg(Repr::Pred, v);
                self.b.selp(Ty::U32, 1u32, 0u32, p)
            }
            DType::U8 | DType::I8 | DType::I16 | DType::I32 => self.reg(Repr::I32, v),
            DType::I64 => self.reg(Repr::I64, v),
        }
    }

    /// Storage bits (from [`Self::storage_bits`]) read as a value of `d`.
    pub(super) fn value_of_bits(&mut self, bits: Reg, d: DType) -> Val {
        match d {
            DType::F32 => Val::Reg(self.b.bitcast(Ty::F32, bits)),
            DType::F64 => Val::Reg(self.b.bitcast(Ty::F64, bits)),
            DType::F16 => {
                let h = self.b.reg(RegClass::B16);
                self.b
                    .emit("cvt.u16.u32", vec![Operand::Reg(h), Operand::Reg(bits)]);
                Val::Reg(self.b.cvt(Ty::F32, Ty::F16, None, h))
            }
            DType::BF16 => {
                let w = self.b.shl(Ty::B32, bits, 16u32);
                Val::Reg(self.b.bitcast(Ty::F32, w))
            }
            DType::Bool => {
                let low = self.b.and(Ty::B32, bits, 0xffu32);
                Val::Reg(self.b.setp(Cmp::Ne, Ty::U32, low, 0u32))
            }
            DType::U8 | DType::I8 | DType::I16 => self.wrap(Val::Reg(bits), d),
            DType::I32 | DType::I64 => Val::Reg(bits),
        }
    }

    /// PyTorch's `lshift` / `rshift` of `a` by `c` in `d`'s width: an amount that is negative
    /// or not below the width gives 0 to the left and a shift by the width less one to the
    /// right (PTX takes the amount as a .u32, and clamps it to the register's width only).
    pub(super) fn shift(&mut self, left: bool, repr: Repr, a: Reg, c: Val, d: DType) -> Reg {
        let ty = repr.ty();
        let width = i64::from(d.bits());
        let c = self.reg(repr, c);
        let neg = self.b.setp(Cmp::Lt, ty, c, 0i64);
        let big = self.b.setp(Cmp::Ge, ty, c, width);
        let bad = self.b.or(Ty::Pred, neg, big);
        // Out of range: 0, except a signed right shift keeps the sign.
        let zero_out = left || d.is_unsigned();
        let fallback = if zero_out { 0 } else { width - 1 };
        let amount = self.b.selp(ty, fallback, c, bad);
        let amount = if repr == Repr::I64 {
            self.b.cvt(Ty::U32, Ty::U64, None, amount)
        } else {
            amount
        };
        let r = if left {
            let bits = if repr == Repr::I32 { Ty::B32 } else { Ty::B64 };
            self.b.shl(bits, a, amount)
        } else {
            self.b.shr(ty, a, amount)
        };
        if zero_out {
            self.b.selp(ty, 0i64, r, bad)
        } else {
            r
        }
    }
}
