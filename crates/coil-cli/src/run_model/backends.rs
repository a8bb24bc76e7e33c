//! The backend `run-model` compiles for, made from its options: the CPU's (LLVM) or the
//! GPU's (PTX), with the compile cache the environment describes.

use super::{Backend, Loops, Options};

/// The backend `opts` asks for; for `--backend eager`, the one whose rules the schedule report
/// follows (the CPU's, or the GPU's with `--loops simd`; it compiles nothing).
pub(super) fn make_backend(
    opts: &Options,
) -> Result<std::sync::Arc<dyn coil_codegen::Backend>, String> {
    // The compile cache the environment describes (COIL_CACHE_DIR, COIL_CACHE=0), or none.
    let cache = std::sync::Arc::new(if opts.no_cache {
        coil_cache::Cache::off()
    } else {
        coil_cache::Cache::from_env()
    });
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
                // COIL_CUDA_MODULES=model: the model's kernels in one PTX module (measuring).
                .with_module_per_kernel(
                    std::env::var("COIL_CUDA_MODULES").map_or(true, |v| v != "model"),
                ),
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
                ..coil_cpu::CpuOptions::default()
            })
            .map_err(|e| format!("cpu backend: {e}"))?,
        ),
    })
}
