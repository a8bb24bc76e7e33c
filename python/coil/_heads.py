"""Grouped-query attention's shared keys and values, read once per group instead of copied per
head.

A model whose query heads share key and value heads (Llama, Mistral, Qwen: `num_key_value_heads`
below `num_attention_heads`) repeats each key and value head before attention (transformers'
`repeat_kv`: `unsqueeze`, `expand`, then a `reshape` that traces to `clone` and `_unsafe_view`).
Traced to ATen, that copy feeds a batched matmul: a decode step copies its whole KV cache R
times (R query heads a key head) before reading it again, and each of the matmul's batches
is a matrix-vector product.

The rewrite: `bmm(A[B*H, M, K], repeat_R(X)[B*H, K, N])`, where the second operand's batch
`b*H + g*R + r` reads `X`'s `b*G + g` whatever `r`, is `bmm(A'[B*G, R*M, K], X'[B*G, K, N])`
viewed back as `[B*H, M, N]`: the R heads of a group become rows of one matmul (the same numbers
in the same order, so the same result), and `X'` is `X` with the operand's per-element ops
(a scale, a dtype conversion, a transpose of the last two dims) applied to it once. What the
rewrite leaves unread (the copy) is dropped.
"""

import torch

from ._complex import _Builder, _val

aten = torch.ops.aten

_VIEWS = (aten.view.default, aten._unsafe_view.default, aten.reshape.default)


def _per_element(node):
    """Whether `node` is an op on its first argument alone that commutes with repeating heads:
    a scalar multiply or divide, a dtype conversion, a transpose of the last two dims."""
    if node.op != "call_function" or not node.args:
        return False
    t = node.target
    if t in (aten.mul.Tensor, aten.div.Tensor, aten.mul.Scalar, aten.div.Scalar):
        other = node.args[1]
        return not isinstance(other, torch.fx.Node) or (
            _val(other) is not None and _val(other).dim() == 0)
    if t is aten._to_copy.default:
        return set(node.kwargs) <= {"dtype"}
    if t is aten.transpose.int:
        rank = _val(node).dim()
        dims = sorted(d % rank for d in node.args[1:3])
        return dims == [rank - 2, rank - 1]
    return False


def _repeated(node):
    """`(x, steps, repeats)` when `node`, a `[B*H, K, N]` operand, is `x` (`[B, G, ...]`)
    with its heads repeated `repeats` times (`H = G * repeats`) and `steps` (per-element ops,
    outermost first) applied; else None."""
    shape = tuple(_val(node).shape)
    if node.target not in _VIEWS or len(shape) != 3:
        return None
    t = node.args[0]
    four = _val(t)
    if four is None or four.dim() != 4 or four.shape[0] * four.shape[1] != shape[0]:
        return None
    if t.target is aten.expand.default and tuple(_val(t.args[0]).shape) == tuple(four.shape):
        t = t.args[0]
    steps = []
    while _per_element(t):
        steps.append(t)
        t = t.args[0]
    # The heads merged: `[B, G, R, L, D]` viewed as `[B, G*R, L, D]`.
    if t.target not in _VIEWS or _val(t).dim() != 4:
        return None
    merged = t.args[0]
    if merged.target is aten.clone.default:
        merged = merged.args[0]
    five = _val(merged)
    if merged.target is not aten.expand.default or five is None or five.dim() != 5:
        return None
    b, g, r = five.shape[:3]
    if tuple(_val(t).shape) != (b, g * r, *five.shape[3:]) or r <= 1:
        return None
    unsq = merged.args[0]
    if unsq.target is not aten.unsqueeze.default or unsq.args[1] % 5 != 2:
        return None
    x = unsq.args[0]
    if tuple(_val(x).shape) != (b, g, *five.shape[3:]):
        return None
    return x, steps, r


def _as_shape(bld, x, shape):
    """`x` as `shape`: a view of a contiguous `x`, else of a contiguous copy (`reshape`'s own
    ATen form; coil's storage plan may lay out a value other than its meta says, so a view of
    anything else is not relied on)."""
    if _val(x).is_contiguous():
        return bld.op(aten.view.default, x, list(shape))
    copy = bld.op(aten.clone.default, x, memory_format=torch.contiguous_format)
    return bld.op(aten._unsafe_view.default, copy, list(shape))


def _group(gm, bmm):
    a, b = bmm.args[:2]
    if not isinstance(a, torch.fx.Node) or not isinstance(b, torch.fx.Node):
        return False
    found = _repeated(b)
    if found is None or _val(a) is None or _val(a).dim() != 3:
        return False
    x, steps, r = found
    bh, m, k = _val(a).shape
    n = _val(b).shape[2]
    bg = bh // r
    bld = _Builder(gm, bmm, None)
    try:
        y = x
        for step in reversed(steps):
            y = bld.op(step.target, y, *step.args[1:], **step.kwargs)
        y = _as_shape(bld, y, (bg, k, n))
        rows = _as_shape(bld, a, (bg, r * m, k))
        grouped = bld.op(aten.bmm.default, rows, y)
        out = _as_shape(bld, grouped, (bh, m, n))
    except RuntimeError:
        return False
    if _val(out).dtype != _val(bmm).dtype or tuple(_val(out).shape) != tuple(_val(bmm).shape):
        return False
    bmm.replace_all_uses_with(out)
    return True


def group_repeated_heads(gm):
    """Rewrites, in place, each batched matmul of `gm` (an ATen graph with `val` metas) whose
    second operand repeats key or value heads into one that reads each shared head once (the
    module's docstring). Returns how many it rewrote."""
    count = 0
    for node in list(gm.graph.nodes):
        if node.op == "call_function" and node.target is aten.bmm.default and _group(gm, node):
            _erase_unread(gm.graph, node)
            count += 1
    if count:
        gm.recompile()
    return count


def _erase_unread(graph, node):
    """Erases `node` (read by nothing now) and what only it read, up to what something else
    reads; never a placeholder or an op that writes."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.users or n.op != "call_function" or (
                isinstance(n.target, torch._ops.OpOverload) and n.target._schema.is_mutable):
            continue
        inputs = n.all_input_nodes
        graph.erase_node(n)
        stack.extend(inputs)
