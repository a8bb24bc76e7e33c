//! coil-eager's integration tests: graphs built with `GraphBuilder`, run, and checked against
//! hand-computed values; the zoo and the op cases of `tests/data/ops` against PyTorch's outputs;
//! random graphs against an f64 model.

mod composite;
mod errors;
mod factory;
mod matmul;
mod pointwise;
mod random;
mod reduce;
mod stats;
mod torch_ops;
mod views;
mod zoo;

use coil_eager::EagerRun;
use coil_graph::{Arg, DType, Data, GraphBuilder, NodeId, Tensor};

/// A node argument.
pub(crate) fn n(id: NodeId) -> Arg {
    Arg::Node(id)
}

/// An int-list argument.
pub(crate) fn ints(v: &[i64]) -> Arg {
    Arg::List(v.iter().map(|&i| Arg::Int(i)).collect())
}

pub(crate) fn f32s(v: &[f32], sizes: &[usize]) -> Tensor {
    Tensor::new(Data::F32(v.to_vec()), sizes.to_vec()).unwrap()
}

pub(crate) fn f64s(v: &[f64], sizes: &[usize]) -> Tensor {
    Tensor::new(Data::F64(v.to_vec()), sizes.to_vec()).unwrap()
}

pub(crate) fn i64s(v: &[i64], sizes: &[usize]) -> Tensor {
    Tensor::new(Data::I64(v.to_vec()), sizes.to_vec()).unwrap()
}

pub(crate) fn bools(v: &[bool], sizes: &[usize]) -> Tensor {
    Tensor::new(Data::Bool(v.to_vec()), sizes.to_vec()).unwrap()
}

/// `0, 1, ..., numel - 1` as f32.
pub(crate) fn iota(sizes: &[usize]) -> Tensor {
    let numel: usize = sizes.iter().product();
    f32s(&(0..numel).map(|i| i as f32).collect::<Vec<_>>(), sizes)
}

/// Finishes the graph with `outputs` and runs it.
pub(crate) fn run(b: GraphBuilder, outputs: &[NodeId], inputs: &[Tensor]) -> EagerRun {
    let g = b.finish(outputs).expect("graph verifies");
    coil_eager::run(&g, inputs).expect("graph runs")
}

/// Runs a one-output graph and returns the output.
pub(crate) fn run1(b: GraphBuilder, out: NodeId, inputs: &[Tensor]) -> Tensor {
    run(b, &[out], inputs).outputs.remove(0)
}

/// A graph `op(x, args...)` over one input; returns the output.
pub(crate) fn unary(op: &str, x: Tensor, args: Vec<Arg>, kwargs: Vec<(&str, Arg)>) -> Tensor {
    let mut b = GraphBuilder::new();
    let xi = b.input("x", x.dtype(), x.sizes());
    let mut all = vec![n(xi)];
    all.extend(args);
    let y = b.call_kw(op, all, kwargs).expect("call is valid");
    run1(b, y, &[x])
}

/// A graph `op(x, y)` over two inputs; returns the output.
pub(crate) fn binary(op: &str, x: Tensor, y: Tensor) -> Tensor {
    let mut b = GraphBuilder::new();
    let xi = b.input("x", x.dtype(), x.sizes());
    let yi = b.input("y", y.dtype(), y.sizes());
    let z = b.call(op, vec![n(xi), n(yi)]).expect("call is valid");
    run1(b, z, &[x, y])
}

/// Asserts the dtype, sizes and values (exactly, NaN equal to NaN).
#[track_caller]
pub(crate) fn check(t: &Tensor, dtype: DType, sizes: &[usize], values: &[f64]) {
    assert_eq!(t.dtype(), dtype, "dtype");
    assert_eq!(t.sizes(), sizes, "sizes");
    let got = t.to_f64_vec();
    let same = got.len() == values.len()
        && got
            .iter()
            .zip(values)
            .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()));
    assert!(same, "values: got {got:?}, want {values:?}");
}

/// Asserts the values within an absolute-or-relative tolerance.
#[track_caller]
pub(crate) fn check_close(t: &Tensor, sizes: &[usize], values: &[f64], tol: f64) {
    assert_eq!(t.sizes(), sizes, "sizes");
    let got = t.to_f64_vec();
    assert_eq!(got.len(), values.len());
    for (i, (a, b)) in got.iter().zip(values).enumerate() {
        let ok = a == b || (a - b).abs() <= tol * b.abs().max(1.0) || (a.is_nan() && b.is_nan());
        assert!(ok, "element {i}: got {a}, want {b} (all: {got:?})");
    }
}
