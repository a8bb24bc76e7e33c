//! Meta inference of reductions and composite ops (`sum`, `mean`, `var`, `argmax`, `_softmax`,
//! `native_layer_norm`): reduced dims, keepdim, and their dtype rules.

use super::{Cx, dtype_err, reduced, reduction_dims, shape_err};
use crate::meta::normalize_dim;
use crate::{CompositeKind, DType, Dims, GraphError, ReductionKind, TensorMeta};

/// The outputs of a call of `kind`, an op of this family.
pub(super) fn infer(cx: &Cx<'_>, kind: ReductionKind) -> Result<Vec<TensorMeta>, GraphError> {
    let b = cx.b;
    let schema = cx.schema;
    let one = |m: TensorMeta| Ok(vec![m]);
    use ReductionKind::*;
    match kind {
        Sum | Prod => {
            let m = cx.meta("self")?;
            let (dims, keepdim) = reduction_dims(b, m.rank())?;
            let dtype = b.opt_dtype("dtype").unwrap_or(if m.dtype.is_float() {
                m.dtype
            } else {
                DType::I64
            });
            one(reduced(&m, &dims, keepdim, dtype))
        }
        Mean => {
            let m = cx.meta("self")?;
            let (dims, keepdim) = reduction_dims(b, m.rank())?;
            let dtype = b.opt_dtype("dtype").unwrap_or(m.dtype);
            if !dtype.is_float() {
                return dtype_err(format!(
                    "mean(): could not infer output dtype. Input dtype must be either a floating point or \
                     complex dtype. Got: {}",
                    m.dtype
                ));
            }
            one(reduced(&m, &dims, keepdim, dtype))
        }
        Any | All => {
            let m = cx.meta("self")?;
            let (dims, keepdim) = super::any_all_dims(b, m.rank())?;
            one(reduced(&m, &dims, keepdim, DType::Bool))
        }
        Amax | Amin => {
            let m = cx.meta("self")?;
            let (dims, keepdim) = reduction_dims(b, m.rank())?;
            // PyTorch refuses an empty reduction (there is no identity for max).
            if let Some(&d) = dims.iter().find(|&&d| m.sizes[d] == 0) {
                return shape_err(format!(
                    "{}(): expected reduction dim {d} to have non-zero size",
                    schema.name
                ));
            }
            if m.numel() == 0 && !b.has("dim") {
                return shape_err(format!(
                    "{}(): expected reduction dim to be specified for input.numel() == 0",
                    schema.name
                ));
            }
            one(reduced(&m, &dims, keepdim, m.dtype))
        }
        Var | VarMean => {
            let m = cx.meta("self")?;
            if !m.dtype.is_float() {
                return dtype_err(format!(
                    "{} needs a floating-point input, got {}",
                    schema.name, m.dtype
                ));
            }
            let (dims, keepdim) = reduction_dims(b, m.rank())?;
            let out = reduced(&m, &dims, keepdim, m.dtype);
            if kind == Var {
                one(out)
            } else {
                Ok(vec![out.clone(), out])
            }
        }
        Argmax | Argmin => {
            let m = cx.meta("self")?;
            let keepdim = b.bool("keepdim")?;
            let out = match b.opt_int("dim") {
                Some(d) => reduced(&m, &[normalize_dim(d, m.rank())?], keepdim, DType::I64),
                None if keepdim => TensorMeta::contiguous(DType::I64, vec![1; m.rank()]),
                None => TensorMeta::contiguous(DType::I64, vec![]),
            };
            if m.numel() == 0 {
                return shape_err(format!("{}(): expected a non-empty input", schema.name));
            }
            one(out)
        }
    }
}

/// The outputs of a call of `kind`, an op of this family.
pub(super) fn infer_composite(
    cx: &Cx<'_>,
    kind: CompositeKind,
) -> Result<Vec<TensorMeta>, GraphError> {
    let b = cx.b;
    let schema = cx.schema;
    let graph = cx.graph;
    let one = |m: TensorMeta| Ok(vec![m]);
    use CompositeKind::*;
    match kind {
        BatchNormNoTraining | BatchNorm => {
            let m = cx.meta("input")?;
            if m.rank() < 2 {
                return shape_err(format!(
                    "batch_norm: expected an input of at least 2 dims ([N, C, ...]), got {}",
                    Dims(&m.sizes)
                ));
            }
            if !m.dtype.is_float() {
                return dtype_err(format!(
                    "batch_norm needs a floating-point input, got {}",
                    m.dtype
                ));
            }
            let c = m.sizes[1];
            for name in ["weight", "bias", "running_mean", "running_var"] {
                if let Some(n) = b.opt_tensor(name) {
                    let w = graph.node(n).meta();
                    if w.sizes != [c] {
                        return shape_err(format!(
                            "batch_norm: expected {name} of shape [{c}] (the input's channels), got {}",
                            Dims(&w.sizes)
                        ));
                    }
                }
            }
            let training = !b.has("training") || b.bool("training")?;
            let training = training && kind == BatchNorm;
            let no_stats = !b.has("running_mean") || b.opt_tensor("running_mean").is_none();
            if kind == BatchNorm && !training && no_stats {
                return shape_err(
                    "batch_norm: running_mean and running_var must be given when training=False",
                );
            }
            let stat = if training { vec![c] } else { vec![0] };
            let stat_dtype = m.dtype.opmath();
            Ok(vec![
                TensorMeta::contiguous(m.dtype, m.sizes.clone()),
                TensorMeta::contiguous(stat_dtype, stat.clone()),
                TensorMeta::contiguous(stat_dtype, stat),
            ])
        }
        Softmax | LogSoftmax => {
            let m = cx.meta("self")?;
            normalize_dim(b.int("dim")?, m.rank())?;
            if !m.dtype.is_float() {
                return dtype_err(format!(
                    "{} needs a floating-point input, got {}",
                    schema.name, m.dtype
                ));
            }
            let dtype = if b.bool("half_to_float")? {
                DType::F32
            } else {
                m.dtype
            };
            one(TensorMeta::contiguous(dtype, m.sizes))
        }
        NativeLayerNorm => {
            let m = cx.meta("input")?;
            let normalized: Vec<usize> = b
                .int_list("normalized_shape")?
                .iter()
                .map(|&s| s.max(0) as usize)
                .collect();
            let k = normalized.len();
            if k > m.rank() || m.sizes[m.rank() - k..] != normalized[..] {
                return shape_err(format!(
                    "layer_norm: given normalized_shape={}, expected input with shape [*, {}], but got input \
                     of size {}",
                    Dims(&normalized),
                    Dims(&normalized).to_string().trim_matches(['[', ']']),
                    Dims(&m.sizes)
                ));
            }
            for name in ["weight", "bias"] {
                if let Some(n) = b.opt_tensor(name) {
                    let w = graph.node(n).meta();
                    if w.sizes != normalized {
                        return shape_err(format!(
                            "layer_norm: expected {name} of shape {}, got {}",
                            Dims(&normalized),
                            Dims(&w.sizes)
                        ));
                    }
                }
            }
            if !m.dtype.is_float() {
                return dtype_err(format!(
                    "layer_norm needs a floating-point input, got {}",
                    m.dtype
                ));
            }
            let axis = m.rank() - k;
            let stat_sizes: Vec<usize> = m.sizes[..axis]
                .iter()
                .copied()
                .chain(std::iter::repeat_n(1, k))
                .collect();
            let stat_dtype = m.dtype.opmath();
            Ok(vec![
                TensorMeta::contiguous(m.dtype, m.sizes.clone()),
                TensorMeta::contiguous(stat_dtype, stat_sizes.clone()),
                TensorMeta::contiguous(stat_dtype, stat_sizes),
            ])
        }
    }
}
