//! Gathers (indirect indexing) in PTX: a checked index per slot (`KExpr::IndirectIndex`, its
//! out-of-range flag stored by predicated per-thread stores), the `ind<n>` variables bound per
//! slot, loads through them (one scalar load per slot), and stores and atomic adds through
//! them (a scatter: one access per slot).

use super::*;

/// What an indirect index is checked against (a [`KExpr::IndirectIndex`]'s fields).
#[derive(Clone, Copy, Debug)]
pub(super) struct IndirectAt {
    pub(super) size: usize,
    pub(super) wrap_negative: bool,
    pub(super) flags: ArgId,
    pub(super) check: u32,
}

impl Emitter<'_> {
    /// `x` checked as an index into a dim of `size` (an `.s64`): wrapped when negatives wrap;
    /// out of range, the thread stores 1 and the value into the check's two slots of the flags
    /// buffer (predicated stores: any thread's write will do) and reads index 0.
    pub(super) fn indirect_index(
        &mut self,
        x: Val,
        from: DType,
        at: IndirectAt,
        valid: Option<Reg>,
    ) -> Val {
        let IndirectAt {
            size,
            wrap_negative,
            flags,
            check,
        } = at;
        let x = self.cast(x, from, DType::I64);
        let x = self.reg(values::Repr::I64, x);
        let s = size as i64;
        let w = if wrap_negative {
            let neg = self.b.setp(Cmp::Lt, Ty::S64, x, 0i64);
            let up = self.b.add(Ty::S64, x, s);
            self.b.selp(Ty::S64, up, x, neg)
        } else {
            x
        };
        // Unsigned: a negative index is huge.
        let outside = self.b.setp(Cmp::Ge, Ty::U64, w, s);
        let bad = match valid {
            Some(v) => self.b.and(Ty::Pred, outside, v),
            None => outside,
        };
        let base = self.ptrs[flags.0 as usize];
        let flag = self
            .b
            .add(Ty::U64, base, crate::ptx::Operand::from(16 * check as i64));
        let slot = self.b.add(Ty::U64, flag, crate::ptx::Operand::from(8i64));
        let one = Val::Imm(crate::ptx::Imm::Int(1));
        self.store_scalar(flag, DType::I64, one, Some(bad));
        self.store_scalar(slot, DType::I64, Val::Reg(x), Some(bad));
        Val::Reg(self.b.selp(Ty::S64, 0i64, w, outside))
    }

    /// The indirect indices `index` uses, with their values.
    pub(super) fn indirect_lanes(&mut self, index: &IndexExpr) -> Vec<(coil_lower::Var, Lv)> {
        index
            .indirect_nodes()
            .into_iter()
            .map(|n| (coil_lower::Var::indirect(n), self.lv(ValueId(n as u32))))
            .collect()
    }

    /// Binds each indirect index to slot `slot`'s value (in the index width).
    pub(super) fn bind_indirect(
        &mut self,
        env: &mut IndexEnv,
        indirect: &[(coil_lower::Var, Lv)],
        slot: usize,
    ) {
        let repr = self.index_repr();
        for (v, lv) in indirect {
            let i = lv.get(slot);
            let i = self.cast(i, DType::I64, repr.dtype());
            let r = self.reg(repr, i);
            env.bind(*v, r);
        }
    }

    /// A load through indirect indices: one scalar load per slot, with each `ind<n>` bound to
    /// that slot's checked index (in the index width).
    pub(super) fn emit_gather(
        &mut self,
        arg: ArgId,
        flat: &IndexExpr,
        mask: Option<(Lv, DType)>,
        indirect: &[(coil_lower::Var, Lv)],
        dtype: DType,
        cx: Option<&Lanes>,
    ) -> Lv {
        let a = arg.0 as usize;
        let mem = self.k.args[a].dtype;
        let (ptr, nc) = (self.ptrs[a], self.read_only[a]);
        let repr = self.index_repr();
        let per_slot = cx.is_some_and(|cx| {
            flat.contains_var(cx.var)
                || mask.as_ref().is_some_and(|(m, _)| !m.is_one())
                || indirect.iter().any(|(_, lv)| !lv.is_one())
        });
        let _ = repr;
        let one = |em: &mut Self, slot: usize, env: IndexEnv, valid: Option<Reg>| {
            let mut env = env;
            em.bind_indirect(&mut env, indirect, slot);
            let m = em.mask_guard(mask.as_ref(), slot);
            let guard = em.and_guard(valid, m);
            let i = em.eval_in(&env, flat);
            let at = address(&mut em.b, &em.env, ptr, i, mem.itemsize());
            em.load_scalar(at, mem, nc, guard)
        };
        let lv = match cx {
            Some(cx) if per_slot => {
                let w = cx.width as usize;
                let mut out = Vec::with_capacity(cx.slots());
                for (c, chunk) in cx.chunks.clone().into_iter().enumerate() {
                    for lane in 0..w {
                        let slot = c * w + lane;
                        let env = self.slot_env(cx, slot);
                        out.push(one(self, slot, env, chunk.valid));
                    }
                }
                Lv::Lanes(out)
            }
            _ => {
                let env = self.env.clone();
                Lv::One(one(self, 0, env, None))
            }
        };
        if mem == dtype {
            lv
        } else {
            self.map(&[lv], |em, x| em.cast(x[0], mem, dtype))
        }
    }

    /// A store through indirect indices, or an atomic add (a scatter): one access per slot,
    /// each `ind<n>` bound to that slot's index; every slot is a point of its own, even where
    /// index and value are uniform.
    pub(super) fn emit_scatter_store(
        &mut self,
        st: &Store,
        lv: &Lv,
        flat: &IndexExpr,
        indirect: &[(coil_lower::Var, Lv)],
        cx: Option<&Lanes>,
        guard: Option<Reg>,
    ) {
        let a = st.arg.0 as usize;
        let mem = self.k.args[a].dtype;
        let (ptr, size) = (self.ptrs[a], mem.itemsize());
        let slots: Vec<(usize, Option<Reg>, IndexEnv)> = match cx {
            Some(cx) => {
                let w = cx.width as usize;
                let mut v = Vec::new();
                for (c, chunk) in cx.chunks.clone().into_iter().enumerate() {
                    let g = self.and_guard(guard, chunk.valid);
                    for lane in 0..w {
                        v.push((c * w + lane, g, self.slot_env(cx, c * w + lane)));
                    }
                }
                v
            }
            None => vec![(0, guard, self.env.clone())],
        };
        for (slot, g, mut env) in slots {
            self.bind_indirect(&mut env, indirect, slot);
            let i = self.eval_in(&env, flat);
            let at = address(&mut self.b, &self.env, ptr, i, size);
            if st.mode == StoreMode::AtomicAdd {
                self.atomic_add_scalar(at, mem, lv.get(slot), g);
            } else {
                self.store_scalar(at, mem, lv.get(slot), g);
            }
        }
    }
}
