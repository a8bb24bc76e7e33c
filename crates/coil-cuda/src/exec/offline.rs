//! No device: memory is names only (so `coil::compile` plans and "allocates" and
//! `--compile-only` renders the PTX); copies, launches and matmuls are errors.

use std::sync::atomic::{AtomicU64, Ordering};

use coil_codegen::{BackendError, BufferHandle, Kernel};

use super::{Executor, LoadOptions, LoadedModule};
use crate::backend::err;
use crate::blas::{Gemm, MatLayout};
use crate::error::CudaError;
use crate::ptx::PtxModule;
use crate::render::RenderedKernel;

/// The executor of [`crate::CudaBackend::offline`].
#[derive(Default)]
pub(crate) struct Offline {
    next: AtomicU64,
}

struct NoModule;

impl LoadedModule for NoModule {
    fn launch(&self, _: usize, _: &RenderedKernel, _: &[BufferHandle]) -> Result<(), BackendError> {
        Err(err(CudaError::Offline("launch kernels")))
    }
}

impl Executor for Offline {
    fn load(
        &self,
        _module: &PtxModule,
        _source: &str,
        _rendered: &[RenderedKernel],
        _kernels: &[&Kernel],
        _options: &LoadOptions<'_>,
    ) -> Result<Box<dyn LoadedModule>, CudaError> {
        Ok(Box::new(NoModule))
    }

    fn alloc(&self, _bytes: usize) -> Result<BufferHandle, BackendError> {
        Ok(BufferHandle(self.next.fetch_add(1, Ordering::Relaxed) + 1))
    }

    fn free(&self, _buffer: BufferHandle) {}

    fn write(&self, _: BufferHandle, _: &[u8]) -> Result<(), BackendError> {
        Err(err(CudaError::Offline("copy memory")))
    }

    fn read(&self, _: BufferHandle, _: &mut [u8]) -> Result<(), BackendError> {
        Err(err(CudaError::Offline("copy memory")))
    }

    fn sgemm(
        &self,
        _: Gemm,
        _: (BufferHandle, MatLayout),
        _: (BufferHandle, MatLayout),
        _: (BufferHandle, MatLayout),
    ) -> Result<(), BackendError> {
        Err(err(CudaError::Offline("run matmuls")))
    }

    fn synchronize(&self) -> Result<(), BackendError> {
        Err(err(CudaError::Offline("synchronize")))
    }
}
