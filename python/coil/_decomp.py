"""The decomposition table coil's graphs are traced (and `tools/export_graph.py`'s exported)
with: core ATen's, plus PyTorch's own decompositions of the overloads in `EXTRA` and coil's of a
few more (`isnan`, `sign`, `max.dim`, `min.dim`), so a model using one compiles as the ops it is
made of instead of failing; `log2`, `log10`, `expm1`, `sinh`, `cosh` and `tan` are built from
`log`, `exp`, `sin` and `cos` in f32 (within a few f32 ulp: Kahan's expm1, sinh through it). Not the whole of `torch._decomp`: some of its entries bottom out in
prims, or (`lift_fresh`) break the tracing of constants. Pure Python (no native code), so the
export tool can use it on its own. Checked by tests/test_backend.py's decomposed-ops test.
"""

import math

import torch

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
    aten = torch.ops.aten
    return aten.amax.default(x, [dim], keepdim), aten.argmax.default(x, dim, keepdim)


def _min_dim(x, dim, keepdim=False):
    aten = torch.ops.aten
    return aten.amin.default(x, [dim], keepdim), aten.argmin.default(x, dim, keepdim)


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


def _log_base(scale):
    # log(x) · (1 / ln b): within 1.5 ulp of f32 (log's 0.85 and one more rounding).
    return _in_f32(lambda x: torch.ops.aten.mul.Tensor(torch.ops.aten.log.default(x), scale))


def _expm1_f(x):
    # Kahan's below |x| = 1/2: u = e^x, (u - 1) x / log(u), whose errors cancel (a few ulp),
    # and x where u rounds to 1; above, u - 1 itself (no cancellation left to fear; -1 once u
    # underflows, infinity once it overflows, NaN for NaN).
    aten = torch.ops.aten
    u = aten.exp.default(x)
    um1 = aten.sub.Tensor(u, 1)
    r = aten.div.Tensor(aten.mul.Tensor(um1, x), aten.log.default(u))
    r = aten.where.self(aten.eq.Scalar(u, 1), x, r)
    return aten.where.self(aten.gt.Scalar(aten.abs.default(x), 0.5), um1, r)


def _sinh_f(x):
    # From expm1 of |x| (no cancellation near 0): (s + s / (s + 1)) / 2, sign of x.
    aten = torch.ops.aten
    s = _expm1_f(aten.abs.default(x))
    v = aten.mul.Tensor(aten.add.Tensor(s, aten.div.Tensor(s, aten.add.Tensor(s, 1))), 0.5)
    # For large |x| s / (s + 1) is inf / inf: the value is s / 2 there.
    v = aten.where.self(aten.eq.Scalar(s, float("inf")), s, v)
    return aten.where.self(aten.lt.Scalar(x, 0), aten.neg.default(v), aten.where.self(aten.eq.Scalar(x, 0), x, v))


def _cosh_f(x):
    # (e^|x| + e^-|x|) / 2 = e^|x| / 2 + 1 / (2 e^|x|): no cancellation.
    aten = torch.ops.aten
    e = aten.exp.default(aten.abs.default(x))
    return aten.add.Tensor(aten.mul.Tensor(e, 0.5), aten.div.Tensor(aten.full_like.default(e, 0.5), e))


def _tan_f(x):
    aten = torch.ops.aten
    return aten.div.Tensor(aten.sin.default(x), aten.cos.default(x))


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
    table[aten.isnan.default] = _isnan
    table[aten.sign.default] = _sign
    table[aten.max.dim] = _max_dim
    table[aten.min.dim] = _min_dim
    table[aten.log2.default] = _log_base(1.0 / math.log(2.0))
    table[aten.log10.default] = _log_base(1.0 / math.log(10.0))
    table[aten.expm1.default] = _in_f32(_expm1_f)
    table[aten.sinh.default] = _in_f32(_sinh_f)
    table[aten.cosh.default] = _in_f32(_cosh_f)
    table[aten.tan.default] = _in_f32(_tan_f)
    return table


def decompositions():
    """Core ATen's table plus `extra_decompositions()`."""
    global _TABLE
    if _TABLE is None:
        from torch._decomp import core_aten_decompositions

        table = dict(core_aten_decompositions())
        table.update(extra_decompositions())
        _TABLE = table
    return _TABLE
