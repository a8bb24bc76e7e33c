//! Kernel launches on the process's libgomp (`coil_cpu::openmp`, what the Python module uses
//! under PyTorch): every chunk runs once, a panic comes back to the caller, and a model's
//! outputs equal bit for bit those of the same compile launched on coil's own pool.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use coil_cpu::{CpuBackend, CpuOptions, openmp::OpenMp};

/// libgomp loaded as PyTorch would have it (GCC's, which every machine that links Rust has),
/// then found the way the backend finds it.
fn openmp() -> &'static OpenMp {
    static LIB: OnceLock<libloading::os::unix::Library> = OnceLock::new();
    LIB.get_or_init(|| {
        use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
        // SAFETY: loading GCC's OpenMP runtime runs only its own initialisers.
        unsafe { Library::open(Some("libgomp.so.1"), RTLD_NOW | RTLD_GLOBAL) }
            .expect("libgomp.so.1 (GCC's OpenMP runtime) loads")
    });
    OpenMp::loaded().expect("the loaded libgomp is found")
}

#[test]
fn every_chunk_runs_once_on_the_openmp_team() {
    let omp = openmp();
    assert!(omp.threads() >= 1);
    for n in [0, 1, 3, 100, 1000] {
        let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        omp.parallel_for(n, &|i| {
            hits[i].fetch_add(1, Ordering::Relaxed);
        });
        assert!(
            hits.iter().all(|h| h.load(Ordering::Relaxed) == 1),
            "n = {n}"
        );
    }
}

#[test]
fn a_panicking_chunk_panics_the_caller_after_all_chunks_finish() {
    let omp = openmp();
    let done = AtomicUsize::new(0);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        omp.parallel_for(64, &|i| {
            done.fetch_add(1, Ordering::Relaxed);
            assert!(i != 17, "chunk 17 fails");
        });
    }));
    let message = result.expect_err("the panic reaches the caller");
    let text = message
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| message.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(text.contains("chunk 17 fails"), "{text}");
    assert_eq!(done.load(Ordering::Relaxed), 64);
}

#[test]
fn models_launched_on_openmp_compute_what_the_pool_computes() {
    openmp();
    let backend = |openmp_launches| -> Arc<dyn coil_codegen::Backend> {
        Arc::new(
            CpuBackend::with_options(CpuOptions {
                openmp_launches,
                compile_every_size: true,
                ..CpuOptions::default()
            })
            .unwrap(),
        )
    };
    for name in ["softmax", "layernorm", "attention"] {
        let g = coil_models::find(name)
            .unwrap()
            .graph(coil_models::Size::Article)
            .unwrap();
        let inputs = coil_testkit::random_inputs(&g, 5);
        let options = coil::Options::default();
        let on_omp = coil::compile(&g, backend(true), &options).unwrap();
        let on_pool = coil::compile(&g, backend(false), &options).unwrap();
        let (a, b) = (on_omp.run(&inputs).unwrap(), on_pool.run(&inputs).unwrap());
        for (x, y) in a.iter().zip(&b) {
            let (x, y) = (x.to_f64_vec(), y.to_f64_vec());
            assert!(
                x.iter().zip(&y).all(|(p, q)| p.to_bits() == q.to_bits()),
                "{name}"
            );
        }
        let want = coil_eager::run(&g, &inputs).unwrap().outputs;
        coil_testkit::check_outputs(&a, &want, 1e-4, 1e-4)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
