"""What eager's memory layout means to an ATen graph: which values share storage, and the two
places where that changes what a graph computes.

coil's model of a graph is that every result that is not a view is its own contiguous storage
(the text form has no strides). Eager's results and inputs may be laid out otherwise
(channels-last, a transpose kept as is), and two ops observe it:

- ``as_strided`` reads its input's storage, not its values: ``storage_rewrite`` gives each
  ``as_strided`` whose storage eager lays out otherwise that storage as a contiguous value of its
  own (a permute and a contiguous clone), so the graph means the same under coil's model;
- a returned view shares memory with an input or another output, and a caller may see it
  through a later in-place write. A view of an input goes through AOTAutograd, whose runtime
  regenerates it from the input (``output_alias`` says which); views of one result are made
  views of the one tensor coil returns for it (``alias_plan``), as Inductor's outputs are
  views of its buffers.
"""

import operator

import torch

from ._fx import Unsupported, dense_order, row_major


def is_view(node):
    """Whether an FX node's result aliases its first tensor argument (a view op by its
    schema, or a `getitem` of one)."""
    if node.op != "call_function":
        return False
    if node.target is operator.getitem:
        src = node.args[0]
        return isinstance(src, torch.fx.Node) and is_view(src)
    target = node.target
    if not isinstance(target, torch._ops.OpOverload):
        return False
    schema = target._schema
    if schema.is_mutable or not schema.returns:
        return False
    alias = schema.returns[0].alias_info
    return alias is not None and not alias.is_write


def storage_root(node):
    """The node whose result's storage `node` views (`node` itself when it is no view)."""
    while is_view(node):
        src = node.args[0]
        if not isinstance(src, torch.fx.Node):
            break
        node = src
    return node


def _val(node, example):
    if node.op == "placeholder" and node in example:
        return example[node]
    val = node.meta.get("val")
    return val if isinstance(val, torch.Tensor) else None


def _plain(t):
    """Whether `t` is laid out as coil's model has every result: row-major from offset 0."""
    return t.storage_offset() == 0 and row_major(list(t.shape), list(t.stride()))


def storage_rewrite(gm, example_inputs):
    """Rewrites `gm` in place so that each `aten.as_strided` reads a storage laid out as coil's
    model has it: where eager's storage behind its input is not contiguous (a channels-last
    input or result), the `as_strided` reads a contiguous copy of that storage (its base's dims
    in eager's memory order) at an explicit offset. Raises `Unsupported` where eager's storage
    is no dense layout of the base's elements (a strided input with holes)."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    example = {
        n: t for n, t in zip(placeholders, example_inputs) if isinstance(t, torch.Tensor)
    }
    changed = False
    copies = {}
    for node in list(gm.graph.nodes):
        if node.op == "call_function" and node.target is torch.ops.aten.as_strided_scatter.default:
            # It writes the storage of a copy of `self` laid out as `self` is: coil's copy is
            # row-major, so only a row-major `self` means the same.
            val = _val(node.args[0], example) if isinstance(node.args[0], torch.fx.Node) else None
            if val is None or not _plain(val):
                raise Unsupported(
                    f"as_strided_scatter '{node.name}' of a tensor not laid out row-major"
                )
            continue
        if node.op != "call_function" or node.target is not torch.ops.aten.as_strided.default:
            continue
        src = node.args[0]
        base = storage_root(src)
        base_val, src_val = _val(base, example), _val(src, example)
        if base_val is None or src_val is None:
            raise Unsupported(f"as_strided '{node.name}': no layout known for '{base.name}'")
        if _plain(base_val):
            continue  # eager's storage is what coil's model says
        sizes, strides = list(base_val.shape), list(base_val.stride())
        base_offset = base_val.storage_offset()
        order = dense_order(sizes, strides)
        if order is None:
            raise Unsupported(
                f"as_strided '{node.name}' reads the storage of '{base.name}', strides "
                f"{tuple(strides)} for sizes {tuple(sizes)}: not a dense layout"
            )
        args = list(node.args) + [None] * (4 - len(node.args))
        offset = node.kwargs.get("storage_offset", args[3])
        if offset is None:
            offset = src_val.storage_offset()
        offset -= base_offset
        if offset < 0:
            raise Unsupported(
                f"as_strided '{node.name}' reads storage before the first element of "
                f"'{base.name}'"
            )
        flat = copies.get(base)
        if flat is None:
            with gm.graph.inserting_after(base):
                perm = gm.graph.call_function(torch.ops.aten.permute.default, (base, order))
            with gm.graph.inserting_after(perm):
                flat = gm.graph.call_function(
                    torch.ops.aten.clone.default,
                    (perm,),
                    {"memory_format": torch.contiguous_format},
                )
            try:
                perm.meta["val"] = base_val.permute(order)
                flat.meta["val"] = perm.meta["val"].contiguous()
            except Exception:  # a value's meta is only for the readable text's annotations
                pass
            copies[base] = flat
        kwargs = {k: v for k, v in node.kwargs.items() if k != "storage_offset"}
        node.args = (flat, args[1], args[2], offset)
        node.kwargs = kwargs
        changed = True
    if changed:
        gm.graph.lint()
        gm.recompile()
    return gm


def output_alias(gm):
    """Why some output of `gm` is a view of one of its inputs (AOTAutograd's runtime then
    regenerates it from that input), or `None`."""
    for i, r in enumerate(_results(gm)):
        if isinstance(r, torch.fx.Node):
            root = storage_root(r)
            if root.op == "placeholder":
                return f"output {i} ('{r.name}') is a view of input '{root.name}'"
    return None


def _results(gm):
    output = next(n for n in gm.graph.nodes if n.op == "output")
    results = output.args[0]
    return list(results) if isinstance(results, (list, tuple)) else [results]


class AliasPlan:
    """How a compiled graph's outputs become the user's: outputs that share storage in eager
    (views of one result, or one result returned twice) are views of one tensor here too, so
    that a write through one shows through the others. `entries[j]` is `(k, view)`: output
    `j` is the compiled graph's output `k`, or, with `view = (sizes, strides, offset)`, that
    view of it."""

    def __init__(self, entries):
        self.entries = entries
        self.trivial = all(view is None for _, view in entries) and [
            k for k, _ in entries
        ] == list(range(len(entries)))

    def apply(self, outs):
        if self.trivial:
            return outs
        return [
            outs[k] if view is None else outs[k].as_strided(*view) for k, view in self.entries
        ]


def alias_plan(gm, eager_strides=True):
    """Rewrites `gm`'s outputs (in place) so that each group of outputs sharing a storage
    returns that storage once (the base itself when it is an output, else as an extra
    output), and gives the `AliasPlan` that makes the user's outputs from the compiled ones.
    A storage eager lays out with holes cannot be shared so: its views stay copies (their
    values are right; only a later write to one is not seen by the others). `eager_strides`:
    whether coil returns a dense permuted result in eager's layout (`describe`'s option);
    without it only a contiguous base is shared."""
    results = _results(gm)
    roots = [storage_root(r) if isinstance(r, torch.fx.Node) else None for r in results]
    shared = {}
    for r, root in zip(results, roots):
        if root is not None and root.op != "placeholder":
            shared.setdefault(root, set()).add(r)
    outputs, index, entries = [], {}, []

    def output(node):
        if node not in index:
            index[node] = len(outputs)
            outputs.append(node)
        return index[node]

    for r, root in zip(results, roots):
        if not isinstance(r, torch.fx.Node):
            entries.append((output(r), None))
            continue
        group = shared.get(root, ())
        view = None
        if r is not root and (len(group) > 1 or root in group):
            view = _view_of(r, root, eager_strides)
        if view is None:
            entries.append((output(r), None))
        else:
            entries.append((output(root), view))
    node = next(n for n in gm.graph.nodes if n.op == "output")
    if outputs != results:
        node.args = (tuple(outputs),)
        gm.graph.lint()
        gm.recompile()
    return AliasPlan(entries)


def _view_of(node, root, eager_strides):
    """`(sizes, strides, offset)` of `node` as a view of the tensor coil returns for `root`
    (eager's layout of it, when that is dense), or `None`."""
    val, base = node.meta.get("val"), root.meta.get("val")
    if not isinstance(val, torch.Tensor) or not isinstance(base, torch.Tensor):
        return None
    if val.dtype != base.dtype:
        # `view(dtype)` on the way: an as_strided of the base would keep its dtype. The result
        # stays its own tensor (right values; a later write through one is not seen by the
        # other).
        return None
    sizes, strides = list(base.shape), list(base.stride())
    dense = eager_strides and dense_order(sizes, strides) is not None
    if base.storage_offset() != 0 or not (row_major(sizes, strides) or dense):
        return None
    return tuple(val.shape), tuple(val.stride()), val.storage_offset()
