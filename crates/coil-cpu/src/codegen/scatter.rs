//! Scatters on the CPU: a store whose index uses indirect indices is written lane by lane
//! (as any strided store), and an atomic add (`StoreMode::AtomicAdd`) is a compare-and-swap
//! loop on the element's bits, for every dtype: read the bits, add in the dtype's compute
//! form, swap in the new bits if nobody wrote meanwhile, else try again with what they wrote.
//! A kernel adding more points than its target has elements runs on one thread instead
//! ([`serial_adds`]), its adds plain reads, adds and writes.

use inkwell::AtomicOrdering;
use inkwell::values::{IntValue, PointerValue};

use coil_codegen::{Kernel, Store, StoreMode};
use coil_graph::DType;
use coil_lower::Op;

use super::ir::{Ir, V, err};
use super::{Emitter, Env};
use crate::CpuError;

/// Whether `k`'s atomic adds run better on one thread without atomics: some add goes to a
/// buffer with fewer elements than the kernel has points, so threads would mostly contend for
/// the same elements (a `scatter_add` of a million points into 1024 bins took 14 ms with
/// compare-and-swap on two threads, against 0.9 for eager's serial loop).
pub(crate) fn serial_adds(k: &Kernel) -> bool {
    let work = k.numel().saturating_mul(k.rnumel().max(1));
    k.stages
        .iter()
        .flat_map(|s| &s.stores)
        .any(|st| st.mode == StoreMode::AtomicAdd && k.arg(st.arg).len < work)
}

impl<'ctx> Emitter<'_, 'ctx> {
    /// `st` (an atomic add) for every lane of `env`: `v` (the value, converted to the
    /// buffer's dtype's compute form) added at each lane's index.
    pub(super) fn atomic_add_store(
        &self,
        st: &Store,
        v: V<'ctx>,
        env: &Env<'ctx>,
    ) -> Result<(), CpuError> {
        let ir = &self.ir;
        let d = self.k.arg(st.arg).dtype;
        let base = self.args[st.arg.0 as usize];
        let idx = self.index_value(&st.index, env)?;
        let lane = |x: V<'ctx>, l: u32| -> Result<V<'ctx>, CpuError> {
            if Ir::width(x) > 1 {
                ir.extract(x, l)
            } else {
                Ok(x)
            }
        };
        // Every lane is a point of its own, even where index and value are uniform.
        let serial = serial_adds(self.k);
        for l in 0..env.width.max(1) {
            let i = lane(idx, l)?.into_int_value();
            if serial {
                // One thread runs the kernel: read, add, write.
                let old = ir.load(d, base, i, 1)?;
                let sum = ir.binary(Op::Add, old, lane(v, l)?, d, d, None)?;
                ir.store(d, base, i, sum)?;
            } else {
                self.atomic_add(d, base, i, lane(v, l)?)?;
            }
        }
        Ok(())
    }

    /// `base[index] += v` atomically, `v` a scalar in `d`'s compute form.
    fn atomic_add(
        &self,
        d: DType,
        base: PointerValue<'ctx>,
        index: IntValue<'ctx>,
        v: V<'ctx>,
    ) -> Result<(), CpuError> {
        let ir = &self.ir;
        let (cx, b) = (ir.cx, ir.b);
        let bits = match d.itemsize() {
            1 => cx.i8_type(),
            2 => cx.i16_type(),
            4 => cx.i32_type(),
            _ => cx.i64_type(),
        };
        let p = ir.gep(ir.mem_ty(d), base, index)?;
        let first = b.build_load(bits, p, "")?;
        if let Some(i) = inkwell::values::BasicValue::as_instruction_value(&first) {
            i.set_alignment(d.itemsize() as u32)
                .map_err(|e| err(e.to_string()))?;
        }
        let entry = b
            .get_insert_block()
            .ok_or_else(|| err("atomic add outside a block"))?;
        let again = cx.append_basic_block(self.f, "atomic.add");
        let done = cx.append_basic_block(self.f, "atomic.done");
        b.build_unconditional_branch(again)?;
        b.position_at_end(again);
        let old = b.build_phi(bits, "")?;
        old.add_incoming(&[(&first, entry)]);
        let old_v = old.as_basic_value();
        let cur = ir.decode(ir.bitcast(old_v, ir.mem_ty(d))?, d)?;
        let sum = ir.binary(Op::Add, cur, v, d, d, None)?;
        let new = ir.bitcast(ir.encode(sum, d)?, bits.into())?;
        let pair = b.build_cmpxchg(
            p,
            old_v.into_int_value(),
            new.into_int_value(),
            AtomicOrdering::Monotonic,
            AtomicOrdering::Monotonic,
        )?;
        let seen = b.build_extract_value(pair, 0, "")?;
        let swapped = b.build_extract_value(pair, 1, "")?.into_int_value();
        let here = b
            .get_insert_block()
            .ok_or_else(|| err("atomic add outside a block"))?;
        old.add_incoming(&[(&seen, here)]);
        b.build_conditional_branch(swapped, done, again)?;
        b.position_at_end(done);
        Ok(())
    }
}
