//! The lowering's knobs: Inductor's realize thresholds and the per-backend reuse rule.

use crate::body::Op;
use coil_graph::DType;

/// When a lazy value is realized (written to memory) instead of inlined into its readers.
/// Backends supply their own: [`LowerConfig::gpu`] is Inductor's default, [`LowerConfig::cpu`]
/// adds the CPU rule for expensive ops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerConfig {
    /// A value with several users realizes when its body reads more than this many distinct
    /// buffers (Inductor's `realize_reads_threshold`, 4).
    pub realize_reads_threshold: usize,
    /// A value with several users realizes when its body has more than this many distinct
    /// ops (Inductor's `realize_opcount_threshold`, 30). A pointwise value over this size that
    /// reads more than one buffer realizes even with one user.
    pub realize_opcount_threshold: usize,
    /// A pointwise value whose body has accumulated reads of more than this many distinct
    /// buffers realizes (Inductor's `realize_acc_reads_threshold`, 8).
    pub realize_acc_reads_threshold: usize,
    /// `false` realizes every op's result (nothing is inlined; TVM's FuseOps wants this).
    pub inline_all: bool,
    /// A value with several users whose body uses any of these ops realizes instead of being
    /// recomputed per user (Inductor's CPU rule: `exp`, `sigmoid`).
    pub realize_on_reuse_ops: Vec<Op>,
    /// Sum, prod, max and min reductions of at most this many elements are lowered as
    /// pointwise expressions (the taps unrolled), which inline into their readers and fuse as
    /// pointwise ops do (Inductor's `unroll_reductions_threshold`, 8). 0 or 1 turns it off.
    pub unroll_reductions_threshold: usize,
    /// Convolutions (batched, not transposed, of `f32`; 16-bit as the flags below say) become one library call, bias included
    /// ([`crate::ExternKind::Convolution`], Inductor's default) instead of im2col and a matmul:
    /// a backend with a convolution library says so.
    pub conv_extern: bool,
    /// With `conv_extern`, bf16 convolutions are library calls too (the backend's library has
    /// a bf16 kernel on this host); otherwise they take im2col and a matmul.
    pub conv_extern_bf16: bool,
    /// The same for f16 convolutions.
    pub conv_extern_f16: bool,
    /// With `conv_extern`, f32 convolutions of at most this many flops (`2 * output elements
    /// * C_in/groups * kernel taps`) and fewer than 8 groups still take im2col and a matmul:
    /// where the library's call costs more than it saves (measured per shape on the real
    /// models' convolutions, `tools/conv_sweep.py`). 0 sends every one to the library.
    pub conv_im2col_max_flops: usize,
    /// With `conv_extern`, operand-free pointwise ops applied to a library convolution's result
    /// alone (relu, gelu, sigmoid, tanh, silu, scale and shift; f32) go into the call as
    /// post-ops ([`crate::ConvOp::post`]), as [`Self::matmul_post_ops`] does for matmuls.
    pub conv_post_ops: bool,
    /// `convolution_backward` of these dtypes (batched, not transposed) is one library call
    /// per gradient asked for ([`crate::ExternKind::ConvolutionBackward`]; the bias's is a
    /// sum); otherwise it runs on the host. Empty unless the backend's library has the
    /// gradients (coil's Python path decomposes it into forward convolutions then).
    pub conv_backward_extern: Vec<DType>,
    /// For matmuls of these dtypes and at least this many flops (`2 m n k`, batches summed),
    /// pointwise ops applied to the result alone (bias and residual adds, a scale, relu,
    /// gelu, sigmoid, tanh, silu) are candidate post-ops of the library call
    /// ([`crate::ExternKind::FusedMatmul`], [`crate::Epilogue`]): the scheduler decides which
    /// join it as template epilogues instead of a kernel of their own; the backend's
    /// matmul library applies them to each output tile while it is in cache (Inductor's CPU
    /// `mkldnn._linear_pointwise` fusion). A backend whose library has post-ops names the
    /// dtypes (and the sizes it runs through that library); empty turns it off.
    pub matmul_post_ops: Vec<(DType, usize)>,
    /// Round every 16-bit float result to its dtype where eager would (after each op, even
    /// inside a fused kernel), so results match eager bit for bit where eager is
    /// deterministic (Inductor's `emulate_precision_casts`, off by default: then 16-bit values
    /// stay f32 inside a kernel and round once at each store or explicit cast).
    pub emulate_precision_casts: bool,
    /// The backend computes f64 transcendental ops (`exp`, `log`, `sin`, `cos`, `pow`): the
    /// special functions (`lgamma`, the Bessel functions, ...) then compute in f64 for every
    /// dtype; otherwise in the opmath type (the CUDA backend's math library is f32).
    pub f64_math: bool,
    /// The dtypes the backend's kernels can add to memory atomically: `scatter_add`,
    /// `index_put(accumulate=True)` and `scatter_reduce(sum)` of these run as scatter kernels,
    /// of the others on the host (Inductor's `needs_fallback_due_to_atomic_add_limitations`).
    pub atomic_add: Vec<DType>,
    /// `sort` and `topk` along rows of at most this many elements are kernels (a rank, then a
    /// scatter; `len` comparisons per element); longer rows run on the host. The GPU's limit is
    /// high (a host call costs two copies over PCIe there), the CPU's low (its host sort is
    /// `n log n` in the same memory).
    pub sort_kernel_max_len: usize,
    /// The backend has an exact float `fmod` of its own ([`Op::Fmod`]: LLVM's `frem` on the
    /// CPU); otherwise the lowering builds it from integer ops (`math/fmod.rs`).
    pub native_fmod: bool,
}

impl LowerConfig {
    /// Inductor's defaults (its GPU behaviour).
    pub fn gpu() -> LowerConfig {
        LowerConfig {
            realize_reads_threshold: 4,
            realize_opcount_threshold: 30,
            realize_acc_reads_threshold: 8,
            inline_all: true,
            realize_on_reuse_ops: Vec::new(),
            unroll_reductions_threshold: 8,
            conv_extern: false,
            conv_extern_bf16: false,
            conv_extern_f16: false,
            conv_im2col_max_flops: 0,
            conv_post_ops: false,
            conv_backward_extern: Vec::new(),
            matmul_post_ops: Vec::new(),
            emulate_precision_casts: false,
            f64_math: false,
            // PTX's `red.add`: f16, bf16 (sm_90), f32, f64, and 32- and 64-bit integers.
            atomic_add: vec![
                DType::F16,
                DType::BF16,
                DType::F32,
                DType::F64,
                DType::I32,
                DType::I64,
            ],
            sort_kernel_max_len: 4096,
            native_fmod: false,
        }
    }

    /// Inductor's CPU behaviour: the defaults plus realizing reused `exp`/`sigmoid` values.
    pub fn cpu() -> LowerConfig {
        LowerConfig {
            realize_on_reuse_ops: vec![Op::Exp, Op::Sigmoid],
            f64_math: true,
            // A compare-and-swap loop on the element's bits, for every width.
            atomic_add: vec![
                DType::F16,
                DType::BF16,
                DType::F32,
                DType::F64,
                DType::U8,
                DType::I8,
                DType::I16,
                DType::I32,
                DType::I64,
            ],
            sort_kernel_max_len: 256,
            native_fmod: true,
            ..LowerConfig::gpu()
        }
    }
}

impl LowerConfig {
    /// The realize rules of a target's device (`cpu()` or `gpu()`), with what its libraries
    /// run: convolutions by dtype, their post-ops, matmul post-ops.
    pub fn for_target(target: &coil_kernel::Target) -> LowerConfig {
        let base = match target.device {
            coil_kernel::Device::Cpu => LowerConfig::cpu(),
            coil_kernel::Device::Cuda(_) => LowerConfig::gpu(),
        };
        let caps = &target.caps;
        LowerConfig {
            conv_extern: target.conv_of(DType::F32),
            conv_extern_bf16: target.conv_of(DType::BF16),
            conv_extern_f16: target.conv_of(DType::F16),
            conv_im2col_max_flops: caps.conv_im2col_max_flops,
            conv_post_ops: caps.conv_post_ops && !caps.conv.is_empty(),
            conv_backward_extern: caps.conv_backward.clone(),
            matmul_post_ops: caps
                .matmul_post_ops
                .iter()
                .filter(|(d, _)| caps.matmul.contains(d))
                .copied()
                .collect(),
            ..base
        }
    }
}

impl Default for LowerConfig {
    fn default() -> LowerConfig {
        LowerConfig::gpu()
    }
}
