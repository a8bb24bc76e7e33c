//! Row bounds of `exp` arguments. In a reduction kernel, `exp(x - m)` where `m` is an earlier
//! stage's max of the same `x` over the row (softmax, log-softmax, logsumexp) has its argument
//! in `[min - m, 0]`, `min` being the row's min of `x`. [`plan`] adds that min as an
//! accumulator of the max's stage (one more `vminps` per vector, in a loop that waits on
//! memory), and the stage computing the `exp`s is emitted twice, the copy chosen once per row:
//! where `min - m >= -limit` ([`crate::vmath::exp_in_range_limit`]) every argument is within
//! the math library's short path, and that copy's `exp`s skip the per-vector range test and
//! branch ([`crate::VMath::call_exp_in_range`]); any other row (a NaN, an infinity, a spread
//! wider than the limit) runs the ordinary copy. The results are the same bits either way.

use std::collections::{BTreeMap, HashSet};

use coil_codegen::{AccId, Accumulator, ArgId, KExpr, Kernel, StageKind, ValueId};
use coil_graph::DType;
use coil_lower::{IndexExpr, Op, ReductionType};

/// A reduction stage whose `exp`s are bounded per row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BoundedStage {
    /// The stage.
    pub(crate) stage: usize,
    /// `(max, min)` accumulator pairs over the same values: the row's spreads to test.
    pub(crate) spreads: Vec<(AccId, AccId)>,
    /// The stage's `exp` values whose arguments lie within `[min - max, 0]`.
    pub(crate) exps: HashSet<ValueId>,
}

/// A max accumulator over an unmasked float load, in the stage that feeds it.
struct MaxOfLoad {
    arg: ArgId,
    index: IndexExpr,
    stage: usize,
    max: AccId,
    value: ValueId,
    dtype: DType,
}

/// The bounded stages of `k`, and `k` with the min accumulators they test added to the max
/// stages (ids after every id `k` uses). `None` when no stage qualifies.
pub(crate) fn plan(k: &Kernel) -> Option<(Kernel, Vec<BoundedStage>)> {
    let reduction = |s: usize| k.stages[s].kind == StageKind::Reduction;
    // Max accumulators over plain f32/f64 loads, by what they load.
    let mut maxes: Vec<MaxOfLoad> = vec![];
    let mut bounded: Vec<BoundedStage> = vec![];
    // The min accumulator of each max that some stage tests.
    let mut mins: BTreeMap<AccId, Accumulator> = BTreeMap::new();
    let mut next_id = k
        .stages
        .iter()
        .flat_map(|s| &s.accumulators)
        .map(|a| a.id.0 + 1)
        .max()
        .unwrap_or(0);
    for (si, stage) in k.stages.iter().enumerate() {
        if !reduction(si) {
            continue;
        }
        let mut found = BoundedStage {
            stage: si,
            spreads: vec![],
            exps: HashSet::new(),
        };
        for &e in &stage.values {
            let Some(m) = bounded_exp(k, e, &maxes) else {
                continue;
            };
            let min = mins.entry(m.max).or_insert_with(|| {
                let id = AccId(next_id);
                next_id += 1;
                Accumulator {
                    id,
                    reduction_type: ReductionType::Min,
                    value: m.value,
                    dtype: m.dtype,
                }
            });
            if !found.spreads.contains(&(m.max, min.id)) {
                found.spreads.push((m.max, min.id));
            }
            found.exps.insert(e);
        }
        if !found.exps.is_empty() {
            bounded.push(found);
        }
        for acc in &stage.accumulators {
            if let Some((arg, index)) = max_of_load(k, acc) {
                maxes.push(MaxOfLoad {
                    arg,
                    index: index.clone(),
                    stage: si,
                    max: acc.id,
                    value: acc.value,
                    dtype: acc.dtype,
                });
            }
        }
    }
    if bounded.is_empty() {
        return None;
    }
    let mut out = k.clone();
    for (max, min) in mins {
        let stage = maxes
            .iter()
            .find(|m| m.max == max)
            .map(|m| m.stage)
            .expect("every min belongs to a recorded max");
        out.stages[stage].accumulators.push(min);
    }
    Some((out, bounded))
}

/// `(arg, index)` of the load a float max accumulator reduces, when it reduces an unmasked
/// load of its own dtype.
fn max_of_load<'k>(k: &'k Kernel, acc: &Accumulator) -> Option<(ArgId, &'k IndexExpr)> {
    if acc.reduction_type != ReductionType::Max || !matches!(acc.dtype, DType::F32 | DType::F64) {
        return None;
    }
    let (arg, index) = plain_load(k, acc.value)?;
    (k.dtype(acc.value) == acc.dtype).then_some((arg, index))
}

/// `arg[index]` when `v` is an unmasked load.
fn plain_load(k: &Kernel, v: ValueId) -> Option<(ArgId, &IndexExpr)> {
    match k.expr(v) {
        KExpr::Load {
            arg,
            index,
            mask: None,
        } => Some((*arg, index)),
        _ => None,
    }
}

/// The max whose row bounds `e`'s argument, when `e` is `exp(load - acc)` with `acc` a
/// recorded max of the same load, every value in the max's dtype.
fn bounded_exp<'m>(k: &Kernel, e: ValueId, maxes: &'m [MaxOfLoad]) -> Option<&'m MaxOfLoad> {
    let KExpr::Unary(Op::Exp, u) = k.expr(e) else {
        return None;
    };
    let KExpr::Binary(Op::Sub, x, m) = k.expr(*u) else {
        return None;
    };
    let KExpr::Acc(acc) = k.expr(*m) else {
        return None;
    };
    let (arg, index) = plain_load(k, *x)?;
    let found = maxes.iter().find(|m| m.max == *acc)?;
    let same_dtype = [e, *u, *x, *m].iter().all(|&v| k.dtype(v) == found.dtype);
    (found.arg == arg && found.index == *index && same_dtype).then_some(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use coil_codegen::{ArgRole, KernelArg, KernelKind, Stage};

    /// `arg0` of 4 x 8 f32; stage 0 takes the max of `arg0[8 p0 + r0]`, stage 1 computes
    /// `exp(load - acc)` of `exp_arg`'s load and sums it.
    fn kernel(exp_arg: u32, second: ReductionType) -> Kernel {
        let index = IndexExpr::var(coil_lower::Var::p(0))
            .scale(8)
            .add(&IndexExpr::var(coil_lower::Var::p(1)));
        let load = |arg: u32| KExpr::Load {
            arg: ArgId(arg),
            index: index.clone(),
            mask: None,
        };
        let arg = |name: &str| KernelArg {
            name: name.into(),
            dtype: DType::F32,
            len: 32,
            role: ArgRole::Input,
        };
        let f = DType::F32;
        Kernel {
            name: "red_fused_test_0".into(),
            kind: KernelKind::Reduction { persistent: false },
            ranges: vec![4],
            reduction_ranges: vec![8],
            args: vec![arg("x"), arg("y")],
            values: vec![
                (load(0), f),
                (load(exp_arg), f),
                (KExpr::Acc(AccId(0)), f),
                (KExpr::Binary(Op::Sub, ValueId(1), ValueId(2)), f),
                (KExpr::Unary(Op::Exp, ValueId(3)), f),
            ],
            stages: vec![
                Stage {
                    kind: StageKind::Reduction,
                    values: vec![ValueId(0)],
                    accumulators: vec![Accumulator {
                        id: AccId(0),
                        reduction_type: second,
                        value: ValueId(0),
                        dtype: f,
                    }],
                    stores: vec![],
                },
                Stage {
                    kind: StageKind::Reduction,
                    values: vec![ValueId(1), ValueId(2), ValueId(3), ValueId(4)],
                    accumulators: vec![Accumulator {
                        id: AccId(1),
                        reduction_type: ReductionType::Sum,
                        value: ValueId(4),
                        dtype: f,
                    }],
                    stores: vec![],
                },
            ],
        }
    }

    #[test]
    fn exp_of_the_load_less_its_row_max_is_bounded_by_a_new_min() {
        let (out, bounded) = plan(&kernel(0, ReductionType::Max)).expect("bounded");
        assert_eq!(
            bounded,
            vec![BoundedStage {
                stage: 1,
                spreads: vec![(AccId(0), AccId(2))],
                exps: HashSet::from([ValueId(4)]),
            }]
        );
        let min = &out.stages[0].accumulators[1];
        assert_eq!(
            (min.id, min.reduction_type, min.value),
            (AccId(2), ReductionType::Min, ValueId(0))
        );
        assert_eq!(out.stages[1], kernel(0, ReductionType::Max).stages[1]);
    }

    #[test]
    fn other_loads_and_other_reductions_are_not_bounded() {
        // exp of another buffer less x's max, and exp of x less x's min.
        assert!(plan(&kernel(1, ReductionType::Max)).is_none());
        assert!(plan(&kernel(0, ReductionType::Min)).is_none());
    }
}
