//! A vector reduction kernel: a million f32 summed with an 8-lane accumulator per row, combined
//! once per row, matches an f64 reference.

use coil_cpu::{ArgSpec, HostTarget, JitKernel, JitModule, JitOptions, KernelArgs, ThreadPool};

use crate::kernels::build_row_sum;

#[test]
fn row_sums_match_f64() {
    const ROW: u64 = 1027;
    const ROWS: usize = 1024;
    let target = HostTarget::detect().unwrap();
    let jit = JitModule::compile("sum", &target, &JitOptions::default(), |cx, module| {
        build_row_sum(cx, module, "row_sum", ROW, 8)
    })
    .unwrap();
    assert!(
        jit.optimized_ir().contains("fadd <8 x float>"),
        "{}",
        jit.optimized_ir()
    );
    let n = ROW as usize * ROWS;
    let x: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 997.0 - 0.25)
        .collect();
    let mut out = vec![0.0f32; ROWS];
    // SAFETY: row r reads x[r*ROW..(r+1)*ROW] and writes out[r].
    let kernel = unsafe {
        JitKernel::new(
            &jit,
            "row_sum",
            vec![
                ArgSpec {
                    bytes: n * 4,
                    writes: false,
                },
                ArgSpec {
                    bytes: ROWS * 4,
                    writes: true,
                },
            ],
            ROWS as i64,
        )
    }
    .unwrap();
    let pool = ThreadPool::new().unwrap();
    kernel
        .run(&pool, KernelArgs::new().input(&x).output(&mut out))
        .unwrap();
    let mut total = 0.0f64;
    for (r, &s) in out.iter().enumerate() {
        let reference: f64 = x[r * ROW as usize..(r + 1) * ROW as usize]
            .iter()
            .map(|&v| v as f64)
            .sum();
        assert!(
            (s as f64 - reference).abs() <= 1e-5 * reference.abs().max(1.0),
            "row {r}: {s} vs {reference}"
        );
        total += s as f64;
    }
    let reference: f64 = x.iter().map(|&v| v as f64).sum();
    assert!(
        (total - reference).abs() <= 1e-6 * reference.abs(),
        "{total} vs {reference}"
    );
}
