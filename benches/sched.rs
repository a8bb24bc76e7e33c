//! Scheduling time on synthetic graphs of 250 to 2000 nodes (`cargo bench -p coil-benches
//! --bench sched`): Inductor's greedy fusion with the CPU and SIMD loop rules, TVM's FuseOps,
//! and the unfused schedule (init only). Lowering happens outside the timed loop.

#![allow(missing_docs)] // criterion_group! generates undocumented items.

use coil_lower::LowerConfig;
use coil_sched::{
    CppLoops, InductorGreedy, InductorScorer, NoFusion, SchedConfig, SimdLoops, TvmFuseOps,
};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

fn sched(c: &mut Criterion) {
    let mut group = c.benchmark_group("sched");
    group.sample_size(20);
    let no_inline = LowerConfig {
        inline_all: false,
        ..LowerConfig::cpu()
    };
    for nodes in [250usize, 500, 1000, 2000] {
        let g = coil_benches::synthetic_graph(nodes / 10);
        let l = coil_lower::lower(&g, &no_inline).expect("the synthetic graph lowers");
        assert_eq!(l.buffers().len(), nodes);
        let greedy = InductorGreedy::new(InductorScorer);
        group.bench_with_input(BenchmarkId::new("inductor-cpp", nodes), &l, |b, l| {
            b.iter(|| {
                coil_sched::schedule(l, SchedConfig::cpu(), &CppLoops, &greedy).expect("schedules")
            })
        });
        group.bench_with_input(BenchmarkId::new("inductor-simd", nodes), &l, |b, l| {
            b.iter(|| {
                coil_sched::schedule(l, SchedConfig::gpu(), &SimdLoops, &greedy).expect("schedules")
            })
        });
        group.bench_with_input(BenchmarkId::new("tvm", nodes), &l, |b, l| {
            b.iter(|| {
                coil_sched::schedule(l, SchedConfig::cpu(), &CppLoops, &TvmFuseOps::default())
                    .expect("schedules")
            })
        });
        group.bench_with_input(BenchmarkId::new("none", nodes), &l, |b, l| {
            b.iter(|| {
                coil_sched::schedule(l, SchedConfig::cpu(), &CppLoops, &NoFusion)
                    .expect("schedules")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, sched);
criterion_main!(benches);
