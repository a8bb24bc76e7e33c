//! Global memory accesses of the translator: scalar and vector loads and stores (16-bit floats
//! two to a 32-bit word, up to 16 bytes an access), guarded by a predicate where masked.

use coil_graph::DType;

use super::Emitter;
use super::values::Repr;
use crate::ptx::{Addr, Cmp, Imm, Operand, Reg, RegClass, Round, Ty, Val};

impl Emitter<'_> {
    fn mem_opcode(store: bool, non_coherent: bool, width: u32, ty: &str) -> String {
        let mut op = String::from(if store { "st.global" } else { "ld.global" });
        if non_coherent {
            op.push_str(".nc");
        }
        if width > 1 {
            op.push_str(&format!(".v{width}"));
        }
        op.push('.');
        op.push_str(ty);
        op
    }

    fn guarded_emit(&mut self, guard: Option<Reg>, opcode: String, args: Vec<Operand>) {
        match guard {
            Some(p) => self.b.guarded(p, false, |b| b.emit(opcode, args)),
            None => self.b.emit(opcode, args),
        }
    }

    /// Loads one `dtype` element at `addr` into its register repr; where `guard` is false no
    /// memory is touched and the value is 0.
    pub(crate) fn load_scalar(
        &mut self,
        addr: Reg,
        dtype: DType,
        non_coherent: bool,
        guard: Option<Reg>,
    ) -> Val {
        let (class, ty) = match dtype {
            DType::F32 => (RegClass::F32, "f32"),
            DType::F64 => (RegClass::F64, "f64"),
            DType::I32 => (RegClass::B32, "s32"),
            // Narrow integers widen into .s32 as they load (sign- or zero-extended).
            DType::U8 => (RegClass::B32, "u8"),
            DType::I8 => (RegClass::B32, "s8"),
            DType::I16 => (RegClass::B32, "s16"),
            DType::I64 => (RegClass::B64, "s64"),
            DType::Bool => (RegClass::B32, "u8"),
            DType::F16 => (RegClass::B16, "b16"),
            DType::BF16 => (RegClass::B32, "u16"),
        };
        let dst = self.b.reg(class);
        if guard.is_some() {
            let zero = match class {
                RegClass::F32 => Operand::Imm(Imm::F32(0.0)),
                RegClass::F64 => Operand::Imm(Imm::F64(0.0)),
                _ => Operand::Imm(Imm::Int(0)),
            };
            let mov = match class {
                RegClass::F32 => "mov.f32",
                RegClass::F64 => "mov.f64",
                RegClass::B16 => "mov.b16",
                RegClass::B32 => "mov.b32",
                _ => "mov.b64",
            };
            self.b.emit(mov, vec![Operand::Reg(dst), zero]);
        }
        let op = Self::mem_opcode(false, non_coherent, 1, ty);
        self.guarded_emit(
            guard,
            op,
            vec![Operand::Reg(dst), Operand::Addr(addr.into())],
        );
        match dtype {
            DType::Bool => Val::Reg(self.b.setp(Cmp::Ne, Ty::U32, dst, 0u32)),
            DType::F16 => Val::Reg(self.b.cvt(Ty::F32, Ty::F16, None, dst)),
            DType::BF16 => {
                let w = self.b.shl(Ty::B32, dst, 16u32);
                Val::Reg(self.b.bitcast(Ty::F32, w))
            }
            _ => Val::Reg(dst),
        }
    }

    /// Loads `lanes` consecutive elements at an address aligned to their total size, in
    /// accesses of at most 16 bytes, as packed words: 4-byte elements (`f32`, `i32`) one to a
    /// register, four to a `.v4`; 16-bit floats two to a 32-bit word (a `.v4.b32` holds eight),
    /// for [`Self::unpack_words`]. `lanes` is 4 or 8; where `guard` is false no memory is
    /// touched and the words are 0.
    pub(crate) fn load_words(
        &mut self,
        addr: Reg,
        dtype: DType,
        non_coherent: bool,
        guard: Option<Reg>,
        lanes: u32,
    ) -> Vec<Reg> {
        let (class, ty, zero) = Self::word_kind(dtype);
        let words = lanes / if dtype.is_16_bit_float() { 2 } else { 1 };
        let mut out = Vec::with_capacity(words as usize);
        for piece in 0..words.div_ceil(4) {
            let width = (words - piece * 4).min(4);
            let regs: Vec<Reg> = (0..width).map(|_| self.b.reg(class)).collect();
            if guard.is_some() {
                let mov = if class == RegClass::F32 {
                    "mov.f32"
                } else {
                    "mov.b32"
                };
                for &r in &regs {
                    self.b.emit(mov, vec![Operand::Reg(r), Operand::Imm(zero)]);
                }
            }
            let op = Self::mem_opcode(false, non_coherent, width, ty);
            let at = Addr::reg(addr).offset(i64::from(piece * 16));
            let dst = if width == 1 {
                Operand::Reg(regs[0])
            } else {
                Operand::Vec(regs.clone())
            };
            self.guarded_emit(guard, op, vec![dst, Operand::Addr(at)]);
            out.extend(regs);
        }
        out
    }

    /// The register class, PTX type and zero of the words [`Self::load_words`] gives for
    /// `dtype`.
    pub(crate) fn word_kind(dtype: DType) -> (RegClass, &'static str, Imm) {
        match dtype {
            DType::F32 => (RegClass::F32, "f32", Imm::F32(0.0)),
            DType::F16 | DType::BF16 => (RegClass::B32, "b32", Imm::Int(0)),
            _ => (RegClass::B32, "s32", Imm::Int(0)),
        }
    }

    /// The elements of `words` (from [`Self::load_words`]) as values: 16-bit floats unpacked
    /// to f32, two a word; other words as they are.
    pub(crate) fn unpack_words(&mut self, words: &[Reg], dtype: DType) -> Vec<Val> {
        let mut out = Vec::with_capacity(words.len() * 2);
        for &w in words {
            if dtype.is_16_bit_float() {
                let (lo, hi) = self.unpack_16bit(w, dtype);
                out.extend([lo, hi]);
            } else {
                out.push(Val::Reg(w));
            }
        }
        out
    }

    /// The two 16-bit floats of a 32-bit word (the lower address in the low half), as f32.
    fn unpack_16bit(&mut self, word: Reg, dtype: DType) -> (Val, Val) {
        if dtype == DType::BF16 {
            let lo = self.b.shl(Ty::B32, word, 16u32);
            let hi = self.b.and(Ty::B32, word, 0xFFFF_0000u32);
            (
                Val::Reg(self.b.bitcast(Ty::F32, lo)),
                Val::Reg(self.b.bitcast(Ty::F32, hi)),
            )
        } else {
            let halves = [self.b.reg(RegClass::B16), self.b.reg(RegClass::B16)];
            self.b.emit(
                "mov.b32",
                vec![Operand::Vec(halves.to_vec()), Operand::Reg(word)],
            );
            (
                Val::Reg(self.b.cvt(Ty::F32, Ty::F16, None, halves[0])),
                Val::Reg(self.b.cvt(Ty::F32, Ty::F16, None, halves[1])),
            )
        }
    }

    /// Stores `v` (already in `dtype`'s repr) as one `dtype` element at `addr`.
    pub(crate) fn store_scalar(&mut self, addr: Reg, dtype: DType, v: Val, guard: Option<Reg>) {
        let (value, ty) = match dtype {
            DType::F32 => (self.reg(Repr::F32, v), "f32"),
            DType::F64 => (self.reg(Repr::F64, v), "f64"),
            DType::I32 => (self.reg(Repr::I32, v), "s32"),
            // The low bits of the .s32 register.
            DType::U8 => (self.reg(Repr::I32, v), "u8"),
            DType::I8 => (self.reg(Repr::I32, v), "s8"),
            DType::I16 => (self.reg(Repr::I32, v), "s16"),
            DType::I64 => (self.reg(Repr::I64, v), "s64"),
            DType::Bool => {
                let p = self.reg(Repr::Pred, v);
                (self.b.selp(Ty::U32, 1u32, 0u32, p), "u8")
            }
            DType::F16 | DType::BF16 => (self.round_to_16bit(v, dtype), "b16"),
        };
        let op = Self::mem_opcode(true, false, 1, ty);
        self.guarded_emit(
            guard,
            op,
            vec![Operand::Addr(addr.into()), Operand::Reg(value)],
        );
    }

    /// Adds `v` to the element at `addr` atomically (`red.global.add`): f16 and bf16 (sm_70
    /// and sm_90), f32, f64, 32- and 64-bit integers (the lowering's `atomic_add` dtypes;
    /// others run on the host).
    pub(crate) fn atomic_add_scalar(
        &mut self,
        addr: Reg,
        dtype: DType,
        v: Val,
        guard: Option<Reg>,
    ) {
        let (value, ty) = match dtype {
            DType::F32 => (self.reg(Repr::F32, v), "f32"),
            DType::F64 => (self.reg(Repr::F64, v), "f64"),
            DType::I64 => (self.reg(Repr::I64, v), "u64"),
            DType::F16 => (self.round_to_16bit(v, dtype), "noftz.f16"),
            DType::BF16 => (self.round_to_16bit(v, dtype), "noftz.bf16"),
            // Two's complement: the same bits as a signed add.
            DType::I32 => (self.reg(Repr::I32, v), "u32"),
            DType::Bool | DType::U8 | DType::I8 | DType::I16 => {
                self.fail(format!(
                    "no atomic add of {dtype} on the GPU (its scatters run on the host)"
                ));
                return;
            }
        };
        self.guarded_emit(
            guard,
            format!("red.global.add.{ty}"),
            vec![Operand::Addr(addr.into()), Operand::Reg(value)],
        );
    }

    /// Stores `vs` (in `dtype`'s repr) as consecutive elements at an address aligned to their
    /// total size, in accesses of at most 16 bytes; 16-bit floats are rounded and packed two
    /// to a 32-bit word. The counterpart of [`Self::load_words`].
    pub(crate) fn store_vector(&mut self, addr: Reg, dtype: DType, vs: &[Val], guard: Option<Reg>) {
        let (words, ty): (Vec<Reg>, &str) = match dtype {
            DType::F16 | DType::BF16 => {
                let words = vs
                    .chunks(2)
                    .map(|pair| {
                        let halves: Vec<Reg> = pair
                            .iter()
                            .map(|&v| self.round_to_16bit(v, dtype))
                            .collect();
                        let w = self.b.reg(RegClass::B32);
                        self.b
                            .emit("mov.b32", vec![Operand::Reg(w), Operand::Vec(halves)]);
                        w
                    })
                    .collect();
                (words, "b32")
            }
            _ => {
                let repr = Repr::of(dtype);
                let regs = vs.iter().map(|&v| self.reg(repr, v)).collect();
                (regs, if dtype == DType::F32 { "f32" } else { "s32" })
            }
        };
        for (piece, regs) in words.chunks(4).enumerate() {
            let op = Self::mem_opcode(true, false, regs.len() as u32, ty);
            let at = Addr::reg(addr).offset(piece as i64 * 16);
            let value = if regs.len() == 1 {
                Operand::Reg(regs[0])
            } else {
                Operand::Vec(regs.to_vec())
            };
            self.guarded_emit(guard, op, vec![Operand::Addr(at), value]);
        }
    }

    /// An f32 value rounded to nearest even into a 16-bit register of `dtype` (f16 or bf16).
    fn round_to_16bit(&mut self, v: Val, dtype: DType) -> Reg {
        let f = self.reg(Repr::F32, v);
        if dtype == DType::F16 {
            self.b.cvt(Ty::F16, Ty::F32, Some(Round::Rn), f)
        } else {
            let h = self.b.reg(RegClass::B16);
            self.b
                .emit("cvt.rn.bf16.f32", vec![Operand::Reg(h), Operand::Reg(f)]);
            h
        }
    }
}
