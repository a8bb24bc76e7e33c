//! Meta inference of sliding-window ops: convolution, pooling (max with indices, average,
//! adaptive average), over 1 or 2 spatial dims, with PyTorch's output-size rules and checks.
//! The geometry ([`Window`], [`ConvGeometry`]) is public: coil-eager and the lowering read
//! the same numbers.

use super::{Cx, dtype_err, shape_err};
use crate::schema::Bound;
use crate::{DType, Dims, GraphError, TensorMeta, WindowKind};

/// A pooling window over the trailing `n` (spatial) dims of an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// Input spatial sizes.
    pub input: Vec<usize>,
    /// Window sizes.
    pub kernel: Vec<usize>,
    /// Steps.
    pub stride: Vec<usize>,
    /// Zero (or -inf) padding on each side.
    pub padding: Vec<usize>,
    /// Gaps between window taps.
    pub dilation: Vec<usize>,
    /// Output spatial sizes.
    pub output: Vec<usize>,
}

/// How many spatial dims a pooling or convolution op works on (`avg_pool2d`: 2).
pub fn spatial_dims(op_name: &str) -> usize {
    if op_name.contains("1d") { 1 } else { 2 }
}

/// PyTorch's `pooling_output_shape`: floor (or ceil) of the window count, where a last window
/// must start inside the input or its left padding.
fn pooled_size(
    input: usize,
    kernel: usize,
    pad: usize,
    stride: usize,
    dilation: usize,
    ceil: bool,
) -> i64 {
    // In i128: user-given strides and dilations may be near i64::MAX.
    let (i, k, p, s, d) = (
        input as i128,
        kernel as i128,
        pad as i128,
        stride as i128,
        dilation as i128,
    );
    let span = i + 2 * p - d * (k - 1) - 1;
    let mut out = if ceil {
        span.div_euclid(s) + i128::from(span.rem_euclid(s) != 0) + 1
    } else {
        span.div_euclid(s) + 1
    };
    if ceil && out > 0 && (out - 1) * s >= i + p {
        out -= 1;
    }
    out.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

fn positive(b: &Bound<'_>, name: &str, n: usize, what: &str) -> Result<Vec<usize>, GraphError> {
    let v = b.int_n(name, n)?;
    if v.iter().any(|&x| x <= 0) {
        return shape_err(format!(
            "{what} must be greater than zero, but got {}",
            name_list(&v)
        ));
    }
    Ok(v.iter().map(|&x| x as usize).collect())
}

fn name_list(v: &[i64]) -> String {
    format!("{v:?}")
}

/// The window of a `max_pool*_with_indices` or `avg_pool*` call on an input of `sizes`.
pub fn pool_window(b: &Bound<'_>, op_name: &str, sizes: &[usize]) -> Result<Window, GraphError> {
    let n = spatial_dims(op_name);
    if sizes.len() != n + 1 && sizes.len() != n + 2 {
        return shape_err(format!(
            "{op_name}: expected a {}D or {}D input, got {}D ({})",
            n + 1,
            n + 2,
            sizes.len(),
            Dims(sizes)
        ));
    }
    // Only the batch dim may be empty (PyTorch's check).
    let non_batch = if sizes.len() == n + 2 {
        &sizes[1..]
    } else {
        sizes
    };
    if non_batch.contains(&0) {
        return shape_err(format!(
            "{op_name}: expected an input with non-zero sizes apart from an optional batch dim, \
             got {}",
            Dims(sizes)
        ));
    }
    let input = sizes[sizes.len() - n..].to_vec();
    let kernel = positive(b, "kernel_size", n, "kernel_size")?;
    let stride = match b.opt_int_list("stride") {
        Some(s) if !s.is_empty() => positive(b, "stride", n, "stride")?,
        _ => kernel.clone(),
    };
    let padding: Vec<usize> = b
        .int_n("padding", n)?
        .iter()
        .map(|&p| {
            if p < 0 {
                shape_err(format!("{op_name}: padding must be non-negative, got {p}"))
            } else {
                Ok(p as usize)
            }
        })
        .collect::<Result<_, _>>()?;
    let dilation = if b.has("dilation") {
        positive(b, "dilation", n, "dilation")?
    } else {
        vec![1; n]
    };
    let ceil = b.bool("ceil_mode")?;
    let mut output = Vec::with_capacity(n);
    for i in 0..n {
        let effective = (kernel[i] as i128 - 1) * dilation[i] as i128 + 1;
        if padding[i] as i128 * 2 > effective {
            return shape_err(format!(
                "{op_name}: pad should be at most half of effective kernel size, but got pad={}, \
                 kernel_size={} and dilation={}",
                padding[i], kernel[i], dilation[i]
            ));
        }
        let out = pooled_size(
            input[i],
            kernel[i],
            padding[i],
            stride[i],
            dilation[i],
            ceil,
        );
        if out < 1 {
            return shape_err(format!(
                "{op_name}: given input size {} the window (kernel {}, padding {}, dilation {}) is \
                 larger than the padded input; the output size would be {out}",
                Dims(sizes),
                Dims(&kernel),
                Dims(&padding),
                Dims(&dilation)
            ));
        }
        output.push(out as usize);
    }
    Ok(Window {
        input,
        kernel,
        stride,
        padding,
        dilation,
        output,
    })
}

/// The geometry of a `convolution` call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvGeometry {
    /// Whether the input has a batch dim (`[N, C, ...]`; else `[C, ...]`).
    pub batched: bool,
    /// Batch size (1 when unbatched).
    pub batch: usize,
    /// Input channels.
    pub in_channels: usize,
    /// Output channels.
    pub out_channels: usize,
    /// Groups.
    pub groups: usize,
    /// Transposed convolution.
    pub transposed: bool,
    /// Input spatial sizes.
    pub input: Vec<usize>,
    /// Kernel spatial sizes.
    pub kernel: Vec<usize>,
    /// Steps.
    pub stride: Vec<usize>,
    /// Zero padding on each side.
    pub padding: Vec<usize>,
    /// Gaps between taps.
    pub dilation: Vec<usize>,
    /// Extra size on one side of a transposed convolution's output.
    pub output_padding: Vec<usize>,
    /// Output spatial sizes.
    pub output: Vec<usize>,
}

impl ConvGeometry {
    /// The output's sizes.
    pub fn out_sizes(&self) -> Vec<usize> {
        let mut s = Vec::with_capacity(self.output.len() + 2);
        if self.batched {
            s.push(self.batch);
        }
        s.push(self.out_channels);
        s.extend(&self.output);
        s
    }
}

/// The geometry of a `convolution` call with input sizes `x` and weight sizes `w`, with
/// PyTorch's checks and messages.
pub fn conv_geometry(b: &Bound<'_>, x: &[usize], w: &[usize]) -> Result<ConvGeometry, GraphError> {
    if w.len() < 3 {
        return shape_err(format!(
            "convolution: expected a weight of at least 3 dims ([out, in/groups, *kernel]), got {}",
            Dims(w)
        ));
    }
    let n = w.len() - 2;
    let batched = x.len() == n + 2;
    if !batched && x.len() != n + 1 {
        return shape_err(format!(
            "convolution: expected a {}D (unbatched) or {}D (batched) input for the {}D weight {}, \
             but got input of size {}",
            n + 1,
            n + 2,
            w.len(),
            Dims(w),
            Dims(x)
        ));
    }
    let groups = b.int("groups")?;
    if groups <= 0 {
        return shape_err(format!(
            "convolution: non-positive groups is not supported, got {groups}"
        ));
    }
    let groups = groups as usize;
    let list = |name: &str| -> Result<Vec<i64>, GraphError> { b.int_n(name, n) };
    let stride = list("stride")?;
    let padding = list("padding")?;
    let dilation = list("dilation")?;
    let output_padding = list("output_padding")?;
    if stride.iter().any(|&s| s <= 0) {
        return shape_err(format!(
            "convolution: non-positive stride is not supported, got {stride:?}"
        ));
    }
    if dilation.iter().any(|&s| s <= 0) {
        return shape_err(format!(
            "convolution: dilation should be greater than zero, got {dilation:?}"
        ));
    }
    if padding.iter().any(|&s| s < 0) {
        return shape_err(format!(
            "convolution: negative padding is not supported, got {padding:?}"
        ));
    }
    if output_padding.iter().any(|&s| s < 0) {
        return shape_err(format!(
            "convolution: negative output_padding is not supported, got {output_padding:?}"
        ));
    }
    let transposed = b.bool("transposed")?;
    let (batch, in_channels) = if batched { (x[0], x[1]) } else { (1, x[0]) };
    let grouped = w[1]
        .checked_mul(groups)
        .ok_or_else(|| GraphError::Shape(format!("convolution: groups={groups} is too large")))?;
    let (out_channels, expected_in) = if transposed {
        (grouped, w[0])
    } else {
        (w[0], grouped)
    };
    if in_channels != expected_in {
        return shape_err(format!(
            "convolution: given groups={groups}, weight of size {}, expected input{} to have {expected_in} \
             channels, but got {in_channels} channels instead",
            Dims(w),
            Dims(x)
        ));
    }
    if !transposed && !w[0].is_multiple_of(groups) {
        return shape_err(format!(
            "convolution: given groups={groups}, expected weight to be divisible by {groups} at dimension 0, \
             but got weight of size {} instead",
            Dims(w)
        ));
    }
    let input = x[x.len() - n..].to_vec();
    let kernel = w[2..].to_vec();
    let mut output = Vec::with_capacity(n);
    for i in 0..n {
        // In i128: user-given strides, paddings and dilations may be near i64::MAX.
        let (inp, k) = (input[i] as i128, kernel[i] as i128);
        let (s, p, d, op) = (
            stride[i] as i128,
            padding[i] as i128,
            dilation[i] as i128,
            output_padding[i] as i128,
        );
        let out = if transposed {
            if op >= s && op >= d {
                return shape_err(format!(
                    "convolution: output padding must be smaller than either stride or dilation, got \
                     output_padding={op}, stride={s}, dilation={d}"
                ));
            }
            (inp - 1) * s - 2 * p + d * (k - 1) + op + 1
        } else {
            let padded = inp + 2 * p;
            let effective = d * (k - 1) + 1;
            if padded < effective {
                return shape_err(format!(
                    "convolution: calculated padded input size per channel: ({padded}). Kernel size: \
                     ({effective}). Kernel size can't be greater than actual input size"
                ));
            }
            (padded - effective) / s + 1
        };
        if !(0..=1i128 << 60).contains(&out) {
            return shape_err(format!(
                "convolution: the output size would be {out}, which is not a valid size"
            ));
        }
        output.push(out as usize);
    }
    let u = |v: Vec<i64>| v.into_iter().map(|x| x as usize).collect::<Vec<_>>();
    Ok(ConvGeometry {
        batched,
        batch,
        in_channels,
        out_channels,
        groups,
        transposed,
        input,
        kernel,
        stride: u(stride),
        padding: u(padding),
        dilation: u(dilation),
        output_padding: u(output_padding),
        output,
    })
}

/// The outputs of a call of `kind`, an op of this family.
pub(super) fn infer(cx: &Cx<'_>, kind: WindowKind) -> Result<Vec<TensorMeta>, GraphError> {
    let b = cx.b;
    let name = cx.schema.name.as_str();
    use WindowKind::*;
    match kind {
        MaxPoolWithIndices | AvgPool => {
            let m = cx.meta("self")?;
            if kind == AvgPool && !m.dtype.is_float() && m.dtype != DType::I64 {
                return dtype_err(format!("{name} is not implemented for {}", m.dtype));
            }
            if m.dtype == DType::Bool {
                return dtype_err(format!("{name} is not implemented for bool"));
            }
            let win = pool_window(b, name, &m.sizes)?;
            if kind == AvgPool
                && let Some(d) = b.opt_int("divisor_override")
                && d == 0
            {
                return shape_err(format!("{name}: divisor must be not zero"));
            }
            let lead = m.sizes.len() - win.output.len();
            let sizes: Vec<usize> = m.sizes[..lead].iter().chain(&win.output).copied().collect();
            let out = TensorMeta::contiguous(m.dtype, sizes.clone());
            if kind == AvgPool {
                Ok(vec![out])
            } else {
                Ok(vec![out, TensorMeta::contiguous(DType::I64, sizes)])
            }
        }
        AdaptiveAvgPool => {
            let m = cx.meta("self")?;
            let n = spatial_dims(name);
            if m.rank() != n + 1 && m.rank() != n + 2 {
                return shape_err(format!(
                    "{name}: expected a {}D or {}D input, got {}",
                    n + 1,
                    n + 2,
                    Dims(&m.sizes)
                ));
            }
            if !m.dtype.is_float() {
                return dtype_err(format!("{name} is not implemented for {}", m.dtype));
            }
            let lead = m.rank() - n;
            if m.sizes[1.min(lead - 1)..lead].contains(&0) || m.sizes[lead..].contains(&0) {
                return shape_err(format!(
                    "{name}: expected input to have non-zero size for non-batch dimensions, but got {}",
                    Dims(&m.sizes)
                ));
            }
            let out = b.int_n("output_size", n)?;
            if out.iter().any(|&o| o < 0) {
                return shape_err(format!(
                    "{name}: output_size must be non-negative, got {out:?}"
                ));
            }
            let sizes: Vec<usize> = m.sizes[..lead]
                .iter()
                .copied()
                .chain(out.iter().map(|&o| o as usize))
                .collect();
            Ok(vec![TensorMeta::contiguous(m.dtype, sizes)])
        }
    }
}

/// The output of a `convolution` (an extern, whose geometry the pools share).
pub(super) fn convolution(cx: &Cx<'_>) -> Result<Vec<TensorMeta>, GraphError> {
    let b = cx.b;
    let x = cx.meta("input")?;
    let w = cx.meta("weight")?;
    if !x.dtype.is_float() || x.dtype != w.dtype {
        return dtype_err(format!(
            "convolution: input ({}) and weight ({}) must have the same floating-point dtype",
            x.dtype, w.dtype
        ));
    }
    let g = conv_geometry(b, &x.sizes, &w.sizes)?;
    if let Some(bias) = b.opt_tensor("bias") {
        let bm = cx.graph.node(bias).meta();
        if bm.sizes != [g.out_channels] || bm.dtype != x.dtype {
            return shape_err(format!(
                "convolution: expected bias to be {}[{}], got {bm}",
                x.dtype, g.out_channels
            ));
        }
    }
    Ok(vec![TensorMeta::contiguous(x.dtype, g.out_sizes())])
}

/// `convolution_backward`: the gradients of the input, the weight and a bias of
/// `[out_channels]`, contiguous, each with the input's dtype (a masked-off one keeps its meta:
/// it is never read).
pub(super) fn convolution_backward(cx: &Cx<'_>) -> Result<Vec<TensorMeta>, GraphError> {
    let b = cx.b;
    let dy = cx.meta("grad_output")?;
    let x = cx.meta("input")?;
    let w = cx.meta("weight")?;
    if !x.dtype.is_float() || x.dtype != w.dtype || dy.dtype != x.dtype {
        return dtype_err(format!(
            "convolution_backward: grad_output ({}), input ({}) and weight ({}) must have the \
             same floating-point dtype",
            dy.dtype, x.dtype, w.dtype
        ));
    }
    let g = conv_geometry(b, &x.sizes, &w.sizes)?;
    if dy.sizes != g.out_sizes() {
        return shape_err(format!(
            "convolution_backward: expected grad_output of size {} (the convolution's output), \
             got {}",
            Dims(&g.out_sizes()),
            Dims(&dy.sizes)
        ));
    }
    let mask = b.bool_list("output_mask")?;
    if mask.len() != 3 {
        return shape_err(format!(
            "convolution_backward: output_mask must have 3 bools, got {}",
            mask.len()
        ));
    }
    Ok(vec![
        TensorMeta::contiguous(x.dtype, x.sizes.clone()),
        TensorMeta::contiguous(x.dtype, w.sizes.clone()),
        TensorMeta::contiguous(x.dtype, vec![g.out_channels]),
    ])
}
