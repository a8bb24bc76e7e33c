//! Emission of guarded rows ([`CodegenOptions::guarded_max_min`]): a reduction stage that
//! only accumulates takes the fast `vmaxps`/`vminps` updates with a guard, and runs again with
//! the exact updates when the guard trips; which accumulators share a guard.

use super::*;

impl<'a, 'ctx> Emitter<'a, 'ctx> {
    /// The guards of a stage's fast max/min slots: a float sum of the same values in the stage,
    /// when there is one, is the guard; otherwise the first fast slot over those values lends
    /// its guard to the others (a row's max and min).
    pub(super) fn assign_guards(&mut self, accs: &[Accumulator]) -> Result<(), CpuError> {
        let mut owners: Vec<AccId> = vec![];
        for acc in accs {
            let sum = accs.iter().find(|s| {
                s.id != acc.id
                    && s.value == acc.value
                    && s.reduction_type == coil_lower::ReductionType::Sum
            });
            // Out of the map while it reads the others.
            let mut slot = self
                .slots
                .remove(&acc.id)
                .ok_or_else(|| err(format!("{} has no slot", acc.id)))?;
            if let Some(sum) = sum {
                slot.guard_by_sum(&self.slots[&sum.id]);
            }
            if slot.guard_sum().is_none() {
                match owners.iter().find(|o| self.slots[o].acc.value == acc.value) {
                    Some(owner) => slot.share_guard(&self.slots[owner]),
                    None if slot.has_fast_form() => owners.push(acc.id),
                    None => {}
                }
            }
            self.slots.insert(acc.id, slot);
        }
        Ok(())
    }

    /// Whether stage `si` takes the guarded fast max/min ([`reduce`]'s `AccSlot::guard`): it
    /// has such an accumulator, and its loop only accumulates (no stores, no row-cache
    /// entries, no prefetch, no pipelined late stage), so running it a second time changes
    /// nothing but the accumulators.
    pub(super) fn guarded_stage(&self, si: usize, stage: &Stage) -> bool {
        self.guarded_max_min
            && stage
                .accumulators
                .iter()
                .any(|a| self.slots[&a.id].has_fast_form())
            && stage.stores.is_empty()
            && !self.cached.iter().any(|c| c.source_stage == si)
            && self.prefetch.as_ref().is_none_or(|p| p.stage != si)
            && self.pipe.as_ref().is_none_or(|p| p.plan.host != si)
    }

    /// The stage's loop with the guarded fast max/min, then, when a guard is NaN (a NaN went
    /// by, or rarely `inf + -inf`), the loop again with the exact updates (accumulators reset
    /// first).
    pub(super) fn guarded_reduction_nest(
        &mut self,
        si: usize,
        stage: &Stage,
        rvars: &[(Var, usize)],
        vars: &HashMap<Var, IntValue<'ctx>>,
        pos: &IndexExpr,
    ) -> Result<(), CpuError> {
        let guarded: Vec<AccId> = stage
            .accumulators
            .iter()
            .map(|a| a.id)
            .filter(|id| self.slots[id].has_fast_form())
            .collect();
        guarded.iter().for_each(|id| self.slots[id].set_fast(true));
        let fast = self.reduction_nest(si, stage, rvars, 0, vars.clone(), pos);
        guarded.iter().for_each(|id| self.slots[id].set_fast(false));
        fast?;
        let b = self.ir.b;
        let mut tripped = None;
        for id in &guarded {
            let t = match self.slots[id].guard_sum() {
                // The stand-in sum, finished now for the test (and again after the stage).
                Some(sum) => {
                    let total = self.ir.acc_finish(&self.slots[&sum])?;
                    self.ir
                        .fcmp(inkwell::FloatPredicate::UNO, total, total)?
                        .into_int_value()
                }
                None => self.ir.acc_guard_tripped(&self.slots[id])?,
            };
            tripped = Some(match tripped {
                None => t,
                Some(a) => b.build_or(a, t, "guard")?,
            });
        }
        let tripped = tripped.ok_or_else(|| err("a guarded stage without a guard"))?;
        let redo = self.ir.cx.append_basic_block(self.f, "exact.redo");
        let done = self.ir.cx.append_basic_block(self.f, "exact.done");
        b.build_conditional_branch(tripped, redo, done)?;
        b.position_at_end(redo);
        for acc in &stage.accumulators {
            self.ir.acc_init(&self.slots[&acc.id])?;
        }
        self.reduction_nest(si, stage, rvars, 0, vars.clone(), pos)?;
        b.build_unconditional_branch(done)?;
        b.position_at_end(done);
        Ok(())
    }
}
