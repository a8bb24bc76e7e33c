//! The zoo on a GPU, in one command: every zoo model compiled for CUDA through the facade
//! (`coil::compile` with the Inductor policy) and checked: tiny sizes against PyTorch's
//! outputs, article and large sizes (random inputs) against coil-eager. The `large/` models
//! ([8192, 8192]) are then benchmarked with CUDA events (3 warm-up runs, median of 30):
//! achieved GB/s over the minimum bytes (inputs read once, outputs written once) against a
//! device-to-device copy measured in the same run, per-kernel times, and the same kernels
//! under other strategies (looped, or persistent with other block sizes) for comparison.
//! Article sizes also report the host-side time of one whole call (`run_resident`: launches
//! plus synchronisation). Prints Markdown tables; exits non-zero on any mismatch or error.
//!
//! ```text
//! cargo build --release -p coil-cuda --example cuda_zoo      # here (needs no GPU)
//! ./target/release/examples/cuda_zoo                         # on the GPU machine
//! ./target/release/examples/cuda_zoo --quick                 # tiny + article checks only
//! ./target/release/examples/cuda_zoo --gemm classic          # matmuls through classic cuBLAS
//! compute-sanitizer ./target/release/examples/cuda_zoo --quick
//! ```
//!
//! Flags: `--quick` (no large models), `--model NAME` (one model), `--reps N` (timed runs,
//! default 30), `--no-variants`, `--emulate` (no GPU: the same PTX on coil-cuda's emulator,
//! correctness only, implies `--quick`; how this example is tested without a GPU). cuBLAS (for mm/bmm): found on the loader path, in
//! `$COIL_CUBLAS_DIR`, or in the `nvidia` Python package of `python3` (PyTorch's wheels).

#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "support/find_cublas.rs"]
mod find_cublas;

use coil_codegen::Runtime as _;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use coil::{CompiledModel, Options};
use coil_codegen::{Backend, Kernel};
use coil_cuda::render::{KernelPlan, Strategy, plan_kernel};
use coil_cuda::{CudaBackend, GpuCaps, GpuDevice, Planner};
use coil_graph::{DType, Data, Graph, Tensor};
use coil_models::Size;

const WARMUP: usize = 3;

struct Args {
    quick: bool,
    emulate: bool,
    model: Option<String>,
    reps: usize,
    variants: bool,
    /// The large models cast to this float dtype (f32: the zoo as it is, every size).
    dtype: DType,
    /// Matmuls through cuBLASLt (the default) or classic cuBLAS (`--gemm classic`).
    lt: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        quick: false,
        emulate: false,
        model: None,
        reps: 30,
        variants: true,
        dtype: DType::F32,
        lt: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--quick" => a.quick = true,
            "--emulate" => {
                a.emulate = true;
                a.quick = true;
            }
            "--no-variants" => a.variants = false,
            "--dtype" => {
                a.dtype = match it.next().as_deref() {
                    Some("f32") => DType::F32,
                    Some("bf16") => DType::BF16,
                    Some("f16") => DType::F16,
                    _ => return Err("--dtype takes f32, bf16 or f16".into()),
                }
            }
            "--gemm" => {
                a.lt = match it.next().as_deref() {
                    Some("lt") => true,
                    Some("classic") => false,
                    _ => return Err("--gemm takes lt or classic".into()),
                }
            }
            "--model" => a.model = Some(it.next().ok_or("--model needs a name")?),
            "--reps" => {
                a.reps = it
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n: &usize| n > 0)
                    .ok_or("--reps needs a positive number")?
            }
            "-h" | "--help" => {
                println!(
                    "cuda_zoo [--quick] [--model NAME] [--reps N] [--no-variants] [--emulate] \
                     [--dtype f32|bf16|f16] [--gemm lt|classic]"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

/// Failures collected along the way; any makes the exit code 1.
#[derive(Default)]
struct Failures(Vec<String>);

impl Failures {
    fn note(&mut self, what: String) {
        eprintln!("FAIL: {what}");
        self.0.push(what);
    }
}

// ---- inputs and comparison ------------------------------------------------------------------

/// Deterministic inputs (SplitMix64): floats uniform in [-2, 2), integers in [-100, 100),
/// bools half true.
fn random_input(dtype: DType, sizes: &[usize], seed: u64) -> Tensor {
    let n: usize = sizes.iter().product();
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut next = move || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
    };
    let data = match dtype {
        DType::F32 => Data::F32((0..n).map(|_| next() as f32).collect()),
        DType::Bool => Data::Bool((0..n).map(|_| next() > 0.0).collect()),
        DType::I32 => Data::I32((0..n).map(|_| (next() * 50.0) as i32).collect()),
        DType::I64 => Data::I64((0..n).map(|_| (next() * 50.0) as i64).collect()),
        d => Data::from_f64(d, (0..n).map(|_| next())),
    };
    Tensor::new(data, sizes.to_vec()).expect("sizes match the data")
}

fn inputs_for(g: &Graph, seed: u64) -> Vec<Tensor> {
    g.inputs()
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            let m = g.node(id).meta();
            random_input(m.dtype, &m.sizes, seed + i as u64)
        })
        .collect()
}

/// Max absolute error, and whether every element is within `rel * max(1, max |want|) +
/// rel * |want|` (matmuls and long sums accumulate in different orders on each side, so the
/// bound scales with the output's magnitude); NaNs and infinities must match exactly.
fn close_within(got: &[Tensor], want: &[Tensor], rel: f64) -> Result<f64, String> {
    if got.len() != want.len() {
        return Err(format!("{} outputs, expected {}", got.len(), want.len()));
    }
    let mut worst = 0f64;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if g.sizes() != w.sizes() || g.dtype() != w.dtype() {
            return Err(format!(
                "output {i}: {}{:?} vs {}{:?}",
                g.dtype(),
                g.sizes(),
                w.dtype(),
                w.sizes()
            ));
        }
        let (gv, wv) = (g.to_f64_vec(), w.to_f64_vec());
        let scale = wv
            .iter()
            .filter(|x| x.is_finite())
            .fold(1f64, |m, x| m.max(x.abs()));
        for (k, (a, b)) in gv.iter().zip(&wv).enumerate() {
            if !b.is_finite() || !a.is_finite() {
                if a.to_bits() != b.to_bits() && !(a.is_nan() && b.is_nan()) && a != b {
                    return Err(format!("output {i} element {k}: {a} vs {b}"));
                }
                continue;
            }
            let d = (a - b).abs();
            worst = worst.max(d);
            if d > rel * scale + rel * b.abs() {
                return Err(format!(
                    "output {i} element {k}: {a} vs {b} (scale {scale:.3e})"
                ));
            }
        }
    }
    Ok(worst)
}

// ---- timing -------------------------------------------------------------------------------

/// Runs timed together between two device events (as `run-model --bench` does).
const BACK_TO_BACK: usize = 10;

/// One benchmark through the facade's device clock ([`CompiledModel::device_times`], the same
/// measurement `run-model --bench` makes): the median device time of one run from runs
/// enqueued back to back, and each launch's median.
fn bench(model: &CompiledModel, reps: usize) -> Result<coil::DeviceBench, String> {
    for _ in 0..WARMUP {
        model.run_resident().map_err(|e| e.to_string())?;
    }
    model
        .device_times(reps, BACK_TO_BACK)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "the CUDA backend has no device clock".to_string())
}

/// Host wall time of one whole call (`run_resident`: launches + synchronize), median.
fn call_us(model: &CompiledModel, reps: usize) -> Result<f64, String> {
    for _ in 0..WARMUP {
        model.run_resident().map_err(|e| e.to_string())?;
    }
    let mut v = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        model.run_resident().map_err(|e| e.to_string())?;
        v.push(t.elapsed().as_secs_f64() * 1e6);
    }
    Ok(coil::median(v))
}

// ---- strategies to compare ----------------------------------------------------------------

fn lanes_of(k: &Kernel) -> u32 {
    coil_cuda::render::chunk_lanes(k, k.rnumel())
}

/// Alternative plans: each changes one kind of kernel (reductions that are not split, or
/// pointwise kernels) and keeps the default for the others; a variant that changes none of
/// a model's kernels is skipped.
fn variants() -> Vec<(&'static str, Option<Planner>)> {
    fn reductions(
        f: impl Fn(&Kernel, KernelPlan) -> KernelPlan + Send + Sync + 'static,
    ) -> Option<Planner> {
        Some(Arc::new(move |k: &Kernel, caps: &GpuCaps| {
            let default = plan_kernel(k, caps);
            if k.reduction_ranges.is_empty()
                || k.rnumel() <= 512
                || matches!(default.strategy, Strategy::Split { .. })
            {
                return default;
            }
            f(k, default)
        }))
    }
    fn pointwise(unroll: u32) -> Option<Planner> {
        Some(Arc::new(move |k: &Kernel, caps: &GpuCaps| {
            let mut plan = plan_kernel(k, caps);
            if let Strategy::Pointwise { unroll: u, .. } = &mut plan.strategy {
                *u = unroll;
            }
            plan
        }))
    }
    let looped = |threads: u32| {
        reductions(move |k, default| KernelPlan {
            strategy: Strategy::Looped {
                lanes: lanes_of(k),
                unroll: 2,
            },
            block: threads,
            min_blocks_per_sm: 0,
            ..default
        })
    };
    let persistent = |threads: u32, min_blocks: u32, prefetch: bool| {
        reductions(move |k, default| {
            let lanes = lanes_of(k);
            let chunks = k.rnumel().div_ceil((threads * lanes) as usize) as u32;
            KernelPlan {
                strategy: Strategy::Persistent {
                    lanes,
                    row_threads: threads,
                    chunks,
                    prefetch,
                },
                block: threads,
                min_blocks_per_sm: min_blocks,
                ..default
            }
        })
    };
    vec![
        ("default", None),
        ("persistent-512x3", persistent(512, 3, false)),
        ("persistent-256x4", persistent(256, 4, false)),
        ("persistent-1024", persistent(1024, 1, false)),
        ("persistent-512-free", persistent(512, 0, false)),
        ("persistent-512x2-prefetch", persistent(512, 2, true)),
        ("persistent-256x4-prefetch", persistent(256, 4, true)),
        ("persistent-1024-prefetch", persistent(1024, 1, true)),
        ("looped-512", looped(512)),
        ("looped-1024", looped(1024)),
        ("pointwise-unroll-1", pointwise(1)),
        ("pointwise-unroll-4", pointwise(4)),
        (
            "exact-math",
            Some(Arc::new(|k: &Kernel, caps: &GpuCaps| KernelPlan {
                fast_math: false,
                ..plan_kernel(k, caps)
            })),
        ),
    ]
}

// ---- the run ------------------------------------------------------------------------------

fn open(planner: Option<Planner>, lt: bool) -> Result<Arc<CudaBackend>, String> {
    let dev = GpuDevice::open(0).map_err(|e| e.to_string())?;
    let b = CudaBackend::with_device(dev)
        .map_err(|e| e.to_string())?
        .with_cublaslt(lt);
    Ok(Arc::new(match planner {
        Some(p) => b.with_planner(p),
        None => b,
    }))
}

fn compile(g: &Graph, backend: &Arc<CudaBackend>) -> Result<CompiledModel, String> {
    let dynb: Arc<dyn Backend> = backend.clone();
    coil::compile(g, dynb, &Options::default()).map_err(|e| e.to_string())
}

/// `entry -> "strategy, grid x block"` from the comment lines heading the PTX source.
fn entry_plans(source: &str) -> BTreeMap<String, String> {
    source
        .lines()
        .take_while(|l| l.starts_with("//"))
        .filter_map(|l| {
            let (name, plan) = l.trim_start_matches("// ").split_once(": ")?;
            Some((name.to_string(), plan.to_string()))
        })
        .collect()
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("cuda_zoo: {e}");
            return ExitCode::from(2);
        }
    };
    let cublas = find_cublas::preload_cublas("cuda_zoo");
    let backend = if args.emulate {
        Arc::new(CudaBackend::emulated())
    } else {
        match open(None, args.lt) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("cuda_zoo: cannot open the GPU: {e}");
                return ExitCode::from(2);
            }
        }
    };
    println!("# coil CUDA zoo check");
    println!();
    println!("device: {}", backend.device());
    println!("cuBLAS: {cublas}");
    println!(
        "matmuls: {}",
        match (args.lt, coil_cuda::lt_present()) {
            (true, true) => "cuBLASLt, a plan per problem",
            (true, false) => "classic cuBLAS (cuBLASLt does not load)",
            (false, _) => "classic cuBLAS (--gemm classic)",
        }
    );
    let copy = match backend.clock().map(|c| c.copy_gbps(256 << 20, args.reps)) {
        Some(Ok(c)) => {
            println!(
                "device-to-device copy: {c:.0} GB/s (256 MiB, read + write counted, median of {})",
                args.reps
            );
            c
        }
        Some(Err(e)) => {
            eprintln!("cuda_zoo: copy bandwidth: {e}");
            return ExitCode::from(2);
        }
        None => f64::NAN,
    };
    let mut fails = Failures::default();

    // Correctness: tiny against PyTorch, article and large against coil-eager.
    println!();
    println!("## correctness");
    println!();
    println!("| model | size | kernels | max abs err | call µs | status |");
    println!("| --- | --- | --- | --- | --- | --- |");
    // Two ulps of the dtype (bf16: 8 bits, f16: 11 bits), or 1e-4 in f32.
    let rel = match args.dtype {
        DType::BF16 => 1.0 / 64.0,
        DType::F16 => 1.0 / 512.0,
        _ => 1e-4,
    };
    let models: Vec<&coil_models::Model> = coil_models::MODELS
        .iter()
        .filter(|m| args.model.as_deref().is_none_or(|n| n == m.name))
        .collect();
    let mut large_cases: Vec<(&coil_models::Model, Graph, Vec<Tensor>, Vec<Tensor>)> = Vec::new();
    for m in &models {
        for size in [Size::Tiny, Size::Article, Size::Large] {
            if size == Size::Large && (args.quick || m.large.is_none()) {
                continue;
            }
            if args.dtype != DType::F32 && size != Size::Large {
                continue;
            }
            let label = format!("{size:?}").to_lowercase();
            let case = (|| -> Result<(Graph, Vec<Tensor>, Vec<Tensor>), String> {
                if size == Size::Tiny {
                    let c = m.tiny_case().map_err(|e| e.to_string())?;
                    return Ok((c.graph, c.inputs, c.outputs));
                }
                let g = m.graph(size).map_err(|e| e.to_string())?;
                if args.dtype != DType::F32 {
                    // 16-bit inputs; the reference is eager in f32 on them, rounded to the
                    // dtype (coil computes in f32 inside a kernel, rounding at stores).
                    let g16 = g
                        .cast_to(DType::F32, args.dtype)
                        .map_err(|e| e.to_string())?;
                    let inputs = inputs_for(&g16, 7);
                    let wide: Vec<Tensor> = inputs.iter().map(|t| t.to_dtype(DType::F32)).collect();
                    let want = coil_eager::run(&g, &wide)
                        .map_err(|e| format!("eager: {e}"))?
                        .outputs
                        .iter()
                        .map(|t| t.to_dtype(args.dtype))
                        .collect();
                    return Ok((g16, inputs, want));
                }
                let inputs = inputs_for(&g, 7);
                let want = coil_eager::run(&g, &inputs)
                    .map_err(|e| format!("eager: {e}"))?
                    .outputs;
                Ok((g, inputs, want))
            })();
            let (g, inputs, want) = match case {
                Ok(c) => c,
                Err(e) => {
                    fails.note(format!("{} {label}: {e}", m.name));
                    continue;
                }
            };
            let result = compile(&g, &backend).and_then(|model| {
                let out = model.run(&inputs).map_err(|e| e.to_string())?;
                let err = close_within(&out, &want, rel)?;
                let call = if size == Size::Article && !args.emulate {
                    format!("{:.1}", call_us(&model, args.reps)?)
                } else {
                    "-".into()
                };
                Ok((model.report.num_kernels, err, call))
            });
            match result {
                Ok((kernels, err, call)) => {
                    println!(
                        "| {} | {label} | {kernels} | {err:.2e} | {call} | ok |",
                        m.name
                    )
                }
                Err(e) => {
                    println!("| {} | {label} | - | - | - | FAIL |", m.name);
                    fails.note(format!("{} {label}: {e}", m.name));
                }
            }
            if size == Size::Large {
                large_cases.push((m, g, inputs, want));
            }
        }
    }

    // Bandwidth of the large models.
    if !large_cases.is_empty() {
        println!();
        println!(
            "## large models: median of {} samples of 10 runs back to back (CUDA events), per run; copy = {copy:.0} GB/s",
            args.reps
        );
        println!();
        println!("| model | plan | kernels | µs | min MB | GB/s | % of copy |");
        println!("| --- | --- | --- | --- | --- | --- | --- |");
        let mut per_kernel_rows = Vec::new();
        for (m, g, inputs, want) in &large_cases {
            let mut default_plans = BTreeMap::new();
            for (plan, planner) in variants() {
                if plan != "default" && !args.variants {
                    continue;
                }
                let b = match planner {
                    None => Ok(backend.clone()),
                    Some(p) => open(Some(p), args.lt),
                };
                let run = b.and_then(|b| {
                    let model = compile(g, &b)?;
                    let plans = entry_plans(&model.source());
                    if plan == "default" {
                        default_plans = plans;
                    } else if plans == default_plans {
                        return Ok(None);
                    }
                    let out = model.run(inputs).map_err(|e| e.to_string())?;
                    close_within(&out, want, rel)?;
                    let r = bench(&model, args.reps)?;
                    Ok(Some((model, r)))
                });
                match run {
                    Ok(None) => {}
                    Ok(Some((model, r))) => {
                        let bytes = model.min_bytes() as f64;
                        let gbps = bytes / (r.run_ms * 1e-3) / 1e9;
                        println!(
                            "| {} | {plan} | {} | {:.1} | {:.0} | {gbps:.0} | {:.0}% |",
                            m.name,
                            model.report.num_kernels,
                            r.run_ms * 1e3,
                            bytes / 1e6,
                            100.0 * gbps / copy
                        );
                        let plans = entry_plans(&model.source());
                        for (name, ms) in &r.launches {
                            let bytes = model
                                .report
                                .kernels
                                .iter()
                                .find(|k| &k.name == name)
                                .map(|k| k.bytes() as f64);
                            per_kernel_rows.push(format!(
                                "| {} | {plan} | {name} | {} | {:.1} | {} |",
                                m.name,
                                plans.get(name).map_or("-", String::as_str),
                                ms * 1e3,
                                bytes.map_or_else(
                                    || "-".to_string(),
                                    |b| format!("{:.0}", b / (ms * 1e-3) / 1e9)
                                )
                            ));
                        }
                    }
                    Err(e) => {
                        println!("| {} | {plan} | - | - | - | - | FAIL |", m.name);
                        fails.note(format!("{} large ({plan}): {e}", m.name));
                    }
                }
            }
        }
        println!();
        println!("## per kernel (medians; GB/s over the kernel's own bytes, each buffer once)");
        println!();
        println!("| model | plan | entry | strategy, grid x block | µs | GB/s |");
        println!("| --- | --- | --- | --- | --- | --- |");
        for r in per_kernel_rows {
            println!("{r}");
        }
    }

    println!();
    if fails.0.is_empty() {
        println!("all checks passed");
        ExitCode::SUCCESS
    } else {
        println!("{} failure(s):", fails.0.len());
        for f in &fails.0 {
            println!("- {f}");
        }
        ExitCode::from(1)
    }
}
