//! Algebraic identities that are exact in IEEE arithmetic, for every input including NaN, inf
//! and signed zeros. Never `x - x -> 0` or `x * 0 -> 0` (NaN and inf break them), never
//! `x + 0 -> x` (`-0.0 + 0.0` is `+0.0`).

use egg::{Applier, Id, PatternAst, Subst, Symbol, rewrite};

use super::{Rewrite, add_call, add_lit, lit_of, same_meta, union_into, var};
use crate::analysis::AtenGraph;
use crate::lang::{Aten, Lit};

/// The rules of this family.
pub fn rules() -> Vec<Rewrite> {
    vec![
        rewrite!("mul-one"; "(mul.Tensor ?x 1)" => "?x" if same_meta("?x")),
        rewrite!("mul-one-f"; "(mul.Tensor ?x 1.0)" => "?x" if same_meta("?x")),
        rewrite!("div-one"; "(div.Tensor ?x 1)" => "?x" if same_meta("?x")),
        rewrite!("div-one-f"; "(div.Tensor ?x 1.0)" => "?x" if same_meta("?x")),
        rewrite!("sub-zero"; "(sub.Tensor ?x 0 1)" => "?x" if same_meta("?x")),
        rewrite!("sub-zero-f"; "(sub.Tensor ?x 0.0 1)" => "?x" if same_meta("?x")),
        rewrite!("neg-neg"; "(neg.default (neg.default ?x))" => "?x"),
        rewrite!("relu-relu"; "(relu.default (relu.default ?x))" => "(relu.default ?x)"),
        rewrite!("pow-two"; "(pow.Tensor_Scalar ?x 2)" => "(mul.Tensor ?x ?x)" if same_meta("?x")),
        rewrite!("pow-two-f"; "(pow.Tensor_Scalar ?x 2.0)" => "(mul.Tensor ?x ?x)" if same_meta("?x")),
        rewrite!("mul-consts"; "(mul.Tensor (mul.Tensor ?x ?a) ?b)" => { FoldScales }),
        rewrite!("div-pow2"; "(div.Tensor ?x ?c)" => { DivToMul }),
    ]
}

/// True when multiplying by `c` only changes the exponent: a power of two (positive or
/// negative) whose reciprocal is a normal float. Then `x * c` rounds exactly like `x / (1/c)`.
pub(crate) fn is_power_of_two(c: f64) -> bool {
    if !c.is_finite() || c == 0.0 {
        return false;
    }
    let a = c.abs();
    let (m, _) = frexp(a);
    m == 0.5 && (a.log2().abs() < 126.0)
}

/// `frexp` for finite nonzero `x`: `x = m * 2^e` with `m` in `[0.5, 1)`.
fn frexp(x: f64) -> (f64, i32) {
    let e = x.abs().log2().floor() as i32 + 1;
    (x / 2f64.powi(e), e)
}

/// A scalar literal of a float or int kind.
fn scalar(egraph: &AtenGraph, id: Id) -> Option<(f64, bool)> {
    match lit_of(egraph, id)? {
        Lit::Int(i) => Some((i as f64, false)),
        Lit::Float(f) => Some((f.get(), true)),
        _ => None,
    }
}

/// `(x * a) * b -> x * (a*b)` when exact: one factor is a power of two (so no second rounding
/// can differ) and the dtype does not change.
struct FoldScales;

impl Applier<Aten, crate::analysis::MetaAnalysis> for FoldScales {
    fn apply_one(
        &self,
        eg: &mut AtenGraph,
        eclass: Id,
        s: &Subst,
        _: Option<&PatternAst<Aten>>,
        _: Symbol,
    ) -> Vec<Id> {
        let (x, a, b) = (s[var("?x")], s[var("?a")], s[var("?b")]);
        let (Some((av, af)), Some((bv, bf))) = (scalar(eg, a), scalar(eg, b)) else {
            return vec![];
        };
        let Some(meta) = eg[eclass].data.meta().cloned() else {
            return vec![];
        };
        if !meta.dtype.is_float() || !(is_power_of_two(av) || is_power_of_two(bv)) {
            return vec![];
        }
        // Scaling by a power of two commutes with rounding, so round(round(x*a)*b) equals
        // round(x*(a*b)), and the dtype's rounding of a*b equals its rounding of a, scaled
        // (overflow and subnormal results aside).
        let product = av * bv;
        let lit = if af || bf {
            Lit::float(product)
        } else {
            Lit::Int(product as i64)
        };
        let c = add_lit(eg, lit);
        let new = add_call(eg, "mul.Tensor", &[x, c]);
        if eg[new].data.meta() != Some(&meta) {
            return vec![];
        }
        union_into(eg, eclass, new)
    }
}

/// `x / c -> x * (1/c)` when `c` is a power of two (then `1/c` is exact and both round the
/// same way).
struct DivToMul;

impl Applier<Aten, crate::analysis::MetaAnalysis> for DivToMul {
    fn apply_one(
        &self,
        eg: &mut AtenGraph,
        eclass: Id,
        s: &Subst,
        _: Option<&PatternAst<Aten>>,
        _: Symbol,
    ) -> Vec<Id> {
        let (x, c) = (s[var("?x")], s[var("?c")]);
        let Some((cv, _)) = scalar(eg, c) else {
            return vec![];
        };
        let Some(meta) = eg[eclass].data.meta().cloned() else {
            return vec![];
        };
        if !is_power_of_two(cv) || !meta.dtype.is_float() {
            return vec![];
        }
        let r = add_lit(eg, Lit::float(1.0 / cv));
        let new = add_call(eg, "mul.Tensor", &[x, r]);
        if eg[new].data.meta() != Some(&meta) {
            return vec![];
        }
        union_into(eg, eclass, new)
    }
}

#[cfg(test)]
mod tests {
    use super::is_power_of_two;

    #[test]
    fn powers_of_two() {
        for c in [1.0, 2.0, 0.5, 1024.0, 1.0 / 1024.0, -4.0, 0.0009765625] {
            assert!(is_power_of_two(c), "{c}");
        }
        for c in [0.0, 3.0, 0.1, 1000.0, f64::INFINITY, f64::NAN, 1e-300] {
            assert!(!is_power_of_two(c), "{c}");
        }
    }
}
