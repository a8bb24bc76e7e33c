//! Convolution (direct loops, transposed and grouped included), pooling (max with indices,
//! average, adaptive average) and batch norm, with PyTorch's CPU semantics: windows clipped to
//! the padded input, padding never the max, averages over the window PyTorch counts.

use coil_graph::{
    CompositeKind, ConvGeometry, Tensor, TensorMeta, WindowKind, conv_geometry, pool_window,
    spatial_dims,
};

use crate::error::{OpError, fail};
use crate::host::{for_each_index, i64_tensor, strides, tensor, values};
use crate::interp::Args;

/// Calls `f(x, w, y)` with the flat input, weight and output positions of every product the
/// convolution of geometry `g` sums (`y += x * w`; transposed: input `i` feeds output
/// `i*s - p + k*d`), windows clipped to the input (or output).
fn for_each_product(g: &ConvGeometry, mut f: impl FnMut(usize, usize, usize)) {
    let n = g.kernel.len();
    let (cin_g, cout_g) = (g.in_channels / g.groups, g.out_channels / g.groups);
    let in_plane: usize = g.input.iter().product();
    let out_plane: usize = g.output.iter().product();
    let k_plane: usize = g.kernel.iter().product();
    // The plane walked, the one it reaches, and the latter's strides and bounds.
    let (walked, reached) = if g.transposed {
        (&g.input, &g.output)
    } else {
        (&g.output, &g.input)
    };
    let reached_st = strides(reached);
    for b in 0..g.batch {
        for grp in 0..g.groups {
            for ocg in 0..cout_g {
                let oc = grp * cout_g + ocg;
                let obase = (b * g.out_channels + oc) * out_plane;
                for icg in 0..cin_g {
                    let ic = grp * cin_g + icg;
                    let xbase = (b * g.in_channels + ic) * in_plane;
                    // Weight layout: [out, in/groups, *k] or, transposed, [in, out/groups, *k].
                    let wbase = if g.transposed {
                        (ic * cout_g + ocg) * k_plane
                    } else {
                        (oc * cin_g + icg) * k_plane
                    };
                    let mut ki = 0;
                    for_each_index(&g.kernel, |k| {
                        let wi = wbase + ki;
                        ki += 1;
                        let mut walked_i = 0;
                        for_each_index(walked, |y| {
                            let mut off = 0usize;
                            for d in 0..n {
                                let p = (y[d] * g.stride[d] + k[d] * g.dilation[d]) as i64
                                    - g.padding[d] as i64;
                                if p < 0 || p >= reached[d] as i64 {
                                    walked_i += 1;
                                    return;
                                }
                                off += p as usize * reached_st[d];
                            }
                            if g.transposed {
                                f(xbase + walked_i, wi, obase + off);
                            } else {
                                f(xbase + off, wi, obase + walked_i);
                            }
                            walked_i += 1;
                        });
                    });
                }
            }
        }
    }
}

/// Runs `convolution`.
pub(crate) fn convolution(a: &Args<'_>, out: &TensorMeta) -> Result<Tensor, OpError> {
    let x = a.tensor("input")?;
    let w = a.tensor("weight")?;
    let g = conv_geometry(&a.b, x.sizes(), w.sizes())?;
    let (xv, wv) = (values(x), values(w));
    let bias = a.opt_tensor("bias")?.map(values);
    let out_plane: usize = g.output.iter().product();
    let mut o = vec![0.0f64; g.batch * g.out_channels * out_plane];
    for (oc, chunk) in o.chunks_mut(out_plane.max(1)).enumerate() {
        if let Some(b) = &bias {
            chunk.fill(b[oc % g.out_channels]);
        }
    }
    for_each_product(&g, |xi, wi, yi| o[yi] += xv[xi] * wv[wi]);
    tensor(out.dtype, out.sizes.clone(), o)
}

/// Runs `convolution_backward`: for every product the convolution sums, `dx += dy w` and
/// `dw += dy x`, and `db` sums `dy` per channel; the gradients `output_mask` turns off are
/// zeros.
pub(crate) fn convolution_backward(
    a: &Args<'_>,
    metas: &[TensorMeta],
) -> Result<Vec<Tensor>, OpError> {
    let dy = a.tensor("grad_output")?;
    let x = a.tensor("input")?;
    let w = a.tensor("weight")?;
    let mask = a.b.bool_list("output_mask")?;
    let g = conv_geometry(&a.b, x.sizes(), w.sizes())?;
    let (dyv, xv, wv) = (values(dy), values(x), values(w));
    let out_plane: usize = g.output.iter().product();
    let mut dx = vec![0.0f64; xv.len()];
    let mut dw = vec![0.0f64; wv.len()];
    let mut db = vec![0.0f64; g.out_channels];
    for (plane, chunk) in dyv.chunks(out_plane.max(1)).enumerate() {
        db[plane % g.out_channels] += chunk.iter().sum::<f64>();
    }
    for_each_product(&g, |xi, wi, yi| {
        dx[xi] += dyv[yi] * wv[wi];
        dw[wi] += dyv[yi] * xv[xi];
    });
    let dtype = metas[0].dtype;
    [dx, dw, db]
        .into_iter()
        .zip(metas)
        .zip(&mask)
        .map(|((v, m), &on)| {
            let v = if on { v } else { vec![0.0; v.len()] };
            tensor(dtype, m.sizes.clone(), v)
        })
        .collect()
}

/// Runs `max_pool*_with_indices`, `avg_pool*` and `adaptive_avg_pool*`.
pub(crate) fn pool(
    kind: WindowKind,
    a: &Args<'_>,
    metas: &[TensorMeta],
) -> Result<Vec<Tensor>, OpError> {
    let x = a.tensor("self")?;
    let name = a.b.schema().name.clone();
    let n = spatial_dims(&name);
    let sizes = x.sizes();
    let lead = sizes.len() - n;
    let planes: usize = sizes[..lead].iter().product();
    let input = &sizes[lead..];
    let in_plane: usize = input.iter().product();
    let in_st = strides(input);
    let xv = values(x);
    let out = &metas[0];
    let output = &out.sizes[lead..];
    let out_plane: usize = output.iter().product();
    let mut vals = Vec::with_capacity(planes * out_plane);
    let mut idxs = Vec::new();
    let mut taken: Vec<Option<usize>> = Vec::new();
    match kind {
        WindowKind::AdaptiveAvgPool => {
            for p in 0..planes {
                let base = p * in_plane;
                for_each_index(output, |y| {
                    // PyTorch's adaptive window: [floor(y*I/O), ceil((y+1)*I/O)).
                    let starts: Vec<usize> = (0..n).map(|d| y[d] * input[d] / output[d]).collect();
                    let ranges: Vec<usize> = (0..n)
                        .map(|d| ((y[d] + 1) * input[d]).div_ceil(output[d]) - starts[d])
                        .collect();
                    let count: usize = ranges.iter().product();
                    let mut sum = 0.0;
                    for_each_index(&ranges, |r| {
                        let off: usize = (0..n).map(|d| (starts[d] + r[d]) * in_st[d]).sum();
                        sum += xv[base + off];
                    });
                    vals.push(sum / count as f64);
                });
            }
            Ok(vec![tensor(out.dtype, out.sizes.clone(), vals)?])
        }
        WindowKind::MaxPoolWithIndices | WindowKind::AvgPool => {
            let win = pool_window(&a.b, &name, sizes)?;
            let include_pad = kind == WindowKind::AvgPool && a.b.bool("count_include_pad")?;
            let divisor = a.b.opt_int("divisor_override");
            let taps: Vec<usize> = win.kernel.clone();
            for p in 0..planes {
                let base = p * in_plane;
                for_each_index(output, |y| {
                    let mut best = f64::NEG_INFINITY;
                    let mut best_at: Option<usize> = None;
                    let mut sum = 0.0;
                    let mut inside = 0usize;
                    for_each_index(&taps, |k| {
                        let mut off = 0usize;
                        for d in 0..n {
                            let pos = (y[d] * win.stride[d] + k[d] * win.dilation[d]) as i64
                                - win.padding[d] as i64;
                            if pos < 0 || pos >= input[d] as i64 {
                                return;
                            }
                            off += pos as usize * in_st[d];
                        }
                        let v = xv[base + off];
                        inside += 1;
                        sum += v;
                        if best_at.is_none() || v > best || v.is_nan() {
                            best = v;
                            best_at = Some(off);
                        }
                    });
                    if kind == WindowKind::MaxPoolWithIndices {
                        vals.push(best);
                        taken.push(best_at.map(|o| base + o));
                        idxs.push(best_at.unwrap_or(0) as i64);
                    } else {
                        // PyTorch counts the window clipped to the padded input (count_include_pad)
                        // or to the input itself.
                        let mut padded = 1usize;
                        for d in 0..n {
                            let start = (y[d] * win.stride[d]) as i64 - win.padding[d] as i64;
                            let end = (start + win.kernel[d] as i64)
                                .min(input[d] as i64 + win.padding[d] as i64);
                            padded *= (end - start).max(0) as usize;
                        }
                        let count = match divisor {
                            Some(d) => d as f64,
                            None if include_pad => padded as f64,
                            None => inside as f64,
                        };
                        vals.push(if count == 0.0 { 0.0 } else { sum / count });
                    }
                });
            }
            let outs = if kind == WindowKind::MaxPoolWithIndices {
                // The max is moved, not converted (64-bit integers keep every bit).
                vec![
                    crate::host::take(x, &taken, coil_graph::Scalar::Int(0), out.sizes.clone())?,
                    i64_tensor(metas[1].sizes.clone(), idxs)?,
                ]
            } else {
                vec![tensor(out.dtype, out.sizes.clone(), vals)?]
            };
            Ok(outs)
        }
    }
}

/// Runs `_native_batch_norm_legit_no_training`, `_native_batch_norm_legit` and
/// `native_batch_norm`: eval mode normalizes with the running statistics; training mode with
/// the batch's (biased variance), returning the batch mean and inverse std.
pub(crate) fn batch_norm(
    kind: CompositeKind,
    a: &Args<'_>,
    metas: &[TensorMeta],
) -> Result<Vec<Tensor>, OpError> {
    let x = a.tensor("input")?;
    let sizes = x.sizes();
    let c = sizes[1];
    let inner: usize = sizes[2..].iter().product();
    let outer = sizes[0];
    let xv = values(x);
    let eps = a.b.float("eps")?;
    let training = kind == CompositeKind::BatchNorm && a.b.bool("training")?;
    let ones = vec![1.0; c];
    let zeros = vec![0.0; c];
    let w = a
        .opt_tensor("weight")?
        .map(values)
        .unwrap_or_else(|| ones.clone());
    let bias = a
        .opt_tensor("bias")?
        .map(values)
        .unwrap_or_else(|| zeros.clone());
    let (mean, invstd) = if training {
        let count = (outer * inner) as f64;
        let mut mean = vec![0.0; c];
        let mut var = vec![0.0; c];
        for ch in 0..c {
            let elems =
                || (0..outer).flat_map(move |o| (0..inner).map(move |i| (o * c + ch) * inner + i));
            let m = elems().map(|i| xv[i]).sum::<f64>() / count;
            let v = elems().map(|i| (xv[i] - m) * (xv[i] - m)).sum::<f64>() / count;
            mean[ch] = m;
            var[ch] = v;
        }
        let invstd: Vec<f64> = var.iter().map(|v| 1.0 / (v + eps).sqrt()).collect();
        (mean, invstd)
    } else {
        let (Some(rm), Some(rv)) = (a.opt_tensor("running_mean")?, a.opt_tensor("running_var")?)
        else {
            return fail("batch_norm: running_mean and running_var are needed when training=False");
        };
        let invstd = values(rv).iter().map(|v| 1.0 / (v + eps).sqrt()).collect();
        (values(rm), invstd)
    };
    let mut o = Vec::with_capacity(xv.len());
    for outer_i in 0..outer {
        for ch in 0..c {
            let scale = invstd[ch] * w[ch];
            let shift = bias[ch] - mean[ch] * scale;
            let base = (outer_i * c + ch) * inner;
            o.extend(xv[base..base + inner].iter().map(|v| v * scale + shift));
        }
    }
    let stat = |v: Vec<f64>, m: &TensorMeta| -> Result<Tensor, OpError> {
        if m.sizes == [0] {
            tensor(m.dtype, vec![0], vec![])
        } else {
            tensor(m.dtype, m.sizes.clone(), v)
        }
    };
    Ok(vec![
        tensor(metas[0].dtype, sizes.to_vec(), o)?,
        stat(mean, &metas[1])?,
        stat(invstd, &metas[2])?,
    ])
}
