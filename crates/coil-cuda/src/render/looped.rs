//! Emission of a looped reduction: one block per row, each stage a loop over the row with
//! per-thread accumulators, then the block all-reduce.

use super::*;

impl<'k> Emitter<'k> {
    /// One reduction stage as a loop from `start` to `end` (index values) over chunks of
    /// `lanes`, `unroll` chunks per iteration, `threads` threads striding together.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn looped_stage(
        &mut self,
        stage: &Stage,
        t: Reg,
        threads: u32,
        lanes: u32,
        unroll: u32,
        start: Val,
        end: Val,
        exact: bool,
        stride: Option<usize>,
    ) -> Vec<AccRegs> {
        let ty = self.index_ty();
        let x = reduction_var();
        // Values uniform along the row are computed once, before the loop; not for rows of no
        // elements, where the loop never runs and their loads would read past the buffer.
        if self.k.rnumel() > 0 {
            self.emit_values(
                stage,
                Some(&Lanes {
                    var: x,
                    width: lanes,
                    chunks: vec![],
                }),
                true,
            );
        }
        let regs = self.acc_regs(stage);
        let t = self.as_index(t);
        let offset = if lanes == 1 {
            t
        } else {
            self.b.mul(ty, t, i64::from(lanes))
        };
        let first = self.b.add(ty, offset, start);
        let step = Self::imm(stride.unwrap_or((threads * lanes * unroll) as usize));
        self.counted_loop(ty, Val::Reg(first), end, step, |em, j| {
            let chunks = (0..unroll)
                .map(|c| {
                    let base = if c == 0 {
                        j
                    } else {
                        em.b.add(ty, j, i64::from(c * threads * lanes))
                    };
                    let valid = (c > 0 && !exact).then(|| em.b.setp(Cmp::Lt, ty, base, end));
                    Chunk { base, valid }
                })
                .collect();
            let cx = Lanes {
                var: x,
                width: lanes,
                chunks,
            };
            em.emit_values(stage, Some(&cx), false);
            em.emit_stores(stage, Some(&cx), None);
            em.feed(stage, &cx, &regs);
        });
        regs
    }

    pub(super) fn looped(mut self, lanes: u32, unroll: u32) -> Result<PtxKernel, CudaError> {
        let k = self.k;
        let block = self.b.sreg(Sreg::CtaidX);
        let grid = self.b.sreg(Sreg::NctaidX);
        let tid = self.b.sreg(Sreg::TidX);
        let threads = self.block;
        let leader = self.b.setp(Cmp::Eq, Ty::U32, tid, 0u32);
        let rnumel = k.rnumel();
        let exact = rnumel.is_multiple_of((threads * lanes * unroll) as usize);
        let rows = self.outer_extent(Ty::U32, 1);
        self.counted_loop(Ty::U32, Val::Reg(block), rows, Val::Reg(grid), |em, row| {
            em.bind_row(row);
            for (si, stage) in k.stages.iter().enumerate() {
                match stage.kind {
                    StageKind::Outer => {
                        em.emit_values(stage, None, false);
                        em.emit_stores(stage, None, Some(leader));
                    }
                    StageKind::Reduction if em.k.stage_scans(si) => {
                        let regs = em.scan_stage(stage, tid, threads);
                        em.block_allreduce(&regs, threads);
                        em.finish_accs(stage, &regs);
                    }
                    StageKind::Reduction => {
                        let regs = em.looped_stage(
                            stage,
                            tid,
                            threads,
                            lanes,
                            unroll,
                            Self::imm(0),
                            Self::imm(rnumel),
                            exact,
                            None,
                        );
                        em.block_allreduce(&regs, threads);
                        em.finish_accs(stage, &regs);
                    }
                }
            }
        });
        self.finish()
    }
}
