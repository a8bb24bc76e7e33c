//! Rule families, one file each, and the conditions and appliers they share.

pub mod algebra;
pub mod decompose;
pub mod fold;
pub mod noop;
pub mod views;

use coil_graph::TensorMeta;
use egg::{Id, Subst, Var};

use crate::analysis::AtenGraph;
use crate::lang::{Aten, Lit};

/// A rewrite over our language and analysis.
pub type Rewrite = egg::Rewrite<Aten, crate::analysis::MetaAnalysis>;

/// The variable `?name`.
pub(crate) fn var(name: &str) -> Var {
    name.parse().expect("rule variables are written as ?name")
}

/// The single tensor meta of a class.
pub(crate) fn meta_of(egraph: &AtenGraph, id: Id) -> Option<TensorMeta> {
    egraph[id].data.meta().cloned()
}

/// Condition: the matched value has exactly the meta (dtype, sizes, strides) of `?v`, so
/// replacing it by `?v` changes nothing a reader can see.
pub(crate) fn same_meta(v: &str) -> impl Fn(&mut AtenGraph, Id, &Subst) -> bool + use<> {
    let v = var(v);
    move |eg, id, s| {
        let (a, b) = (meta_of(eg, id), meta_of(eg, s[v]));
        a.is_some() && a == b
    }
}

/// Condition: `?v` is an f32 or f64 tensor (decompositions written without casts need it).
pub(crate) fn full_precision(v: &str) -> impl Fn(&mut AtenGraph, Id, &Subst) -> bool + use<> {
    let v = var(v);
    move |eg, _, s| {
        meta_of(eg, s[v])
            .is_some_and(|m| matches!(m.dtype, coil_graph::DType::F32 | coil_graph::DType::F64))
    }
}

/// The literal of a class, if it is one.
pub(crate) fn lit_of(egraph: &AtenGraph, id: Id) -> Option<Lit> {
    egraph[id].data.lit().cloned()
}

/// Adds a literal.
pub(crate) fn add_lit(egraph: &mut AtenGraph, lit: Lit) -> Id {
    egraph.add(Aten::Lit(lit))
}

/// Adds an int list.
pub(crate) fn add_int_list(egraph: &mut AtenGraph, ints: &[i64]) -> Id {
    let ids: Vec<Id> = ints.iter().map(|&i| add_lit(egraph, Lit::Int(i))).collect();
    egraph.add(Aten::List(ids.into()))
}

/// Adds a call of `op` (`add.Tensor`) with all its arguments.
pub(crate) fn add_call(egraph: &mut AtenGraph, op: &str, children: &[Id]) -> Id {
    let op = coil_graph::OpRef::lookup(op).expect("rules name registered ops");
    debug_assert_eq!(op.schema().params.len(), children.len(), "{op}");
    egraph.add(Aten::Call(op, children.into()))
}

/// The `getitem` classes reading output `i` of the multi-output class `id`.
pub(crate) fn getitem_users(egraph: &AtenGraph, id: Id) -> Vec<(u32, Id)> {
    let id = egraph.find(id);
    let mut out = Vec::new();
    for class in egraph.classes() {
        for n in &class.nodes {
            if let Aten::GetItem(i, [src]) = n
                && egraph.find(*src) == id
            {
                out.push((*i, class.id));
            }
        }
    }
    out
}

/// Every rule of the enabled families, with the family each belongs to.
pub fn rules_for(families: &[&str]) -> Vec<(&'static str, Rewrite)> {
    let mut out = Vec::new();
    type Family = (&'static str, fn() -> Vec<Rewrite>);
    let all: [Family; 5] = [
        ("noop", noop::rules),
        ("views", views::rules),
        ("algebra", algebra::rules),
        ("decompose", decompose::rules),
        ("fold", fold::rules),
    ];
    for (name, make) in all {
        if families.contains(&name) {
            out.extend(make().into_iter().map(|r| (name, r)));
        }
    }
    out
}

/// Helper for appliers: unions `new` into `eclass` and reports the change as egg expects.
pub(crate) fn union_into(egraph: &mut AtenGraph, eclass: Id, new: Id) -> Vec<Id> {
    if egraph.union(eclass, new) {
        vec![eclass]
    } else {
        vec![]
    }
}
