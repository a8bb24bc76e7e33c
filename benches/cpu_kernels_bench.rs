//! Throughput of the CPU backend's fused kernels on the zoo's large models ([8192, 8192] f32):
//! seed_model, softmax, layernorm, rmsnorm, rowsum and siblings, each lowered and built as one
//! kernel (what the articles' fusion gives), against copy kernels (`y = x` over [8192, 8192])
//! measured in the same run (`cargo bench -p coil-benches --bench cpu_kernels`): `copy`, compiled
//! like the models (its output is streamed past the caches, as every output of 64 MiB and more
//! is), and `copy_cached`, compiled with streaming stores off (an ordinary store-through-cache
//! copy, like STREAM's scale-copy or torch.compile's kernels). Two more rows are softmax built
//! without row pipelining (`softmax_nopipe`), without it and the per-row reciprocal
//! (`softmax_div`), with the polynomial `exp` instead of the table one (`softmax_poly`), and
//! with the exact max updates instead of the guarded fast ones (`softmax_exactmax`), so those
//! choices are measured against the default in the same rounds.
//!
//! Bytes counted are the model's minimum: each input read once plus each output written once.
//! Buffers are allocated and touched once before timing, so no page faults land in the timed
//! loop. After criterion's runs, a summary prints GB/s and the fraction of each copy's
//! bandwidth: the best of 15 rounds, each round launching every kernel once (so a change in the
//! machine's load affects all kernels alike).

#![allow(missing_docs)] // criterion_group! generates undocumented items.
#![allow(clippy::print_stderr)] // The summary table is the point of the bench.

use coil_codegen::{Compiler as _, Runtime as _};
use std::time::{Duration, Instant};

use coil_codegen::{
    ArgId, ArgRole, Backend, BufferHandle, BuildOptions, CompiledKernels, KExpr, Kernel, KernelArg,
    KernelBuilder, KernelKind, StageKind, build_kernel,
};
use coil_cpu::{CpuBackend, CpuOptions};
use coil_graph::DType;
use coil_lower::{BufRef, IndexExpr, LowerConfig, Var};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const MODELS: &[&str] = &[
    "seed_model",
    "softmax",
    "layernorm",
    "rmsnorm",
    "rowsum",
    "siblings",
];
const N: usize = 8192;

/// A compiled kernel with its buffers, ready to launch.
struct Prepared {
    name: String,
    compiled: Box<dyn CompiledKernels>,
    args: Vec<BufferHandle>,
    min_bytes: u64,
}

/// `y[i, j] = x[i, j]` over [N, N] f32.
fn copy_kernel() -> Kernel {
    let mut b = KernelBuilder::new();
    b.begin_stage(StageKind::Outer);
    let index = IndexExpr::var(Var::p(0))
        .scale(N as i64)
        .add(&IndexExpr::var(Var::p(1)));
    let x = b.value(
        KExpr::Load {
            arg: ArgId(0),
            index: index.clone(),
            mask: None,
        },
        DType::F32,
    );
    b.store(ArgId(1), index, x);
    let arg = |name: &str, role| KernelArg {
        name: name.into(),
        dtype: DType::F32,
        len: N * N,
        role,
    };
    b.finish(
        "poi_copy_0".into(),
        KernelKind::Pointwise,
        vec![N, N],
        vec![],
        vec![arg("x", ArgRole::Input), arg("y", ArgRole::Output)],
    )
}

fn fill(backend: &CpuBackend, h: BufferHandle, bytes: usize, seed: u32) {
    // Values in [-1, 1) from a cheap LCG, as f32 bytes (every buffer here is f32).
    let mut state = seed.wrapping_mul(2_654_435_761) | 1;
    let data: Vec<u8> = (0..bytes / 4)
        .flat_map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((state >> 8) as f32 / (1u32 << 23) as f32 - 1.0).to_le_bytes()
        })
        .collect();
    backend.write(h, &data).expect("write");
}

fn prepare_copy(backend: &CpuBackend, name: &str) -> Prepared {
    let k = copy_kernel();
    let compiled = backend
        .compile(std::slice::from_ref(&k))
        .expect("copy compiles");
    let bytes = N * N * 4;
    let x = backend.alloc(bytes).expect("alloc");
    let y = backend.alloc(bytes).expect("alloc");
    fill(backend, x, bytes, 1);
    Prepared {
        name: name.into(),
        compiled,
        args: vec![x, y],
        min_bytes: 2 * bytes as u64,
    }
}

fn prepare_model(backend: &CpuBackend, name: &str) -> Prepared {
    let g = coil_models::find(name)
        .and_then(|m| m.graph(coil_models::Size::Large).ok())
        .unwrap_or_else(|| panic!("large {name}"));
    let (g, _) = coil_passes::run_passes(&g, &coil_passes::PassConfig::default()).expect("passes");
    let l = coil_lower::lower(&g, &LowerConfig::cpu()).expect("lowers");
    let members: Vec<_> = l.buffers().iter().map(|b| b.id).collect();
    let outputs: Vec<BufRef> = l.outputs().iter().map(|o| o.buffer).collect();
    let needed = |b| outputs.contains(&BufRef::Buffer(b));
    let k = build_kernel(
        &l,
        &members,
        &needed,
        &format!("fused_{name}_0"),
        &BuildOptions::default(),
    )
    .expect("one kernel");
    let compiled = backend.compile(std::slice::from_ref(&k)).expect("compiles");
    let mut args = Vec::new();
    for (i, a) in k.args.iter().enumerate() {
        let bytes = a.len * a.dtype.itemsize();
        let h = backend.alloc(bytes).expect("alloc");
        if a.role != ArgRole::Output {
            fill(backend, h, bytes, i as u32 + 2);
        }
        args.push(h);
    }
    let input_bytes: usize = l
        .inputs()
        .iter()
        .map(|i| i.layout.numel() * i.layout.dtype.itemsize())
        .sum();
    let output_bytes: usize = l
        .outputs()
        .iter()
        .map(|o| o.layout.numel() * o.layout.dtype.itemsize())
        .sum();
    Prepared {
        name: name.into(),
        compiled,
        args,
        min_bytes: (input_bytes + output_bytes) as u64,
    }
}

fn launch(p: &Prepared) {
    p.compiled.launch(0, &p.args).expect("launch");
}

/// The best time of each kernel over `rounds` rounds of launching every kernel once.
fn best_of_rounds(prepared: &[Prepared], rounds: usize) -> Vec<Duration> {
    let mut best = vec![Duration::MAX; prepared.len()];
    for _ in 0..rounds {
        for (p, b) in prepared.iter().zip(&mut best) {
            let t = Instant::now();
            launch(p);
            *b = (*b).min(t.elapsed());
        }
    }
    best
}

fn cpu_kernels(c: &mut Criterion) {
    let backend = CpuBackend::new().expect("cpu backend");
    let cached = CpuBackend::with_options(CpuOptions {
        codegen: coil_cpu::CodegenOptions {
            streaming_store_min_bytes: None,
            ..Default::default()
        },
        ..CpuOptions::default()
    })
    .expect("cpu backend");
    // softmax again without row pipelining, without the per-row reciprocal, with the
    // polynomial exp, and with the exact max: A/B rows measured in the same rounds as the
    // defaults.
    let unpipelined = CpuBackend::with_options(CpuOptions {
        codegen: coil_cpu::CodegenOptions {
            pipeline_rows: false,
            ..Default::default()
        },
        ..CpuOptions::default()
    })
    .expect("cpu backend");
    let dividing = CpuBackend::with_options(CpuOptions {
        codegen: coil_cpu::CodegenOptions {
            pipeline_rows: false,
            invariant_reciprocal: false,
            ..Default::default()
        },
        ..CpuOptions::default()
    })
    .expect("cpu backend");
    let polynomial = CpuBackend::with_options(CpuOptions {
        codegen: coil_cpu::CodegenOptions {
            table_exp: false,
            ..Default::default()
        },
        ..CpuOptions::default()
    })
    .expect("cpu backend");
    let exact_max = CpuBackend::with_options(CpuOptions {
        codegen: coil_cpu::CodegenOptions {
            guarded_max_min: false,
            ..Default::default()
        },
        ..CpuOptions::default()
    })
    .expect("cpu backend");
    let mut prepared = vec![
        (0, prepare_copy(&backend, "copy")),
        (1, prepare_copy(&cached, "copy_cached")),
    ];
    prepared.extend(MODELS.iter().map(|m| (0, prepare_model(&backend, m))));
    for (owner, b, label) in [
        (2, &unpipelined, "softmax_nopipe"),
        (3, &dividing, "softmax_div"),
        (4, &polynomial, "softmax_poly"),
        (5, &exact_max, "softmax_exactmax"),
    ] {
        let mut p = prepare_model(b, "softmax");
        p.name = label.into();
        prepared.push((owner, p));
    }
    let owners = [
        &backend,
        &cached,
        &unpipelined,
        &dividing,
        &polynomial,
        &exact_max,
    ];
    let (owner_of, prepared): (Vec<usize>, Vec<Prepared>) = prepared.into_iter().unzip();
    // Touch every page once (first-touch faults stay out of the timed loops).
    for p in &prepared {
        launch(p);
    }
    let mut group = c.benchmark_group("cpu_kernels");
    group.sample_size(20);
    for p in &prepared {
        group.throughput(Throughput::Bytes(p.min_bytes));
        group.bench_function(&p.name, |b| b.iter(|| launch(p)));
    }
    group.finish();
    let best = best_of_rounds(&prepared, 15);
    let gbps = |p: &Prepared, t: Duration| p.min_bytes as f64 / t.as_secs_f64() / 1e9;
    let copy_gbps = gbps(&prepared[0], best[0]);
    let cached_gbps = gbps(&prepared[1], best[1]);
    eprintln!(
        "\n{}; best of 15 rounds, minimum bytes / time:",
        backend.device()
    );
    eprintln!(
        "{:<15} {:>9} {:>9} {:>9} {:>12}",
        "kernel", "ms", "GB/s", "of copy", "of cached"
    );
    for (p, t) in prepared.iter().zip(&best) {
        let g = gbps(p, *t);
        eprintln!(
            "{:<15} {:>9.2} {:>9.2} {:>8.0}% {:>11.0}%",
            p.name,
            t.as_secs_f64() * 1e3,
            g,
            100.0 * g / copy_gbps,
            100.0 * g / cached_gbps
        );
    }
    for (p, o) in prepared.into_iter().zip(owner_of) {
        for h in p.args {
            owners[o].free(h);
        }
    }
}

criterion_group!(benches, cpu_kernels);
criterion_main!(benches);
