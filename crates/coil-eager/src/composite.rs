//! Composite ops PyTorch eager runs as one kernel: `_softmax`, `_log_softmax` (max-subtracted)
//! and `native_layer_norm` (output, mean and rstd).

use coil_graph::{CompositeKind, Tensor, TensorMeta, normalize_dim};

use crate::elem::{Elem, Float, Num, Src, finish, gather, with_float};
use crate::error::{OpError, fail};
use crate::interp::Args;
use crate::reduce::{fold_nan, lanes, pairwise_sum};

/// Runs a composite op; `metas` are the node's recorded outputs.
pub(crate) fn eval(
    kind: CompositeKind,
    a: &Args<'_>,
    metas: &[TensorMeta],
) -> Result<Vec<Tensor>, OpError> {
    match kind {
        CompositeKind::Softmax | CompositeKind::LogSoftmax => {
            let x = a.tensor("self")?;
            let sizes = x.sizes().to_vec();
            let d = normalize_dim(a.b.int("dim")?, sizes.len())?;
            let dtype = metas[0].dtype;
            let log = kind == CompositeKind::LogSoftmax;
            // half_to_float only changes the output dtype, which the meta already says.
            let out = with_float!(dtype, "softmax", T => {
                let s = Src::<T>::of(x)?;
                let v = along_dim(&s, &sizes, d, |lane, out| softmax_lane(lane, out, log));
                finish(v, dtype, sizes)
            })?;
            Ok(vec![out])
        }
        CompositeKind::NativeLayerNorm => layer_norm(a, metas),
        CompositeKind::BatchNormNoTraining | CompositeKind::BatchNorm => {
            crate::nn::batch_norm(kind, a, metas)
        }
    }
}

/// Applies `f(lane, out_lane)` to every lane of `s` along dim `d`, writing a contiguous result
/// of the same sizes.
fn along_dim<T: Copy + Default>(
    s: &Src<'_, T>,
    sizes: &[usize],
    d: usize,
    mut f: impl FnMut(&[T], &mut [T]),
) -> Vec<T> {
    let mut out = vec![T::default(); sizes.iter().product()];
    if out.is_empty() {
        // No lanes: nothing to compute, and no lane buffer to size by `d` (which may be huge).
        return out;
    }
    let rank = sizes.len();
    let n = sizes.get(d).copied().unwrap_or(1);
    let inner: usize = sizes.get(d + 1..).unwrap_or(&[]).iter().product();
    let dims: Vec<usize> = if rank == 0 { vec![] } else { vec![d] };
    let mut tmp = vec![T::default(); n];
    let mut k = 0usize;
    lanes(s, sizes, &dims, |lane| {
        if inner == 1 {
            f(lane, &mut out[k * n..(k + 1) * n]);
        } else {
            f(lane, &mut tmp);
            let base = (k / inner) * n * inner + k % inner;
            for (j, &v) in tmp.iter().enumerate() {
                out[base + j * inner] = v;
            }
        }
        k += 1;
    });
    out
}

/// ATen's vectorized softmax: `exp(x - max)`, then a multiply by `1 / sum`; log-softmax is
/// `x - max - log(sum)`.
fn softmax_lane<T: Float>(lane: &[T], out: &mut [T], log: bool) {
    if lane.is_empty() {
        return;
    }
    let max = fold_nan(lane, Num::max_nan);
    for (o, &x) in out.iter_mut().zip(lane) {
        *o = x.sub(max).exp();
    }
    let sum = pairwise_sum(out);
    if log {
        let log_sum = sum.ln();
        for (o, &x) in out.iter_mut().zip(lane) {
            *o = x.sub(max).sub(log_sum);
        }
    } else {
        let r = T::ONE.div(sum);
        for o in out.iter_mut() {
            *o = o.mul(r);
        }
    }
}

/// `native_layer_norm`: biased variance, `rstd = 1 / sqrt(var + eps)`, statistics in f64,
/// the affine part in the opmath type as ATen computes it: `(x * rstd - rstd * mean) * w + b`.
fn layer_norm(a: &Args<'_>, metas: &[TensorMeta]) -> Result<Vec<Tensor>, OpError> {
    let x = a.tensor("input")?;
    let k = a.b.int_list("normalized_shape")?.len();
    let sizes = x.sizes().to_vec();
    if k > sizes.len() {
        return fail("normalized_shape has more dims than the input");
    }
    let axis = sizes.len() - k;
    let (weight, bias) = (a.opt_tensor("weight")?, a.opt_tensor("bias")?);
    let eps = a.b.float("eps")?;
    let [out_meta, mean_meta, rstd_meta] = metas else {
        return fail("native_layer_norm has three outputs");
    };
    let dims: Vec<usize> = (axis..sizes.len()).collect();
    let n: usize = sizes[axis..].iter().product();
    let stat_sizes = mean_meta.sizes.clone();
    with_float!(out_meta.dtype, "layer_norm", T => {
        let s = Src::<T>::of(x)?;
        let w: Option<Vec<T>> = weight.map(gather::<T>);
        let b: Option<Vec<T>> = bias.map(gather::<T>);
        if w.as_ref().is_some_and(|w| w.len() != n) || b.as_ref().is_some_and(|b| b.len() != n) {
            return fail("weight and bias must have the normalized shape");
        }
        let mut out: Vec<T> = Vec::with_capacity(sizes.iter().product());
        let mut means = Vec::new();
        let mut rstds = Vec::new();
        lanes(&s, &sizes, &dims, |row: &[T]| {
            let nf = row.len() as f64;
            let mean = row.iter().map(|v| v.to_f64()).sum::<f64>() / nf;
            let var = row.iter().map(|v| (v.to_f64() - mean).powi(2)).sum::<f64>() / nf;
            let rstd = 1.0 / (var.max(0.0) + eps).sqrt();
            let (scale, shift) = (T::from_f64(rstd), T::from_f64(-rstd * mean));
            let start = out.len();
            out.extend(row.iter().map(|&v| v.mul(scale).add(shift)));
            let y = &mut out[start..];
            if let Some(w) = &w {
                y.iter_mut().zip(w).for_each(|(o, &g)| *o = o.mul(g));
            }
            if let Some(b) = &b {
                y.iter_mut().zip(b).for_each(|(o, &c)| *o = o.add(c));
            }
            means.push(mean);
            rstds.push(rstd);
        });
        Ok(vec![
            finish(out, out_meta.dtype, sizes.clone())?,
            finish(means, mean_meta.dtype, stat_sizes.clone())?,
            finish(rstds, rstd_meta.dtype, stat_sizes)?,
        ])
    })
}
