"""The decomposition table coil's graphs are traced (and `tools/export_graph.py`'s exported)
with: core ATen's, plus PyTorch's own decompositions of the overloads in `EXTRA`, Inductor's of
those in `INDUCTOR`, and coil's of a few more (`isnan`, `sign`, `max.dim`, `min.dim`,
`signbit`, prims' `div`, `iota` and `copy_strided`, `empty_strided`, `masked_scatter`,
`adaptive_max_pool2d` and `fractional_max_pool2d`, `max_pool2d_with_indices_backward` where
torch's table lacks it, `bucketize`, `searchsorted`, `resize`, the
pooling and nearest-upsampling backwards as gathers), so a model using one compiles as the ops
it is made of instead of failing; `log2`, `log10`, `sinh`, `cosh` and `tan` are built from
`log`, `exp`, `expm1`, `sin` and `cos` in f32 (within a few f32 ulp; sinh through expm1). Not the whole of `torch._decomp`: some of its entries bottom out in
prims, or (`lift_fresh`) break the tracing of constants. Whether an overload is decomposed at
all is coil's op table's decision: every overload coil compiles (`coil._native.op_names()`) is
left out of the table. Pure Python apart from that lookup, so the export tool can use it on its
own. Checked by tests/test_backend.py's decomposed-ops test.
"""

import math

import torch

from ._decomp_nn import (
    convolution_backward,
    convolution_transposed_as_forward,
    roi_align,
    weight_norm_interface_backward,
)
from ._fx import dense_order

# Overloads coil does not compile that PyTorch decomposes into ones it does.
EXTRA = (
    "native_group_norm.default",
    "repeat.default",
    "upsample_bilinear2d.vec",
    "upsample_bilinear2d.default",
    "upsample_nearest2d.vec",
    "isinf.default",
    "logical_xor.default",
    "addmv.default",
    "_addmm_activation.default",
    "unfold.default",
    "narrow_copy.default",
    "diagonal.default",
    "dist.default",
    "linalg_vector_norm.default",
    "adaptive_max_pool2d.default",
    "max_pool2d_with_indices_backward.default",
    "_native_batch_norm_legit_functional.default",
    "native_dropout.default",
    "upsample_bicubic2d.default",
)

# Overloads decomposed as Inductor decomposes them (`torch._inductor.decomposition`): Inductor
# compiles these as the ops its own decomposition leaves, so coil does too.
INDUCTOR = (
    "fmax.default",
    "fmin.default",
    "grid_sampler_2d.default",
    "angle.default",
)

_TABLE = None


def _isnan(x):
    # PyTorch's decomposes to a prim; NaN is the one value unequal to itself.
    return torch.ops.aten.ne.Tensor(x, x)


def _sign(x):
    # (x > 0) - (x < 0) in x's dtype: NaN and both zeros give 0, as PyTorch's sign does.
    aten = torch.ops.aten
    if x.dtype == torch.bool:
        return aten.clone.default(x)
    pos = aten._to_copy.default(aten.gt.Scalar(x, 0), dtype=x.dtype)
    neg = aten._to_copy.default(aten.lt.Scalar(x, 0), dtype=x.dtype)
    return aten.sub.Tensor(pos, neg)


def _max_dim(x, dim, keepdim=False):
    # amax and argmax agree with max.dim: NaN wins, the first of equal values is the index.
    # (argmax takes no bool: a bool max.dim is left as it is.)
    aten = torch.ops.aten
    if x.dtype == torch.bool:
        return NotImplemented
    return aten.amax.default(x, [dim], keepdim), aten.argmax.default(x, dim, keepdim)


def _min_dim(x, dim, keepdim=False):
    aten = torch.ops.aten
    if x.dtype == torch.bool:
        return NotImplemented
    return aten.amin.default(x, [dim], keepdim), aten.argmin.default(x, dim, keepdim)


def _signbit(x):
    # The sign bit of the storage: a float bitcast to the signed integer of its width is
    # negative exactly when it is set (-0.0 and negative NaNs included); integers compare.
    aten = torch.ops.aten
    if x.dtype == torch.bool:
        return aten.zeros_like.default(x, dtype=torch.bool)
    bits = {
        torch.float64: torch.int64,
        torch.float32: torch.int32,
        torch.bfloat16: torch.int16,
        torch.float16: torch.int16,
    }.get(x.dtype)
    if bits is not None:
        x = aten.view.dtype(x, bits)
    return aten.lt.Scalar(x, 0)


def _prims_div(a, b):
    # prims.div: C's division, truncating for integers, true division for floats.
    aten = torch.ops.aten
    if a.dtype.is_floating_point or a.dtype.is_complex:
        return aten.div.Tensor(a, b)
    return aten.div.Tensor_mode(a, b, rounding_mode="trunc")


def _fma(a, b, c):
    """Inductor's `prims.fma` (`a * b + c` rounded once: what Dynamo writes for `addcmul_`,
    `addcdiv_` and `add_` with a tensor `alpha`, as eager's fused kernels round them), in
    float64: the product of two floats of 24 bits or fewer is exact there and the sum is
    rounded once to 53 bits, then to the result's dtype; that second rounding differs from a
    single one only when the float64 sum lands on a halfway point of the narrower type (about
    one case in 2^29 for f32). A float64 fma is the product and the sum, each rounded."""
    tensors = [t for t in (a, b, c) if isinstance(t, torch.Tensor)]
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = torch.promote_types(dtype, t.dtype)
    if dtype == torch.float64 or not dtype.is_floating_point:
        return a * b + c
    wide = [
        torch.ops.aten._to_copy.default(t, dtype=torch.float64)
        if isinstance(t, torch.Tensor)
        else t
        for t in (a, b, c)
    ]
    return torch.ops.aten._to_copy.default(wide[0] * wide[1] + wide[2], dtype=dtype)


def normalize_prims(gm):
    """Rewrites in place the `prims.convert_element_type` calls a traced graph can still hold
    (a reference's own conversions, when it ran inside another decomposition) as the
    `_to_copy` of the same meaning, which coil compiles, and drops the runtime assertions
    whose conditions the trace settled (`_assert_scalar(True, ...)`)."""
    changed = False
    for node in list(gm.graph.nodes):
        if node.op == "call_function" and node.target is torch.ops.prims.convert_element_type.default:
            x, dtype = node.args
            node.target = torch.ops.aten._to_copy.default
            node.args = (x,)
            node.kwargs = {"dtype": dtype}
            changed = True
        elif (node.op == "call_function" and node.target is torch.ops.aten._assert_scalar.default
              and not node.users and not isinstance(node.args[0], torch.fx.Node)):
            # A check on sizes a static trace made numbers: it holds (or the call fails, as
            # eager's would); nothing to compile.
            if not node.args[0]:
                raise RuntimeError(node.args[1] if len(node.args) > 1 else "assertion failed")
            gm.graph.erase_node(node)
            changed = True
    if changed:
        gm.recompile()


def _prims_iota(length, *, start, step, dtype, device, requires_grad):
    return torch.ops.aten.arange.start_step(
        start, start + length * step, step, dtype=dtype, device=device
    )


def _empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    # A dense layout is an empty tensor in that dimension order, permuted back, so the
    # graph's value keeps eager's strides; any other layout is as_strided on a flat buffer of
    # the storage it spans.
    aten = torch.ops.aten
    size, stride = list(size), list(stride)
    order = dense_order(size, stride)
    if order is not None:
        base = aten.empty.memory_format([size[d] for d in order], dtype=dtype, device=device)
        inverse = [order.index(d) for d in range(len(size))]
        return aten.permute.default(base, inverse)
    span = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    base = aten.empty.memory_format([span], dtype=dtype, device=device)
    return aten.as_strided.default(base, size, stride)


def _new_empty_strided(
    x, size, stride, *, dtype=None, layout=None, device=None, pin_memory=None
):
    return _empty_strided(
        size, stride, dtype=dtype or x.dtype, device=device or x.device
    )


def _copy_strided(x, stride):
    # prims.copy_strided: x's values in a fresh tensor laid out with `stride`.
    out = _empty_strided(list(x.shape), list(stride), dtype=x.dtype, device=x.device)
    return torch.ops.aten.copy.default(out, x)


def _masked_scatter(x, mask, source):
    # The two-step form eager's CUDA kernel and Inductor use: the k-th set element of the mask
    # (row-major) takes source's k-th element, found by a running count of the mask.
    aten = torch.ops.aten
    x, mask = aten.broadcast_tensors.default([x, mask])
    flat_mask = aten.reshape.default(mask, [-1])
    count = aten.cumsum.default(flat_mask, 0, dtype=torch.int64)
    n = max(source.numel(), 1)
    at = aten.clamp.default(aten.sub.Tensor(count, 1), 0, n - 1)
    flat_source = aten.reshape.default(source, [-1])
    if source.numel() == 0:
        flat_source = aten.new_zeros.default(flat_source, [1])
    taken = aten.index.Tensor(flat_source, [at])
    out = aten.where.self(flat_mask, taken, aten.reshape.default(x, [-1]))
    return aten.reshape.default(out, list(x.shape))


def _adaptive_max_pool2d(x, output_size):
    # PyTorch's windows (start floor(i*H/out), end ceil((i+1)*H/out)) gathered at the longest
    # window's length, the positions past a window's end masked to -inf; the index is the
    # flat position ih*W+iw of the window's first maximum (NaN counting as one), as eager's.
    aten = torch.ops.aten
    h_in, w_in = x.shape[-2], x.shape[-1]
    h_out, w_out = output_size
    if h_out == 0 or w_out == 0 or (h_in % h_out == 0 and w_in % w_out == 0):
        return NotImplemented  # PyTorch's own decomposition covers these

    def windows(n_in, n_out, shape_idx, shape_j):
        # Window starts, a clamped position for each of the k offsets, and which are inside.
        k = max(-(-(i + 1) * n_in // n_out) - (i * n_in) // n_out for i in range(n_out))
        i = aten.arange.default(n_out, dtype=torch.int64, device=x.device)
        start = aten.floor_divide.default(aten.mul.Tensor(i, n_in), n_out)
        end = aten.neg.default(
            aten.floor_divide.default(aten.mul.Tensor(aten.add.Tensor(i, 1), -n_in), n_out)
        )
        j = aten.arange.default(k, dtype=torch.int64, device=x.device)
        start = aten.reshape.default(start, shape_idx)
        end = aten.reshape.default(end, shape_idx)
        at = aten.add.Tensor(start, aten.reshape.default(j, shape_j))
        inside = aten.lt.Tensor(at, end)
        return k, aten.clamp.default(at, None, n_in - 1), inside

    kh, ih_t, vh = windows(h_in, h_out, [h_out, 1, 1, 1], [1, 1, -1, 1])
    kw, iw_t, vw = windows(w_in, w_out, [1, w_out, 1, 1], [1, 1, 1, -1])
    valid = aten.logical_and.default(vh, vw)
    # [..., h_out, w_out, kh, kw]
    win = aten.index.Tensor(x, [None] * (x.dim() - 2) + [ih_t, iw_t])
    low = torch.finfo(x.dtype).min if x.dtype.is_floating_point else torch.iinfo(x.dtype).min
    fill = -math.inf if x.dtype.is_floating_point else low
    win = aten.where.ScalarOther(valid, win, fill)
    flat = aten.reshape.default(win, list(win.shape[:-2]) + [kh * kw])
    values = aten.amax.default(flat, [-1])
    local = aten.argmax.default(flat, -1)
    pos = aten.add.Tensor(
        aten.mul.Tensor(ih_t.expand(h_out, w_out, kh, kw), w_in), iw_t.expand(h_out, w_out, kh, kw)
    )
    pos = aten.reshape.default(pos, [h_out, w_out, kh * kw])
    lead = list(flat.shape[:-3])
    pos = aten.expand.default(pos, lead + [h_out, w_out, kh * kw])
    indices = aten.gather.default(pos, -1, aten.unsqueeze.default(local, -1))
    return values, aten.squeeze.dim(indices, -1)


def _count_below(seq, values, right, out_int32):
    # How many of `seq`'s last-dim entries lie below each value (at or below: `right`), as a
    # fused compare-and-sum over that dim: PyTorch's binary-search answer for a sorted `seq`.
    # Counted as "not at or above", so a NaN value counts every entry, as PyTorch puts NaN
    # after all of them.
    aten = torch.ops.aten
    above = aten.gt.Tensor if right else aten.ge.Tensor
    below = aten.logical_not.default(above(seq, values))
    return aten.sum.dim_IntList(below, [-1], dtype=torch.int32 if out_int32 else torch.int64)


def _bucketize(x, boundaries, *, out_int32=False, right=False):
    aten = torch.ops.aten
    return _count_below(boundaries, aten.unsqueeze.default(x, -1), right, out_int32)


def _searchsorted(seq, values, *, out_int32=False, right=False, side=None, sorter=None):
    aten = torch.ops.aten
    if side is not None:
        right = side == "right"
    if sorter is not None:
        seq = aten.gather.default(seq, -1, sorter)
    v = aten.unsqueeze.default(values, -1)
    if seq.dim() > 1:
        seq = aten.unsqueeze.default(seq, -2)
    return _count_below(seq, v, right, out_int32)


def _resize(x, size, memory_format=None):
    # The functional resize: x's storage read from its start (as eager's resize keeps the
    # storage), laid out contiguously or channels-last; grown elements are what eager's
    # deterministic mode writes there (NaN, or the integer maximum).
    aten = torch.ops.aten
    size = list(size)
    n = math.prod(size)
    if memory_format == torch.channels_last and len(size) == 4:
        order = [0, 2, 3, 1]
    elif memory_format == torch.channels_last_3d and len(size) == 5:
        order = [0, 2, 3, 4, 1]
    else:
        order = list(range(len(size)))
    stride = [0] * len(size)
    step = 1
    for d in reversed(order):
        stride[d] = step
        step *= max(size[d], 1)
    have = x.numel()
    if n <= have:
        return aten.as_strided.default(x, size, stride)
    flat = aten.as_strided.default(x, [have], [1])
    if x.dtype.is_floating_point:
        fill = math.nan
    elif x.dtype == torch.bool:
        fill = True
    else:
        fill = torch.iinfo(x.dtype).max
    grown = aten.full.default([n - have], fill, dtype=x.dtype, device=x.device)
    whole = aten.cat.default([flat, grown])
    return aten.as_strided.default(whole, size, stride)


def _window_sources(n_in, n_out, k, s, p, device):
    """For each input position along a pooled dim, its ceil(k / s) candidate windows
    (`[n_in, c]`, clamped into range), which of them cover it, and each window's divisors
    counting the padding and not (`[n_out]` each)."""
    aten = torch.ops.aten
    i64 = torch.int64
    c = -(-k // s)
    h = aten.reshape.default(aten.arange.default(n_in, dtype=i64, device=device), [n_in, 1])
    j = aten.reshape.default(aten.arange.default(c, dtype=i64, device=device), [1, c])
    top = aten.floor_divide.default(aten.add.Tensor(h, p), s)
    o = aten.sub.Tensor(top, j)
    covers = aten.gt.Tensor(aten.add.Tensor(aten.sub.Tensor(aten.mul.Tensor(o, s), p), k), h)
    inside = aten.logical_and.default(aten.ge.Scalar(o, 0), aten.lt.Scalar(o, n_out))
    valid = aten.logical_and.default(covers, inside)
    o = aten.clamp.default(o, 0, n_out - 1)
    w = aten.arange.default(n_out, dtype=i64, device=device)
    start = aten.sub.Tensor(aten.mul.Tensor(w, s), p)
    end = aten.clamp.default(aten.add.Tensor(start, k), None, n_in + p)
    incl = aten.sub.Tensor(end, start)
    excl = aten.sub.Tensor(aten.clamp.default(end, None, n_in), aten.clamp.default(start, 0))
    return o, valid, incl, excl


def _avg_pool_backward(d):
    """avg_pool{d}d_backward as a gather: each input position sums, over the (at most
    ceil(k / s) per dim) windows covering it, the window's gradient over its divisor
    (PyTorch's: the padded window clipped at size + padding, or the part inside the input).
    Inductor lowers it as the same gather."""

    def backward(grad, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                 divisor_override=None):
        aten = torch.ops.aten

        def per_dim(v, default):
            v = list(v) if v else list(default)
            return v * d if len(v) == 1 else v

        ks = per_dim(kernel_size, kernel_size)
        ss = per_dim(stride, ks)
        ps = per_dim(padding, [0])
        lead = x.dim() - d
        dtype = grad.dtype
        wide = grad if dtype not in (torch.bfloat16, torch.float16) else aten._to_copy.default(
            grad, dtype=torch.float32)
        divisor = None
        idx, masks = [], []
        rank = 2 * d
        for i in range(d):
            n_in, n_out = x.shape[lead + i], grad.shape[lead + i]
            o, valid, incl, excl = _window_sources(n_in, n_out, ks[i], ss[i], ps[i], x.device)
            size = incl if count_include_pad else excl
            shape = [1] * d
            shape[i] = n_out
            size = aten.reshape.default(size, shape)
            divisor = size if divisor is None else aten.mul.Tensor(divisor, size)
            at = [1] * rank
            at[2 * i], at[2 * i + 1] = n_in, o.shape[1]
            idx.append(aten.reshape.default(o, at))
            masks.append(aten.reshape.default(valid, at))
        if divisor_override:
            scaled = aten.div.Tensor(wide, divisor_override)
        else:
            scaled = aten.div.Tensor(wide, divisor)
        g = aten.index.Tensor(scaled, [None] * lead + idx)
        mask = masks[0]
        for m in masks[1:]:
            mask = aten.logical_and.default(mask, m)
        g = aten.where.ScalarOther(mask, g, 0.0)
        out = aten.sum.dim_IntList(g, [lead + 2 * i + 1 for i in range(d)])
        return out if out.dtype == dtype else aten._to_copy.default(out, dtype=dtype)

    return backward


def _f32(v):
    import struct

    return struct.unpack("f", struct.pack("f", v))[0]


def _upsample_nearest2d_backward(grad, output_size, input_size, scales_h=None, scales_w=None):
    # Each input position sums the output positions whose nearest source it is (PyTorch's
    # source index: floor(dst * scale) in f32, clamped; scale = in / out or 1 / the given
    # scale): at most c of them, c counted here from the same f32 arithmetic.
    aten = torch.ops.aten
    lead = grad.dim() - 2
    idx, masks = [], []
    for i, given in enumerate((scales_h, scales_w)):
        n_in, n_out = input_size[lead + i], output_size[i]
        scale = _f32(1.0 / given) if given else _f32(n_in / n_out)
        src_py = [min(math.floor(_f32(_f32(float(o)) * scale)), n_in - 1) for o in range(n_out)]
        c = max(src_py.count(h) for h in range(n_in)) if n_out else 1
        o = aten.arange.default(n_out, dtype=torch.float32, device=grad.device)
        src = aten._to_copy.default(aten.floor.default(aten.mul.Tensor(o, scale)), dtype=torch.int64)
        src = aten.clamp.default(src, None, n_in - 1)
        h = aten.reshape.default(aten.arange.default(n_in, dtype=torch.int64, device=grad.device), [n_in, 1])
        # The first output position mapping to h or beyond: how many map below it.
        below = aten.lt.Tensor(aten.reshape.default(src, [1, n_out]), h)
        start = aten.sum.dim_IntList(below, [1], True)
        j = aten.reshape.default(aten.arange.default(c, dtype=torch.int64, device=grad.device), [1, c])
        cand = aten.add.Tensor(start, j)
        inside = aten.lt.Scalar(cand, n_out)
        cand = aten.clamp.default(cand, None, n_out - 1)
        hits = aten.logical_and.default(inside, aten.eq.Tensor(aten.index.Tensor(src, [cand]), h))
        at = [1] * 4
        at[2 * i], at[2 * i + 1] = n_in, c
        idx.append(aten.reshape.default(cand, at))
        masks.append(aten.reshape.default(hits, at))
    wide = grad if grad.dtype not in (torch.bfloat16, torch.float16) else aten._to_copy.default(
        grad, dtype=torch.float32)
    g = aten.index.Tensor(wide, [None] * lead + idx)
    g = aten.where.ScalarOther(aten.logical_and.default(masks[0], masks[1]), g, 0.0)
    out = aten.sum.dim_IntList(g, [lead + 1, lead + 3])
    return out if out.dtype == grad.dtype else aten._to_copy.default(out, dtype=grad.dtype)


def _fractional_max_pool2d(x, kernel_size, output_size, random_samples):
    # PyTorch's windows: start_i = trunc((i + u) alpha) - trunc(u alpha), alpha = (in - k) /
    # (out - 1), in the input's float type (f32 for the 16-bit ones), the last at in - k; the
    # width's sample is u[..., 0], the height's u[..., 1]. The index is the window's first
    # maximum, or its last NaN (eager's `val > max || isnan(val)`).
    aten = torch.ops.aten
    batched = x.dim() == 4
    if not batched:
        x = aten.unsqueeze.default(x, 0)
    n, c, h, w = x.shape
    kh, kw = kernel_size
    oh, ow = output_size
    ft = torch.float64 if x.dtype == torch.float64 else torch.float32
    rnd = (lambda v: v) if ft == torch.float64 else _f32
    u = aten._to_copy.default(random_samples, dtype=ft)

    def starts(sample, n_in, n_out, k):
        last = aten.full.default([n, c, 1], n_in - k, dtype=torch.int64, device=x.device)
        if n_out == 1:
            return last
        alpha = rnd(rnd(float(n_in - k)) / rnd(float(n_out - 1)))
        i = aten.arange.default(n_out - 1, dtype=ft, device=x.device)
        s = aten.unsqueeze.default(sample, -1)
        a = aten.trunc.default(aten.mul.Tensor(aten.add.Tensor(i, s), alpha))
        b = aten.trunc.default(aten.mul.Tensor(s, alpha))
        seq = aten._to_copy.default(aten.sub.Tensor(a, b), dtype=torch.int64)
        return aten.cat.default([seq, last], -1)

    sh = starts(aten.select.int(u, -1, 1), h, oh, kh)
    sw = starts(aten.select.int(u, -1, 0), w, ow, kw)
    dev = x.device
    rows = aten.add.Tensor(aten.unsqueeze.default(sh, -1),
                           aten.arange.default(kh, dtype=torch.int64, device=dev))
    cols = aten.add.Tensor(aten.unsqueeze.default(sw, -1),
                           aten.arange.default(kw, dtype=torch.int64, device=dev))
    r = aten.reshape.default(rows, [n, c, oh, 1, kh, 1])
    q = aten.reshape.default(cols, [n, c, 1, ow, 1, kw])
    ni = aten.reshape.default(aten.arange.default(n, dtype=torch.int64, device=dev), [n, 1, 1, 1, 1, 1])
    ci = aten.reshape.default(aten.arange.default(c, dtype=torch.int64, device=dev), [1, c, 1, 1, 1, 1])
    win = aten.index.Tensor(x, [ni, ci, r, q])
    flat = aten.reshape.default(win, [n, c, oh, ow, kh * kw])
    values = aten.amax.default(flat, [-1])
    first = aten.argmax.default(flat, -1)
    nan = aten._to_copy.default(aten.ne.Tensor(flat, flat), dtype=torch.int32)
    last_nan = aten.rsub.Scalar(aten.argmax.default(aten.flip.default(nan, [-1]), -1), kh * kw - 1)
    any_nan = aten.gt.Scalar(aten.amax.default(nan, [-1]), 0)
    local = aten.where.self(any_nan, last_nan, first)
    pos = aten.add.Tensor(aten.mul.Tensor(r, w), q)
    pos = aten.reshape.default(aten.expand.default(pos, [n, c, oh, ow, kh, kw]), [n, c, oh, ow, kh * kw])
    indices = aten.squeeze.dim(aten.gather.default(pos, -1, aten.unsqueeze.default(local, -1)), -1)
    if not batched:
        values, indices = aten.squeeze.dim(values, 0), aten.squeeze.dim(indices, 0)
    return values, indices


def _embedding_bag_byte_unpack(w):
    # quantized.embedding_bag_byte_unpack: each row is uint8 data then an f32 scale and an f32
    # bias (8 bytes); the result is data * scale + bias in f32 (Inductor lowers it the same).
    aten = torch.ops.aten
    n = w.shape[-1] - 8
    data = aten._to_copy.default(aten.slice.Tensor(w, -1, 0, n), dtype=torch.float32)
    tail = aten.clone.default(aten.slice.Tensor(w, -1, n, n + 8))
    sb = aten.view.dtype(tail, torch.float32)
    scale = aten.slice.Tensor(sb, -1, 0, 1)
    bias = aten.slice.Tensor(sb, -1, 1, 2)
    return aten.add.Tensor(aten.mul.Tensor(data, scale), bias)


def _in_f32(f):
    """`f` computed on f32 copies of a 16-bit float input, the result rounded back once."""

    def wrapped(x):
        aten = torch.ops.aten
        if x.dtype in (torch.bfloat16, torch.float16):
            wide = aten._to_copy.default(x, dtype=torch.float32)
            return aten._to_copy.default(f(wide), dtype=x.dtype)
        if not x.dtype.is_floating_point:
            x = aten._to_copy.default(x, dtype=torch.get_default_dtype())
        return f(x)

    return wrapped


def _log_base(base):
    # log(x) · (1 / ln b): within 1.5 ulp of f32 (log's 0.85 and one more rounding); exact at
    # the exact powers of b (where that product can miss the integer by an ulp): where b^r,
    # r the nearest integer, equals x, the result is r.
    aten = torch.ops.aten

    def f(x):
        y = aten.mul.Tensor(aten.log.default(x), 1.0 / math.log(base))
        r = aten.round.default(y)
        exact = aten.eq.Tensor(aten.pow.Scalar(float(base), r), x)
        return aten.where.self(exact, r, y)

    return _in_f32(f)


def _half_exp_large(ax):
    # e^|x| / 2 as (h / 2) h with h = e^(|x| / 2): finite up to where the result overflows
    # (e^|x| alone overflows about ln 2 earlier).
    aten = torch.ops.aten
    h = aten.exp.default(aten.mul.Tensor(ax, 0.5))
    return aten.mul.Tensor(aten.mul.Tensor(h, 0.5), h)


def _large(x):
    # Beyond this |x|, e^-|x| is below half an ulp of e^|x| in the dtype.
    return 40.0 if x.dtype == torch.float64 else 20.0


def _sinh_f(x):
    # From expm1 of |x| (no cancellation near 0): (s + s / (s + 1)) / 2; e^|x| / 2 for large
    # |x|; the sign of x (and x itself at ±0 and NaN).
    aten = torch.ops.aten
    ax = aten.abs.default(x)
    s = aten.expm1.default(ax)
    v = aten.mul.Tensor(aten.add.Tensor(s, aten.div.Tensor(s, aten.add.Tensor(s, 1))), 0.5)
    v = aten.where.self(aten.gt.Scalar(ax, _large(x)), _half_exp_large(ax), v)
    v = aten.where.self(aten.lt.Scalar(x, 0), aten.neg.default(v), v)
    return aten.where.self(aten.eq.Scalar(x, 0), x, v)


def _cosh_f(x):
    # e^|x| / 2 + 1 / (2 e^|x|): no cancellation; e^|x| / 2 alone for large |x|.
    aten = torch.ops.aten
    ax = aten.abs.default(x)
    e = aten.exp.default(ax)
    v = aten.add.Tensor(aten.mul.Tensor(e, 0.5), aten.div.Tensor(aten.full_like.default(e, 0.5), e))
    return aten.where.self(aten.gt.Scalar(ax, _large(x)), _half_exp_large(ax), v)


def _tan_f(x):
    aten = torch.ops.aten
    return aten.div.Tensor(aten.sin.default(x), aten.cos.default(x))


def _inductor_decomposition(op):
    """Inductor's decomposition of `op`, imported when a graph first holds it (importing
    Inductor's table costs 60-100 ms of every process's first compile); `NotImplemented`
    where this torch's Inductor has none."""

    def run(*args, **kwargs):
        from torch._inductor.decomposition import decompositions as inductor

        f = inductor.get(op)
        return NotImplemented if f is None else f(*args, **kwargs)

    return run


def _max_pool_with_indices_backward(grad, x, kernel_size, stride, padding, dilation,
                                    ceil_mode, indices):
    """The gradient of `max_pool2d_with_indices` (for a torch whose table lacks it): each
    output's gradient added at the input position its index names (flat within its plane), a
    scatter-add per plane."""
    aten = torch.ops.aten
    rows = math.prod(x.shape[:-2])
    plane = x.shape[-2] * x.shape[-1]
    g = aten.reshape.default(grad, [rows, -1])
    idx = aten.reshape.default(indices, [rows, -1])
    out = aten.full.default([rows, plane], 0, dtype=grad.dtype, device=grad.device)
    return aten.reshape.default(aten.scatter_add.default(out, 1, idx, g), list(x.shape))


def extra_decompositions():
    """`EXTRA`'s decompositions and coil's own, by overload (without core ATen's)."""
    from torch._decomp import get_decompositions

    aten = torch.ops.aten
    ops = []
    for name in EXTRA:
        packet, overload = name.rsplit(".", 1)
        op = getattr(getattr(aten, packet, None), overload, None)
        if op is not None:
            ops.append(op)
    table = dict(get_decompositions(ops))
    for name in INDUCTOR:
        packet, overload = name.rsplit(".", 1)
        op = getattr(getattr(aten, packet, None), overload, None)
        if op is not None:
            table[op] = _inductor_decomposition(op)
    prims = torch.ops.prims
    pytorch_adaptive_max = table.get(aten.adaptive_max_pool2d.default)

    def adaptive_max_pool2d(x, output_size):
        out = _adaptive_max_pool2d(x, output_size)
        if out is NotImplemented and pytorch_adaptive_max is not None:
            return pytorch_adaptive_max(x, output_size)
        return out

    table[aten.adaptive_max_pool2d.default] = adaptive_max_pool2d
    table[aten.masked_scatter.default] = _masked_scatter
    table[aten.signbit.default] = _signbit
    table[aten.resize.default] = _resize
    quantized = getattr(torch.ops, "quantized", None)
    unpack = getattr(getattr(quantized, "embedding_bag_byte_unpack", None), "default", None)
    if unpack is not None:
        table[unpack] = _embedding_bag_byte_unpack
    table[aten.fractional_max_pool2d.default] = _fractional_max_pool2d
    table.setdefault(aten.max_pool2d_with_indices_backward.default,
                     _max_pool_with_indices_backward)
    table[aten.avg_pool2d_backward.default] = _avg_pool_backward(2)
    table[aten.avg_pool3d_backward.default] = _avg_pool_backward(3)
    table[aten.upsample_nearest2d_backward.default] = _upsample_nearest2d_backward
    table[aten.bucketize.Tensor] = _bucketize
    table[aten.searchsorted.Tensor] = _searchsorted
    table[prims.div.default] = _prims_div
    if hasattr(prims, "fma"):
        table[prims.fma.default] = _fma
    table[prims.iota.default] = _prims_iota
    table[prims.copy_strided.default] = _copy_strided
    table[aten.empty_strided.default] = _empty_strided
    table[aten.new_empty_strided.default] = _new_empty_strided
    table[aten.isnan.default] = _isnan
    table[aten._weight_norm_interface_backward.default] = weight_norm_interface_backward
    torchvision = getattr(torch.ops, "torchvision", None)
    roi = getattr(getattr(torchvision, "roi_align", None), "default", None)
    if roi is not None:
        table[roi] = roi_align
    table[aten.sign.default] = _sign
    table[aten.max.dim] = _max_dim
    table[aten.min.dim] = _min_dim
    table[aten.log2.default] = _log_base(2)
    table[aten.log10.default] = _log_base(10)
    table[aten.sinh.default] = _in_f32(_sinh_f)
    table[aten.cosh.default] = _in_f32(_cosh_f)
    table[aten.tan.default] = _in_f32(_tan_f)
    return table


def native_op_names():
    """The overloads coil compiles itself (`coil._native.op_names()`, from the op table in
    `crates/coil-graph/src/ops.rs`): the one place that decides native against decomposed.
    Empty where the native module is not built (the export tool run on its own)."""
    try:
        from . import _native
    except ImportError:
        return frozenset()
    return frozenset(_native.op_names())


def _torchvision_loaded():
    import sys

    return "torchvision" in sys.modules


def _table_key():
    """What the decomposition table depends on beyond this torch: torchvision's ops, and
    Inductor's prims (`prims.fma`), which register when first imported."""
    return (_torchvision_loaded(), hasattr(torch.ops.prims, "fma"))


def decompositions():
    """Core ATen's table plus `extra_decompositions()`, less every overload coil compiles
    natively (`native_op_names()`): an op in coil's op table reaches coil as itself. Built
    again once torchvision is imported (its ops register then)."""
    global _TABLE
    if _TABLE is None or _TABLE[0] != _table_key():
        from torch._decomp import core_aten_decompositions

        from ._foreach import foreach_decompositions

        table = dict(core_aten_decompositions())
        table.update(extra_decompositions())
        table.update(foreach_decompositions())
        native = native_op_names()
        kept = {op: f for op, f in table.items() if str(op) not in native}
        # Native overloads coil rewrites in some cases only (NotImplemented leaves the rest).
        kept.update(partial_decompositions())
        _TABLE = (_table_key(), kept)
    return _TABLE[1]


def coil_computes_conv_backward(dy, x, w, transposed):
    """Whether the CPU backend's library computes this `convolution_backward` whole (oneDNN
    loaded; f32, and bf16 where the host has kernels for it; batched, not transposed)."""
    from . import _native

    return (dy.device.type == "cpu" and not transposed
            and x.dim() == w.dim() and x.numel() > 0 and dy.numel() > 0
            and str(dy.dtype) in _native.cpu_conv_backward_dtypes())


def _convolution_backward_where_not_native(dy, x, w, bias_sizes, stride, padding, dilation,
                                           transposed, output_padding, groups, output_mask):
    """`convolution_backward` whole where coil's library computes it, or where ATen's will run
    between coil's kernels (`_extern`), else as forward convolutions (`_decomp_nn`)."""
    from . import _extern

    if coil_computes_conv_backward(dy, x, w, transposed) or _extern.conv_backward_by_aten(
            dy, x, w, transposed, _extern.CURRENT.get()):
        return NotImplemented
    return convolution_backward(dy, x, w, bias_sizes, stride, padding, dilation, transposed,
                                output_padding, groups, output_mask)


def partial_decompositions():
    """Decompositions of overloads coil compiles natively, for the cases its lowering would run
    on the host: a transposed `convolution` as a forward one (`_decomp_nn.conv_transpose`),
    `convolution_backward` where no library computes it."""
    return {
        torch.ops.aten.convolution.default: convolution_transposed_as_forward,
        torch.ops.aten.convolution_backward.default: _convolution_backward_where_not_native,
    }
