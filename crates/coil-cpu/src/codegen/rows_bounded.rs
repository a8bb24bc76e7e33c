//! Emission of bounded rows ([`CodegenOptions::bounded_exp`], planned by `bounds.rs`): the
//! stage is emitted twice, with and without `exp`'s range test, and each row takes the copy its
//! min and max allow.

use super::*;

impl<'a, 'ctx> Emitter<'a, 'ctx> {
    /// For a stage with bounded `exp`s ([`bounds`]): whether this row's spreads are all
    /// within the math library's short range, and the `exp`s that may then skip the range
    /// test.
    pub(super) fn row_in_range(
        &self,
        si: usize,
    ) -> Result<Option<(IntValue<'ctx>, HashSet<ValueId>)>, CpuError> {
        let Some(bounded) = self.row_bounds.iter().find(|b| b.stage == si) else {
            return Ok(None);
        };
        let b = self.ir.b;
        let mut all = None;
        for &(max, min) in &bounded.spreads {
            let finished = |a: AccId| {
                self.acc_values
                    .get(&a)
                    .copied()
                    .ok_or_else(|| err(format!("{a} is read before its stage finished")))
            };
            let (hi, lo) = (finished(max)?, finished(min)?);
            let dtype = self.slots[&max].acc.dtype;
            let kind = match dtype {
                DType::F32 => crate::FloatKind::F32,
                DType::F64 => crate::FloatKind::F64,
                other => return Err(err(format!("a bounded exp of {other}"))),
            };
            let spread = self.ir.binary(Op::Sub, lo, hi, dtype, dtype, None)?;
            let limit = self
                .ir
                .cf(Class::of(dtype), -crate::vmath::exp_in_range_limit(kind));
            // Ordered: a NaN spread (a NaN max, or inf - inf) is out of range.
            let ok = self.ir.fcmp(inkwell::FloatPredicate::OGE, spread, limit)?;
            let ok = ok.into_int_value();
            all = Some(match all {
                None => ok,
                Some(a) => b.build_and(a, ok, "in_range")?,
            });
        }
        Ok(all.map(|ok| (ok, bounded.exps.clone())))
    }

    /// The stage's loop twice, chosen by `in_range` ([`Emitter::row_in_range`]): a copy whose
    /// `exps` skip the range test, and the ordinary one.
    pub(super) fn bounded_reduction_nest(
        &mut self,
        (si, stage): (usize, &Stage),
        rvars: &[(Var, usize)],
        vars: &HashMap<Var, IntValue<'ctx>>,
        pos: &IndexExpr,
        (in_range, exps): (IntValue<'ctx>, HashSet<ValueId>),
    ) -> Result<(), CpuError> {
        let cx = self.ir.cx;
        let b = self.ir.b;
        let fast = cx.append_basic_block(self.f, "in_range");
        let checked = cx.append_basic_block(self.f, "checked");
        let done = cx.append_basic_block(self.f, "in_range.done");
        b.build_conditional_branch(in_range, fast, checked)?;
        b.position_at_end(fast);
        self.exp_in_range = exps;
        let result = self.reduction_nest(si, stage, rvars, 0, vars.clone(), pos);
        self.exp_in_range.clear();
        result?;
        b.build_unconditional_branch(done)?;
        b.position_at_end(checked);
        self.reduction_nest(si, stage, rvars, 0, vars.clone(), pos)?;
        b.build_unconditional_branch(done)?;
        b.position_at_end(done);
        Ok(())
    }
}
