//! Throughput of JIT-compiled `y = exp(x)` (and the other f32 math functions) over 64 MiB against
//! a JIT-compiled copy and a scalar Rust `f32::exp` loop
//! (`cargo bench -p coil-benches --bench cpu_vmath`). Bytes counted: read x + write y.

#![allow(missing_docs)] // criterion_group! generates undocumented items.

use coil_benches::cpu_kernels::build_unary_f32;
use coil_cpu::{
    ArgSpec, HostTarget, JitKernel, JitModule, JitOptions, KernelArgs, MathFn, ThreadPool,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const ROW: u64 = 1 << 16;
const ROWS: u64 = 256; // 16 Mi floats = 64 MiB

fn cpu_vmath(c: &mut Criterion) {
    let target = HostTarget::detect().expect("host target");
    let pool = ThreadPool::new().expect("thread pool");
    let one = ThreadPool::with_threads(1).expect("one-thread pool");
    let n = (ROW * ROWS) as usize;
    let x: Vec<f32> = (0..n).map(|i| (i % 2000) as f32 * 0.01 - 10.0).collect();
    let mut y = vec![0.0f32; n];
    let mut group = c.benchmark_group("cpu_vmath");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(2 * 4 * n as u64));
    let kernels: Vec<(&str, Option<MathFn>)> = std::iter::once(("copy", None))
        .chain(MathFn::UNARY.iter().map(|&f| (f.name(), Some(f))))
        .collect();
    for (name, f) in kernels {
        let jit = JitModule::compile(name, &target, &JitOptions::default(), |cx, module| {
            build_unary_f32(cx, module, "k", f, ROW)
        })
        .expect("kernel compiles");
        let spec = vec![
            ArgSpec {
                bytes: 4 * n,
                writes: false,
            },
            ArgSpec {
                bytes: 4 * n,
                writes: true,
            },
        ];
        // SAFETY: `k` reads and writes row r of x and y for each row in start..end.
        let kernel = unsafe { JitKernel::new(&jit, "k", spec, ROWS as i64) }.expect("kernel");
        group.bench_function(format!("{name}/jit_{}_threads", pool.threads()), |b| {
            b.iter(|| kernel.run(&pool, KernelArgs::new().input(&x).output(&mut y)))
        });
        if matches!(f, None | Some(MathFn::Exp)) {
            group.bench_function(format!("{name}/jit_1_thread"), |b| {
                b.iter(|| kernel.run(&one, KernelArgs::new().input(&x).output(&mut y)))
            });
        }
    }
    group.bench_function("exp/rust_scalar_1_thread", |b| {
        b.iter(|| {
            for (yi, xi) in y.iter_mut().zip(&x) {
                *yi = xi.exp();
            }
        })
    });
    group.finish();
}

criterion_group!(benches, cpu_vmath);
criterion_main!(benches);
