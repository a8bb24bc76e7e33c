//! [`MathOps`]: the operations the math routines are written in, and its two instances: the
//! host model ([`Host`]) and PTX emission ([`KernelBuilder`]).

use crate::ptx::{Cmp, Imm, KernelBuilder, Reg, Round, TestP, Ty, Val};
/// The operations the math routines are written in. Implemented by [`KernelBuilder`] (emits
/// PTX) and [`Host`] (evaluates with the same IEEE semantics, including PTX's: `min`/`max`
/// return the non-NaN operand, shifts by the register width or more give 0, float-to-int
/// conversions saturate and map NaN to 0).
///
/// Types: `F` f32, `D` f64, `I` 32-bit integer (signed where the method says so), `L` 64-bit
/// unsigned integer, `P` predicate.
#[allow(missing_docs)] // one line per PTX instruction; the name says which
pub trait MathOps {
    type F: Copy;
    type D: Copy;
    type I: Copy;
    type L: Copy;
    type P: Copy;

    // f32
    fn f(&mut self, v: f32) -> Self::F;
    fn fadd(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn fsub(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn fmul(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `a * b + c`, one rounding.
    fn ffma(&mut self, a: Self::F, b: Self::F, c: Self::F) -> Self::F;
    fn fdiv(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn frcp(&mut self, a: Self::F) -> Self::F;
    fn fsqrt(&mut self, a: Self::F) -> Self::F;
    fn fneg(&mut self, a: Self::F) -> Self::F;
    fn fabs(&mut self, a: Self::F) -> Self::F;
    fn fmin(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn fmax(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `magnitude` with the sign of `sign`.
    fn fcopysign(&mut self, sign: Self::F, magnitude: Self::F) -> Self::F;
    /// Round to the nearest integral value, ties to even (`cvt.rni.f32.f32`).
    fn fround(&mut self, a: Self::F) -> Self::F;
    fn fcmp(&mut self, cmp: Cmp, a: Self::F, b: Self::F) -> Self::P;
    fn fisnan(&mut self, a: Self::F) -> Self::P;
    fn fsel(&mut self, p: Self::P, a: Self::F, b: Self::F) -> Self::F;
    fn fbits(&mut self, a: Self::F) -> Self::I;
    fn ffrombits(&mut self, a: Self::I) -> Self::F;
    /// `cvt.rni.s32.f32`.
    fn ftoi(&mut self, a: Self::F) -> Self::I;
    /// `cvt.rn.f32.s32`.
    fn itof(&mut self, a: Self::I) -> Self::F;

    // 32-bit integers
    fn i(&mut self, v: i32) -> Self::I;
    fn iadd(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn isub(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn iand(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn ior(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn ixor(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn ishl(&mut self, a: Self::I, amount: Self::I) -> Self::I;
    /// Logical shift right.
    fn ishr(&mut self, a: Self::I, amount: Self::I) -> Self::I;
    /// Signed comparison.
    fn icmp(&mut self, cmp: Cmp, a: Self::I, b: Self::I) -> Self::P;
    fn isel(&mut self, p: Self::P, a: Self::I, b: Self::I) -> Self::I;

    // 64-bit integers
    /// Zero-extends a 32-bit integer.
    fn lzext(&mut self, a: Self::I) -> Self::L;
    fn lmul(&mut self, a: Self::L, b: Self::L) -> Self::L;
    /// High 64 bits of the 128-bit product.
    fn lmulhi(&mut self, a: Self::L, b: Self::L) -> Self::L;
    fn ladd(&mut self, a: Self::L, b: Self::L) -> Self::L;
    fn lshl(&mut self, a: Self::L, amount: Self::I) -> Self::L;
    /// Logical shift right.
    fn lshr(&mut self, a: Self::L, amount: Self::I) -> Self::L;
    fn lor(&mut self, a: Self::L, b: Self::L) -> Self::L;
    /// The low 32 bits.
    fn ltrunc(&mut self, a: Self::L) -> Self::I;
    /// `table[index]`, from a module-scope constant table.
    fn ltable(&mut self, table: &Table, index: Self::I) -> Self::L;

    // f64
    fn d(&mut self, v: f64) -> Self::D;
    fn dadd(&mut self, a: Self::D, b: Self::D) -> Self::D;
    fn dsub(&mut self, a: Self::D, b: Self::D) -> Self::D;
    fn dmul(&mut self, a: Self::D, b: Self::D) -> Self::D;
    fn dfma(&mut self, a: Self::D, b: Self::D, c: Self::D) -> Self::D;
    fn ddiv(&mut self, a: Self::D, b: Self::D) -> Self::D;
    fn dmin(&mut self, a: Self::D, b: Self::D) -> Self::D;
    fn dmax(&mut self, a: Self::D, b: Self::D) -> Self::D;
    fn dround(&mut self, a: Self::D) -> Self::D;
    fn dcmp(&mut self, cmp: Cmp, a: Self::D, b: Self::D) -> Self::P;
    fn dsel(&mut self, p: Self::P, a: Self::D, b: Self::D) -> Self::D;
    /// Exact widening.
    fn dfromf(&mut self, a: Self::F) -> Self::D;
    /// `cvt.rn.f32.f64`.
    fn dtof(&mut self, a: Self::D) -> Self::F;
    /// `cvt.rn.f64.s32` (exact).
    fn dfromi(&mut self, a: Self::I) -> Self::D;
    /// `cvt.rni.s32.f64`.
    fn dtoi(&mut self, a: Self::D) -> Self::I;
    /// `cvt.rn.f64.s64`: the 64-bit integer read as signed.
    fn dfroml(&mut self, a: Self::L) -> Self::D;
    fn dfrombits(&mut self, a: Self::L) -> Self::D;

    // predicates
    fn pand(&mut self, a: Self::P, b: Self::P) -> Self::P;
    fn pnot(&mut self, a: Self::P) -> Self::P;

    /// `if p { body() } else { default }`, with `body` really skipped when `p` is false (a
    /// branch in PTX): for slow paths that are rarely taken.
    fn branch(
        &mut self,
        p: Self::P,
        default: (Self::F, Self::I),
        body: impl FnOnce(&mut Self) -> (Self::F, Self::I),
    ) -> (Self::F, Self::I);
}

/// A module-scope table of 64-bit constants (the bits of 2/π).
#[derive(Debug)]
pub struct Table {
    /// Its PTX name (one per module).
    pub name: &'static str,
    /// Its contents.
    pub values: &'static [u64],
}

/// The host instance of [`MathOps`]: plain `f32`/`f64`/`u32`/`u64`/`bool`, with PTX's
/// semantics. `math::exp(&mut Host, x)` is what the PTX computes for `x`, bit for bit.
#[derive(Clone, Copy, Debug, Default)]
pub struct Host;

fn host_cmp<T: PartialOrd>(cmp: Cmp, a: T, b: T) -> bool {
    let unordered = a.partial_cmp(&b).is_none();
    match cmp {
        Cmp::Eq => a == b,
        Cmp::Ne => !unordered && a != b,
        Cmp::Lt => a < b,
        Cmp::Le => a <= b,
        Cmp::Gt => a > b,
        Cmp::Ge => a >= b,
        Cmp::Equ => unordered || a == b,
        Cmp::Neu => a != b,
        Cmp::Ltu => unordered || a < b,
        Cmp::Leu => unordered || a <= b,
        Cmp::Gtu => unordered || a > b,
        Cmp::Geu => unordered || a >= b,
        Cmp::Num => !unordered,
        Cmp::Nan => unordered,
    }
}

impl MathOps for Host {
    type F = f32;
    type D = f64;
    type I = u32;
    type L = u64;
    type P = bool;

    fn f(&mut self, v: f32) -> f32 {
        v
    }
    fn fadd(&mut self, a: f32, b: f32) -> f32 {
        a + b
    }
    fn fsub(&mut self, a: f32, b: f32) -> f32 {
        a - b
    }
    fn fmul(&mut self, a: f32, b: f32) -> f32 {
        a * b
    }
    fn ffma(&mut self, a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
    fn fdiv(&mut self, a: f32, b: f32) -> f32 {
        a / b
    }
    fn frcp(&mut self, a: f32) -> f32 {
        1.0 / a
    }
    fn fsqrt(&mut self, a: f32) -> f32 {
        a.sqrt()
    }
    fn fneg(&mut self, a: f32) -> f32 {
        -a
    }
    fn fabs(&mut self, a: f32) -> f32 {
        a.abs()
    }
    fn fmin(&mut self, a: f32, b: f32) -> f32 {
        a.min(b)
    }
    fn fmax(&mut self, a: f32, b: f32) -> f32 {
        a.max(b)
    }
    fn fcopysign(&mut self, sign: f32, magnitude: f32) -> f32 {
        magnitude.copysign(sign)
    }
    fn fround(&mut self, a: f32) -> f32 {
        a.round_ties_even()
    }
    fn fcmp(&mut self, cmp: Cmp, a: f32, b: f32) -> bool {
        host_cmp(cmp, a, b)
    }
    fn fisnan(&mut self, a: f32) -> bool {
        a.is_nan()
    }
    fn fsel(&mut self, p: bool, a: f32, b: f32) -> f32 {
        if p { a } else { b }
    }
    fn fbits(&mut self, a: f32) -> u32 {
        a.to_bits()
    }
    fn ffrombits(&mut self, a: u32) -> f32 {
        f32::from_bits(a)
    }
    fn ftoi(&mut self, a: f32) -> u32 {
        // `as` saturates and maps NaN to 0, like cvt.rni.s32.f32.
        a.round_ties_even() as i32 as u32
    }
    fn itof(&mut self, a: u32) -> f32 {
        a as i32 as f32
    }

    fn i(&mut self, v: i32) -> u32 {
        v as u32
    }
    fn iadd(&mut self, a: u32, b: u32) -> u32 {
        a.wrapping_add(b)
    }
    fn isub(&mut self, a: u32, b: u32) -> u32 {
        a.wrapping_sub(b)
    }
    fn iand(&mut self, a: u32, b: u32) -> u32 {
        a & b
    }
    fn ior(&mut self, a: u32, b: u32) -> u32 {
        a | b
    }
    fn ixor(&mut self, a: u32, b: u32) -> u32 {
        a ^ b
    }
    fn ishl(&mut self, a: u32, amount: u32) -> u32 {
        if amount >= 32 { 0 } else { a << amount }
    }
    fn ishr(&mut self, a: u32, amount: u32) -> u32 {
        if amount >= 32 { 0 } else { a >> amount }
    }
    fn icmp(&mut self, cmp: Cmp, a: u32, b: u32) -> bool {
        host_cmp(cmp, a as i32, b as i32)
    }
    fn isel(&mut self, p: bool, a: u32, b: u32) -> u32 {
        if p { a } else { b }
    }

    fn lzext(&mut self, a: u32) -> u64 {
        a.into()
    }
    fn lmul(&mut self, a: u64, b: u64) -> u64 {
        a.wrapping_mul(b)
    }
    fn lmulhi(&mut self, a: u64, b: u64) -> u64 {
        ((u128::from(a) * u128::from(b)) >> 64) as u64
    }
    fn ladd(&mut self, a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }
    fn lshl(&mut self, a: u64, amount: u32) -> u64 {
        if amount >= 64 { 0 } else { a << amount }
    }
    fn lshr(&mut self, a: u64, amount: u32) -> u64 {
        if amount >= 64 { 0 } else { a >> amount }
    }
    fn lor(&mut self, a: u64, b: u64) -> u64 {
        a | b
    }
    fn ltrunc(&mut self, a: u64) -> u32 {
        a as u32
    }
    fn ltable(&mut self, table: &Table, index: u32) -> u64 {
        table.values.get(index as usize).copied().unwrap_or(0)
    }

    fn d(&mut self, v: f64) -> f64 {
        v
    }
    fn dadd(&mut self, a: f64, b: f64) -> f64 {
        a + b
    }
    fn dsub(&mut self, a: f64, b: f64) -> f64 {
        a - b
    }
    fn dmul(&mut self, a: f64, b: f64) -> f64 {
        a * b
    }
    fn dfma(&mut self, a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
    fn ddiv(&mut self, a: f64, b: f64) -> f64 {
        a / b
    }
    fn dmin(&mut self, a: f64, b: f64) -> f64 {
        a.min(b)
    }
    fn dmax(&mut self, a: f64, b: f64) -> f64 {
        a.max(b)
    }
    fn dround(&mut self, a: f64) -> f64 {
        a.round_ties_even()
    }
    fn dcmp(&mut self, cmp: Cmp, a: f64, b: f64) -> bool {
        host_cmp(cmp, a, b)
    }
    fn dsel(&mut self, p: bool, a: f64, b: f64) -> f64 {
        if p { a } else { b }
    }
    fn dfromf(&mut self, a: f32) -> f64 {
        a.into()
    }
    fn dtof(&mut self, a: f64) -> f32 {
        a as f32
    }
    fn dfromi(&mut self, a: u32) -> f64 {
        (a as i32).into()
    }
    fn dtoi(&mut self, a: f64) -> u32 {
        a.round_ties_even() as i32 as u32
    }
    fn dfroml(&mut self, a: u64) -> f64 {
        a as i64 as f64
    }
    fn dfrombits(&mut self, a: u64) -> f64 {
        f64::from_bits(a)
    }

    fn pand(&mut self, a: bool, b: bool) -> bool {
        a && b
    }
    fn pnot(&mut self, a: bool) -> bool {
        !a
    }

    fn branch(
        &mut self,
        p: bool,
        default: (f32, u32),
        body: impl FnOnce(&mut Self) -> (f32, u32),
    ) -> (f32, u32) {
        if p { body(self) } else { default }
    }
}

/// The PTX instance: values are registers or inline immediates.
impl MathOps for KernelBuilder {
    type F = Val;
    type D = Val;
    type I = Val;
    type L = Val;
    type P = Reg;

    fn f(&mut self, v: f32) -> Val {
        Val::Imm(Imm::F32(v))
    }
    fn fadd(&mut self, a: Val, b: Val) -> Val {
        self.add(Ty::F32, a, b).into()
    }
    fn fsub(&mut self, a: Val, b: Val) -> Val {
        self.sub(Ty::F32, a, b).into()
    }
    fn fmul(&mut self, a: Val, b: Val) -> Val {
        self.mul(Ty::F32, a, b).into()
    }
    fn ffma(&mut self, a: Val, b: Val, c: Val) -> Val {
        self.fma(Ty::F32, a, b, c).into()
    }
    fn fdiv(&mut self, a: Val, b: Val) -> Val {
        self.div(Ty::F32, a, b).into()
    }
    fn frcp(&mut self, a: Val) -> Val {
        self.rcp(Ty::F32, a).into()
    }
    fn fsqrt(&mut self, a: Val) -> Val {
        self.sqrt(Ty::F32, a).into()
    }
    fn fneg(&mut self, a: Val) -> Val {
        self.neg(Ty::F32, a).into()
    }
    fn fabs(&mut self, a: Val) -> Val {
        self.abs(Ty::F32, a).into()
    }
    fn fmin(&mut self, a: Val, b: Val) -> Val {
        self.min(Ty::F32, a, b).into()
    }
    fn fmax(&mut self, a: Val, b: Val) -> Val {
        self.max(Ty::F32, a, b).into()
    }
    fn fcopysign(&mut self, sign: Val, magnitude: Val) -> Val {
        self.copysign(Ty::F32, sign, magnitude).into()
    }
    fn fround(&mut self, a: Val) -> Val {
        self.cvt(Ty::F32, Ty::F32, Some(Round::Rni), a).into()
    }
    fn fcmp(&mut self, cmp: Cmp, a: Val, b: Val) -> Reg {
        self.setp(cmp, Ty::F32, a, b)
    }
    fn fisnan(&mut self, a: Val) -> Reg {
        self.testp(TestP::NotANumber, Ty::F32, a)
    }
    fn fsel(&mut self, p: Reg, a: Val, b: Val) -> Val {
        self.selp(Ty::F32, a, b, p).into()
    }
    fn fbits(&mut self, a: Val) -> Val {
        match a {
            Val::Imm(Imm::F32(v)) => Val::Imm(Imm::Int(i64::from(v.to_bits() as i32))),
            other => {
                let r = self.materialize(Ty::F32, other);
                self.bitcast(Ty::B32, r).into()
            }
        }
    }
    fn ffrombits(&mut self, a: Val) -> Val {
        match a {
            Val::Imm(Imm::Int(v)) => Val::Imm(Imm::F32(f32::from_bits(v as u32))),
            other => {
                let r = self.materialize(Ty::B32, other);
                self.bitcast(Ty::F32, r).into()
            }
        }
    }
    fn ftoi(&mut self, a: Val) -> Val {
        self.cvt(Ty::S32, Ty::F32, Some(Round::Rni), a).into()
    }
    fn itof(&mut self, a: Val) -> Val {
        self.cvt(Ty::F32, Ty::S32, Some(Round::Rn), a).into()
    }

    fn i(&mut self, v: i32) -> Val {
        Val::Imm(Imm::Int(v.into()))
    }
    fn iadd(&mut self, a: Val, b: Val) -> Val {
        self.add(Ty::S32, a, b).into()
    }
    fn isub(&mut self, a: Val, b: Val) -> Val {
        self.sub(Ty::S32, a, b).into()
    }
    fn iand(&mut self, a: Val, b: Val) -> Val {
        self.and(Ty::B32, a, b).into()
    }
    fn ior(&mut self, a: Val, b: Val) -> Val {
        self.or(Ty::B32, a, b).into()
    }
    fn ixor(&mut self, a: Val, b: Val) -> Val {
        self.xor(Ty::B32, a, b).into()
    }
    fn ishl(&mut self, a: Val, amount: Val) -> Val {
        self.shl(Ty::B32, a, amount).into()
    }
    fn ishr(&mut self, a: Val, amount: Val) -> Val {
        self.shr(Ty::U32, a, amount).into()
    }
    fn icmp(&mut self, cmp: Cmp, a: Val, b: Val) -> Reg {
        self.setp(cmp, Ty::S32, a, b)
    }
    fn isel(&mut self, p: Reg, a: Val, b: Val) -> Val {
        self.selp(Ty::B32, a, b, p).into()
    }

    fn lzext(&mut self, a: Val) -> Val {
        self.cvt(Ty::U64, Ty::U32, None, a).into()
    }
    fn lmul(&mut self, a: Val, b: Val) -> Val {
        self.mul(Ty::U64, a, b).into()
    }
    fn lmulhi(&mut self, a: Val, b: Val) -> Val {
        self.mul_hi(Ty::U64, a, b).into()
    }
    fn ladd(&mut self, a: Val, b: Val) -> Val {
        self.add(Ty::U64, a, b).into()
    }
    fn lshl(&mut self, a: Val, amount: Val) -> Val {
        self.shl(Ty::B64, a, amount).into()
    }
    fn lshr(&mut self, a: Val, amount: Val) -> Val {
        self.shr(Ty::U64, a, amount).into()
    }
    fn lor(&mut self, a: Val, b: Val) -> Val {
        self.or(Ty::B64, a, b).into()
    }
    fn ltrunc(&mut self, a: Val) -> Val {
        self.cvt(Ty::U32, Ty::U64, None, a).into()
    }
    fn ltable(&mut self, table: &Table, index: Val) -> Val {
        let sym = self.const_table(table.name, Ty::B64, table.values);
        let base = self.address_of(&sym);
        let addr = self.mad_wide(Ty::U32, index, 8u32, base);
        self.ld(
            crate::ptx::Space::Const,
            Ty::U64,
            addr.into(),
            crate::ptx::Cache::DEFAULT,
        )
        .into()
    }

    fn d(&mut self, v: f64) -> Val {
        Val::Imm(Imm::F64(v))
    }
    fn dadd(&mut self, a: Val, b: Val) -> Val {
        self.add(Ty::F64, a, b).into()
    }
    fn dsub(&mut self, a: Val, b: Val) -> Val {
        self.sub(Ty::F64, a, b).into()
    }
    fn dmul(&mut self, a: Val, b: Val) -> Val {
        self.mul(Ty::F64, a, b).into()
    }
    fn dfma(&mut self, a: Val, b: Val, c: Val) -> Val {
        self.fma(Ty::F64, a, b, c).into()
    }
    fn ddiv(&mut self, a: Val, b: Val) -> Val {
        self.div(Ty::F64, a, b).into()
    }
    fn dmin(&mut self, a: Val, b: Val) -> Val {
        self.min(Ty::F64, a, b).into()
    }
    fn dmax(&mut self, a: Val, b: Val) -> Val {
        self.max(Ty::F64, a, b).into()
    }
    fn dround(&mut self, a: Val) -> Val {
        self.cvt(Ty::F64, Ty::F64, Some(Round::Rni), a).into()
    }
    fn dcmp(&mut self, cmp: Cmp, a: Val, b: Val) -> Reg {
        self.setp(cmp, Ty::F64, a, b)
    }
    fn dsel(&mut self, p: Reg, a: Val, b: Val) -> Val {
        self.selp(Ty::F64, a, b, p).into()
    }
    fn dfromf(&mut self, a: Val) -> Val {
        self.cvt(Ty::F64, Ty::F32, None, a).into()
    }
    fn dtof(&mut self, a: Val) -> Val {
        self.cvt(Ty::F32, Ty::F64, Some(Round::Rn), a).into()
    }
    fn dfromi(&mut self, a: Val) -> Val {
        self.cvt(Ty::F64, Ty::S32, Some(Round::Rn), a).into()
    }
    fn dtoi(&mut self, a: Val) -> Val {
        self.cvt(Ty::S32, Ty::F64, Some(Round::Rni), a).into()
    }
    fn dfroml(&mut self, a: Val) -> Val {
        self.cvt(Ty::F64, Ty::S64, Some(Round::Rn), a).into()
    }
    fn dfrombits(&mut self, a: Val) -> Val {
        let r = self.materialize(Ty::B64, a);
        self.bitcast(Ty::F64, r).into()
    }

    fn pand(&mut self, a: Reg, b: Reg) -> Reg {
        self.and(Ty::Pred, a, b)
    }
    fn pnot(&mut self, a: Reg) -> Reg {
        self.not(Ty::Pred, a)
    }

    fn branch(
        &mut self,
        p: Reg,
        default: (Val, Val),
        body: impl FnOnce(&mut Self) -> (Val, Val),
    ) -> (Val, Val) {
        let f = self.mov(Ty::F32, default.0);
        let i = self.mov(Ty::B32, default.1);
        let skip = self.label("slow_path_done");
        self.bra_unless(p, &skip);
        let (bf, bi) = body(self);
        self.assign(Ty::F32, f, bf);
        self.assign(Ty::B32, i, bi);
        self.place(&skip);
        (f.into(), i.into())
    }
}
