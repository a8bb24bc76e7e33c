"""The wide unsigned integers (`uint16`, `uint32`, `uint64`) through their signed bits: a
graph's unsigned values become the signed tensors of the same width and bits (the runner views
inputs and outputs, no copy), and each op on them becomes signed ops that give the same bits:

- the ops two's complement does not tell apart (views, copies, `cat`, indexing, `gather`,
  `scatter`, `where`, `mul`, the bitwise ops, `eq`/`ne`, fills) act on the bits as they are,
  a number operand wrapped to the width;
- the ordered ones (`maximum`, `minimum`, `clamp`, `sort`) compare keys with the sign bit
  flipped, which orders signed as the values order unsigned;
- a conversion out zero-extends first (a `uint64` to a float in two halves, rounded once); a
  float converted in goes through `int64` (`uint64`: from its top half above 2^63);
- `sum`, `prod` and `cumsum` (whose results are `int64`) and true division (`float32`) take
  the converted values.

These are the ops PyTorch's own CPU kernels take for the three dtypes (it refuses `add`,
comparisons and most others on them, so a graph cannot hold those); anything else on an
unsigned value is `Unsupported`. coil itself never sees the three dtypes.
"""

import operator

import torch

from ._complex import _Builder, _flat, _val
from ._fx import Unsupported

aten = torch.ops.aten

SIGNED = {torch.uint16: torch.int16, torch.uint32: torch.int32, torch.uint64: torch.int64}
_UNSIGNED_OF = {v: k for k, v in SIGNED.items()}
_BITS = {torch.uint16: 16, torch.uint32: 32, torch.uint64: 64}

# Ops whose result's bits on signed bits are the unsigned result's (dtype arguments and
# numbers mapped).
_SAME_BITS = {
    aten.view.default, aten._unsafe_view.default, aten.reshape.default, aten.expand.default,
    aten.permute.default, aten.transpose.int, aten.t.default, aten.squeeze.dim,
    aten.squeeze.dims, aten.squeeze.default, aten.unsqueeze.default, aten.select.int,
    aten.slice.Tensor, aten.alias.default, aten.clone.default, aten.flip.default,
    aten.cat.default, aten.index.Tensor, aten.index_select.default, aten.gather.default,
    aten.scatter.src, aten.scatter.value, aten.where.self, aten.mul.Tensor, aten.mul.Scalar,
    aten.bitwise_and.Tensor, aten.bitwise_and.Scalar, aten.bitwise_or.Tensor,
    aten.bitwise_or.Scalar, aten.bitwise_xor.Tensor, aten.bitwise_xor.Scalar,
    aten.eq.Tensor, aten.eq.Scalar, aten.ne.Tensor, aten.ne.Scalar, aten.copy.default,
    aten.full.default, aten.full_like.default, aten.zeros.default, aten.zeros_like.default,
    aten.ones.default, aten.ones_like.default, aten.empty.memory_format,
    aten.empty_like.default, aten.new_zeros.default, aten.new_full.default,
    aten.new_ones.default, aten.new_empty.default, aten.fill.Scalar, aten.fill.Tensor,
    aten.lift_fresh_copy.default, aten.constant_pad_nd.default, aten.repeat.default,
    aten.roll.default, aten.as_strided.default, aten.split.Tensor, aten.split_with_sizes.default,
    aten.unbind.int, aten.index_put.default, aten.slice_scatter.default,
    aten.select_scatter.default, aten.diagonal.default, aten.unfold.default,
}
# The argument positions (and keywords) of `_SAME_BITS` ops that hold values (numbers
# there are wrapped to the width; elsewhere a number is a size or a dim).
_VALUES = {
    aten.full.default: (1,), aten.full_like.default: (1,), aten.new_full.default: (2,),
    aten.fill.Scalar: (1,), aten.scatter.value: (3,), aten.constant_pad_nd.default: (2,),
    aten.mul.Tensor: (0, 1), aten.mul.Scalar: (0, 1), aten.eq.Tensor: (0, 1),
    aten.eq.Scalar: (0, 1), aten.ne.Tensor: (0, 1), aten.ne.Scalar: (0, 1),
    aten.bitwise_and.Tensor: (0, 1), aten.bitwise_and.Scalar: (0, 1),
    aten.bitwise_or.Tensor: (0, 1), aten.bitwise_or.Scalar: (0, 1),
    aten.bitwise_xor.Tensor: (0, 1), aten.bitwise_xor.Scalar: (0, 1),
}
_VALUE_KWARGS = ("value", "fill_value")
_WIDEN = {aten.sum.default, aten.sum.dim_IntList, aten.prod.default, aten.prod.dim_int,
          aten.cumsum.default, aten.cumprod.default}


def _unsigned(v):
    return isinstance(v, torch.Tensor) and v.dtype in SIGNED


def _wrap(v, dtype):
    """A Python int as the signed number with the same bits in `dtype`'s width."""
    bits = _BITS[dtype]
    v = int(v) % (1 << bits)
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def lower_unsigned(gm):
    """Rewrites `gm`'s unsigned values into their signed bits in place; returns the indices
    of its unsigned placeholders and `(index, dtype)` of its unsigned outputs."""
    graph = gm.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    touched = {}  # node holding signed bits -> its unsigned dtype
    unsigned_in = []
    for i, ph in enumerate(placeholders):
        v = _val(ph)
        if _unsigned(v):
            unsigned_in.append(i)
            touched[ph] = v.dtype
            ph.meta["val"] = torch.empty_strided(
                v.shape, v.stride(), dtype=SIGNED[v.dtype], device="meta"
            )
    if not touched and not any(
        _unsigned(n.meta.get("val")) or any(_unsigned(x) for x in _flat([n.meta.get("val")]))
        for n in graph.nodes if n.op == "call_function"
    ):
        return unsigned_in, []
    unsigned_out = []
    erased = set()
    for node in list(graph.nodes):
        if node.op == "output":
            outs = node.args[0]
            flat = outs if isinstance(outs, (list, tuple)) else (outs,)
            for i, o in enumerate(flat):
                if isinstance(o, torch.fx.Node) and o in touched:
                    unsigned_out.append((i, touched[o]))
            continue
        if node.op != "call_function":
            continue
        args = list(node.args) + list(node.kwargs.values())
        ins = [a for a in _flat(args) if isinstance(a, torch.fx.Node) and a in touched]
        out = node.meta.get("val")
        if node in erased:
            continue
        if node.target is operator.getitem:
            src = node.args[0]
            if src in touched and isinstance(src.meta.get("val"), (list, tuple)):
                touched[node] = touched[src]
                v = node.meta["val"]
                node.meta["val"] = torch.empty_strided(
                    v.shape, v.stride(), dtype=SIGNED[v.dtype], device="meta"
                )
            continue
        if node.target in (aten.sort.default, aten.sort.stable) and node.args[0] in touched:
            _sort(gm, node, touched, erased)
            continue
        if not ins and not _unsigned(out) and not any(_unsigned(x) for x in _flat([out])):
            if not any(d in SIGNED for d in _flat(args) if isinstance(d, torch.dtype)):
                continue
        b = _Builder(gm, node, None)
        new, dtype = _rewrite(b, node, touched)
        node.replace_all_uses_with(new)
        graph.erase_node(node)
        if dtype is not None:
            touched[new] = dtype
    graph.eliminate_dead_code()
    gm.recompile()
    return unsigned_in, unsigned_out


def _map_args(t, args, kwargs, dtype):
    """`args` and `kwargs` with unsigned dtypes made signed and the numbers that are values
    wrapped to `dtype`'s width."""
    def one(x, value):
        if isinstance(x, torch.dtype):
            return SIGNED.get(x, x)
        if value and isinstance(x, int) and not isinstance(x, bool):
            return _wrap(x, dtype)
        if isinstance(x, (list, tuple)):
            return type(x)(one(y, False) for y in x)
        return x

    values = _VALUES.get(t, ())
    args = [one(x, i in values) for i, x in enumerate(args)]
    kwargs = {k: one(v, k in _VALUE_KWARGS) for k, v in kwargs.items()}
    return args, kwargs


def _rewrite(b, node, touched):
    """The node standing for `node` and the unsigned dtype its value has (None: it is not
    unsigned)."""
    t = node.target
    out = node.meta.get("val")
    ins = [a for a in _flat(list(node.args) + list(node.kwargs.values()))
           if isinstance(a, torch.fx.Node) and a in touched]
    dtypes = {touched[a] for a in ins}
    if isinstance(out, torch.Tensor) and out.dtype in SIGNED:
        dtypes.add(out.dtype)
    for x in _flat(list(node.args) + list(node.kwargs.values())):
        if isinstance(x, torch.dtype) and x in SIGNED:
            dtypes.add(x)
    if len(dtypes) > 1:
        raise Unsupported(f"{t} mixes {sorted(map(str, dtypes))}")
    (dtype,) = dtypes
    signed = SIGNED[dtype]
    result = dtype if _unsigned(out) or (
        isinstance(out, (list, tuple)) and any(_unsigned(x) for x in out)) else None

    def key(x):
        return _key(b, x, dtype)

    def widen(x):
        """An unsigned operand's value in int64 (a `uint64`'s bits unchanged)."""
        if not (isinstance(x, torch.fx.Node) and x in touched):
            return x
        if dtype == torch.uint64:
            return x
        wide = b.op(aten._to_copy.default, x, dtype=torch.int64)
        return b.op(aten.bitwise_and.Scalar, wide, (1 << _BITS[dtype]) - 1)

    if t is aten._to_copy.default:
        target = node.kwargs.get("dtype", None)
        src = node.args[0]
        kw = {k: v for k, v in node.kwargs.items() if k != "dtype"}
        if src in touched:
            if target is None or target == dtype:
                return b.op(t, src, **kw, dtype=signed), dtype
            if target in SIGNED:
                raise Unsupported(f"{dtype} to {target}")
            return _from_unsigned(b, src, dtype, target, kw), None
        return _to_unsigned(b, src, dtype, kw), dtype
    if t in _SAME_BITS:
        args, kwargs = _map_args(t, node.args, node.kwargs, dtype)
        return b.op(t, *args, **kwargs), result
    if t in (aten.maximum.default, aten.minimum.default):
        x, y = node.args
        pick = aten.gt.Tensor if t is aten.maximum.default else aten.lt.Tensor
        return b.op(aten.where.self, b.op(pick, key(x), key(y)), x, y), dtype
    if t in (aten.clamp.default, aten.clamp_min.default, aten.clamp_max.default):
        x = node.args[0]
        if t is aten.clamp.default:
            lo = node.args[1] if len(node.args) > 1 else node.kwargs.get("min")
            hi = node.args[2] if len(node.args) > 2 else node.kwargs.get("max")
        else:
            lo, hi = (node.args[1], None) if t is aten.clamp_min.default else (None, node.args[1])
        if any(v is not None and not isinstance(v, int) for v in (lo, hi)):
            raise Unsupported(f"{t} of {dtype} with bounds {lo!r}, {hi!r}")
        for bound, pick in ((lo, aten.lt.Scalar), (hi, aten.gt.Scalar)):
            if bound is None:
                continue
            bits = _wrap(bound, dtype)
            k = _wrap(bits ^ -(1 << (_BITS[dtype] - 1)), dtype)
            fill = b.op(aten.full_like.default, x, bits)
            x = b.op(aten.where.self, b.op(pick, key(x), k), fill, x)
        return x, dtype
    if t in _WIDEN:
        args = [widen(a) for a in node.args]
        return b.op(t, *args, **node.kwargs), None
    if t in (aten.div.Tensor, aten.true_divide.Tensor):
        x, y = (_from_unsigned(b, a, dtype, torch.float32, {})
                if isinstance(a, torch.fx.Node) and a in touched else a for a in node.args)
        return b.op(aten.div.Tensor, x, y), None
    raise Unsupported(f"{dtype} values through {t}")


def _key(b, x, dtype):
    # Signed order of the bits with the sign bit flipped = unsigned order of the values.
    return b.op(aten.bitwise_xor.Scalar, x, -(1 << (_BITS[dtype] - 1)))


def _sort(gm, node, touched, erased):
    """`sort` of unsigned values: of their keys, the sorted keys flipped back."""
    b = _Builder(gm, node, None)
    dtype = touched[node.args[0]]
    new = b.op(node.target, _key(b, node.args[0], dtype), *node.args[1:], **node.kwargs)
    values = _key(b, b.op(operator.getitem, new, 0), dtype)
    indices = b.op(operator.getitem, new, 1)
    touched[values] = dtype
    for user in list(node.users):
        if user.target is not operator.getitem:
            raise Unsupported(f"a sort's result used by {user.target}")
        user.replace_all_uses_with(values if user.args[1] == 0 else indices)
        gm.graph.erase_node(user)
        erased.add(user)
    gm.graph.erase_node(node)


def _from_unsigned(b, x, dtype, target, kw):
    """`x`'s unsigned values converted to `target` (a float, a signed integer or bool)."""
    if target == torch.bool:
        return b.op(aten.ne.Scalar, x, 0)
    if dtype != torch.uint64:
        wide = b.op(aten._to_copy.default, x, dtype=torch.int64)
        wide = b.op(aten.bitwise_and.Scalar, wide, (1 << _BITS[dtype]) - 1)
        return b.op(aten._to_copy.default, wide, **kw, dtype=target)
    if not target.is_floating_point:
        return b.op(aten._to_copy.default, x, **kw, dtype=target)  # the same low bits
    # Below 2^63 the signed conversion is the value's; above, half the value with the dropped
    # bit kept as a sticky bit converts to half the result, rounded once. (A 16-bit float goes
    # through f32, as PyTorch's conversion does.)
    via = torch.float32 if target in (torch.float16, torch.bfloat16) else target
    half = b.op(aten.bitwise_or.Tensor,
                b.op(aten.bitwise_and.Scalar,
                     b.op(aten.bitwise_right_shift.Tensor_Scalar, x, 1), (1 << 63) - 1),
                b.op(aten.bitwise_and.Scalar, x, 1))
    big = b.op(aten.mul.Tensor, b.op(aten._to_copy.default, half, dtype=via), 2.0)
    small = b.op(aten._to_copy.default, x, dtype=via)
    f = b.op(aten.where.self, b.op(aten.lt.Scalar, x, 0), big, small)
    return b.op(aten._to_copy.default, f, **kw, dtype=target) if via != target else f


def _to_unsigned(b, x, dtype, kw):
    """Values of another dtype converted to unsigned `dtype`'s bits (PyTorch's wrapping)."""
    signed = SIGNED[dtype]
    v = _val(x)
    if v is not None and v.dtype.is_floating_point:
        if dtype == torch.uint64:
            # Above 2^63 a float's int64 conversion overflows: convert it less 2^63, then
            # set the top bit.
            two63 = float(1 << 63)
            high = b.op(aten.ge.Scalar, x, two63)
            below = b.op(aten._to_copy.default, b.op(aten.sub.Tensor, x, two63), dtype=torch.int64)
            below = b.op(aten.bitwise_or.Scalar, below, -(1 << 63))
            plain = b.op(aten._to_copy.default, x, dtype=torch.int64)
            return b.op(aten.where.self, high, below, plain)
        x = b.op(aten._to_copy.default, x, dtype=torch.int64)
    return b.op(aten._to_copy.default, x, **kw, dtype=signed)
