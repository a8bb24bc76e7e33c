//! Accumulators of reduction stages: [`ACC_VECTORS`] independent `W`-lane vector accumulators
//! fed in turn by the (unrolled) vector loop, so consecutive updates do not wait on each other,
//! and a scalar one fed by the tail, each in a stack slot (promoted to registers by LLVM),
//! combined once after the loop by a tree over the accumulators and then over the lanes. Max/min propagate NaN; argmax/argmin keep the
//! first position of the winner and let NaN win, as PyTorch does. A float max/min of 8-lane
//! f32 vectors on AVX can take a guarded fast form instead (one `vmaxps` per vector and a
//! running sum that turns NaN when a NaN went by; the caller redoes the loop exactly then).

use coil_codegen::Accumulator;
use coil_graph::DType;
use coil_lower::ReductionType as R;
use inkwell::values::PointerValue;
use inkwell::{FloatPredicate as F, IntPredicate as I};

use super::ir::{Class, Ir, V, err};
use crate::CpuError;

/// Independent vector accumulators per reduction (the vector loop is unrolled this many times):
/// enough to cover an add's latency with two adds issued per cycle.
pub(crate) const ACC_VECTORS: u32 = 4;

/// Lanes of an AVX register of f32: the width of the guarded fast max/min.
const AVX_F32_LANES: u32 = 8;

/// The stack slots of one accumulator.
pub(crate) struct AccSlot<'ctx> {
    pub(crate) acc: Accumulator,
    /// The dtype of the running value: the finished dtype (integers and bools sum in i64),
    /// or, for argmax/argmin, the reduced value's dtype.
    pub(crate) run_dtype: DType,
    /// The reduced value's dtype.
    pub(crate) value_dtype: DType,
    width: u32,
    vec: Vec<PointerValue<'ctx>>,
    /// Float sums: the second level the vector accumulators are folded into every block.
    outer: Vec<PointerValue<'ctx>>,
    tail: PointerValue<'ctx>,
    /// Positions of the running winners (argmax/argmin).
    vec_pos: Vec<PointerValue<'ctx>>,
    tail_pos: Option<PointerValue<'ctx>>,
    /// Float max/min of 8-lane f32 vectors on AVX: per vector accumulator, the running sum of
    /// the values, which is NaN once a NaN went by (and, rarely, after `inf + -inf`: a false
    /// alarm that only costs the exact redo; [`Ir::acc_guard_tripped`]).
    guard: Vec<PointerValue<'ctx>>,
    /// Whether the fast updates add the values into [`AccSlot::guard`]: not when the guard is
    /// another slot's over the same values ([`AccSlot::share_guard`]) or a float sum of them
    /// ([`AccSlot::guard_by_sum`]).
    adds_to_guard: bool,
    /// A float sum accumulator of the same values in the same stage, which stands in for the
    /// guard: it turns NaN exactly when the guard would (and on the scalar tail's values too).
    guard_sum: Option<coil_codegen::AccId>,
    /// While set, the vector updates take the guarded fast form (see [`AccSlot::guard`]).
    fast: std::cell::Cell<bool>,
}

fn is_arg(rt: R) -> bool {
    matches!(rt, R::Argmax | R::Argmin)
}

fn is_max(rt: R) -> bool {
    matches!(rt, R::Max | R::Argmax)
}

impl<'ctx> AccSlot<'ctx> {
    /// Whether the accumulator sums in two levels (float sums).
    pub(crate) fn cascades(&self) -> bool {
        !self.outer.is_empty()
    }

    /// Whether the vector updates can take the guarded fast max/min (one `vmaxps` instead of
    /// compare, compare and blend), with the row redone exactly when the guard trips.
    pub(crate) fn has_fast_form(&self) -> bool {
        !self.guard.is_empty()
    }

    /// Takes `owner`'s guard instead of its own, when both accumulate the same values in the
    /// same stage with the fast form (a row's max and min): one running sum then guards both,
    /// and only `owner`'s updates feed it.
    pub(crate) fn share_guard(&mut self, owner: &AccSlot<'ctx>) {
        if self.has_fast_form()
            && owner.has_fast_form()
            && owner.adds_to_guard
            && self.acc.value == owner.acc.value
            && self.run_dtype == owner.run_dtype
        {
            self.guard = owner.guard.clone();
            self.adds_to_guard = false;
        }
    }

    /// Lets `sum`, a float sum of the same values in the same stage (siblings' `max` and
    /// `sum` of a row), stand in for the guard: the fast updates then add nothing of their own.
    pub(crate) fn guard_by_sum(&mut self, sum: &AccSlot<'ctx>) {
        if self.has_fast_form()
            && self.adds_to_guard
            && sum.acc.reduction_type == R::Sum
            && sum.cascades()
            && sum.acc.value == self.acc.value
            && sum.run_dtype == self.run_dtype
        {
            self.guard_sum = Some(sum.acc.id);
            self.adds_to_guard = false;
        }
    }

    /// The sum that stands in for the guard ([`AccSlot::guard_by_sum`]).
    pub(crate) fn guard_sum(&self) -> Option<coil_codegen::AccId> {
        self.guard_sum
    }

    /// Selects the guarded fast form (`true`) or the exact one for the vector updates emitted
    /// next.
    pub(crate) fn set_fast(&self, fast: bool) {
        self.fast.set(fast && self.has_fast_form());
    }
}

impl<'ctx> Ir<'_, 'ctx> {
    /// Allocates the slots (call with the builder in the entry block).
    pub(crate) fn acc_slot(
        &self,
        acc: &Accumulator,
        value_dtype: DType,
        width: u32,
    ) -> Result<AccSlot<'ctx>, CpuError> {
        let run_dtype = match acc.reduction_type {
            R::Argmax | R::Argmin => value_dtype,
            R::Sum | R::Prod if !acc.dtype.is_float() => DType::I64,
            _ => acc.dtype,
        };
        let c = Class::of(run_dtype);
        let name = acc.id.to_string();
        let mut vec = vec![];
        let mut vec_pos = vec![];
        let mut outer = vec![];
        let cascades = acc.reduction_type == R::Sum && c.is_float();
        for u in 0..ACC_VECTORS {
            if cascades {
                outer.push(
                    self.b
                        .build_alloca(self.ty(c, width), &format!("{name}.outer{u}"))?,
                );
            }
            vec.push(
                self.b
                    .build_alloca(self.ty(c, width), &format!("{name}.vec{u}"))?,
            );
            if is_arg(acc.reduction_type) {
                vec_pos.push(
                    self.b
                        .build_alloca(self.ty(Class::I64, width), &format!("{name}.pos{u}"))?,
                );
            }
        }
        let mut guard = vec![];
        if matches!(acc.reduction_type, R::Max | R::Min)
            && c == Class::F32
            && width == AVX_F32_LANES
            && crate::jit::host_has_feature("avx")
        {
            for u in 0..ACC_VECTORS {
                guard.push(
                    self.b
                        .build_alloca(self.ty(c, width), &format!("{name}.guard{u}"))?,
                );
            }
        }
        let tail = self
            .b
            .build_alloca(self.ty(c, 1), &format!("{name}.tail"))?;
        let tail_pos = if is_arg(acc.reduction_type) {
            Some(
                self.b
                    .build_alloca(self.ty(Class::I64, 1), &format!("{name}.tail.pos"))?,
            )
        } else {
            None
        };
        Ok(AccSlot {
            acc: acc.clone(),
            run_dtype,
            value_dtype,
            width,
            vec,
            outer,
            tail,
            vec_pos,
            tail_pos,
            guard,
            adds_to_guard: true,
            guard_sum: None,
            fast: std::cell::Cell::new(false),
        })
    }

    fn identity(&self, rt: R, c: Class) -> V<'ctx> {
        match (rt, c) {
            (R::Sum, _) => self.zero(c),
            (R::Prod, Class::F32 | Class::F64) => self.cf(c, 1.0),
            (R::Prod, _) => self.ci(c, 1),
            (rt, Class::F32 | Class::F64) => self.cf(
                c,
                if is_max(rt) {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                },
            ),
            (rt, Class::Bool) => self.ci(c, (!is_max(rt)) as i64),
            (rt, Class::I32) => self.ci(c, if is_max(rt) { i32::MIN } else { i32::MAX } as i64),
            (rt, _) => self.ci(c, if is_max(rt) { i64::MIN } else { i64::MAX }),
        }
    }

    /// Sets the slots to the reduction's identity (once per row, before the loop).
    pub(crate) fn acc_init(&self, s: &AccSlot<'ctx>) -> Result<(), CpuError> {
        let id = self.identity(s.acc.reduction_type, Class::of(s.run_dtype));
        for &v in s.vec.iter().chain(&s.outer) {
            self.store_slot(v, self.splat(id, s.width)?)?;
        }
        for &g in &s.guard {
            let zero = self.zero(Class::of(s.run_dtype));
            self.store_slot(g, self.splat(zero, s.width)?)?;
        }
        self.store_slot(s.tail, id)?;
        let none = self.ci(Class::I64, -1);
        for &vp in &s.vec_pos {
            self.store_slot(vp, self.splat(none, s.width)?)?;
        }
        if let Some(tp) = s.tail_pos {
            self.store_slot(tp, none)?;
        }
        Ok(())
    }

    /// `x` beats the running `best` (NaN wins over a number, never over NaN; ties lose).
    fn beats(&self, x: V<'ctx>, best: V<'ctx>, max: bool, c: Class) -> Result<V<'ctx>, CpuError> {
        match c {
            Class::F32 | Class::F64 => {
                let p = if max { F::UGT } else { F::ULT };
                self.and(self.fcmp(F::ORD, best, best)?, self.fcmp(p, x, best)?)
            }
            Class::Bool => self.icmp(if max { I::UGT } else { I::ULT }, x, best),
            _ => self.icmp(if max { I::SGT } else { I::SLT }, x, best),
        }
    }

    fn same(&self, a: V<'ctx>, b: V<'ctx>, c: Class) -> Result<V<'ctx>, CpuError> {
        if c.is_float() {
            let both_nan = self.and(self.fcmp(F::UNO, a, a)?, self.fcmp(F::UNO, b, b)?)?;
            self.or(self.fcmp(F::OEQ, a, b)?, both_nan)
        } else {
            self.icmp(I::EQ, a, b)
        }
    }

    /// `acc (+) x` for sum, prod, max, min.
    fn combine(&self, rt: R, c: Class, acc: V<'ctx>, x: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        match (rt, c.is_float()) {
            (R::Sum, true) => self.fadd(acc, x),
            (R::Sum, false) => self.iadd(acc, x),
            (R::Prod, true) => self.fmul(acc, x),
            (R::Prod, false) => self.imul(acc, x),
            (rt, _) => {
                let take = self.beats(x, acc, is_max(rt), c)?;
                self.select(take, x, acc)
            }
        }
    }

    /// Merges two partial arg-results `(a, ia)` and `(b, ib)` whose positions may interleave:
    /// `b` wins when it is set and `a` is not, when it beats `a`, or on a tie at an earlier
    /// position.
    fn merge_arg(
        &self,
        max: bool,
        c: Class,
        (a, ia): (V<'ctx>, V<'ctx>),
        (b, ib): (V<'ctx>, V<'ctx>),
    ) -> Result<(V<'ctx>, V<'ctx>), CpuError> {
        let none = self.ci(Class::I64, -1);
        let a_unset = self.icmp(I::EQ, ia, none)?;
        let b_set = self.icmp(I::NE, ib, none)?;
        let tie_earlier = self.and(self.same(a, b, c)?, self.icmp(I::SLT, ib, ia)?)?;
        let better = self.or(self.beats(b, a, max, c)?, tie_earlier)?;
        let b_wins = self.and(b_set, self.or(a_unset, better)?)?;
        Ok((self.select(b_wins, b, a)?, self.select(b_wins, ib, ia)?))
    }

    /// Adds each vector accumulator into its second level and restarts it (float sums).
    pub(crate) fn acc_fold(&self, s: &AccSlot<'ctx>) -> Result<(), CpuError> {
        let c = Class::of(s.run_dtype);
        let ty = self.ty(c, s.width);
        let name = s.acc.id.to_string();
        for (&v, &o) in s.vec.iter().zip(&s.outer) {
            let inner = self.load_slot(v, ty, &name)?;
            let outer = self.load_slot(o, ty, &format!("{name}.outer"))?;
            let sum = self.fadd(outer, inner)?;
            self.name(sum, &format!("{name}.folded"));
            self.store_slot(o, sum)?;
            self.store_slot(v, self.splat(self.zero(c), s.width)?)?;
        }
        Ok(())
    }

    /// Feeds `x` (of the slot's value dtype, `width` lanes or a scalar) at positions `pos`
    /// (i64, for argmax/argmin) into vector accumulator `Some(u)` or the tail's (`None`).
    pub(crate) fn acc_update(
        &self,
        s: &AccSlot<'ctx>,
        x: V<'ctx>,
        pos: V<'ctx>,
        vector: Option<u32>,
    ) -> Result<(), CpuError> {
        let rt = s.acc.reduction_type;
        let c = Class::of(s.run_dtype);
        let w = if vector.is_some() { s.width } else { 1 };
        let (slot, pos_slot) = match vector {
            Some(u) => (s.vec[u as usize], s.vec_pos.get(u as usize).copied()),
            None => (s.tail, s.tail_pos),
        };
        let ty = self.ty(c, w);
        let x = self.convert(x, s.value_dtype, s.run_dtype, false)?;
        let x = self.splat(x, w)?;
        let name = s.acc.id.to_string();
        let cur = self.load_slot(slot, ty, &name)?;
        if let Some(ps) = pos_slot {
            let pty = self.ty(Class::I64, w);
            let cur_pos = self.load_slot(ps, pty, &format!("{name}.pos"))?;
            let pos = self.splat(pos, w)?;
            // Positions only grow within a slot, so a tie keeps the current winner.
            let unset = self.icmp(I::EQ, cur_pos, self.ci(Class::I64, -1))?;
            let take = self.or(unset, self.beats(x, cur, is_max(rt), c)?)?;
            let new = self.select(take, x, cur)?;
            let new_pos = self.select(take, pos, cur_pos)?;
            self.name(new, &format!("{name}.next"));
            self.store_slot(slot, new)?;
            self.store_slot(ps, new_pos)?;
        } else if let (true, Some(u)) = (s.fast.get(), vector) {
            let new = self.fast_max_min(is_max(rt), cur, x)?;
            self.name(new, &format!("{name}.next"));
            self.store_slot(slot, new)?;
            if s.adds_to_guard {
                let g = s.guard[u as usize];
                let sum = self.fadd(self.load_slot(g, ty, "")?, x)?;
                self.store_slot(g, sum)?;
            }
        } else {
            let new = self.combine(rt, c, cur, x)?;
            self.name(new, &format!("{name}.next"));
            self.store_slot(slot, new)?;
        }
        Ok(())
    }

    /// `vmaxps x, acc` (`x > acc ? x : acc`; the running value on ties and when either is NaN):
    /// the exact result whenever no NaN went by, which the guard checks.
    fn fast_max_min(&self, max: bool, acc: V<'ctx>, x: V<'ctx>) -> Result<V<'ctx>, CpuError> {
        let name = if max {
            "llvm.x86.avx.max.ps.256"
        } else {
            "llvm.x86.avx.min.ps.256"
        };
        self.intrinsic(name, &[], &[x, acc])
    }

    /// True (an `i1`) when a guard of the accumulator is NaN (a NaN went by since its
    /// initialisation, or `inf + -inf` happened in a guard lane or across guards): the fast
    /// updates may then be wrong, and the caller redoes the loop with the exact ones. An error
    /// for an accumulator without the fast form ([`AccSlot::has_fast_form`]).
    pub(crate) fn acc_guard_tripped(
        &self,
        s: &AccSlot<'ctx>,
    ) -> Result<inkwell::values::IntValue<'ctx>, CpuError> {
        let (&first, rest) = s
            .guard
            .split_first()
            .ok_or_else(|| err(format!("{} has no guard", s.acc.id)))?;
        let ty = self.ty(Class::of(s.run_dtype), s.width);
        let mut sum = self.load_slot(first, ty, "")?;
        for &g in rest {
            sum = self.fadd(sum, self.load_slot(g, ty, "")?)?;
        }
        let nan = self.fcmp(F::UNO, sum, sum)?;
        let any = self.intrinsic("llvm.vector.reduce.or", &[nan.get_type()], &[nan])?;
        Ok(any.into_int_value())
    }

    /// The finished value (a scalar of the accumulator's dtype): the vector accumulator's lanes
    /// combined by a tree, then the tail's.
    pub(crate) fn acc_finish(&self, s: &AccSlot<'ctx>) -> Result<V<'ctx>, CpuError> {
        let rt = s.acc.reduction_type;
        let c = Class::of(s.run_dtype);
        let name = s.acc.id.to_string();
        let vty = self.ty(c, s.width);
        let mut vecs = vec![];
        for (u, &slot) in s.vec.iter().enumerate() {
            let mut v = self.load_slot(slot, vty, &format!("{name}.vec{u}"))?;
            if let Some(&o) = s.outer.get(u) {
                v = self.fadd(self.load_slot(o, vty, "")?, v)?;
            }
            vecs.push(v);
        }
        let tail = self.load_slot(s.tail, self.ty(c, 1), &format!("{name}.tail"))?;
        let result = if let Some(tp) = s.tail_pos {
            let max = is_max(rt);
            let mut pairs = vec![];
            for (u, &slot) in s.vec_pos.iter().enumerate() {
                let pty = self.ty(Class::I64, s.width);
                pairs.push((vecs[u], self.load_slot(slot, pty, "")?));
            }
            while pairs.len() > 1 {
                let b = pairs.pop().expect("two or more");
                let a = pairs.pop().expect("two or more");
                pairs.insert(0, self.merge_arg(max, c, a, b)?);
            }
            let (mut v, mut p) = pairs[0];
            let mut w = s.width;
            while w > 1 {
                w /= 2;
                let (lo, hi) = (self.sub_vector(v, 0, w)?, self.sub_vector(v, w, w)?);
                let (plo, phi) = (self.sub_vector(p, 0, w)?, self.sub_vector(p, w, w)?);
                (v, p) = self.merge_arg(max, c, (lo, plo), (hi, phi))?;
            }
            let tail_pos = self.load_slot(tp, self.ty(Class::I64, 1), "")?;
            let (_, pos) = self.merge_arg(max, c, (v, p), (tail, tail_pos))?;
            let none = self.icmp(I::EQ, pos, self.ci(Class::I64, -1))?;
            let pos = self.select(none, self.ci(Class::I64, 0), pos)?;
            self.convert(pos, DType::I64, s.acc.dtype, false)?
        } else {
            while vecs.len() > 1 {
                let b = vecs.pop().expect("two or more");
                let a = vecs.pop().expect("two or more");
                vecs.insert(0, self.combine(rt, c, a, b)?);
            }
            let mut v = vecs[0];
            let mut w = s.width;
            while w > 1 {
                w /= 2;
                let (lo, hi) = (self.sub_vector(v, 0, w)?, self.sub_vector(v, w, w)?);
                v = self.combine(rt, c, lo, hi)?;
            }
            let v = self.combine(rt, c, v, tail)?;
            self.convert(v, s.run_dtype, s.acc.dtype, false)?
        };
        self.name(result, &name);
        Ok(result)
    }
}
