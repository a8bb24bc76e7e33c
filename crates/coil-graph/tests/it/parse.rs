//! Parsing: what the parser builds from PyTorch's text and from the forms of the subset that
//! PyTorch itself does not print but a person might write.

use coil_graph::{Arg, DType, DeviceSpec, Graph, Layout, MemoryFormat, NodeKind, parse};
use expect_test::expect;

use crate::zoo::module;

/// One line per node: name, kind, outputs.
fn summary(g: &Graph) -> String {
    let mut out = String::new();
    for (_, node) in g.nodes() {
        let kind = match &node.kind {
            NodeKind::Input => "input".to_string(),
            NodeKind::Call(c) => c.op.to_string(),
            NodeKind::GetItem { source, index } => format!("{}[{index}]", g.node(*source).name),
        };
        let metas: Vec<String> = node.outputs.iter().map(|m| m.to_string()).collect();
        out.push_str(&format!("{} = {kind} -> {}\n", node.name, metas.join(", ")));
    }
    let outs: Vec<&str> = g
        .outputs()
        .iter()
        .map(|&o| g.node(o).name.as_str())
        .collect();
    out.push_str(&format!("outputs {}\n", outs.join(", ")));
    out
}

fn call_of<'g>(g: &'g Graph, name: &str) -> &'g coil_graph::Call {
    match &g.node(g.find(name).expect("node exists")).kind {
        NodeKind::Call(c) => c,
        other => panic!("{name} is {other:?}"),
    }
}

#[test]
fn seed_model_parses_with_inferred_metas() {
    let g = parse(include_str!("../../../coil-models/models/seed_model.py")).unwrap();
    expect![[r#"
        x = input -> f32[1024, 1024]
        bias = input -> f32[1024]
        gamma = input -> f32[1024]
        beta = input -> f32[1024]
        mul = aten.mul.Tensor -> f32[1024, 1024]
        add = aten.add.Tensor -> f32[1024, 1024]
        relu = aten.relu.default -> f32[1024, 1024]
        mul_1 = aten.mul.Tensor -> f32[1024, 1024]
        mul_2 = aten.mul.Tensor -> f32[1024, 1024]
        add_1 = aten.add.Tensor -> f32[1024, 1024]
        mean = aten.mean.dim -> f32[1024, 1]
        sub = aten.sub.Tensor -> f32[1024, 1024]
        mul_3 = aten.mul.Tensor -> f32[1024, 1024]
        add_2 = aten.add.Tensor -> f32[1024, 1024]
        outputs add_2
    "#]]
    .assert_eq(&summary(&g));
    assert_eq!(call_of(&g, "mul").args[1], Arg::Float(1.1));
    assert_eq!(
        call_of(&g, "mean").args[1..],
        [Arg::List(vec![Arg::Int(1)]), Arg::Bool(true)]
    );
}

#[test]
fn transformer_block_arguments_have_their_types() {
    let text = include_str!("../../../coil-models/models/tiny/transformer_block.py");
    let g = parse(text).unwrap();
    let cpu = Arg::Device(DeviceSpec {
        kind: "cpu".into(),
        index: None,
    });
    let full = call_of(&g, "full");
    assert_eq!(
        full.args,
        vec![Arg::List(vec![Arg::Int(16), Arg::Int(16)]), Arg::Bool(true)]
    );
    assert_eq!(
        full.kwargs,
        vec![
            ("dtype".to_string(), Arg::DType(DType::Bool)),
            ("layout".to_string(), Arg::Layout(Layout::Strided)),
            ("device".to_string(), cpu.clone()),
            ("pin_memory".to_string(), Arg::Bool(false)),
        ]
    );
    assert_eq!(
        call_of(&g, "scalar_tensor").args,
        vec![Arg::Float(f64::NEG_INFINITY)]
    );
    assert_eq!(
        call_of(&g, "gelu").kwargs,
        vec![("approximate".to_string(), Arg::Str("tanh".into()))]
    );
    assert_eq!(
        call_of(&g, "native_layer_norm").args[4],
        Arg::Float(1e-05),
        "1e-05"
    );
    assert_eq!(call_of(&g, "split_with_sizes").args[2], Arg::Int(-1));
    let split = g.find("split_with_sizes").unwrap();
    assert!(g.node(split).multi_output);
    assert_eq!(g.node(split).outputs.len(), 3);
    let getitem_5 = g.node(g.find("getitem_5").unwrap());
    assert_eq!(
        getitem_5.kind,
        NodeKind::GetItem {
            source: split,
            index: 2
        }
    );
    assert_eq!(getitem_5.meta().to_string(), "f32[2, 16, 64]");
    // 13 inputs and 61 statements.
    assert_eq!(g.len(), 13 + 61);
}

#[test]
fn the_subset_beyond_what_pytorch_prints() {
    // Blank lines and comments anywhere, trailing commas, unannotated statements, tuples,
    // double-quoted strings, CRLF line ends, a device with an index, `return a` without
    // parentheses, extra spaces, a trailing `;`, several clean-up clauses.
    let text = "\r\n# a comment before the class\r\nclass GraphModule(torch.nn.Module):\r\n\
        \r\n    def forward(self, x: \"f32[2, 3]\", y: 'f32[]',):  # inputs\r\n\
        \r\n        # a comment in the body\r\n\
        \x20       permute = torch.ops.aten.permute.default(x, (1, 0))\r\n\
        \x20       view: \"f32[6]\"=torch.ops.aten.reshape.default( permute , [-1] , ) ;\r\n\
        \x20       full = torch.ops.aten.full.default((6,), -0.5, device = device(type=\"cuda\", index=1))\r\n\
        \x20       add = torch.ops.aten.add.Tensor(view, full, alpha = -2);  view = None;  full = None\r\n\
        \x20       mul = torch.ops.aten.mul.Tensor(add, y)\r\n\
        \x20       return mul\r\n\
        \r\n# trailing comment\r\n";
    let g = parse(text).unwrap();
    expect![[r#"
        x = input -> f32[2, 3]
        y = input -> f32[]
        permute = aten.permute.default -> f32[3, 2]
        view = aten.reshape.default -> f32[6]
        full = aten.full.default -> f32[6]
        add = aten.add.Tensor -> f32[6]
        mul = aten.mul.Tensor -> f32[6]
        outputs mul
    "#]]
    .assert_eq(&summary(&g));
    assert_eq!(
        call_of(&g, "permute").args[1],
        Arg::List(vec![Arg::Int(1), Arg::Int(0)])
    );
    assert_eq!(
        call_of(&g, "full").kwargs[0].1,
        Arg::Device(DeviceSpec {
            kind: "cuda".into(),
            index: Some(1)
        })
    );
    assert_eq!(call_of(&g, "add").kwargs[0].1, Arg::Int(-2));
}

#[test]
fn numbers_parse_to_their_values() {
    let cases: &[(&str, Arg)] = &[
        ("0", Arg::Int(0)),
        ("-3", Arg::Int(-3)),
        ("9223372036854775807", Arg::Int(i64::MAX)),
        ("-9223372036854775808", Arg::Int(i64::MIN)),
        ("1.5", Arg::Float(1.5)),
        ("1e-05", Arg::Float(1e-05)),
        ("2.8284271247461903", Arg::Float(2.8284271247461903)),
        ("1e+16", Arg::Float(1e16)),
        ("1E16", Arg::Float(1e16)),
        ("2.", Arg::Float(2.0)),
        ("-0.0", Arg::Float(-0.0)),
        ("inf", Arg::Float(f64::INFINITY)),
        ("-inf", Arg::Float(f64::NEG_INFINITY)),
        ("nan", Arg::Float(f64::NAN)),
        ("True", Arg::Bool(true)),
    ];
    for (text, want) in cases {
        let src = module(
            r#", x: "f32[3]""#,
            &[
                &format!("add = torch.ops.aten.add.Tensor(x, {text})"),
                "return (add,)",
            ],
        );
        let g = parse(&src).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(&call_of(&g, "add").args[1], want, "{text}");
    }
}

#[test]
fn memory_formats_and_dtype_aliases() {
    for (text, want) in [
        ("torch.contiguous_format", MemoryFormat::Contiguous),
        ("torch.preserve_format", MemoryFormat::Preserve),
        ("torch.channels_last", MemoryFormat::ChannelsLast),
    ] {
        let src = module(
            r#", x: "f32[3]""#,
            &[
                &format!("clone = torch.ops.aten.clone.default(x, memory_format = {text})"),
                "return (clone,)",
            ],
        );
        let g = parse(&src).unwrap();
        assert_eq!(call_of(&g, "clone").kwargs[0].1, Arg::MemoryFormat(want));
    }
    for (text, want) in [
        ("torch.long", DType::I64),
        ("torch.half", DType::F16),
        ("torch.bfloat16", DType::BF16),
        ("torch.double", DType::F64),
        ("torch.int32", DType::I32),
    ] {
        let src = module(
            r#", x: "f32[3]""#,
            &[
                &format!("c = torch.ops.aten._to_copy.default(x, dtype = {text})"),
                "return (c,)",
            ],
        );
        let g = parse(&src).unwrap();
        assert_eq!(g.node(g.find("c").unwrap()).meta().dtype, want, "{text}");
    }
}

#[test]
fn non_ascii_text_in_comments_and_strings_is_fine() {
    let src = module(
        r#", x: "f32[3]""#,
        &[
            "# ünïcödé comment — with a dash, and emoji 🦀",
            "relu: \"f32[3]\" = torch.ops.aten.relu.default(x)  # ✓",
            "return (relu,)",
        ],
    );
    assert_eq!(parse(&src).unwrap().len(), 2);
}

#[test]
fn a_graph_may_return_an_input_and_have_no_statements() {
    let g = parse(&module(r#", x: "f32[2]""#, &["return (x,)"])).unwrap();
    assert_eq!(g.outputs(), g.inputs());
    assert_eq!(
        coil_graph::print_graph(&g),
        module(r#", x: "f32[2]""#, &["return (x,)"])
    );
}

/// What export prints for real models (issue 17): a bare alias, an assertion that returns
/// nothing (checked, kept as no node), `device(...)` and `pin_memory` keywords.
#[test]
fn export_constructs_of_real_models_parse() {
    let text = r#"class GraphModule(torch.nn.Module):
    def forward(self, input: "f32[2, 3]"):
        input_1 = input
        _assert_tensor_metadata = torch.ops.aten._assert_tensor_metadata.default(input_1, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata = None
        full_like: "f32[2, 3]" = torch.ops.aten.full_like.default(input_1, 0, pin_memory = False, memory_format = torch.preserve_format)
        add: "f32[2, 3]" = torch.ops.aten.add.Tensor(input_1, full_like);  input_1 = full_like = None
        return (add,)
"#;
    let g = coil_graph::parse(text).expect("parses");
    // input, full_like, add: the alias and the assertion add no node.
    assert_eq!(g.nodes().count(), 3);
    let bad = text.replace("torch.float32, device", "torch.int64, device");
    let e = coil_graph::parse(&bad)
        .expect_err("the assertion fails")
        .to_string();
    assert!(
        e.contains("_assert_tensor_metadata") && e.contains("line 4"),
        "{e}"
    );
    assert!(e.contains("dtype mismatch"), "{e}");
}
