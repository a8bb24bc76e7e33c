//! Random graphs for property tests: pointwise chains and branches, broadcasts, `where`,
//! reductions over random axes, views (permute, reshape/view, slice, expand, cat, unsqueeze,
//! squeeze, select, transpose), clones and matmuls, on f32 and i64 inputs. One generator for
//! every crate that checks a stage against coil-eager; [`GraphConfig`] says what to draw.

use std::fmt;
use std::ops::Range;

use coil_graph::{Arg, DType, Data, Graph, GraphBuilder, NodeId, Tensor};
use proptest::prelude::*;

/// A family of ops a random step may add. Each step picks one of the configured families
/// (uniformly), then its operands and parameters; steps whose operands do not fit the op are
/// skipped (the builder's inference rejects them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpFamily {
    /// One of [`UNARY`] (relu, exp, erf, gelu, rsqrt, ...).
    Unary,
    /// One of [`BINARY`] on two values (broadcasting), or on a value and a scalar.
    Binary,
    /// `where(x > y, x, y)` (or against a scalar 0, or `where(c, x, x)`).
    Where,
    /// sum, amax, amin, mean over a random set of dims; argmax, prod over one dim; keepdim
    /// or not.
    Reduce,
    /// A rotation of the dims or a swap of two.
    Permute,
    /// `reshape`/`view`: two adjacent dims merged, one split into two factors (or a trailing
    /// 1 added), or a leading 1 added.
    Reshape,
    /// `slice` from a random start to the end with step 1 or 2, or the first half.
    Slice,
    /// `expand`: a size-1 dim grown or a new leading dim.
    Expand,
    /// `cat` of a value with another of fitting shape (or with itself) along a random dim.
    Cat,
    /// unsqueeze, squeeze, select, or transpose of the first and last dims.
    SmallViews,
    /// `clone` (a copy the passes and the lowering must see through).
    Clone,
    /// `x + x` on floats (one operand read twice).
    SelfAdd,
    /// `mm` of a rank-2 float value with another of fitting shape, or with its own transpose.
    Matmul,
    /// `cumsum` or `cumprod` along a random dim (negative or not).
    Scan,
    /// `avg_pool2d`, `max_pool2d_with_indices` (kernel 1 or 2, stride 1 or 2, padding 0 or 1)
    /// on rank-3 and -4 floats, or `constant_pad_nd` with pads in -1..=1.
    Window,
    /// Reads at computed indices: `gather` / `index_select` / `index.Tensor` along a random
    /// dim, the indices being an `argmax` along that dim (so they are in range), or
    /// `embedding` of a 2-D float value by the `argmax` over its rows.
    Gather,
    /// `flip` of a random set of dims, or `roll` by -2..=2 along a random dim.
    Moves,
}

impl OpFamily {
    /// Every family.
    pub const ALL: [OpFamily; 17] = [
        OpFamily::Unary,
        OpFamily::Binary,
        OpFamily::Where,
        OpFamily::Reduce,
        OpFamily::Permute,
        OpFamily::Reshape,
        OpFamily::Slice,
        OpFamily::Expand,
        OpFamily::Cat,
        OpFamily::SmallViews,
        OpFamily::Clone,
        OpFamily::SelfAdd,
        OpFamily::Matmul,
        OpFamily::Scan,
        OpFamily::Window,
        OpFamily::Gather,
        OpFamily::Moves,
    ];
}

/// The unary ops [`OpFamily::Unary`] draws from.
pub const UNARY: &[&str] = &[
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

/// The binary ops [`OpFamily::Binary`] draws from.
pub const BINARY: &[&str] = &[
    "add.Tensor",
    "sub.Tensor",
    "mul.Tensor",
    "div.Tensor",
    "maximum.default",
    "minimum.default",
];

/// What [`random_graph`] draws. `Default` is everything: every family, 1 to 2 inputs of rank
/// 1 to 3 with dims 1 to 4 (one in five of them i64), 1 to 15 steps.
#[derive(Clone, Debug)]
pub struct GraphConfig {
    /// The op families steps draw from (uniformly; list one twice to weight it).
    pub families: Vec<OpFamily>,
    /// How many graph inputs.
    pub inputs: Range<usize>,
    /// How many random steps (each adds at most one node).
    pub steps: Range<usize>,
    /// Each input's rank.
    pub rank: Range<usize>,
    /// Each input dim's size.
    pub dim: Range<usize>,
    /// The probability that an input holds i64 rather than f32.
    pub int_inputs: f64,
}

impl Default for GraphConfig {
    fn default() -> GraphConfig {
        GraphConfig {
            families: OpFamily::ALL.to_vec(),
            inputs: 1..3,
            steps: 1..16,
            rank: 1..4,
            dim: 1..5,
            int_inputs: 0.2,
        }
    }
}

/// A random graph and inputs for it (floats in [-2, 2), integers in [-3, 3]). Its `Debug`
/// is the graph's text, so a failing case prints readably.
#[derive(Clone)]
pub struct RandomGraph {
    /// The graph; it returns its last value and, with more than two values, a middle one.
    pub graph: Graph,
    /// One tensor per graph input.
    pub inputs: Vec<Tensor>,
}

impl fmt::Debug for RandomGraph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\n{}", self.graph)
    }
}

/// Random graphs as `config` says, with deterministic inputs drawn from a random seed.
/// Shrinking shrinks the inputs' shapes, the steps and the seed.
pub fn random_graph(config: &GraphConfig) -> impl Strategy<Value = RandomGraph> + use<> {
    assert!(
        !config.families.is_empty(),
        "a random graph needs an op family"
    );
    let shape = (
        prop::collection::vec(config.dim.clone(), config.rank.clone()),
        prop::bool::weighted(config.int_inputs),
    );
    let step = (
        prop::sample::select(config.families.clone()),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
    )
        .prop_map(|(family, a, b, c, d)| Step { family, a, b, c, d });
    (
        prop::collection::vec(shape, config.inputs.clone()),
        prop::collection::vec(step, config.steps.clone()),
        any::<u64>(),
    )
        .prop_map(|(shapes, steps, seed)| {
            let graph = build(&shapes, &steps);
            let inputs = inputs(&graph, seed);
            RandomGraph { graph, inputs }
        })
}

/// One random instruction; its fields pick operands and parameters modulo what fits.
#[derive(Clone, Debug)]
struct Step {
    family: OpFamily,
    a: u32,
    b: u32,
    c: u32,
    d: u32,
}

fn n(id: NodeId) -> Arg {
    Arg::Node(id)
}

fn ints(v: &[usize]) -> Arg {
    Arg::List(v.iter().map(|&i| Arg::Int(i as i64)).collect())
}

/// Builds a graph from the steps, skipping steps whose operands do not fit.
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
        let ys = b.graph().node(y).meta().sizes.clone();
        let rank = xs.len();
        let is_float = b.graph().node(x).meta().dtype.is_float();
        let r = match s.family {
            OpFamily::Unary => {
                let op = UNARY[s.b as usize % UNARY.len()];
                // sin and cos of a large argument turn one ulp of it (an f32 gemm against an
                // f64 one) into any result in [-1, 1]; bounding the argument keeps them
                // well-conditioned, so the comparisons need no looser tolerance.
                if matches!(op, "sin.default" | "cos.default") && is_float {
                    match b.call("tanh.default", vec![n(x)]) {
                        Ok(t) => b.call(op, vec![n(t)]),
                        Err(e) => Err(e),
                    }
                } else {
                    b.call(op, vec![n(x)])
                }
            }
            OpFamily::Binary => {
                let op = BINARY[s.c as usize % BINARY.len()];
                b.call(op, vec![n(x), n(y)])
                    .or_else(|_| b.call(op, vec![n(x), Arg::Float(0.5 + (s.d % 4) as f64)]))
            }
            OpFamily::Where => {
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
            OpFamily::Reduce if rank > 0 => {
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
            OpFamily::Permute if rank > 1 => {
                let mut perm: Vec<usize> = (0..rank).collect();
                if s.b & 1 == 0 {
                    perm.rotate_left(1 + s.c as usize % (rank - 1));
                } else {
                    perm.swap(s.c as usize % rank, s.d as usize % rank);
                }
                b.call("permute.default", vec![n(x), ints(&perm)])
            }
            OpFamily::Reshape if rank > 0 => {
                let i = s.b as usize % rank;
                let mut new = xs.clone();
                if s.c % 4 == 3 {
                    // A leading 1.
                    new.insert(0, 1);
                } else if s.c & 1 == 0 && i + 1 < rank {
                    // Two adjacent dims merged.
                    new[i] *= new[i + 1];
                    new.remove(i + 1);
                } else {
                    // One dim split into two factors, or a 1 after it.
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
            OpFamily::Slice if rank > 0 => {
                let d = s.b as usize % rank;
                let size = xs[d] as i64;
                if s.d & 2 == 0 {
                    // From a random start to the end, step 1 or 2.
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
                } else {
                    // The first half (at least one element), the step left to its default.
                    b.call(
                        "slice.Tensor",
                        vec![
                            n(x),
                            Arg::Int(d as i64),
                            Arg::Int(0),
                            Arg::Int((size / 2).max(1)),
                        ],
                    )
                }
            }
            OpFamily::Expand => {
                let mut new = xs.clone();
                if let Some(i) = xs.iter().position(|&s| s == 1).filter(|_| s.b & 1 == 0) {
                    new[i] = 2 + s.c as usize % 3;
                } else {
                    new.insert(0, 1 + s.c as usize % 3);
                }
                b.call("expand.default", vec![n(x), ints(&new)])
            }
            OpFamily::Cat if rank > 0 => {
                let d = s.c as usize % rank;
                let fits = ys.len() == rank
                    && ys
                        .iter()
                        .enumerate()
                        .all(|(k, &v)| k == d || xs.get(k) == Some(&v));
                let other = if fits { y } else { x };
                b.call(
                    "cat.default",
                    vec![Arg::List(vec![n(x), n(other)]), Arg::Int(d as i64)],
                )
            }
            OpFamily::SmallViews if rank > 0 => match s.b % 4 {
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
            OpFamily::Clone => b.call_kw("clone.default", vec![n(x)], vec![]),
            OpFamily::SelfAdd if is_float => b.call("add.Tensor", vec![n(x), n(x)]),
            OpFamily::Matmul if rank == 2 && is_float => {
                let y_fits = ys.len() == 2
                    && ys[0] == xs[1]
                    && b.graph().node(y).meta().dtype == DType::F32
                    && s.c & 1 == 0;
                if y_fits {
                    b.call("mm.default", vec![n(x), n(y)])
                } else {
                    match b.call("permute.default", vec![n(x), ints(&[1, 0])]) {
                        Ok(t) => b.call("mm.default", vec![n(x), n(t)]),
                        Err(e) => Err(e),
                    }
                }
            }
            OpFamily::Scan if rank > 0 => {
                let op = if s.c & 1 == 0 {
                    "cumsum.default"
                } else {
                    "cumprod.default"
                };
                let d = (s.d as usize % rank) as i64 - if s.b & 1 == 1 { rank as i64 } else { 0 };
                b.call(op, vec![n(x), Arg::Int(d)])
            }
            OpFamily::Window if rank > 0 => {
                let choice = s.b % 3;
                if choice < 2 && is_float && rank >= 3 {
                    let k = 1 + (s.c & 1) as i64;
                    let st = 1 + (s.c >> 1 & 1) as i64;
                    let pad = if k == 2 { (s.c >> 2 & 1) as i64 } else { 0 };
                    let l = |v: i64| Arg::List(vec![Arg::Int(v), Arg::Int(v)]);
                    if choice == 0 {
                        b.call("avg_pool2d.default", vec![n(x), l(k), l(st), l(pad)])
                    } else {
                        match b.call(
                            "max_pool2d_with_indices.default",
                            vec![n(x), l(k), l(st), l(pad)],
                        ) {
                            Ok(p) => b.getitem(p, 0),
                            Err(e) => Err(e),
                        }
                    }
                } else {
                    // Pads in -1..=1 per side of the last (up to) two dims; a crop that would
                    // empty a non-empty dim is dropped (empty dims come from the inputs only).
                    let mut pads = Vec::new();
                    for k in 0..rank.min(2) {
                        let size = xs[rank - 1 - k] as i64;
                        let mut p: Vec<i64> = (0..2)
                            .map(|j| ((s.d >> (2 * (2 * k + j))) % 3) as i64 - 1)
                            .collect();
                        if size > 0 && size + p[0] + p[1] < 1 {
                            p.iter_mut().for_each(|v| *v = (*v).max(0));
                        }
                        pads.extend(p.into_iter().map(Arg::Int));
                    }
                    b.call(
                        "constant_pad_nd.default",
                        vec![n(x), Arg::List(pads), Arg::Float(0.5)],
                    )
                }
            }
            OpFamily::Gather if rank == 2 && is_float && s.d % 4 == 0 => {
                // embedding(x, argmax(x, 0)): the row indices are in range by construction.
                match b.call("argmax.default", vec![n(x), Arg::Int(0), Arg::Bool(false)]) {
                    Ok(ids) => b.call("embedding.default", vec![n(x), n(ids)]),
                    Err(e) => Err(e),
                }
            }
            OpFamily::Gather if rank > 0 => {
                let d = s.c as usize % rank;
                match b.call(
                    "argmax.default",
                    vec![n(x), Arg::Int(d as i64), Arg::Bool(true)],
                ) {
                    Err(e) => Err(e),
                    Ok(idx) => match s.b % 3 {
                        0 => b.call("gather.default", vec![n(x), Arg::Int(d as i64), n(idx)]),
                        k => match b.call(
                            "reshape.default",
                            vec![n(idx), Arg::List(vec![Arg::Int(-1)])],
                        ) {
                            Err(e) => Err(e),
                            Ok(flat) if k == 1 => b.call(
                                "index_select.default",
                                vec![n(x), Arg::Int(d as i64), n(flat)],
                            ),
                            Ok(flat) => {
                                let mut list = vec![Arg::None; d];
                                list.push(n(flat));
                                b.call("index.Tensor", vec![n(x), Arg::List(list)])
                            }
                        },
                    },
                }
            }
            OpFamily::Moves if rank > 0 => {
                if s.b & 1 == 0 {
                    let dims: Vec<usize> = (0..rank).filter(|i| s.c >> i & 1 == 1).collect();
                    b.call("flip.default", vec![n(x), ints(&dims)])
                } else {
                    let shift = (s.c % 5) as i64 - 2;
                    let d = s.d as usize % rank;
                    b.call(
                        "roll.default",
                        vec![
                            n(x),
                            Arg::List(vec![Arg::Int(shift)]),
                            Arg::List(vec![Arg::Int(d as i64)]),
                        ],
                    )
                }
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

/// Deterministic pseudo-random inputs for `g` (from [`crate::Rng`]'s stream of `seed`): floats
/// in [-2, 2), integers in [-3, 3].
pub fn inputs(g: &Graph, seed: u64) -> Vec<Tensor> {
    let mut rng = crate::Rng::new(seed);
    let mut next = move || rng.unit();
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
            Tensor::new(data, meta.sizes.clone()).expect("sizes fit the data")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    use super::*;

    /// The default config draws every op of the union the crates' old generators covered,
    /// and i64 inputs.
    #[test]
    fn the_default_config_draws_every_op() {
        let strategy = random_graph(&GraphConfig::default());
        let mut runner = TestRunner::deterministic();
        let mut text = String::new();
        for _ in 0..2000 {
            let case = strategy.new_tree(&mut runner).expect("draws").current();
            text.push_str(&case.graph.to_string());
        }
        let views = [
            "gt.Tensor",
            "gt.Scalar",
            "where.self",
            "sum.dim_IntList",
            "amax.default",
            "amin.default",
            "mean.dim",
            "argmax.default",
            "prod.dim_int",
            "permute.default",
            "reshape.default",
            "view.default",
            "slice.Tensor",
            "expand.default",
            "cat.default",
            "unsqueeze.default",
            "squeeze.default",
            "select.int",
            "transpose.int",
            "clone.default",
            "mm.default",
        ];
        for op in UNARY.iter().chain(BINARY).chain(&views) {
            assert!(text.contains(&format!("aten.{op}(")), "{op} never drawn");
        }
        assert!(text.contains("i64["), "no i64 input drawn");
    }
}
