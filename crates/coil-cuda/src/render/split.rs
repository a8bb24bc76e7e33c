//! Emission of a split (two-stage) reduction: partials of interleaved tiles of each row into
//! scratch buffers, then a second kernel (or, fused, the last block of a row to finish)
//! combines them and runs the outer stages.

use super::*;

impl<'k> Emitter<'k> {
    pub(super) fn split_partials(
        mut self,
        lanes: u32,
        unroll: u32,
        parts: u32,
        fused: bool,
    ) -> Result<PtxKernel, CudaError> {
        let k = self.k;
        let Some(stage) = k.stages.first() else {
            return self.finish();
        };
        let ty = self.index_ty();
        let threads = self.block;
        let bid = self.b.sreg(Sreg::CtaidX);
        let tid = self.b.sreg(Sreg::TidX);
        let row = self.b.div(Ty::U32, bid, parts);
        let part = self.b.rem(Ty::U32, bid, parts);
        self.bind_row(row);
        let rnumel = k.rnumel();
        let step = (threads * lanes * unroll) as usize;
        // Tiles of `step` elements go round-robin to the parts: part `p` reduces tiles `p`,
        // `p + parts`, ... So the blocks in flight read one dense window of the row that moves
        // forward together (as a looped reduction's rows do), rather than `parts` streams far
        // apart, and the row's tail is the last thing read (still in L2 for a next kernel).
        // Only the last tile can be ragged; parts past the end (more parts than tiles) run no
        // iteration and give the identity.
        let exact = rnumel.is_multiple_of(step);
        let part_i = self.as_index(part);
        let start = self.b.mul(ty, part_i, step as i64);
        let regs = self.looped_stage(
            stage,
            tid,
            threads,
            lanes,
            unroll,
            Val::Reg(start),
            Self::imm(rnumel),
            exact,
            Some(parts as usize * step),
        );
        self.block_allreduce(&regs, threads);
        let leader = self.b.setp(Cmp::Eq, Ty::U32, tid, 0u32);
        let slot = self.b.fma(Ty::U32, row, parts, part);
        let mut j = 0;
        for r in &regs {
            let mut parts_of = vec![(r.value, r.spec.value)];
            if let (Some(i), Some(repr)) = (r.index, r.spec.index) {
                parts_of.push((i, repr));
            }
            for (reg, repr) in parts_of {
                let at = self
                    .b
                    .mad_wide(Ty::U32, slot, repr.bytes(), self.scratch[j]);
                self.b.guarded(leader, false, |b| {
                    b.st(
                        crate::ptx::Space::Global,
                        repr.ty(),
                        at.into(),
                        reg,
                        crate::ptx::Cache::DEFAULT,
                    )
                });
                j += 1;
            }
        }
        if fused {
            self.last_block_finishes(row, parts, tid, leader);
        }
        self.finish()
    }

    /// The end of a fused split reduction: the leader makes its partial visible device-wide
    /// (`membar.gl`), then counts it in the row's counter (the last scratch buffer); the block
    /// that brings the count to `parts` combines every partial (read from L2: `ld.global.cg`,
    /// never a stale L1 line), runs the outer stages, and resets the counter for the next
    /// launch.
    pub(super) fn last_block_finishes(&mut self, row: Reg, parts: u32, tid: Reg, leader: Reg) {
        let counters = *self
            .scratch
            .last()
            .expect("a fused split has a counter buffer");
        let flag = self.b.shared_array("last_block", 4, 4);
        let flag_at = self.b.shared_address32(&flag);
        let counter_at = self.b.mad_wide(Ty::U32, row, 4u32, counters);
        let done = self.b.label("split_done");
        self.b.guarded(leader, false, |b| b.membar_gl());
        let mut old = None;
        self.b.guarded(leader, false, |b| {
            old = Some(b.atom(
                crate::ptx::Space::Global,
                crate::ptx::AtomOp::Add,
                Ty::U32,
                counter_at.into(),
                1u32,
            ));
        });
        let old = old.expect("the closure ran");
        let last = self.b.setp(Cmp::Eq, Ty::U32, old, parts - 1);
        let last_u32 = self.b.selp(Ty::U32, 1u32, 0u32, last);
        self.b.guarded(leader, false, |b| {
            b.st(
                crate::ptx::Space::Shared,
                Ty::U32,
                crate::ptx::Addr::reg(flag_at),
                last_u32,
                crate::ptx::Cache::DEFAULT,
            )
        });
        self.b.bar_sync(0);
        let seen = self.b.ld(
            crate::ptx::Space::Shared,
            Ty::U32,
            crate::ptx::Addr::reg(flag_at),
            crate::ptx::Cache::DEFAULT,
        );
        let not_last = self.b.setp(Cmp::Ne, Ty::U32, seen, 1u32);
        self.b.bra_if(not_last, &done);
        let cg = crate::ptx::Cache {
            op: Some(crate::ptx::CacheOp::Cg),
            non_coherent: false,
        };
        self.finish_row(row, parts, tid, leader, cg);
        self.b.guarded(leader, false, |b| {
            b.st(
                crate::ptx::Space::Global,
                Ty::U32,
                counter_at.into(),
                0u32,
                crate::ptx::Cache::DEFAULT,
            )
        });
        self.b.place(&done);
    }

    pub(super) fn split_finish(mut self, parts: u32) -> Result<PtxKernel, CudaError> {
        let k = self.k;
        if k.stages.is_empty() {
            return self.finish();
        }
        let block = self.b.sreg(Sreg::CtaidX);
        let grid = self.b.sreg(Sreg::NctaidX);
        let tid = self.b.sreg(Sreg::TidX);
        let leader = self.b.setp(Cmp::Eq, Ty::U32, tid, 0u32);
        self.counted_loop(
            Ty::U32,
            Val::Reg(block),
            Self::imm(k.numel()),
            Val::Reg(grid),
            |em, row| em.finish_row(row, parts, tid, leader, crate::ptx::Cache::DEFAULT),
        );
        self.finish()
    }

    /// Combines row `row`'s `parts` partials from the scratch buffers (the block's threads
    /// share them out), then runs the kernel's outer stages for the row (`leader` stores).
    pub(super) fn finish_row(
        &mut self,
        row: Reg,
        parts: u32,
        tid: Reg,
        leader: Reg,
        cache: crate::ptx::Cache,
    ) {
        let k = self.k;
        let Some(first) = k.stages.first() else {
            return;
        };
        let threads = self.block;
        self.bind_row(row);
        let regs = self.acc_regs(first);
        let row_base = self.b.mul(Ty::U32, row, parts);
        self.counted_loop(
            Ty::U32,
            Val::Reg(tid),
            Val::Imm(crate::ptx::Imm::Int(i64::from(parts))),
            Val::Imm(crate::ptx::Imm::Int(i64::from(threads))),
            |em, i| {
                let slot = em.b.add(Ty::U32, row_base, i);
                let mut j = 0;
                for r in &regs {
                    let mut read = |em: &mut Self, repr: Repr| {
                        let at = em.b.mad_wide(Ty::U32, slot, repr.bytes(), em.scratch[j]);
                        j += 1;
                        Val::Reg(em.b.ld(crate::ptx::Space::Global, repr.ty(), at.into(), cache))
                    };
                    let v = read(em, r.spec.value);
                    let idx = r.spec.index.map(|repr| read(em, repr));
                    let cur = (Val::Reg(r.value), r.index.map(Val::Reg));
                    let (nv, ni) = em.combine(r.spec, cur, (v, idx));
                    em.b.assign(r.spec.value.ty(), r.value, nv);
                    if let (Some(repr), Some(dst), Some(n)) = (r.spec.index, r.index, ni) {
                        em.b.assign(repr.ty(), dst, n);
                    }
                }
            },
        );
        self.block_allreduce(&regs, threads);
        self.finish_accs(first, &regs);
        for stage in &k.stages[1..] {
            self.emit_values(stage, None, false);
            self.emit_stores(stage, None, Some(leader));
        }
    }
}
