//! Scoring: `FusionScore`'s order (template first, the 16x memory rule, then node type,
//! memory, overlap, proximity), and a scorer that refuses what Inductor fuses.

use coil_lower::LowerConfig;
use coil_sched::{
    CppLoops, FusionScore, FusionScorer, InductorGreedy, InductorScorer, OpId,
    RegisterPressureScorer, SchedConfig, Schedule, estimate_live_values,
};

use crate::common::{inductor_cpu, lower, schedule, zoo};

fn score(t: (i64, i64, i64, i64, i64)) -> FusionScore {
    FusionScore {
        template_score: t.0,
        node_type_score: t.1,
        memory_score: t.2,
        buffer_overlap_score: t.3,
        proximity_score: t.4,
    }
}

#[test]
fn fusion_score_order_is_inductors() {
    let lt = |a, b| score(a).lt(&score(b));
    // Template first, whatever the memory.
    assert!(lt((1, 1, 1 << 30, 0, 0), (2, 0, 1, 0, -100)));
    // More than 16x the memory decides before the node type...
    assert!(lt((2, 1, 100, 0, 0), (2, 0, 1700, 0, -5)));
    // ...within 16x, the node type does.
    assert!(lt((2, 0, 1500, 0, 0), (2, 1, 100, 0, -5)));
    // Then memory, overlap, proximity.
    assert!(lt((2, 1, 100, 0, 0), (2, 1, 200, 0, -9)));
    assert!(lt((1, 0, 0, 3, 0), (1, 0, 0, 5, -9)));
    assert!(lt((2, 1, 100, 0, -2), (2, 1, 100, 0, -1)));
    // A zero memory score loses to any positive one (max > 0 * 16).
    assert!(lt((2, 1, 0, 99, 0), (2, 0, 1, 0, -50)));
    assert_eq!(
        score((2, 0, 5, 0, -1)).partial_cmp(&score((2, 0, 5, 0, -1))),
        Some(std::cmp::Ordering::Equal)
    );
}

#[test]
fn equal_scores_keep_discovery_order() {
    // softmax round 2: both candidates save 4 MiB + 4 KiB; the reduction pair (node type 1)
    // goes first.
    let l = lower(&zoo("softmax"), &LowerConfig::cpu());
    let s = inductor_cpu(&l);
    let i = s
        .fusion_log()
        .iter()
        .position(|l| l == "fusing op0 with op1_op2")
        .unwrap();
    assert_eq!(s.fusion_log()[i + 1], "fusing op0_op1_op2 with op3");
}

/// Four row reductions of one input: Inductor fuses them all (they share x); each keeps an
/// accumulator live through the loop.
const FOUR_REDUCTIONS: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[256, 256]"):
        amax: "f32[256]" = torch.ops.aten.amax.default(x, [1])
        sum_1: "f32[256]" = torch.ops.aten.sum.dim_IntList(x, [1])
        amin: "f32[256]" = torch.ops.aten.amin.default(x, [1])
        mul: "f32[256, 256]" = torch.ops.aten.mul.Tensor(x, x)
        sum_2: "f32[256]" = torch.ops.aten.sum.dim_IntList(mul, [1])
        return (amax, sum_1, amin, sum_2)
"#;

#[test]
fn register_pressure_scorer_refuses_what_inductor_fuses() {
    let l = lower(&crate::common::parse(FOUR_REDUCTIONS), &LowerConfig::cpu());
    assert_eq!(l.buffers().len(), 4);
    let s = Schedule::new(&l, SchedConfig::cpu()).unwrap();
    let ops: Vec<OpId> = l.buffers().iter().map(|b| OpId::of_buffer(b.id)).collect();
    // One load of x and one accumulator per reduction.
    assert_eq!(estimate_live_values(&s, &ops[..1]), 2);
    assert_eq!(estimate_live_values(&s, &ops[..2]), 3);
    assert_eq!(estimate_live_values(&s, &ops), 5);
    assert_eq!(inductor_cpu(&l).num_kernels(), 1);
    let scorer = RegisterPressureScorer::new(3);
    assert_eq!(scorer.name(), "inductor-regpressure");
    let strict = schedule(
        &l,
        SchedConfig::cpu(),
        &CppLoops,
        &InductorGreedy::new(scorer),
    );
    assert_eq!(strict.num_kernels(), 2);
    assert!(
        strict.fusion_log().contains(
            &"cannot fuse op0_op1 with op2: register pressure: the fused body keeps 4 values \
              live, over the budget of 3"
                .to_string()
        ),
        "{:#?}",
        strict.fusion_log()
    );
    // The same scores as Inductor's.
    let (a, b) = (s.order()[0], s.order()[1]);
    assert_eq!(scorer.score(&s, a, b), InductorScorer.score(&s, a, b));
    // On seed_model the default budget changes nothing.
    let l = lower(&zoo("seed_model"), &LowerConfig::cpu());
    let s = schedule(
        &l,
        SchedConfig::cpu(),
        &CppLoops,
        &InductorGreedy::new(RegisterPressureScorer::default()),
    );
    assert_eq!(s.num_kernels(), 1);
}

#[test]
fn live_values_of_a_chain_are_few() {
    // relu(x + 1) * 2 then sin: one load and a running value; never more than 2 live.
    let l = lower(&zoo("chain"), &LowerConfig::cpu());
    let s = Schedule::new(&l, SchedConfig::cpu()).unwrap();
    let n = estimate_live_values(&s, &[OpId::of_buffer(l.buffers()[0].id)]);
    assert!((1..=2).contains(&n), "{n}");
}
