//! Compile time of the e-graph passes on zoo graphs (`cargo bench -p coil-benches --bench passes`).

#![allow(missing_docs)] // criterion_group! generates undocumented items.

use criterion::{Criterion, criterion_group, criterion_main};

fn passes(c: &mut Criterion) {
    let config = coil_passes::PassConfig::default();
    for name in [
        "seed_model",
        "softmax",
        "layernorm",
        "attention",
        "transformer_block",
    ] {
        let g = coil_benches::article_graph(name);
        c.bench_function(&format!("passes/{name}"), |b| {
            b.iter(|| {
                coil_passes::run_passes(std::hint::black_box(&g), &config).expect("passes run")
            })
        });
    }
}

criterion_group!(benches, passes);
criterion_main!(benches);
