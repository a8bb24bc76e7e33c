"""ATen's own routines called from a compiled graph, where Inductor calls them too (its
fallback kernels): the Fourier transforms (`_fft_c2c`, `_fft_r2c`, `_fft_c2r`: pocketfft on
the CPU, cuFFT on the GPU) and `convolution_backward` (oneDNN or cuDNN behind ATen). Through
`torch.compile` their results are then eager's bit for bit, as Inductor's are: coil's own
versions (`_fft`'s DFT matmuls, coil's oneDNN gradient primitives in its own layouts) are as
accurate or more, but not eager's rounding, and PyTorch's tests compare with eager at f32's
tolerance, below eager's own error (docs/peer_tests.md).

A graph holding such ops is split at them: the ops between are segments, each a graph coil
compiles; the ATen ops run between the segments, on the segments' outputs. A segment takes
whatever it reads from outside itself (the graph's inputs, an earlier segment's outputs, an
ATen op's results) and gives what anything after it reads. The option `aten_externs=False`
compiles the graph whole, with coil's own versions (what graph files and the CLI always do).

Which ops go to ATen is the option `aten_externs` (or `COIL_ATEN_EXTERNS`):

- `auto`, the default: the transforms (pocketfft and cuFFT are faster than `_fft`'s matmuls),
  and `convolution_backward` wherever coil has no library of its own for it (the GPU, a
  transposed convolution, a dtype oneDNN's gradients lack), where coil would otherwise
  decompose it into forward convolutions. On the CPU with oneDNN coil's own gradients stay:
  they are within eager's own error of the exact result, and a ResNet-18 training step is
  faster with them (docs/peer_tests.md gives the one PyTorch test they miss by rounding);
- `all` (True): every op above through ATen, eager's numerics throughout;
- `none` (False): none.
"""

import contextvars
import operator
import os

import torch

aten = torch.ops.aten

MODES = ("auto", "all", "none")

# The mode of the compile under way, for the decomposition table (`_decomp`): an op ATen will
# run is left whole. Unset (graph files, `tools/export_graph.py`): `none`.
CURRENT = contextvars.ContextVar("coil_aten_externs", default="none")

# The ops Inductor leaves to ATen (its `make_fallback`s) that coil also computes itself.
TRANSFORMS = frozenset({aten._fft_c2c.default, aten._fft_r2c.default, aten._fft_c2r.default})


def mode_of(options):
    """The `aten_externs` mode of backend options (`COIL_ATEN_EXTERNS` where they say none)."""
    value = options.get("aten_externs", os.environ.get("COIL_ATEN_EXTERNS", "auto"))
    value = {True: "all", False: "none"}.get(value, value)
    if value not in MODES:
        raise ValueError(f"coil: aten_externs is one of {', '.join(MODES)} (or a bool), "
                         f"not {value!r}")
    return value


def conv_backward_by_aten(dy, x, w, transposed, mode):
    """Whether ATen computes this `convolution_backward` (tensors or their traced values)."""
    from ._decomp import coil_computes_conv_backward

    if mode == "none":
        return False
    return mode == "all" or not coil_computes_conv_backward(dy, x, w, transposed)


def _val(a):
    return a.meta.get("val") if isinstance(a, torch.fx.Node) else a


def _is_extern(node, mode, lacking=frozenset()):
    """Whether ATen runs `node`: an op of `mode`'s (above), or one named in `lacking` (ops coil
    failed to compile in this graph: Inductor's implicit fallbacks, `_backend._compile_entry`)."""
    if node.op != "call_function":
        return False
    if str(node.target) in lacking:
        return True
    # An item of an extern's tuple result (convolution_backward's gradients).
    if (node.target is operator.getitem and node.args
            and isinstance(node.args[0], torch.fx.Node)
            and _is_extern(node.args[0], mode, lacking)):
        return True
    if mode == "none":
        return False
    if node.target in TRANSFORMS:
        return True
    if node.target is aten.convolution_backward.default:
        dy, x, w = (_val(a) for a in node.args[:3])
        return all(isinstance(t, torch.Tensor) for t in (dy, x, w)) and conv_backward_by_aten(
            dy, x, w, bool(node.args[7]), mode)
    return False


def has_externs(gm, mode, lacking=frozenset()):
    return any(_is_extern(n, mode, lacking) for n in gm.graph.nodes)


class _Segment:
    """Nodes of the graph compiled as one graph: what they read from outside, what is read of
    them after."""

    def __init__(self):
        self.nodes = []
        self.inputs = []  # nodes defined outside, in first-read order
        self.outputs = []  # nodes read after the segment
        self.run = None


def _steps(gm, mode, lacking=frozenset()):
    """The graph as steps in order: `_Segment`s and extern nodes."""
    steps, current = [], None
    for node in gm.graph.nodes:
        if node.op in ("placeholder", "output"):
            continue
        if _is_extern(node, mode, lacking):
            steps.append(node)
            current = None
            continue
        if current is None:
            current = _Segment()
            steps.append(current)
        current.nodes.append(node)
    owner = {}
    for step in steps:
        if isinstance(step, _Segment):
            for n in step.nodes:
                owner[n] = step
    for step in steps:
        if not isinstance(step, _Segment):
            continue
        seen = set()
        for n in step.nodes:
            for a in n.all_input_nodes:
                if owner.get(a) is not step and a not in seen:
                    seen.add(a)
                    step.inputs.append(a)
        for n in step.nodes:
            if any(owner.get(u) is not step for u in n.users):
                step.outputs.append(n)
    return steps


def _sub_graph(gm, segment):
    """The segment as a `GraphModule` of its own: placeholders for its inputs (with their
    values' metadata), a tuple of its outputs."""
    graph = torch.fx.Graph()
    env = {}
    for k, a in enumerate(segment.inputs):
        p = graph.placeholder(f"arg{k}")
        p.meta = dict(a.meta)
        env[a] = p
    for n in segment.nodes:
        env[n] = graph.node_copy(n, lambda a: env[a])
    graph.output(tuple(env[n] for n in segment.outputs))
    return torch.fx.GraphModule(gm, graph)


def _example(node, given):
    """An example value for a segment's input: the graph's own example input, else a tensor of
    the node's traced shape, strides, dtype and device."""
    if node in given:
        return given[node]
    v = node.meta.get("val")
    if not isinstance(v, torch.Tensor):
        raise ValueError(f"coil: no traced value for {node.name} to compile a segment with")
    return torch.empty_strided(v.shape, v.stride(), dtype=v.dtype, device=v.device)


def split_compile(gm, example_inputs, compile_segment, trusted, mode, lacking=frozenset()):
    """Compiles `gm` split at its ATen externs (and at the ops named in `lacking`):
    `compile_segment(sub_gm, inputs, trusted)` gives each segment's runner (returning a list).
    Returns a callable taking and returning what `gm.forward` does (as a list), and the number
    of extern calls a call makes."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    given = dict(zip(placeholders, example_inputs))
    steps = _steps(gm, mode, lacking)
    externs = 0
    for step in steps:
        if isinstance(step, _Segment):
            sub = _sub_graph(gm, step)
            inputs = [_example(a, given) for a in step.inputs]
            # Dynamo's guards hold only the graph's own inputs to their layouts.
            step_trusted = trusted if all(a in given for a in step.inputs) else False
            step.run = compile_segment(sub, inputs, step_trusted)
        elif step.target is not operator.getitem:
            externs += 1
    (result,) = [n.args[0] for n in gm.graph.nodes if n.op == "output"]

    def call(*args):
        env = dict(zip(placeholders, args))

        def value(a):
            return env[a] if isinstance(a, torch.fx.Node) else a

        for step in steps:
            if isinstance(step, _Segment):
                outs = step.run(*[env[a] for a in step.inputs])
                env.update(zip(step.outputs, outs))
            else:
                args_ = torch.fx.node.map_arg(step.args, value)
                kwargs = torch.fx.node.map_arg(step.kwargs, value)
                env[step] = step.target(*args_, **kwargs)
        out = torch.fx.node.map_arg(result, value)
        return [out] if isinstance(result, torch.fx.Node) else list(out)

    return call, externs
