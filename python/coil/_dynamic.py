"""Graphs Dynamo traces with symbolic sizes (`dynamic=True`, `mark_dynamic`, the automatic
dynamic after a second shape), run as static coil graphs: one per binding of the symbols,
compiled at the binding's first call and kept.

Dynamo's graph takes its symbols as arguments (`s0: SymInt`), tensors whose shapes hold them,
and the numbers it does not specialize on as 0-d `float64` tensors read back with `item()`.
At a call, every one of those has a value. The binding is the key: the shapes and strides of
the tensors whose sizes hold symbols (Dynamo's guards hold everything about the others), each
integer argument, and the values the graph reads out of its inputs to size something (`y.item()`, `sz.tolist()`: PyTorch's unbacked
symbols, `capture_scalar_outputs`). The graph bound to those values (the symbols replaced by
their numbers, a size read replaced by the number read) is a static graph, which the backend's
static path compiles as any other: traced to ATen for inference, or through AOTAutograd with
both halves compiled for training.

A float that Dynamo passes as a tensor stays a run-time input (a new learning rate or `eps`
compiles nothing) unless tracing needs its value to decide something (a decomposition that
branches on `eps < 0`): then the graph's floats are bound too, for every later binding.

What this is not: one kernel for every size. Each new binding is a compile (tens of
milliseconds warm, from the compile cache on a repeat); kernels that take their sizes at run
time are the native compiler's work (issue "Dynamic shapes")."""

import collections
import logging
import operator
import os
import warnings

import torch

log = logging.getLogger("coil")

# The most bindings one graph keeps compiled (`COIL_MAX_BINDINGS`).
MAX_BINDINGS = int(os.environ.get("COIL_MAX_BINDINGS", "64"))

# Reads of a tensor's values as Python numbers.
_ITEM_METHODS = ("item", "tolist")
_ITEM_FUNCTIONS = (torch.ops.aten._local_scalar_dense.default, torch.ops.aten.item.default)


def _value_read(node):
    """Whether `node` reads its first argument's values as numbers (`item()`, `tolist()`)."""
    if node.op == "call_method":
        return node.target in _ITEM_METHODS
    return node.op == "call_function" and node.target in _ITEM_FUNCTIONS


def _is_float_meta(node):
    val = node.meta.get("example_value", node.meta.get("val"))
    return isinstance(val, (float, torch.SymFloat))


def value_reads(gm):
    """`(size_reads, float_reads)`: the nodes of `gm` that read a tensor's values as integers
    (`item()`, `tolist()`: PyTorch's unbacked symbols, which size something), and the
    positions of the inputs it reads as floats (Dynamo's floats passed as 0-d tensors)."""
    size_reads, float_reads = [], set()
    placeholders = {n: i for i, n in enumerate(n for n in gm.graph.nodes if n.op == "placeholder")}
    for n in gm.graph.nodes:
        if not _value_read(n) or not n.args:
            continue
        source = n.args[0]
        if not _is_float_meta(n):
            size_reads.append(n)
        elif source in placeholders:
            float_reads.add(placeholders[source])
        # (A float read of a computed value stays a run-time number: `tensorize_scalars`.)
    return size_reads, float_reads


def _ancestors(nodes):
    """`nodes` and every node they depend on."""
    needed, stack = set(), list(nodes)
    while stack:
        n = stack.pop()
        if n not in needed:
            needed.add(n)
            stack.extend(n.all_input_nodes)
    return needed


def writes_in_place(node):
    """Whether `node` writes a tensor in place (`add_`, a mutable overload, `out=`)."""
    if node.op == "call_method":
        name = node.target
    elif node.op == "call_function":
        if isinstance(node.target, torch._ops.OpOverload) and node.target._schema.is_mutable:
            return True
        name = getattr(node.target, "__name__", "")
    else:
        return False
    return (name.endswith("_") and not name.startswith("__")) or "out" in node.kwargs


def _evaluate(gm, nodes, args):
    """The values of `nodes` of `gm` for the arguments `args`, computed eagerly from what they
    depend on alone (which writes nothing: `Specialized` checks)."""
    needed = _ancestors(nodes)
    env = {}
    position = 0
    with torch.no_grad():
        for n in gm.graph.nodes:
            if n.op == "placeholder":
                env[n] = args[position]
                position += 1
            if n not in needed or n.op == "placeholder":
                continue
            a = torch.fx.node.map_arg(n.args, env.__getitem__)
            k = torch.fx.node.map_arg(n.kwargs, env.__getitem__)
            if n.op == "call_function":
                env[n] = n.target(*a, **k)
            elif n.op == "call_method":
                env[n] = getattr(a[0], n.target)(*a[1:], **k)
            elif n.op == "call_module":
                env[n] = gm.get_submodule(n.target)(*a, **k)
            elif n.op == "get_attr":
                env[n] = operator.attrgetter(n.target)(gm)
    return [env[n] for n in nodes]


class Specialized:
    """Dynamo's symbolic graph `gm`, compiled per binding by `compile_static(gm, inputs)` (the
    backend's static path) and called with Dynamo's arguments."""

    def __init__(self, gm, compile_static, strict, stats):
        self.gm = gm
        self.compile_static = compile_static
        self.strict = strict
        self.stats = stats
        # Bindings in the order last used: the least recently used goes past MAX_BINDINGS (each
        # holds a compiled model and its memory; a size that comes back compiles again, from
        # coil's compile cache).
        self.compiled = collections.OrderedDict()
        # Inputs whose values the graph reads: sizes (bound always) and floats (bound only
        # once tracing needs them, `bind_floats`).
        self.size_reads, self.float_reads = value_reads(gm)
        self.size_read_names = [n.name for n in self.size_reads]
        # A size read in a graph that writes in place cannot be computed ahead of the call
        # (the read may follow the write, which would then happen twice): such a graph runs
        # eagerly (strict mode raises).
        self.unbindable = next(
            (n.name for n in gm.graph.nodes if writes_in_place(n)), None
        ) if self.size_reads else None
        self.bind_floats = False
        self.warned = False
        # The tensors whose shapes or strides hold symbols: the rest are static, and Dynamo's
        # guards hold them (shape, strides, dtype, device, requires_grad) before a call
        # reaches here, so the key looks at these alone.
        self.volatile = []
        for i, p in enumerate(n for n in gm.graph.nodes if n.op == "placeholder"):
            val = p.meta.get("example_value", p.meta.get("val"))
            if not isinstance(val, torch.Tensor) or not _static(val):
                self.volatile.append(i)
        stats["dynamic_graphs"] += 1

    def _bound_positions(self):
        return self.float_reads if self.bind_floats else set()

    def _key(self, args, sizes):
        bound = self._bound_positions()
        key = [torch.is_grad_enabled(), _frozen(sizes)]
        for i in self.volatile:
            a = args[i]
            if isinstance(a, torch.Tensor):
                key.append((tuple(a.shape), a.stride(), a.dtype, a.device, a.requires_grad))
            else:
                key.append((type(a).__name__, a))
        for i in bound:
            key.append(_frozen(args[i].tolist()))
        return tuple(key)

    def __call__(self, *args):
        if self.unbindable is not None:
            return self._eagerly(args)
        sizes = _evaluate(self.gm, self.size_reads, args) if self.size_reads else []
        key = self._key(args, sizes)
        entry = self.compiled.get(key)
        if entry is None:
            entry = self._compile(args, sizes)
            key = self._key(args, sizes)  # `bind_floats` may have changed it
            self.compiled[key] = entry
            while len(self.compiled) > MAX_BINDINGS:
                self.compiled.popitem(last=False)
                self.stats["bindings_dropped"] += 1
        else:
            self.compiled.move_to_end(key)
        run, kept = entry
        if run is None:
            return self.gm(*args)
        return run(*kept(args))

    def _eagerly(self, args):
        """Runs Dynamo's graph itself, saying why once (or raises in strict mode)."""
        if not self.warned:
            reason = (f"the graph reads a size from a tensor's values and writes in place "
                      f"('{self.unbindable}'): coil cannot bind it to the size before the call")
            if self.strict:
                raise RuntimeError(f"coil cannot compile this graph ({reason})")
            warnings.warn(f"coil: running this graph eagerly: {reason}", stacklevel=3)
            self.stats["graphs_to_eager"].append(reason)
            self.warned = True
        return self.gm(*args)

    def _compile(self, args, sizes):
        try:
            return self._compile_bound(args, sizes)
        except Exception as first:
            if self.float_reads and not self.bind_floats:
                log.info("coil: binding the graph's float inputs (%s)", first)
                self.bind_floats = True
                try:
                    return self._compile_bound(args, sizes)
                except Exception as e:
                    first = e
            reason = f"compiling the graph for one binding of its sizes failed: {first}"
            if self.strict:
                raise RuntimeError(f"coil cannot compile this graph ({reason})") from first
            warnings.warn(f"coil: running this graph eagerly: {reason}", stacklevel=3)
            self.stats["graphs_to_eager"].append(reason)
            return None, None

    def _compile_bound(self, args, sizes):
        reads = dict(zip(self.size_read_names, sizes))
        bound, kept = bind(self.gm, args, self._bound_positions(), reads)
        log.info("coil: compiling a static graph for the binding %s", _describe(args))
        run = self.compile_static(bound, [args[i] for i in kept])
        self.stats["specializations"] += 1
        pick = operator.itemgetter(*kept) if len(kept) > 1 else (
            (lambda a: (a[kept[0]],)) if kept else (lambda a: ()))
        return run, pick


def trace_for_guards(gm, example_inputs, decompositions):
    """Traces `gm` to ATen once with its symbolic inputs, as AOTAutograd does for Inductor, and
    drops the result: what the trace decides about the symbols (a derived size is not 1, so
    its stride does not matter; the 0/1 specialization) becomes a guard in Dynamo's shape
    environment, and Dynamo recompiles exactly where it would for Inductor. The bindings do
    not need it (each is a concrete size); a graph whose trace fails (a size only an input's
    values give) keeps Dynamo's guards alone."""
    from torch._guards import detect_fake_mode
    from torch.fx.experimental.proxy_tensor import make_fx

    fake_mode = detect_fake_mode(example_inputs)
    if fake_mode is None:
        return
    try:
        fakes = [
            fake_mode.from_tensor(a) if isinstance(a, torch.Tensor) else a for a in example_inputs
        ]
        with fake_mode:
            make_fx(
                torch.func.functionalize(gm, remove="mutations"),
                decomposition_table=decompositions,
            )(*fakes)
    except Exception as e:  # a data-dependent size, or an op the fake mode cannot run
        log.debug("coil: no symbolic trace of a dynamic graph (%s): Dynamo's guards alone", e)


def _static(t):
    """Whether a (fake) tensor's shape and strides are all numbers."""
    return all(type(d) is int for d in t.shape) and all(type(d) is int for d in t.stride())


def _frozen(value):
    """A tensor's `tolist()` as nested tuples (hashable)."""
    return tuple(map(_frozen, value)) if isinstance(value, list) else value


def _describe(args):
    return ", ".join(
        f"{list(a.shape)}" if isinstance(a, torch.Tensor) else repr(a) for a in args
    )


def _substitute(value, node, replacement):
    """`value` (a node's args or kwargs) with `node` replaced by `replacement`, a constant."""
    if isinstance(value, torch.fx.Node):
        return replacement if value is node else value
    if isinstance(value, (list, tuple)):
        out = [_substitute(v, node, replacement) for v in value]
        return type(value)(out) if isinstance(value, tuple) else out
    if isinstance(value, dict):
        return {k: _substitute(v, node, replacement) for k, v in value.items()}
    if isinstance(value, slice):
        return slice(*(_substitute(v, node, replacement) for v in
                       (value.start, value.stop, value.step)))
    return value


def _replace_with_constant(graph, node, value):
    """Every use of `node` in `graph` becomes `value`; `node` is erased. A read of a list's
    element (`operator.getitem(node, k)`) becomes the element, recursively."""
    for user in list(node.users):
        if (user.op == "call_function" and user.target is operator.getitem
                and isinstance(value, (list, tuple)) and user.args[0] is node):
            _replace_with_constant(graph, user, value[user.args[1]])
            continue
        user.args = _substitute(user.args, node, value)
        user.kwargs = _substitute(user.kwargs, node, value)
    graph.erase_node(node)


def bind(gm, args, read_positions, reads):
    """`gm` with its non-tensor arguments replaced by their values in `args`, the values its
    tensors at `read_positions` are read as (`item()`, `tolist()`) replaced by what they are
    now, and the nodes named in `reads` by the values given; returns it and the positions of
    the arguments it still takes."""
    graph = torch.fx.Graph()
    copies = {}
    out = graph.graph_copy(gm.graph, copies)
    graph.output(out)
    for old, new in copies.items():
        if old.name in reads:
            _replace_with_constant(graph, new, reads[old.name])
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(args):
        raise TypeError(f"the graph takes {len(placeholders)} arguments, not {len(args)}")
    kept = []
    for i, (p, a) in enumerate(zip(placeholders, args)):
        if not isinstance(a, torch.Tensor):
            _replace_with_constant(graph, p, a)
            continue
        kept.append(i)
        if i in read_positions:
            for u in list(p.users):
                if _value_read(u) and u.args and u.args[0] is p:
                    value = a.tolist() if u.target == "tolist" else a.item()
                    _replace_with_constant(graph, u, value)
    _fold_constants(graph)
    # (No dead-code elimination: FX's would drop in-place method calls whose result is unused,
    # `y.mul_(2)`, and with them the write.)
    # Inputs the binding left unread (a float whose reads became its value): not passed at
    # all, so a call neither checks nor moves them (a 0-d CPU tensor beside CUDA inputs would
    # be copied to the device at every call).
    for i, p in list(zip(kept, (n for n in graph.nodes if n.op == "placeholder"))):
        if not p.users:
            graph.erase_node(p)
            kept.remove(i)
    return torch.fx.GraphModule(gm, graph), kept


_ASSERTS = (
    torch.ops.aten._assert_scalar.default,
    torch.ops.aten.sym_constrain_range.default,
    torch.ops.aten.sym_constrain_range_for_size.default,
)


def _foldable(target):
    """Whether a call of `target` on numbers is arithmetic on sizes or a check of them (run
    once, when the graph is bound), not an op that makes a tensor."""
    if target in _ASSERTS:
        return True
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", "")
    if module in ("_operator", "operator", "math"):
        return True
    return module.startswith("torch") and (name.startswith("sym_") or name.startswith("_check"))


def _fold_constants(graph):
    """Runs the size arithmetic and size checks whose arguments the binding made numbers
    (`u0 >= 0`, `_assert_scalar(True, ...)`, `torch._check(z // 2 == 3)`), replacing each by
    its result. A check that fails raises here, as the call would have."""
    for node in list(graph.nodes):
        if node.op != "call_function" or node.all_input_nodes or not _foldable(node.target):
            continue
        value = node.target(*node.args, **node.kwargs)
        if node.target in _ASSERTS or value is None:
            if node.users:
                continue
            graph.erase_node(node)
        else:
            _replace_with_constant(graph, node, value)
