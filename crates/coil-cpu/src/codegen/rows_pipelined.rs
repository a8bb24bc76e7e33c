//! Emission of pipelined rows ([`CodegenOptions::pipeline_rows`], planned by `pipeline.rs`):
//! the last stage runs one row late inside the previous stage's loop, with its own row-cache
//! arrays and accumulators, and once more after the last row.

use super::*;

impl<'a, 'ctx> Emitter<'a, 'ctx> {
    /// Sets up the planned row pipeline: its second row-cache arrays and accumulator slots
    /// (in the entry block, after the row cache).
    pub(super) fn setup_pipeline(&mut self, start: IntValue<'ctx>) -> Result<(), CpuError> {
        let Some(plan) = self.pipeline.take() else {
            return Ok(());
        };
        let b = self.ir.b;
        let alt = (0..self.cached.len())
            .map(|i| self.row_array(i, ".b"))
            .collect::<Result<Vec<_>, _>>()?;
        let mut acc_slots = Vec::new();
        for &a in &plan.accs {
            let slot = self
                .slots
                .get(&a)
                .ok_or_else(|| err(format!("{a} has no slot")))?;
            let ty = self.ir.scalar_ty(Class::of(slot.acc.dtype));
            let p = b.build_alloca(ty, &format!("{a}.prev"))?;
            b.build_store(p, ty.const_zero())?;
            acc_slots.push((a, p, ty));
        }
        self.pipe = Some(Pipe {
            plan,
            base: self.row_arrays.clone(),
            alt,
            acc_slots,
            start,
            has_prev: None,
            prev_vars: HashMap::new(),
            prev_cache: vec![],
            prev_accs: HashMap::new(),
        });
        Ok(())
    }

    /// The row-cache arrays of row `it`: `(this row's, the other's)`, by `it`'s parity.
    pub(super) fn cache_arrays(
        &self,
        it: IntValue<'ctx>,
    ) -> Result<(Vec<PointerValue<'ctx>>, Vec<PointerValue<'ctx>>), CpuError> {
        let Some(pipe) = &self.pipe else {
            return Ok((vec![], vec![]));
        };
        let b = self.ir.b;
        let odd = b.build_int_truncate(it, self.ir.cx.bool_type(), "odd")?;
        let mut cur = Vec::new();
        let mut other = Vec::new();
        for (&x, &y) in pipe.base.iter().zip(&pipe.alt) {
            cur.push(b.build_select(odd, y, x, "cache")?.into_pointer_value());
            other.push(
                b.build_select(odd, x, y, "cache.prev")?
                    .into_pointer_value(),
            );
        }
        Ok((cur, other))
    }

    /// At the top of row `it`: this row's row-cache arrays, and what the previous row's late
    /// stage needs (whether there is one, its variables, arrays and accumulators).
    pub(super) fn pipeline_row(&mut self, it: IntValue<'ctx>) -> Result<(), CpuError> {
        let Some(start) = self.pipe.as_ref().map(|p| p.start) else {
            return Ok(());
        };
        let b = self.ir.b;
        let (cur, prev) = self.cache_arrays(it)?;
        self.row_arrays = cur;
        let has_prev = b.build_int_compare(IntPredicate::SGT, it, start, "has_prev")?;
        let before = b.build_int_sub(it, self.ir.i64c(1), "it.prev")?;
        let prev_vars = self.outer_point(before)?;
        let prev_accs = self.load_late_accs()?;
        let pipe = self.pipe.as_mut().ok_or_else(|| err("no pipeline"))?;
        pipe.has_prev = Some(has_prev);
        pipe.prev_vars = prev_vars;
        pipe.prev_cache = prev;
        pipe.prev_accs = prev_accs;
        Ok(())
    }

    /// The late stage's accumulators as the previous row left them.
    pub(super) fn load_late_accs(&self) -> Result<HashMap<AccId, V<'ctx>>, CpuError> {
        let mut out = HashMap::new();
        if let Some(pipe) = &self.pipe {
            for &(a, p, ty) in &pipe.acc_slots {
                out.insert(a, self.ir.b.build_load(ty, p, &format!("{a}.prev"))?);
            }
        }
        Ok(out)
    }

    /// Stores this row's finished accumulators that its late stage will read.
    pub(super) fn keep_late_accs(&self) -> Result<(), CpuError> {
        if let Some(pipe) = &self.pipe {
            for &(a, p, _) in &pipe.acc_slots {
                let v = *self
                    .acc_values
                    .get(&a)
                    .ok_or_else(|| err(format!("{a} is read before its stage finished")))?;
                self.ir.b.build_store(p, v)?;
            }
        }
        Ok(())
    }

    /// In the host stage's loop, at the position `env`: the late stage of the previous row at
    /// the same position (when there is a previous row).
    pub(super) fn late_stage_of_previous_row(
        &mut self,
        si: usize,
        env: &Env<'ctx>,
        pos: &IndexExpr,
    ) -> Result<(), CpuError> {
        let Some(pipe) = self.pipe.as_ref().filter(|p| p.plan.host == si) else {
            return Ok(());
        };
        let late = pipe.plan.late;
        let has_prev = pipe
            .has_prev
            .ok_or_else(|| err("pipeline row not set up"))?;
        let mut vars = env.vars.clone();
        vars.extend(pipe.prev_vars.iter().map(|(v, x)| (*v, *x)));
        let prev_env = Env {
            vars,
            vec: env.vec,
            width: env.width,
            acc: env.acc,
        };
        let mut prev_accs = pipe.prev_accs.clone();
        let prev_cache = pipe.prev_cache.clone();
        let cx = self.ir.cx;
        let b = self.ir.b;
        let run = cx.append_basic_block(self.f, "late");
        let done = cx.append_basic_block(self.f, "late.done");
        b.build_conditional_branch(has_prev, run, done)?;
        b.position_at_end(run);
        // The previous row's accumulators and row-cache arrays stand in for this row's; this
        // row's in-range flag says nothing of that row's `exp`s.
        std::mem::swap(&mut self.acc_values, &mut prev_accs);
        let in_range = std::mem::take(&mut self.exp_in_range);
        let cur = std::mem::replace(&mut self.row_arrays, prev_cache);
        let stage = &self.k.stages[late];
        let row_pos = if stage
            .values
            .iter()
            .any(|v| self.cache_loads.contains_key(v))
        {
            Some(self.scalar_index(pos, &prev_env)?)
        } else {
            None
        };
        let result = self
            .stage_values(stage, &prev_env, row_pos)
            .and_then(|vals| self.stores(stage, &vals, &prev_env));
        std::mem::swap(&mut self.acc_values, &mut prev_accs);
        self.exp_in_range = in_range;
        self.row_arrays = cur;
        result?;
        b.build_unconditional_branch(done)?;
        b.position_at_end(done);
        Ok(())
    }

    /// After the loop over rows: the late stage of the last row of `start..end`, if any.
    pub(super) fn late_stage_of_last_row(
        &mut self,
        start: IntValue<'ctx>,
        end: IntValue<'ctx>,
    ) -> Result<(), CpuError> {
        let Some(late) = self.pipe.as_ref().map(|p| p.plan.late) else {
            return Ok(());
        };
        let cx = self.ir.cx;
        let b = self.ir.b;
        let run = cx.append_basic_block(self.f, "last.late");
        let done = cx.append_basic_block(self.f, "last.late.done");
        let any = b.build_int_compare(IntPredicate::SLT, start, end, "")?;
        b.build_conditional_branch(any, run, done)?;
        b.position_at_end(run);
        let last = b.build_int_sub(end, self.ir.i64c(1), "it.last")?;
        let vars = self.outer_point(last)?;
        self.row_arrays = self.cache_arrays(last)?.0;
        self.acc_values = self.load_late_accs()?;
        self.outer_values.clear();
        // Emitted once, after the loop: no next row to prefetch, no previous row to finish.
        let pipe = self.pipe.take();
        let prefetch = self.prefetch.take();
        let stage = &self.k.stages[late];
        let result = self.reduction_stage(late, stage, &vars);
        self.pipe = pipe;
        self.prefetch = prefetch;
        result?;
        b.build_unconditional_branch(done)?;
        b.position_at_end(done);
        Ok(())
    }
}
