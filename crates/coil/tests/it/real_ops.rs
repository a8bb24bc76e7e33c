//! Errors of the real-model ops (issue 17), each naming the node: an index out of range at run
//! time (a host fallback's check, never a read out of bounds), a convolution with mismatched
//! channels, a pooling window larger than its padded input, an op coil does not know; and the
//! report's count of host fallbacks.

use std::sync::Arc;

use coil::Options;
use coil_codegen::InterpBackend;
use coil_graph::{Data, Tensor};

fn graph(args: &str, body: &[&str]) -> String {
    let mut t = format!("class GraphModule(torch.nn.Module):\n    def forward(self, {args}):\n");
    for l in body {
        t.push_str("        ");
        t.push_str(l);
        t.push('\n');
    }
    t
}

#[test]
fn an_embedding_index_out_of_range_is_a_run_time_error_naming_the_node() {
    let text = graph(
        r#"w: "f32[10, 4]", ids: "i64[3]""#,
        &[
            r#"emb: "f32[3, 4]" = torch.ops.aten.embedding.default(w, ids)"#,
            r#"out: "f32[3, 4]" = torch.ops.aten.relu.default(emb)"#,
            "return (out,)",
        ],
    );
    let g = coil_graph::parse(&text).expect("parses");
    let model =
        coil::compile(&g, Arc::new(InterpBackend::new()), &Options::default()).expect("compiles");
    assert_eq!(model.report.fallback_ops, ["aten.embedding.default"]);
    let w = Tensor::new(Data::F32((0..40).map(|i| i as f32).collect()), vec![10, 4]).unwrap();
    let ok = Tensor::new(Data::I64(vec![0, 9, 3]), vec![3]).unwrap();
    let got = model.run(&[w.clone(), ok]).expect("in range");
    assert_eq!(got[0].to_f64_vec()[4..8], [36.0, 37.0, 38.0, 39.0]);
    let bad = Tensor::new(Data::I64(vec![0, 10, 3]), vec![3]).unwrap();
    let e = model.run(&[w, bad]).expect_err("out of range").to_string();
    assert!(
        e.contains("'emb'") && e.contains("index 10 is out of range"),
        "{e}"
    );
}

#[test]
fn a_convolution_with_mismatched_channels_names_the_node() {
    let text = graph(
        r#"x: "f32[1, 4, 8, 8]", w: "f32[6, 3, 3, 3]""#,
        &[
            "conv = torch.ops.aten.convolution.default(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)",
            "return (conv,)",
        ],
    );
    let e = coil_graph::parse(&text).expect_err("channels").to_string();
    assert!(e.contains("conv at line 3"), "{e}");
    assert!(
        e.contains("expected input[1, 4, 8, 8] to have 3 channels, but got 4"),
        "{e}"
    );
}

#[test]
fn a_pooling_window_larger_than_its_padded_input_names_the_node() {
    let text = graph(
        r#"x: "f32[1, 2, 3, 3]""#,
        &[
            "pool = torch.ops.aten.avg_pool2d.default(x, [5, 5], [1, 1], [0, 0])",
            "return (pool,)",
        ],
    );
    let e = coil_graph::parse(&text).expect_err("window").to_string();
    assert!(
        e.contains("pool at line 3") && e.contains("larger than the padded input"),
        "{e}"
    );
}

#[test]
fn an_op_with_neither_lowering_nor_eager_version_is_a_parse_error_naming_it() {
    let text = graph(
        r#"x: "f32[4]""#,
        &[
            "y = torch.ops.aten.special_bessel_j0.default(x)",
            "return (y,)",
        ],
    );
    let e = coil_graph::parse(&text)
        .expect_err("unknown op")
        .to_string();
    assert!(
        e.contains("aten.special_bessel_j0.default") && e.contains("line 3"),
        "{e}"
    );
}

#[test]
fn cumsum_is_a_masked_reduction_and_a_counted_host_fallback_past_its_limit() {
    let text = |n: usize| {
        graph(
            &format!(r#"x: "f32[2, {n}]""#),
            &[
                &format!(r#"a: "f32[2, {n}]" = torch.ops.aten.mul.Tensor(x, 2)"#),
                &format!(r#"c: "f32[2, {n}]" = torch.ops.aten.cumsum.default(a, -1)"#),
                &format!(r#"d: "f32[2, {n}]" = torch.ops.aten.relu.default(c)"#),
                "return (d,)",
            ],
        )
    };
    let compile = |n: usize| {
        let g = coil_graph::parse(&text(n)).expect("parses");
        coil::compile(&g, Arc::new(InterpBackend::new()), &Options::default()).expect("compiles")
    };
    let short = compile(10);
    assert!(
        short.report.fallback_ops.is_empty(),
        "{:?}",
        short.report.fallback_ops
    );
    let x = Tensor::new(
        Data::F32((0..20).map(|i| [1.0, -2.0, 3.0, 0.5, 1.0][i % 5]).collect()),
        vec![2, 10],
    )
    .unwrap();
    let got = short.run(std::slice::from_ref(&x)).expect("runs");
    assert_eq!(
        got[0].to_f64_vec()[..10],
        [2.0, 0.0, 4.0, 5.0, 7.0, 9.0, 5.0, 11.0, 12.0, 14.0]
    );
    let long = compile(2000);
    assert_eq!(long.report.fallback_ops, ["aten.cumsum.default"]);
}
