//! coil-cuda: draft
mod error;
pub mod math;
pub mod ptx;
mod target;
pub use error::CudaError;
pub use target::{GpuCaps, PtxTarget};
