"""The `_foreach_*` ops (what `torch.optim`'s `foreach=True` steps call over every parameter at
once) as one op per tensor: `_foreach_add.List(xs, ys, alpha=a)` becomes `add(x_i, y_i,
alpha=a)` for each `i`. Inductor lowers them the same way, per tensor (`register_foreach_pointwise`
in its lowering), then packs the small kernels into combo kernels; coil fuses each tensor's chain
of ops into one kernel.

The rule is read from the schemas, not written per op: a list argument (of tensors or of
numbers) gives its `i`-th element to the `i`-th op, anything else (a number, one tensor for all)
goes to every op; an argument the per-tensor op takes by keyword only (`alpha`, `value`) is
passed by keyword. The ops whose per-tensor form has another name or shape are listed in
`_SPECIAL`."""

import torch

aten = torch.ops.aten


def _norm(x, ord=2, dtype=None):
    return aten.linalg_vector_norm(x, ord, dtype=dtype)


def _scaled(op):
    """`addcmul`/`addcdiv` with one scale per tensor given as a 1-D tensor (`.Tensor`):
    `self + scale * op(t1, t2)`, as eager computes it."""

    def run(x, t1, t2, scale):
        return aten.add(x, aten.mul(op(t1, t2), scale))

    return run


# Per-tensor forms that are not the op of the same name with the same arguments.
_SPECIAL = {
    ("norm", "Scalar"): _norm,
    ("addcmul", "Tensor"): _scaled(aten.mul),
    ("addcdiv", "Tensor"): _scaled(aten.div),
}


# Arguments whose per-tensor op calls them otherwise (`_foreach_addcmul.ScalarList`'s `scalars`
# are `addcmul`'s keyword `value`).
_RENAMED = {("addcmul", "scalars"): "value", ("addcdiv", "scalars"): "value"}


def _keyword_only(packet):
    """The argument names some overload of `packet` takes by keyword only."""
    names = set()
    for overload in packet.overloads():
        for a in getattr(packet, overload)._schema.arguments:
            if a.kwarg_only:
                names.add(a.name)
    return names


def _per_tensor(op, base_name, base, special):
    schema = op._schema
    arguments = schema.arguments
    keyword_only = _keyword_only(base) if base is not None else set()

    def run(*args, **kwargs):
        values = []
        for i, a in enumerate(arguments):
            if i < len(args):
                values.append((a, args[i]))
            elif a.name in kwargs:
                values.append((a, kwargs[a.name]))
        lengths = {len(v) for _, v in values if isinstance(v, (list, tuple))}
        if len(lengths) != 1:
            raise ValueError(f"{op}: lists of different lengths {sorted(lengths)}")
        (n,) = lengths
        out = []
        for i in range(n):
            pos, kw = [], {}
            for a, v in values:
                # A list gives its i-th element; so does `scalars` as a 1-D tensor (the
                # `.Tensor` overloads of addcmul and addcdiv: one scale per tensor).
                if isinstance(v, (list, tuple)) or (a.name == "scalars" and isinstance(v, torch.Tensor)):
                    v = v[i]
                name = _RENAMED.get((base_name, a.name), a.name)
                if special is None and (a.kwarg_only or name in keyword_only):
                    kw[name] = v
                else:
                    pos.append(v)
            out.append(special(*pos, **kw) if special is not None else base(*pos, **kw))
        return out

    return run


def foreach_decompositions():
    """Every functional `_foreach_*` overload of this torch (one returning a list of tensors)
    mapped to its per-tensor form, where an op of the base name exists."""
    table = {}
    # Every registered op, not `dir(aten)`: the namespace lists only the ops resolved so far
    # (on torch 2.11 `_foreach_reciprocal`, which a capturable Adam calls on CUDA, was missing
    # until something had used it).
    registered = {
        n.split("::", 1)[1].split(".", 1)[0]
        for n in torch._C._dispatch_get_all_op_names()
        if n.startswith("aten::_foreach_")
    }
    for name in sorted(registered | {n for n in dir(aten) if n.startswith("_foreach_")}):
        if name.endswith("_"):
            continue
        packet = getattr(aten, name)
        base_name = name[len("_foreach_") :]
        base = getattr(aten, base_name, None)
        for overload in packet.overloads():
            op = getattr(packet, overload)
            returns = op._schema.returns
            if len(returns) != 1 or str(returns[0].type) != "List[Tensor]":
                continue
            special = _SPECIAL.get((base_name, overload))
            if special is None and base is None:
                continue
            table[op] = _per_tensor(op, base_name, base, special)
    return table
