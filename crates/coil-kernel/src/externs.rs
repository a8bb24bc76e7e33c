//! Extern kinds: library calls (matmuls, convolutions) with their post-ops, and host
//! fallbacks, which the facade runs.

use std::fmt;
use std::sync::Arc;

/// A library matmul's form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum MatmulOp {
    /// `[m, k] @ [k, n]`.
    Mm,
    /// `[b, m, k] @ [b, k, n]`.
    Bmm,
    /// `bias + [m, k] @ [k, n]`: operands `[bias, a, b]`, the bias a `[m, n]` view (a row
    /// vector broadcast: strides `[0, 1]`), added inside the library call.
    Addmm,
}

/// What an extern kernel computes: a closed set of kinds, each a variant (Inductor's
/// `ExternKernel` subclasses). A backend says which kinds it runs
/// (`coil_codegen::Backend::supports_extern`); convolution and host fallbacks arrive as new
/// variants, not new trait methods.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum ExternKind {
    /// A library matmul; the operands are `inputs[0] @ inputs[1]`.
    Matmul(MatmulOp),
    /// A library matmul with pointwise ops applied to each output tile in the library call
    /// (oneDNN's post-ops; Inductor's `mkldnn._linear_pointwise` / a GEMM template's
    /// epilogue), in order, in f32, the result rounded once to the output's dtype. The
    /// operands are the matmul's, then one per [`PostOp::takes_operand`] post-op, in order,
    /// each viewed as the output's sizes.
    FusedMatmul(MatmulOp, Vec<PostOp>),
    /// A library convolution (cuDNN, oneDNN; Inductor's `extern_kernels.convolution`), bias
    /// included: the operands are `[input, weight]` or `[input, weight, bias]`, the input
    /// batched (`[N, C_in, *spatial]`), the output `[N, C_out, *out]` contiguous.
    Convolution(ConvOp),
    /// One gradient of a library convolution (oneDNN's backward-data and backward-weights
    /// primitives; ATen's `convolution_backward`), of the forward convolution `ConvOp`
    /// describes (no bias, no post-ops): [`ConvGrad::Input`] takes `[grad_output, weight]` and
    /// gives the input's gradient, [`ConvGrad::Weight`] takes `[input, grad_output]` and gives
    /// the weight's, each contiguous.
    ConvolutionBackward(ConvOp, ConvGrad),
    /// An op with no lowering, run on the host by coil-eager (Inductor's `make_fallback`): the
    /// operands are the op's tensor arguments in order; the facade runs it, not the backend.
    /// Its program is opaque, so a plan holding one cannot be serialized (no compile-cache
    /// entry of the whole program).
    #[serde(skip)]
    Fallback(HostOp),
}

/// Which gradient an [`ExternKind::ConvolutionBackward`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ConvGrad {
    /// The input's (`grad_input`: backward data).
    Input,
    /// The weight's (`grad_weight`: backward weights).
    Weight,
}

/// A convolution's geometry (PyTorch's `convolution` arguments, one entry per spatial dim).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ConvOp {
    /// Step between windows.
    pub stride: Vec<usize>,
    /// Zeros added on both sides.
    pub padding: Vec<usize>,
    /// Step between taps.
    pub dilation: Vec<usize>,
    /// Channel groups.
    pub groups: usize,
    /// Whether a bias operand follows the weight.
    pub bias: bool,
    /// Pointwise ops applied to the result inside the library call (operand-free ones:
    /// relu, gelu, sigmoid, tanh, silu, scale and shift), in order, in f32
    /// (`coil_lower::LowerConfig::conv_post_ops`); empty for a plain convolution.
    pub post: Vec<PostOp>,
}

/// One pointwise op a [`ExternKind::FusedMatmul`] applies to the product, `y = op(y)` or
/// `y = op(y, operand)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum PostOp {
    /// `max(y, 0)`.
    Relu,
    /// `y Φ(y)` (erf form).
    Gelu,
    /// `gelu(y, approximate="tanh")`.
    GeluTanh,
    /// `1 / (1 + e^-y)`.
    Sigmoid,
    /// `tanh(y)`.
    Tanh,
    /// `y sigmoid(y)`.
    Silu,
    /// `alpha y + beta` (f32 bit patterns, so that the kind stays `Eq` and `Hash`).
    Linear {
        /// `alpha.to_bits()`.
        alpha: u32,
        /// `beta.to_bits()`.
        beta: u32,
    },
    /// `y + operand`.
    Add,
    /// `y * operand`.
    Mul,
}

impl PostOp {
    /// `alpha y + beta`.
    pub fn linear(alpha: f32, beta: f32) -> PostOp {
        PostOp::Linear {
            alpha: alpha.to_bits(),
            beta: beta.to_bits(),
        }
    }

    /// Appends `self` to a post-op chain: two scale-and-shifts in a row become one (oneDNN
    /// 2.6 computes a second linear post-op right after another wrongly; one f32 rounding
    /// less).
    pub fn append_to(self, chain: &mut Vec<PostOp>) {
        if let (
            Some(PostOp::Linear {
                alpha: a1,
                beta: b1,
            }),
            PostOp::Linear {
                alpha: a2,
                beta: b2,
            },
        ) = (chain.last().copied(), self)
        {
            let (a1, b1) = (f32::from_bits(a1), f32::from_bits(b1));
            let (a2, b2) = (f32::from_bits(a2), f32::from_bits(b2));
            chain.pop();
            chain.push(PostOp::linear(a2 * a1, a2 * b1 + b2));
        } else {
            chain.push(self);
        }
    }

    /// Whether it reads a tensor operand (the call's next one).
    pub fn takes_operand(&self) -> bool {
        matches!(self, PostOp::Add | PostOp::Mul)
    }

    /// The op on one value (f64 arithmetic; `operand` is the tensor operand's element, 0
    /// for ops without one): the reference the evaluators and library fallbacks use.
    pub fn apply(&self, y: f64, operand: f64) -> f64 {
        let sigmoid = |v: f64| 1.0 / (1.0 + (-v).exp());
        match *self {
            PostOp::Relu => {
                if y.is_nan() {
                    y
                } else {
                    y.max(0.0)
                }
            }
            PostOp::Gelu => 0.5 * y * (1.0 + libm::erf(y * std::f64::consts::FRAC_1_SQRT_2)),
            PostOp::GeluTanh => {
                let k = std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2;
                0.5 * y * (1.0 + (k * (y + 0.044715 * y * y * y)).tanh())
            }
            PostOp::Sigmoid => sigmoid(y),
            PostOp::Tanh => y.tanh(),
            PostOp::Silu => y * sigmoid(y),
            PostOp::Linear { alpha, beta } => {
                f64::from(f32::from_bits(alpha)) * y + f64::from(f32::from_bits(beta))
            }
            PostOp::Add => y + operand,
            PostOp::Mul => y * operand,
        }
    }
}

impl fmt::Display for PostOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PostOp::Relu => f.write_str("relu"),
            PostOp::Gelu => f.write_str("gelu"),
            PostOp::GeluTanh => f.write_str("gelu_tanh"),
            PostOp::Sigmoid => f.write_str("sigmoid"),
            PostOp::Tanh => f.write_str("tanh"),
            PostOp::Silu => f.write_str("silu"),
            PostOp::Linear { alpha, beta } => write!(
                f,
                "linear({}, {})",
                f32::from_bits(alpha),
                f32::from_bits(beta)
            ),
            PostOp::Add => f.write_str("add"),
            PostOp::Mul => f.write_str("mul"),
        }
    }
}

impl ExternKind {
    /// The matmul a kind computes, with its post-ops (none for a plain matmul); `None` for
    /// other kinds.
    pub fn matmul(&self) -> Option<(MatmulOp, &[PostOp])> {
        match self {
            ExternKind::Matmul(op) => Some((*op, &[])),
            ExternKind::FusedMatmul(op, post) => Some((*op, post)),
            _ => None,
        }
    }

    /// The name Inductor's wrapper prints (`extern_kernels.mm`, `aten.cumprod.default`).
    pub fn kernel_name(&self) -> String {
        match self {
            ExternKind::FusedMatmul(op, post) => format!(
                "{} + {}",
                ExternKind::Matmul(*op).kernel_name(),
                post.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" + ")
            ),
            ExternKind::Matmul(MatmulOp::Mm) => "extern_kernels.mm".into(),
            ExternKind::Matmul(MatmulOp::Bmm) => "extern_kernels.bmm".into(),
            ExternKind::Matmul(MatmulOp::Addmm) => "extern_kernels.addmm".into(),
            ExternKind::Convolution(c) if c.post.is_empty() => "extern_kernels.convolution".into(),
            ExternKind::Convolution(c) => format!(
                "extern_kernels.convolution + {}",
                c.post
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" + ")
            ),
            ExternKind::ConvolutionBackward(_, ConvGrad::Input) => {
                "extern_kernels.convolution_backward_input".into()
            }
            ExternKind::ConvolutionBackward(_, ConvGrad::Weight) => {
                "extern_kernels.convolution_backward_weight".into()
            }
            ExternKind::Fallback(h) => format!("fallback {}", h.op),
        }
    }

    /// How many operands the kind takes.
    pub fn arity(&self) -> usize {
        match self {
            ExternKind::Matmul(MatmulOp::Addmm) => 3,
            ExternKind::Matmul(_) => 2,
            ExternKind::FusedMatmul(op, post) => {
                ExternKind::Matmul(*op).arity() + post.iter().filter(|p| p.takes_operand()).count()
            }
            ExternKind::Convolution(c) => 2 + usize::from(c.bias),
            ExternKind::ConvolutionBackward(..) => 2,
            ExternKind::Fallback(h) => h.inputs,
        }
    }

    /// Whether the facade runs it on the host (a [`ExternKind::Fallback`]), not the backend.
    pub fn is_host_fallback(&self) -> bool {
        matches!(self, ExternKind::Fallback(_))
    }
}

/// One op run on the host (Inductor's fallback kernel): the facade runs it, never a backend,
/// so its program is opaque here: `program` is whatever the lowering put there (coil-lower
/// keeps a one-call `coil_graph::Graph`, read back with [`HostOp::program`]).
#[derive(Clone)]
pub struct HostOp {
    /// The graph node it computes (for messages).
    pub node: Arc<str>,
    /// The op's name (`aten.sort.default`).
    pub op: Arc<str>,
    /// Which of its outputs this extern writes.
    pub output: usize,
    /// How many tensor operands it takes.
    pub inputs: usize,
    /// Its printed text (identity for equality and hashing).
    pub text: Arc<str>,
    /// What runs it, for the layer that made it.
    pub program: Arc<dyn std::any::Any + Send + Sync>,
}

impl HostOp {
    /// The program as the type its maker stored, if it is one.
    pub fn program<T: 'static>(&self) -> Option<&T> {
        self.program.downcast_ref::<T>()
    }
}

impl fmt::Debug for HostOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostOp")
            .field("node", &self.node)
            .field("op", &self.op)
            .field("output", &self.output)
            .field("inputs", &self.inputs)
            .finish_non_exhaustive()
    }
}

impl PartialEq for HostOp {
    fn eq(&self, other: &HostOp) -> bool {
        self.text == other.text
    }
}

impl Eq for HostOp {}

impl std::hash::Hash for HostOp {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}
