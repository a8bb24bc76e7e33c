//! Random graphs (pointwise chains, branches, broadcasts, reductions over random axes, views,
//! cat, matmuls) through every strategy: each live operation is scheduled exactly once, every
//! dependency is respected (so no fused group forms a cycle), kernel-local buffers are read
//! by no other kernel, and running the buffers in the schedule's order through the lowering's
//! interpreter computes what coil-eager computes.

use coil_graph::{Arg, DType, Data, Graph, GraphBuilder, NodeId, Tensor};
use coil_lower::{BufRef, BufferId, LowerConfig, LoweredGraph};
use coil_sched::{
    CppLoops, FusionStrategy, InductorGreedy, InductorScorer, LoopCompat, NoFusion, OpId,
    RegisterPressureScorer, SchedConfig, Schedule, SimdLoops, TvmFuseOps,
};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Step {
    kind: u8,
    a: u32,
    b: u32,
    c: u32,
    d: u32,
}

fn step() -> impl Strategy<Value = Step> {
    (
        0u8..13,
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
    )
        .prop_map(|(kind, a, b, c, d)| Step { kind, a, b, c, d })
}

const UNARY: &[&str] = &[
    "relu.default",
    "neg.default",
    "exp.default",
    "sin.default",
    "tanh.default",
    "sigmoid.default",
    "abs.default",
];
const BINARY: &[&str] = &["add.Tensor", "sub.Tensor", "mul.Tensor", "maximum.default"];

fn n(id: NodeId) -> Arg {
    Arg::Node(id)
}

fn ints(v: &[usize]) -> Arg {
    Arg::List(v.iter().map(|&i| Arg::Int(i as i64)).collect())
}

/// Builds a graph from the steps, skipping steps whose operands do not fit.
fn build(shapes: &[Vec<usize>], steps: &[Step]) -> Graph {
    let mut b = GraphBuilder::new();
    let mut vals: Vec<NodeId> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| b.input(&format!("in{i}"), DType::F32, s))
        .collect();
    for s in steps {
        let pick = |k: u32, vals: &[NodeId]| vals[k as usize % vals.len()];
        let x = pick(s.a, &vals);
        let y = pick(s.b, &vals);
        let xs = b.graph().node(x).meta().sizes.clone();
        let rank = xs.len();
        let r = match s.kind {
            0 | 1 => b.call(UNARY[s.b as usize % UNARY.len()], vec![n(x)]),
            2..=4 => {
                let op = BINARY[s.c as usize % BINARY.len()];
                b.call(op, vec![n(x), n(y)])
                    .or_else(|_| b.call(op, vec![n(x), Arg::Float(0.5 + (s.d % 4) as f64)]))
            }
            5 | 6 if rank > 0 => {
                let dims: Vec<usize> = (0..rank).filter(|i| s.b >> i & 1 == 1).collect();
                let dims = if dims.is_empty() {
                    vec![s.b as usize % rank]
                } else {
                    dims
                };
                let keep = Arg::Bool(s.c & 1 == 1);
                match s.d % 4 {
                    0 => b.call("sum.dim_IntList", vec![n(x), ints(&dims), keep]),
                    1 => b.call("amax.default", vec![n(x), ints(&dims), keep]),
                    2 => b.call("mean.dim", vec![n(x), ints(&dims), keep]),
                    _ => b.call("amin.default", vec![n(x), ints(&dims), keep]),
                }
            }
            7 if rank > 1 => {
                let mut perm: Vec<usize> = (0..rank).collect();
                perm.swap(s.c as usize % rank, s.d as usize % rank);
                b.call("permute.default", vec![n(x), ints(&perm)])
            }
            8 if rank > 0 => {
                let i = s.b as usize % rank;
                let mut new = xs.clone();
                if i + 1 < rank {
                    new[i] *= new[i + 1];
                    new.remove(i + 1);
                } else {
                    new.insert(0, 1);
                }
                b.call("reshape.default", vec![n(x), ints(&new)])
            }
            9 => {
                let mut new = xs.clone();
                new.insert(0, 1 + s.c as usize % 3);
                b.call("expand.default", vec![n(x), ints(&new)])
            }
            10 if rank > 0 => {
                let d = s.c as usize % rank;
                b.call(
                    "cat.default",
                    vec![Arg::List(vec![n(x), n(x)]), Arg::Int(d as i64)],
                )
            }
            11 if rank == 2 => {
                let t = b.call("permute.default", vec![n(x), ints(&[1, 0])]);
                match t {
                    Ok(t) => b.call("mm.default", vec![n(x), n(t)]),
                    Err(e) => Err(e),
                }
            }
            12 if rank > 0 => {
                let d = s.b as usize % rank;
                b.call(
                    "slice.Tensor",
                    vec![
                        n(x),
                        Arg::Int(d as i64),
                        Arg::Int(0),
                        Arg::Int((xs[d] / 2).max(1) as i64),
                    ],
                )
            }
            _ => continue,
        };
        if let Ok(r) = r {
            vals.push(r);
        }
    }
    let last = *vals.last().expect("at least one input");
    let mut outs = vec![last];
    if vals.len() > 2 {
        outs.push(vals[vals.len() / 2]);
    }
    b.finish(&outs).expect("built graphs verify")
}

fn inputs(g: &Graph, seed: u64) -> Vec<Tensor> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    g.inputs()
        .iter()
        .map(|&id| {
            let meta = g.node(id).meta();
            let data = Data::F32(
                (0..meta.numel())
                    .map(|_| (next() * 2.0 - 1.0) as f32)
                    .collect(),
            );
            Tensor::new(data, meta.sizes.clone()).unwrap()
        })
        .collect()
}

fn same(a: &[Tensor], b: &[Tensor]) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{} outputs vs {}", a.len(), b.len()));
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x.sizes() != y.sizes() {
            return Err(format!("output {i}: {:?} vs {:?}", x.sizes(), y.sizes()));
        }
        for (k, (p, q)) in x.to_f64_vec().iter().zip(y.to_f64_vec()).enumerate() {
            let ok =
                (p.is_nan() && q.is_nan()) || *p == q || (p - q).abs() <= 1e-4 + 1e-4 * q.abs();
            if !ok {
                return Err(format!("output {i} element {k}: {p} vs {q}"));
            }
        }
    }
    Ok(())
}

/// The schedule's invariants; returns the buffers in execution order.
fn check(l: &LoweredGraph, s: &Schedule<'_>) -> Result<Vec<BufferId>, String> {
    let mut pos: Vec<Option<(usize, usize)>> = vec![None; l.buffers().len()];
    let mut order = Vec::new();
    for (i, node) in s.nodes().enumerate() {
        for (j, &op) in node.ops().iter().enumerate() {
            if pos[op.index()].replace((i, j)).is_some() {
                return Err(format!("{op} is scheduled twice"));
            }
            if s.node_of(op) != Some(node.id()) {
                return Err(format!("{op} maps to the wrong node"));
            }
            order.push(op.buffer());
        }
    }
    for b in l.buffers() {
        let op = OpId::of_buffer(b.id);
        let removed = s.removed().contains(&op);
        match (pos[op.index()], removed) {
            (None, false) => return Err(format!("{op} is neither scheduled nor removed")),
            (Some(_), true) => return Err(format!("{op} is scheduled and removed")),
            _ => {}
        }
        let Some(at) = pos[op.index()] else { continue };
        for &p in s.preds(op) {
            match pos[p.index()] {
                Some(pa) if pa < at => {}
                _ => return Err(format!("{op} runs before {p}, which it depends on")),
            }
        }
    }
    // Kernel-local buffers are read by no other kernel.
    for k in s.kernels() {
        for &local in &k.local {
            for other in s.kernels().iter().filter(|o| o.node != k.node) {
                if other.reads.contains(&local) {
                    return Err(format!(
                        "{} reads {local:?}, local to {}",
                        other.name, k.name
                    ));
                }
            }
            if let BufRef::Buffer(b) = local
                && s.is_output(b)
            {
                return Err(format!("{b} is returned but local to {}", k.name));
            }
        }
    }
    Ok(order)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_strategy_schedules_soundly(
        shapes in prop::collection::vec(prop::collection::vec(1usize..5, 1..4), 1..3),
        steps in prop::collection::vec(step(), 1..14),
        seed in any::<u64>(),
    ) {
        let g = build(&shapes, &steps);
        let ins = inputs(&g, seed);
        let reference = coil_eager::run(&g, &ins).map_err(|e| TestCaseError::fail(format!("{e}\n{g}")))?.outputs;
        let no_inline = LowerConfig { inline_all: false, ..LowerConfig::cpu() };
        let greedy = InductorGreedy::new(InductorScorer);
        let tight = InductorGreedy::new(RegisterPressureScorer::new(4));
        let tvm = TvmFuseOps::default();
        let cases: Vec<(&str, LowerConfig, SchedConfig, &dyn LoopCompat, &dyn FusionStrategy)> = vec![
            ("inductor cpu", LowerConfig::cpu(), SchedConfig::cpu(), &CppLoops, &greedy),
            ("inductor gpu", LowerConfig::gpu(), SchedConfig::gpu(), &SimdLoops, &greedy),
            ("inductor cpu, no inlining", no_inline.clone(), SchedConfig::cpu(), &CppLoops, &greedy),
            ("inductor gpu, no inlining", no_inline.clone(), SchedConfig::gpu(), &SimdLoops, &greedy),
            ("register pressure", no_inline.clone(), SchedConfig::cpu(), &CppLoops, &tight),
            ("tvm", tvm.lower_config(&LowerConfig::cpu()), SchedConfig::cpu(), &CppLoops, &tvm),
            ("none", LowerConfig::cpu(), SchedConfig::cpu(), &CppLoops, &NoFusion),
        ];
        for (what, lconfig, sconfig, loops, strategy) in cases {
            let l = coil_lower::lower(&g, &lconfig).map_err(|e| TestCaseError::fail(format!("{e}\n{g}")))?;
            let s = coil_sched::schedule(&l, sconfig, loops, strategy)
                .map_err(|e| TestCaseError::fail(format!("{what}: {e}\n{g}")))?;
            let order = check(&l, &s).map_err(|e| {
                TestCaseError::fail(format!("{what}: {e}\n{g}\n{}\n{}", s.ir_post_fusion(), s.fusion_log().join("\n")))
            })?;
            let got = l.evaluate_in_order(&ins, &order)
                .map_err(|e| TestCaseError::fail(format!("{what}: {e}\n{g}\n{}", s.ir_post_fusion())))?;
            if let Err(e) = same(&got, &reference) {
                return Err(TestCaseError::fail(format!("{what}: {e}\n{g}")));
            }
        }
    }
}
