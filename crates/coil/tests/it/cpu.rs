//! The CPU backend (LLVM) passes the conformance suite under every strategy, and the
//! articles' kernel counts hold at run time.

use std::sync::Arc;

use coil::Options;
use coil_codegen::Backend;
use coil_testkit::{
    ARTICLE_KERNEL_COUNTS, conformance, conformance_16, conformance_real_16,
    emulated_casts_match_pytorch, emulated_casts_round_where_eager_rounds,
};

#[test]
fn every_tiny_model_on_the_cpu_under_every_policy_matches_pytorch() {
    let backend: Arc<dyn Backend> = Arc::new(coil_cpu::CpuBackend::new().expect("host CPU"));
    let failures = conformance(&backend, &coil::builtin_strategies());
    assert!(failures.is_empty(), "cpu:\n{}", failures.join("\n"));
}

#[test]
fn every_tiny_model_in_bf16_and_f16_on_the_cpu_under_every_policy_matches_pytorch() {
    let backend: Arc<dyn Backend> = Arc::new(coil_cpu::CpuBackend::new().expect("host CPU"));
    let failures = conformance_16(&backend, &coil::builtin_strategies());
    assert!(failures.is_empty(), "cpu:\n{}", failures.join("\n"));
}

#[test]
fn every_real_model_in_bf16_on_the_cpu_matches_pytorch() {
    let backend: Arc<dyn Backend> = Arc::new(coil_cpu::CpuBackend::new().expect("host CPU"));
    let failures = conformance_real_16(&backend, &[Options::default().strategy], &[]);
    assert!(failures.is_empty(), "cpu:\n{}", failures.join("\n"));
}

#[test]
fn with_emulated_casts_16_bit_memory_bound_models_are_pytorch_bit_for_bit_on_the_cpu() {
    let backend: Arc<dyn Backend> = Arc::new(coil_cpu::CpuBackend::new().expect("host CPU"));
    let failures = emulated_casts_match_pytorch(&backend);
    assert!(failures.is_empty(), "cpu:\n{}", failures.join("\n"));
}

/// The articles' counts hold with matmul epilogues as kernels of their own (as the
/// articles' Inductor runs them); with oneDNN's post-ops (the default where it loads) the
/// relu of mm_epilogue runs inside the matmul call instead, leaving the prologue's kernel.
#[test]
fn kernel_counts_of_the_articles_hold_on_the_cpu() {
    let unfused = coil_cpu::CpuBackend::with_options(coil_cpu::CpuOptions {
        unfused_matmul_epilogues: true,
        ..coil_cpu::CpuOptions::default()
    });
    let backend: Arc<dyn Backend> = Arc::new(unfused.expect("host CPU"));
    if coil_cpu::onednn_status().is_ok() {
        let fused: Arc<dyn Backend> = Arc::new(coil_cpu::CpuBackend::new().expect("host CPU"));
        let g = coil_models::find("mm_epilogue")
            .expect("zoo")
            .graph(coil_models::Size::Article)
            .expect("parses");
        let model = coil::compile(&g, fused, &Options::default()).expect("compiles");
        assert_eq!(
            (model.report.num_kernels, model.report.num_extern_calls),
            (1, 1)
        );
    }
    for &(name, kernels, externs) in ARTICLE_KERNEL_COUNTS {
        let g = coil_models::find(name)
            .expect("zoo")
            .graph(coil_models::Size::Article)
            .expect("parses");
        let model = coil::compile(&g, backend.clone(), &Options::default()).expect("compiles");
        assert_eq!(
            (model.report.num_kernels, model.report.num_extern_calls),
            (kernels, externs),
            "{name}"
        );
    }
}

/// `run_host` on caller memory: aligned inputs and outputs are used in place, unaligned ones
/// copied, an output that is a view (a transpose) gathered; every way equals `run`.
#[test]
fn run_host_reads_and_writes_caller_memory_in_place_or_by_copy() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[64, 48]", b: "f32[48]"):
        add: "f32[64, 48]" = torch.ops.aten.add.Tensor(x, b)
        relu: "f32[64, 48]" = torch.ops.aten.relu.default(add)
        t: "f32[48, 64]" = torch.ops.aten.permute.default(relu, [1, 0])
        return (relu, t)
"#;
    let g = coil_graph::parse(text).expect("parses");
    let backend = std::sync::Arc::new(coil_cpu::CpuBackend::new().expect("cpu"));
    let model = coil::compile(&g, backend, &coil::Options::default()).expect("compiles");
    let x: Vec<f32> = (0..64 * 48).map(|i| (i % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..48).map(|i| (i % 5) as f32 * 0.5 - 1.0).collect();
    let tx = coil_graph::Tensor::new(coil_graph::Data::F32(x.clone()), vec![64, 48]).unwrap();
    let tb = coil_graph::Tensor::new(coil_graph::Data::F32(b.clone()), vec![48]).unwrap();
    let want: Vec<Vec<u8>> = model
        .run(&[tx, tb])
        .expect("runs")
        .iter()
        .map(|t| t.contiguous().to_bytes())
        .collect();
    // 64-byte aligned storage, used at byte offset `shift` (0: aligned, 4: not).
    #[repr(C, align(64))]
    #[derive(Clone, Copy)]
    struct Line {
        bytes: [u8; 64],
    }
    fn aligned(bytes: usize) -> Vec<Line> {
        vec![Line { bytes: [0; 64] }; bytes.div_ceil(64) + 1]
    }
    fn bytes_of(v: &mut [Line]) -> &mut [u8] {
        // SAFETY: `Line` is plain bytes.
        unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), v.len() * 64) }
    }
    let as_bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    let (xb, bb) = (as_bytes(&x), as_bytes(&b));
    for shift in [0usize, 4] {
        let (mut xs, mut bs) = (aligned(xb.len()), aligned(bb.len()));
        let (mut o0, mut o1) = (aligned(want[0].len()), aligned(want[1].len()));
        let xin = &mut bytes_of(&mut xs)[shift..shift + xb.len()];
        xin.copy_from_slice(&xb);
        let bin = &mut bytes_of(&mut bs)[shift..shift + bb.len()];
        bin.copy_from_slice(&bb);
        let (xin, bin): (&[u8], &[u8]) = (xin, bin);
        let o0b = &mut bytes_of(&mut o0)[shift..shift + want[0].len()];
        let o1b = &mut bytes_of(&mut o1)[shift..shift + want[1].len()];
        let mut outs: Vec<&mut [u8]> = vec![o0b, o1b];
        let (ins, outs_in_place) = model.run_host(&[xin, bin], &mut outs).expect("runs");
        assert_eq!(outs[0].to_vec(), want[0], "shift {shift}: relu");
        assert_eq!(outs[1].to_vec(), want[1], "shift {shift}: the transpose");
        if shift == 0 {
            assert_eq!(ins, 2, "aligned inputs are used in place");
            assert!(
                outs_in_place >= 1,
                "the aligned whole-buffer output is written in place"
            );
        } else {
            assert_eq!((ins, outs_in_place), (0, 0), "unaligned memory is copied");
        }
    }
}

/// `run_host`'s outputs that are views, each read on its own: a transpose of an input, a
/// slice of an input (contiguous, at an offset), a slice of a buffer at an offset, and a
/// buffer written whole beside them; every one equals `run`'s.
#[test]
fn run_host_reads_views_of_inputs_and_buffers_one_by_one() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[16, 12]", w: "f32[12, 12]"):
        t: "f32[12, 16]" = torch.ops.aten.permute.default(x, [1, 0])
        rows: "f32[4, 12]" = torch.ops.aten.slice.Tensor(x, 0, 3, 7)
        mm: "f32[16, 12]" = torch.ops.aten.mm.default(x, w)
        tail: "f32[6, 12]" = torch.ops.aten.slice.Tensor(mm, 0, 10, 16)
        relu: "f32[16, 12]" = torch.ops.aten.relu.default(mm)
        return (t, rows, tail, relu)
"#;
    let g = coil_graph::parse(text).expect("parses");
    let backend = std::sync::Arc::new(coil_cpu::CpuBackend::new().expect("cpu"));
    let model = coil::compile(&g, backend, &coil::Options::default()).expect("compiles");
    let inputs = coil_testkit::random_inputs(&g, 7);
    let want: Vec<Vec<u8>> = model
        .run(&inputs)
        .expect("runs")
        .iter()
        .map(|t| t.contiguous().to_bytes())
        .collect();
    let bytes: Vec<Vec<u8>> = inputs.iter().map(|t| t.contiguous().to_bytes()).collect();
    let ins: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
    let mut outs: Vec<Vec<u8>> = want.iter().map(|w| vec![0u8; w.len()]).collect();
    let mut out_refs: Vec<&mut [u8]> = outs.iter_mut().map(Vec::as_mut_slice).collect();
    model.run_host(&ins, &mut out_refs).expect("runs");
    for (i, (got, want)) in outs.iter().zip(&want).enumerate() {
        assert_eq!(got, want, "output {i}");
    }
}

/// 16-bit floats: by default a fused kernel keeps values in f32 and rounds at the store
/// (Inductor's semantics); with `emulate_precision_casts` every op's result is rounded as eager
/// rounds it, and the result is eager's bit for bit.
#[test]
fn emulate_precision_casts_rounds_where_eager_rounds() {
    let backend: Arc<dyn Backend> = Arc::new(coil_cpu::CpuBackend::new().expect("host CPU"));
    emulated_casts_round_where_eager_rounds(&backend).unwrap_or_else(|e| panic!("cpu: {e}"));
}

/// `mm`, `addmm` with a broadcast bias, and `bmm` of a transposed operand in `dt` (each over
/// the two megaflops below which f32 products skip oneDNN), run with the default CPU backend
/// (oneDNN's matmul where it loads) and with `fallback`'s options,
/// on the same random inputs (`seed`): the default's, the fallback's and eager's outputs.
fn matmuls_both_ways(
    dt: &str,
    fallback: coil_cpu::CpuOptions,
    seed: u64,
) -> [Vec<coil_graph::Tensor>; 3] {
    let text = format!(
        "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"{dt}[96, 160]\", w: \"{dt}[160, 80]\", b: \"{dt}[80]\", p: \"{dt}[3, 40, 160]\", q: \"{dt}[3, 80, 160]\"):\n        \
         mm: \"{dt}[96, 80]\" = torch.ops.aten.mm.default(x, w)\n        \
         addmm: \"{dt}[96, 80]\" = torch.ops.aten.addmm.default(b, x, w)\n        \
         permute: \"{dt}[3, 160, 80]\" = torch.ops.aten.permute.default(q, [0, 2, 1])\n        \
         bmm: \"{dt}[3, 40, 80]\" = torch.ops.aten.bmm.default(p, permute)\n        \
         return (mm, addmm, bmm)\n"
    );
    let g = coil_graph::parse(&text).unwrap();
    let inputs = coil_testkit::random_inputs(&g, seed);
    let run = |options: coil_cpu::CpuOptions| {
        let backend: Arc<dyn Backend> =
            Arc::new(coil_cpu::CpuBackend::with_options(options).unwrap());
        coil::compile(&g, backend, &Options::default())
            .unwrap()
            .run(&inputs)
            .unwrap()
    };
    let eager = coil_eager::run(&g, &inputs).unwrap().outputs;
    [run(coil_cpu::CpuOptions::default()), run(fallback), eager]
}

/// 16-bit matmuls through oneDNN (where it has a kernel: AVX-512 BF16 or AMX hosts) and
/// widened to f32 for gemm agree within one rounding: mm, addmm with a broadcast bias, bmm
/// and a transposed operand.
#[test]
fn sixteen_bit_matmuls_through_onednn_and_widened_agree() {
    let widen = coil_cpu::CpuOptions {
        widen_16bit_matmul: true,
        ..coil_cpu::CpuOptions::default()
    };
    let [library, widened, eager] = matmuls_both_ways("bf16", widen, 50);
    // One bf16 rounding apart at most (2^-8 relative), summation order aside.
    coil_testkit::check_outputs(&library, &widened, 1e-2, 8e-3).unwrap_or_else(|e| panic!("{e}"));
    coil_testkit::check_outputs(&widened, &eager, 1e-2, 8e-3)
        .unwrap_or_else(|e| panic!("against eager: {e}"));
}

/// A bf16 convolution is one oneDNN call where oneDNN has a bf16 kernel on this host (the
/// backend probes once), else im2col and a matmul; both match PyTorch's bf16 results (the
/// real-model conformance above checks the library path where it is taken).
#[test]
fn bf16_convolutions_take_onednn_where_it_has_a_kernel() {
    let cpu = coil_cpu::CpuBackend::new().expect("host CPU");
    let library = cpu.target().conv_of(coil_graph::DType::BF16);
    let case = coil_models::find_real_16("tv_resnet18_w16")
        .unwrap()
        .case()
        .unwrap();
    for im2col in [false, true] {
        let backend: Arc<dyn Backend> = Arc::new(
            coil_cpu::CpuBackend::with_options(coil_cpu::CpuOptions {
                im2col_conv: im2col,
                ..coil_cpu::CpuOptions::default()
            })
            .unwrap(),
        );
        let model = coil::compile(&case.graph, backend, &Options::default()).unwrap();
        let convs = model
            .report
            .kernels
            .iter()
            .filter(|k| k.kind.short_name() == "extern" && k.name.contains("convolution"))
            .count();
        assert_eq!(
            convs > 0,
            library && !im2col,
            "im2col {im2col}: {convs} library calls"
        );
        let out = model.run(&case.inputs).unwrap();
        coil_testkit::check_close(&out[0], &case.outputs[0], 2e-2, 5e-2).unwrap();
    }
}

/// f32 matmuls through oneDNN (the default where it loads) and through the gemm crate agree:
/// mm, addmm with a broadcast bias, bmm with a transposed operand.
#[test]
fn f32_matmuls_through_onednn_and_gemm_agree() {
    let gemm = coil_cpu::CpuOptions {
        gemm_f32_matmul: true,
        ..coil_cpu::CpuOptions::default()
    };
    let [library, gemm, eager] = matmuls_both_ways("f32", gemm, 70);
    coil_testkit::check_outputs(&library, &gemm, 1e-5, 1e-5).unwrap_or_else(|e| panic!("{e}"));
    coil_testkit::check_outputs(&library, &eager, 1e-5, 1e-5)
        .unwrap_or_else(|e| panic!("against eager: {e}"));
}

/// A matmul's pointwise consumers as oneDNN post-ops (the default where oneDNN loads): a
/// bias row then relu (an `addmm` + relu), gelu (erf and tanh), tanh, sigmoid, silu, a scale
/// and shift, a residual add, a broadcast multiply, a bmm's relu, a bias and tanh through a
/// reshape of the product, and an empty-`k` product
/// (which oneDNN declines: the post-ops then run after the fallback product). Every one is
/// folded into its library call, and each matches eager, in f32 and bf16.
#[test]
fn matmul_epilogues_run_as_library_post_ops_and_match_eager() {
    for dt in ["f32", "bf16"] {
        let text = format!(
            "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"{dt}[128, 256]\", w: \"{dt}[256, 64]\", w1: \"{dt}[256, 64]\", w2: \"{dt}[256, 64]\", w3: \"{dt}[256, 64]\", w4: \"{dt}[256, 64]\", w5: \"{dt}[256, 64]\", w6: \"{dt}[256, 64]\", w7: \"{dt}[256, 64]\", w8: \"{dt}[256, 64]\", w9: \"{dt}[256, 64]\", b: \"{dt}[64]\", r: \"{dt}[128, 64]\", p: \"{dt}[3, 64, 256]\", q: \"{dt}[3, 256, 64]\", e: \"{dt}[4, 0]\", f: \"{dt}[0, 5]\", c: \"{dt}[5]\"):\n        \
             mm: \"{dt}[128, 64]\" = torch.ops.aten.mm.default(x, w)\n        \
             add: \"{dt}[128, 64]\" = torch.ops.aten.add.Tensor(mm, b)\n        \
             relu: \"{dt}[128, 64]\" = torch.ops.aten.relu.default(add)\n        \
             mm_1: \"{dt}[128, 64]\" = torch.ops.aten.mm.default(x, w1)\n        \
             gelu: \"{dt}[128, 64]\" = torch.ops.aten.gelu.default(mm_1)\n        \
             mm_2: \"{dt}[128, 64]\" = torch.ops.aten.mm.default(x, w2)\n        \
             gelu_1: \"{dt}[128, 64]\" = torch.ops.aten.gelu.default(mm_2, approximate = 'tanh')\n        \
             mm_3: \"{dt}[128, 64]\" = torch.ops.aten.mm.default(x, w3)\n        \
             tanh: \"{dt}[128, 64]\" = torch.ops.aten.tanh.default(mm_3)\n        \
             mm_4: \"{dt}[128, 64]\" = torch.ops.aten.mm.default(x, w4)\n        \
             sigmoid: \"{dt}[128, 64]\" = torch.ops.aten.sigmoid.default(mm_4)\n        \
             mm_5: \"{dt}[128, 64]\" = torch.ops.aten.mm.default(x, w5)\n        \
             silu: \"{dt}[128, 64]\" = torch.ops.aten.silu.default(mm_5)\n        \
             mm_6: \"{dt}[128, 64]\" = torch.ops.aten.mm.default(x, w6)\n        \
             mul: \"{dt}[128, 64]\" = torch.ops.aten.mul.Tensor(mm_6, 0.5)\n        \
             sub: \"{dt}[128, 64]\" = torch.ops.aten.sub.Tensor(mul, 2)\n        \
             mm_7: \"{dt}[128, 64]\" = torch.ops.aten.mm.default(x, w7)\n        \
             add_1: \"{dt}[128, 64]\" = torch.ops.aten.add.Tensor(r, mm_7)\n        \
             mm_8: \"{dt}[128, 64]\" = torch.ops.aten.mm.default(x, w8)\n        \
             mul_1: \"{dt}[128, 64]\" = torch.ops.aten.mul.Tensor(mm_8, b)\n        \
             bmm: \"{dt}[3, 64, 64]\" = torch.ops.aten.bmm.default(p, q)\n        \
             relu_1: \"{dt}[3, 64, 64]\" = torch.ops.aten.relu.default(bmm)\n        \
             mm_9: \"{dt}[4, 5]\" = torch.ops.aten.mm.default(e, f)\n        \
             add_2: \"{dt}[4, 5]\" = torch.ops.aten.add.Tensor(mm_9, c)\n        \
             sigmoid_1: \"{dt}[4, 5]\" = torch.ops.aten.sigmoid.default(add_2)\n        \
             mm_10: \"{dt}[128, 64]\" = torch.ops.aten.mm.default(x, w9)\n        \
             view: \"{dt}[2, 64, 64]\" = torch.ops.aten.view.default(mm_10, [2, 64, 64])\n        \
             add_3: \"{dt}[2, 64, 64]\" = torch.ops.aten.add.Tensor(view, b)\n        \
             tanh_1: \"{dt}[2, 64, 64]\" = torch.ops.aten.tanh.default(add_3)\n        \
             return (relu, gelu, gelu_1, tanh, sigmoid, silu, sub, add_1, mul_1, relu_1, sigmoid_1, tanh_1)\n"
        );
        let g = coil_graph::parse(&text).unwrap();
        let inputs = coil_testkit::random_inputs(&g, 90);
        let cpu = coil_cpu::CpuBackend::new().expect("host CPU");
        let folds = cpu
            .target()
            .caps
            .matmul_post_ops
            .iter()
            .any(|(d, _)| *d == g.node(g.inputs()[0]).meta().dtype);
        let backend: Arc<dyn Backend> = Arc::new(cpu);
        let model = coil::compile(&g, backend, &Options::default()).unwrap();
        if folds {
            let names: Vec<&str> = model
                .report
                .kernels
                .iter()
                .map(|k| k.name.as_str())
                .collect();
            // Only the empty-`k` product's epilogue may stay a kernel (an f32 product that
            // small takes OpenBLAS or gemm, not oneDNN).
            assert!(model.report.num_kernels <= 1, "{dt}: {names:?}");
            for want in [
                "addmm + relu",
                "mm + gelu",
                "mm + gelu_tanh",
                "mm + silu",
                "bmm + relu",
                // Through a reshape: a bias then tanh on the view of the product.
                "addmm + tanh",
            ] {
                assert!(
                    names.iter().any(|n| n.contains(want)),
                    "{dt}: no {want} in {names:?}"
                );
            }
        }
        let got = model.run(&inputs).unwrap();
        let eager = coil_eager::run(&g, &inputs).unwrap().outputs;
        // f32: summation order and oneDNN's activation approximations; bf16: one rounding.
        let tol = if dt == "f32" { 1e-4 } else { 2e-2 };
        coil_testkit::check_outputs(&got, &eager, tol, tol).unwrap_or_else(|e| panic!("{dt} {e}"));
    }
}

/// f32 matmuls through OpenBLAS's sgemm (where `libopenblas.so.0` loads; `cargo xtask setup`
/// installs it) agree with oneDNN's and eager's: mm, addmm with a broadcast bias, bmm with a
/// transposed operand.
#[test]
fn f32_matmuls_through_openblas_agree() {
    if coil_cpu::openblas_status().is_err() {
        return;
    }
    let openblas = coil_cpu::CpuOptions {
        openblas_f32_matmul: true,
        ..coil_cpu::CpuOptions::default()
    };
    let [library, blas, eager] = matmuls_both_ways("f32", openblas, 71);
    // Sums of 160 products in another order: an element that cancels (0.567 out of terms
    // whose magnitudes add to about 100) can move by 1.7e-5 between two libraries' kernels
    // (seen between OpenBLAS and oneDNN on an AVX-512 Xeon); the worst-case bound,
    // 160 x 2^-24 x 100, is 1e-3. 1e-4 absolute still catches a wrong operand or layout.
    coil_testkit::check_outputs(&blas, &library, 1e-4, 1e-5).unwrap_or_else(|e| panic!("{e}"));
    coil_testkit::check_outputs(&blas, &eager, 1e-4, 1e-5)
        .unwrap_or_else(|e| panic!("against eager: {e}"));
}

/// Convolutions by measured shape: a small ungrouped f32 convolution takes im2col and a matmul,
/// a depthwise one (many groups) and a large one stay one oneDNN call (where it loads), and
/// `--conv library` (`CpuOptions::library_conv_always`) sends the small one to oneDNN too;
/// every way matches eager.
#[test]
fn small_ungrouped_convolutions_take_im2col_and_the_rest_onednn() {
    if coil_cpu::onednn_status().is_err() {
        return;
    }
    let conv = |x: &str, w: &str, out: &str, groups: usize| {
        format!(
            "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[{x}]\", w: \"f32[{w}]\"):\n        \
             r: \"f32[{out}]\" = torch.ops.aten.convolution.default(x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], {groups})\n        \
             return (r,)\n"
        )
    };
    let cases = [
        (
            "small",
            conv("1, 8, 8, 8", "8, 8, 3, 3", "1, 8, 8, 8", 1),
            false,
        ),
        (
            "depthwise",
            conv("1, 32, 8, 8", "32, 1, 3, 3", "1, 32, 8, 8", 32),
            true,
        ),
        (
            "large",
            conv("2, 32, 32, 32", "64, 32, 3, 3", "2, 64, 32, 32", 1),
            true,
        ),
    ];
    for always in [false, true] {
        let backend: Arc<dyn Backend> = Arc::new(
            coil_cpu::CpuBackend::with_options(coil_cpu::CpuOptions {
                library_conv_always: always,
                ..coil_cpu::CpuOptions::default()
            })
            .unwrap(),
        );
        for (what, text, library) in &cases {
            let g = coil_graph::parse(text).unwrap();
            let model = coil::compile(&g, backend.clone(), &Options::default()).unwrap();
            let calls = model
                .report
                .kernels
                .iter()
                .any(|k| k.kind.short_name() == "extern" && k.name.contains("convolution"));
            assert_eq!(calls, *library || always, "{what}, always {always}");
            let inputs = coil_testkit::random_inputs(&g, 5);
            let got = model.run(&inputs).unwrap();
            let want = coil_eager::run(&g, &inputs).unwrap().outputs;
            coil_testkit::check_close(&got[0], &want[0], 1e-4, 1e-4)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
        }
    }
}

/// A small f32 product (OpenBLAS's or gemm's) of broadcast operands (0 strides, which BLAS's
/// leading dimensions cannot say: they take gemm) equals eager's; the fuzzer's find.
#[test]
fn small_matmuls_of_broadcast_operands_match_eager() {
    let text = "class GraphModule(torch.nn.Module):\n    def forward(self, a: \"f32[1, 1]\", b: \"f32[1, 3]\", c: \"f32[4, 5]\"):\n        \
                expand: \"f32[2, 1]\" = torch.ops.aten.expand.default(a, [2, 1])\n        \
                mm: \"f32[2, 1]\" = torch.ops.aten.mm.default(expand, a)\n        \
                expand_1: \"f32[5, 3]\" = torch.ops.aten.expand.default(b, [5, 3])\n        \
                mm_1: \"f32[4, 3]\" = torch.ops.aten.mm.default(c, expand_1)\n        \
                return (mm, mm_1)\n";
    let g = coil_graph::parse(text).unwrap();
    let inputs = coil_testkit::random_inputs(&g, 13);
    let backend: Arc<dyn Backend> = Arc::new(coil_cpu::CpuBackend::new().expect("host CPU"));
    let got = coil::compile(&g, backend, &Options::default())
        .unwrap()
        .run(&inputs)
        .unwrap();
    let want = coil_eager::run(&g, &inputs).unwrap().outputs;
    coil_testkit::check_outputs(&got, &want, 1e-5, 1e-6).unwrap_or_else(|e| panic!("{e}"));
}

/// A library convolution's operand-free pointwise consumers (relu, a scale and shift,
/// sigmoid) run as oneDNN post-ops in the call (where it loads), and match eager.
#[test]
fn convolution_epilogues_run_as_library_post_ops_and_match_eager() {
    let text = "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2, 32, 32, 32]\", w: \"f32[64, 32, 3, 3]\", b: \"f32[64]\"):\n        \
                convolution: \"f32[2, 64, 32, 32]\" = torch.ops.aten.convolution.default(x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)\n        \
                relu: \"f32[2, 64, 32, 32]\" = torch.ops.aten.relu.default(convolution)\n        \
                mul: \"f32[2, 64, 32, 32]\" = torch.ops.aten.mul.Tensor(relu, 0.5)\n        \
                add: \"f32[2, 64, 32, 32]\" = torch.ops.aten.add.Tensor(mul, 1)\n        \
                sigmoid: \"f32[2, 64, 32, 32]\" = torch.ops.aten.sigmoid.default(add)\n        \
                return (sigmoid,)\n";
    let g = coil_graph::parse(text).unwrap();
    let inputs = coil_testkit::random_inputs(&g, 17);
    let backend: Arc<dyn Backend> = Arc::new(coil_cpu::CpuBackend::new().expect("host CPU"));
    let model = coil::compile(&g, backend, &Options::default()).unwrap();
    if coil_cpu::onednn_status().is_ok() {
        let names: Vec<&str> = model
            .report
            .kernels
            .iter()
            .map(|k| k.name.as_str())
            .collect();
        assert_eq!(
            names,
            ["extern_kernels.convolution + relu + linear(0.5, 1) + sigmoid"]
        );
    }
    let got = model.run(&inputs).unwrap();
    let want = coil_eager::run(&g, &inputs).unwrap().outputs;
    coil_testkit::check_close(&got[0], &want[0], 1e-4, 1e-5).unwrap();
}

/// Transposing copies, tiled by 16 where 16 divides both inner sizes (`[64, 48]`, a batch of
/// them, a transposed read feeding an add with a contiguous one) and not where it does not
/// (`[40, 24]`): every element where eager puts it, under every strategy.
#[test]
fn transposed_reads_tiled_or_not_match_eager() {
    let backend: Arc<dyn Backend> = Arc::new(coil_cpu::CpuBackend::new().expect("host CPU"));
    for (a, b, batch) in [(64, 48, 1), (40, 24, 1), (32, 64, 3)] {
        let text = format!(
            "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[{batch}, {a}, {b}]\", y: \"f32[{batch}, {b}, {a}]\"):\n        \
             permute: \"f32[{batch}, {b}, {a}]\" = torch.ops.aten.permute.default(x, [0, 2, 1])\n        \
             add: \"f32[{batch}, {b}, {a}]\" = torch.ops.aten.add.Tensor(permute, y)\n        \
             clone: \"f32[{batch}, {b}, {a}]\" = torch.ops.aten.clone.default(permute, memory_format = torch.contiguous_format)\n        \
             return (add, clone)\n"
        );
        let g = coil_graph::parse(&text).expect("parses");
        let inputs = coil_testkit::random_inputs(&g, 5);
        let want = coil_eager::run(&g, &inputs).expect("eager").outputs;
        for strategy in coil::builtin_strategies() {
            let name = strategy.name();
            let options = Options {
                strategy,
                ..Options::default()
            };
            let got = coil::compile(&g, backend.clone(), &options)
                .expect("compiles")
                .run(&inputs)
                .expect("runs");
            coil_testkit::check_outputs(&got, &want, 0.0, 0.0)
                .unwrap_or_else(|e| panic!("[{batch}, {a}, {b}] {name}: {e}"));
        }
    }
}

/// `convolution_backward` with oneDNN: the input's and the weight's gradients are one
/// library call each (the bias's a sum kernel), strided operands included, and every one
/// matches coil-eager's; without oneDNN (`im2col_conv`) the op runs on the host, the same.
#[test]
fn convolution_gradients_through_onednn_match_eager() {
    // (x, w, dy, stride, padding, dilation, groups); the input arrives channels-last (a
    // permuted view), the others contiguous.
    let cases = [
        (
            "2, 9, 9, 4",
            "6, 4, 3, 3",
            "2, 6, 5, 5",
            "[2, 2]",
            "[1, 1]",
            "[1, 1]",
            1,
        ),
        (
            "1, 10, 7, 6",
            "9, 2, 3, 2",
            "1, 9, 10, 4",
            "[1, 2]",
            "[2, 1]",
            "[2, 1]",
            3,
        ),
        (
            "2, 6, 6, 8",
            "8, 1, 3, 3",
            "2, 8, 6, 6",
            "[1, 1]",
            "[1, 1]",
            "[1, 1]",
            8,
        ),
    ];
    let graph = |(xl, w, dy, s, p, d, g): (&str, &str, &str, &str, &str, &str, usize)| {
        let sizes: Vec<usize> = xl.split(", ").map(|v| v.parse().unwrap()).collect();
        let (n, h, wd, c) = (sizes[0], sizes[1], sizes[2], sizes[3]);
        format!(
            "class GraphModule(torch.nn.Module):\n    def forward(self, dy: \"f32[{dy}]\", xl: \"f32[{xl}]\", w: \"f32[{w}]\"):\n        \
             x: \"f32[{n}, {c}, {h}, {wd}]\" = torch.ops.aten.permute.default(xl, [0, 3, 1, 2])\n        \
             cb = torch.ops.aten.convolution_backward.default(dy, x, w, [{o}], {s}, {p}, {d}, False, [0, 0], {g}, [True, True, True])\n        \
             gx: \"f32[{n}, {c}, {h}, {wd}]\" = cb[0]\n        \
             gw: \"f32[{w}]\" = cb[1]\n        \
             gb: \"f32[{o}]\" = cb[2]\n        \
             return (gx, gw, gb)\n",
            o = w.split(", ").next().unwrap(),
        )
    };
    let onednn = coil_cpu::onednn_status().is_ok();
    for im2col in [false, true] {
        let backend: Arc<dyn Backend> = Arc::new(
            coil_cpu::CpuBackend::with_options(coil_cpu::CpuOptions {
                im2col_conv: im2col,
                ..coil_cpu::CpuOptions::default()
            })
            .unwrap(),
        );
        for case in cases {
            let g = coil_graph::parse(&graph(case)).unwrap();
            let model = coil::compile(&g, backend.clone(), &Options::default()).unwrap();
            let externs: Vec<&str> = model
                .report
                .kernels
                .iter()
                .filter(|k| k.kind.short_name() == "extern")
                .map(|k| k.name.as_str())
                .collect();
            if onednn && !im2col {
                assert_eq!(
                    externs,
                    [
                        "extern_kernels.convolution_backward_input",
                        "extern_kernels.convolution_backward_weight"
                    ],
                    "{case:?}"
                );
                assert!(model.report.fallback_ops.is_empty(), "{case:?}");
            } else {
                assert!(!model.report.fallback_ops.is_empty(), "{case:?}");
            }
            let inputs = coil_testkit::random_inputs(&g, 3);
            let got = model.run(&inputs).unwrap();
            let want = coil_eager::run(&g, &inputs).unwrap().outputs;
            coil_testkit::check_outputs(&got, &want, 1e-4, 1e-4)
                .unwrap_or_else(|e| panic!("{case:?}, im2col {im2col}: {e}"));
        }
    }
}
