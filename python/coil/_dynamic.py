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


def _unbacked(value):
    """The unbacked symbols (`u0`: a size only a tensor's values give) in the shapes of `value`,
    a node's meta (a tensor, a `SymInt`, or a tuple or list of them)."""
    if isinstance(value, (list, tuple)):
        return set().union(*map(_unbacked, value)) if value else set()
    if isinstance(value, torch.Tensor):
        dims = (*value.shape, *value.stride())
    elif isinstance(value, torch.SymInt):
        dims = (value,)
    else:
        return set()
    # The expression as traced (`_expr`), before the shape environment's replacements: a
    # `torch._check(z.size(0) == 4)` later makes `u0` 4, yet `z` stays sized by values.
    return {str(sym) for d in dims if isinstance(d, torch.SymInt)
            for sym in getattr(d.node, "_expr", d.node.expr).free_symbols
            if str(sym).startswith("u")}


def _meta(node):
    return node.meta.get("example_value", node.meta.get("val"))


def sized_by_values(gm):
    """The nodes of `gm` whose output's size its input's values give (`nonzero`,
    `masked_select`, `unique`, with Dynamo's `capture_dynamic_output_shape_ops`): an output
    shape holding an unbacked symbol none of the node's inputs has. At a call, each is
    computed first (`_evaluate`) and the graph bound to what it gave, an input of the bound
    graph (`bind`)."""
    found = []
    for n in gm.graph.nodes:
        if n.op not in ("call_function", "call_method") or _value_read(n):
            continue
        if (n.op == "call_function" and n.target is operator.getitem
                and isinstance(n.args[0], torch.fx.Node)
                and isinstance(_meta(n.args[0]), (list, tuple))):
            continue  # an element of a tuple: its maker is the one sized by values
        new = _unbacked(_meta(n)) - set().union(
            set(), *(_unbacked(_meta(i)) for i in n.all_input_nodes))
        if new and isinstance(_meta(n), (torch.Tensor, list, tuple)):
            found.append(n)
    return found


def _needs_grad_meta(node):
    """Whether `node`'s value (a tensor, or a tuple or list of them) needs a gradient."""
    val = _meta(node)
    vals = val if isinstance(val, (list, tuple)) else [val]
    return any(isinstance(v, torch.Tensor) and v.requires_grad for v in vals)


def _bool_mask(node):
    val = _meta(node) if isinstance(node, torch.fx.Node) else None
    return isinstance(val, torch.Tensor) and val.dtype == torch.bool


def _index_through_nonzero(gm):
    """Rewrites, in `gm` (Dynamo's graph), each selection by a boolean mask whose result needs
    a gradient (`x[mask]`, `masked_select(x, mask)`) into indexing by the mask's `nonzero`
    indices: the indices are sized by values and need no gradient (computed ahead of the call
    and bound, `sized_by_values`), and the indexing is differentiable with static sizes once
    bound. Returns how many it rewrote."""
    count = 0
    for node in list(gm.graph.nodes):
        if node.op not in ("call_function", "call_method") or not _needs_grad_meta(node):
            continue
        if node.op == "call_function" and node.target is operator.getitem \
                and len(node.args) == 2 and _bool_mask(node.args[1]):
            x, mask = node.args
        elif (node.target in (torch.masked_select, "masked_select") and len(node.args) == 2
              and _bool_mask(node.args[1])
              and tuple(_meta(node.args[0]).shape) == tuple(_meta(node.args[1]).shape)):
            x, mask = node.args
        else:
            continue
        # The fake mode of the metas themselves (the tracing context's may be another).
        mode = getattr(_meta(mask), "fake_mode", None)
        if mode is None or getattr(_meta(x), "fake_mode", None) is not mode \
                or _meta(mask).dim() > _meta(x).dim():
            continue
        graph = gm.graph
        with graph.inserting_before(node), mode:
            found = graph.call_function(torch.nonzero, (mask,), {"as_tuple": True})
            found.meta["example_value"] = torch.nonzero(_meta(mask), as_tuple=True)
            parts = []
            for k, part in enumerate(found.meta["example_value"]):
                p = graph.call_function(operator.getitem, (found, k))
                p.meta["example_value"] = part
                parts.append(p)
            picked = graph.call_function(operator.getitem, (x, tuple(parts)))
            picked.meta["example_value"] = _meta(x)[tuple(found.meta["example_value"])]
        node.replace_all_uses_with(picked)
        graph.erase_node(node)
        count += 1
    if count:
        gm.recompile()
    return count


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

    def __init__(self, gm, compile_static, strict, stats, aten=None, compile_aten=None):
        self.gm = gm
        self.compile_static = compile_static
        # The symbolic ATen trace of an inference graph and the static path after tracing
        # (`compile_aten(static_aten, inputs)`): a binding then binds the trace (`bind_aten`)
        # instead of tracing Dynamo's graph again.
        self.aten = aten
        self.compile_aten = compile_aten
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
        # Tensors whose sizes their inputs' values give (`nonzero`): computed ahead of each
        # call, and inputs of the bound graph.
        _index_through_nonzero(gm)
        self.by_values = sized_by_values(gm)
        self.by_value_names = [n.name for n in self.by_values]
        self.unbindable = self._unbindable()
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

    def _unbindable(self):
        """Why the graph cannot be bound ahead of a call, or None. A size read in a graph that
        writes in place cannot be computed ahead of the call (the read may follow the write,
        which would then happen twice); a tensor sized by its inputs' values that needs a
        gradient cannot be an input. Such a graph runs eagerly (strict mode raises)."""
        if not (self.size_reads or self.by_values):
            return None
        writer = next((n.name for n in self.gm.graph.nodes if writes_in_place(n)), None)
        if writer is not None:
            return (f"the graph reads a size from a tensor's values and writes in place "
                    f"('{writer}'): coil cannot bind it to the size before the call")
        for n in self.by_values:
            if _needs_grad_meta(n):
                return (f"'{n.name}' is sized by its input's values and needs a gradient: "
                        f"coil binds such a tensor as an input, computed before the call")
        return None

    def _bound_positions(self):
        return self.float_reads if self.bind_floats else set()

    def _key(self, args, sizes, made):
        bound = self._bound_positions()
        key = [torch.is_grad_enabled(), _frozen(sizes)]
        key.extend((tuple(t.shape), t.stride(), t.dtype) for t in made)
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
        ahead = self.size_reads + self.by_values
        values = _evaluate(self.gm, ahead, args) if ahead else []
        sizes = values[:len(self.size_reads)]
        made = _flat_tensors(values[len(self.size_reads):])
        key = self._key(args, sizes, made)
        entry = self.compiled.get(key)
        if entry is None:
            entry = self._compile(args, sizes, values[len(self.size_reads):])
            key = self._key(args, sizes, made)  # `bind_floats` may have changed it
            _remember(self.compiled, key, entry, self.stats)
        else:
            self.compiled.move_to_end(key)
        run, kept = entry
        if run is None:
            return self.gm(*args)
        return run(*kept(args), *made)

    def _eagerly(self, args):
        """Runs Dynamo's graph itself, saying why once (or raises in strict mode)."""
        if not self.warned:
            reason = self.unbindable
            if self.strict:
                raise RuntimeError(f"coil cannot compile this graph ({reason})")
            warnings.warn(f"coil: running this graph eagerly: {reason}", stacklevel=3)
            self.stats["graphs_to_eager"].append(reason)
            self.warned = True
        return self.gm(*args)

    def _compile(self, args, sizes, made):
        try:
            return self._compile_bound(args, sizes, made)
        except CheckFailed:
            raise
        except Exception as first:
            if self.float_reads and not self.bind_floats:
                log.info("coil: binding the graph's float inputs (%s)", first)
                self.bind_floats = True
                try:
                    return self._compile_bound(args, sizes, made)
                except Exception as e:
                    first = e
            reason = f"compiling the graph for one binding of its sizes failed: {first}"
            if self.strict:
                raise RuntimeError(f"coil cannot compile this graph ({reason})") from first
            warnings.warn(f"coil: running this graph eagerly: {reason}", stacklevel=3)
            self.stats["graphs_to_eager"].append(reason)
            return None, None

    def _compile_bound(self, args, sizes, made):
        if (self.aten is not None and not self.size_reads and not self.by_values
                and not needs_grad(args)):
            try:
                static, kept = bind_aten(self.aten, args, self._bound_positions())
            except Exception as e:  # a symbol the arguments do not give: trace per binding
                log.debug("coil: binding the symbolic trace failed (%s)", e)
                # Arithmetic on the floats' values stays a run-time number in a trace of each
                # binding; once that trace has bound the floats too (`bind_floats`), so does
                # this one.
                if self.bind_floats or not self.float_reads:
                    self.aten = None
            else:
                log.info("coil: compiling the symbolic trace for the binding %s",
                         _describe(args))
                run = self.compile_aten(static, [args[i] for i in kept])
                self.stats["specializations"] += 1
                self.stats["traces_bound"] += 1
                return run, _picker(kept)
        reads = dict(zip(self.size_read_names, sizes))
        bound, kept = bind(self.gm, args, self._bound_positions(), reads,
                           dict(zip(self.by_value_names, made)))
        log.info("coil: compiling a static graph for the binding %s", _describe(args))
        run = self.compile_static(bound, [args[i] for i in kept] + _flat_tensors(made))
        self.stats["specializations"] += 1
        return run, _picker(kept)


class BoundTrace:
    """An ATen graph with symbolic sizes (AOTAutograd's forward or backward of a dynamic
    training graph, traced once as for Inductor), compiled per binding of its sizes at the
    binding's first call: `bind_aten`, then `compile_static(static_gm, inputs)`, the backend's
    static path. Called with each call's concrete arguments (its symbols as numbers).
    Outputs the binding made numbers (a size saved for the backward) are given back as those
    numbers beside the compiled graph's tensors. A trace that does not bind runs as it is
    (ATen's ops, eagerly) with a warning, or raises in strict mode."""

    def __init__(self, aten, compile_static, stats, strict):
        self.aten = aten
        self.compile_static = compile_static
        self.stats = stats
        self.strict = strict
        self.compiled = collections.OrderedDict()

    def __call__(self, *args):
        key = tuple(
            (tuple(a.shape), a.stride(), a.dtype) if isinstance(a, torch.Tensor)
            else (type(a).__name__, a) for a in args)
        entry = self.compiled.get(key)
        if entry is None:
            entry = self._compile(args)
            _remember(self.compiled, key, entry, self.stats)
        else:
            self.compiled.move_to_end(key)
        run, pick, numbers, arity = entry
        tensors = iter(run(*pick(args)) if run is not None else ())
        return [numbers[i] if i in numbers else next(tensors) for i in range(arity)]

    def _compile(self, args):
        try:
            static, kept = bind_aten(self.aten, args)
        except Exception as e:  # a size the arguments do not give
            reason = f"binding the sizes of a training graph failed: {e}"
            if self.strict:
                raise RuntimeError(f"coil cannot compile this graph ({reason})") from e
            warnings.warn(f"coil: running this graph eagerly: {reason}", stacklevel=3)
            self.stats["graphs_to_eager"].append(reason)
            arity = len(next(n for n in self.aten.graph.nodes if n.op == "output").args[0])
            return lambda *a: self.aten(*a), lambda a: a, {}, arity
        out = next(n for n in static.graph.nodes if n.op == "output")
        results = list(out.args[0]) if isinstance(out.args[0], (list, tuple)) else [out.args[0]]
        numbers = {i: r for i, r in enumerate(results) if not isinstance(r, torch.fx.Node)}
        tensors = [r for r in results if isinstance(r, torch.fx.Node)]
        out.args = (tuple(tensors),)
        static.recompile()
        log.info("coil: compiling a bound training graph for %s", _describe(args))
        run = self.compile_static(static, [args[i] for i in kept]) if tensors else None
        self.stats["specializations"] += 1
        self.stats["traces_bound"] += 1
        return run, _picker(kept), numbers, len(results)


def _flat_tensors(values):
    """The tensors of `values` (each a tensor, or a tuple or list of them), in order."""
    flat = []
    for v in values:
        flat.extend(_flat_tensors(v) if isinstance(v, (list, tuple)) else [v])
    return [t for t in flat if isinstance(t, torch.Tensor)]


def _feed(graph, node, value, anchor):
    """Makes `node` of `graph` (its value `value`, computed ahead of the call) inputs of the
    graph, placed after `anchor` (the last input so far, or None): one per tensor of `value`,
    a tuple's elements read through `getitem`. Reads of their sizes become numbers. Returns the
    last input made."""
    def placeholder(tensor):
        nonlocal anchor
        where = (graph.inserting_after(anchor) if anchor is not None
                 else graph.inserting_before(next(iter(graph.nodes))))
        with where:
            anchor = graph.placeholder(f"{node.name}_{len(fed)}")
        anchor.meta["val"] = tensor
        fed.append(anchor)
        return anchor

    fed = []
    if isinstance(value, torch.Tensor):
        node.replace_all_uses_with(placeholder(value))
    else:
        inputs = {k: placeholder(t) for k, t in enumerate(value) if isinstance(t, torch.Tensor)}
        for user in list(node.users):
            if not (user.op == "call_function" and user.target is operator.getitem
                    and user.args[1] in inputs):
                raise TypeError(f"{user.name} reads {node.name}, a tuple, whole")
            user.replace_all_uses_with(inputs[user.args[1]])
            graph.erase_node(user)
    graph.erase_node(node)
    for p in fed:
        _layout_reads_to_numbers(graph, p, p.meta["val"])
    return anchor


def _layout_reads_to_numbers(graph, node, tensor):
    """Reads of `node`'s sizes (`sym_size`, `size()`, `numel()`, `dim()`) become the numbers
    they are of `tensor`."""
    for user in list(node.users):
        if not user.args or user.args[0] is not node:
            continue
        rest = user.args[1:]
        if user.op == "call_function" and user.target in _LAYOUT_READS:
            _replace_with_constant(graph, user, _LAYOUT_READS[user.target](tensor, *rest))
        elif user.op == "call_method" and user.target in ("size", "numel", "dim", "stride"):
            _replace_with_constant(graph, user, getattr(tensor, user.target)(*rest))


def _drop_unused(graph, candidates):
    """Erases the nodes of `candidates` (what the tensors made ahead of the call were made
    from: computed then) that nothing reads any more; never a write in place or a check."""
    for node in reversed(list(graph.nodes)):
        if (node in candidates and node.op in ("call_function", "call_method")
                and not node.users and not writes_in_place(node) and not _is_check(node.target)):
            graph.erase_node(node)


def _remember(compiled, key, entry, stats):
    """Keeps a binding's `entry` under `key` in `compiled` (bindings in the order last used),
    the least recently used going past `MAX_BINDINGS` (each holds a compiled model and its
    memory; a size that comes back compiles again, from coil's compile cache)."""
    compiled[key] = entry
    while len(compiled) > MAX_BINDINGS:
        compiled.popitem(last=False)
        stats["bindings_dropped"] += 1


def _picker(kept):
    """A function of a call's arguments giving those at the positions `kept`, as a tuple."""
    if len(kept) > 1:
        return operator.itemgetter(*kept)
    return (lambda a: (a[kept[0]],)) if kept else (lambda a: ())


def needs_grad(args):
    """Whether a call with `args` records gradients: grad on and a tensor requiring it (an
    inference trace does not serve it)."""
    return torch.is_grad_enabled() and any(
        isinstance(a, torch.Tensor) and a.requires_grad for a in args)


def trace_for_guards(gm, example_inputs, decompositions):
    """Traces `gm` to ATen once with its symbolic inputs, as AOTAutograd does for Inductor, and
    drops the result: what the trace decides about the symbols (a derived size is not 1, so
    its stride does not matter; the 0/1 specialization) becomes a guard in Dynamo's shape
    environment, and Dynamo recompiles exactly where it would for Inductor. Returns the traced
    graph (`None` where the trace fails: a size only an input's values give; Dynamo's guards
    alone hold then), which `bind_aten` binds for each size without tracing again."""
    from torch._guards import detect_fake_mode
    from torch.fx.experimental.proxy_tensor import make_fx

    fake_mode = detect_fake_mode(example_inputs)
    if fake_mode is None:
        return None
    try:
        fakes = [
            fake_mode.from_tensor(a) if isinstance(a, torch.Tensor) else a for a in example_inputs
        ]
        # `functionalize` makes its symbol arguments numbers (a guard on each: Dynamo would
        # recompile for every size), so only a graph that writes in place goes through it.
        writes = any(writes_in_place(n) for n in gm.graph.nodes)
        fn = torch.func.functionalize(gm, remove="mutations") if writes else gm
        # Under the Python dispatcher, as AOTAutograd traces: the symbolic sizes' own
        # implementations run (`view` with symbols keeps them rather than asking for numbers).
        from torch._dispatch.python import enable_python_dispatcher

        with fake_mode, enable_python_dispatcher():
            return make_fx(fn, decomposition_table=decompositions)(*fakes)
    except Exception as e:  # a data-dependent size, or an op the fake mode cannot run
        log.debug("coil: no symbolic trace of a dynamic graph (%s): Dynamo's guards alone", e)
        return None


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


def bind(gm, args, read_positions, reads, made=None):
    """`gm` with its non-tensor arguments replaced by their values in `args`, the values its
    tensors at `read_positions` are read as (`item()`, `tolist()`) replaced by what they are
    now, the nodes named in `reads` by the values given, and those named in `made` (tensors
    sized by values, `sized_by_values`) by inputs after the others, one per tensor of the
    value given (`_flat_tensors`); returns it and the positions of the arguments of `args` it
    still takes (the made tensors follow them)."""
    graph = torch.fx.Graph()
    copies = {}
    out = graph.graph_copy(gm.graph, copies)
    graph.output(out)
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    for old, new in copies.items():
        if old.name in reads:
            _replace_with_constant(graph, new, reads[old.name])
    if made:
        anchor = placeholders[-1] if placeholders else None
        fed = {new: made[old.name] for old, new in copies.items() if old.name in made}
        before = _ancestors(fed) - set(fed)
        for new, value in fed.items():
            anchor = _feed(graph, new, value, anchor)
        _drop_unused(graph, before)
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
    # Metas of sizes the binding made numbers are stale: without them the bound graph is no
    # longer taken for one sized by values (`sized_by_values`) when the static path sees it.
    for node in graph.nodes:
        if _unbacked(_meta(node)):
            node.meta.pop("example_value", None)
            node.meta.pop("val", None)
    return torch.fx.GraphModule(gm, graph), kept


# Reads of a tensor's layout in a symbolic ATen trace, and what each is of a real tensor.
_LAYOUT_READS = {
    torch.ops.aten.sym_size.int: lambda t, d: t.shape[d],
    torch.ops.aten.sym_stride.int: lambda t, d: t.stride()[d],
    torch.ops.aten.sym_numel.default: lambda t: t.numel(),
    torch.ops.aten.sym_storage_offset.default: lambda t: t.storage_offset(),
}


def bind_aten(aten, args, value_positions=()):
    """The symbolic ATen trace `aten` (from `trace_for_guards`: Dynamo's graph functionalized and
    decomposed, its sizes symbols) for the sizes of `args`, Dynamo's arguments for one call:
    each symbol argument replaced by its value, each read of a tensor's size or stride by what
    it is now, the size arithmetic and checks run, and every node's meta propagated again with
    the sizes as numbers (a computed tensor's size read, the number its traced size is for
    `args`). A number Dynamo passes as a 0-d tensor stays a run-time input (its
    read, `item()`, an ATen op of the graph) unless its position is in `value_positions`: then
    its reads become its value. Returns the static graph and the positions of the arguments it
    takes. What Dynamo's guards admit, the trace holds for: no tracing again per size.
    Raises where a symbol is left that the arguments do not give (a size read from a tensor's
    values)."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp

    graph = torch.fx.Graph()
    out = graph.graph_copy(aten.graph, {})
    graph.output(out)
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(args):
        raise TypeError(f"the trace takes {len(placeholders)} arguments, not {len(args)}")
    of_placeholder = dict(zip(placeholders, args))
    position = {p: i for i, p in enumerate(placeholders)}
    number = _size_numbers(placeholders, args)
    for node in list(graph.nodes):
        if node.op == "call_function" and node.target in _ITEM_FUNCTIONS and node.args \
                and position.get(node.args[0]) in value_positions:
            _replace_with_constant(graph, node, of_placeholder[node.args[0]].item())
            continue
        if node.op == "call_function" and node.target in _LAYOUT_READS:
            tensor = of_placeholder.get(node.args[0])
            if isinstance(tensor, torch.Tensor):
                value = _LAYOUT_READS[node.target](tensor, *node.args[1:])
            else:
                # A computed tensor's: what its traced size is for these arguments.
                value = number(node.meta.get("val"))
            _replace_with_constant(graph, node, value)
    kept = []
    for i, (p, a) in enumerate(zip(placeholders, args)):
        if isinstance(a, torch.Tensor):
            kept.append(i)
        else:
            _replace_with_constant(graph, p, a)
    _fold_constants(graph)
    for node in graph.nodes:
        for value in (*node.args, *node.kwargs.values()):
            if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)) or (
                    isinstance(value, (list, tuple))
                    and any(isinstance(v, (torch.SymInt, torch.SymFloat)) for v in value)):
                raise TypeError(f"{node.name} keeps a symbolic argument")
            if isinstance(value, torch.fx.Node) and value.op == "placeholder" and (
                    value not in of_placeholder or not isinstance(of_placeholder[value],
                                                                  torch.Tensor)):
                raise TypeError(f"{node.name} reads a symbol")
    for node in graph.nodes:
        if node.op == "call_function" and not isinstance(node.target, torch._ops.OpOverload) \
                and node.target is not operator.getitem:
            raise TypeError(f"{node.name} ({node.target}) is left after binding the sizes")
    # Inputs only read as numbers are not passed at all (as `bind` does).
    for i, p in list(zip(kept, (n for n in graph.nodes if n.op == "placeholder"))):
        if not p.users:
            graph.erase_node(p)
            kept.remove(i)
    gm = torch.fx.GraphModule(aten, graph)
    mode = FakeTensorMode(allow_non_fake_inputs=True)
    try:
        _bind_metas(gm.graph, placeholders, args, mode)
    except TypeError as e:  # a size no argument gives: run the graph's metas again
        log.debug("coil: metas propagated again (%s)", e)
        fakes = [mode.from_tensor(args[i]) for i in kept]
        FakeTensorProp(gm, mode).propagate_dont_convert_inputs(*fakes)
    return gm, kept


def _size_numbers(placeholders, args):
    """A function giving a trace's size (an int, or a `SymInt` of its metas) as the number it is
    for `args`, the arguments of `placeholders`: each symbol's value read from the argument
    whose size or stride it is, an expression over symbols evaluated. It raises `TypeError`
    where an expression holds a symbol no argument gives (an unbacked size)."""
    import sympy

    env = {}
    for p, a in zip(placeholders, args):
        val = p.meta.get("val")
        if isinstance(val, torch.SymInt) and isinstance(val.node.expr, sympy.Symbol):
            env[val.node.expr] = int(a)
        elif isinstance(val, torch.Tensor) and isinstance(a, torch.Tensor):
            for sym, real in zip((*val.shape, *val.stride()), (*a.shape, *a.stride())):
                if isinstance(sym, torch.SymInt) and isinstance(sym.node.expr, sympy.Symbol):
                    env[sym.node.expr] = real
    memo = {}

    def number(x):
        if isinstance(x, int):
            return x
        if not isinstance(x, torch.SymInt):
            raise TypeError(f"a size {x!r}")
        e = x.node.expr
        if e not in memo:
            bound = sympy.sympify(e.xreplace(env))
            if bound.free_symbols:
                raise TypeError(f"no argument gives {sorted(map(str, bound.free_symbols))}")
            memo[e] = int(bound)
        return memo[e]

    return number


def _bind_metas(graph, placeholders, args, mode):
    """Each node's `val` (a fake tensor of symbolic sizes, strides and offset) made a fake
    tensor of `mode` with the numbers those are for `args` (the trace's placeholders'
    arguments): each symbol's value read from the argument whose size or stride it is, every
    expression over the symbols evaluated. Raises `TypeError` where an expression holds a
    symbol no argument gives (an unbacked size) or an argument contradicts the trace."""
    from torch._subclasses.fake_tensor import FakeTensor

    number = _size_numbers(placeholders, args)

    def concrete(val):
        if isinstance(val, (list, tuple)):
            return type(val)(concrete(v) for v in val)
        if not isinstance(val, torch.Tensor):
            return val
        sizes = [number(d) for d in val.shape]
        strides = [number(d) for d in val.stride()]
        offset = number(val.storage_offset())
        # A meta tensor of that layout wrapped as `mode`'s fake tensor on the value's device
        # (what the fake mode itself makes, without dispatching an op through it).
        extent = offset + 1 + sum((n - 1) * st for n, st in zip(sizes, strides) if n > 0)
        if any(n == 0 for n in sizes):
            extent = offset
        meta = torch.empty(extent, dtype=val.dtype, device="meta")
        meta = meta.as_strided(sizes, strides, offset)
        return FakeTensor(mode, meta, val.device)

    for p, a in zip(placeholders, args):
        if isinstance(a, torch.Tensor) and isinstance(p.meta.get("val"), torch.Tensor):
            want = p.meta["val"]
            if ([number(d) for d in want.shape] != list(a.shape)
                    or [number(d) for d in want.stride()] != list(a.stride())):
                raise TypeError(f"{p.name}'s layout is not the trace's")
    for node in graph.nodes:
        if node.op == "placeholder":
            a = args[placeholders.index(node)]
            node.meta["val"] = mode.from_tensor(a) if isinstance(a, torch.Tensor) else a
        elif "val" in node.meta:
            node.meta["val"] = concrete(node.meta["val"])


_ASSERTS = (
    torch.ops.aten._assert_scalar.default,
    torch.ops.aten.sym_constrain_range.default,
    torch.ops.aten.sym_constrain_range_for_size.default,
)


def _is_check(target):
    """Whether `target` checks sizes (a runtime assertion, `torch._check` and its kind)."""
    return target in _ASSERTS or getattr(target, "__name__", "").startswith(("_check", "_assert"))


def _foldable(target):
    """Whether a call of `target` on numbers is arithmetic on sizes or a check of them (run
    once, when the graph is bound), not an op that makes a tensor."""
    if target in _ASSERTS:
        return True
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", "")
    if module in ("_operator", "operator", "math"):
        return True
    return module.startswith("torch") and name.startswith(("sym_", "_sym_", "_check"))


class CheckFailed(RuntimeError):
    """A check of the graph's sizes (`torch._check`, a runtime assertion of Dynamo's) that the
    call's sizes fail: raised to the caller, as eager raises it, never a reason to run
    eagerly."""


def _fold_constants(graph):
    """Runs the size arithmetic and size checks whose arguments the binding made numbers
    (`u0 >= 0`, `_assert_scalar(True, ...)`, `torch._check(z // 2 == 3)`), replacing each by
    its result. A check that fails raises `CheckFailed` here, as the call would have."""
    for node in list(graph.nodes):
        if node.op != "call_function" or node.all_input_nodes or not _foldable(node.target):
            continue
        try:
            value = node.target(*node.args, **node.kwargs)
        except RuntimeError as e:
            if _is_check(node.target):
                raise CheckFailed(str(e)) from e
            raise
        if node.target in _ASSERTS or value is None:
            if node.users:
                continue
            graph.erase_node(node)
        else:
            _replace_with_constant(graph, node, value)
