//! Hand-built reference kernels and the reusable pieces they are made of: an elementwise map
//! (128-bit vectorized, grid-stride, scalar tail), a row reduction (one block per row, warp
//! shuffles then shared memory), warp and block all-reduces. They show how a code generator
//! drives [`KernelBuilder`], and the golden tests, `ptxas` tests and the GPU self-check run
//! them.

use crate::PtxError;
use crate::PtxTarget;
use crate::math::{MathFn, MathFnExt};
use crate::ptx::{
    Addr, Cache, Cmp, KernelBuilder, ParamTy, PtxKernel, Reg, Shfl, Space, Sreg, Ty, Val,
};

/// Threads per block of the elementwise kernels (their `.maxntid`).
pub const ELEMENTWISE_BLOCK: u32 = 256;

/// A reduction's combine operation over f32.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// `+`, identity 0.
    Sum,
    /// `max`, identity -inf; NaN propagates (PyTorch's `amax`).
    Max,
    /// `min`, identity +inf; NaN propagates (PyTorch's `amin`).
    Min,
    /// `*`, identity 1.
    Prod,
}

impl ReduceOp {
    /// The identity element.
    pub fn identity(self) -> f32 {
        match self {
            ReduceOp::Sum => 0.0,
            ReduceOp::Max => f32::NEG_INFINITY,
            ReduceOp::Min => f32::INFINITY,
            ReduceOp::Prod => 1.0,
        }
    }

    /// Emits `a op b`.
    pub fn combine(
        self,
        b: &mut KernelBuilder,
        x: impl Into<crate::ptx::Operand>,
        y: impl Into<crate::ptx::Operand>,
    ) -> Reg {
        match self {
            ReduceOp::Sum => b.add(Ty::F32, x, y),
            ReduceOp::Max => b.max_nan(Ty::F32, x, y),
            ReduceOp::Min => b.min_nan(Ty::F32, x, y),
            ReduceOp::Prod => b.mul(Ty::F32, x, y),
        }
    }

    /// The lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::Prod => "prod",
        }
    }

    /// The host reduction of `values` in the same left-to-right order as one thread would.
    pub fn host(self, values: &[f32]) -> f32 {
        values.iter().fold(self.identity(), |acc, &v| match self {
            ReduceOp::Sum => acc + v,
            ReduceOp::Max => {
                if acc.is_nan() || v.is_nan() {
                    f32::NAN
                } else {
                    acc.max(v)
                }
            }
            ReduceOp::Min => {
                if acc.is_nan() || v.is_nan() {
                    f32::NAN
                } else {
                    acc.min(v)
                }
            }
            ReduceOp::Prod => acc * v,
        })
    }
}

/// `out[i] = f(x[i])` (or `f(x[i], y[i])` for binary functions) over `n` f32 elements.
///
/// Parameters, in order: `x`, (`y`), `out` (16-byte-aligned pointers), `n` (`.u64`). With
/// `vectorized`, the grid-stride loop moves 4 elements per iteration with `ld.global.nc.v4.f32`
/// and `st.global.v4.f32`, and the last `n % 4` elements are done by the first threads of the
/// grid. Launch with [`crate::LaunchConfig::grid_stride`] over `n / 4` (or `n`) items and
/// [`ELEMENTWISE_BLOCK`] threads.
pub fn elementwise(
    name: &str,
    f: MathFn,
    vectorized: bool,
    target: PtxTarget,
) -> Result<PtxKernel, PtxError> {
    let mut b = KernelBuilder::new(name, target);
    b.max_threads_per_block(ELEMENTWISE_BLOCK);
    let x = b.ptr_param("x", 16);
    let y = (f.arity() == 2).then(|| b.ptr_param("y", 16));
    let out = b.ptr_param("out", 16);
    let n = b.param("n", ParamTy::U64);
    let n = b.load_param(n);
    let apply = |b: &mut KernelBuilder, xv: Reg, yv: Option<Reg>| -> Reg {
        let yv = yv.map_or(Val::Imm(crate::ptx::Imm::F32(0.0)), Val::Reg);
        let r = f.apply(b, Val::Reg(xv), yv);
        b.materialize(Ty::F32, r)
    };
    let scalar = |b: &mut KernelBuilder, i: Reg| {
        let off = b.shl(Ty::B64, i, 2u32);
        let xa = b.add(Ty::U64, x, off);
        let xv = b.ld(Space::Global, Ty::F32, xa.into(), Cache::READ_ONLY);
        let yv = y.map(|y| {
            let ya = b.add(Ty::U64, y, off);
            b.ld(Space::Global, Ty::F32, ya.into(), Cache::READ_ONLY)
        });
        let r = apply(b, xv, yv);
        let oa = b.add(Ty::U64, out, off);
        b.st(Space::Global, Ty::F32, oa.into(), r, Cache::DEFAULT);
    };
    if vectorized {
        let n4 = b.shr(Ty::U64, n, 2u32);
        b.comment("main loop: 4 elements (16 bytes) per iteration");
        b.grid_stride_loop(n4, |b, i| {
            let off = b.shl(Ty::B64, i, 4u32);
            let xa = b.add(Ty::U64, x, off);
            let xs = b.ld_vec(Space::Global, Ty::F32, xa.into(), 4, Cache::READ_ONLY);
            let ys = y.map(|y| {
                let ya = b.add(Ty::U64, y, off);
                b.ld_vec(Space::Global, Ty::F32, ya.into(), 4, Cache::READ_ONLY)
            });
            let rs: Vec<Reg> = (0..4)
                .map(|k| apply(b, xs[k], ys.as_ref().map(|v| v[k])))
                .collect();
            let oa = b.add(Ty::U64, out, off);
            b.st_vec(Space::Global, Ty::F32, oa.into(), &rs, Cache::DEFAULT);
        });
        b.comment("tail: the last n % 4 elements, one per thread");
        let start = b.shl(Ty::B64, n4, 2u32);
        let rem = b.sub(Ty::U64, n, start);
        let t = b.global_thread_index();
        let done = b.label("done");
        let skip = b.setp(Cmp::Ge, Ty::U64, t, rem);
        b.bra_if(skip, &done);
        let i = b.add(Ty::U64, start, t);
        scalar(&mut b, i);
        b.place(&done);
    } else {
        b.grid_stride_loop(n, scalar);
    }
    b.finish()
}

/// All 32 lanes of a warp end with the reduction of their 32 values (`shfl.sync.bfly` with
/// offsets 16, 8, 4, 2, 1).
pub fn warp_allreduce(b: &mut KernelBuilder, op: ReduceOp, value: Reg) -> Reg {
    let mut v = value;
    for offset in [16u32, 8, 4, 2, 1] {
        let other = b.shfl(Shfl::Bfly, v, offset);
        v = op.combine(b, v, other);
    }
    v
}

/// Every thread of a block of `block_threads` (a multiple of 32, at most 1024) ends with the
/// reduction of the block's values: each warp reduces with shuffles, lane 0 of each warp writes
/// its partial to shared memory, and after a barrier every warp reduces the partials. Ends with
/// a barrier, so it may be called again (e.g. once per row).
pub fn block_allreduce(b: &mut KernelBuilder, op: ReduceOp, value: Reg, block_threads: u32) -> Reg {
    let warps = (block_threads / 32).max(1);
    if !block_threads.is_multiple_of(32) || block_threads > 1024 {
        b.report_error(format!(
            "block_allreduce: {block_threads} threads is not a multiple of 32 up to 1024"
        ));
    }
    let partials = b.shared_array(&format!("{}_partials", op.name()), 4, 4 * warps);
    let base = b.shared_address32(&partials);
    let tid = b.sreg(Sreg::TidX);
    let lane = b.and(Ty::B32, tid, 31u32);
    let warp = b.shr(Ty::U32, tid, 5u32);
    let w = warp_allreduce(b, op, value);
    let leader = b.setp(Cmp::Eq, Ty::U32, lane, 0u32);
    let slot = b.fma(Ty::U32, warp, 4u32, base);
    b.guarded(leader, false, |b| {
        b.st(Space::Shared, Ty::F32, slot.into(), w, Cache::DEFAULT)
    });
    b.bar_sync(0);
    let read = b.min(Ty::U32, lane, warps - 1);
    let at = b.fma(Ty::U32, read, 4u32, base);
    let partial = b.ld(Space::Shared, Ty::F32, Addr::reg(at), Cache::DEFAULT);
    let live = b.setp(Cmp::Lt, Ty::U32, lane, warps);
    let identity = op.identity();
    let partial = b.selp(Ty::F32, partial, identity, live);
    let total = warp_allreduce(b, op, partial);
    b.bar_sync(0);
    total
}

/// `out[r] = op(x[r, 0..cols])` for a row-major `[rows, cols]` f32 matrix: one block of
/// `block_threads` per row (grid-stride over rows), each thread folding a strided slice of the
/// row, then [`block_allreduce`].
///
/// Parameters: `x`, `out` (16-byte-aligned pointers), `rows`, `cols` (`.u32`). With
/// `vectorized` the row is read 4 floats at a time, which needs `cols % 4 == 0` (the caller's
/// promise: rows then stay 16-byte aligned). Launch with [`crate::LaunchConfig::per_row`].
pub fn row_reduce(
    name: &str,
    op: ReduceOp,
    block_threads: u32,
    vectorized: bool,
    target: PtxTarget,
) -> Result<PtxKernel, PtxError> {
    let mut b = KernelBuilder::new(name, target);
    b.max_threads_per_block(block_threads);
    let x = b.ptr_param("x", 16);
    let out = b.ptr_param("out", 16);
    let rows = b.param("rows", ParamTy::U32);
    let rows = b.load_param(rows);
    let cols = b.param("cols", ParamTy::U32);
    let cols = b.load_param(cols);
    let first_row = b.sreg(Sreg::CtaidX);
    let grid = b.sreg(Sreg::NctaidX);
    let tid = b.sreg(Sreg::TidX);
    let threads = b.sreg(Sreg::NtidX);
    b.counted_loop(Ty::U32, first_row, rows, grid, |b, row| {
        let row_elems = b.mul_wide(Ty::U32, row, cols);
        let row_bytes = b.shl(Ty::B64, row_elems, 2u32);
        let row_base = b.add(Ty::U64, x, row_bytes);
        let acc = b.mov(Ty::F32, op.identity());
        if vectorized {
            let cols4 = b.shr(Ty::U32, cols, 2u32);
            b.counted_loop(Ty::U32, tid, cols4, threads, |b, j| {
                let a = b.mad_wide(Ty::U32, j, 16u32, row_base);
                let v = b.ld_vec(Space::Global, Ty::F32, a.into(), 4, Cache::READ_ONLY);
                let mut s = acc;
                for r in v {
                    s = op.combine(b, s, r);
                }
                b.assign(Ty::F32, acc, s);
            });
        } else {
            b.counted_loop(Ty::U32, tid, cols, threads, |b, j| {
                let a = b.mad_wide(Ty::U32, j, 4u32, row_base);
                let v = b.ld(Space::Global, Ty::F32, a.into(), Cache::READ_ONLY);
                let s = op.combine(b, acc, v);
                b.assign(Ty::F32, acc, s);
            });
        }
        let total = block_allreduce(b, op, acc, block_threads);
        let first = b.setp(Cmp::Eq, Ty::U32, tid, 0u32);
        let oa = b.mad_wide(Ty::U32, row, 4u32, out);
        b.guarded(first, false, |b| {
            b.st(Space::Global, Ty::F32, oa.into(), total, Cache::DEFAULT)
        });
    });
    b.finish()
}
