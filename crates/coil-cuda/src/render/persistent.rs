//! Emission of a persistent reduction: one warp or block per row, each thread holding its
//! slice of the row in registers across every stage.

use super::*;
use crate::ptx::RegClass;

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
        prefetch: bool,
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
        let ahead = if prefetch {
            self.prefetched_loads(&cx)
        } else {
            Vec::new()
        };
        let numel = self.outer_extent(Ty::U32, 1);
        let current = self.load_row(&ahead, &cx, start, numel);
        self.counted_loop(
            Ty::U32,
            Val::Reg(start),
            numel,
            Val::Reg(step),
            |em, row| {
                let coming = if ahead.is_empty() {
                    Vec::new()
                } else {
                    let next = em.b.add(Ty::U32, row, step);
                    em.load_row(&ahead, &cx, next, numel)
                };
                for (key, words) in ahead.iter().zip(&current) {
                    em.words.insert(key.clone(), words.clone());
                }
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
                // The next row's words become the current ones.
                let now = current.iter().flatten().flatten();
                for (&w, &c) in now.zip(coming.iter().flatten().flatten()) {
                    let ty = if w.class() == RegClass::F32 {
                        Ty::F32
                    } else {
                        Ty::B32
                    };
                    em.b.assign(ty, w, c);
                }
            },
        );
        self.finish()
    }

    /// The loads a prefetching persistent reduction issues a row ahead: each distinct
    /// unmasked vector load of a read-only buffer among the row's loads ([`plan::row_loads`]),
    /// by buffer and flat index.
    fn prefetched_loads(&mut self, cx: &Lanes) -> Vec<(ArgId, IndexExpr)> {
        let k = self.k;
        let mut keys: Vec<(ArgId, IndexExpr)> = Vec::new();
        for (v, arg, flat) in plan::row_loads(k) {
            let KExpr::Load { index, mask, .. } = k.expr(v) else {
                continue;
            };
            let mem = k.args[arg.0 as usize].dtype;
            let shape = lane_shape(&flat, cx.var, i64::from(cx.width));
            let key = (arg, flat);
            if mask.is_none()
                && self.read_only[arg.0 as usize]
                && index.indirect_nodes().is_empty()
                && vector_access(shape, cx.width as usize, mem)
                && !keys.contains(&key)
            {
                keys.push(key);
            }
        }
        keys
    }

    /// The packed words of `loads` (per load, per chunk) for row `row`, zero where the row is
    /// at or past `numel` or a chunk is past the row's end. Leaves the row unbound.
    fn load_row(
        &mut self,
        loads: &[(ArgId, IndexExpr)],
        cx: &Lanes,
        row: Reg,
        numel: Val,
    ) -> Vec<Vec<Vec<Reg>>> {
        if loads.is_empty() {
            return Vec::new();
        }
        let inside = self.b.setp(Cmp::Lt, Ty::U32, row, numel);
        self.bind_row(row);
        let w = cx.width as usize;
        loads
            .iter()
            .map(|(arg, flat)| {
                let a = arg.0 as usize;
                let mem = self.k.args[a].dtype;
                let (ptr, nc) = (self.ptrs[a], self.read_only[a]);
                cx.chunks
                    .iter()
                    .enumerate()
                    .map(|(c, chunk)| {
                        let guard = self.and_guard(chunk.valid, Some(inside));
                        let env = self.slot_env(cx, c * w);
                        let i = self.eval_in(&env, flat);
                        let at = address(&mut self.b, &self.env, ptr, i, mem.itemsize());
                        self.load_words(at, mem, nc, guard, cx.width)
                    })
                    .collect()
            })
            .collect()
    }
}
