//! Every lowering, checked against coil-eager under every lowering config: factories, casts,
//! comparisons and logic, reductions (var, argmin, prod, ...), views, cat, and extern matmuls
//! with viewed operands.

use coil_graph::{Arg, DType, Data, Graph, GraphBuilder, NodeId, Tensor};
use coil_lower::{BufferKind, LowerConfig};

use crate::common::{assert_close, reference};

fn n(id: NodeId) -> Arg {
    Arg::Node(id)
}

fn ints(v: &[i64]) -> Arg {
    Arg::List(v.iter().map(|&i| Arg::Int(i)).collect())
}

/// Deterministic inputs: floats in [-2, 2), ints in [-3, 3], bools fair coins.
fn inputs(g: &Graph) -> Vec<Tensor> {
    let mut rng = coil_testkit::Rng::new(1);
    let mut next = move || rng.unit();
    g.inputs()
        .iter()
        .map(|&id| {
            let m = g.node(id).meta();
            let k = m.numel();
            let data = match m.dtype {
                DType::Bool => Data::Bool((0..k).map(|_| next() < 0.5).collect()),
                DType::I64 => Data::I64((0..k).map(|_| (next() * 7.0) as i64 - 3).collect()),
                DType::I32 => Data::I32((0..k).map(|_| (next() * 7.0) as i32 - 3).collect()),
                d => Data::from_f64(d, (0..k).map(|_| next() * 4.0 - 2.0)),
            };
            Tensor::new(data, m.sizes.clone()).unwrap()
        })
        .collect()
}

/// Builds a graph, lowers it with every config, and compares the interpreter with coil-eager.
fn check(what: &str, build: impl FnOnce(&mut GraphBuilder) -> Vec<NodeId>) -> Graph {
    let mut b = GraphBuilder::new();
    let outs = build(&mut b);
    let g = b.finish(&outs).unwrap();
    let ins = inputs(&g);
    let want = reference(&g, &ins);
    for config in [
        LowerConfig::gpu(),
        LowerConfig::cpu(),
        LowerConfig {
            inline_all: false,
            ..LowerConfig::gpu()
        },
    ] {
        let l = coil_lower::lower(&g, &config).unwrap_or_else(|e| panic!("{what}: {e}\n{g}"));
        let got = l.evaluate(&ins).unwrap_or_else(|e| panic!("{what}: {e}"));
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            // Half types differ by an ulp where rounding happens at another step.
            let tol = if matches!(b.dtype(), DType::F16 | DType::BF16) {
                2e-3
            } else {
                1e-5
            };
            assert_close(&format!("{what} output {i}"), a, b, tol, tol);
        }
    }
    g
}

#[test]
fn factories() {
    check("arange/full/scalar_tensor", |b| {
        let a = b
            .call(
                "arange.start_step",
                vec![Arg::Int(2), Arg::Int(20), Arg::Int(3)],
            )
            .unwrap();
        let f = b
            .call(
                "arange.start_step",
                vec![Arg::Float(0.5), Arg::Float(3.0), Arg::Float(0.25)],
            )
            .unwrap();
        let full = b
            .call("full.default", vec![ints(&[2, 3]), Arg::Float(1.5)])
            .unwrap();
        let s = b
            .call("scalar_tensor.default", vec![Arg::Float(-4.0)])
            .unwrap();
        let x = b.input("x", DType::F32, &[2, 3]);
        let c = b_gt(b, x);
        let w = b.call("where.self", vec![n(c), n(s), n(full)]).unwrap();
        vec![a, f, w]
    });
}

fn b_gt(b: &mut GraphBuilder, x: NodeId) -> NodeId {
    b.call("gt.Scalar", vec![n(x), Arg::Float(0.0)]).unwrap()
}

#[test]
fn casts_comparisons_and_logic() {
    check("casts", |b| {
        let x = b.input("x", DType::F32, &[3, 4]);
        let i = b.input("i", DType::I64, &[4]);
        let m = b.input("m", DType::Bool, &[3, 4]);
        let to_i = b
            .call_kw(
                "_to_copy.default",
                vec![n(x)],
                vec![("dtype", Arg::DType(DType::I64))],
            )
            .unwrap();
        let to_b = b
            .call_kw(
                "_to_copy.default",
                vec![n(x)],
                vec![("dtype", Arg::DType(DType::Bool))],
            )
            .unwrap();
        let to_h = b
            .call_kw(
                "_to_copy.default",
                vec![n(x)],
                vec![("dtype", Arg::DType(DType::F16))],
            )
            .unwrap();
        let mixed = b.call("add.Tensor", vec![n(x), n(i)]).unwrap();
        let idiv = b.call("div.Tensor", vec![n(i), Arg::Int(2)]).unwrap();
        let fdiv = b
            .call_kw(
                "div.Tensor_mode",
                vec![n(x), n(i)],
                vec![("rounding_mode", Arg::Str("floor".into()))],
            )
            .unwrap();
        let tdiv = b
            .call_kw(
                "div.Scalar_mode",
                vec![n(i), Arg::Int(2)],
                vec![("rounding_mode", Arg::Str("trunc".into()))],
            )
            .unwrap();
        let eq = b.call("eq.Scalar", vec![n(i), Arg::Int(1)]).unwrap();
        let le = b.call("le.Tensor", vec![n(x), n(i)]).unwrap();
        let ne = b.call("ne.Tensor", vec![n(m), n(to_b)]).unwrap();
        let and = b.call("logical_and.default", vec![n(eq), n(m)]).unwrap();
        let or = b.call("logical_or.default", vec![n(le), n(x)]).unwrap();
        let not = b.call("logical_not.default", vec![n(i)]).unwrap();
        let bnot = b.call("bitwise_not.default", vec![n(m)]).unwrap();
        let inot = b.call("bitwise_not.default", vec![n(i)]).unwrap();
        let sub = b
            .call_kw(
                "sub.Tensor",
                vec![n(i), n(to_i)],
                vec![("alpha", Arg::Int(3))],
            )
            .unwrap();
        let bsum = b.call("sum.default", vec![n(m)]).unwrap();
        vec![
            to_i, to_b, to_h, mixed, idiv, fdiv, tdiv, ne, and, or, not, bnot, inot, sub, bsum,
        ]
    });
}

#[test]
fn unary_binary_and_clamp() {
    check("math", |b| {
        let x = b.input("x", DType::F32, &[2, 5]);
        let y = b.input("y", DType::F32, &[5]);
        let mut outs = Vec::new();
        for op in [
            "abs.default",
            "log.default",
            "reciprocal.default",
            "rsqrt.default",
            "sigmoid.default",
            "silu.default",
        ] {
            outs.push(b.call(op, vec![n(x)]).unwrap());
        }
        outs.push(
            b.call_kw(
                "gelu.default",
                vec![n(x)],
                vec![("approximate", Arg::Str("tanh".into()))],
            )
            .unwrap(),
        );
        outs.push(
            b.call("pow.Tensor_Scalar", vec![n(x), Arg::Int(3)])
                .unwrap(),
        );
        outs.push(b.call("pow.Tensor_Tensor", vec![n(x), n(y)]).unwrap());
        outs.push(b.call("pow.Scalar", vec![Arg::Float(2.0), n(x)]).unwrap());
        outs.push(
            b.call(
                "clamp.default",
                vec![n(x), Arg::Float(-0.5), Arg::Float(0.7)],
            )
            .unwrap(),
        );
        outs.push(b.call("clamp.Tensor", vec![n(x), n(y)]).unwrap());
        let c = b_gt(b, x);
        outs.push(
            b.call("where.ScalarOther", vec![n(c), n(y), Arg::Float(0.0)])
                .unwrap(),
        );
        outs
    });
}

#[test]
fn reductions() {
    check("reductions", |b| {
        let x = b.input("x", DType::F32, &[3, 4, 5]);
        let i = b.input("i", DType::I64, &[3, 4]);
        vec![
            b.call("var.correction", vec![n(x), ints(&[1])]).unwrap(),
            b.call(
                "var.dim",
                vec![n(x), ints(&[0, 2]), Arg::Bool(false), Arg::Bool(true)],
            )
            .unwrap(),
            b.call("var.default", vec![n(x)]).unwrap(),
            b.call("argmin.default", vec![n(x), Arg::Int(1)]).unwrap(),
            b.call("argmax.default", vec![n(x), Arg::None, Arg::Bool(true)])
                .unwrap(),
            b.call("argmax.default", vec![n(i)]).unwrap(),
            b.call("prod.dim_int", vec![n(x), Arg::Int(2), Arg::Bool(true)])
                .unwrap(),
            b.call("prod.default", vec![n(i)]).unwrap(),
            b.call("amin.default", vec![n(x), ints(&[0, 1])]).unwrap(),
            b.call("mean.default", vec![n(x)]).unwrap(),
            b.call("sum.dim_IntList", vec![n(i), ints(&[0])]).unwrap(),
            b.call("sum.dim_IntList", vec![n(x), ints(&[-1]), Arg::Bool(true)])
                .unwrap(),
        ]
    });
    check("var_mean", |b| {
        let x = b.input("x", DType::F32, &[4, 6]);
        let vm = b
            .call("var_mean.correction", vec![n(x), ints(&[1])])
            .unwrap();
        let v = b.getitem(vm, 0).unwrap();
        let m = b.getitem(vm, 1).unwrap();
        let h = b
            .call_kw(
                "_to_copy.default",
                vec![n(x)],
                vec![("dtype", Arg::DType(DType::F16))],
            )
            .unwrap();
        let hm = b.call("mean.dim", vec![n(h), ints(&[1])]).unwrap();
        vec![v, m, hm]
    });
}

#[test]
fn views_split_and_cat() {
    check("views", |b| {
        let x = b.input("x", DType::F32, &[2, 3, 4]);
        let e = b.input("e", DType::F32, &[0]);
        let sp = b
            .call(
                "split_with_sizes.default",
                vec![n(x), ints(&[1, 3]), Arg::Int(-1)],
            )
            .unwrap();
        let s0 = b.getitem(sp, 0).unwrap();
        let s1 = b.getitem(sp, 1).unwrap();
        let cat = b
            .call(
                "cat.default",
                vec![Arg::List(vec![n(s1), n(e), n(s0), n(s1)]), Arg::Int(2)],
            )
            .unwrap();
        let sel = b
            .call("select.int", vec![n(x), Arg::Int(1), Arg::Int(-1)])
            .unwrap();
        let un = b
            .call("unsqueeze.default", vec![n(sel), Arg::Int(1)])
            .unwrap();
        let ex = b
            .call("expand.default", vec![n(un), ints(&[2, 5, 4])])
            .unwrap();
        let rs = b
            .call("reshape.default", vec![n(ex), ints(&[10, 4])])
            .unwrap();
        let sq = b.call("squeeze.dim", vec![n(un), Arg::Int(1)]).unwrap();
        let al = b.call("alias.default", vec![n(sq)]).unwrap();
        let tr = b
            .call("transpose.int", vec![n(x), Arg::Int(0), Arg::Int(2)])
            .unwrap();
        let rt = b
            .call("reshape.default", vec![n(tr), ints(&[4, 6])])
            .unwrap();
        let sl = b
            .call(
                "slice.Tensor",
                vec![n(rt), Arg::Int(1), Arg::Int(-5), Arg::Int(100), Arg::Int(2)],
            )
            .unwrap();
        let cl = b.call("clone.default", vec![n(sl)]).unwrap();
        vec![cat, rs, al, rt, cl]
    });
}

#[test]
fn extern_matmuls_read_views_of_buffers() {
    let g = check("matmuls", |b| {
        let x = b.input("x", DType::F32, &[4, 3]);
        let w = b.input("w", DType::F32, &[5, 3]);
        let bias = b.input("bias", DType::F32, &[5]);
        let q = b.input("q", DType::F32, &[2, 3, 4]);
        let wt = b.call("t.default", vec![n(w)]).unwrap();
        let mm = b.call("mm.default", vec![n(x), n(wt)]).unwrap();
        let am = b
            .call_kw(
                "addmm.default",
                vec![n(bias), n(x), n(wt)],
                vec![("beta", Arg::Float(0.5)), ("alpha", Arg::Int(2))],
            )
            .unwrap();
        // A reshape of a transpose of a lazy value: not strided, so a copy buffer feeds bmm.
        let e = b.call("exp.default", vec![n(q)]).unwrap();
        let p = b
            .call("permute.default", vec![n(e), ints(&[0, 2, 1])])
            .unwrap();
        let r = b
            .call("reshape.default", vec![n(p), ints(&[2, 3, 4])])
            .unwrap();
        let qt = b
            .call("transpose.int", vec![n(q), Arg::Int(1), Arg::Int(2)])
            .unwrap();
        let bmm = b.call("bmm.default", vec![n(r), n(qt)]).unwrap();
        vec![mm, am, bmm]
    });
    let l = crate::common::lower(&g);
    let externs: Vec<_> = l
        .buffers()
        .iter()
        .filter_map(|b| match &b.kind {
            BufferKind::Extern(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(externs.len(), 3);
    // mm reads `w` through its transpose.
    assert_eq!(externs[0].inputs[1].layout.strides, [1, 3]);
    // bmm's first operand is a contiguous copy, its second a strided view of `q`.
    assert_eq!(externs[2].inputs[0].layout.strides, [12, 4, 1]);
    assert_eq!(externs[2].inputs[1].layout.strides, [12, 1, 4]);
}
