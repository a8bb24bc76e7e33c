//! The row cache: a value a later reduction stage recomputes exactly as an earlier one did
//! (softmax's `exp(x - max)`, seed_model's `relu(1.1 x + bias)^2 + ...`) is stored by the
//! earlier stage into a per-row scratch array on the stack and loaded back by the later one,
//! instead of being computed twice. The kernel IR recomputes kernel-local values by design
//! (it has no scratch memory); on the CPU a row of a few thousand elements stays in L1/L2,
//! so a store and a load are cheaper than a transcendental. Results are bit-identical.

use std::collections::HashMap;

use coil_codegen::{ArgRole, KExpr, Kernel, StageKind, ValueId};
use coil_graph::DType;

/// Recomputations cheaper than this (in rough instruction counts) are left alone by default.
pub(crate) const DEFAULT_MIN_COST: u32 = 6;
/// Scratch bytes per kernel invocation (on the stack of the calling thread).
pub(crate) const MAX_SCRATCH_BYTES: usize = 128 * 1024;

/// One cached value: computed by `source` in stage `source_stage`, reloaded for `users`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CachedValue {
    pub(crate) dtype: DType,
    pub(crate) source_stage: usize,
    pub(crate) source: ValueId,
    pub(crate) users: Vec<ValueId>,
}

/// Rough cost of computing one node once.
fn node_cost(e: &KExpr) -> u32 {
    match e {
        KExpr::Const(_) | KExpr::Acc(_) => 0,
        KExpr::Load { .. }
        | KExpr::Index(_)
        | KExpr::Cast(_)
        | KExpr::Bitcast(_)
        | KExpr::Where(..) => 1,
        KExpr::IndirectIndex { .. } | KExpr::Scan { .. } => 4,
        KExpr::Unary(op, _) | KExpr::Binary(op, _, _) => op.cost().weight(),
    }
}

/// Rough per-element compute cost of reduction stage `stage` of `k`, counting the values that
/// `cached` reloads from the row cache as loads.
pub(crate) fn stage_cost(k: &Kernel, stage: usize, cached: &[CachedValue]) -> u32 {
    k.stages[stage]
        .values
        .iter()
        .map(|v| {
            if cached.iter().any(|c| c.users.contains(v)) {
                1
            } else {
                node_cost(k.expr(*v))
            }
        })
        .sum()
}

fn remap(e: &KExpr, class: &HashMap<ValueId, u32>) -> KExpr {
    let c = |v: &ValueId| ValueId(class[v]);
    match e {
        KExpr::Load { arg, index, mask } => KExpr::Load {
            arg: *arg,
            index: index.rename_indirect(&mut |n| class[&ValueId(n as u32)] as usize),
            mask: mask.as_ref().map(c),
        },
        KExpr::Index(index) => {
            KExpr::Index(index.rename_indirect(&mut |n| class[&ValueId(n as u32)] as usize))
        }
        KExpr::IndirectIndex {
            value,
            size,
            wrap_negative,
            flags,
            check,
        } => KExpr::IndirectIndex {
            value: c(value),
            size: *size,
            wrap_negative: *wrap_negative,
            flags: *flags,
            check: *check,
        },
        KExpr::Scan { scan_type, value } => KExpr::Scan {
            scan_type: *scan_type,
            value: c(value),
        },
        KExpr::Const(_) | KExpr::Acc(_) => e.clone(),
        KExpr::Cast(x) => KExpr::Cast(c(x)),
        KExpr::Bitcast(x) => KExpr::Bitcast(c(x)),
        KExpr::Unary(op, x) => KExpr::Unary(*op, c(x)),
        KExpr::Binary(op, a, b) => KExpr::Binary(*op, c(a), c(b)),
        KExpr::Where(x, a, b) => KExpr::Where(c(x), c(a), c(b)),
    }
}

/// Which values of `k` to cache per row.
pub(crate) fn plan(k: &Kernel, min_cost: u32) -> Vec<CachedValue> {
    plan_rows(k, min_cost, k.rnumel())
}

/// Which values of `k` to cache per row, in arrays of `rnumel` elements.
pub(crate) fn plan_rows(k: &Kernel, min_cost: u32, rnumel: usize) -> Vec<CachedValue> {
    let reduction_stages = k
        .stages
        .iter()
        .filter(|s| s.kind == StageKind::Reduction)
        .count();
    // A buffer the kernel both reads and writes could change between the two stages.
    if reduction_stages < 2 || rnumel == 0 || k.args.iter().any(|a| a.role == ArgRole::InOut) {
        return vec![];
    }
    // Structural classes: equal classes compute equal values at the same loop point.
    let mut classes: HashMap<(KExpr, DType), u32> = HashMap::new();
    let mut class: HashMap<ValueId, u32> = HashMap::new();
    let mut cost: HashMap<ValueId, u32> = HashMap::new();
    for s in &k.stages {
        for &v in &s.values {
            let e = k.expr(v);
            let key = (remap(e, &class), k.dtype(v));
            let n = classes.len() as u32;
            class.insert(v, *classes.entry(key).or_insert(n));
            let c = node_cost(e) + e.operands().iter().map(|o| cost[o]).sum::<u32>();
            cost.insert(v, c.min(1 << 20));
        }
    }
    // The first reduction stage computing each class.
    let mut first: HashMap<u32, (usize, ValueId)> = HashMap::new();
    let mut entries: Vec<CachedValue> = vec![];
    let mut by_class: HashMap<u32, usize> = HashMap::new();
    let mut budget = MAX_SCRATCH_BYTES;
    for (si, s) in k.stages.iter().enumerate() {
        if s.kind != StageKind::Reduction {
            continue;
        }
        // Values of this stage an earlier stage computed, worth caching.
        let matched: Vec<ValueId> = s
            .values
            .iter()
            .copied()
            .filter(|v| {
                first.get(&class[v]).is_some_and(|(fs, _)| *fs < si)
                    && cost[v] >= min_cost
                    && k.dtype(*v) != DType::Bool
                    // A checked index is computed where it is used: loads through it read
                    // the emitter's record of it, which a cached copy would not fill.
                    && !matches!(k.expr(*v), KExpr::IndirectIndex { .. })
            })
            .collect();
        // Keep the outermost: skip a value one of whose users is cached too.
        for &v in &matched {
            let used_by_cached = s
                .values
                .iter()
                .any(|u| matched.contains(u) && k.expr(*u).operands().contains(&v));
            if used_by_cached {
                continue;
            }
            let c = class[&v];
            if let Some(&i) = by_class.get(&c) {
                entries[i].users.push(v);
                continue;
            }
            let bytes = rnumel * super::ir::Class::of(k.dtype(v)).bytes();
            if bytes > budget {
                continue;
            }
            budget -= bytes;
            let (fs, src) = first[&c];
            by_class.insert(c, entries.len());
            entries.push(CachedValue {
                dtype: k.dtype(v),
                source_stage: fs,
                source: src,
                users: vec![v],
            });
        }
        for &v in &s.values {
            first.entry(class[&v]).or_insert((si, v));
        }
    }
    entries
}
