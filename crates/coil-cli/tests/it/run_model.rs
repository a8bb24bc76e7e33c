//! `coil run-model`: the scheduling report (kernels, extern calls, bytes) per policy, the
//! debug directory, and option errors.

use std::process::Command;

use serde_json::Value;

fn coil(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_coil"))
        .arg("run-model")
        .args(args)
        .output()
        .expect("coil runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn report(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let (code, out, err) = coil(&all);
    assert_eq!(code, 0, "{out}\n{err}");
    serde_json::from_str(&out).expect("one JSON object")
}

fn names(r: &Value) -> Vec<String> {
    r["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn seed_model_compiles_to_one_kernel_moving_8_mib() {
    let r = report(&["seed_model", "--compile-only"]);
    assert_eq!(r["compile_only"], true);
    assert_eq!(r["num_kernels"], 1);
    assert_eq!(r["num_extern_calls"], 0);
    assert_eq!(names(&r), ["cpu_per_fused_add_mean_mul_relu_sub_0"]);
    let k = &r["kernels"][0];
    assert_eq!(
        (
            k["kind"].as_str(),
            k["numel"].as_u64(),
            k["rnumel"].as_u64()
        ),
        (Some("per"), Some(1024), Some(1024))
    );
    assert_eq!(r["bytes_accessed"], (8 << 20) + 12 * 1024);
    // Nothing ran.
    assert!(r["eager_bytes"].is_null());
    assert_eq!(r["schedule"]["policy"], "inductor");
    assert_eq!(r["schedule"]["nodes_before_fusion"], 2);
}

#[test]
fn policies_give_their_kernel_counts() {
    let count = |policy: &str, model: &str| {
        let r = report(&[model, "--compile-only", "--policy", policy]);
        (
            r["num_kernels"].as_u64().unwrap(),
            r["num_extern_calls"].as_u64().unwrap(),
        )
    };
    assert_eq!(count("tvm", "seed_model"), (3, 0));
    assert_eq!(count("none", "softmax"), (4, 0));
    assert_eq!(count("inductor", "softmax"), (1, 0));
    assert_eq!(count("inductor-regpressure", "seed_model"), (1, 0));
    // The articles' two kernels and a matmul when the relu is a kernel of its own; with
    // oneDNN's post-ops (the default where it loads) the relu runs in the matmul call.
    let epilogue = report(&["mm_epilogue", "--compile-only", "--epilogue", "kernel"]);
    assert_eq!(
        (
            epilogue["num_kernels"].as_u64(),
            epilogue["num_extern_calls"].as_u64()
        ),
        (Some(2), Some(1))
    );
    let fused = if coil_cpu::onednn_status().is_ok() {
        1
    } else {
        2
    };
    assert_eq!(count("inductor", "mm_epilogue"), (fused, 1));
    assert_eq!(count("inductor", "wall"), (2, 0));
    // The SIMD rules' schedule is the one compiled, here by the CPU backend (kernels are
    // named after the backend that compiles them), and the report says whose rules they were.
    let r = report(&["wall", "--compile-only", "--loops", "simd"]);
    assert_eq!(
        names(&r),
        ["cpu_red_fused_mean_0", "cpu_poi_fused_mean_relu_sub_1"]
    );
    assert_eq!(r["schedule"]["loops"], "simd");
    let r = report(&["wall", "--compile-only", "--backend", "cuda"]);
    assert_eq!(
        names(&r),
        ["cuda_red_fused_mean_0", "cuda_poi_fused_mean_relu_sub_1"]
    );
    assert_eq!(r["schedule"]["loops"], "simd");
}

#[test]
fn a_full_run_still_checks_against_pytorch() {
    let r = report(&["softmax", "--size", "tiny", "--policy", "tvm"]);
    assert_eq!(r["ok"], true);
    assert_eq!(r["checked"], true);
    assert!(r["eager_bytes"].as_u64().unwrap() > 0);
    assert!(r["num_kernels"].as_u64().unwrap() >= 1);
}

#[test]
fn the_debug_dir_gets_the_schedule_dumps() {
    let dir = std::env::temp_dir().join(format!("coil-cli-debug-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (code, out, err) = coil(&[
        "softmax",
        "--compile-only",
        "--debug-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let read =
        |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    assert!(
        read("ir_post_fusion.txt").starts_with("op0_op1_op2_op3: OuterLoopFusedSchedulerNode(")
    );
    let log = read("fusion.log");
    assert!(log.contains("completed fusion round (2/10): fused 3 nodes into 1 nodes\n"));
    assert!(read("graph.dot").starts_with("digraph coil {"));
    assert!(read("ir_pre_fusion.txt").contains("buf3"));
    assert!(out.contains("cpu_per_fused__softmax_0"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `COIL_DEBUG_DIR` names the debug directory when `--debug-dir` does not, output code
/// included.
#[test]
fn coil_debug_dir_in_the_environment_is_the_debug_dir() {
    let dir = std::env::temp_dir().join(format!("coil-cli-env-debug-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_coil"))
        .args(["run-model", "seed_model", "--compile-only"])
        .env("COIL_DEBUG_DIR", &dir)
        .output()
        .expect("coil runs");
    assert!(out.status.success(), "{out:?}");
    for f in [
        "fx_graph_readable.py",
        "ir_post_fusion.txt",
        "output_code.ll",
    ] {
        assert!(dir.join(f).is_file(), "no {f} in {}", dir.display());
    }
    let code = std::fs::read_to_string(dir.join("output_code.ll")).unwrap();
    assert!(code.contains("define void @cpu_"), "{code}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unknown_policy_is_an_option_error() {
    let (code, _, err) = coil(&["seed_model", "--policy", "greedy"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown policy 'greedy' (inductor, inductor-regpressure, tvm, none)"),
        "{err}"
    );
    let (code, _, err) = coil(&["seed_model", "--loops", "avx"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown loop rules 'avx'"), "{err}");
}

#[test]
fn the_eager_check_holds_a_global_mean_to_float64() {
    // wall's outputs are `relu(x - mean(x))`: against eager run in float64, the tolerance is
    // eager float32's own error (about 1e-8) plus 1e-6, not the bound of a long sum.
    let r = report(&["wall"]);
    let c = &r["compiled_vs_eager"];
    assert_eq!(c["ok"], true, "{c}");
    assert_eq!(c["atol_rule"], "eager_f32_error_vs_f64", "{c}");
    assert!(c["atol"].as_f64().unwrap() < 1e-5, "{c}");
}

#[test]
fn the_passes_check_allows_float32_rounding() {
    // transformer_block's rewrites (decomposed layer norms and softmax, reassociated matmul
    // epilogues) move its float32 results by about eager's own error: the check judges the
    // transformed graph by the float64 reference, as it judges the compiled model.
    let r = report(&["transformer_block", "--backend", "eager"]);
    let p = &r["passes"];
    assert_eq!(
        (&r["ok"], &p["ok"]),
        (&Value::Bool(true), &Value::Bool(true)),
        "{p}"
    );
    assert_eq!(p["atol_rule"], "eager_f32_error_vs_f64", "{p}");
    assert!(p["rewrites"].as_u64().unwrap() > 0, "{p}");
    assert!(
        p["max_abs_err"].as_f64().unwrap() <= p["atol"].as_f64().unwrap(),
        "{p}"
    );
}

#[test]
fn run_model_runs_each_stage_once_per_invocation() {
    for backend in ["cpu", "eager"] {
        let out = Command::new(env!("CARGO_BIN_EXE_coil"))
            .args([
                "run-model",
                "softmax",
                "--size",
                "tiny",
                "--backend",
                backend,
            ])
            .env("COIL_LOGS", "stages")
            .output()
            .expect("coil runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let log = String::from_utf8_lossy(&out.stderr);
        for stage in ["passes", "lowering", "scheduling", "codegen"] {
            let runs = log
                .lines()
                .filter(|l| l.contains("stage done") && l.contains(&format!("stage=\"{stage}\"")))
                .count();
            assert_eq!(runs, 1, "{backend}: {stage} ran {runs} times:\n{log}");
        }
        let compiled = log
            .lines()
            .filter(|l| l.contains("stage=\"backend\""))
            .count();
        assert_eq!(compiled, usize::from(backend == "cpu"), "{backend}:\n{log}");
    }
}

#[test]
fn tensors_an_inputs_file_holds_beyond_the_graph_are_named_in_a_warning() {
    let dir = std::env::temp_dir().join(format!("coil-cli-extra-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let graph = dir.join("relu.py");
    std::fs::write(
        &graph,
        "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[4]\"):\n        relu: \"f32[4]\" = torch.ops.aten.relu.default(x);  x = None\n        return (relu,)\n",
    )
    .unwrap();
    let x = coil_graph::Tensor::from_f32(vec![-1.0, 2.0, -3.0, 4.0], vec![4]).unwrap();
    let inputs = dir.join("inputs.safetensors");
    coil_graph::Tensor::save_safetensors(
        &inputs,
        &[("input.x".into(), x.clone()), ("input.typo".into(), x)],
    )
    .unwrap();
    let (code, _, err) = coil(&[
        graph.to_str().unwrap(),
        "--inputs",
        inputs.to_str().unwrap(),
        "--backend",
        "eager",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("holds tensors the graph does not use (ignored): input.typo"),
        "{err}"
    );
    // A truncated file is an error naming the file and what is wrong with it.
    let bytes = std::fs::read(&inputs).unwrap();
    std::fs::write(&inputs, &bytes[..bytes.len() - 5]).unwrap();
    let (code, out, _) = coil(&[
        graph.to_str().unwrap(),
        "--inputs",
        inputs.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 1);
    let r: Value = serde_json::from_str(&out).expect("one JSON object on failure too");
    assert_eq!(r["ok"], false);
    let e = r["error"].as_str().unwrap();
    assert!(
        e.contains("inputs.safetensors") && e.contains("truncated or corrupt"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_memory_budget_refuses_what_would_not_fit_before_allocating() {
    let dir = std::env::temp_dir().join(format!("coil-cli-budget-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    // Inputs of 1.49 GiB against a 1 GiB budget: refused before random inputs are drawn.
    let big = write(
        "big.py",
        "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[20000, 20000]\"):\n        relu: \"f32[20000, 20000]\" = torch.ops.aten.relu.default(x);  x = None\n        return (relu,)\n",
    );
    let (code, out, _) = coil(&[&big, "--max-memory", "1G", "--json"]);
    assert_eq!(code, 1);
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["ok"], false);
    let e = r["error"].as_str().unwrap();
    assert!(
        e.contains("inputs take 1.49 GiB, more than the memory budget of 1.00 GiB"),
        "{e}"
    );
    // An expand to 40 GB, then a sum: eager refuses the sum, naming it.
    let expand = write(
        "expand.py",
        "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[100000, 1]\"):\n        expand: \"f32[100000, 100000]\" = torch.ops.aten.expand.default(x, [100000, 100000]);  x = None\n        sum_1: \"f32[]\" = torch.ops.aten.sum.default(expand);  expand = None\n        return (sum_1,)\n",
    );
    let (code, out, _) = coil(&[
        &expand,
        "--max-memory",
        "2G",
        "--backend",
        "eager",
        "--json",
    ]);
    assert_eq!(code, 1);
    let r: Value = serde_json::from_str(&out).unwrap();
    let e = r["error"].as_str().unwrap();
    assert!(
        e.contains("node 'sum_1' would need 40000000004 bytes"),
        "{e}"
    );
    // A softmax over a huge dim of no rows is computed (an empty result), not allocated.
    let empty = write(
        "empty.py",
        "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[0, 4294967296]\"):\n        _softmax: \"f32[0, 4294967296]\" = torch.ops.aten._softmax.default(x, 1, False);  x = None\n        return (_softmax,)\n",
    );
    let (code, out, err) = coil(&[&empty, "--json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let (code, _, err) = coil(&["seed_model", "--max-memory", "lots"]);
    assert_eq!(code, 2);
    assert!(err.contains("'lots' is not a size"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn dtype_runs_the_zoo_in_16_bit_floats() {
    // The zoo's bf16 export with PyTorch's bf16 outputs, checked with PyTorch's tolerance for
    // bf16 (or float64's rule beyond it).
    let r = report(&["transformer_block", "--size", "tiny", "--dtype", "bf16"]);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["checked"], true, "{r}");
    assert_eq!(r["model"], "transformer_block_bf16", "{r}");
    assert_eq!(r["outputs"][0]["dtype"], "bf16", "{r}");
    let r = report(&["gelu_mlp", "--dtype", "f16"]);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["compiled_vs_eager"]["ok"], true, "{r}");
    // A real model in bf16 against PyTorch's own bf16 results.
    let r = report(&["hf_gpt2", "--dtype", "bf16"]);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["checked"], true, "{r}");
    assert_eq!(r["model"], "hf_gpt2_bf16", "{r}");
    let (code, _, err) = coil(&["seed_model", "--dtype", "f64"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown dtype 'f64' (f32, bf16 or f16)"),
        "{err}"
    );
}

/// The check against given outputs (`--inputs` with `output.<i>`): a 512-deep f32 matmul that
/// PyTorch summed in another order differs from coil's by more than the fixed tolerance near
/// zero, yet both are within float32's rounding of the float64 reference, so the check passes
/// by float64's rule; a real difference still fails.
#[test]
fn given_outputs_summed_in_another_order_pass_by_the_float64_rule() {
    let dir = std::env::temp_dir().join(format!("coil-cli-order-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let graph = dir.join("mm.py");
    std::fs::write(
        &graph,
        "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[64, 512]\", w: \"f32[512, 64]\"):\n        mm: \"f32[64, 64]\" = torch.ops.aten.mm.default(x, w);  x = w = None\n        return (mm,)\n",
    )
    .unwrap();
    let mut seed = 12345u64;
    let mut uniform = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((seed >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0
            })
            .collect()
    };
    let (x, w) = (uniform(64 * 512), uniform(512 * 64));
    // Each dot product summed last term first, in f32 (another order than coil's libraries).
    let dot = |i: usize, j: usize, forward: bool| -> f32 {
        let mut acc = 0.0f32;
        for t in 0..512 {
            let k = if forward { t } else { 511 - t };
            acc += x[i * 512 + k] * w[k * 64 + j];
        }
        acc
    };
    let reversed: Vec<f32> = (0..64 * 64).map(|e| dot(e / 64, e % 64, false)).collect();
    // The case is one the fixed tolerance (rtol 1e-4, atol 1e-5) cannot hold: two orders differ.
    let beyond = (0..64 * 64).any(|e| {
        let (a, b) = (dot(e / 64, e % 64, true), reversed[e]);
        (a - b).abs() > 1e-5 + 1e-4 * b.abs()
    });
    assert!(
        beyond,
        "the two summation orders agree within the fixed tolerance"
    );
    let write = |out: Vec<f32>| {
        let file = dir.join("io.safetensors");
        let t = |v: &[f32], s: Vec<usize>| coil_graph::Tensor::from_f32(v.to_vec(), s).unwrap();
        coil_graph::Tensor::save_safetensors(
            &file,
            &[
                ("input.x".into(), t(&x, vec![64, 512])),
                ("input.w".into(), t(&w, vec![512, 64])),
                ("output.0".into(), t(&out, vec![64, 64])),
            ],
        )
        .unwrap();
        file
    };
    let file = write(reversed.clone());
    let r = report(&[graph.to_str().unwrap(), "--inputs", file.to_str().unwrap()]);
    assert_eq!(r["ok"], true, "{r}");
    let mut wrong = reversed;
    wrong[100] += 1.0;
    let file = write(wrong);
    let (code, out, _) = coil(&[
        graph.to_str().unwrap(),
        "--inputs",
        file.to_str().unwrap(),
        "--json",
    ]);
    let r: Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!((code, &r["ok"]), (1, &Value::Bool(false)), "{r}");
    let _ = std::fs::remove_dir_all(dir);
}

/// `relu(x @ w).reshape(2 * rows, -1).softmax(-1) + 1` and a column sum, as PyTorch prints it
/// traced with symbolic sizes (coil-graph's test of the same file checks the parse).
const SYMBOLIC: &str = include_str!("../../../coil-graph/tests/data/symbolic_mm_softmax.py");

/// A graph file with symbolic sizes runs for the sizes of each `--inputs` it is given (its
/// symbols bound to them), checked against eager; without `--inputs` it says what it needs.
#[test]
fn a_graph_with_symbolic_sizes_runs_at_the_sizes_of_its_inputs() {
    use coil_graph::{DType, Tensor};
    let dir = std::env::temp_dir().join(format!("coil-cli-symbolic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let graph = dir.join("dynamic.py");
    std::fs::write(&graph, SYMBOLIC).unwrap();
    let g = graph.to_str().unwrap();
    for (rows, k, n) in [(6, 8, 4), (13, 5, 10), (1, 3, 2)] {
        let file = dir.join(format!("in_{rows}.safetensors"));
        let tensors = [
            (
                "input.x_1".to_string(),
                coil_testkit::random_tensor(DType::F32, &[rows, k], 1),
            ),
            (
                "input.w_1".to_string(),
                coil_testkit::random_tensor(DType::F32, &[k, n], 2),
            ),
        ];
        Tensor::save_safetensors(&file, &tensors).unwrap();
        let r = report(&[g, "--inputs", file.to_str().unwrap()]);
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(
            r["outputs"][0]["shape"],
            serde_json::json!([2 * rows, n / 2]),
            "{r}"
        );
        let inputs = r["inputs"].as_str().unwrap();
        assert!(inputs.contains(&format!("s75={rows}")), "{inputs}");
    }
    let (code, _, err) = coil(&[g]);
    assert_ne!(code, 0);
    assert!(err.contains("has symbolic sizes: give --inputs"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Several `--inputs` files for a graph with symbolic sizes: one backend compiles the graph for
/// each file's sizes, a later size running the machine code of the kernels whose code the size
/// does not change, beside a static compile of each size alone; every size checked.
#[test]
fn several_inputs_files_compile_each_size_and_share_machine_code() {
    use coil_graph::{DType, Tensor};
    let dir = std::env::temp_dir().join(format!("coil-cli-sizes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let graph = dir.join("dynamic.py");
    std::fs::write(&graph, SYMBOLIC).unwrap();
    let mut files = Vec::new();
    for rows in [6, 13, 29] {
        let file = dir.join(format!("in_{rows}.safetensors"));
        let tensors = [
            (
                "input.x_1".to_string(),
                coil_testkit::random_tensor(DType::F32, &[rows, 8], rows as u64),
            ),
            (
                "input.w_1".to_string(),
                coil_testkit::random_tensor(DType::F32, &[8, 4], 2),
            ),
        ];
        Tensor::save_safetensors(&file, &tensors).unwrap();
        files.push(file.to_str().unwrap().to_string());
    }
    let r = report(&[graph.to_str().unwrap(), "--inputs", &files.join(",")]);
    assert_eq!(r["ok"], true, "{r}");
    let sizes = r["sizes"].as_array().unwrap();
    assert_eq!(sizes.len(), 3, "{r}");
    assert!(
        sizes[0]["binding"].as_str().unwrap().contains("s75=6"),
        "{r}"
    );
    assert_eq!(sizes[0]["kernels_reused"], 0, "{r}");
    for s in &sizes[1..] {
        // The softmax rows and the relu run the first size's code; the column sum (a
        // reduction over the rows) is compiled again.
        let reused = s["kernels_reused"].as_u64().unwrap();
        assert!(reused >= 1, "{r}");
        assert!(reused < s["kernels"].as_u64().unwrap(), "{r}");
        assert!(s["static_compile_ms"].as_f64().unwrap() > 0.0, "{r}");
    }
    // A graph without symbols is not for several files.
    let (code, _, err) = coil(&["seed_model", "--inputs", "a.safetensors,b.safetensors"]);
    assert_ne!(code, 0);
    assert!(err.contains("symbolic sizes"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
