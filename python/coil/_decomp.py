"""The decomposition table coil's graphs are traced (and `tools/export_graph.py`'s exported)
with: core ATen's, plus PyTorch's own decompositions of the overloads in `EXTRA` and coil's of a
few more (`isnan`, `sign`, `max.dim`, `min.dim`, whole-tensor `max` and `min`), so a model using one compiles as the ops it is
made of instead of failing; `log2`, `log10`, `sinh`, `cosh` and `tan` are built from
`log`, `exp`, `expm1`, `sin` and `cos` in f32 (within a few f32 ulp; sinh through expm1). Not the whole of `torch._decomp`: some of its entries bottom out in
prims, or (`lift_fresh`) break the tracing of constants. Whether an overload is decomposed at
all is coil's op table's decision: every overload coil compiles (`coil._native.op_names()`) is
left out of the table. Pure Python apart from that lookup, so the export tool can use it on its
own. Checked by tests/test_backend.py's decomposed-ops test.
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


def decompositions():
    """Core ATen's table plus `extra_decompositions()`, less every overload coil compiles
    natively (`native_op_names()`): an op in coil's op table reaches coil as itself."""
    global _TABLE
    if _TABLE is None:
        from torch._decomp import core_aten_decompositions

        table = dict(core_aten_decompositions())
        table.update(extra_decompositions())
        native = native_op_names()
        _TABLE = {op: f for op, f in table.items() if str(op) not in native}
    return _TABLE
