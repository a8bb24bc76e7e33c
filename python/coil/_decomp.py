"""The decomposition table coil's graphs are traced (and `tools/export_graph.py`'s exported)
with: core ATen's, plus PyTorch's own decompositions of the overloads in `EXTRA` and coil's of a
few more (`isnan`, `sign`, `max.dim`, `min.dim`), so a model using one compiles as the ops it is
made of instead of failing. Not the whole of `torch._decomp`: some of its entries bottom out in
prims, or (`lift_fresh`) break the tracing of constants. Pure Python (no native code), so the
export tool can use it on its own. Checked by tests/test_backend.py's decomposed-ops test.
"""

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
