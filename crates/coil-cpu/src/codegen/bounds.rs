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

use coil_codegen::{AccId, Accumulator, ArgId, ArgRole, KExpr, Kernel, StageKind, ValueId};
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

/// The bounded stages of `k` (none among `excluded`: a pipelined late stage runs with another
/// row's accumulators), and `k` with the min accumulators they test added to the max stages
/// (ids after every id `k` declares or reads). `None` when no stage qualifies.
pub(crate) fn plan(k: &Kernel, excluded: &[usize]) -> Option<(Kernel, Vec<BoundedStage>)> {
    // Max accumulators over plain f32/f64 loads of inputs.
    let mut maxes: Vec<MaxOfLoad> = vec![];
    let mut bounded: Vec<BoundedStage> = vec![];
    // The min accumulator of each max that some stage tests, with the max's stage.
    let mut mins: BTreeMap<AccId, (usize, Accumulator)> = BTreeMap::new();
    let declared = k.stages.iter().flat_map(|s| &s.accumulators).map(|a| a.id);
    let read = k.values.iter().filter_map(|(e, _)| match e {
        KExpr::Acc(a) => Some(*a),
        _ => None,
    });
    let mut next_id = declared.chain(read).map(|a| a.0 + 1).max().unwrap_or(0);
    for (si, stage) in k.stages.iter().enumerate() {
        if stage.kind != StageKind::Reduction {
            continue;
        }
        // A stage with a max or min of its own may take the guarded fast form instead of
        // being split ([`super::Emitter`]'s `guarded_stage`): not bounded, to stay simple.
        let has_max_min = stage
            .accumulators
            .iter()
            .any(|a| matches!(a.reduction_type, ReductionType::Max | ReductionType::Min));
        if excluded.contains(&si) || has_max_min {
            record_maxes(k, si, &mut maxes);
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
            let (_, min) = mins.entry(m.max).or_insert_with(|| {
                let id = AccId(next_id);
                next_id += 1;
                let min = Accumulator {
                    id,
                    reduction_type: ReductionType::Min,
                    value: m.value,
                    dtype: m.dtype,
                };
                (m.stage, min)
            });
            if !found.spreads.contains(&(m.max, min.id)) {
                found.spreads.push((m.max, min.id));
            }
            found.exps.insert(e);
        }
        if !found.exps.is_empty() {
            bounded.push(found);
        }
        record_maxes(k, si, &mut maxes);
    }
    if bounded.is_empty() {
        return None;
    }
    let mut out = k.clone();
    for (stage, min) in mins.into_values() {
        out.stages[stage].accumulators.push(min);
    }
    Some((out, bounded))
}

/// Records stage `si`'s max accumulators over plain loads.
fn record_maxes(k: &Kernel, si: usize, maxes: &mut Vec<MaxOfLoad>) {
    for acc in &k.stages[si].accumulators {
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

/// `(arg, index)` of the load a float max accumulator reduces, when it reduces an unmasked
/// load of its own dtype.
fn max_of_load<'k>(k: &'k Kernel, acc: &Accumulator) -> Option<(ArgId, &'k IndexExpr)> {
    if acc.reduction_type != ReductionType::Max || !matches!(acc.dtype, DType::F32 | DType::F64) {
        return None;
    }
    let (arg, index) = plain_load(k, acc.value)?;
    (k.dtype(acc.value) == acc.dtype).then_some((arg, index))
}

/// `arg[index]` when `v` is an unmasked load of a buffer the kernel only reads (a buffer it
/// also writes could change between the max's stage and the `exp`'s).
fn plain_load(k: &Kernel, v: ValueId) -> Option<(ArgId, &IndexExpr)> {
    match k.expr(v) {
        KExpr::Load {
            arg,
            index,
            mask: None,
        } if k.arg(*arg).role == ArgRole::Input => Some((*arg, index)),
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
    use coil_codegen::{KernelArg, KernelKind, Stage};

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
        let (out, bounded) = plan(&kernel(0, ReductionType::Max), &[]).expect("bounded");
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
    fn written_buffers_excluded_stages_and_masked_loads_are_not_bounded() {
        let mut k = kernel(0, ReductionType::Max);
        k.args[0].role = ArgRole::InOut;
        assert!(plan(&k, &[]).is_none(), "x is also written");
        assert!(plan(&kernel(0, ReductionType::Max), &[1]).is_none());
        let mut k = kernel(0, ReductionType::Max);
        k.values
            .push((KExpr::Const(coil_lower::Const::Bool(true)), DType::Bool));
        for v in [0, 1] {
            if let KExpr::Load { mask, .. } = &mut k.values[v].0 {
                *mask = Some(ValueId(5));
            }
        }
        assert!(plan(&k, &[]).is_none(), "masked loads");
    }

    #[test]
    fn two_stages_of_exps_share_one_min_whose_id_follows_every_read_id() {
        let mut k = kernel(0, ReductionType::Max);
        // A third stage with its own exp(load - acc0); acc7 is read (not declared) somewhere.
        let n = k.values.len() as u32;
        k.values.push((k.values[1].0.clone(), DType::F32));
        k.values.push((KExpr::Acc(AccId(0)), DType::F32));
        k.values.push((
            KExpr::Binary(Op::Sub, ValueId(n), ValueId(n + 1)),
            DType::F32,
        ));
        k.values
            .push((KExpr::Unary(Op::Exp, ValueId(n + 2)), DType::F32));
        k.values.push((KExpr::Acc(AccId(7)), DType::F32));
        k.stages.push(Stage {
            kind: StageKind::Reduction,
            values: (n..n + 5).map(ValueId).collect(),
            accumulators: vec![],
            stores: vec![],
        });
        let (out, bounded) = plan(&k, &[]).expect("bounded");
        assert_eq!(bounded.len(), 2);
        assert!(bounded.iter().all(|b| b.spreads == [(AccId(0), AccId(8))]));
        assert_eq!(out.stages[0].accumulators.len(), 2);
        assert_eq!(out.stages[0].accumulators[1].id, AccId(8));
    }

    #[test]
    fn other_loads_and_other_reductions_are_not_bounded() {
        // exp of another buffer less x's max, and exp of x less x's min.
        assert!(plan(&kernel(1, ReductionType::Max), &[]).is_none());
        assert!(plan(&kernel(0, ReductionType::Min), &[]).is_none());
    }
}
