//! Round trips: PyTorch's text -> graph -> text is byte-exact (comments aside), and
//! graph -> text -> graph gives the same graph, for the zoo and for built graphs.

use coil_graph::{
    Arg, DType, DeviceSpec, Graph, GraphBuilder, Layout, MemoryFormat, OpKind, parse, print_graph,
};
use expect_test::expect;

use crate::zoo::{strip_comments, zoo_files};

#[test]
fn every_zoo_file_prints_back_byte_exact() {
    let files = zoo_files();
    // 12 article-size models, 12 tiny ones, 8 large ones.
    assert_eq!(
        files.len(),
        32,
        "{:?}",
        files.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for (name, text) in files {
        let graph = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let printed = print_graph(&graph);
        // The only thing PyTorch writes that we cannot reproduce is the comment line
        // "# No stacktrace found for following nodes" (source locations are not in the graph).
        assert_eq!(printed, strip_comments(&text), "{name}");
        assert_eq!(
            graph.to_string(),
            printed,
            "{name}: Display prints the same"
        );
    }
}

#[test]
fn every_zoo_graph_survives_print_and_parse() {
    for (name, text) in zoo_files() {
        let graph = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let again = parse(&print_graph(&graph)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(again, graph, "{name}");
    }
}

/// Prints, parses back, and checks the graph is unchanged and printing is stable.
fn assert_round_trips(g: &Graph) -> String {
    let text = print_graph(g);
    let back = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(&back, g, "{text}");
    assert_eq!(print_graph(&back), text);
    text
}

#[test]
fn built_graph_with_every_kind_of_argument_round_trips() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[4, 6]);
    let w = b.input("w", DType::F32, &[6]);
    let flag = b.input("flag", DType::Bool, &[]);
    let add = b
        .call_kw(
            "add.Tensor",
            vec![Arg::Node(x), Arg::Node(w)],
            vec![("alpha", Arg::Float(2.5))],
        )
        .unwrap();
    let split = b
        .call(
            "split_with_sizes.default",
            vec![
                Arg::Node(add),
                Arg::List(vec![Arg::Int(2), Arg::Int(4)]),
                Arg::Int(-1),
            ],
        )
        .unwrap();
    let left = b.getitem(split, 0).unwrap();
    let right = b.getitem(split, 1).unwrap();
    let gelu = b
        .call_kw(
            "gelu.default",
            vec![Arg::Node(right)],
            vec![("approximate", Arg::Str("tanh".into()))],
        )
        .unwrap();
    let full = b
        .call_kw(
            "full.default",
            vec![
                Arg::List(vec![Arg::Int(4), Arg::Int(6)]),
                Arg::Float(f64::NAN),
            ],
            vec![
                ("dtype", Arg::DType(DType::F64)),
                ("layout", Arg::Layout(Layout::Strided)),
                (
                    "device",
                    Arg::Device(DeviceSpec {
                        kind: "cuda".into(),
                        index: Some(0),
                    }),
                ),
                ("pin_memory", Arg::Bool(false)),
            ],
        )
        .unwrap();
    let neg_inf = b
        .call_kw(
            "scalar_tensor.default",
            vec![Arg::Float(f64::NEG_INFINITY)],
            vec![
                ("dtype", Arg::DType(DType::F32)),
                (
                    "device",
                    Arg::Device(DeviceSpec {
                        kind: "cpu".into(),
                        index: None,
                    }),
                ),
            ],
        )
        .unwrap();
    let picked = b
        .call(
            "where.self",
            vec![Arg::Node(flag), Arg::Node(left), Arg::Node(neg_inf)],
        )
        .unwrap();
    let clone = b
        .call_kw(
            "clone.default",
            vec![Arg::Node(picked)],
            vec![("memory_format", Arg::MemoryFormat(MemoryFormat::Contiguous))],
        )
        .unwrap();
    let clamp = b
        .call(
            "clamp.default",
            vec![Arg::Node(clone), Arg::None, Arg::Float(f64::INFINITY)],
        )
        .unwrap();
    let cat = b
        .call(
            "cat.default",
            vec![
                Arg::List(vec![Arg::Node(clamp), Arg::Node(gelu)]),
                Arg::Int(1),
            ],
        )
        .unwrap();
    let to64 = b
        .call_kw(
            "_to_copy.default",
            vec![Arg::Node(cat)],
            vec![("dtype", Arg::DType(DType::F64))],
        )
        .unwrap();
    let out = b
        .call("mul.Tensor", vec![Arg::Node(to64), Arg::Node(full)])
        .unwrap();
    let g = b.finish(&[out, x]).unwrap();
    let text = assert_round_trips(&g);
    expect![[r#"
        class GraphModule(torch.nn.Module):
            def forward(self, x: "f32[4, 6]", w: "f32[6]", flag: "b8[]"):
                add: "f32[4, 6]" = torch.ops.aten.add.Tensor(x, w, alpha = 2.5);  w = None
                split_with_sizes = torch.ops.aten.split_with_sizes.default(add, [2, 4], -1);  add = None
                getitem: "f32[4, 2]" = split_with_sizes[0]
                getitem_1: "f32[4, 4]" = split_with_sizes[1];  split_with_sizes = None
                gelu: "f32[4, 4]" = torch.ops.aten.gelu.default(getitem_1, approximate = 'tanh');  getitem_1 = None
                full: "f64[4, 6]" = torch.ops.aten.full.default([4, 6], nan, dtype = torch.float64, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)
                scalar_tensor: "f32[]" = torch.ops.aten.scalar_tensor.default(-inf, dtype = torch.float32, device = device(type='cpu'))
                where: "f32[4, 2]" = torch.ops.aten.where.self(flag, getitem, scalar_tensor);  flag = getitem = scalar_tensor = None
                clone: "f32[4, 2]" = torch.ops.aten.clone.default(where, memory_format = torch.contiguous_format);  where = None
                clamp: "f32[4, 2]" = torch.ops.aten.clamp.default(clone, None, inf);  clone = None
                cat: "f32[4, 6]" = torch.ops.aten.cat.default([clamp, gelu], 1);  clamp = gelu = None
                _to_copy: "f64[4, 6]" = torch.ops.aten._to_copy.default(cat, dtype = torch.float64);  cat = None
                mul: "f64[4, 6]" = torch.ops.aten.mul.Tensor(_to_copy, full);  _to_copy = full = None
                return (mul, x)
    "#]]
    .assert_eq(&text);
}

#[test]
fn strings_in_either_quote_style_read_as_the_same_value() {
    let text = |s: &str| {
        crate::zoo::module(
            r#", x: "f32[3]""#,
            &[
                &format!(r#"gelu: "f32[3]" = torch.ops.aten.gelu.default(x, approximate = {s})"#),
                "return (gelu,)",
            ],
        )
    };
    let single = parse(&text("'tanh'")).unwrap();
    for other in [r#""tanh""#, r"'tanh'", r#""tanh""#] {
        assert_eq!(parse(&text(other)).unwrap(), single, "{other}");
    }
    assert!(assert_round_trips(&single).contains("approximate = 'tanh'"));
}

#[test]
fn every_op_kind_with_default_arguments_round_trips() {
    // One graph per pointwise unary kind that accepts a plain f32 tensor.
    for kind in [
        OpKind::Neg,
        OpKind::Abs,
        OpKind::Exp,
        OpKind::Log,
        OpKind::Log1p,
        OpKind::Sqrt,
        OpKind::Rsqrt,
        OpKind::Sin,
        OpKind::Cos,
        OpKind::Tanh,
        OpKind::Erf,
        OpKind::Sigmoid,
        OpKind::Relu,
        OpKind::Reciprocal,
        OpKind::Gelu,
        OpKind::Silu,
        OpKind::Clone,
        OpKind::Alias,
        OpKind::T,
        OpKind::Squeeze,
    ] {
        let mut b = GraphBuilder::new();
        let x = b.input("x", DType::F32, &[2, 1]);
        let y = b.op(kind, vec![Arg::Node(x)]).unwrap();
        let g = b.finish(&[y]).unwrap();
        assert_round_trips(&g);
    }
}

#[test]
fn dead_values_unused_inputs_and_returned_inputs_round_trip() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[8]);
    let _unused = b.input("unused", DType::I64, &[2, 2]);
    let _dead = b.call("exp.default", vec![Arg::Node(x)]).unwrap();
    let sq = b
        .call("mul.Tensor", vec![Arg::Node(x), Arg::Node(x)])
        .unwrap();
    let s = b
        .call(
            "sum.dim_IntList",
            vec![Arg::Node(sq), Arg::List(vec![Arg::Int(0)]), Arg::Bool(true)],
        )
        .unwrap();
    let var_mean = b
        .call_kw(
            "var_mean.correction",
            vec![Arg::Node(sq), Arg::List(vec![Arg::Int(0)])],
            vec![("correction", Arg::Int(0)), ("keepdim", Arg::Bool(true))],
        )
        .unwrap();
    let mean = b.getitem(var_mean, 1).unwrap();
    let r = b
        .call("sub.Tensor", vec![Arg::Node(s), Arg::Node(mean)])
        .unwrap();
    let g = b.finish(&[r, x, r]).unwrap();
    let text = assert_round_trips(&g);
    expect![[r#"
        class GraphModule(torch.nn.Module):
            def forward(self, x: "f32[8]", unused: "i64[2, 2]"):
                exp: "f32[8]" = torch.ops.aten.exp.default(x);  exp = None
                mul: "f32[8]" = torch.ops.aten.mul.Tensor(x, x)
                sum: "f32[1]" = torch.ops.aten.sum.dim_IntList(mul, [0], True)
                var_mean = torch.ops.aten.var_mean.correction(mul, [0], correction = 0, keepdim = True);  mul = None
                getitem: "f32[1]" = var_mean[1];  var_mean = None
                sub: "f32[1]" = torch.ops.aten.sub.Tensor(sum, getitem);  sum = getitem = None
                return (sub, x, sub)
    "#]]
    .assert_eq(&text);
}

/// The `original_op` annotation is metadata: not printed, not part of equality, and carried
/// through dead-code removal to the surviving nodes.
#[test]
fn original_op_annotation_survives_dce_and_is_not_printed() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]"):
        relu: "f32[4]" = torch.ops.aten.relu.default(x)
        dead: "f32[4]" = torch.ops.aten.neg.default(x)
        sum_1: "f32[]" = torch.ops.aten.sum.default(relu)
        return (sum_1,)
"#;
    let mut g = coil_graph::parse(text).unwrap();
    let sum = g.find("sum_1").unwrap();
    let dead = g.find("dead").unwrap();
    assert_eq!(g.original_op(sum), Some(coil_graph::OpKind::Sum));
    assert_eq!(g.original_op(g.inputs()[0]), None);
    g.set_original_op(sum, coil_graph::OpKind::Mean);
    g.set_original_op(dead, coil_graph::OpKind::Mean);
    assert_eq!(g.original_op(sum), Some(coil_graph::OpKind::Mean));
    assert_eq!(
        coil_graph::print_graph(&g),
        coil_graph::print_graph(&coil_graph::parse(text).unwrap())
    );
    let live = g.without_dead_code();
    assert_eq!(live.len(), 3);
    let sum = live.find("sum_1").unwrap();
    assert_eq!(live.original_op(sum), Some(coil_graph::OpKind::Mean));
    let relu = live.find("relu").unwrap();
    assert_eq!(live.original_op(relu), Some(coil_graph::OpKind::Relu));
}

/// `with_dtype_replaced` retypes inputs, results (multi-output ones included) and `dtype=`
/// arguments of the replaced dtype, and nothing else.
#[test]
fn replacing_f32_by_f64_retypes_values_and_dtype_arguments_only() {
    let text = r#"class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 8]", idx: "i64[4]"):
        full: "f32[4, 8]" = torch.ops.aten.full.default([4, 8], 2.0, dtype = torch.float32, device = device(type='cpu'), pin_memory = False)
        mul: "f32[4, 8]" = torch.ops.aten.mul.Tensor(x, full)
        var_mean = torch.ops.aten.var_mean.correction(mul, [1], correction = 0, keepdim = True)
        getitem: "f32[4, 1]" = var_mean[1];  var_mean = None
        to: "f16[4, 1]" = torch.ops.aten._to_copy.default(getitem, dtype = torch.float16)
        add: "i64[4]" = torch.ops.aten.add.Tensor(idx, 1)
        return (mul, to, add)
"#;
    let g = parse(text).unwrap();
    let promoted = g.with_dtype_replaced(DType::F32, DType::F64);
    expect![[r#"
        class GraphModule(torch.nn.Module):
            def forward(self, x: "f64[4, 8]", idx: "i64[4]"):
                full: "f64[4, 8]" = torch.ops.aten.full.default([4, 8], 2.0, dtype = torch.float64, device = device(type='cpu'), pin_memory = False)
                mul: "f64[4, 8]" = torch.ops.aten.mul.Tensor(x, full);  x = full = None
                var_mean = torch.ops.aten.var_mean.correction(mul, [1], correction = 0, keepdim = True)
                getitem: "f64[4, 1]" = var_mean[1];  var_mean = None
                to: "f16[4, 1]" = torch.ops.aten._to_copy.default(getitem, dtype = torch.float16);  getitem = None
                add: "i64[4]" = torch.ops.aten.add.Tensor(idx, 1);  idx = None
                return (mul, to, add)
    "#]]
    .assert_eq(&print_graph(&promoted));
    // The original is untouched, and replacing back gives it again.
    assert_eq!(
        print_graph(&g),
        print_graph(&promoted.with_dtype_replaced(DType::F64, DType::F32))
    );
}

/// What another front end (coil's torch.compile backend) builds through `call_named` is the
/// graph the parser reads from the same statements: names kept, `_assert_tensor_metadata`
/// checked and dropped, ops outside `aten` refused.
#[test]
fn named_calls_build_what_the_parser_reads() {
    let text = "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[4, 8]\"):\n        \
                relu: \"f32[4, 8]\" = torch.ops.aten.relu.default(x)\n        \
                sum_1: \"f32[4]\" = torch.ops.aten.sum.dim_IntList(relu, [1])\n        \
                return (sum_1,)\n";
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[4, 8]);
    let relu = b
        .call_named("relu", "aten.relu.default", vec![Arg::Node(x)], vec![])
        .unwrap()
        .unwrap();
    let checked = b.call_named(
        "_assert_tensor_metadata_default",
        "aten._assert_tensor_metadata.default",
        vec![Arg::Node(relu)],
        vec![("dtype".into(), Arg::DType(DType::F32))],
    );
    assert_eq!(checked.unwrap(), None);
    let s = b
        .call_named(
            "sum_1",
            "aten.sum.dim_IntList",
            vec![Arg::Node(relu), Arg::List(vec![Arg::Int(1)])],
            vec![],
        )
        .unwrap()
        .unwrap();
    assert_eq!(b.graph().node(s).name, "sum_1");
    let built = b.finish(&[s]).unwrap();
    assert_eq!(built, parse(text).unwrap());

    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[4]);
    for op in ["prims.add.default", "aten.relu", "aten.no_such_op.default"] {
        let e = b
            .call_named("y", op, vec![Arg::Node(x)], vec![])
            .unwrap_err();
        assert!(e.to_string().contains(op), "{op}: {e}");
    }
    let e = b
        .call_named("y", "aten.relu.default", vec![Arg::Int(1)], vec![])
        .unwrap_err();
    assert!(e.to_string().starts_with("y: "), "{e}");
}
