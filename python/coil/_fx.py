"""An ATen FX graph as the plain data coil's native module builds a graph from (no text in
between; `print_readable`'s text gives the same graph), and the output layouts eager gives."""

import operator

import torch

DTYPES = {
    torch.float32: "f32",
    torch.float64: "f64",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.int32: "i32",
    torch.int16: "i16",
    torch.int8: "i8",
    torch.uint8: "u8",
    torch.int64: "i64",
    torch.bool: "b8",
}
TORCH_DTYPES = {v: k for k, v in DTYPES.items()}

_MEMORY_FORMATS = {
    torch.contiguous_format: "contiguous_format",
    torch.preserve_format: "preserve_format",
    torch.channels_last: "channels_last",
}


class Unsupported(Exception):
    """Why a graph is not for coil (it then runs eagerly)."""


def _op_name(target):
    if target is operator.getitem:
        return "getitem"
    if isinstance(target, torch._ops.OpOverload):
        return f"{target.namespace}.{target._opname}.{target._overloadname}"
    name = getattr(target, "__name__", repr(target))
    raise Unsupported(f"unsupported op: {name} (not an ATen operator overload)")


def _arg(value, node):
    if isinstance(value, torch.fx.Node):
        return ("node", value.name)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_arg(v, node) for v in value]
    if isinstance(value, torch.dtype):
        if value not in DTYPES:
            raise Unsupported(f"node '{node.name}' ({node.target}) takes {value}")
        return ("dtype", DTYPES[value])
    if value is torch.strided:
        return ("layout", "strided")
    if isinstance(value, torch.memory_format):
        if value not in _MEMORY_FORMATS:
            raise Unsupported(f"node '{node.name}' ({node.target}) takes {value}")
        return ("memory_format", _MEMORY_FORMATS[value])
    if isinstance(value, torch.device):
        return ("device", value.type, value.index)
    if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        raise Unsupported(
            f"node '{node.name}' ({node.target}) takes a symbolic value "
            "(symbolic shapes are not supported yet: use dynamic=False)"
        )
    raise Unsupported(
        f"node '{node.name}' ({node.target}) takes a {type(value).__name__} argument"
    )


def dtype_named(name):
    """The torch dtype `str(dtype)` printed (`"torch.float32"`), or its bare name."""
    return getattr(torch, name.removeprefix("torch."))


def _meta_tensor(node):
    val = node.meta.get("val")
    return val if isinstance(val, torch.Tensor) else None


def _static_sizes(t, what):
    sizes = []
    for s in t.shape:
        if not isinstance(s, int):
            raise Unsupported(f"{what} has symbolic sizes (use dynamic=False)")
        sizes.append(s)
    return sizes


def contiguous_strides(sizes):
    """Row-major strides, as torch gives them (a size-0 dim counts as 1)."""
    strides, acc = [], 1
    for s in reversed(sizes):
        strides.append(acc)
        acc *= max(s, 1)
    return list(reversed(strides))


def row_major(sizes, strides):
    """Whether `strides` are the row-major strides of `sizes` (size-1 dims ignored)."""
    return all(s == c for s, c, n in zip(strides, contiguous_strides(sizes), sizes) if n != 1)


def dense_order(sizes, strides):
    """The dims of a dense non-overlapping layout from outermost to innermost, or `None`
    when the layout has holes or overlaps (a broadcast output)."""
    order = sorted(range(len(sizes)), key=lambda d: (-strides[d], -sizes[d]))
    expect = 1
    for d in reversed(order):
        if sizes[d] != 1 and strides[d] != expect:
            return None
        expect *= sizes[d]
    return order


class OutputLayout:
    """How one output is handed back: coil writes `buffer_sizes` contiguously (eager's dims in
    `order` when given), viewed with eager's `sizes` and `strides`."""

    def __init__(self, dtype, sizes, strides, order):
        self.dtype = dtype
        self.sizes = tuple(sizes)
        self.strides = tuple(strides)
        self.order = list(order) if order else None
        self.buffer_sizes = tuple(sizes[d] for d in order) if order else self.sizes
        self.permuted = order is not None and order != list(range(len(sizes)))


def input_orders(example_inputs):
    """For each input, the dims of its dense layout from outermost to innermost where that is
    not row-major (a transpose, a saved activation with eager's strides), else `None`: such an
    input is read as the permutation of its contiguous memory (`describe`), not copied."""
    orders = []
    for t in example_inputs:
        order = None
        if isinstance(t, torch.Tensor) and t.numel() > 1 and not t.is_contiguous():
            order = dense_order(list(t.shape), list(t.stride()))
        orders.append(order)
    return orders


def describe(gm, example_inputs, eager_strides=True, dense_inputs=False):
    """`(graph description, output layouts)` of an ATen `GraphModule` whose placeholders are
    `example_inputs`. With `eager_strides`, an output that eager lays out as a permutation of
    its dims (a transpose, channels-last) is computed by coil in that order (a `permute` and a
    contiguous `clone` appended, which fuse into the producing kernel), so the returned tensor
    has eager's strides with no extra pass. With `dense_inputs`, an input whose layout is a
    permutation of its dims (`input_orders`) is taken as its memory in that order, then
    permuted back (a view: no copy, the reads fuse into the kernels that use it)."""
    inputs, nodes, outputs, layouts = [], [], [], []
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(example_inputs):
        raise Unsupported(
            f"{len(placeholders)} placeholders for {len(example_inputs)} inputs"
        )
    orders = input_orders(example_inputs) if dense_inputs else [None] * len(example_inputs)
    for node, t, order in zip(placeholders, example_inputs, orders):
        if not isinstance(t, torch.Tensor):
            raise Unsupported(
                f"input '{node.name}' is a {type(t).__name__} "
                "(symbolic shapes are not supported yet: use dynamic=False)"
            )
        if t.dtype not in DTYPES:
            raise Unsupported(f"input '{node.name}' is {t.dtype}")
        sizes = _static_sizes(t, f"input '{node.name}'")
        if order is None:
            inputs.append((node.name, DTYPES[t.dtype], sizes))
            continue
        dense = f"{node.name}_coil_dense"
        inputs.append((dense, DTYPES[t.dtype], [sizes[d] for d in order]))
        back = sorted(range(len(order)), key=lambda d: order[d])
        nodes.append((node.name, "aten.permute.default", [("node", dense), back], []))
    for node in gm.graph.nodes:
        if node.op in ("placeholder",):
            continue
        if node.op == "output":
            (result,) = node.args
            results = result if isinstance(result, (list, tuple)) else [result]
            for i, r in enumerate(results):
                if not isinstance(r, torch.fx.Node):
                    raise Unsupported(f"output {i} is a {type(r).__name__}, not a tensor")
                outputs.append(r.name)
            continue
        if node.op == "get_attr":
            raise Unsupported(f"attribute '{node.target}' (lift constants to inputs first)")
        if node.op != "call_function":
            raise Unsupported(f"node '{node.name}' is a {node.op}")
        args = [_arg(a, node) for a in node.args]
        kwargs = [(k, _arg(v, node)) for k, v in node.kwargs.items()]
        nodes.append((node.name, _op_name(node.target), args, kwargs))
    by_name = {n.name: n for n in gm.graph.nodes}
    for i, name in enumerate(outputs):
        val = _meta_tensor(by_name[name]) if name in by_name else None
        if val is None:
            layouts.append(None)  # no meta: coil's contiguous output
            continue
        sizes = _static_sizes(val, f"output {i}")
        strides = list(val.stride())
        plain = row_major(sizes, strides)
        order = dense_order(sizes, strides) if eager_strides and not plain else None
        layout = OutputLayout(val.dtype, sizes, strides, order)
        if layout.permuted:
            perm, out = f"coil_output_{i}_permuted", f"coil_output_{i}"
            nodes.append((perm, "aten.permute.default", [("node", name), order], []))
            nodes.append(
                (
                    out,
                    "aten.clone.default",
                    [("node", perm)],
                    [("memory_format", ("memory_format", "contiguous_format"))],
                )
            )
            outputs[i] = out
        layouts.append(layout)
    return (inputs, nodes, outputs), layouts
