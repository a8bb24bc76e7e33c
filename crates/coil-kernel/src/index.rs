//! Symbolic index expressions (Inductor's sympy indices): sums of coefficient x term plus a
//! constant, where a term is a loop variable, `FloorDiv(e, k)` or `ModularIndexing(e, div, mod)`;
//! with a simplifier that uses the variables' ranges, and sympy-style printing (`1024*p0 + p1`).

use std::cmp::Ordering;
use std::fmt;

/// Which family a variable belongs to: `p` in loop bodies, `d` in dependencies, `ind` for
/// indirect indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VarPrefix {
    /// Loop-body variables (`p0`), and the positional variables of lazy values and views.
    P,
    /// Canonical dependency variables (`d0`), numbered over a buffer's own loop ranges.
    D,
    /// An indirect index (Inductor's `indirect_indexing` symbol): `ind<n>` is the value of the
    /// expression node `n` of the body (or kernel) the index belongs to, an
    /// `Expr::IndirectIndex` of a body ([`crate::KExpr::IndirectIndex`] in kernels),
    /// already checked to lie in `0..size`. Its range is not known to the simplifier.
    Ind,
    /// A kernel's size parameter (`s2`): a number the launch gives (a size, a stride), the same
    /// for the whole launch. Only kernels a backend generalizes over sizes have them
    /// ([`crate::SizeParams`]); the simplifier knows nothing of their values.
    S,
}

/// A loop variable, `p3` or `d1`, or an indirect index `ind4`. Loop variables are always
/// `0 <= v < range`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var {
    /// Its family.
    pub prefix: VarPrefix,
    /// Its number.
    pub n: u32,
}

impl Var {
    /// `p<n>`.
    pub fn p(n: usize) -> Var {
        Var {
            prefix: VarPrefix::P,
            n: n as u32,
        }
    }

    /// `d<n>`.
    pub fn d(n: usize) -> Var {
        Var {
            prefix: VarPrefix::D,
            n: n as u32,
        }
    }

    /// `ind<n>`: the indirect index computed by expression node `n`.
    pub fn indirect(n: usize) -> Var {
        Var {
            prefix: VarPrefix::Ind,
            n: n as u32,
        }
    }

    /// `s<n>`: size parameter `n`.
    pub fn size(n: usize) -> Var {
        Var {
            prefix: VarPrefix::S,
            n: n as u32,
        }
    }

    /// The expression node behind an indirect index (`None` for loop variables).
    pub fn indirect_node(self) -> Option<usize> {
        (self.prefix == VarPrefix::Ind).then_some(self.n as usize)
    }
}

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.prefix {
            VarPrefix::P => write!(f, "p{}", self.n),
            VarPrefix::D => write!(f, "d{}", self.n),
            VarPrefix::Ind => write!(f, "ind{}", self.n),
            VarPrefix::S => write!(f, "s{}", self.n),
        }
    }
}

/// The ranges of the variables an expression lives in: `v` takes the values `0..range`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct VarRanges {
    entries: Vec<(Var, usize)>,
}

impl VarRanges {
    /// Ranges from `(var, range)` pairs.
    pub fn new(entries: Vec<(Var, usize)>) -> VarRanges {
        VarRanges { entries }
    }

    /// `p0..` over `sizes`, one variable per dim (size-1 dims included).
    pub fn positional(sizes: &[usize]) -> VarRanges {
        VarRanges::new(
            sizes
                .iter()
                .enumerate()
                .map(|(i, &s)| (Var::p(i), s))
                .collect(),
        )
    }

    /// The range of `v`, if known.
    pub fn get(&self, v: Var) -> Option<usize> {
        self.entries.iter().find(|(w, _)| *w == v).map(|(_, r)| *r)
    }

    /// The `(var, range)` pairs in order.
    pub fn iter(&self) -> impl Iterator<Item = (Var, usize)> + '_ {
        self.entries.iter().copied()
    }

    /// Number of variables.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no variables.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// One non-constant summand of an [`IndexExpr`] (before its coefficient).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// A loop variable.
    Var(Var),
    /// `floor(e / k)`, `k > 0`; prints `(e//k)`.
    FloorDiv(Box<IndexExpr>, i64),
    /// `floor(e / div) mod m` (Python's non-negative mod), `div, m > 0`.
    ModularIndexing(Box<IndexExpr>, i64, i64),
    /// Size parameter `s<k>` times a term (`s0*p1`): a stride or extent given at launch.
    SizeTimes(u32, Box<Term>),
}

/// A symbolic integer: `sum(coef * term) + constant`, kept canonical (terms sorted, equal terms
/// merged, no zero coefficients), so structural equality is equality of simplified forms.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IndexExpr {
    terms: Vec<(Term, i64)>,
    constant: i64,
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i64::try_from(a).unwrap_or(i64::MAX)
}

/// Bounds beyond which nothing is assumed about a variable of unknown range.
const UNKNOWN: i128 = 1 << 62;

impl IndexExpr {
    /// The constant `c`.
    pub fn constant(c: i64) -> IndexExpr {
        IndexExpr {
            terms: Vec::new(),
            constant: c,
        }
    }

    /// `0`.
    pub fn zero() -> IndexExpr {
        IndexExpr::constant(0)
    }

    /// The variable `v`.
    pub fn var(v: Var) -> IndexExpr {
        IndexExpr {
            terms: vec![(Term::Var(v), 1)],
            constant: 0,
        }
    }

    fn from_parts(mut terms: Vec<(Term, i64)>, constant: i64) -> IndexExpr {
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(Term, i64)> = Vec::with_capacity(terms.len());
        for (t, c) in terms {
            match out.last_mut() {
                Some((last, lc)) if *last == t => *lc = lc.saturating_add(c),
                _ => out.push((t, c)),
            }
        }
        out.retain(|(_, c)| *c != 0);
        IndexExpr {
            terms: out,
            constant,
        }
    }

    fn term(t: Term) -> IndexExpr {
        IndexExpr {
            terms: vec![(t, 1)],
            constant: 0,
        }
    }

    /// The summands other than the constant, in canonical order.
    pub fn terms(&self) -> &[(Term, i64)] {
        &self.terms
    }

    /// The constant summand.
    pub fn constant_part(&self) -> i64 {
        self.constant
    }

    /// The value, when the expression is a constant.
    pub fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// The variable, when the expression is exactly one variable.
    pub fn as_var(&self) -> Option<Var> {
        match (self.terms.as_slice(), self.constant) {
            ([(Term::Var(v), 1)], 0) => Some(*v),
            _ => None,
        }
    }

    /// `self + other`.
    pub fn add(&self, other: &IndexExpr) -> IndexExpr {
        let mut terms = self.terms.clone();
        terms.extend(other.terms.iter().cloned());
        IndexExpr::from_parts(terms, self.constant.saturating_add(other.constant))
    }

    /// `self + c`.
    pub fn add_constant(&self, c: i64) -> IndexExpr {
        IndexExpr {
            terms: self.terms.clone(),
            constant: self.constant.saturating_add(c),
        }
    }

    /// `k * self`.
    pub fn scale(&self, k: i64) -> IndexExpr {
        if k == 0 {
            return IndexExpr::zero();
        }
        IndexExpr {
            terms: self
                .terms
                .iter()
                .map(|(t, c)| (t.clone(), c.saturating_mul(k)))
                .collect(),
            constant: self.constant.saturating_mul(k),
        }
    }

    /// `FloorDiv(self, d)` (`d > 0`), folded when constant; call [`IndexExpr::simplify`] for more.
    /// `d <= 0` comes only from a dimension of size 0, whose index is never evaluated: 0.
    pub fn floor_div(&self, d: i64) -> IndexExpr {
        match self.as_constant() {
            _ if d <= 0 => IndexExpr::zero(),
            _ if d == 1 => self.clone(),
            Some(c) => IndexExpr::constant(c.div_euclid(d)),
            None => IndexExpr::term(Term::FloorDiv(Box::new(self.clone()), d)),
        }
    }

    /// `ModularIndexing(self, div, m)` (`div, m > 0`), folded when constant. `div` or `m` of 0
    /// comes only from a dimension of size 0, whose index is never evaluated: 0.
    pub fn modular(&self, div: i64, m: i64) -> IndexExpr {
        match self.as_constant() {
            _ if div <= 0 || m <= 0 => IndexExpr::zero(),
            Some(c) => IndexExpr::constant(c.div_euclid(div).rem_euclid(m)),
            None => IndexExpr::term(Term::ModularIndexing(Box::new(self.clone()), div, m)),
        }
    }

    /// The coefficient of the bare variable `v` (0 when absent).
    pub fn coefficient(&self, v: Var) -> i64 {
        self.terms
            .iter()
            .find(|(t, _)| *t == Term::Var(v))
            .map_or(0, |(_, c)| *c)
    }

    /// `(coefficients of bare variables, constant)` when the expression is affine (no
    /// `FloorDiv`/`ModularIndexing`).
    pub fn as_affine(&self) -> Option<(Vec<(Var, i64)>, i64)> {
        self.terms
            .iter()
            .map(|(t, c)| match t {
                Term::Var(v) => Some((*v, *c)),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .map(|v| (v, self.constant))
    }

    /// Every variable the expression mentions, sorted, without repeats.
    pub fn vars(&self) -> Vec<Var> {
        let mut out = Vec::new();
        self.collect_vars(&mut out);
        out.sort();
        out.dedup();
        out
    }

    /// The expression nodes of the indirect indices it uses (`ind<n>`), in order.
    pub fn indirect_nodes(&self) -> Vec<usize> {
        self.vars()
            .into_iter()
            .filter_map(Var::indirect_node)
            .collect()
    }

    /// Renumbers its indirect indices (`ind<n>` becomes `ind<f(n)>`), loop variables kept.
    pub fn rename_indirect(&self, f: &mut impl FnMut(usize) -> usize) -> IndexExpr {
        self.subst(&mut |v| {
            v.indirect_node()
                .map(|n| IndexExpr::var(Var::indirect(f(n))))
        })
    }

    fn collect_vars(&self, out: &mut Vec<Var>) {
        for (t, _) in &self.terms {
            t.collect_vars(out);
        }
    }

    /// True when `v` occurs in the expression.
    pub fn contains_var(&self, v: Var) -> bool {
        self.terms.iter().any(|(t, _)| t.contains_var(v))
    }

    /// `s<k> * self`: every summand times size parameter `k` (the constant becomes `c*s<k>`).
    pub fn times_size(&self, k: u32) -> IndexExpr {
        let mut terms: Vec<(Term, i64)> = self
            .terms
            .iter()
            .map(|(t, c)| (Term::SizeTimes(k, Box::new(t.clone())), *c))
            .collect();
        if self.constant != 0 {
            terms.push((Term::Var(Var::size(k as usize)), self.constant));
        }
        IndexExpr::from_parts(terms, 0)
    }

    /// The expression with its summands exactly as given, in that order (not canonical: the
    /// generalized kernels of [`crate::SizeParams`] keep a concrete kernel's term positions).
    pub fn from_terms(terms: Vec<(Term, i64)>, constant: i64) -> IndexExpr {
        IndexExpr { terms, constant }
    }

    /// Replaces variables simultaneously (`f` returns `None` to keep a variable). The result
    /// is canonical but not simplified.
    pub fn subst(&self, f: &mut impl FnMut(Var) -> Option<IndexExpr>) -> IndexExpr {
        let mut out = IndexExpr::constant(self.constant);
        for (t, c) in &self.terms {
            out = out.add(&t.subst(f).scale(*c));
        }
        out
    }

    /// Renames variables (a substitution by variables).
    pub fn rename(&self, f: &mut impl FnMut(Var) -> Var) -> IndexExpr {
        self.subst(&mut |v| Some(IndexExpr::var(f(v))))
    }

    /// The value at a point (`FloorDiv` floors, `ModularIndexing` is non-negative, as in Python).
    pub fn eval(&self, value_of: &impl Fn(Var) -> i64) -> i64 {
        let mut acc = self.constant;
        for (t, c) in &self.terms {
            acc = acc.wrapping_add(c.wrapping_mul(t.eval(value_of)));
        }
        acc
    }

    /// Inclusive bounds of the value over the ranges (variables of unknown range are assumed
    /// to be within +-2^62).
    pub fn bounds(&self, ranges: &VarRanges) -> (i128, i128) {
        let (mut lo, mut hi) = (self.constant as i128, self.constant as i128);
        for (t, c) in &self.terms {
            let (tl, th) = term_bounds(t, ranges);
            let c = *c as i128;
            if c >= 0 {
                lo += c * tl;
                hi += c * th;
            } else {
                lo += c * th;
                hi += c * tl;
            }
        }
        (lo, hi)
    }

    /// Simplifies with the variables' ranges: size-1 variables become 0, divisible summands
    /// leave `FloorDiv`/`ModularIndexing`, operations that cannot change the value disappear,
    /// and the div/mod pairs a reshape produces join back (`1024*(p0//1024) +
    /// ModularIndexing(p0, 1, 1024)` is `p0`).
    pub fn simplify(&self, ranges: &VarRanges) -> IndexExpr {
        let mut acc = IndexExpr::constant(self.constant);
        for (t, c) in &self.terms {
            let e = match t {
                Term::Var(v) => match ranges.get(*v) {
                    Some(1) => IndexExpr::zero(),
                    _ => IndexExpr::var(*v),
                },
                Term::FloorDiv(e, d) => floor_div_simplified(e.simplify(ranges), *d, ranges),
                Term::ModularIndexing(e, d, m) => {
                    modular_simplified(e.simplify(ranges), *d, *m, ranges)
                }
                Term::SizeTimes(k, t) => IndexExpr {
                    terms: vec![((**t).clone(), 1)],
                    constant: 0,
                }
                .simplify(ranges)
                .times_size(*k),
            };
            acc = acc.add(&e.scale(*c));
        }
        join_div_mod(acc, ranges)
    }

    /// Divides every coefficient and the constant by `g` (which must divide them all).
    fn divide_exact(&self, g: i64) -> IndexExpr {
        IndexExpr {
            terms: self.terms.iter().map(|(t, c)| (t.clone(), c / g)).collect(),
            constant: self.constant / g,
        }
    }

    fn content_gcd(&self) -> i64 {
        self.terms
            .iter()
            .fold(self.constant, |g, (_, c)| gcd(g, *c))
    }
}

fn term_bounds(t: &Term, ranges: &VarRanges) -> (i128, i128) {
    match t {
        Term::Var(v) => match ranges.get(*v) {
            Some(r) => (0, (r.max(1) - 1) as i128),
            None => (-UNKNOWN, UNKNOWN),
        },
        Term::FloorDiv(e, d) => {
            let (lo, hi) = e.bounds(ranges);
            let d = *d as i128;
            (lo.div_euclid(d), hi.div_euclid(d))
        }
        Term::ModularIndexing(e, d, m) => {
            let (lo, hi) = e.bounds(ranges);
            let d = *d as i128;
            let (flo, fhi) = (lo.div_euclid(d), hi.div_euclid(d));
            if flo >= 0 && fhi < *m as i128 {
                (flo, fhi)
            } else {
                (0, *m as i128 - 1)
            }
        }
        // A size parameter's value is not known.
        Term::SizeTimes(..) => (-UNKNOWN, UNKNOWN),
    }
}

impl Term {
    fn collect_vars(&self, out: &mut Vec<Var>) {
        match self {
            Term::Var(v) => out.push(*v),
            Term::FloorDiv(e, _) | Term::ModularIndexing(e, _, _) => e.collect_vars(out),
            Term::SizeTimes(k, t) => {
                out.push(Var::size(*k as usize));
                t.collect_vars(out);
            }
        }
    }

    /// True when `v` occurs in the term.
    pub fn contains_var(&self, v: Var) -> bool {
        match self {
            Term::Var(w) => *w == v,
            Term::FloorDiv(e, _) | Term::ModularIndexing(e, _, _) => e.contains_var(v),
            Term::SizeTimes(k, t) => v == Var::size(*k as usize) || t.contains_var(v),
        }
    }

    /// The term's value at a point (size parameters are variables `s<k>` of `value_of`).
    pub fn eval(&self, value_of: &impl Fn(Var) -> i64) -> i64 {
        match self {
            Term::Var(v) => value_of(*v),
            Term::FloorDiv(e, d) => e.eval(value_of).div_euclid(*d),
            Term::ModularIndexing(e, d, m) => e.eval(value_of).div_euclid(*d).rem_euclid(*m),
            Term::SizeTimes(k, t) => {
                value_of(Var::size(*k as usize)).wrapping_mul(t.eval(value_of))
            }
        }
    }

    fn subst(&self, f: &mut impl FnMut(Var) -> Option<IndexExpr>) -> IndexExpr {
        match self {
            Term::Var(v) => f(*v).unwrap_or_else(|| IndexExpr::var(*v)),
            Term::FloorDiv(e, d) => e.subst(f).floor_div(*d),
            Term::ModularIndexing(e, d, m) => e.subst(f).modular(*d, *m),
            Term::SizeTimes(k, t) => t.subst(f).times_size(*k),
        }
    }
}

/// Splits `e` into `g * big + small` with `0 <= small < g`, `g > 1` dividing `d`, taking `big`
/// from the summands with the largest coefficients. Then `floor(e / d) = floor(big / (d/g))`.
fn split_small_remainder(e: &IndexExpr, d: i64, ranges: &VarRanges) -> Option<(IndexExpr, i64)> {
    let mut order: Vec<usize> = (0..e.terms.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(e.terms[i].1.unsigned_abs()));
    let mut g = 0i64;
    for k in 0..order.len() {
        g = gcd(g, e.terms[order[k]].1);
        if g <= 1 {
            return None;
        }
        if d % g != 0 {
            continue;
        }
        let big: Vec<(Term, i64)> = order[..=k]
            .iter()
            .map(|&i| (e.terms[i].0.clone(), e.terms[i].1 / g))
            .collect();
        let small = IndexExpr::from_parts(
            order[k + 1..].iter().map(|&i| e.terms[i].clone()).collect(),
            e.constant,
        );
        let (lo, hi) = small.bounds(ranges);
        if lo >= 0 && hi < g as i128 {
            return Some((IndexExpr::from_parts(big, 0), g));
        }
    }
    None
}

/// `FloorDiv(e, d)` for a simplified `e`, simplified.
fn floor_div_simplified(e: IndexExpr, d: i64, ranges: &VarRanges) -> IndexExpr {
    if d <= 0 {
        return IndexExpr::zero(); // a size-0 dimension's index: never evaluated
    }
    if d == 1 {
        return e;
    }
    if let Some(c) = e.as_constant() {
        return IndexExpr::constant(c.div_euclid(d));
    }
    // floor(g*x / (g*y)) = floor(x / y).
    let g = gcd(e.content_gcd(), d);
    if g > 1 {
        return floor_div_simplified(e.divide_exact(g), d / g, ranges);
    }
    // floor((d*q + r) / d) = q + floor(r / d).
    let mut quotient = IndexExpr::constant(e.constant.div_euclid(d));
    let mut rest_terms = Vec::new();
    for (t, c) in &e.terms {
        if c % d == 0 {
            quotient = quotient.add(&IndexExpr::term(t.clone()).scale(c / d));
        } else {
            rest_terms.push((t.clone(), *c));
        }
    }
    let rest = IndexExpr::from_parts(rest_terms, e.constant.rem_euclid(d));
    if rest.terms.is_empty() {
        return quotient.add_constant(rest.constant.div_euclid(d));
    }
    // floor(floor(x / a) / b) = floor(x / (a*b)).
    if let ([(Term::FloorDiv(inner, a), 1)], 0) = (rest.terms.as_slice(), rest.constant) {
        return quotient.add(&floor_div_simplified(
            (**inner).clone(),
            a.saturating_mul(d),
            ranges,
        ));
    }
    let (lo, hi) = rest.bounds(ranges);
    let (qlo, qhi) = (lo.div_euclid(d as i128), hi.div_euclid(d as i128));
    if qlo == qhi {
        return quotient.add_constant(qlo as i64);
    }
    if let Some((big, g)) = split_small_remainder(&rest, d, ranges) {
        return quotient.add(&floor_div_simplified(big, d / g, ranges));
    }
    quotient.add(&IndexExpr::term(Term::FloorDiv(Box::new(rest), d)))
}

/// `ModularIndexing(e, d, m)` for a simplified `e`, simplified.
fn modular_simplified(e: IndexExpr, d: i64, m: i64, ranges: &VarRanges) -> IndexExpr {
    if m == 1 || m <= 0 || d <= 0 {
        return IndexExpr::zero(); // m <= 0 or d <= 0: a size-0 dimension's, never evaluated
    }
    let dm = d.saturating_mul(m);
    // Summands that are multiples of d*m do not change floor(e/d) mod m.
    let e = IndexExpr::from_parts(
        e.terms.into_iter().filter(|(_, c)| c % dm != 0).collect(),
        e.constant.rem_euclid(dm),
    );
    if let Some(c) = e.as_constant() {
        return IndexExpr::constant(c.div_euclid(d).rem_euclid(m));
    }
    let g = gcd(e.content_gcd(), d);
    if g > 1 {
        return modular_simplified(e.divide_exact(g), d / g, m, ranges);
    }
    if let ([(Term::FloorDiv(inner, a), 1)], 0) = (e.terms.as_slice(), e.constant) {
        return modular_simplified((**inner).clone(), a.saturating_mul(d), m, ranges);
    }
    if let Some((big, g)) = split_small_remainder(&e, d, ranges) {
        return modular_simplified(big, d / g, m, ranges);
    }
    let quotient = floor_div_simplified(e.clone(), d, ranges);
    let (lo, hi) = quotient.bounds(ranges);
    if lo >= 0 && hi < m as i128 {
        return quotient;
    }
    IndexExpr::term(Term::ModularIndexing(Box::new(e), d, m))
}

/// Joins the pairs a reshape leaves behind:
/// `a*ModularIndexing(e, d, m) + a*m*FloorDiv(e, d*m) = a*FloorDiv(e, d)` and
/// `a*ModularIndexing(e, d, m) + a*m*ModularIndexing(e, d*m, n) = a*ModularIndexing(e, d, m*n)`
/// (both exact for every integer `e`).
fn join_div_mod(mut e: IndexExpr, ranges: &VarRanges) -> IndexExpr {
    'again: loop {
        for i in 0..e.terms.len() {
            let (Term::ModularIndexing(inner, d, m), a) = &e.terms[i] else {
                continue;
            };
            let want = a.saturating_mul(*m);
            let dm = d.saturating_mul(*m);
            for j in 0..e.terms.len() {
                if j == i || e.terms[j].1 != want {
                    continue;
                }
                let joined = match &e.terms[j].0 {
                    Term::FloorDiv(inner2, d2) if inner2 == inner && *d2 == dm => {
                        floor_div_simplified((**inner).clone(), *d, ranges)
                    }
                    Term::ModularIndexing(inner2, d2, n) if inner2 == inner && *d2 == dm => {
                        modular_simplified((**inner).clone(), *d, m.saturating_mul(*n), ranges)
                    }
                    _ => continue,
                };
                let a = *a;
                let rest: Vec<(Term, i64)> = e
                    .terms
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != i && *k != j)
                    .map(|(_, t)| t.clone())
                    .collect();
                e = IndexExpr::from_parts(rest, e.constant).add(&joined.scale(a));
                continue 'again;
            }
        }
        return e;
    }
}

impl PartialEq<i64> for IndexExpr {
    fn eq(&self, other: &i64) -> bool {
        self.as_constant() == Some(*other)
    }
}

/// Orders terms for printing: variables by number, then the rest structurally.
fn print_order(a: &(Term, i64), b: &(Term, i64)) -> Ordering {
    a.0.cmp(&b.0)
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Var(v) => write!(f, "{v}"),
            Term::FloorDiv(e, d) => {
                if e.as_var().is_some() {
                    write!(f, "({e}//{d})")
                } else {
                    write!(f, "(({e})//{d})")
                }
            }
            Term::ModularIndexing(e, d, m) => write!(f, "ModularIndexing({e}, {d}, {m})"),
            Term::SizeTimes(k, t) => write!(f, "s{k}*{t}"),
        }
    }
}

/// sympy's spelling: `1024*p0 + p1`, `p0 - 3`, `-p1 + 7`, `64*(p0//16)`.
impl fmt::Display for IndexExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return write!(f, "{}", self.constant);
        }
        let mut terms: Vec<&(Term, i64)> = self.terms.iter().collect();
        terms.sort_by(|a, b| print_order(a, b));
        for (i, (t, c)) in terms.into_iter().enumerate() {
            let mag = c.unsigned_abs();
            match (i, *c < 0) {
                (0, false) => {}
                (0, true) => f.write_str("-")?,
                (_, false) => f.write_str(" + ")?,
                (_, true) => f.write_str(" - ")?,
            }
            if mag != 1 {
                write!(f, "{mag}*")?;
            }
            write!(f, "{t}")?;
        }
        match self.constant.cmp(&0) {
            Ordering::Greater => write!(f, " + {}", self.constant),
            Ordering::Less => write!(f, " - {}", self.constant.unsigned_abs()),
            Ordering::Equal => Ok(()),
        }
    }
}

#[cfg(test)]
#[path = "index_tests.rs"]
mod tests;
