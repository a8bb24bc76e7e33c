//! The thread pool: every chunk runs exactly once, panics come back to the caller, nested calls
//! run serially, and kernel launches check their buffers.

use std::sync::atomic::{AtomicUsize, Ordering};

use coil_cpu::{
    ArgSpec, CpuError, FloatKind, HostTarget, JitKernel, JitModule, JitOptions, KernelArgs, MathFn,
    ThreadPool,
};

use crate::kernels::build_unary;

#[test]
fn every_chunk_runs_once() {
    let pool = ThreadPool::with_threads(4).unwrap();
    assert_eq!(pool.threads(), 4);
    for n in [0, 1, 3, 100, 1000] {
        let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        pool.parallel_for(n, |i| {
            hits[i].fetch_add(1, Ordering::Relaxed);
        });
        assert!(
            hits.iter().all(|h| h.load(Ordering::Relaxed) == 1),
            "n = {n}"
        );
    }
}

#[test]
fn nested_parallel_for_runs_serially() {
    let pool = ThreadPool::with_threads(3).unwrap();
    let count = AtomicUsize::new(0);
    pool.parallel_for(8, |_| {
        pool.parallel_for(8, |_| {
            count.fetch_add(1, Ordering::Relaxed);
        });
    });
    assert_eq!(count.load(Ordering::Relaxed), 64);
}

#[test]
fn a_panicking_chunk_panics_the_caller_after_all_chunks_finish() {
    let pool = ThreadPool::with_threads(3).unwrap();
    let done = AtomicUsize::new(0);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.parallel_for(50, |i| {
            if i == 7 {
                panic!("chunk 7");
            }
            done.fetch_add(1, Ordering::Relaxed);
        })
    }));
    assert!(result.is_err());
    assert_eq!(done.load(Ordering::Relaxed), 49);
    // The pool still works.
    let again = AtomicUsize::new(0);
    pool.parallel_for(10, |_| {
        again.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(again.load(Ordering::Relaxed), 10);
}

#[test]
fn concurrent_callers_take_turns() {
    let pool = ThreadPool::with_threads(2).unwrap();
    let total = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..50 {
                    pool.parallel_for(16, |_| {
                        total.fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
        }
    });
    assert_eq!(total.load(Ordering::Relaxed), 4 * 50 * 16);
}

fn exp_kernel(target: &HostTarget) -> JitModule {
    JitModule::compile("k", target, &JitOptions::default(), |cx, module| {
        build_unary(cx, module, "k", MathFn::Exp, FloatKind::F32, 100, 8)
    })
    .unwrap()
}

#[test]
fn kernel_launches_check_their_buffers() {
    let target = HostTarget::detect().unwrap();
    let jit = exp_kernel(&target);
    let pool = ThreadPool::with_threads(2).unwrap();
    let spec = vec![
        ArgSpec {
            bytes: 400 * 4,
            writes: false,
        },
        ArgSpec {
            bytes: 400 * 4,
            writes: true,
        },
    ];
    // SAFETY: `k` processes rows of 100 floats; 4 rows.
    let kernel = unsafe { JitKernel::new(&jit, "k", spec, 4) }.unwrap();
    let x = vec![1.0f32; 400];
    let mut y = vec![0.0f32; 400];
    let mut short = vec![0.0f32; 399];
    let cases: Vec<(KernelArgs, &str)> = vec![
        (
            {
                let mut a = KernelArgs::new();
                a.input(&x);
                a
            },
            "takes 2 buffers, got 1",
        ),
        (
            {
                let mut a = KernelArgs::new();
                a.input(&x).output(&mut short);
                a
            },
            "buffer 1 has 1596 bytes",
        ),
        (
            {
                let mut a = KernelArgs::new();
                a.input(&x).input(&x);
                a
            },
            "passed as an input",
        ),
    ];
    for (mut args, message) in cases {
        let err = kernel.run(&pool, &mut args).unwrap_err();
        assert!(matches!(err, CpuError::KernelArgs { .. }));
        assert!(err.to_string().contains(message), "{err}");
    }
    let err = kernel
        .run_range(&pool, KernelArgs::new().input(&x).output(&mut y), 2..5, 2)
        .unwrap_err();
    assert!(
        err.to_string().contains("not within the outer loop 0..4"),
        "{err}"
    );
    kernel
        .run_range(&pool, KernelArgs::new().input(&x).output(&mut y), 1..3, 2)
        .unwrap();
    assert_eq!(y[99], 0.0);
    assert_eq!(y[100], std::f32::consts::E);
    assert_eq!(y[299], std::f32::consts::E);
    assert_eq!(y[300], 0.0);
}
