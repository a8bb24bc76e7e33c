//! The whole program's compile-cache entry (`Options::cache`): a second compile of the same
//! graph loads what the stages made and runs the same kernels bit for bit; each part of the
//! key, changed on its own, misses; a damaged entry recompiles; what cannot be stored whole
//! (a host fallback) or keyed (a debug directory) is not; a hit still keeps its promises (the
//! memory budget, index checks' messages, every stage's output on request).

use std::path::Path;
use std::sync::Arc;

use coil::{CompiledModel, Options};
use coil_cache::Cache;
use coil_codegen::{Backend, InterpBackend};
use coil_graph::{DType, Graph, Tensor};
use coil_testkit::random_tensor;

use crate::scatter::ints;

const SOFTMAX_ADD: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[6, 10]", y: "f32[6, 10]"):
        softmax: "f32[6, 10]" = torch.ops.aten._softmax.default(x, -1, False)
        add: "f32[6, 10]" = torch.ops.aten.add.Tensor(softmax, y)
        relu: "f32[6, 10]" = torch.ops.aten.relu.default(add)
        sum_1: "f32[6]" = torch.ops.aten.sum.dim_IntList(relu, [1])
        return (relu, sum_1)
"#;

/// An empty cache in a directory of its own (removed when the first value drops), and the
/// reference evaluator's backend.
fn fresh() -> (tempfile::TempDir, Arc<Cache>, Arc<dyn Backend>) {
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(Cache::at(dir.path(), 1 << 24));
    (dir, cache, Arc::new(InterpBackend::new()))
}

fn options(cache: &Arc<Cache>) -> Options {
    Options {
        cache: Some(cache.clone()),
        ..Options::default()
    }
}

fn compile(g: &Graph, backend: &Arc<dyn Backend>, options: &Options) -> CompiledModel {
    coil::compile(g, backend.clone(), options).expect("compiles")
}

fn bits(outputs: &[Tensor]) -> Vec<Vec<u64>> {
    outputs
        .iter()
        .map(|t| t.to_f64_vec().iter().map(|v| v.to_bits()).collect())
        .collect()
}

fn entries(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(d) = std::fs::read_dir(dir.join("program")) else {
        return Vec::new();
    };
    let mut out: Vec<_> = d
        .flatten()
        .flat_map(|e| std::fs::read_dir(e.path()).into_iter().flatten().flatten())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    out.sort();
    out
}

/// The reference evaluator's backend, and the CPU's with its machine code in `cache`.
fn cpu_and_interp(cache: &Arc<Cache>) -> Vec<Arc<dyn Backend>> {
    let mut b: Vec<Arc<dyn Backend>> = vec![Arc::new(InterpBackend::new())];
    let cpu = coil_cpu::CpuBackend::with_options(coil_cpu::CpuOptions {
        compile_cache: Some(cache.clone()),
        ..coil_cpu::CpuOptions::default()
    });
    if let Ok(cpu) = cpu {
        b.push(Arc::new(cpu));
    }
    b
}

#[test]
fn a_second_compile_loads_the_program_and_runs_it_bit_for_bit() {
    let (_dir, cache, _) = fresh();
    for backend in cpu_and_interp(&cache) {
        let g = coil_graph::parse(SOFTMAX_ADD).unwrap();
        let inputs = coil_testkit::random_inputs(&g, 7);
        let cold = compile(&g, &backend, &options(&cache));
        assert_eq!(cold.report.program_cache, "miss");
        let warm = compile(&g, &backend, &options(&cache));
        assert_eq!(warm.report.program_cache, "hit", "{}", backend.name());
        assert_eq!(warm.report.times.passes_ms, 0.0);
        assert!(warm.report.times.cache_ms > 0.0);
        // The same program, and the same counts in the report.
        assert_eq!(cold.program().kernels, warm.program().kernels);
        assert_eq!(cold.program().plan, warm.program().plan);
        assert_eq!(cold.report.kernels, warm.report.kernels);
        assert_eq!(cold.report.num_kernels, warm.report.num_kernels);
        assert_eq!(cold.report.fusion_log, warm.report.fusion_log);
        assert_eq!(cold.report.loops, warm.report.loops);
        assert_eq!(cold.report.backend, warm.report.backend);
        assert_eq!(
            bits(&cold.run(&inputs).unwrap()),
            bits(&warm.run(&inputs).unwrap()),
            "{}",
            backend.name()
        );
        // Every stage's output, prepared again on request, has the program that runs.
        let artifacts = warm.artifacts().expect("prepares");
        assert_eq!(artifacts.program.kernels, warm.program().kernels);
        assert_eq!(
            artifacts.lowered.buffers().len(),
            warm.report.lowered_buffers
        );
        if backend.name() == "cpu" {
            assert_eq!(warm.report.machine_code.cache, "hit");
        }
    }
}

#[test]
fn each_part_of_the_key_changed_on_its_own_misses() {
    let (_dir, cache, interp) = fresh();
    let g = coil_graph::parse(SOFTMAX_ADD).unwrap();
    let base = options(&cache);
    assert_eq!(compile(&g, &interp, &base).report.program_cache, "miss");
    assert_eq!(compile(&g, &interp, &base).report.program_cache, "hit");
    let word = |g: &Graph, backend: &Arc<dyn Backend>, o: &Options| {
        compile(g, backend, o).report.program_cache
    };
    // The graph: another size, another dtype, another argument.
    for (from, to) in [
        ("6, 10", "6, 11"),
        ("f32", "f64"),
        ("(x, -1, False)", "(x, 1, False)"),
        ("sum.dim_IntList(relu, [1])", "sum.dim_IntList(relu, [-1])"),
    ] {
        let other = coil_graph::parse(&SOFTMAX_ADD.replace(from, to)).unwrap();
        assert_eq!(word(&other, &interp, &base), "miss", "{from} -> {to}");
    }
    // The options: strategy, passes, scheduler knobs, deterministic mode.
    let tvm = Options {
        cache: Some(cache.clone()),
        ..Options::with_strategy("tvm").unwrap()
    };
    assert_eq!(word(&g, &interp, &tvm), "miss", "strategy");
    let mut passes = base.clone();
    passes.passes.skip_rules.push("silu");
    assert_eq!(word(&g, &interp, &passes), "miss", "passes");
    let mut sched = base.clone();
    let mut knobs = coil_sched::SchedConfig::for_target(&interp.target());
    knobs.max_fusion_size /= 2;
    sched.sched = Some(knobs);
    assert_eq!(word(&g, &interp, &sched), "miss", "scheduler");
    let deterministic = Options {
        deterministic: true,
        ..base.clone()
    };
    assert_eq!(word(&g, &interp, &deterministic), "miss", "deterministic");
    // The target.
    if let Ok(cpu) = coil_cpu::CpuBackend::new() {
        let cpu: Arc<dyn Backend> = Arc::new(cpu);
        assert_eq!(word(&g, &cpu, &base), "miss", "target");
    }
    // And the first one is still there.
    assert_eq!(word(&g, &interp, &base), "hit");
}

#[test]
fn a_damaged_entry_recompiles_with_the_same_results() {
    let (dir, cache, interp) = fresh();
    let g = coil_graph::parse(SOFTMAX_ADD).unwrap();
    let inputs = coil_testkit::random_inputs(&g, 3);
    let want = bits(&compile(&g, &interp, &options(&cache)).run(&inputs).unwrap());
    let [entry] = entries(dir.path()).try_into().expect("one program entry");
    // Truncated, then flipped in the middle: the checksum finds both.
    let bytes = std::fs::read(&entry).unwrap();
    std::fs::write(&entry, &bytes[..bytes.len() / 2]).unwrap();
    let model = compile(&g, &interp, &options(&cache));
    assert_eq!(model.report.program_cache, "miss");
    assert_eq!(bits(&model.run(&inputs).unwrap()), want);
    let mut bytes = std::fs::read(&entry).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x5a;
    std::fs::write(&entry, &bytes).unwrap();
    let model = compile(&g, &interp, &options(&cache));
    assert_eq!(model.report.program_cache, "miss");
    assert_eq!(bits(&model.run(&inputs).unwrap()), want);
    assert_eq!(
        compile(&g, &interp, &options(&cache)).report.program_cache,
        "hit"
    );
}

#[test]
fn host_fallbacks_and_debug_directories_are_not_stored_whole() {
    let (dir, cache, interp) = fresh();
    // A max bag is a host call.
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, w: "f32[5, 3]", ids: "i64[6]", offsets: "i64[3]"):
        bag = torch.ops.aten._embedding_bag.default(w, ids, offsets, False, 2)
        out: "f32[3, 3]" = bag[0]
        return (out,)
"#;
    let g = coil_graph::parse(text).unwrap();
    for _ in 0..2 {
        let model = compile(&g, &interp, &options(&cache));
        assert!(!model.report.fallback_ops.is_empty());
        assert_eq!(model.report.program_cache, "miss");
    }
    assert!(entries(dir.path()).is_empty());
    let softmax = coil_graph::parse(SOFTMAX_ADD).unwrap();
    let debug = tempfile::tempdir().unwrap();
    let with_dumps = Options {
        debug_dir: Some(debug.path().to_path_buf()),
        ..options(&cache)
    };
    for _ in 0..2 {
        assert_eq!(
            compile(&softmax, &interp, &with_dumps).report.program_cache,
            "off"
        );
    }
    assert!(debug.path().join("kernels.txt").exists());
    assert!(entries(dir.path()).is_empty());
    // Off: no cache, or a cache turned off.
    let off = Options {
        cache: Some(Arc::new(Cache::off())),
        ..Options::default()
    };
    assert_eq!(compile(&softmax, &interp, &off).report.program_cache, "off");
}

#[test]
fn a_hit_keeps_the_memory_budget_and_the_index_checks_messages() {
    let (_dir, cache, interp) = fresh();
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, w: "f32[5, 3]", ids: "i64[4]"):
        embedding: "f32[4, 3]" = torch.ops.aten.embedding.default(w, ids)
        mul: "f32[4, 3]" = torch.ops.aten.mul.Tensor(embedding, 2.0)
        return (mul,)
"#;
    let g = coil_graph::parse(text).unwrap();
    let w = random_tensor(DType::F32, &[5, 3], 1);
    let bad = [w.clone(), ints(vec![0, 7, 1, 2], vec![4])];
    let cold = compile(&g, &interp, &options(&cache));
    let warm = compile(&g, &interp, &options(&cache));
    assert_eq!(warm.report.program_cache, "hit");
    let (e1, e2) = (
        cold.run(&bad).unwrap_err().to_string(),
        warm.run(&bad).unwrap_err().to_string(),
    );
    assert_eq!(e1, e2);
    assert!(
        e2.contains("index 7 is out of bounds") && e2.contains("'embedding'"),
        "{e2}"
    );
    let tight = Options {
        max_memory: Some(16),
        ..options(&cache)
    };
    let err = coil::compile(&g, interp.clone(), &tight)
        .err()
        .expect("over budget");
    assert!(
        err.to_string().contains("more than the budget of 16 bytes"),
        "{err}"
    );
}

/// A program entry holds its kernels as text: every real model's kernels, for the CPU and for
/// the GPU, read back as the same kernels (so a hit runs what the stages built, and finds the
/// backend's machine code under the same keys).
#[test]
fn every_real_models_kernels_read_back_from_their_text() {
    let cpu = coil_cpu::CpuBackend::new().ok();
    let gpu = coil_cuda::CudaBackend::offline();
    let mut targets: Vec<&dyn Backend> = vec![&gpu];
    if let Some(cpu) = &cpu {
        targets.push(cpu);
    }
    for m in coil_models::REAL_MODELS {
        let graph = coil_graph::parse(m.text).expect("parses");
        for &backend in &targets {
            let p = coil::prepare(&graph, backend, &Options::default()).expect("prepares");
            let kernels = &p.artifacts.program.kernels;
            let text: Vec<String> = kernels.iter().map(|k| k.to_string()).collect();
            let back = coil_codegen::parse_kernels(&text.join("\n"))
                .unwrap_or_else(|e| panic!("{} on {}: {e}", m.name, backend.name()));
            assert!(back == *kernels, "{} on {}", m.name, backend.name());
        }
    }
}

/// With the stages' logs on (`COIL_LOGS=fusion`), the stages run and log: no program is
/// loaded from the cache.
#[test]
fn with_the_stages_logs_on_the_stages_run() {
    let (_dir, cache, interp) = fresh();
    let g = coil_graph::parse(SOFTMAX_ADD).unwrap();
    assert_eq!(
        compile(&g, &interp, &options(&cache)).report.program_cache,
        "miss"
    );
    assert_eq!(
        compile(&g, &interp, &options(&cache)).report.program_cache,
        "hit"
    );
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(coil::log_directives(
            "fusion",
        )))
        .with_writer(std::io::sink)
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        assert_eq!(
            compile(&g, &interp, &options(&cache)).report.program_cache,
            "off"
        );
    });
}
