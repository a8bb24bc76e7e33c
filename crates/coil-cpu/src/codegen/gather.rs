//! Gathers on the CPU: indirect indices (`KExpr::IndirectIndex`) checked on a cold branch
//! that records a bad one in the flags buffer, and how an access through them touches memory
//! across the vector's lanes.

use inkwell::IntPredicate;

use coil_codegen::ArgId;
use coil_graph::DType;
use coil_lower::IndexExpr;

use super::ir::{Ir, V};
use super::{Access, Emitter, Env, access};
use crate::CpuError;

impl<'ctx> Emitter<'_, 'ctx> {
    /// How an access touches memory across lanes: [`access`], except that an indirect index
    /// that differs between lanes (a vector) makes it a gather.
    pub(super) fn access(&self, index: &IndexExpr, env: &Env<'_>) -> Access {
        let lanes = index.indirect_nodes().into_iter().any(|n| {
            self.indirect
                .borrow()
                .get(&(n as u32))
                .is_some_and(|x| Ir::width(*x) > 1)
        });
        if lanes && env.width > 1 {
            Access::Strided
        } else {
            access(index, env)
        }
    }

    /// `x` (i64, scalar or lanes) checked as an index into a dim of `size`: wrapped when
    /// negatives wrap; a lane out of range records the check (`flags[2 * check] = 1`,
    /// `flags[2 * check + 1] =` the value, on a cold path) and reads 0.
    pub(super) fn indirect_index(
        &self,
        x: V<'ctx>,
        size: usize,
        wrap_negative: bool,
        flags: ArgId,
        check: u32,
    ) -> Result<V<'ctx>, CpuError> {
        let ir = &self.ir;
        let s: V<'ctx> = ir.i64c(size as i64).into();
        let zero: V<'ctx> = ir.i64c(0).into();
        let w = if wrap_negative {
            let neg = ir.icmp(IntPredicate::SLT, x, zero)?;
            ir.select(neg, ir.iadd(x, s)?, x)?
        } else {
            x
        };
        // Unsigned: a negative index is huge.
        let bad = ir.icmp(IntPredicate::UGE, w, s)?;
        let (any, value) = if Ir::width(bad) > 1 {
            let any = ir.intrinsic("llvm.vector.reduce.or", &[bad.get_type()], &[bad])?;
            // Some bad lane's raw value (the least; `i64::MAX` is itself bad when it shows).
            let max: V<'ctx> = ir.i64c(i64::MAX).into();
            let masked = ir.select(bad, x, max)?;
            let v = ir.intrinsic("llvm.vector.reduce.smin", &[masked.get_type()], &[masked])?;
            (any, v)
        } else {
            (bad, x)
        };
        let cx = ir.cx;
        let b = ir.b;
        let cold = cx.append_basic_block(self.f, "index.bad");
        let cont = cx.append_basic_block(self.f, "index.ok");
        b.build_conditional_branch(any.into_int_value(), cold, cont)?;
        b.position_at_end(cold);
        let base = self.args[flags.0 as usize];
        let at = 2 * check as i64;
        ir.store(DType::I64, base, ir.i64c(at), ir.i64c(1).into())?;
        ir.store(DType::I64, base, ir.i64c(at + 1), value)?;
        b.build_unconditional_branch(cont)?;
        b.position_at_end(cont);
        ir.select(bad, zero, w)
    }
}
