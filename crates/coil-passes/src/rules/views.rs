//! View algebra: compositions of views that collapse into one view.

use egg::{Applier, Id, PatternAst, Subst, Symbol, rewrite};

use super::{Rewrite, add_call, add_int_list, meta_of, same_meta, union_into, var};
use crate::analysis::AtenGraph;
use crate::lang::Aten;

/// The rules of this family.
pub fn rules() -> Vec<Rewrite> {
    vec![
        rewrite!("permute-permute"; "(permute.default (permute.default ?x ?p) ?q)" => { ComposePermutes }),
        rewrite!("reshape-reshape"; "(reshape.default (reshape.default ?x ?a) ?b)" => "(reshape.default ?x ?b)"),
        rewrite!("view-view"; "(view.default (view.default ?x ?a) ?b)" => "(view.default ?x ?b)" if contiguous("?x")),
        rewrite!("unsqueeze-squeeze"; "(unsqueeze.default (squeeze.dim ?x ?d) ?d)" => "?x" if same_meta("?x")),
        rewrite!("squeeze-unsqueeze"; "(squeeze.dim (unsqueeze.default ?x ?d) ?d)" => "?x" if same_meta("?x")),
        rewrite!("expand-expand"; "(expand.default (expand.default ?x ?a ?i) ?b ?j)" => "(expand.default ?x ?b ?j)" if explicit_sizes("?b")),
    ]
}

/// Condition: `?v` is a contiguous tensor, so any view of any view of it is a view of it.
fn contiguous(v: &str) -> impl Fn(&mut AtenGraph, Id, &Subst) -> bool + use<> {
    let v = var(v);
    move |eg, _, s| meta_of(eg, s[v]).is_some_and(|m| m.is_contiguous())
}

/// Condition: the size list `?v` has no `-1` (which would mean "the inner expand's size").
fn explicit_sizes(v: &str) -> impl Fn(&mut AtenGraph, Id, &Subst) -> bool + use<> {
    let v = var(v);
    move |eg, _, s| {
        eg[s[v]]
            .data
            .ints()
            .is_some_and(|sizes| sizes.iter().all(|&d| d >= 0))
    }
}

/// `permute(permute(x, p), q) = permute(x, [p[q[0]], p[q[1]], ...])`.
struct ComposePermutes;

impl Applier<Aten, crate::analysis::MetaAnalysis> for ComposePermutes {
    fn apply_one(
        &self,
        egraph: &mut AtenGraph,
        eclass: Id,
        subst: &Subst,
        _ast: Option<&PatternAst<Aten>>,
        _rule: Symbol,
    ) -> Vec<Id> {
        let (x, p, q) = (subst[var("?x")], subst[var("?p")], subst[var("?q")]);
        let Some(rank) = meta_of(egraph, x).map(|m| m.rank()) else {
            return vec![];
        };
        let (Some(p), Some(q)) = (egraph[p].data.ints(), egraph[q].data.ints()) else {
            return vec![];
        };
        let wrap = |d: i64| if d < 0 { d + rank as i64 } else { d };
        let p: Vec<i64> = p.into_iter().map(wrap).collect();
        let q: Vec<i64> = q.into_iter().map(wrap).collect();
        if p.len() != rank || q.len() != rank || q.iter().any(|&d| d < 0 || d as usize >= rank) {
            return vec![];
        }
        let composed: Vec<i64> = q.iter().map(|&d| p[d as usize]).collect();
        let dims = add_int_list(egraph, &composed);
        let new = add_call(egraph, "permute.default", &[x, dims]);
        union_into(egraph, eclass, new)
    }
}
