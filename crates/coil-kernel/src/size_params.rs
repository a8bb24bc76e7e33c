//! Kernels generalized over sizes (issue "Dynamic shapes"): two kernels of the same code but
//! for different sizes (a batch, a sequence length) differ in a few integers only: loop ranges,
//! strides (index coefficients) and offsets (index constants). [`generalize`] makes one kernel
//! of the pair in which each integer that differs is a size parameter instead: a range becomes
//! `s<k>` ([`SizeParams::ranges`]), a coefficient `c*t` the term `s<k>*t`
//! ([`crate::Term::SizeTimes`]), a constant the summand `s<k>`. A backend compiles that kernel
//! once, with the parameters read at launch; [`bind`] then gives, for any kernel of the same
//! code, the parameters' values that make the generalized kernel compute exactly it (or says
//! it is not one: another code, or a fixed integer that differs).
//!
//! An `i64` constant that differs (a mask's `p1 < s`) becomes a parameter too: its value
//! becomes the index expression `s<k>`. Generalized kernels keep the term positions of the
//! kernels they come from ([`IndexExpr::from_terms`]), which is what lets [`bind`] read a
//! kernel's integers at the same places. Floor divisions' and moduli's divisors, checked
//! indices' sizes and other constants stay fixed: a kernel that differs there has other code
//! (a checked index whose size is a parameter keeps its check in the loop: gpt2's attention
//! mask ran a third slower that way on the CPU).

use crate::{Const, DType, IndexExpr, KExpr, Kernel, Stage, Term, Var};

/// Which of a generalized kernel's integers its launch gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeParams {
    /// How many parameters (`s0..`).
    pub count: usize,
    /// For each range, the outer ones then the reduction ones: the parameter it is, if any.
    pub ranges: Vec<Option<u32>>,
}

impl SizeParams {
    /// The parameter range `i` (outer ranges first, then reduction ranges) is, if any.
    pub fn range(&self, i: usize) -> Option<u32> {
        self.ranges.get(i).copied().flatten()
    }
}

/// `a` with every integer in which it differs from `b` a size parameter, and which those are;
/// `None` when they are not the same code (anything but ranges, coefficients and constants
/// differs, or their index expressions have different terms). Names and buffer lengths are
/// ignored (a launch checks lengths against the buffers).
pub fn generalize(a: &Kernel, b: &Kernel) -> Option<(Kernel, SizeParams)> {
    let mut next = Fresh::default();
    same_frame(a, b)?;
    let mut ranges = Vec::new();
    for (x, y) in all_ranges(a).zip(all_ranges(b)) {
        ranges.push((x != y).then(|| next.of(x as i64, y as i64)));
    }
    let mut g = a.clone();
    for (i, ((ea, dt), (eb, _))) in a.values.iter().zip(&b.values).enumerate() {
        g.values[i].0 = match (ea, eb) {
            (KExpr::Const(Const::Int(x)), KExpr::Const(Const::Int(y)))
                if x != y && *dt == DType::I64 =>
            {
                KExpr::Index(IndexExpr::var(Var::size(next.of(*x, *y) as usize)))
            }
            (
                KExpr::Load { arg, index, mask },
                KExpr::Load {
                    arg: arg_b,
                    index: index_b,
                    mask: mask_b,
                },
            ) if arg == arg_b && mask == mask_b => KExpr::Load {
                arg: *arg,
                index: general_index(index, index_b, &mut next)?,
                mask: *mask,
            },
            (KExpr::Index(x), KExpr::Index(y)) => KExpr::Index(general_index(x, y, &mut next)?),
            (x, y) if x == y => x.clone(),
            _ => return None,
        };
    }
    for (si, (sa, sb)) in a.stages.iter().zip(&b.stages).enumerate() {
        same_stage(sa, sb)?;
        for (j, (x, y)) in sa.stores.iter().zip(&sb.stores).enumerate() {
            g.stages[si].stores[j].index = general_index(&x.index, &y.index, &mut next)?;
        }
    }
    Some((
        g,
        SizeParams {
            count: next.next as usize,
            ranges,
        },
    ))
}

/// The parameters' values for which `general` (with `params`, from [`generalize`]) computes
/// what `k` does, or `None` when `k` is not of its code.
pub fn bind(general: &Kernel, params: &SizeParams, k: &Kernel) -> Option<Vec<i64>> {
    same_frame(general, k)?;
    let mut values = vec![None; params.count];
    for (i, (g, x)) in all_ranges(general).zip(all_ranges(k)).enumerate() {
        match params.range(i) {
            Some(p) => set(&mut values, p, x as i64)?,
            None if g == x => {}
            None => return None,
        }
    }
    for ((eg, _), (ek, _)) in general.values.iter().zip(&k.values) {
        match (eg, ek) {
            (KExpr::Index(x), KExpr::Const(Const::Int(c))) => match x.as_var() {
                Some(v) if v.prefix == crate::VarPrefix::S => set(&mut values, v.n, *c)?,
                _ => return None,
            },
            (
                KExpr::Load { arg, index, mask },
                KExpr::Load {
                    arg: arg_k,
                    index: index_k,
                    mask: mask_k,
                },
            ) if arg == arg_k && mask == mask_k => bind_index(index, index_k, &mut values)?,
            (KExpr::Index(x), KExpr::Index(y)) => bind_index(x, y, &mut values)?,
            (x, y) if x == y => {}
            _ => return None,
        }
    }
    for (sg, sk) in general.stages.iter().zip(&k.stages) {
        same_stage(sg, sk)?;
        for (x, y) in sg.stores.iter().zip(&sk.stores) {
            bind_index(&x.index, &y.index, &mut values)?;
        }
    }
    values.into_iter().collect()
}

/// A key kernels of one code share whatever their sizes: the kernel's text with its name, its
/// buffers' names and lengths, its ranges, its index expressions' coefficients and constants,
/// and its `i64` constants left out.
pub fn structure_key(k: &Kernel) -> String {
    let mut s = k.clone();
    s.name.clear();
    s.ranges.iter_mut().for_each(|r| *r = 0);
    s.reduction_ranges.iter_mut().for_each(|r| *r = 0);
    for a in &mut s.args {
        a.name.clear();
        a.len = 0;
    }
    for (e, dt) in &mut s.values {
        match e {
            KExpr::Load { index, .. } | KExpr::Index(index) => *index = blank(index),
            KExpr::Const(Const::Int(c)) if *dt == DType::I64 => *c = 0,
            _ => {}
        }
    }
    for st in s.stages.iter_mut().flat_map(|st| &mut st.stores) {
        st.index = blank(&st.index);
    }
    s.to_string()
}

fn blank(e: &IndexExpr) -> IndexExpr {
    IndexExpr::from_terms(
        e.terms().iter().map(|(t, _)| (blank_term(t), 1)).collect(),
        0,
    )
}

fn blank_term(t: &Term) -> Term {
    match t {
        Term::FloorDiv(e, d) => Term::FloorDiv(Box::new(blank(e)), *d),
        Term::ModularIndexing(e, d, m) => Term::ModularIndexing(Box::new(blank(e)), *d, *m),
        Term::SizeTimes(k, t) => Term::SizeTimes(*k, Box::new(blank_term(t))),
        Term::Var(v) => Term::Var(*v),
    }
}

fn fresh(next: &mut u32) -> u32 {
    *next += 1;
    *next - 1
}

/// The parameters of a generalization: one per pair of values that differ (the integers of
/// the two kernels that differ alike share one, so a stride met twice is one parameter).
#[derive(Default)]
struct Fresh {
    by_pair: std::collections::HashMap<(i64, i64), u32>,
    next: u32,
}

impl Fresh {
    fn of(&mut self, a: i64, b: i64) -> u32 {
        let next = &mut self.next;
        *self.by_pair.entry((a, b)).or_insert_with(|| fresh(next))
    }
}

fn set(values: &mut [Option<i64>], p: u32, v: i64) -> Option<()> {
    let slot = values.get_mut(p as usize)?;
    match slot {
        Some(old) if *old != v => None,
        _ => {
            *slot = Some(v);
            Some(())
        }
    }
}

fn all_ranges(k: &Kernel) -> impl Iterator<Item = usize> + '_ {
    k.ranges.iter().chain(&k.reduction_ranges).copied()
}

/// What must be equal for two kernels to be of one code, besides their values and stores.
fn same_frame(a: &Kernel, b: &Kernel) -> Option<()> {
    let args = a.args.len() == b.args.len()
        && a.args
            .iter()
            .zip(&b.args)
            .all(|(x, y)| x.dtype == y.dtype && x.role == y.role);
    (a.kind == b.kind
        && a.ranges.len() == b.ranges.len()
        && a.reduction_ranges.len() == b.reduction_ranges.len()
        && args
        && a.values.len() == b.values.len()
        && a.values.iter().zip(&b.values).all(|(x, y)| x.1 == y.1)
        && a.stages.len() == b.stages.len())
    .then_some(())
}

/// Two stages alike but for their stores' indices.
fn same_stage(a: &Stage, b: &Stage) -> Option<()> {
    (a.kind == b.kind
        && a.values == b.values
        && a.accumulators == b.accumulators
        && a.stores.len() == b.stores.len()
        && a.stores
            .iter()
            .zip(&b.stores)
            .all(|(x, y)| x.arg == y.arg && x.value == y.value && x.mode == y.mode))
    .then_some(())
}

/// `a` with each coefficient and the constant that differ from `b`'s made a parameter, the
/// terms kept where they are.
fn general_index(a: &IndexExpr, b: &IndexExpr, next: &mut Fresh) -> Option<IndexExpr> {
    if a.terms().len() != b.terms().len() {
        return None;
    }
    let mut terms = Vec::with_capacity(a.terms().len() + 1);
    for ((ta, ca), (tb, cb)) in a.terms().iter().zip(b.terms()) {
        let t = general_term(ta, tb, next)?;
        if ca == cb {
            terms.push((t, *ca));
        } else {
            terms.push((Term::SizeTimes(next.of(*ca, *cb), Box::new(t)), 1));
        }
    }
    let mut constant = a.constant_part();
    if constant != b.constant_part() {
        terms.push((
            Term::Var(Var::size(next.of(constant, b.constant_part()) as usize)),
            1,
        ));
        constant = 0;
    }
    Some(IndexExpr::from_terms(terms, constant))
}

fn general_term(a: &Term, b: &Term, next: &mut Fresh) -> Option<Term> {
    Some(match (a, b) {
        (Term::Var(x), Term::Var(y)) if x == y => Term::Var(*x),
        (Term::FloorDiv(x, d), Term::FloorDiv(y, e)) if d == e => {
            Term::FloorDiv(Box::new(general_index(x, y, next)?), *d)
        }
        (Term::ModularIndexing(x, d, m), Term::ModularIndexing(y, e, n)) if d == e && m == n => {
            Term::ModularIndexing(Box::new(general_index(x, y, next)?), *d, *m)
        }
        _ => return None,
    })
}

/// Reads `k`'s integers at the parameters of `g` (a generalized index) into `values`.
fn bind_index(g: &IndexExpr, k: &IndexExpr, values: &mut [Option<i64>]) -> Option<()> {
    let (gt, kt) = (g.terms(), k.terms());
    let n = kt.len();
    if gt.len() < n {
        return None;
    }
    for ((tg, cg), (tk, ck)) in gt[..n].iter().zip(kt) {
        match tg {
            Term::SizeTimes(p, inner) if *cg == 1 => {
                bind_term(inner, tk, values)?;
                set(values, *p, *ck)?;
            }
            _ if cg == ck => bind_term(tg, tk, values)?,
            _ => return None,
        }
    }
    match &gt[n..] {
        [] if g.constant_part() == k.constant_part() => Some(()),
        [(Term::Var(v), 1)] if v.prefix == crate::VarPrefix::S && g.constant_part() == 0 => {
            set(values, v.n, k.constant_part())
        }
        _ => None,
    }
}

fn bind_term(g: &Term, k: &Term, values: &mut [Option<i64>]) -> Option<()> {
    match (g, k) {
        (Term::Var(x), Term::Var(y)) if x == y => Some(()),
        (Term::FloorDiv(x, d), Term::FloorDiv(y, e)) if d == e => bind_index(x, y, values),
        (Term::ModularIndexing(x, d, m), Term::ModularIndexing(y, e, n)) if d == e && m == n => {
            bind_index(x, y, values)
        }
        _ => None,
    }
}
