//! The backend `run-model` compiles for, made from its options: the CPU's (LLVM) or the
//! GPU's (PTX), with the compile cache the environment describes.

use super::{Backend, Loops, Options};

/// The backend `opts` asks for; for `--backend eager`, the one whose rules the schedule report
/// follows (the CPU's, or the GPU's with `--loops simd`; it compiles nothing).
pub(super) fn make_backend(
    opts: &Options,
    cache: std::sync::Arc<coil_cache::Cache>,
) -> Result<std::sync::Arc<dyn coil_codegen::Backend>, String> {
    Ok(match (opts.backend, opts.loops) {
        (Backend::Cuda, _) if opts.compile_only => {
            std::sync::Arc::new(coil_cuda::CudaBackend::offline())
        }
        (Backend::Eager, Some(Loops::Simd)) => {
            std::sync::Arc::new(coil_cuda::CudaBackend::offline())
        }
        (Backend::Cuda, _) => std::sync::Arc::new(
            coil_cuda::CudaBackend::new()
                .map_err(|e| format!("cuda backend: {e}"))?
                .with_cudnn_conv(opts.conv_library == Some(true))
                .with_compile_cache(cache)
                .with_jit_options(jit_options_from_env()?)
                .with_conv_algo(conv_algo_from_env()?)
                // COIL_CUDA_MODULES=kernel|model|cores: how kernels share PTX modules (measuring).
                .with_modules(module_split_from_env()?)
                // A static compile of each size renders all of its own code.
                .with_size_families((!opts.every_size).then(Default::default)),
        ),
        (Backend::Cpu | Backend::Eager, _) => std::sync::Arc::new(
            coil_cpu::CpuBackend::with_options(coil_cpu::CpuOptions {
                im2col_conv: opts.conv_library == Some(false),
                library_conv_always: opts.conv_library == Some(true),
                widen_16bit_matmul: opts.widen_16bit_matmul,
                gemm_f32_matmul: opts.gemm_f32_matmul,
                openblas_f32_matmul: opts.openblas_f32_matmul,
                unfused_matmul_epilogues: opts.unfused_epilogues,
                threads: opts.threads,
                compile_cache: Some(cache),
                compile_every_size: opts.every_size,
                jit: cpu_jit_options_from_env(),
                // Kernels on the libgomp oneDNN loaded, its team shared with oneDNN's calls
                // (COIL_CPU_THREADS=own: coil's own pool).
                openmp_launches: std::env::var("COIL_CPU_THREADS").as_deref() != Ok("own"),
                ..coil_cpu::CpuOptions::default()
            })
            .map_err(|e| format!("cpu backend: {e}"))?,
        ),
    })
}

/// How the GPU's PTX becomes machine code, from the environment (for measuring the choices):
/// `COIL_CUDA_PTX_COMPILER` (`driver`, the default, or `nvjitlink`), `COIL_CUDA_JIT_O` (0-4,
/// default 4) and `COIL_CUDA_MAXRREG` (a register cap). nvJitLink where it does not load is
/// a warning, and the driver's linker is used.
fn jit_options_from_env() -> Result<coil_cuda::JitOptions, String> {
    let mut o = coil_cuda::JitOptions::default();
    match std::env::var("COIL_CUDA_PTX_COMPILER").as_deref() {
        Err(_) | Ok("driver") => {}
        Ok("nvjitlink") => match coil_cuda::nvjitlink_available() {
            Ok(_) => o.compiler = coil_cuda::PtxCompiler::NvJitLink,
            Err(e) => eprintln!(
                "warning: COIL_CUDA_PTX_COMPILER=nvjitlink: {e}; using the driver's linker"
            ),
        },
        Ok(other) => {
            return Err(format!(
                "COIL_CUDA_PTX_COMPILER={other}: expected `driver` or `nvjitlink`"
            ));
        }
    }
    if let Ok(v) = std::env::var("COIL_CUDA_JIT_O") {
        o.opt_level = v
            .parse()
            .ok()
            .filter(|l| *l <= 4)
            .ok_or_else(|| format!("COIL_CUDA_JIT_O={v}: expected a level from 0 to 4"))?;
    }
    if let Ok(v) = std::env::var("COIL_CUDA_MAXRREG") {
        o.max_registers = Some(
            v.parse()
                .ok()
                .filter(|r| (16..=255).contains(r))
                .ok_or_else(|| format!("COIL_CUDA_MAXRREG={v}: expected 16 to 255 registers"))?,
        );
    }
    Ok(o)
}

/// The LLVM pipeline CPU modules go through, from `COIL_LLVM_PIPELINE` (measuring): `o3`,
/// `lean`, or a pipeline's text as `opt -passes` takes it.
fn cpu_jit_options_from_env() -> coil_cpu::JitOptions {
    let mut o = coil_cpu::JitOptions::default();
    match std::env::var("COIL_LLVM_PIPELINE").as_deref() {
        Err(_) => {}
        Ok("o3") => o.pipeline = coil_cpu::O3_PIPELINE.to_string(),
        Ok("lean") => o.pipeline = coil_cpu::LEAN_PIPELINE.to_string(),
        Ok(text) => o.pipeline = text.to_string(),
    }
    o
}

/// How cuDNN's algorithms are chosen, from `COIL_CUDNN_ALGO`: `benchmark` (the default: timed
/// once, the choice kept in the compile cache) or `heuristic` (cuDNN's ranking, nothing timed).
fn conv_algo_from_env() -> Result<coil_cuda::ConvAlgoChoice, String> {
    match std::env::var("COIL_CUDNN_ALGO").as_deref() {
        Err(_) | Ok("benchmark") => Ok(coil_cuda::ConvAlgoChoice::BenchmarkCached),
        Ok("heuristic") => Ok(coil_cuda::ConvAlgoChoice::Heuristic),
        Ok(other) => Err(format!(
            "COIL_CUDNN_ALGO={other}: expected `benchmark` or `heuristic`"
        )),
    }
}

/// How the GPU's kernels share PTX modules, from `COIL_CUDA_MODULES`: `cores` (the default: a
/// module per core), `kernel` (a module per kernel) or `model` (one module).
fn module_split_from_env() -> Result<coil_cuda::ModuleSplit, String> {
    match std::env::var("COIL_CUDA_MODULES").as_deref() {
        Err(_) | Ok("cores") => Ok(coil_cuda::ModuleSplit::per_core()),
        Ok("kernel") => Ok(coil_cuda::ModuleSplit::PerKernel),
        Ok("model") => Ok(coil_cuda::ModuleSplit::Whole),
        Ok(other) => Err(format!(
            "COIL_CUDA_MODULES={other}: expected `cores`, `kernel` or `model`"
        )),
    }
}
