"""Numbers a graph reads out of tensors at run time, kept as 0-d tensors. Dynamo passes a
Python float it does not specialize on as a 0-d `float64` tensor and reads it back with
`item()` (`aten._local_scalar_dense`), so the traced graph computes with a symbolic number:
`_local_scalar_dense(y) * 2.0`, then `div.Tensor(x, that)`. coil's graphs hold tensors only,
so the read becomes the 0-d tensor itself and the Python arithmetic on it the ATen op of the
same meaning (a Python float is a `float64`, an int an `int64`, `/` of ints a float), which
the tensor ops downstream take as they take a number: a 0-d operand does not lift a
dimensioned one's dtype. A number used where a size is needed (a data-dependent shape) stays
`Unsupported`.
"""

import math
import operator

import torch

from ._complex import _Builder, _flat, _val
from ._fx import Unsupported

aten = torch.ops.aten

_READS = {aten._local_scalar_dense.default, aten.item.default}
_BINARY = {
    operator.mul: aten.mul.Tensor,
    operator.add: aten.add.Tensor,
    operator.sub: aten.sub.Tensor,
    operator.pow: aten.pow.Tensor_Tensor,
}


def tensorize_scalars(gm):
    """Rewrites `gm`'s run-time numbers into 0-d tensors in place; returns whether any was."""
    graph = gm.graph
    if not any(n.op == "call_function" and n.target in _READS for n in graph.nodes):
        return False
    held = set()  # nodes standing for a number, as 0-d tensors
    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        t = node.target
        b = _Builder(gm, node, None)
        if t in _READS:
            (src,) = node.args
            new = src if _val(src).dim() == 0 else b.op(aten.reshape.default, src, [])
            _replace(node, new, held)
            continue
        args = list(node.args) + list(node.kwargs.values())
        if not any(isinstance(a, torch.fx.Node) and a in held for a in _flat(args)):
            continue
        new = _number_op(b, node, held)
        if new is None:
            new = _tensor_op(b, node, held)
        _replace(node, new, held)
    graph.eliminate_dead_code()
    gm.recompile()
    return True


def _replace(node, new, held):
    node.replace_all_uses_with(new)
    node.graph.erase_node(node)
    if isinstance(_val(new), torch.Tensor) and _val(new).dim() == 0:
        held.add(new)


def _as_tensor(b, x, like):
    if isinstance(x, torch.fx.Node):
        return x
    dtype = torch.float64 if isinstance(x, float) else torch.int64
    if isinstance(x, bool):
        dtype = torch.bool
    return b.op(aten.full.default, [], x, dtype=dtype, device=_val(like).device)


def _number_op(b, node, held):
    """Python arithmetic on numbers as the 0-d tensor op, or None for a tensor op."""
    t = node.target
    a = node.args
    if t in _BINARY:
        x, y = a
        like = x if isinstance(x, torch.fx.Node) else y
        return b.op(_BINARY[t], _as_tensor(b, x, like), _as_tensor(b, y, like))
    if t is operator.truediv:
        x, y = a
        like = x if isinstance(x, torch.fx.Node) else y
        x, y = (_float(b, _as_tensor(b, v, like)) for v in (x, y))
        return b.op(aten.div.Tensor, x, y)
    if t is operator.floordiv:
        x, y = a
        like = x if isinstance(x, torch.fx.Node) else y
        return b.op(aten.div.Tensor_mode, _as_tensor(b, x, like), _as_tensor(b, y, like),
                    rounding_mode="floor")
    if t is operator.neg:
        return b.op(aten.neg.default, a[0])
    if t in (torch.sym_float, float):
        return _float(b, a[0])
    if t in (math.sqrt, torch._sym_sqrt):
        return b.op(aten.sqrt.default, _float(b, a[0]))
    if t in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne):
        ops = {operator.lt: aten.lt.Tensor, operator.le: aten.le.Tensor,
               operator.gt: aten.gt.Tensor, operator.ge: aten.ge.Tensor,
               operator.eq: aten.eq.Tensor, operator.ne: aten.ne.Tensor}
        x, y = a
        like = x if isinstance(x, torch.fx.Node) else y
        return b.op(ops[t], _as_tensor(b, x, like), _as_tensor(b, y, like))
    return None


def _float(b, x):
    return x if _val(x).dtype.is_floating_point else b.op(aten._to_copy.default, x,
                                                           dtype=torch.float64)


def _tensor_op(b, node, held):
    """A tensor op given a number: as it is where the overload takes a tensor there, else its
    overload that does (`mul.Scalar` to `mul.Tensor`)."""
    t = node.target
    if not isinstance(t, torch._ops.OpOverload):
        raise Unsupported(f"a run-time number through {t}")
    schema = t._schema
    bad = []
    for i, (arg, value) in enumerate(zip(schema.arguments, node.args)):
        if isinstance(value, torch.fx.Node) and value in held and not isinstance(
            arg.type, torch.TensorType
        ):
            bad.append(arg.name)
    for k, value in node.kwargs.items():
        if isinstance(value, torch.fx.Node) and value in held:
            bad.append(k)
    if not bad:
        return b.op(t, *node.args, **node.kwargs)
    if t is aten.full.default and bad == ["fill_value"]:
        # A tensor filled with the number: the 0-d tensor in the dtype, expanded.
        out = node.meta["val"]
        value = b.op(aten._to_copy.default, node.args[1], dtype=out.dtype)
        return b.op(aten.clone.default, b.op(aten.expand.default, value, list(out.shape)))
    packet = t.overloadpacket
    for name in ("Tensor", "Tensor_Tensor", "self"):
        other = getattr(packet, name, None)
        if other is not None and other is not t:
            try:
                return b.op(other, *node.args, **node.kwargs)
            except Exception:  # noqa: BLE001  (the overload's schema does not fit)
                pass
    raise Unsupported(f"a run-time number as {t}'s {', '.join(bad)} (a data-dependent size?)")
