//! Emission of a persistent reduction: one warp or block per row, each thread holding its
//! slice of the row in registers across every stage.

use super::*;

impl<'k> Emitter<'k> {
    /// Chunk bases `(t + c * threads) * lanes` for `chunks` chunks, with validity against
    /// `end` where some chunk may fall outside.
    pub(super) fn chunks(
        &mut self,
        t: Reg,
        threads: u32,
        lanes: u32,
        chunks: u32,
        end: Option<Val>,
    ) -> Vec<Chunk> {
        let ty = self.index_ty();
        let t = self.as_index(t);
        let first = if lanes == 1 {
            t
        } else {
            self.b.mul(ty, t, i64::from(lanes))
        };
        (0..chunks)
            .map(|c| {
                let base = if c == 0 {
                    first
                } else {
                    self.b.add(ty, first, i64::from(c * threads * lanes))
                };
                let valid = end.map(|e| self.b.setp(Cmp::Lt, ty, base, e));
                Chunk { base, valid }
            })
            .collect()
    }

    pub(super) fn persistent(
        mut self,
        lanes: u32,
        row_threads: u32,
        chunks: u32,
    ) -> Result<PtxKernel, CudaError> {
        let k = self.k;
        self.cse = Some(HashMap::new());
        let block = self.b.sreg(Sreg::CtaidX);
        let grid = self.b.sreg(Sreg::NctaidX);
        let tid = self.b.sreg(Sreg::TidX);
        let threads = self.b.sreg(Sreg::NtidX);
        let (start, step, t) = if row_threads == 32 {
            let warp = self.b.shr(Ty::U32, tid, 5u32);
            let lane = self.b.and(Ty::B32, tid, 31u32);
            let per_block = self.b.shr(Ty::U32, threads, 5u32);
            let start = self.b.fma(Ty::U32, block, per_block, warp);
            let step = self.b.mul(Ty::U32, grid, per_block);
            (start, step, lane)
        } else {
            (block, grid, tid)
        };
        let leader = self.b.setp(Cmp::Eq, Ty::U32, t, 0u32);
        let rnumel = k.rnumel();
        let covered = (row_threads * lanes * chunks) as usize;
        let end = (covered > rnumel).then(|| Self::imm(rnumel));
        let cx = Lanes {
            var: reduction_var(),
            width: lanes,
            chunks: self.chunks(t, row_threads, lanes, chunks, end),
        };
        self.counted_loop(
            Ty::U32,
            Val::Reg(start),
            Self::imm(k.numel()),
            Val::Reg(step),
            |em, row| {
                em.bind_row(row);
                for stage in &k.stages {
                    match stage.kind {
                        StageKind::Outer => {
                            em.emit_values(stage, None, false);
                            em.emit_stores(stage, None, Some(leader));
                        }
                        StageKind::Reduction => {
                            em.emit_values(stage, Some(&cx), false);
                            em.emit_stores(stage, Some(&cx), None);
                            let regs = em.acc_regs(stage);
                            em.feed(stage, &cx, &regs);
                            if row_threads == 32 {
                                em.warp_allreduce(&regs);
                            } else {
                                em.block_allreduce(&regs, row_threads);
                            }
                            em.finish_accs(stage, &regs);
                        }
                    }
                }
            },
        );
        self.finish()
    }
}
