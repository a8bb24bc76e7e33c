"""coil's decompositions of two network ops Inductor leaves to their libraries:

- `convolution_backward` (Inductor calls ATen's, which calls cuDNN or oneDNN) as forward
  convolutions, which coil compiles: the input's gradient is the transposed convolution of the
  output's gradient with the weight, written as a forward one (the gradient spread by the
  stride with zeros between, padded, convolved with the weight flipped and its channels
  exchanged; for a transposed convolution a plain forward one), the weight's
  is a convolution of the input with the output's gradient over the batch (stride and dilation
  exchanged, groups kept by folding them into the channels), the bias's a sum.
- a transposed `convolution` (coil's lowering runs those on the host) as that same forward
  convolution, in the trace;
- `_weight_norm_interface_backward` (PyTorch has no decomposition; its autograd formula): for
  `w = v g / |v|` with the norm over every dim but `dim`, `dg = sum(dw v) / |v|` and
  `dv = (g / |v|) dw - (g dg / |v|^2) v`.
- `torchvision.roi_align` (Inductor falls back to torchvision's kernel) with a fixed sampling
  ratio, as gathers: each bin's samples bilinearly interpolated from their four neighbours,
  averaged. An adaptive ratio (`sampling_ratio <= 0`, a grid size that depends on each box)
  is left undecomposed: coil reports the op as unsupported.

Pure Python, as `_decomp`.
"""

import torch

aten = torch.ops.aten


def _narrow_to(x, sizes):
    """`x`'s leading `sizes[i]` elements along each trailing dim `i + 2`."""
    for i, n in enumerate(sizes):
        if x.shape[i + 2] != n:
            x = aten.slice.Tensor(x, i + 2, 0, n)
    return x


def _fold_groups(x, groups):
    """`[n, g * c, *s]` as `[c, g * n, *s]`: element `[b, g c0 + c]` at `[c, g0 n + b]`."""
    n, gc = x.shape[0], x.shape[1]
    c = gc // groups
    spatial = list(x.shape[2:])
    x = aten.view.default(aten.clone.default(x, memory_format=torch.contiguous_format),
                          [n, groups, c] + spatial)
    x = aten.permute.default(x, [2, 1, 0] + list(range(3, 3 + len(spatial))))
    return aten.reshape.default(x, [c, groups * n] + spatial)


def _spread(x, stride):
    """`x` with `stride - 1` zeros between neighbours along each spatial dim."""
    for i, s in enumerate(stride):
        if s == 1:
            continue
        d = i + 2
        n = x.shape[d]
        x = aten.unsqueeze.default(x, d + 1)
        pad = [0, 0] * (x.dim() - d - 2) + [0, s - 1]
        x = aten.constant_pad_nd.default(x, pad, 0.0)
        shape = list(x.shape[:d]) + [n * s] + list(x.shape[d + 2:])
        x = aten.reshape.default(x, shape)
        x = aten.slice.Tensor(x, d, 0, (n - 1) * s + 1)
    return x


def _conv_transpose(dy, w, stride, padding, dilation, output_padding, groups):
    """`convolution(dy, w, transposed=True)` as a forward convolution (coil compiles those;
    its transposed ones are host calls)."""
    nd = w.dim() - 2
    k = w.shape[2:]
    x = _spread(dy, stride)
    # Each side: d (k - 1) - p, the right one plus the output padding (negative: a crop).
    pads = []
    for i in reversed(range(nd)):
        left = dilation[i] * (k[i] - 1) - padding[i]
        pads += [left, left + output_padding[i]]
    if any(p < 0 for p in pads):
        for i in range(nd):
            left, right = pads[2 * (nd - 1 - i)], pads[2 * (nd - 1 - i) + 1]
            n = x.shape[i + 2]
            x = aten.slice.Tensor(x, i + 2, max(-left, 0), n - max(-right, 0))
        pads = [max(p, 0) for p in pads]
    if any(pads):
        x = aten.constant_pad_nd.default(x, pads, 0.0)
    # The weight [C_in_t, C_out_t / g, *k] as a forward one [C_out_t, C_in_t / g, *k], flipped.
    cin, cout_g = w.shape[0], w.shape[1]
    wf = aten.view.default(
        aten.clone.default(w, memory_format=torch.contiguous_format),
        [groups, cin // groups, cout_g] + list(k),
    )
    wf = aten.transpose.int(wf, 1, 2)
    wf = aten.reshape.default(wf, [groups * cout_g, cin // groups] + list(k))
    wf = aten.flip.default(wf, list(range(2, 2 + nd)))
    return aten.convolution.default(x, wf, None, [1] * nd, [0] * nd, list(dilation), False,
                                    [0] * nd, groups)


def convolution_transposed_as_forward(x, w, bias, stride, padding, dilation, transposed,
                                      output_padding, groups):
    """A transposed `convolution` as a forward one (coil lowers those; its transposed ones are
    host calls), its bias added; `NotImplemented` (left to coil) for a forward one."""
    if not transposed or x.dim() != w.dim():
        return NotImplemented
    nd = w.dim() - 2

    def expand(p):
        p = list(p)
        return p * nd if len(p) == 1 else p

    y = _conv_transpose(x, w, expand(stride), expand(padding), expand(dilation),
                        expand(output_padding), groups)
    if bias is not None:
        y = y + aten.view.default(bias, [1, -1] + [1] * nd)
    return y


def _weight_grad(x, dy, weight_sizes, stride, padding, dilation, groups):
    """`d/dw` of `y = conv(x, w)`: `[g * co, ci, *k]`."""
    xs = _fold_groups(x, groups)  # [ci, g * n, *s]
    dys = aten.transpose.int(dy, 0, 1)  # [g * co, n, *o]
    gw = aten.convolution.default(
        xs, dys, None, list(dilation), list(padding), list(stride), False,
        [0] * len(stride), groups,
    )  # [ci, g * co, *k'] with k' >= k
    gw = aten.transpose.int(gw, 0, 1)
    return _narrow_to(gw, weight_sizes[2:])


def _format_of(w):
    # ATen's weight gradient has the weight's memory format.
    for fmt, rank in ((torch.channels_last, 4), (torch.channels_last_3d, 5)):
        if w.dim() == rank and not w.is_contiguous() and w.is_contiguous(memory_format=fmt):
            return fmt
    return torch.contiguous_format


def convolution_backward(dy, x, w, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):
    nd = w.dim() - 2

    def expand(p):
        # ATen takes one value for every spatial dim.
        p = list(p)
        return p * nd if len(p) == 1 else p

    stride, padding, dilation = expand(stride), expand(padding), expand(dilation)
    output_padding = expand(output_padding)
    dx = dw = db = None
    if output_mask[0]:
        if not transposed:
            k = w.shape[2:]
            extra = [
                x.shape[2 + i]
                - ((dy.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k[i] - 1) + 1)
                for i in range(nd)
            ]
            dx = _conv_transpose(dy, w, stride, padding, dilation, extra, groups)
        else:
            dx = aten.convolution.default(dy, w, None, stride, padding, dilation, False,
                                          [0] * nd, groups)
            dx = _narrow_to(dx, x.shape[2:])
    if output_mask[1]:
        if not transposed:
            dw = _weight_grad(x, dy, w.shape, stride, padding, dilation, groups)
        else:
            # y = conv_transpose(x, w) is x = conv(y, w)'s input gradient: w's gradient is the
            # forward one with the roles of x and dy exchanged.
            dw = _weight_grad(dy, x, w.shape, stride, padding, dilation, groups)
        dw = aten.clone.default(dw, memory_format=_format_of(w))
    if output_mask[2]:
        db = aten.sum.dim_IntList(dy, [0] + list(range(2, 2 + nd)))
    return dx, dw, db


def weight_norm_interface_backward(grad_w, v, g, norm, dim):
    """`(dv, dg)` of `_weight_norm_interface(v, g, dim)` given `dw` (the norm as it returned,
    the shape of `g`)."""
    dim = dim + v.dim() if dim < 0 else dim
    reduce_dims = [i for i in range(v.dim()) if i != dim]
    wide = torch.float32 if g.dtype in (torch.float16, torch.bfloat16) else g.dtype
    dw, vv, gg, nn = (t.to(wide) for t in (grad_w, v, g, norm))
    s = aten.sum.dim_IntList(dw * vv, reduce_dims, True) if reduce_dims else dw * vv
    dg = s / nn
    dv = (gg / nn) * dw - (gg * dg / (nn * nn)) * vv
    return dv.to(v.dtype), dg.to(g.dtype)


def roi_align(x, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned):
    """torchvision's `roi_align` (`[k, c, ph, pw]` from `x: [n, c, h, w]` and `rois: [k, 5]`,
    rows `(batch, x1, y1, x2, y2)`), for a fixed `sampling_ratio`."""
    if sampling_ratio <= 0:
        return NotImplemented
    dtype = x.dtype
    n, c, h, w = x.shape
    k = rois.shape[0]
    g = sampling_ratio
    r = rois.to(dtype)
    offset = 0.5 if aligned else 0.0
    batch = aten._to_copy.default(aten.select.int(rois, 1, 0), dtype=torch.int64)
    x1, y1, x2, y2 = (aten.select.int(r, 1, i) * spatial_scale - offset for i in range(1, 5))
    roi_w, roi_h = x2 - x1, y2 - y1
    if not aligned:
        roi_w, roi_h = aten.clamp_min.default(roi_w, 1.0), aten.clamp_min.default(roi_h, 1.0)
    bin_h, bin_w = roi_h / pooled_height, roi_w / pooled_width

    def coords(start, bin_size, pooled):
        # [k, pooled * g]: start + p bin + (i + 0.5) bin / g for bin p, sample i, rounded
        # as torchvision's kernel rounds it.
        j = torch.arange(pooled * g, device=x.device)
        p = (j // g).to(dtype).unsqueeze(0)
        i = ((j % g).to(dtype) + 0.5).unsqueeze(0)
        bin_size = bin_size.unsqueeze(1)
        return start.unsqueeze(1) + p * bin_size + i * bin_size / g

    ys = coords(y1, bin_h, pooled_height)  # [k, ph g]
    xs = coords(x1, bin_w, pooled_width)  # [k, pw g]

    def corners(v, size):
        # The sample's two neighbours along one axis and its weights (0 outside [-1, size]).
        valid = (v >= -1.0) & (v <= size)
        v = aten.clamp_min.default(v, 0.0)
        low = aten.floor.default(v)
        at_edge = low >= size - 1
        low = aten.where.self(at_edge, torch.full_like(low, size - 1), low)
        v = aten.where.self(at_edge, low, v)
        high = aten.where.self(at_edge, low, low + 1)
        frac = v - low
        zero = torch.zeros_like(frac)
        w_low = aten.where.self(valid, 1.0 - frac, zero)
        w_high = aten.where.self(valid, frac, zero)
        return low.to(torch.int64), high.to(torch.int64), w_low, w_high

    yl, yh, wyl, wyh = corners(ys, h)
    xl, xh, wxl, wxh = corners(xs, w)
    # Gather [k, c, ph g, pw g] from x[batch[k], :, y, x].
    b_idx = batch.view(k, 1, 1, 1)
    c_idx = torch.arange(c, device=x.device).view(1, c, 1, 1)

    def at(yi, xi):
        return aten.index.Tensor(x, [b_idx, c_idx, yi.view(k, 1, -1, 1), xi.view(k, 1, 1, -1)])

    def wgt(wy, wx):
        return wy.view(k, 1, -1, 1) * wx.view(k, 1, 1, -1)

    val = (
        at(yl, xl) * wgt(wyl, wxl)
        + at(yl, xh) * wgt(wyl, wxh)
        + at(yh, xl) * wgt(wyh, wxl)
        + at(yh, xh) * wgt(wyh, wxh)
    )
    val = val.view(k, c, pooled_height, g, pooled_width, g)
    return aten.mean.dim(val, [3, 5])
