//! Emission of a pointwise kernel: a grid-stride loop over the flattened outer range, lanes
//! per thread, unrolled, forwards or backwards.

use super::*;

impl<'k> Emitter<'k> {
    pub(super) fn pointwise(
        mut self,
        lanes: u32,
        unroll: u32,
        reverse: bool,
    ) -> Result<PtxKernel, CudaError> {
        let k = self.k;
        let x = outer_var();
        for stage in &k.stages {
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
        let ty = self.index_ty();
        let block = self.b.sreg(Sreg::CtaidX);
        let threads = self.b.sreg(Sreg::NtidX);
        let tid = self.b.sreg(Sreg::TidX);
        let grid = self.b.sreg(Sreg::NctaidX);
        // Chunk `c` of an iteration is `c` grid-widths past the first: every load
        // instruction of a warp covers consecutive chunks.
        let (start, stride) = if self.env.wide {
            let base = self.b.mul_wide(Ty::U32, block, threads);
            let t = self.b.cvt(Ty::U64, Ty::U32, None, tid);
            let start = self.b.add(Ty::U64, base, t);
            (start, self.b.mul_wide(Ty::U32, grid, threads))
        } else {
            let start = self.b.fma(Ty::U32, block, threads, tid);
            (start, self.b.mul(Ty::U32, grid, threads))
        };
        let step = if unroll == 1 {
            stride
        } else {
            self.b.mul(ty, stride, i64::from(unroll))
        };
        let loop_ty = if self.env.wide { Ty::U64 } else { Ty::U32 };
        let items = self.outer_extent(loop_ty, lanes as usize);
        // The last item (walking backwards); a kernel of no points renders a loop never entered.
        let last = match items {
            Val::Reg(n) if reverse => Val::Reg(self.b.sub(loop_ty, n, 1i64)),
            _ => Self::imm((k.numel() / lanes as usize).saturating_sub(1)),
        };
        self.counted_loop(loop_ty, Val::Reg(start), items, Val::Reg(step), |em, i| {
            let chunks = (0..unroll)
                .map(|c| {
                    let item = if c == 0 {
                        i
                    } else {
                        em.b.fma(ty, stride, i64::from(c), i)
                    };
                    let valid = (c > 0).then(|| em.b.setp(Cmp::Lt, loop_ty, item, items));
                    // Reversed: item `i` is chunk `items - 1 - i` (past the end, `valid`
                    // is false and the wrapped index is never dereferenced).
                    let item = if reverse {
                        em.b.sub(loop_ty, last, item)
                    } else {
                        item
                    };
                    let base = if lanes == 1 {
                        item
                    } else {
                        em.b.mul(ty, item, i64::from(lanes))
                    };
                    Chunk { base, valid }
                })
                .collect();
            let cx = Lanes {
                var: x,
                width: lanes,
                chunks,
            };
            for stage in &k.stages {
                em.emit_values(stage, Some(&cx), false);
                em.emit_stores(stage, Some(&cx), None);
            }
        });
        self.finish()
    }
}
