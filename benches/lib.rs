//! Shared set-up for coil's criterion benchmarks (the benches themselves are the `[[bench]]`
//! targets beside this file).

pub mod cpu_kernels;

/// The zoo model `name` at article size, parsed.
pub fn article_graph(name: &str) -> coil_graph::Graph {
    coil_models::find(name)
        .and_then(|m| m.graph(coil_models::Size::Article).ok())
        .unwrap_or_else(|| panic!("zoo model {name} parses"))
}

/// A synthetic graph of `blocks` layernorm-like residual blocks over a `[64, 256]` activation,
/// ten ops each (scale, bias, relu, row sum, mean, centre, square, row sum, rsqrt, normalise):
/// with inlining off, about `10 * blocks` scheduler nodes, with vertical, horizontal and
/// reduction-to-pointwise fusion candidates and the intermediate-node refusals of softmax-like
/// chains. The scheduling benchmark times fusion on it.
pub fn synthetic_graph(blocks: usize) -> coil_graph::Graph {
    use coil_graph::{Arg, DType, GraphBuilder};
    let mut b = GraphBuilder::new();
    let mut h = b.input("x", DType::F32, &[64, 256]);
    let n = |id| Arg::Node(id);
    for i in 0..blocks {
        let w = b.input(&format!("w{i}"), DType::F32, &[256]);
        let bias = b.input(&format!("b{i}"), DType::F32, &[256]);
        let dims = Arg::List(vec![Arg::Int(1)]);
        let mut call =
            |op: &str, args: Vec<Arg>| b.call(op, args).expect("the block is well formed");
        let a = call("mul.Tensor", vec![n(h), n(w)]);
        let a = call("add.Tensor", vec![n(a), n(bias)]);
        let a = call("relu.default", vec![n(a)]);
        let s = call("sum.dim_IntList", vec![n(a), dims.clone(), Arg::Bool(true)]);
        let m = call("mul.Tensor", vec![n(s), Arg::Float(1.0 / 256.0)]);
        let c = call("sub.Tensor", vec![n(a), n(m)]);
        let sq = call("mul.Tensor", vec![n(c), n(c)]);
        let v = call("sum.dim_IntList", vec![n(sq), dims, Arg::Bool(true)]);
        let r = call("rsqrt.default", vec![n(v)]);
        h = call("mul.Tensor", vec![n(c), n(r)]);
    }
    b.finish(&[h]).expect("the synthetic graph verifies")
}
