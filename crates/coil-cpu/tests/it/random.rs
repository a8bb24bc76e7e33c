//! Random graphs (pointwise chains, broadcasts, reductions over random axes, views, cat), the
//! same generator as coil-lower's, compiled one kernel per buffer by `CpuBackend` and run
//! against coil-eager.

use coil_graph::{Arg, DType, Data, Graph, GraphBuilder, NodeId, Tensor};
use proptest::prelude::*;

/// One random instruction; its fields pick operands and parameters modulo what fits.
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
        0u8..12,
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
    "abs.default",
    "exp.default",
    "sin.default",
    "cos.default",
    "tanh.default",
    "sigmoid.default",
    "erf.default",
    "gelu.default",
    "silu.default",
    "sqrt.default",
    "log1p.default",
    "rsqrt.default",
];
const BINARY: &[&str] = &[
    "add.Tensor",
    "sub.Tensor",
    "mul.Tensor",
    "div.Tensor",
    "maximum.default",
    "minimum.default",
];

fn n(id: NodeId) -> Arg {
    Arg::Node(id)
}

fn ints(v: &[usize]) -> Arg {
    Arg::List(v.iter().map(|&i| Arg::Int(i as i64)).collect())
}

/// Builds a graph from the steps, skipping steps whose operands do not fit (the builder's
/// inference rejects them).
fn build(shapes: &[(Vec<usize>, bool)], steps: &[Step]) -> Graph {
    let mut b = GraphBuilder::new();
    let mut vals: Vec<NodeId> = shapes
        .iter()
        .enumerate()
        .map(|(i, (s, int))| {
            let dtype = if *int { DType::I64 } else { DType::F32 };
            b.input(&format!("in{i}"), dtype, s)
        })
        .collect();
    for s in steps {
        let pick = |k: u32, vals: &[NodeId]| vals[k as usize % vals.len()];
        let x = pick(s.a, &vals);
        let y = pick(s.b, &vals);
        let xs = b.graph().node(x).meta().sizes.clone();
        let rank = xs.len();
        let is_float = b.graph().node(x).meta().dtype.is_float();
        let r = match s.kind {
            0 => b.call(UNARY[s.b as usize % UNARY.len()], vec![n(x)]),
            1 => {
                let op = BINARY[s.c as usize % BINARY.len()];
                match b.call(op, vec![n(x), n(y)]) {
                    Ok(r) => Ok(r),
                    Err(_) => b.call(op, vec![n(x), Arg::Float(0.5 + (s.d % 4) as f64)]),
                }
            }
            2 => {
                let cond = b
                    .call("gt.Tensor", vec![n(x), n(y)])
                    .or_else(|_| b.call("gt.Scalar", vec![n(x), Arg::Float(0.0)]));
                match cond {
                    Ok(c) => b
                        .call("where.self", vec![n(c), n(x), n(y)])
                        .or_else(|_| b.call("where.self", vec![n(c), n(x), n(x)])),
                    Err(e) => Err(e),
                }
            }
            3 if rank > 0 => {
                let dims: Vec<usize> = (0..rank).filter(|i| s.b >> i & 1 == 1).collect();
                let dims = if dims.is_empty() {
                    vec![s.b as usize % rank]
                } else {
                    dims
                };
                let keep = Arg::Bool(s.c & 1 == 1);
                match s.d % 6 {
                    0 => b.call("sum.dim_IntList", vec![n(x), ints(&dims), keep]),
                    1 => b.call("amax.default", vec![n(x), ints(&dims), keep]),
                    2 => b.call("amin.default", vec![n(x), ints(&dims), keep]),
                    3 => b.call("mean.dim", vec![n(x), ints(&dims), keep]),
                    4 => b.call("argmax.default", vec![n(x), Arg::Int(dims[0] as i64), keep]),
                    _ => b.call("prod.dim_int", vec![n(x), Arg::Int(dims[0] as i64), keep]),
                }
            }
            4 if rank > 1 => {
                // A rotation or a swap of two dims.
                let mut perm: Vec<usize> = (0..rank).collect();
                if s.b & 1 == 0 {
                    perm.rotate_left(1 + s.c as usize % (rank - 1));
                } else {
                    perm.swap(s.c as usize % rank, s.d as usize % rank);
                }
                b.call("permute.default", vec![n(x), ints(&perm)])
            }
            5 if rank > 0 => {
                // Merge two adjacent dims, or split one into two factors.
                let i = s.b as usize % rank;
                let mut new = xs.clone();
                if s.c & 1 == 0 && i + 1 < rank {
                    new[i] *= new[i + 1];
                    new.remove(i + 1);
                } else {
                    let f = (2..=xs[i])
                        .find(|f| xs[i].is_multiple_of(*f) && s.d & 1 == 0)
                        .unwrap_or(1);
                    new[i] = xs[i] / f;
                    new.insert(i + 1, f);
                }
                let op = if s.d & 2 == 0 {
                    "reshape.default"
                } else {
                    "view.default"
                };
                b.call(op, vec![n(x), ints(&new)])
                    .or_else(|_| b.call("reshape.default", vec![n(x), ints(&new)]))
            }
            6 if rank > 0 => {
                let d = s.b as usize % rank;
                let size = xs[d] as i64;
                let start = (s.c as i64) % size.max(1);
                let step = 1 + (s.d as i64 % 2);
                b.call(
                    "slice.Tensor",
                    vec![
                        n(x),
                        Arg::Int(d as i64),
                        Arg::Int(start),
                        Arg::Int(size),
                        Arg::Int(step),
                    ],
                )
            }
            7 => {
                // Broadcast: a new leading dim, or a size-1 dim grown.
                let mut new = xs.clone();
                if let Some(i) = xs.iter().position(|&s| s == 1).filter(|_| s.b & 1 == 0) {
                    new[i] = 2 + s.c as usize % 3;
                } else {
                    new.insert(0, 1 + s.c as usize % 3);
                }
                b.call("expand.default", vec![n(x), ints(&new)])
            }
            8 if rank > 0 => {
                let d = s.c as usize % rank;
                let other = if b
                    .graph()
                    .node(y)
                    .meta()
                    .sizes
                    .iter()
                    .enumerate()
                    .all(|(k, &v)| k == d || xs.get(k) == Some(&v))
                    && b.graph().node(y).meta().sizes.len() == rank
                {
                    y
                } else {
                    x
                };
                b.call(
                    "cat.default",
                    vec![Arg::List(vec![n(x), n(other)]), Arg::Int(d as i64)],
                )
            }
            9 if rank > 0 => match s.b % 4 {
                0 => b.call(
                    "unsqueeze.default",
                    vec![n(x), Arg::Int((s.c as usize % (rank + 1)) as i64)],
                ),
                1 => b.call("squeeze.default", vec![n(x)]),
                2 => b.call(
                    "select.int",
                    vec![
                        n(x),
                        Arg::Int((s.c as usize % rank) as i64),
                        Arg::Int((s.d as usize % xs[s.c as usize % rank].max(1)) as i64),
                    ],
                ),
                _ => b.call(
                    "transpose.int",
                    vec![n(x), Arg::Int(0), Arg::Int((rank - 1) as i64)],
                ),
            },
            10 => b.call_kw("clone.default", vec![n(x)], vec![]),
            11 if is_float => b.call("add.Tensor", vec![n(x), n(x)]),
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

/// Deterministic pseudo-random inputs: floats in [-2, 2), integers in [-3, 3].
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
            let numel = meta.numel();
            let data = if meta.dtype == DType::I64 {
                Data::I64((0..numel).map(|_| (next() * 7.0) as i64 - 3).collect())
            } else {
                Data::F32((0..numel).map(|_| (next() * 4.0 - 2.0) as f32).collect())
            };
            Tensor::new(data, meta.sizes.clone()).unwrap()
        })
        .collect()
}

/// A shape of rank 1 to 3 (dims 1 to 4), and whether the input holds integers.
fn shape() -> impl Strategy<Value = (Vec<usize>, bool)> {
    (
        prop::collection::vec(1usize..5, 1..4),
        prop::bool::weighted(0.2),
    )
}

/// Compares outputs element by element (NaNs equal).
fn same(a: &[Tensor], b: &[Tensor]) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{} outputs vs {}", a.len(), b.len()));
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        crate::driver::check_close(x, y, 1e-4, 1e-4).map_err(|e| format!("output {i}: {e}"))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_graphs_compiled_per_buffer_equal_eager(
        shapes in prop::collection::vec(shape(), 1..3),
        steps in prop::collection::vec(step(), 1..16),
        seed in any::<u64>(),
    ) {
        let g = build(&shapes, &steps);
        let ins = inputs(&g, seed);
        let reference = crate::driver::eager(&g, &ins);
        let l = crate::driver::lower(&g);
        let groups = crate::driver::per_buffer(&l);
        let got = crate::driver::run(crate::driver::backend(), &l, &groups, &ins)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{g}\n{}", l.ir_pre_fusion())))?;
        if let Err(e) = same(&got.outputs, &reference) {
            return Err(TestCaseError::fail(format!("{e}\n{g}\n{}", l.ir_pre_fusion())));
        }
    }
}
