//! The GPU self-check: everything coil-cuda cannot check without a GPU, in one run. Opens
//! device 0; runs each math kernel over ~1M points (max ulp against f64 libm, and bit-for-bit
//! against the host model the CI tests measure); runs the row-reduction kernels; measures
//! device-to-device copy bandwidth and the `exp` and row-sum kernels' GB/s with CUDA events
//! (warm-up, median of 20); checks cuBLAS sgemm/bmm against a host reference. Prints a table and
//! exits non-zero on any failure.
//!
//! ```text
//! cargo build --release -p coil-cuda --example gpu_selfcheck
//! ./target/release/examples/gpu_selfcheck          # on the GPU machine
//! ```
//!
//! cuBLAS: if `libcublas.so.13` is not on the loader path, the check looks in
//! `$COIL_CUBLAS_DIR`, then in the `nvidia` Python package of `python3` (PyTorch's CUDA wheels:
//! `nvidia/cu13/lib`), and preloads it from there.

#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "support/find_cublas.rs"]
mod find_cublas;

use std::process::ExitCode;

use coil_cuda::kernels::{self, ELEMENTWISE_BLOCK, ReduceOp};
use coil_cuda::math::{MathFn, MathFnExt, accuracy_inputs, ulp_error};
use coil_cuda::{
    CudaError, DeviceBuffer, Gemm, GpuDevice, LaunchConfig, MatLayout, ParamValue, PtxTarget,
};

/// Odd on purpose: the vectorized kernels' scalar tail runs.
const MATH_POINTS: usize = (1 << 20) + 3;
/// 256 MiB per buffer for the bandwidth runs.
const BANDWIDTH_FLOATS: usize = 64 << 20;
const TIMED_REPS: usize = 20;

struct Report {
    failures: Vec<String>,
}

impl Report {
    fn check(&mut self, ok: bool, what: impl Into<String>) -> &'static str {
        if ok {
            "ok"
        } else {
            self.failures.push(what.into());
            "FAIL"
        }
    }
}

fn main() -> ExitCode {
    let mut report = Report {
        failures: Vec::new(),
    };
    if let Err(e) = run(&mut report) {
        eprintln!("gpu_selfcheck: {e}");
        return ExitCode::FAILURE;
    }
    println!();
    if report.failures.is_empty() {
        println!("all checks passed");
        ExitCode::SUCCESS
    } else {
        println!("{} check(s) failed:", report.failures.len());
        for f in &report.failures {
            println!("  - {f}");
        }
        ExitCode::FAILURE
    }
}

fn run(report: &mut Report) -> Result<(), CudaError> {
    let cublas_note = find_cublas::preload_cublas("gpu_selfcheck");
    let dev = GpuDevice::open(0)?;
    let info = dev.info();
    let caps = dev.caps();
    let target = caps.target();
    println!("coil-cuda GPU self-check");
    println!(
        "device 0: {}, compute capability {}.{}, {} SMs, {:.1} GiB, driver {}.{}, rendering for {target}",
        info.name,
        caps.compute_capability.0,
        caps.compute_capability.1,
        caps.sm_count,
        info.total_memory as f64 / f64::from(1u32 << 30),
        info.driver_version / 1000,
        (info.driver_version % 1000) / 10,
    );
    println!("cuBLAS: {cublas_note}");

    math(&dev, target, report)?;
    reductions(&dev, target, report)?;
    bandwidth(&dev, target, report)?;
    blas(&dev, report);
    Ok(())
}

// ---- math ---------------------------------------------------------------------------------

fn math(dev: &GpuDevice, target: PtxTarget, report: &mut Report) -> Result<(), CudaError> {
    println!();
    println!(
        "math: {MATH_POINTS} points per function; max ulp vs f64 libm; 'model' = outputs that differ from the host model's bits"
    );
    println!(
        "{:<9} {:>8} {:>6} {:>16} {:>6} {:>7} {:>5}  status",
        "function", "max ulp", "bound", "worst x", "model", "scalar", "regs"
    );
    let n = MATH_POINTS;
    for f in MathFn::ALL {
        let points = accuracy_inputs(f, n, 7);
        let xs: Vec<f32> = points.iter().map(|p| p.0).collect();
        let ys: Vec<f32> = points.iter().map(|p| p.1).collect();
        let vec_k = dev.load(&kernels::elementwise(
            &format!("check_{}_v4", f.name()),
            f,
            true,
            target,
        )?)?;
        let scalar_k = dev.load(&kernels::elementwise(
            &format!("check_{}_scalar", f.name()),
            f,
            false,
            target,
        )?)?;
        let x = dev.upload(&xs)?;
        let y = dev.upload(&ys)?;
        let out_v = dev.alloc(4 * n)?;
        let out_s = dev.alloc(4 * n)?;
        let caps = dev.caps();
        for (k, out, items) in [(&vec_k, &out_v, n / 4), (&scalar_k, &out_s, n)] {
            let mut args = vec![ParamValue::buffer(&x)];
            if f.arity() == 2 {
                args.push(ParamValue::buffer(&y));
            }
            args.push(ParamValue::buffer(out));
            args.push(ParamValue::U64(n as u64));
            let cfg = LaunchConfig::grid_stride(items as u64, ELEMENTWISE_BLOCK, caps);
            // SAFETY: the kernel reads n floats of x (and y) and writes n floats of out, all
            // of which are 4n-byte buffers.
            unsafe { dev.launch(k, cfg, &args)? };
        }
        let got: Vec<f32> = dev.download(&out_v)?;
        let got_scalar: Vec<f32> = dev.download(&out_s)?;
        let mut worst = (0.0f64, 0.0f32);
        let mut model_mismatches = 0usize;
        let mut scalar_mismatches = 0usize;
        for (i, &(xv, yv)) in points.iter().enumerate() {
            let e = ulp_error(got[i], f.reference(xv, yv));
            if e > worst.0 || e.is_nan() {
                worst = (e, xv);
            }
            let model = f.host(xv, yv);
            let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
            if !same(got[i], model) {
                model_mismatches += 1;
            }
            if !same(got[i], got_scalar[i]) {
                scalar_mismatches += 1;
            }
        }
        let ok = worst.0 <= f.max_ulp() && model_mismatches == 0 && scalar_mismatches == 0;
        let status = report.check(
            ok,
            format!(
                "{}: {:.3} ulp (bound {}), {model_mismatches} outputs differ from the host model, {scalar_mismatches} from the scalar kernel",
                f.name(),
                worst.0,
                f.max_ulp()
            ),
        );
        let regs = vec_k.registers_per_thread().unwrap_or(-1);
        println!(
            "{:<9} {:>8.3} {:>6} {:>16e} {:>6} {:>7} {:>5}  {status}",
            f.name(),
            worst.0,
            f.max_ulp(),
            worst.1,
            model_mismatches,
            scalar_mismatches,
            regs
        );
    }
    Ok(())
}

// ---- reductions ---------------------------------------------------------------------------

fn random_matrix(len: usize, seed: u64) -> Vec<f32> {
    accuracy_inputs(MathFn::Tanh, len, seed)
        .into_iter()
        .map(|(x, _)| x.clamp(-4.0, 4.0))
        .collect()
}

/// One row-reduction case: (op, threads per block, vectorized, rows, cols).
type RowCase = (ReduceOp, u32, bool, usize, usize);

fn run_row_reduce(
    dev: &GpuDevice,
    target: PtxTarget,
    case: RowCase,
    x: &DeviceBuffer,
) -> Result<(Vec<f32>, f64), CudaError> {
    let (op, block, vectorized, rows, cols) = case;
    let name = format!("check_row_{}_{block}_{}", op.name(), u8::from(vectorized));
    let k = dev.load(&kernels::row_reduce(&name, op, block, vectorized, target)?)?;
    let out = dev.alloc(4 * rows)?;
    let args = [
        ParamValue::buffer(x),
        ParamValue::buffer(&out),
        ParamValue::U32(rows as u32),
        ParamValue::U32(cols as u32),
    ];
    let cfg = LaunchConfig::per_row(rows as u64, block);
    let launch = || {
        // SAFETY: reads rows*cols floats of x, writes rows floats of out.
        unsafe { dev.launch(&k, cfg, &args) }
    };
    let ms = median_ms(dev, launch)?;
    Ok((dev.download(&out)?, ms))
}

fn reductions(dev: &GpuDevice, target: PtxTarget, report: &mut Report) -> Result<(), CudaError> {
    println!();
    println!("row reductions (one block per row): error relative to sum |x| of the row");
    println!(
        "{:<34} {:>12} {:>10}  status",
        "kernel", "max error", "GB/s"
    );
    let cases: [RowCase; 6] = [
        (ReduceOp::Sum, 256, true, 4096, 1024),
        (ReduceOp::Max, 256, true, 4096, 1024),
        (ReduceOp::Min, 1024, true, 512, 4096),
        (ReduceOp::Sum, 128, false, 1000, 1000),
        (ReduceOp::Prod, 32, false, 300, 33),
        (ReduceOp::Sum, 1024, true, 8192, 8192),
    ];
    for case in cases {
        let (op, block, vectorized, rows, cols) = case;
        let mut host = random_matrix(rows * cols, (rows * cols) as u64);
        if op == ReduceOp::Prod {
            host.iter_mut().for_each(|v| *v = 1.0 + *v * 0.01);
        }
        let x = dev.upload(&host)?;
        let (got, ms) = run_row_reduce(dev, target, case, &x)?;
        let mut worst = 0.0f64;
        for r in 0..rows {
            let row = &host[r * cols..(r + 1) * cols];
            let (exact, scale) = match op {
                ReduceOp::Sum => (
                    row.iter().map(|&v| f64::from(v)).sum::<f64>(),
                    row.iter().map(|&v| f64::from(v).abs()).sum::<f64>(),
                ),
                ReduceOp::Prod => {
                    let p = row.iter().map(|&v| f64::from(v)).product::<f64>();
                    (p, p.abs())
                }
                _ => (f64::from(op.host(row)), 1.0),
            };
            let err = (f64::from(got[r]) - exact).abs() / scale.max(f64::MIN_POSITIVE);
            worst = worst.max(if err.is_nan() { f64::INFINITY } else { err });
        }
        let tolerance = match op {
            ReduceOp::Max | ReduceOp::Min => 0.0,
            _ => 1e-5,
        };
        let label = format!(
            "row {} {rows}x{cols} block {block}{}",
            op.name(),
            if vectorized { " v4" } else { "" }
        );
        let status = report.check(worst <= tolerance, format!("{label}: error {worst:e}"));
        let gbs = (4 * rows * cols) as f64 / (ms * 1e-3) / 1e9;
        println!("{label:<34} {worst:>12.3e} {gbs:>10.1}  {status}");
    }
    Ok(())
}

// ---- bandwidth ----------------------------------------------------------------------------

/// Median milliseconds of `TIMED_REPS` runs of `f` after 3 warm-up runs, each run timed by a
/// pair of CUDA events.
fn median_ms(
    dev: &GpuDevice,
    mut f: impl FnMut() -> Result<(), CudaError>,
) -> Result<f64, CudaError> {
    for _ in 0..3 {
        f()?;
    }
    dev.synchronize()?;
    let mut times = Vec::with_capacity(TIMED_REPS);
    for _ in 0..TIMED_REPS {
        let start = dev.record_event()?;
        f()?;
        let end = dev.record_event()?;
        times.push(f64::from(start.elapsed_ms(&end)?));
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

fn bandwidth(dev: &GpuDevice, target: PtxTarget, report: &mut Report) -> Result<(), CudaError> {
    let n = BANDWIDTH_FLOATS;
    let bytes = 4 * n;
    println!();
    println!(
        "bandwidth: {} MiB buffers, median of {TIMED_REPS} after warm-up (read + write counted)",
        bytes >> 20
    );
    let host: Vec<f32> = (0..n).map(|i| ((i % 1000) as f32) * 0.01 - 5.0).collect();
    let src = dev.upload(&host)?;
    let mut dst = dev.alloc(bytes)?;
    let copy_ms = median_ms(dev, || dev.copy_device(&src, 0, &mut dst, 0, bytes))?;
    let copy_gbs = 2.0 * bytes as f64 / (copy_ms * 1e-3) / 1e9;
    println!(
        "{:<34} {:>10.1} GB/s  ({copy_ms:.3} ms)",
        "device-to-device copy", copy_gbs
    );

    let k = dev.load(&kernels::elementwise(
        "bench_exp_v4",
        MathFn::Exp,
        true,
        target,
    )?)?;
    let cfg = LaunchConfig::grid_stride((n / 4) as u64, ELEMENTWISE_BLOCK, dev.caps());
    let args = [
        ParamValue::buffer(&src),
        ParamValue::buffer(&dst),
        ParamValue::U64(n as u64),
    ];
    let exp_ms = median_ms(dev, || {
        // SAFETY: n floats in, n floats out, both buffers 4n bytes.
        unsafe { dev.launch(&k, cfg, &args) }
    })?;
    let exp_gbs = 2.0 * bytes as f64 / (exp_ms * 1e-3) / 1e9;
    let share = 100.0 * exp_gbs / copy_gbs;
    println!(
        "{:<34} {:>10.1} GB/s  ({exp_ms:.3} ms, {share:.0}% of copy; grid {} x {})",
        "exp kernel (v4, grid-stride)", exp_gbs, cfg.grid.0, cfg.block.0
    );
    // Correctness of the benchmarked output (a sample).
    let got: Vec<f32> = dev.download(&dst)?;
    let bad = (0..n)
        .step_by(4099)
        .filter(|&i| got[i].to_bits() != MathFn::Exp.host(host[i], 0.0).to_bits())
        .count();
    let status = report.check(
        bad == 0,
        format!("exp benchmark output: {bad} sampled values wrong"),
    );
    println!("{:<34} {status}", "exp benchmark output");
    if share < 80.0 {
        println!(
            "  note: exp reaches {share:.0}% of the copy bandwidth (the issue's goal is 90% for fused kernels)"
        );
    }
    Ok(())
}

// ---- cuBLAS -------------------------------------------------------------------------------

fn host_matmul(g: Gemm, a: &[f32], a_l: MatLayout, b: &[f32], b_l: MatLayout) -> Vec<f64> {
    let Gemm { batch, m, n, k, .. } = g;
    let at = |buf: &[f32], l: MatLayout, bi: usize, r: usize, c: usize| -> f64 {
        let (sr, sc) = if l.transposed { (c, r) } else { (r, c) };
        f64::from(buf[l.offset + bi * l.batch_stride + sr * l.row_stride + sc])
    };
    let mut c = vec![0.0; batch * m * n];
    for bi in 0..batch {
        for i in 0..m {
            for j in 0..n {
                c[bi * m * n + i * n + j] = (0..k)
                    .map(|p| at(a, a_l, bi, i, p) * at(b, b_l, bi, p, j))
                    .sum();
            }
        }
    }
    c
}

fn blas(dev: &GpuDevice, report: &mut Report) {
    println!();
    println!("cuBLAS (row-major through the transpose trick): error relative to sum |a||b|");
    if let Err(e) = dev.blas_available() {
        report.check(false, format!("cuBLAS unavailable: {e}"));
        println!("cuBLAS unavailable: {e}");
        return;
    }
    let cases: [(&str, usize, usize, usize, usize, bool); 3] = [
        ("sgemm 512x384x256", 1, 512, 384, 256, false),
        ("sgemm 300x200x100, B transposed", 1, 300, 200, 100, true),
        ("bmm 4 x 128x96x64", 4, 128, 96, 64, false),
    ];
    for (label, batch, m, n, k, b_transposed) in cases {
        match gemm_case(dev, batch, m, n, k, b_transposed) {
            Ok(err) => {
                let status = report.check(err <= 1e-5, format!("{label}: error {err:e}"));
                println!("{label:<34} {err:>12.3e}  {status}");
            }
            Err(e) => {
                report.check(false, format!("{label}: {e}"));
                println!("{label:<34} error: {e}");
            }
        }
    }
    match gemm_speed(dev, 4096) {
        Ok(tflops) => println!(
            "{:<34} {tflops:>10.1} TFLOP/s (fp32, median of {TIMED_REPS})",
            "sgemm 4096^3"
        ),
        Err(e) => {
            report.check(false, format!("sgemm 4096^3: {e}"));
        }
    }
}

fn gemm_case(
    dev: &GpuDevice,
    batch: usize,
    m: usize,
    n: usize,
    k: usize,
    b_transposed: bool,
) -> Result<f64, CudaError> {
    let a_host = random_matrix(batch * m * k, 11);
    let b_host = random_matrix(batch * k * n, 12);
    let a_l = MatLayout::contiguous(m, k);
    let b_l = if b_transposed {
        MatLayout::contiguous_transposed(k, n)
    } else {
        MatLayout::contiguous(k, n)
    };
    let c_l = MatLayout::contiguous(m, n);
    let a = dev.upload(&a_host)?;
    let b = dev.upload(&b_host)?;
    let mut c = dev.alloc_zeroed(4 * batch * m * n)?;
    let gemm = Gemm {
        dtype: coil_graph::DType::F32,
        batch,
        m,
        n,
        k,
        alpha: 1.0,
        beta: 0.0,
    };
    dev.sgemm(gemm, (&a, a_l), (&b, b_l), (&mut c, c_l))?;
    let got: Vec<f32> = dev.download(&c)?;
    let want = host_matmul(gemm, &a_host, a_l, &b_host, b_l);
    let abs: Vec<f32> = a_host.iter().map(|v| v.abs()).collect();
    let bbs: Vec<f32> = b_host.iter().map(|v| v.abs()).collect();
    let scale = host_matmul(gemm, &abs, a_l, &bbs, b_l);
    Ok(got
        .iter()
        .zip(want.iter().zip(&scale))
        .map(|(&g, (&w, &s))| (f64::from(g) - w).abs() / s.max(f64::MIN_POSITIVE))
        .fold(0.0, f64::max))
}

fn gemm_speed(dev: &GpuDevice, size: usize) -> Result<f64, CudaError> {
    let a = dev.alloc_zeroed(4 * size * size)?;
    let b = dev.alloc_zeroed(4 * size * size)?;
    let mut c = dev.alloc_zeroed(4 * size * size)?;
    let l = MatLayout::contiguous(size, size);
    let gemm = Gemm {
        dtype: coil_graph::DType::F32,
        batch: 1,
        m: size,
        n: size,
        k: size,
        alpha: 1.0,
        beta: 0.0,
    };
    let ms = median_ms(dev, || dev.sgemm(gemm, (&a, l), (&b, l), (&mut c, l)))?;
    Ok(2.0 * (size as f64).powi(3) / (ms * 1e-3) / 1e12)
}
