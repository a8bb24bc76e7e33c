//! Index expressions on the GPU: a kernel's indices rewritten over two flat variables (the
//! row `o` over `ranges`, the position `r` over `reduction_ranges`), the lane analysis that
//! decides between 128-bit, broadcast and per-lane accesses, and evaluation in 32- or 64-bit
//! integer registers.

use coil_codegen::Kernel;
use coil_lower::{IndexExpr, Term, Var, VarRanges};

use crate::ptx::{Cmp, KernelBuilder, Operand, Reg, Ty, Val};

/// The flat outer variable: `o = p0 * (ranges[1] * ...) + ... + p{n-1}`.
pub(crate) fn outer_var() -> Var {
    Var::d(0)
}

/// The flat reduction variable over `reduction_ranges`.
pub(crate) fn reduction_var() -> Var {
    Var::d(1)
}

/// The ranges of the two flat variables.
pub(crate) fn flat_ranges(k: &Kernel) -> VarRanges {
    flat_ranges_to(k, None)
}

/// The ranges of the two flat variables, the outer one up to `outer_end` where that is given
/// (a kernel whose outermost range is a size parameter: see [`flatten_to`]).
pub(crate) fn flat_ranges_to(k: &Kernel, outer_end: Option<usize>) -> VarRanges {
    VarRanges::new(vec![
        (outer_var(), outer_end.unwrap_or_else(|| k.numel())),
        (reduction_var(), k.rnumel()),
    ])
}

fn row_major_strides(sizes: &[usize]) -> Vec<i64> {
    let mut strides = vec![1i64; sizes.len()];
    for i in (0..sizes.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * sizes[i + 1] as i64;
    }
    strides
}

/// `e` over the flat variables: `p_i` becomes `ModularIndexing(o, stride_i, size_i)` (and the
/// reduction variables likewise over `r`), then simplified, so that the div/mod pairs of a
/// contiguous access join back (`1024*p0 + p1` over ranges `[8, 128]` is `o`).
pub(crate) fn flatten(k: &Kernel, e: &IndexExpr) -> IndexExpr {
    flatten_to(k, e, None)
}

/// [`flatten`] for a kernel whose outermost range is a size parameter when `outer_end` is
/// given: `p0` becomes `o // stride0` (which holds whatever the outermost range is, `o` being
/// below it times `stride0`) and the simplifier knows only that `o < outer_end`. A rewrite that
/// holds for every `o` below `outer_end` holds for every smaller range too, so the expression
/// serves every size up to it.
pub(crate) fn flatten_to(k: &Kernel, e: &IndexExpr, outer_end: Option<usize>) -> IndexExpr {
    let n = k.ranges.len();
    let outer = row_major_strides(&k.ranges);
    let inner = row_major_strides(&k.reduction_ranges);
    let o = IndexExpr::var(outer_var());
    let r = IndexExpr::var(reduction_var());
    e.subst(&mut |v| {
        if v.prefix != coil_lower::VarPrefix::P {
            return None;
        }
        let i = v.n as usize;
        if i == 0 && outer_end.is_some() {
            Some(if outer[0] == 1 {
                o.clone()
            } else {
                o.floor_div(outer[0])
            })
        } else if i < n {
            Some(o.modular(outer[i], k.ranges[i] as i64))
        } else if i - n < k.reduction_ranges.len() {
            let j = i - n;
            Some(r.modular(inner[j], k.reduction_ranges[j] as i64))
        } else {
            None
        }
    })
    .simplify(&flat_ranges_to(k, outer_end))
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i64::try_from(a).unwrap_or(i64::MAX)
}

/// How an index moves across the `width` lanes of a chunk: with the lane variable `x` taking
/// `base + k` (`base` a multiple of `width`, `k < width`), the index is `e(base) + stride * k`,
/// and `e(base)` is a multiple of `divisor` (0: of every integer, i.e. it is 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LaneShape {
    pub(crate) stride: i64,
    pub(crate) divisor: i64,
}

impl LaneShape {
    /// Consecutive lanes read consecutive elements and the chunk starts `width`-aligned: one
    /// vector access.
    pub(crate) fn is_vector(&self, width: i64) -> bool {
        self.stride == 1 && self.divisor % width == 0
    }
}

/// The lane shape of `e` for lane variable `x` and `width` lanes, when it can be proven;
/// `None` means "assume nothing" (one access per lane).
pub(crate) fn lane_shape(e: &IndexExpr, x: Var, width: i64) -> Option<LaneShape> {
    let mut stride = 0i64;
    let mut divisor = e.constant_part().abs();
    for (t, c) in e.terms() {
        let (ts, tdiv) = match t {
            Term::Var(v) if *v == x => (1, width),
            Term::Var(_) => (0, 1),
            Term::FloorDiv(inner, d) => {
                let s = lane_shape(inner, x, width)?;
                if s.stride == 0 || lane_invariant(s, *d, width) {
                    (0, 1)
                } else {
                    return None;
                }
            }
            Term::ModularIndexing(inner, d, m) => {
                let s = lane_shape(inner, x, width)?;
                if s.stride == 0 || lane_invariant(s, *d, width) {
                    (0, 1)
                } else if *d == 1
                    && s.stride > 0
                    && m % (s.stride * width) == 0
                    && s.divisor % (s.stride * width) == 0
                {
                    (s.stride, gcd(s.divisor, *m))
                } else {
                    return None;
                }
            }
            // A size parameter times a term the lane does not move: the same for every lane,
            // of unknown alignment. One the lane moves has an unknown stride.
            Term::SizeTimes(_, t) if !t.contains_var(x) => (0, 1),
            Term::SizeTimes(..) => return None,
        };
        stride = stride.checked_add(c.checked_mul(ts)?)?;
        divisor = gcd(divisor, c.checked_mul(tdiv)?);
    }
    Some(LaneShape { stride, divisor })
}

/// `floor((base + s*k) / d)` does not depend on `k < width` when `s*width` divides both `d`
/// and `base`.
fn lane_invariant(s: LaneShape, d: i64, width: i64) -> bool {
    let span = s.stride.checked_mul(width).unwrap_or(0);
    s.stride > 0 && span > 0 && d % span == 0 && s.divisor % span == 0
}

/// Whether every term of `e` stays inside `i32` over `ranges` (so 32-bit registers compute it
/// exactly).
pub(crate) fn fits_i32(e: &IndexExpr, ranges: &VarRanges) -> bool {
    let in_range =
        |(lo, hi): (i128, i128)| lo >= i128::from(i32::MIN) && hi <= i128::from(i32::MAX);
    if !in_range(e.bounds(ranges)) {
        return false;
    }
    e.terms().iter().all(|(t, c)| match t {
        Term::Var(v) => in_range(IndexExpr::var(*v).scale(*c).bounds(ranges)),
        Term::FloorDiv(inner, _) | Term::ModularIndexing(inner, _, _) => fits_i32(inner, ranges),
        Term::SizeTimes(..) => false,
    })
}

/// Registers holding the variables an index may mention, all of one integer width.
#[derive(Clone, Debug)]
pub(crate) struct IndexEnv {
    /// 64-bit (`.s64`) index arithmetic, else 32-bit (`.s32`).
    pub(crate) wide: bool,
    vars: Vec<(Var, Reg)>,
}

impl IndexEnv {
    pub(crate) fn new(wide: bool) -> IndexEnv {
        IndexEnv { wide, vars: vec![] }
    }

    /// The integer type of index registers.
    pub(crate) fn ty(&self) -> Ty {
        if self.wide { Ty::S64 } else { Ty::S32 }
    }

    fn unsigned(&self) -> Ty {
        if self.wide { Ty::U64 } else { Ty::U32 }
    }

    /// Binds (or rebinds) `v` to `reg`.
    pub(crate) fn bind(&mut self, v: Var, reg: Reg) {
        self.vars.retain(|(w, _)| *w != v);
        self.vars.push((v, reg));
    }

    /// The register bound to `v`.
    pub(crate) fn get(&self, v: Var) -> Option<Reg> {
        self.vars.iter().find(|(w, _)| *w == v).map(|(_, r)| *r)
    }

    /// Emits `e` (bounds from `ranges` pick unsigned division where the dividend is never
    /// negative); a register or an immediate of [`IndexEnv::ty`].
    pub(crate) fn eval(&self, b: &mut KernelBuilder, e: &IndexExpr, ranges: &VarRanges) -> Val {
        // Index registers are never assigned to: the terms loads share are computed once.
        b.with_cse(|b| self.eval_terms(b, e, ranges))
    }

    fn eval_terms(&self, b: &mut KernelBuilder, e: &IndexExpr, ranges: &VarRanges) -> Val {
        let ty = self.ty();
        let mut acc: Option<Reg> = None;
        for (t, c) in e.terms() {
            let tv = self.term(b, t, ranges);
            acc = Some(match (acc, *c) {
                (None, 1) => b.materialize(ty, tv),
                (None, c) => b.mul(ty, tv, c),
                (Some(a), 1) => b.add(ty, tv, a),
                (Some(a), -1) => b.sub(ty, a, tv),
                (Some(a), c) => b.fma(ty, tv, c, a),
            });
        }
        let k = e.constant_part();
        match acc {
            None => Val::Imm(crate::ptx::Imm::Int(k)),
            Some(a) if k == 0 => Val::Reg(a),
            Some(a) => Val::Reg(b.add(ty, a, k)),
        }
    }

    fn term(&self, b: &mut KernelBuilder, t: &Term, ranges: &VarRanges) -> Val {
        let ty = self.ty();
        match t {
            Term::Var(v) => match self.get(*v) {
                Some(r) => Val::Reg(r),
                None => {
                    b.report_error(format!("index variable {v} has no register here"));
                    Val::Imm(crate::ptx::Imm::Int(0))
                }
            },
            Term::FloorDiv(inner, d) => {
                let x = self.eval(b, inner, ranges);
                Val::Reg(self.floor_div(b, x, *d, inner.bounds(ranges).0 >= 0))
            }
            // A kernel generalized over sizes: the parameter's register (bound at the entry).
            Term::SizeTimes(p, inner) => {
                let x = self.term(b, inner, ranges);
                match self.get(Var::size(*p as usize)) {
                    Some(s) => Val::Reg(b.mul(ty, x, s)),
                    None => {
                        b.report_error(format!("size parameter s{p} has no register here"));
                        Val::Imm(crate::ptx::Imm::Int(0))
                    }
                }
            }
            Term::ModularIndexing(inner, d, m) => {
                let x = self.eval(b, inner, ranges);
                let nonneg = inner.bounds(ranges).0 >= 0;
                let q = if *d == 1 {
                    b.materialize(ty, x)
                } else {
                    self.floor_div(b, x, *d, nonneg)
                };
                if nonneg {
                    Val::Reg(b.rem(self.unsigned(), q, *m))
                } else {
                    // Python's non-negative remainder.
                    let r = b.rem(ty, q, *m);
                    let neg = b.setp(Cmp::Lt, ty, r, 0i64);
                    let fixed = b.add(ty, r, *m);
                    Val::Reg(b.selp(ty, fixed, r, neg))
                }
            }
        }
    }

    fn floor_div(&self, b: &mut KernelBuilder, x: Val, d: i64, nonneg: bool) -> Reg {
        let ty = self.ty();
        if nonneg {
            return b.div(self.unsigned(), x, d);
        }
        let q = b.div(ty, x, d);
        let r = b.rem(ty, x, d);
        let neg = b.setp(Cmp::Lt, ty, r, 0i64);
        let less = b.sub(ty, q, 1i64);
        b.selp(ty, less, q, neg)
    }
}

/// `base + index * itemsize` as a 64-bit address.
pub(crate) fn address(
    b: &mut KernelBuilder,
    env: &IndexEnv,
    base: Reg,
    index: Val,
    itemsize: usize,
) -> Reg {
    let size = itemsize as i64;
    match index {
        Val::Imm(crate::ptx::Imm::Int(0)) => base,
        Val::Imm(crate::ptx::Imm::Int(i)) => b.add(Ty::U64, base, Operand::from(i * size)),
        _ if env.wide => b.fma(Ty::S64, index, size, base),
        _ => b.mad_wide(Ty::S32, index, size as i32, base),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x() -> Var {
        reduction_var()
    }

    #[test]
    fn contiguous_rows_are_vectors() {
        let e = IndexExpr::var(outer_var())
            .scale(1024)
            .add(&IndexExpr::var(x()));
        let s = lane_shape(&e, x(), 4).unwrap();
        assert_eq!(s.stride, 1);
        assert!(s.is_vector(4));
        // A row length that is not a multiple of 4 breaks the alignment.
        let e = IndexExpr::var(outer_var())
            .scale(1022)
            .add(&IndexExpr::var(x()));
        assert!(!lane_shape(&e, x(), 4).unwrap().is_vector(4));
    }

    #[test]
    fn div_and_mod_of_the_lane_variable() {
        let xv = IndexExpr::var(x());
        // x // 8: the same for the 4 lanes of a chunk.
        let s = lane_shape(&xv.floor_div(8), x(), 4).unwrap();
        assert_eq!(s.stride, 0);
        // x % 256 + 256 * o: contiguous.
        let e = xv
            .modular(1, 256)
            .add(&IndexExpr::var(outer_var()).scale(256));
        assert!(lane_shape(&e, x(), 4).unwrap().is_vector(4));
        // x // 2: two lanes per element: per lane.
        assert!(lane_shape(&xv.floor_div(2), x(), 4).is_none());
        // x % 6 is not contiguous across chunk ends.
        assert!(lane_shape(&xv.modular(1, 6), x(), 4).is_none());
        // 2 * x: stride 2.
        assert_eq!(lane_shape(&xv.scale(2), x(), 4).unwrap().stride, 2);
    }
}
