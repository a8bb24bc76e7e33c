//! Lowerings of coil's random ops (`coil.philox_rand`, `_randn`, `_randint`): Philox-4x32-10
//! built from int64 ops every backend has (multiply, add, and, xor, shifts), keyed by the
//! seed tensor's value and counted by the element's row-major position, so the body is a
//! pointwise function of the index that fuses like any other. The reference meaning is
//! `coil_kernel::philox`; every intermediate stays below 2^49, so no backend's int64
//! arithmetic wraps (a 32-by-32-bit product is taken in 16-bit halves).

use coil_graph::{Bound, DType, FactoryKind, Node};
use coil_kernel::IndexExpr;
use coil_kernel::philox::{M0, M1, ROUNDS, W0, W1, uniform_bits};

use crate::body::{Const, ExprGraph, ExprId, Op};
use crate::ir::TensorId;
use crate::lowering::{BodyCx, Lowerer, Result};

const MASK: i64 = 0xFFFF_FFFF;

impl Lowerer<'_> {
    /// Lowers a call of a Philox random op.
    pub(super) fn lower_random(
        &mut self,
        node: &Node,
        kind: FactoryKind,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let meta = node.meta().clone();
        let out = meta.dtype;
        let seed_t = self.tensor(node, b, "seed")?;
        let offset = b.int("offset").map_err(|e| Self::graph_err(node, e))?;
        let low_high = if kind == FactoryKind::PhiloxRandint {
            let low = b.int("low").map_err(|e| Self::graph_err(node, e))?;
            let high = b.int("high").map_err(|e| Self::graph_err(node, e))?;
            Some((low, high))
        } else {
            None
        };
        let mut cx = BodyCx::new(&meta.sizes);
        // The element's row-major position.
        let mut linear = IndexExpr::zero();
        let mut stride = 1i64;
        for (d, &s) in meta.sizes.iter().enumerate().rev() {
            linear = linear.add(&cx.idx[d].scale(stride));
            stride = stride.saturating_mul(s as i64);
        }
        let seed = self.load_broadcast(&mut cx, seed_t);
        let g = &mut cx.body;
        let index = g.index_expr(linear, DType::I64);
        let w = words(g, seed, offset, index);
        let root = match (kind, low_high) {
            (FactoryKind::PhiloxRandint, Some((low, high))) => {
                let v = int_in(g, w, low, high);
                g.to_dtype(v, out)
            }
            (FactoryKind::PhiloxRandn, _) => {
                let t = out.opmath();
                let bits = uniform_bits(out.mantissa_bits());
                let one = g.constant(Const::Float(1.0), t);
                let u = uniform(g, [w[0], w[1]], bits, t);
                let u1 = g.binary(Op::Sub, one, u);
                let u2 = uniform(g, [w[2], w[3]], bits, t);
                let l = g.unary(Op::Log, u1);
                let m2 = g.constant(Const::Float(-2.0), t);
                let r2 = g.binary(Op::Mul, m2, l);
                let r = g.unary(Op::Sqrt, r2);
                let tau = g.constant(Const::Float(std::f64::consts::TAU), t);
                let a = g.binary(Op::Mul, tau, u2);
                let c = g.unary(Op::Cos, a);
                g.binary(Op::Mul, r, c)
            }
            _ => {
                let t = out.opmath();
                let bits = uniform_bits(out.mantissa_bits());
                uniform(g, [w[0], w[1]], bits, t)
            }
        };
        Ok(vec![self.finish_pointwise(node, cx, root, out)])
    }
}

fn int(g: &mut ExprGraph, v: i64) -> ExprId {
    g.constant(Const::Int(v), DType::I64)
}

fn and(g: &mut ExprGraph, a: ExprId, m: i64) -> ExprId {
    let m = int(g, m);
    g.binary(Op::BitAnd, a, m)
}

fn shr(g: &mut ExprGraph, a: ExprId, n: i64) -> ExprId {
    let n = int(g, n);
    g.binary(Op::Shr, a, n)
}

fn shl(g: &mut ExprGraph, a: ExprId, n: i64) -> ExprId {
    let n = int(g, n);
    g.binary(Op::Shl, a, n)
}

fn mulc(g: &mut ExprGraph, a: ExprId, m: i64) -> ExprId {
    let m = int(g, m);
    g.binary(Op::Mul, a, m)
}

/// `(hi, lo)` words of `m * a` for a 32-bit `a`: `a` in 16-bit halves, so no product
/// passes 2^48.
fn mul_hi_lo(g: &mut ExprGraph, m: u64, a: ExprId) -> (ExprId, ExprId) {
    let al = and(g, a, 0xFFFF);
    let ah = shr(g, a, 16);
    let p = mulc(g, al, m as i64);
    let q = mulc(g, ah, m as i64);
    let p_hi = shr(g, p, 16);
    let sum = g.binary(Op::Add, q, p_hi);
    let hi = shr(g, sum, 16);
    let q_lo = and(g, q, 0xFFFF);
    let q_lo = shl(g, q_lo, 16);
    let lo = g.binary(Op::Add, q_lo, p);
    let lo = and(g, lo, MASK);
    (hi, lo)
}

/// Philox-4x32-10's words for counter (index's two words, offset, 0) under the seed's two.
fn words(g: &mut ExprGraph, seed: ExprId, offset: i64, index: ExprId) -> [ExprId; 4] {
    let mut c = [
        and(g, index, MASK),
        shr(g, index, 32),
        int(g, offset),
        int(g, 0),
    ];
    let k0 = and(g, seed, MASK);
    let k1 = shr(g, seed, 32);
    let k1 = and(g, k1, MASK);
    for round in 0..ROUNDS as u64 {
        let bump = |g: &mut ExprGraph, k: ExprId, w: u64| {
            if round == 0 {
                return k;
            }
            let inc = int(g, ((w * round) & 0xFFFF_FFFF) as i64);
            let s = g.binary(Op::Add, k, inc);
            and(g, s, MASK)
        };
        let key0 = bump(g, k0, W0);
        let key1 = bump(g, k1, W1);
        let (hi0, lo0) = mul_hi_lo(g, M0, c[0]);
        let (hi1, lo1) = mul_hi_lo(g, M1, c[2]);
        let x0 = g.binary(Op::BitXor, hi1, c[1]);
        let x0 = g.binary(Op::BitXor, x0, key0);
        let x2 = g.binary(Op::BitXor, hi0, c[3]);
        let x2 = g.binary(Op::BitXor, x2, key1);
        c = [x0, lo1, x2, lo0];
    }
    c
}

/// `k / 2^bits` in `t`, `k` the top `bits` of `w[0]` (and `w[1]` above 32): as
/// `coil_kernel::philox::uniform`.
fn uniform(g: &mut ExprGraph, w: [ExprId; 2], bits: u32, t: DType) -> ExprId {
    let k = if bits <= 32 {
        shr(g, w[0], 32 - bits as i64)
    } else {
        // ((w1 << 32) | w0) >> (64 - bits), without passing 2^53.
        let hi = shl(g, w[1], bits as i64 - 32);
        let lo = shr(g, w[0], 64 - bits as i64);
        g.binary(Op::BitOr, hi, lo)
    };
    let kf = g.to_dtype(k, t);
    let scale = g.constant(Const::Float(1.0 / (1u64 << bits) as f64), t);
    g.binary(Op::Mul, kf, scale)
}

/// `low + v % (high - low)`, `v` 63 bits of the words: as `coil_kernel::philox::int_in`.
fn int_in(g: &mut ExprGraph, w: [ExprId; 4], low: i64, high: i64) -> ExprId {
    let range = high.wrapping_sub(low);
    let hi = and(g, w[1], 0x7FFF_FFFF);
    let hi = shl(g, hi, 32);
    let v = g.binary(Op::BitOr, hi, w[0]);
    let r = int(g, range);
    let q = g.binary(Op::TruncDiv, v, r);
    let back = g.binary(Op::Mul, q, r);
    let m = g.binary(Op::Sub, v, back);
    let lo = int(g, low);
    g.binary(Op::Add, m, lo)
}
