//! A backend's [`Target`]: one value holding everything the stages before code generation
//! read about it (its name and device, the loop rules the scheduler asks, what its libraries
//! run, how kernels are built). Capabilities are opt-in: [`Target::new`] claims none.

use std::fmt;

use crate::{DType, ExternKind};

/// Where kernels run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    /// The host CPU.
    Cpu,
    /// A CUDA GPU (its ordinal).
    Cuda(u32),
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}

/// Which of the scheduler's reference loop rules a backend's loops follow (the scheduler maps
/// each to its `LoopCompat`; a backend with rules of its own passes them to the facade).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoopStyle {
    /// The CPU's: outer-loop fusion, horizontal fusion of different shapes.
    Cpp,
    /// Triton's: nodes fuse when their `(numel, rnumel)` groups agree.
    Simd,
}

/// How kernels are built from fused groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Reductions with at most this many elements per row are `persistent` (`per`), longer
    /// ones looped (`red`).
    pub persistent_rnumel_limit: usize,
    /// A pointwise kernel that reads a tensor transposed loops over square tiles of this side
    /// (`coil_codegen`'s `tile_transposes`); `None` never tiles. On for the CPU, where a tile's
    /// rows stay in cache; a GPU's transposes want shared memory instead.
    pub transpose_tile: Option<usize>,
}

impl Default for BuildOptions {
    fn default() -> BuildOptions {
        BuildOptions {
            persistent_rnumel_limit: 1024,
            transpose_tile: None,
        }
    }
}

/// What a backend's libraries run. Each is off unless the backend turns it on, so a new
/// backend claims nothing it has not written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// Library matmuls ([`ExternKind::Matmul`]: `mm`, `bmm`, `addmm`), by dtype.
    pub matmul: Vec<DType>,
    /// Matmuls with pointwise post-ops inside the library call ([`ExternKind::FusedMatmul`]):
    /// the dtypes it has them for, each with the smallest product (FLOPs) worth a library call.
    pub matmul_post_ops: Vec<(DType, usize)>,
    /// Library convolutions ([`ExternKind::Convolution`]), by dtype.
    pub conv: Vec<DType>,
    /// f32 convolutions of at most this many FLOPs (ungrouped) are faster as im2col and a
    /// matmul than as a library call (0: always the library).
    pub conv_im2col_max_flops: usize,
    /// Operand-free post-ops (relu, gelu, ...) inside a library convolution.
    pub conv_post_ops: bool,
    /// Library convolution gradients ([`ExternKind::ConvolutionBackward`]), by dtype.
    pub conv_backward: Vec<DType>,
}

/// Everything the earlier stages read about a backend.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// Short name: the kernel-name prefix (`cpu`, `cuda`).
    pub name: &'static str,
    /// The device, in words (`cpu (AMD EPYC, 2 threads, 256-bit vectors)`).
    pub description: String,
    /// Where kernels run: the CPU's or the GPU's realize rules and fusion knobs follow.
    pub device: Device,
    /// The loop rules the scheduler asks about fusions.
    pub loops: LoopStyle,
    /// What its libraries run.
    pub caps: Capabilities,
    /// How kernels are built.
    pub build: BuildOptions,
    /// Whether a matmul's epilogues are chosen before the ordinary fusions (Inductor's
    /// `epilogue_fusion_first`): right where a library epilogue saves a pass over the product.
    pub epilogue_fusion_first: bool,
}

impl Target {
    /// A target with no capabilities: the device's loop rules (`Cpp` on the CPU, `Simd` on a
    /// GPU), default build options.
    pub fn new(name: &'static str, description: impl Into<String>, device: Device) -> Target {
        Target {
            name,
            description: description.into(),
            device,
            loops: match device {
                Device::Cpu => LoopStyle::Cpp,
                Device::Cuda(_) => LoopStyle::Simd,
            },
            caps: Capabilities::default(),
            build: BuildOptions {
                transpose_tile: match device {
                    Device::Cpu => Some(16),
                    Device::Cuda(_) => None,
                },
                ..BuildOptions::default()
            },
            epilogue_fusion_first: false,
        }
    }

    /// Whether the backend runs extern calls of `kind` on operands of `dtype`. Host
    /// fallbacks are the facade's, so every target takes them.
    pub fn supports_extern(&self, kind: &ExternKind, dtype: DType) -> bool {
        let caps = &self.caps;
        match kind {
            ExternKind::Matmul(_) => caps.matmul.contains(&dtype),
            ExternKind::FusedMatmul(..) => {
                caps.matmul.contains(&dtype)
                    && caps.matmul_post_ops.iter().any(|(d, _)| *d == dtype)
            }
            ExternKind::Convolution(c) => {
                caps.conv.contains(&dtype) && (c.post.is_empty() || caps.conv_post_ops)
            }
            ExternKind::ConvolutionBackward(..) => caps.conv_backward.contains(&dtype),
            ExternKind::Fallback(_) => true,
        }
    }

    /// Whether library convolutions of `dtype` run here.
    pub fn conv_of(&self, dtype: DType) -> bool {
        self.caps.conv.contains(&dtype)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MatmulOp;

    #[test]
    fn a_new_target_claims_no_library() {
        let t = Target::new("mine", "a test", Device::Cpu);
        assert!(!t.supports_extern(&ExternKind::Matmul(MatmulOp::Mm), DType::F32));
        let mut f32_only = t.clone();
        f32_only.caps.matmul = vec![DType::F32];
        assert!(f32_only.supports_extern(&ExternKind::Matmul(MatmulOp::Mm), DType::F32));
        assert!(!f32_only.supports_extern(&ExternKind::Matmul(MatmulOp::Mm), DType::BF16));
        let fused = ExternKind::FusedMatmul(MatmulOp::Mm, vec![crate::PostOp::Relu]);
        assert!(!f32_only.supports_extern(&fused, DType::F32));
        assert_eq!(t.loops, LoopStyle::Cpp);
        assert_eq!(Target::new("g", "", Device::Cuda(0)).loops, LoopStyle::Simd);
    }
}
