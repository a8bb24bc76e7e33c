//! Unit and property tests of the index expressions' simplifier and printer.
use super::*;

fn p(n: usize) -> IndexExpr {
    IndexExpr::var(Var::p(n))
}

#[test]
fn prints_like_sympy() {
    let e = p(0).scale(1024).add(&p(1));
    assert_eq!(e.to_string(), "1024*p0 + p1");
    assert_eq!(p(1).add_constant(-3).to_string(), "p1 - 3");
    assert_eq!(p(1).scale(-1).add_constant(7).to_string(), "-p1 + 7");
    assert_eq!(IndexExpr::zero().to_string(), "0");
    assert_eq!(
        p(0).modular(1, 64).to_string(),
        "ModularIndexing(p0, 1, 64)"
    );
    assert_eq!(p(0).floor_div(16).scale(64).to_string(), "64*(p0//16)");
    assert_eq!(e.floor_div(16).to_string(), "((1024*p0 + p1)//16)");
}

#[test]
fn reshape_round_trip_folds_back_to_affine() {
    // [1024, 1024] viewed as [1048576] and back: 1024*(q//1024) + ModularIndexing(q, 1, 1024)
    // with q = 1024*p0 + p1.
    let r = VarRanges::positional(&[1024, 1024]);
    let q = p(0).scale(1024).add(&p(1));
    let e = q.floor_div(1024).scale(1024).add(&q.modular(1, 1024));
    assert_eq!(e.simplify(&r).to_string(), "1024*p0 + p1");
    // The flat view alone: 1024*(p0//1024) + ModularIndexing(p0, 1, 1024) = p0.
    let r1 = VarRanges::positional(&[1048576]);
    let e = p(0).floor_div(1024).scale(1024).add(&p(0).modular(1, 1024));
    assert_eq!(e.simplify(&r1).to_string(), "p0");
}

#[test]
fn small_remainders_leave_divisions() {
    // [32, 256, 64] -> [4, 8, 256, 64] indices of a contiguous [4, 8, 256, 64] tensor.
    let r = VarRanges::positional(&[32, 256, 64]);
    let flat = p(0).scale(16384).add(&p(1).scale(64)).add(&p(2));
    assert_eq!(flat.floor_div(131072).simplify(&r).to_string(), "(p0//8)");
    assert_eq!(
        flat.modular(16384, 8).simplify(&r).to_string(),
        "ModularIndexing(p0, 1, 8)"
    );
    assert_eq!(flat.modular(64, 256).simplify(&r).to_string(), "p1");
    let load = flat
        .floor_div(131072)
        .scale(131072)
        .add(&flat.modular(16384, 8).scale(16384))
        .add(&flat.modular(64, 256).scale(64))
        .add(&flat.modular(1, 64));
    assert_eq!(load.simplify(&r).to_string(), "16384*p0 + 64*p1 + p2");
}

#[test]
fn size_one_variables_drop_out() {
    let r = VarRanges::positional(&[1, 5]);
    assert_eq!(p(0).scale(5).add(&p(1)).simplify(&r).to_string(), "p1");
}

#[test]
fn eval_matches_python_semantics() {
    let e = p(0).add_constant(-3).floor_div(2);
    assert_eq!(e.eval(&|_| 0), -2);
    let m = p(0).add_constant(-3).modular(1, 4);
    assert_eq!(m.eval(&|_| 0), 1);
}

#[test]
fn simplification_preserves_values() {
    // Exhaustive check over small ranges for a handful of shapes.
    let sizes = [3usize, 4, 6];
    let r = VarRanges::positional(&sizes);
    let flat = p(0).scale(24).add(&p(1).scale(6)).add(&p(2));
    let exprs = [
        flat.floor_div(12),
        flat.modular(6, 4),
        flat.modular(2, 6),
        flat.floor_div(4).scale(4).add(&flat.modular(1, 4)),
        flat.modular(3, 2)
            .scale(3)
            .add(&flat.modular(6, 5).scale(6)),
        p(2).add_constant(-2).floor_div(3),
        p(1).scale(3).add(&p(2)).modular(1, 5),
    ];
    for e in &exprs {
        let s = e.simplify(&r);
        for a in 0..3 {
            for b in 0..4 {
                for c in 0..6 {
                    let env = |v: Var| [a, b, c][v.n as usize];
                    assert_eq!(e.eval(&env), s.eval(&env), "{e} vs {s}");
                }
            }
        }
    }
}

/// A random expression over p0..p2 built from the operations views use.
fn arb_expr() -> impl proptest::strategy::Strategy<Value = IndexExpr> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        (0usize..3).prop_map(p),
        (-5i64..6).prop_map(IndexExpr::constant),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| a.add(&b)),
            (inner.clone(), -3i64..8).prop_map(|(a, k)| a.scale(k)),
            (inner.clone(), 1i64..7).prop_map(|(a, d)| a.floor_div(d)),
            (inner, 1i64..5, 1i64..6).prop_map(|(a, d, m)| a.modular(d, m)),
        ]
    })
}

proptest::proptest! {
    #[test]
    fn simplify_never_changes_a_value(
        e in arb_expr(),
        sizes in proptest::collection::vec(1usize..7, 3),
    ) {
        let r = VarRanges::positional(&sizes);
        let s = e.simplify(&r);
        for a in 0..sizes[0] as i64 {
            for b in 0..sizes[1] as i64 {
                for c in 0..sizes[2] as i64 {
                    let env = |v: Var| [a, b, c][v.n as usize];
                    proptest::prop_assert_eq!(e.eval(&env), s.eval(&env), "{} vs {}", e, s);
                }
            }
        }
        // Simplifying twice changes nothing more.
        proptest::prop_assert_eq!(s.simplify(&r), s.clone());
    }
}
