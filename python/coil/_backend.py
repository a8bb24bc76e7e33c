"""The torch.compile backend: Dynamo's graph through AOTAutograd (core-ATen decompositions), the
ATen graph compiled by coil, a callable that runs it; eager with a warning when coil cannot."""

import copy
import logging
import operator
import re
import time
import warnings

import torch

from . import _native

log = logging.getLogger("coil")

_DTYPES = {
    torch.float32: "f32",
    torch.float64: "f64",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.int32: "i32",
    torch.int64: "i64",
    torch.bool: "b8",
}
_TORCH_DTYPES = {v: k for k, v in _DTYPES.items()}

_STATS = {"graphs_compiled": 0, "graphs_to_eager": [], "fallback_ops": [], "compile_s": 0.0}

# The options coil's compiler takes (the others are the backend's own: `strict`).
_NATIVE_OPTIONS = ("strategy", "debug_dir")
_KNOWN_OPTIONS = _NATIVE_OPTIONS + ("strict",)


def torch_stats():
    """What the backend did since the last `reset_stats()`: `graphs_compiled`, `graphs_to_eager`
    (the reason for each), `fallback_ops` (ops run on the host inside compiled graphs) and
    `compile_s`."""
    return copy.deepcopy(_STATS)


def reset_stats():
    """Clears `torch_stats()`."""
    _STATS.update(graphs_compiled=0, graphs_to_eager=[], fallback_ops=[], compile_s=0.0)


def _check_options(options):
    unknown = sorted(set(options) - set(_KNOWN_OPTIONS))
    if unknown:
        raise ValueError(
            f"coil: unknown option(s) {', '.join(unknown)} (known: {', '.join(_KNOWN_OPTIONS)})"
        )


def backend(gm, example_inputs, options=None, **kwargs):
    """`torch.compile(model, backend="coil", options={...})`. Options: `strategy` (a fusion
    strategy: inductor, inductor-regpressure, tvm, none), `debug_dir` (coil's stage dumps),
    `strict` (raise instead of running a graph eagerly)."""
    options = dict(options or {})
    options.update(kwargs)
    _check_options(options)
    from torch._decomp import core_aten_decompositions
    from torch._dynamo.backends.common import aot_autograd

    def forward(aten_gm, aten_inputs):
        return compile_fx(aten_gm, aten_inputs, **options)

    def backward(aten_gm, aten_inputs):
        # coil compiles inference graphs; a backward runs as PyTorch runs it.
        return aten_gm.forward

    compiler = aot_autograd(
        fw_compiler=forward,
        bw_compiler=backward,
        decompositions=core_aten_decompositions(),
    )
    # Attention traced as its math (matmuls and a softmax, which coil fuses), not as one of
    # the fused CUDA kernels SDPA would pick on a GPU.
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with sdpa_kernel([SDPBackend.MATH]):
        return compiler(gm, example_inputs)


def _device_of(example_inputs):
    devices = {t.device.type for t in example_inputs if isinstance(t, torch.Tensor)}
    if len(devices) > 1:
        raise _Unsupported(f"inputs on several devices ({', '.join(sorted(devices))})")
    device = devices.pop() if devices else "cpu"
    if device not in ("cpu", "cuda"):
        raise _Unsupported(f"inputs on {device}")
    return device


class _Unsupported(Exception):
    """Why a graph is not for coil (it then runs eagerly)."""


def _readable(gm, example_inputs):
    for i, t in enumerate(example_inputs):
        if not isinstance(t, torch.Tensor):
            raise _Unsupported(
                f"input {i} is a {type(t).__name__} (symbolic shapes are not supported yet)"
            )
        if t.dtype not in _DTYPES:
            raise _Unsupported(f"input {i} is {t.dtype}")
    text = gm.print_readable(print_output=False)
    # The class is `<lambda>` for AOTAutograd's graphs; coil reads `GraphModule`.
    return re.sub(r"^class [^(]*\(", "class GraphModule(", text, count=1)


def _lift_constants(gm):
    """A copy of `gm` whose tensor attributes (`get_attr` nodes: constants AOTAutograd keeps,
    such as a mask's fill value) are trailing placeholders instead, and those tensors."""
    graph = torch.fx.Graph()
    out = graph.graph_copy(gm.graph, {})
    graph.output(out)
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    consts = []
    for node in list(graph.nodes):
        if node.op != "get_attr":
            continue
        value = operator.attrgetter(node.target)(gm)
        if not isinstance(value, torch.Tensor):
            raise _Unsupported(f"attribute {node.target} is a {type(value).__name__}")
        anchor = placeholders[-1] if placeholders else next(iter(graph.nodes))
        insert = graph.inserting_after if placeholders else graph.inserting_before
        with insert(anchor):
            ph = graph.placeholder(f"constant_{len(consts)}")
        ph.meta["val"] = node.meta.get("val", value)
        node.replace_all_uses_with(ph)
        graph.erase_node(node)
        placeholders.append(ph)
        consts.append(value)
    # The module's attributes are shared, not copied (its metas hold fake tensors).
    return torch.fx.GraphModule(gm, graph), consts


def compile_fx(gm, example_inputs, **options):
    """Compiles an ATen `GraphModule` (what AOTAutograd gives a backend) for the device of its
    example inputs; returns a callable taking and returning what `gm.forward` does. A graph coil
    cannot compile (an op it lacks, symbolic shapes) runs eagerly with one warning, or raises
    with `strict=True`."""
    _check_options(options)
    strict = bool(options.get("strict", False))
    start = time.perf_counter()
    try:
        device = _device_of(example_inputs)
        lifted, consts = _lift_constants(gm)
        text = _readable(lifted, list(example_inputs) + consts)
        native = {k: str(options[k]) for k in _NATIVE_OPTIONS if k in options}
        model = _native.compile(text, device, native)
    except Exception as e:  # every failure is a fallback to eager, or an error in strict mode
        reason = f"{type(e).__name__ if not isinstance(e, _Unsupported) else 'unsupported'}: {e}"
        if strict:
            raise RuntimeError(f"coil cannot compile this graph ({reason})") from e
        warnings.warn(f"coil: running this graph eagerly: {reason}", stacklevel=2)
        _STATS["graphs_to_eager"].append(reason)
        return gm.forward
    report = model.report()
    _STATS["graphs_compiled"] += 1
    _STATS["compile_s"] += time.perf_counter() - start
    _STATS["fallback_ops"].extend(report["fallback_ops"])
    log.info(
        "coil compiled a graph for %s: %d kernels, %d extern calls, %.3f s",
        device,
        report["kernels"],
        report["extern_calls"],
        report["compile_s"],
    )
    specs = [(_TORCH_DTYPES[d], sizes) for d, sizes in model.output_specs()]

    def run_on_device(args):
        inputs = [a.detach().contiguous() for a in list(args) + consts]
        if any(t.device.type != "cuda" for t in inputs):
            return None
        outs = [torch.empty(sizes, dtype=dt, device=inputs[0].device if inputs else "cuda") for dt, sizes in specs]
        # coil's stream reads the inputs once torch's work on them is done.
        torch.cuda.current_stream().synchronize()
        done = model.run_device(
            [(t.data_ptr(), t.numel() * t.element_size()) for t in inputs],
            [(o.data_ptr(), o.numel() * o.element_size()) for o in outs],
        )
        return outs if done else None

    def run(*args):
        if device == "cuda":
            outs = run_on_device(args)
            if outs is not None:
                return outs
        host = []
        for a in list(args) + consts:
            t = a.detach()
            if t.device.type != "cpu":
                t = t.cpu()
            if not t.is_contiguous():
                log.debug("coil: copying a non-contiguous input (strides %s)", t.stride())
                t = t.contiguous()
            host.append(t)
        outs = [torch.empty(sizes, dtype=dt) for dt, sizes in specs]
        in_place = model.run(
            [(t.data_ptr(), _DTYPES[t.dtype], list(t.shape)) for t in host],
            [o.data_ptr() for o in outs],
        )
        log.debug("coil: %d inputs and %d outputs used in place", *in_place)
        if device != "cpu":
            outs = [o.to(device) for o in outs]
        return outs

    return run
