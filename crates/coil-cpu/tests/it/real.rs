//! The real architectures of the zoo (torchvision, timm, Hugging Face; `coil_models::REAL_MODELS`)
//! compiled for the CPU under every built-in strategy and run on PyTorch's inputs: the outputs
//! match PyTorch's saved ones, with no host fallback inside any of them (DLRM's embedding bags
//! included).

use std::sync::Arc;

use coil_graph::Tensor;
use coil_testkit::check_close;

#[test]
fn real_models_match_pytorch_under_every_strategy() {
    let backend = Arc::new(coil_cpu::CpuBackend::new().expect("cpu backend"));
    assert!(coil_models::REAL_MODELS.len() >= 12);
    for m in coil_models::REAL_MODELS {
        let graph = coil_graph::parse(m.text).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        let tensors = Tensor::read_safetensors(m.safetensors).expect("safetensors");
        let (inputs, outputs) = coil_models::split_io(&graph, &tensors).expect("inputs");
        let outputs = outputs.expect("PyTorch's outputs");
        for strategy in coil_sched::builtin_strategy_names() {
            let what = format!("{} ({strategy})", m.name);
            let opts = coil::Options::with_strategy(strategy).expect("strategy");
            let model = coil::compile(&graph, backend.clone(), &opts)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(
                model.report.fallback_ops.is_empty(),
                "{what}: host fallbacks {:?}",
                model.report.fallback_ops
            );
            let got = model.run(&inputs).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(got.len(), outputs.len(), "{what}");
            for (i, (g, w)) in got.iter().zip(&outputs).enumerate() {
                check_close(g, w, 1e-5, 1e-4).unwrap_or_else(|e| panic!("{what} output {i}: {e}"));
            }
        }
    }
}

/// The op-level cases exported from PyTorch (coil-eager's `tests/data/ops`, made by
/// `tools/op_cases.py`) compiled for the CPU: every lowering (and host fallback) of the
/// real-model ops against PyTorch's own outputs.
#[test]
fn op_cases_compiled_for_the_cpu_match_pytorch() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../coil-eager/tests/data/ops");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the op cases")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    assert!(files.len() > 100, "{} cases", files.len());
    // Convolutions through oneDNN where it loads, and as im2col and a matmul.
    let library = Arc::new(coil_cpu::CpuBackend::new().expect("cpu backend"));
    let im2col = Arc::new(
        coil_cpu::CpuBackend::with_options(coil_cpu::CpuOptions {
            im2col_conv: true,
            ..coil_cpu::CpuOptions::default()
        })
        .expect("cpu backend"),
    );
    assert!(!im2col.uses_onednn());
    let mut failures = Vec::new();
    // Every case on the default backend; the convolutions again as im2col when that differs.
    let runs = files.iter().map(|p| (p, library.clone())).chain(
        files
            .iter()
            .filter(|p| library.uses_onednn() && p.to_string_lossy().contains("conv"))
            .map(|p| (p, im2col.clone())),
    );
    for (py, backend) in runs {
        let name = py.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(py).expect("readable");
        let graph = coil_graph::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let tensors =
            Tensor::load_safetensors(&py.with_extension("safetensors")).expect("safetensors");
        let (inputs, outputs) = coil_models::split_io(&graph, &tensors).expect("inputs");
        let outputs = outputs.expect("PyTorch's outputs");
        let result = coil::compile(&graph, backend.clone(), &coil::Options::default())
            .map_err(|e| e.to_string())
            .and_then(|m| m.run(&inputs).map_err(|e| e.to_string()));
        match result {
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok(got) => {
                for (i, (g, w)) in got.iter().zip(&outputs).enumerate() {
                    let tol = if g.dtype() == coil_graph::DType::F64 {
                        1e-9
                    } else {
                        1e-4
                    };
                    if let Err(e) = check_close(g, w, tol, tol) {
                        failures.push(format!("{name} output {i}: {e}"));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// Pooling windows of more than 25 taps are lowered as reductions over the window (not host
/// fallbacks): max with its indices, average with and without the padding counted, a divisor,
/// adaptive average with uneven windows; compiled for the CPU, equal to coil-eager.
#[test]
fn large_pooling_windows_are_reductions_equal_to_eager() {
    let text = r#"class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 20, 17]"):
        max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(x, [7, 6], [2, 3], [3, 2], [1, 2], True)
        getitem = max_pool2d_with_indices[0]
        getitem_1 = max_pool2d_with_indices[1]
        avg = torch.ops.aten.avg_pool2d.default(x, [6, 5], [3, 3], [2, 2], False, False)
        avg_1 = torch.ops.aten.avg_pool2d.default(x, [6, 5], [3, 3], [2, 2], False, True, 7)
        avg_2 = torch.ops.aten.avg_pool2d.default(x, [6, 5], [3, 3], [2, 2])
        adaptive = torch.ops.aten._adaptive_avg_pool2d.default(x, [3, 2])
        return (getitem, getitem_1, avg, avg_1, avg_2, adaptive)
"#;
    let graph = coil_graph::parse(text).expect("parses");
    let n = 2 * 3 * 20 * 17;
    let x = Tensor::new(
        coil_graph::Data::F32(
            (0..n)
                .map(|i| ((i * 7919) % 1000) as f32 / 100.0 - 5.0)
                .collect(),
        ),
        vec![2, 3, 20, 17],
    )
    .expect("tensor");
    let want = coil_eager::run(&graph, std::slice::from_ref(&x))
        .expect("eager")
        .outputs;
    let backend = Arc::new(coil_cpu::CpuBackend::new().expect("cpu backend"));
    let model = coil::compile(&graph, backend, &coil::Options::default()).expect("compiles");
    assert!(
        model.report.fallback_ops.is_empty(),
        "{:?}",
        model.report.fallback_ops
    );
    let got = model.run(&[x]).expect("runs");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        check_close(g, w, 1e-5, 1e-5).unwrap_or_else(|e| panic!("output {i}: {e}"));
    }
}
