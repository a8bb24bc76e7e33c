//! Emission of a scan stage (Inductor's `ops.scan`) in a looped kernel: one block per row, the
//! row in tiles of one element per thread, visited in order. Each tile's elements are scanned
//! across the block (a warp scan with `shfl.up`, then each warp's total through shared memory),
//! the carry of the tiles before is added, and the tile's total carried to the next.

use super::*;
use crate::ptx::{Addr, Cache, Operand, Shfl, Space};

impl<'k> Emitter<'k> {
    /// A reduction stage holding scans: every thread runs every tile (so barriers and
    /// shuffles see the whole block), with its element masked past the row's end.
    pub(super) fn scan_stage(&mut self, stage: &Stage, tid: Reg, threads: u32) -> Vec<AccRegs> {
        let ty = self.index_ty();
        let x = reduction_var();
        let regs = self.acc_regs(stage);
        for &v in &stage.values {
            if let KExpr::Scan { scan_type, .. } = self.k.expr(v) {
                let dtype = self.k.dtype(v);
                let repr = Repr::of(dtype);
                let id = scan_identity(*scan_type, repr);
                let carry = self.b.mov(repr.ty(), Operand::Imm(id));
                self.scan_carry.insert(v, carry);
            }
        }
        let rnumel = self.k.rnumel();
        let end = rnumel.next_multiple_of(threads as usize);
        let t = self.as_index(tid);
        self.counted_loop(
            ty,
            Val::Reg(t),
            Self::imm(end),
            Self::imm(threads as usize),
            |em, j| {
                let valid = (!rnumel.is_multiple_of(threads as usize))
                    .then(|| em.b.setp(Cmp::Lt, ty, j, Self::imm(rnumel)));
                em.scan_valid = valid;
                let cx = Lanes {
                    var: x,
                    width: 1,
                    chunks: vec![Chunk { base: j, valid }],
                };
                em.emit_values(stage, Some(&cx), false);
                em.emit_stores(stage, Some(&cx), None);
                em.feed(stage, &cx, &regs);
                em.scan_valid = None;
            },
        );
        regs
    }

    /// The inclusive scan of this thread's `x` over the block's tile, plus the carry of the
    /// tiles before (which it then advances by the tile's total).
    pub(super) fn block_scan(
        &mut self,
        v: ValueId,
        x: Val,
        dtype: DType,
        scan_type: coil_lower::ReductionType,
    ) -> Val {
        let Some(&carry) = self.scan_carry.get(&v) else {
            self.fail(format!("{v} scans outside a scan stage"));
            return x;
        };
        let repr = Repr::of(dtype);
        let ty = repr.ty();
        let id = Operand::Imm(scan_identity(scan_type, repr));
        let mut x = self.reg(repr, x);
        if let Some(valid) = self.scan_valid {
            x = self.b.selp(ty, x, id.clone(), valid);
        }
        let tid = self.b.sreg(Sreg::TidX);
        let lane = self.b.and(Ty::B32, tid, 31u32);
        // Warp: after step d, lane l holds the combination of lanes l-2d+1..=l.
        for d in [1u32, 2, 4, 8, 16] {
            let y = self.shuffle_as(Shfl::Up, x, repr, d);
            let has = self.b.setp(Cmp::Ge, Ty::U32, lane, d);
            let z = self.scan_combine(scan_type, Val::Reg(x), Val::Reg(y), dtype);
            let z = self.reg(repr, z);
            x = self.b.selp(ty, z, x, has);
        }
        let warps = self.block / 32;
        let total = if warps <= 1 {
            self.shuffle_as(Shfl::Idx, x, repr, 31)
        } else {
            let size = repr.bytes();
            let arr = self.b.shared_array("scan_totals", size, size * warps);
            let base = self.b.shared_address32(&arr);
            let warp = self.b.shr(Ty::U32, tid, 5u32);
            let last = self.b.setp(Cmp::Eq, Ty::U32, lane, 31u32);
            let at = self.b.fma(Ty::U32, warp, size, base);
            self.b.guarded(last, false, |b| {
                b.st(Space::Shared, ty, Addr::reg(at), x, Cache::DEFAULT)
            });
            self.b.bar_sync(0);
            // Every thread folds the warps' totals: those before its warp into its prefix,
            // all of them into the tile's total.
            let mut prefix = self.b.mov(ty, id.clone());
            let mut total = self.b.mov(ty, id.clone());
            for w in 0..warps {
                let p = self.b.ld(
                    Space::Shared,
                    ty,
                    Addr::reg(base).offset((w * size) as i64),
                    Cache::DEFAULT,
                );
                let before = self.b.setp(Cmp::Gt, Ty::U32, warp, w);
                let with = self.scan_combine(scan_type, Val::Reg(prefix), Val::Reg(p), dtype);
                let with = self.reg(repr, with);
                prefix = self.b.selp(ty, with, prefix, before);
                let t = self.scan_combine(scan_type, Val::Reg(total), Val::Reg(p), dtype);
                total = self.reg(repr, t);
            }
            let y = self.scan_combine(scan_type, Val::Reg(prefix), Val::Reg(x), dtype);
            x = self.reg(repr, y);
            // The next tile writes the totals again only after every thread read them.
            self.b.bar_sync(0);
            total
        };
        let out = self.scan_combine(scan_type, Val::Reg(carry), Val::Reg(x), dtype);
        let out = self.reg(repr, out);
        let next = self.scan_combine(scan_type, Val::Reg(carry), Val::Reg(total), dtype);
        self.b.assign(ty, carry, next);
        Val::Reg(out)
    }
}

impl Emitter<'_> {
    /// `a` combined with `b` by `scan_type`: a sum, a product, or `logaddexp` (the larger
    /// plus `log1p(exp(-|a - b|))`, -inf where both are, NaN where either is).
    pub(super) fn scan_combine(
        &mut self,
        scan_type: coil_lower::ReductionType,
        a: Val,
        b: Val,
        dtype: DType,
    ) -> Val {
        use coil_lower::Op;
        match scan_type {
            coil_lower::ReductionType::Prod => self.binary(Op::Mul, a, b, dtype, dtype),
            coil_lower::ReductionType::LogAddExp => {
                let m = self.binary(Op::Maximum, a, b, dtype, dtype);
                let d = self.binary(Op::Sub, a, b, dtype, dtype);
                let d = self.unary(Op::Abs, d, dtype, dtype);
                let d = self.unary(Op::Neg, d, dtype, dtype);
                let e = self.unary(Op::Exp, d, dtype, dtype);
                let l = self.unary(Op::Log1p, e, dtype, dtype);
                let r = self.binary(Op::Add, m, l, dtype, dtype);
                let repr = Repr::of(dtype);
                let ninf = Val::Imm(scan_identity(scan_type, repr));
                let none = self.binary(Op::Eq, m, ninf, dtype, DType::Bool);
                self.select((none, DType::Bool), (m, dtype), (r, dtype), dtype)
            }
            _ => self.binary(Op::Add, a, b, dtype, dtype),
        }
    }
}

/// 0 for sums, 1 for products, -inf for `logaddexp`, in `repr`'s type.
fn scan_identity(scan_type: coil_lower::ReductionType, repr: Repr) -> crate::ptx::Imm {
    if scan_type == coil_lower::ReductionType::LogAddExp {
        return match repr {
            Repr::F64 => crate::ptx::Imm::F64(f64::NEG_INFINITY),
            _ => crate::ptx::Imm::F32(f32::NEG_INFINITY),
        };
    }
    let one = scan_type == coil_lower::ReductionType::Prod;
    match repr {
        Repr::F32 => crate::ptx::Imm::F32(if one { 1.0 } else { 0.0 }),
        Repr::F64 => crate::ptx::Imm::F64(if one { 1.0 } else { 0.0 }),
        _ => crate::ptx::Imm::Int(i64::from(one)),
    }
}
