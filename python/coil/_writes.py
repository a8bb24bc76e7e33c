"""Inputs a graph writes in place, as AOTAutograd leaves them with `keep_inference_input_mutations`
(as Inductor asks): trailing `aten.copy_(input, new_value)` nodes instead of the new values
returned for its runtime epilogue to copy back, one `copy_` call per input per call.

`split_writes` turns such a graph into one coil compiles (the new values as extra outputs, each
marked as its input's new value, so that `_compile` writes it straight into the input's memory
where the memory plan allows), and `WritingBack` runs it: an extra output that did not land in
its input's memory (a non-contiguous input, or a plan that could not alias it) is copied into
the input, as the `copy_` would have; the call returns the graph's own outputs.

Takes an ATen `GraphModule`; knows nothing of coil's compiler.
"""

import torch

_COPY = torch.ops.aten.copy_.default


def split_writes(gm):
    """`(gm2, writes, n_outputs, returned)` for a graph whose in-place writes are all
    `copy_(placeholder, value)` nodes, one per input, whose results only the output reads:
    `gm2` without them and with the values appended to its outputs, `writes` the `[(output,
    input)]` pairs (positions in `gm2`'s outputs and in its inputs), `n_outputs` how many
    outputs `gm` itself returns, `returned` the `[(output, input)]` of those that are written
    inputs. `None` when the graph writes no input so (or writes one otherwise); `gm` is left
    as it was."""
    graph = gm.graph
    position = {n: i for i, n in enumerate(n for n in graph.nodes if n.op == "placeholder")}
    copies = [n for n in graph.nodes
              if n.op == "call_function" and n.target is _COPY and not n.kwargs]
    if not copies:
        return None
    dests = [n.args[0] for n in copies]
    output = next(n for n in reversed(graph.nodes) if n.op == "output")
    if (any(d not in position or set(n.users) - {output} for d, n in zip(dests, copies))
            or len(set(dests)) < len(dests)
            or not all(isinstance(n.args[1], torch.fx.Node) for n in copies)):
        # A copy into an intermediate, one whose result is read, two into one input (their
        # order must hold), or a constant copied in: left to the graph as it is.
        return None
    if not isinstance(output.args[0], (tuple, list)):
        return None  # AOTAutograd's graphs return a tuple
    order = {n: i for i, n in enumerate(graph.nodes)}
    if any(order[u] > order[n] for n, d in zip(copies, dests) for u in d.users
           if u is not n and u is not output):
        return None  # the input is read after its write: the new value must be there
    # An output that is a written input (the cache a decoding step returns) is that input,
    # as eager's in-place op returns it: the call hands the input back after the write.
    copied_into = {n: position[d] for n, d in zip(copies, dests)}
    returned = [(k, copied_into[o]) for k, o in enumerate(output.args[0]) if o in copied_into]
    new_gm = torch.fx.GraphModule(gm, _without(graph, copies))
    by_name = {n.name: n for n in new_gm.graph.nodes}
    out_node = next(n for n in reversed(new_gm.graph.nodes) if n.op == "output")
    outs = list(out_node.args[0])
    n_outputs = len(outs)
    writes = []
    for n, dest in zip(copies, dests):
        writes.append((len(outs), position[dest]))
        outs.append(by_name[n.args[1].name])
    out_node.args = (tuple(outs),)
    new_gm.graph.lint()
    new_gm.recompile()
    return new_gm, writes, n_outputs, returned


def _without(graph, copies):
    """A copy of `graph` without the `copy_` nodes `copies`, each read (by the output) as the
    value it copies."""
    new = torch.fx.Graph()
    env = {}
    dropped = set(copies)
    for n in graph.nodes:
        if n in dropped:
            env[n] = env[n.args[1]]
            continue
        env[n] = new.node_copy(n, lambda a: env[a])
    return new


class WritingBack:
    """A boxed callable (AOTAutograd's convention): runs `run` on the inputs, copies each extra
    output into its input unless it is that input's own tensor (written in place), and returns
    the first `n_outputs` outputs, a written input returned as that input."""

    _boxed_call = True

    def __init__(self, run, split):
        _, writes, n_outputs, returned = split
        self.run = run
        self.writes = tuple(writes)
        self.n_outputs = n_outputs
        self.returned = tuple(returned)

    def __call__(self, args):
        outs = self.run(*args)
        for k, i in self.writes:
            new = outs[k]
            if new is not args[i]:
                # Through `.data`: AOTAutograd bumps the input's version once for the graph's
                # write, as for Inductor's kernels writing it; this copy is that write.
                args[i].data.copy_(new)
        outs = list(outs[:self.n_outputs])
        for k, i in self.returned:
            outs[k] = args[i]
        return outs
