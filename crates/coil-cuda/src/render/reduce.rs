//! Accumulators on the GPU: their register types, identities and combine steps for
//! sum/prod/max/min (NaN-propagating)/argmax/argmin, and the all-reduces across a warp
//! (butterfly shuffles) and a block (shuffles, shared memory, shuffles), after which every
//! thread holds the result.
//!
//! argmax/argmin combine with a total order (NaN first, then larger/smaller, then the smaller
//! position), so any reduction tree gives what a left-to-right scan gives: the first NaN, else
//! the first extreme, as `coil_lower`'s evaluator.

use coil_codegen::Accumulator;
use coil_graph::DType;
use coil_lower::ReductionType;

use super::Emitter;
use super::values::Repr;
use crate::ptx::{Addr, Cache, Cmp, Imm, Operand, Reg, RegClass, Shfl, Space, Sreg, Ty, Val};

/// How one accumulator is held: its reduction, the value's register repr and, for
/// argmax/argmin, the position's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AccSpec {
    pub(crate) rt: ReductionType,
    pub(crate) value: Repr,
    pub(crate) index: Option<Repr>,
}

/// An accumulator's registers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AccRegs {
    pub(crate) spec: AccSpec,
    pub(crate) value: Reg,
    pub(crate) index: Option<Reg>,
}

impl AccSpec {
    /// The spec for `acc` fed values of `value_dtype`; positions are `index` (the index repr).
    pub(crate) fn new(acc: &Accumulator, value_dtype: DType, index: Repr) -> AccSpec {
        let float = |d: DType| Repr::of(d).is_float();
        let value = match acc.reduction_type {
            ReductionType::Sum | ReductionType::Prod => {
                if float(acc.dtype) || float(value_dtype) {
                    if acc.dtype == DType::F64 || value_dtype == DType::F64 {
                        Repr::F64
                    } else {
                        Repr::F32
                    }
                } else {
                    Repr::I64
                }
            }
            _ => match Repr::of(value_dtype) {
                Repr::Pred => Repr::I32,
                r => r,
            },
        };
        let index = matches!(
            acc.reduction_type,
            ReductionType::Argmax | ReductionType::Argmin
        )
        .then_some(index);
        AccSpec {
            rt: acc.reduction_type,
            value,
            index,
        }
    }

    /// The identity: what an empty or masked-off slot contributes.
    pub(crate) fn identity(&self) -> (Imm, Option<Imm>) {
        let max_like = matches!(self.rt, ReductionType::Max | ReductionType::Argmax);
        let v = match (self.rt, self.value) {
            (ReductionType::Sum, r) => r.zero(),
            (ReductionType::Prod, Repr::F32) => Imm::F32(1.0),
            (ReductionType::Prod, Repr::F64) => Imm::F64(1.0),
            (ReductionType::Prod, _) => Imm::Int(1),
            (_, Repr::F32) => Imm::F32(if max_like {
                f32::NEG_INFINITY
            } else {
                f32::INFINITY
            }),
            (_, Repr::F64) => Imm::F64(if max_like {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }),
            (_, Repr::I64) => Imm::Int(if max_like { i64::MIN } else { i64::MAX }),
            (_, _) => Imm::Int(if max_like {
                i64::from(i32::MIN)
            } else {
                i64::from(i32::MAX)
            }),
        };
        let i = self.index.map(|r| {
            Imm::Int(if r == Repr::I64 {
                i64::MAX
            } else {
                i64::from(i32::MAX)
            })
        });
        (v, i)
    }
}

fn class_of(r: Repr) -> RegClass {
    r.ty().class()
}

impl Emitter<'_> {
    /// Fresh registers holding the identity.
    pub(crate) fn acc_init(&mut self, spec: AccSpec) -> AccRegs {
        let (v, i) = spec.identity();
        let value = self.b.mov(spec.value.ty(), Operand::Imm(v));
        let index = spec
            .index
            .zip(i)
            .map(|(r, imm)| self.b.mov(r.ty(), Operand::Imm(imm)));
        AccRegs { spec, value, index }
    }

    /// Folds one element (`v` of `dtype`, at position `pos`) into `acc`; where `valid` is false
    /// the identity is folded instead.
    pub(crate) fn acc_feed(
        &mut self,
        acc: &AccRegs,
        v: Val,
        dtype: DType,
        pos: Option<Val>,
        valid: Option<Reg>,
    ) {
        let spec = acc.spec;
        let mut v = self.cast(v, dtype, spec.value.dtype());
        let mut pos = pos;
        if let Some(p) = valid {
            let (idv, idi) = spec.identity();
            let x = self.reg(spec.value, v);
            v = Val::Reg(self.b.selp(spec.value.ty(), x, Operand::Imm(idv), p));
            if let (Some(r), Some(at), Some(idi)) = (spec.index, pos, idi) {
                let at = self.reg(r, at);
                pos = Some(Val::Reg(self.b.selp(r.ty(), at, Operand::Imm(idi), p)));
            }
        }
        let cur = (Val::Reg(acc.value), acc.index.map(Val::Reg));
        let (nv, ni) = self.combine(spec, cur, (v, pos));
        self.b.assign(spec.value.ty(), acc.value, nv);
        if let (Some(r), Some(dst), Some(n)) = (spec.index, acc.index, ni) {
            self.b.assign(r.ty(), dst, n);
        }
    }

    /// `a (+) b`.
    pub(crate) fn combine(
        &mut self,
        spec: AccSpec,
        a: (Val, Option<Val>),
        c: (Val, Option<Val>),
    ) -> (Reg, Option<Reg>) {
        let ty = spec.value.ty();
        let x = self.reg(spec.value, a.0);
        let y = c.0;
        let f32_nan = spec.value == Repr::F32;
        let b = &mut self.b;
        let value = match spec.rt {
            ReductionType::Sum => b.add(ty, x, y),
            ReductionType::Prod => b.mul(ty, x, y),
            ReductionType::Max if f32_nan => b.max_nan(ty, x, y),
            ReductionType::Min if f32_nan => b.min_nan(ty, x, y),
            ReductionType::Max | ReductionType::Min => {
                let m = if spec.rt == ReductionType::Max {
                    b.max(ty, x, y)
                } else {
                    b.min(ty, x, y)
                };
                if spec.value == Repr::F64 {
                    let nan = b.setp(Cmp::Nan, ty, x, y);
                    let sum = b.add(ty, x, y);
                    b.selp(ty, sum, m, nan)
                } else {
                    m
                }
            }
            ReductionType::LogAddExp => {
                self.fail("a logaddexp reduction (a scan's only)".into());
                return (x, None);
            }
            ReductionType::Argmax | ReductionType::Argmin => {
                let (Some(ir), Some(ia), Some(ic)) = (spec.index, a.1, c.1) else {
                    self.fail("argmax/argmin without positions".into());
                    return (x, None);
                };
                let ity = ir.ty();
                let ia = self.reg(ir, ia);
                let y = self.reg(spec.value, y);
                let b = &mut self.b;
                let better = if spec.rt == ReductionType::Argmax {
                    Cmp::Gt
                } else {
                    Cmp::Lt
                };
                // take c when: c beats a, or they tie and c comes first; NaN beats numbers.
                let beats = b.setp(better, ty, y, x);
                let ties = b.setp(Cmp::Eq, ty, y, x);
                let earlier = b.setp(Cmp::Lt, ity, ic, ia);
                let tie_first = b.and(Ty::Pred, ties, earlier);
                let mut take = b.or(Ty::Pred, beats, tie_first);
                if spec.value.is_float() {
                    let a_nan = b.setp(Cmp::Nan, ty, x, x);
                    let c_nan = b.setp(Cmp::Nan, ty, y, y);
                    let a_num = b.not(Ty::Pred, a_nan);
                    // Both numbers: the rule above; c NaN: unless a is an earlier NaN.
                    let numbers = b.and(Ty::Pred, take, a_num);
                    let nan_first = b.or(Ty::Pred, a_num, earlier);
                    let nan_wins = b.and(Ty::Pred, c_nan, nan_first);
                    take = b.or(Ty::Pred, numbers, nan_wins);
                }
                let value = b.selp(ty, y, x, take);
                let index = b.selp(ity, ic, ia, take);
                return (value, Some(index));
            }
        };
        (value, None)
    }

    /// The finished value of `acc` as `dtype`.
    pub(crate) fn acc_finish(&mut self, acc: &AccRegs, dtype: DType) -> Val {
        match (acc.spec.index, acc.index) {
            (Some(r), Some(i)) => self.cast(Val::Reg(i), r.dtype(), dtype),
            _ => self.cast(Val::Reg(acc.value), acc.spec.value.dtype(), dtype),
        }
    }

    /// `shfl.sync.bfly` of any 32- or 64-bit register.
    fn shuffle(&mut self, r: Reg, repr: Repr, lane_mask: u32) -> Reg {
        self.shuffle_as(Shfl::Bfly, r, repr, lane_mask)
    }

    /// `shfl.sync.<mode>` of any 32- or 64-bit register.
    pub(crate) fn shuffle_as(&mut self, mode: Shfl, r: Reg, repr: Repr, b: u32) -> Reg {
        if repr.bytes() == 4 {
            return self.b.shfl(mode, r, b);
        }
        let (lo, hi) = (self.b.reg(RegClass::B32), self.b.reg(RegClass::B32));
        self.b
            .emit("mov.b64", vec![Operand::Vec(vec![lo, hi]), Operand::Reg(r)]);
        let lo = self.b.shfl(mode, lo, b);
        let hi = self.b.shfl(mode, hi, b);
        let out = self.b.reg(class_of(repr));
        self.b.emit(
            "mov.b64",
            vec![Operand::Reg(out), Operand::Vec(vec![lo, hi])],
        );
        out
    }

    /// Every lane of the warp ends with the combination of the warp's values.
    pub(crate) fn warp_allreduce(&mut self, accs: &[AccRegs]) {
        for lane_mask in [16u32, 8, 4, 2, 1] {
            for acc in accs {
                let v = self.shuffle(acc.value, acc.spec.value, lane_mask);
                let i = acc
                    .spec
                    .index
                    .zip(acc.index)
                    .map(|(r, reg)| Val::Reg(self.shuffle(reg, r, lane_mask)));
                let cur = (Val::Reg(acc.value), acc.index.map(Val::Reg));
                let (nv, ni) = self.combine(acc.spec, cur, (Val::Reg(v), i));
                self.b.assign(acc.spec.value.ty(), acc.value, nv);
                if let (Some(r), Some(dst), Some(n)) = (acc.spec.index, acc.index, ni) {
                    self.b.assign(r.ty(), dst, n);
                }
            }
        }
    }

    /// Every thread of a block of `threads` (a multiple of 32) ends with the combination of
    /// the block's values: warp all-reduce, one partial per warp through shared memory, a
    /// barrier, warp all-reduce of the partials, a barrier (so it may run again).
    pub(crate) fn block_allreduce(&mut self, accs: &[AccRegs], threads: u32) {
        self.warp_allreduce(accs);
        let warps = threads / 32;
        if warps <= 1 || accs.is_empty() {
            return;
        }
        let tid = self.b.sreg(Sreg::TidX);
        let lane = self.b.and(Ty::B32, tid, 31u32);
        let warp = self.b.shr(Ty::U32, tid, 5u32);
        let leader = self.b.setp(Cmp::Eq, Ty::U32, lane, 0u32);
        let live = self.b.setp(Cmp::Lt, Ty::U32, lane, warps);
        let read = self.b.min(Ty::U32, lane, warps - 1);
        let mut slots = Vec::new();
        for acc in accs {
            let mut parts = vec![(acc.value, acc.spec.value)];
            if let (Some(r), Some(reg)) = (acc.spec.index, acc.index) {
                parts.push((reg, r));
            }
            for (reg, repr) in parts {
                let size = repr.bytes();
                let arr = self.b.shared_array("partials", size, size * warps);
                let base = self.b.shared_address32(&arr);
                let at = self.b.fma(Ty::U32, warp, size, base);
                self.b.guarded(leader, false, |b| {
                    b.st(Space::Shared, repr.ty(), Addr::reg(at), reg, Cache::DEFAULT)
                });
                slots.push((base, size, repr));
            }
        }
        self.b.bar_sync(0);
        let mut k = 0;
        for acc in accs {
            let (idv, idi) = acc.spec.identity();
            let mut load = |em: &mut Self, dst: Reg, identity: Imm| {
                let (base, size, repr) = slots[k];
                k += 1;
                let at = em.b.fma(Ty::U32, read, size, base);
                let v =
                    em.b.ld(Space::Shared, repr.ty(), Addr::reg(at), Cache::DEFAULT);
                let v = em.b.selp(repr.ty(), v, Operand::Imm(identity), live);
                em.b.assign(repr.ty(), dst, v);
            };
            load(self, acc.value, idv);
            if let (Some(dst), Some(identity)) = (acc.index, idi) {
                load(self, dst, identity);
            }
        }
        self.warp_allreduce(accs);
        self.b.bar_sync(0);
    }
}
