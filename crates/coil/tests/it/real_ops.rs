//! Errors of the real-model ops (issue 17), each naming the node: an index out of range at run
//! time (an indirect index's check, on every backend, never a read out of bounds), a convolution with mismatched
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

/// The backends an indirect index is checked on: the kernel IR's interpreter, LLVM on the
/// host, and PTX on the emulated GPU (its kernels set the flags the runtime reads after the
/// run).
fn checking_backends() -> Vec<(&'static str, Arc<dyn coil_codegen::Backend>)> {
    vec![
        ("interp", Arc::new(InterpBackend::new())),
        ("cpu", Arc::new(coil_cpu::CpuBackend::new().expect("LLVM"))),
        (
            "cuda (emulated)",
            Arc::new(coil_cuda::CudaBackend::emulated()),
        ),
    ]
}

fn i64s(v: Vec<i64>) -> Tensor {
    let n = v.len();
    Tensor::new(Data::I64(v), vec![n]).unwrap()
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
    let w = Tensor::new(Data::F32((0..40).map(|i| i as f32).collect()), vec![10, 4]).unwrap();
    for (name, backend) in checking_backends() {
        let model = coil::compile(&g, backend, &Options::default()).expect("compiles");
        // Lowered with an indirect index, not a host fallback.
        assert!(model.report.fallback_ops.is_empty(), "{name}");
        let got = model
            .run(&[w.clone(), i64s(vec![0, 9, 3])])
            .expect("in range");
        assert_eq!(
            got[0].to_f64_vec()[4..8],
            [36.0, 37.0, 38.0, 39.0],
            "{name}"
        );
        for bad in [10, -1, i64::MIN] {
            let e = model
                .run(&[w.clone(), i64s(vec![0, bad, 3])])
                .expect_err("out of range")
                .to_string();
            let want = format!(
                "index {bad} is out of bounds for dimension 0 with size 10 in node 'emb' (aten.embedding.default)"
            );
            assert!(e.contains(&want), "{name}: {e}");
        }
        // The flags are cleared: a good run after a bad one succeeds.
        model
            .run(&[w.clone(), i64s(vec![1, 2, 3])])
            .expect("in range again");
    }
}

#[test]
fn advanced_indexing_wraps_negative_indices_and_gather_refuses_them() {
    let text = graph(
        r#"x: "f32[5, 3]", i: "i64[4]", j: "i64[4, 3]""#,
        &[
            r#"index: "f32[4, 3]" = torch.ops.aten.index.Tensor(x, [i])"#,
            r#"gather: "f32[4, 3]" = torch.ops.aten.gather.default(x, 0, j)"#,
            r#"add: "f32[4, 3]" = torch.ops.aten.add.Tensor(index, gather)"#,
            "return (add,)",
        ],
    );
    let g = coil_graph::parse(&text).expect("parses");
    let x = Tensor::new(Data::F32((0..15).map(|i| i as f32).collect()), vec![5, 3]).unwrap();
    let j = |v: i64| Tensor::new(Data::I64(vec![v; 12]), vec![4, 3]).unwrap();
    for (name, backend) in checking_backends() {
        let model = coil::compile(&g, backend, &Options::default()).expect("compiles");
        assert!(model.report.fallback_ops.is_empty(), "{name}");
        // x[-1] is row 4; gather row 0 everywhere: 12 + c + c.
        let got = model
            .run(&[x.clone(), i64s(vec![-1, 4, -5, 0]), j(0)])
            .expect("runs");
        let v = got[0].to_f64_vec();
        assert_eq!(v[..3], [12.0, 14.0, 16.0], "{name}");
        assert_eq!(v[6..9], [0.0, 2.0, 4.0], "{name}");
        let e = model
            .run(&[x.clone(), i64s(vec![0, 0, -6, 0]), j(0)])
            .expect_err("x[-6]")
            .to_string();
        assert!(
            e.contains("index -6 is out of bounds for dimension 0 with size 5 in node 'index'"),
            "{name}: {e}"
        );
        let e = model
            .run(&[x.clone(), i64s(vec![0, 0, 0, 0]), j(-1)])
            .expect_err("gather takes no negative index")
            .to_string();
        assert!(
            e.contains("index -1 is out of bounds for dimension 0 with size 5 in node 'gather'"),
            "{name}: {e}"
        );
    }
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
        &["y = torch.ops.aten.histc.default(x)", "return (y,)"],
    );
    let e = coil_graph::parse(&text)
        .expect_err("unknown op")
        .to_string();
    assert!(
        e.contains("aten.histc.default") && e.contains("line 3"),
        "{e}"
    );
}

#[test]
fn scans_fuse_with_their_producer_and_reader_and_match_eager_on_every_backend() {
    // Rows of 10 (one tile), 700 (two tiles of 512 threads on the GPU, the last partial) and
    // a middle dim; cumsum and cumprod; the producer inlines, the reader fuses.
    let cases = [
        ("f32[2, 10]", -1, "cumsum"),
        ("f32[3, 700]", -1, "cumsum"),
        ("f32[4, 37, 3]", 1, "cumsum"),
        ("f32[2, 45]", -1, "cumprod"),
        ("i64[3, 600]", -1, "cumsum"),
    ];
    for (ty, dim, op) in cases {
        let out_ty = ty;
        let text = graph(
            &format!(r#"x: "{ty}""#),
            &[
                &format!(r#"a: "{ty}" = torch.ops.aten.mul.Tensor(x, 2)"#),
                &format!(r#"c: "{out_ty}" = torch.ops.aten.{op}.default(a, {dim})"#),
                &format!(r#"d: "{out_ty}" = torch.ops.aten.neg.default(c)"#),
                "return (d,)",
            ],
        );
        let g = coil_graph::parse(&text).expect("parses");
        let meta = g.node(g.inputs()[0]).meta().clone();
        let n = meta.numel();
        let x = if meta.dtype == coil_graph::DType::I64 {
            Tensor::new(
                Data::I64((0..n as i64).map(|i| i % 7 - 3).collect()),
                meta.sizes.clone(),
            )
        } else {
            // Products stay near 1: factors of 0.5 * [0.8, 1.25).
            Tensor::new(
                Data::F32(
                    (0..n)
                        .map(|i| 0.4 + 0.225 * ((i % 9) as f32) / 8.0)
                        .collect(),
                ),
                meta.sizes.clone(),
            )
        }
        .unwrap();
        let want = coil_eager::run(&g, std::slice::from_ref(&x))
            .expect("eager")
            .outputs;
        for (name, backend) in checking_backends() {
            let model = coil::compile(&g, backend, &Options::default()).expect("compiles");
            assert!(model.report.fallback_ops.is_empty(), "{name} {ty} {op}");
            // Along the last dim the reader reads the scan where it stores: one kernel. Along
            // a middle dim the loop nests differ and the reader runs after it.
            let kernels = model.program().num_kernels();
            let want_kernels = if dim == -1 { 1 } else { 2 };
            assert!(
                kernels <= want_kernels,
                "{name} {ty} {op}: {kernels} kernels"
            );
            let got = model.run(std::slice::from_ref(&x)).expect("runs");
            let (w, g) = (want[0].to_f64_vec(), got[0].to_f64_vec());
            for (i, (a, b)) in w.iter().zip(&g).enumerate() {
                assert!(
                    (a - b).abs() <= 1e-4 * a.abs().max(1.0),
                    "{name} {ty} {op}: element {i}: eager {a}, compiled {b}"
                );
            }
        }
    }
}

/// The Hugging Face models gather (embeddings, `index` of masks, position ids from a
/// `cumsum`): their PTX, run on the emulated GPU, matches PyTorch's outputs.
#[test]
fn transformers_with_gathers_and_scans_match_pytorch_on_the_emulated_gpu() {
    for name in ["hf_gpt2", "hf_llama", "hf_bert"] {
        let m = coil_models::REAL_MODELS
            .iter()
            .find(|m| m.name == name)
            .expect("a real model");
        let graph = coil_graph::parse(m.text).expect("parses");
        let tensors = Tensor::read_safetensors(m.safetensors).expect("safetensors");
        let (inputs, outputs) = coil_models::split_io(&graph, &tensors).expect("inputs");
        let outputs = outputs.expect("PyTorch's outputs");
        let backend = Arc::new(coil_cuda::CudaBackend::emulated());
        let model = coil::compile(&graph, backend, &Options::default()).expect("compiles");
        assert!(model.report.fallback_ops.is_empty(), "{name}");
        let got = model.run(&inputs).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (i, (g, w)) in got.iter().zip(&outputs).enumerate() {
            coil_testkit::check_close(g, w, 1e-5, 1e-4)
                .unwrap_or_else(|e| panic!("{name} output {i}: {e}"));
        }
    }
}

/// A gather inside a persistent reduction (GPT-2's causal mask: `index` of an expanded
/// `arange` by broadcast index tensors, read per lane of the row): the emulated GPU's result
/// equals eager's.
#[test]
fn a_gather_read_per_lane_of_a_persistent_row_matches_eager() {
    let text = graph(
        r#"x: "f32[1, 2, 32, 32]""#,
        &[
            r#"arange: "i64[32]" = torch.ops.aten.arange.start(0, 32)"#,
            r#"unsqueeze: "i64[1, 32]" = torch.ops.aten.unsqueeze.default(arange, 0)"#,
            r#"expand: "i64[1, 32]" = torch.ops.aten.expand.default(unsqueeze, [1, -1])"#,
            r#"arange_1: "i64[1]" = torch.ops.aten.arange.start_step(0, 1)"#,
            r#"arange_3: "i64[32]" = torch.ops.aten.arange.start_step(0, 32)"#,
            r#"unsqueeze_1: "i64[1, 1]" = torch.ops.aten.unsqueeze.default(arange_1, 1)"#,
            r#"unsqueeze_2: "i64[1, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_1, 2)"#,
            r#"unsqueeze_3: "i64[1, 1, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_2, 3)"#,
            r#"unsqueeze_10: "i64[1, 32]" = torch.ops.aten.unsqueeze.default(arange_3, 0)"#,
            r#"unsqueeze_11: "i64[1, 1, 32]" = torch.ops.aten.unsqueeze.default(unsqueeze_10, 1)"#,
            r#"unsqueeze_12: "i64[1, 1, 1, 32]" = torch.ops.aten.unsqueeze.default(unsqueeze_11, 2)"#,
            r#"index_1: "i64[1, 1, 1, 32]" = torch.ops.aten.index.Tensor(expand, [unsqueeze_3, unsqueeze_12])"#,
            r#"c: "f32[1, 1, 1, 32]" = torch.ops.aten._to_copy.default(index_1, dtype = torch.float32)"#,
            r#"add: "f32[1, 2, 32, 32]" = torch.ops.aten.add.Tensor(x, c)"#,
            r#"amax: "f32[1, 2, 32, 1]" = torch.ops.aten.amax.default(add, [-1], True)"#,
            r#"return (amax,)"#,
        ],
    );
    let g = coil_graph::parse(&text).expect("parses");
    let x = Tensor::new(
        Data::F32((0..2048).map(|i| ((i * 37) % 101) as f32 * 0.01).collect()),
        vec![1, 2, 32, 32],
    )
    .unwrap();
    let want = coil_eager::run(&g, std::slice::from_ref(&x))
        .expect("eager")
        .outputs;
    for (name, backend) in checking_backends() {
        let model = coil::compile(&g, backend, &Options::default()).expect("compiles");
        let got = model
            .run(std::slice::from_ref(&x))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got[0].to_f64_vec(), want[0].to_f64_vec(), "{name}");
    }
}
