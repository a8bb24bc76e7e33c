"""The torch.compile backend: Dynamo's graph through AOTAutograd (core-ATen decompositions), the
ATen graph compiled by coil, a callable that runs it; eager with a warning when coil cannot."""

import contextvars
import copy
import logging
import operator
import os
import re
import time
import warnings

import torch

from . import _native
from ._decomp import decompositions, normalize_prims
from ._dynamic import (
    BoundTrace, Specialized, needs_grad, sized_by_values, trace_for_guards, value_reads,
    writes_in_place,
)
from ._complex import lower_complex
from ._heads import group_repeated_heads
from ._scalars import tensorize_scalars
from ._unsigned import SIGNED, lower_unsigned
from ._random import seed_random_ops
from ._fx import (
    TORCH_DTYPES, OutputLayout, Unsupported, describe, dtype_named, input_orders,
)
from ._extern import CURRENT as _EXTERNS_MODE, has_externs, mode_of, split_compile
from . import _trace_cache as trace_cache
from ._runner import (
    _ComplexRunner, _host_scalars_moved, _Runner, _UnsignedRunner, _with_numbers,
)
from ._graphs import Graphed
from ._storage import AliasPlan, alias_plan, output_alias, storage_rewrite
from ._writes import WritingBack, split_writes

log = logging.getLogger("coil")


def _fresh_stats():
    return {
        "graphs_compiled": 0, "graphs_to_eager": [], "fallback_ops": [], "compile_s": 0.0,
        "trace_s": 0.0, "coil_compile_s": 0.0, "cache_hits": 0, "backward_graphs_compiled": 0,
        "outputs_in_place": 0, "kernels": 0, "dynamic_graphs": 0, "specializations": 0,
        "copies_skipped": 0, "bindings_dropped": 0, "aten_extern_calls": 0,
        "trace_cache_hits": 0, "program_cache_hits": 0, "cuda_graphs": 0,
        "cuda_graphs_refused": 0, "kernels_reused": 0, "traces_bound": 0,
    }


_STATS = _fresh_stats()

# The options coil's compiler takes (the others are the backend's own: `strict`).
_NATIVE_OPTIONS = ("strategy", "debug_dir", "emulate_precision_casts", "gemm",
                   "aggressive_fusion", "share_code", "cpu_threads")
_KNOWN_OPTIONS = _NATIVE_OPTIONS + ("strict", "frontend", "logs", "aten_externs", "cudagraphs",
                                    "mode", "group_heads")
# torch.compile's modes: which turn CUDA graphs on (`_graphs`), as Inductor's do.
_MODES = {"default": False, "reduce-overhead": True, "max-autotune": True,
          "max-autotune-no-cudagraphs": False}


def torch_stats():
    """What the backend did since the last `reset_stats()`: `graphs_compiled`, `graphs_to_eager`
    (the reason for each), `fallback_ops` (ops run on the host inside compiled graphs),
    `compile_s` (from the ATen graph to a runner: the rewrites and coil's compile),
    `coil_compile_s` (coil's own compile, within it), `trace_s` (tracing Dynamo's graph to ATen
    before), `cache_hits` (graphs whose machine code all came from the compile cache),
    `program_cache_hits` (graphs whose whole program, every stage before the machine code, came
    from it: coil's passes, lowering and scheduling skipped) and
    `backward_graphs_compiled` (training graphs' backward halves; `graphs_compiled` counts the
    rest), `outputs_in_place` (new values of mutated inputs written straight into them),
    `copies_skipped` (of those, the ones whose starting copy of the input a run leaves out: a
    KV cache's update costs the elements written), `kernels` (generated kernels in the graphs
    compiled), `kernels_reused` (of those, the ones that run machine code an earlier compile made:
    the same graph at another size, on the CPU), `traces_bound` (bindings of a dynamic graph
    compiled from its one symbolic ATen trace, not traced again), `dynamic_graphs` (graphs Dynamo traced
    with symbolic sizes) and `specializations` (the static graphs compiled for them, one per
    binding of their sizes; each counted in `graphs_compiled` too; past `COIL_MAX_BINDINGS`, 64
    by default, the least recently used binding of a graph is dropped: `bindings_dropped`),
    `aten_extern_calls` (ATen's own routines a call of the graphs compiled makes, where
    Inductor calls them too: `_extern`), `trace_cache_hits` (inference graphs whose trace to
    ATen and rewrites came from `_trace_cache`, an earlier process's: no `trace_s` spent),
    `cuda_graphs` (CUDA graphs captured for graphs compiled with `mode="reduce-overhead"` or
    `cudagraphs=True`: `_graphs`) and `cuda_graphs_refused` (captures that failed, leaving
    plain calls)."""
    return copy.deepcopy(_STATS)


def reset_stats():
    """Clears `torch_stats()`."""
    _STATS.update(_fresh_stats())


def _check_options(options):
    unknown = sorted(set(options) - set(_KNOWN_OPTIONS))
    if unknown:
        raise ValueError(
            f"coil: unknown option(s) {', '.join(unknown)} (known: {', '.join(_KNOWN_OPTIONS)})"
        )
    if options.get("mode", "default") not in _MODES:
        raise ValueError(
            f"coil: unknown mode {options['mode']!r} (known: {', '.join(_MODES)})"
        )


def backend(gm, example_inputs, options=None, **kwargs):
    """`torch.compile(model, backend="coil", options={...})`. Options: `strategy` (a fusion
    strategy: inductor, inductor-regpressure, tvm, none), `debug_dir` (coil's stage dumps, and
    the graph's readable text as `graph.py`), `strict` (raise instead of running a graph
    eagerly), `frontend` (`fx`, the default: the FX graph converted directly; `text`: through
    its readable text, as a graph file would be read), `logs` (coil's stages to log to stderr,
    as `COIL_LOGS` spells them: `"passes,fusion"`, `"+sched"` for trace level),
    `emulate_precision_casts` (16-bit floats rounded after every op as eager rounds them, for
    bit-for-bit agreement; by default they stay f32 inside a kernel and round once per store,
    as Inductor's), `gemm` (on CUDA: `lt`, the default, matmuls through cuBLASLt with a plan
    per problem and an addmm's bias in the same call; `classic`, cuBLAS's GEMM calls. On the
    CPU: `eager`, the default, f32 matmuls through PyTorch's own BLAS called as eager calls
    it, so they equal eager's bit for bit as Inductor's extern mm does; `onednn`, `openblas`,
    `gemm`: coil's own libraries, as the CLI runs them), `group_heads` (True by default:
    grouped-query attention's matmuls read each shared key and value head once, `_heads`;
    False keeps the copy per query head the traced graph makes), `aggressive_fusion` (Inductor's knob:
    pointwise kernels of one iteration space fuse even with no data in common; on by default
    for an optimizer step (`_optimizer_graph`), whose per-parameter updates would otherwise be
    a kernel each, as Inductor's foreach kernels group them), `share_code` (True by
    default: on the CPU a compile runs the machine code earlier compiles in the process made
    for kernels of the same code, and kernels whose sizes are inside them run code generalized
    over sizes from the second size on, `coil_cpu::pool`; on CUDA a kernel whose outermost
    range, strides and offsets alone change with the size launches a general kernel from the
    third size on, `coil_cuda::families`; False: every compile makes all of its own),
    `cpu_threads` (on the CPU: `openmp`, the default, kernels launch on PyTorch's OpenMP
    threads, the ones its eager ops and BLAS run on, `coil_cpu::openmp`; `own`, on coil's own
    pool),
    `aten_externs` (which ops
    Inductor leaves to ATen run as ATen's between coil's kernels, their results eager's bit
    for bit: `auto`, the default, the Fourier transforms and `convolution_backward` where coil
    has no library of its own for it; `all` or True, also coil's oneDNN gradients on the CPU;
    `none` or False, coil's own versions, as graph files get them; `COIL_ATEN_EXTERNS` sets the
    default; `_extern`), `cudagraphs` (on CUDA, each compiled graph's calls replayed from a
    captured CUDA graph after two plain ones: `_graphs`; off by default, on with
    torch.compile's `mode="reduce-overhead"` or `"max-autotune"`, as for Inductor).

    An inference graph (grad disabled, or no input requiring it) is traced to core ATen here,
    once, and its compiled callable is what Dynamo calls: no AOTAutograd wrapper runs per call.
    Anything else (training, a graph that mutates or returns its inputs) goes through
    AOTAutograd with Inductor's min-cut partitioner, and coil compiles both halves; a backward
    graph coil cannot compile runs eagerly with a warning (in `graphs_to_eager`), or raises in
    strict mode, as a forward does."""
    options = dict(options or {})
    options.update(kwargs)
    _check_options(options)
    if "cudagraphs" not in options:
        options["cudagraphs"] = _MODES[options.get("mode", "default")]
    options.pop("mode", None)
    if "aggressive_fusion" not in options and _optimizer_graph(gm):
        options["aggressive_fusion"] = True
    # Attention traced as its math (matmuls and a softmax, which coil fuses), not as one of
    # the fused CUDA kernels SDPA would pick on a GPU.
    from torch.nn.attention import SDPBackend, sdpa_kernel

    by_values = bool(value_reads(gm)[0] or sized_by_values(gm))
    if _symbolic(example_inputs) and needs_grad(example_inputs) and not by_values:
        # Training with symbolic sizes: AOTAutograd traces once, symbolically, as for
        # Inductor; each half is compiled per binding of its sizes (`BoundTrace`).
        token = _EXTERNS_MODE.set(mode_of(options))
        try:
            return _symbolic_training(gm, example_inputs, options)
        finally:
            _EXTERNS_MODE.reset(token)
    if _symbolic(example_inputs) or by_values:
        # Symbolic sizes, or sizes an input's values give (`item()`, `nonzero`): one static
        # graph per binding
        # of the symbols, compiled at its first call (`_dynamic`), under the guards Inductor's
        # trace would add.
        aten = None
        if _symbolic(example_inputs):
            trace_start = time.perf_counter()
            with sdpa_kernel([SDPBackend.MATH]):
                aten = trace_for_guards(gm, example_inputs, decompositions())
            aten = aten if aten is not None and _inference_trace(gm, aten) else None
            _STATS["trace_s"] += time.perf_counter() - trace_start
        return Specialized(
            gm, lambda bound, inputs: backend(bound, inputs, dict(options)),
            strict=bool(options.get("strict", False)), stats=_STATS, aten=aten,
            compile_aten=lambda static, inputs: _compile_traced(static, inputs, dict(options)),
        )
    # The decompositions leave whole what ATen will run (`_extern`).
    token = _EXTERNS_MODE.set(mode_of(options))
    try:
        return _traced_and_compiled(gm, example_inputs, options)
    finally:
        _EXTERNS_MODE.reset(token)


def _symbolic_training(gm, example_inputs, options):
    """A training graph with symbolic sizes through AOTAutograd once (its forward and backward
    graphs keep the symbols, partitioned by Inductor's min-cut partitioner), each half compiled
    per binding of its sizes at the binding's first call (`_dynamic.BoundTrace`)."""
    from functools import partial

    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.aot_autograd import make_boxed_func
    from torch._functorch.partitioners import min_cut_rematerialization_partition
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def half(backward):
        def compile_static(static, inputs):
            before = _STATS["graphs_compiled"]
            run = _compile(static, inputs, dict(options), trusted="shapes")
            if backward and _STATS["graphs_compiled"] > before:
                _STATS["graphs_compiled"] = before
                _STATS["backward_graphs_compiled"] += 1
            return run

        def compile_half(aten_gm, aten_inputs):
            strict = bool(options.get("strict", False))
            return make_boxed_func(BoundTrace(aten_gm, compile_static, _STATS, strict))

        return compile_half

    compiler = aot_autograd(
        fw_compiler=half(False),
        bw_compiler=half(True),
        decompositions=decompositions(),
        partition_fn=partial(min_cut_rematerialization_partition, compiler="inductor"),
    )
    _STATS["dynamic_graphs"] += 1
    with sdpa_kernel([SDPBackend.MATH]):
        return compiler(gm, example_inputs)


def _inference_trace(gm, traced):
    """Whether `traced`, `gm` traced to ATen, serves inference calls as it is: `gm` writes no
    attribute and the trace serves inference (`_serves_inference`)."""
    return not _attributes_mutated(gm) and _serves_inference(traced)


def _serves_inference(traced):
    """Whether an ATen trace serves inference calls as it is: it writes no input back and
    returns no view of an input (AOTAutograd's wrappers handle those). Its dead code goes."""
    traced.graph.eliminate_dead_code()
    traced.recompile()
    for node in traced.graph.nodes:
        target = node.target
        if isinstance(target, torch._ops.OpOverload) and target._schema.is_mutable:
            return False  # an input written back (copy_): AOTAutograd's epilogue does it
    alias = output_alias(traced)
    if alias is not None:
        # A returned view must stay one (a later in-place write shows through it):
        # AOTAutograd's runtime regenerates such outputs from their bases.
        log.debug("coil: %s; using AOTAutograd", alias)
        return False
    return True


def _compile_traced(traced, example_inputs, options):
    """`backend`'s static path for a graph already traced to ATen (a binding of a symbolic
    trace): compiled for inference."""
    token = _EXTERNS_MODE.set(mode_of(options))
    try:
        return _compile(traced, list(example_inputs), options, True)
    finally:
        _EXTERNS_MODE.reset(token)


def _traced_and_compiled(gm, example_inputs, options):
    """`backend` of a static graph: traced for inference and compiled, or through
    AOTAutograd."""
    from torch._dynamo.backends.common import aot_autograd
    from torch.nn.attention import SDPBackend, sdpa_kernel

    # An inference graph traced and rewritten in an earlier process (`_trace_cache`): no trace.
    # (Only such a graph is ever stored: the others skip the key and the disk.)
    cached = not options.get("debug_dir") and _inference_candidate(gm, example_inputs)
    cache_key = trace_cache.key(gm, example_inputs, options) if cached else None
    entry = trace_cache.load(cache_key)
    if entry is not None:
        _STATS["trace_cache_hits"] += 1
        token = _TRACED.set((None, entry))
        try:
            return _compile(gm, list(example_inputs), options, True)
        finally:
            _TRACED.reset(token)
    with sdpa_kernel([SDPBackend.MATH]):
        trace_start = time.perf_counter()
        traced = _inference_graph(gm, example_inputs, decompositions())
        _STATS["trace_s"] += time.perf_counter() - trace_start
        if traced is not None:
            token = _TRACED.set((cache_key, None))
            try:
                return _compile(traced, list(example_inputs), options, True)
            finally:
                _TRACED.reset(token)

        from functools import partial

        from torch._functorch.aot_autograd import make_boxed_func
        from torch._functorch.partitioners import min_cut_rematerialization_partition

        def forward(aten_gm, aten_inputs):
            # Which outputs are new values of inputs: for this forward graph only (a backward
            # graph's outputs are gradients). Inputs the graph writes itself (`copy_` nodes,
            # `keep_inference_input_mutations`) become such outputs too, written back by the
            # call rather than by AOTAutograd's epilogue.
            mutated = _mutated_outputs()
            split = split_writes(aten_gm)
            if split is not None:
                aten_gm, writes = split[0], split[1]
                mutated = {**mutated, **dict(writes)}
            token = _MUTATED.set(mutated)
            try:
                # AOTAutograd's calls: shapes and dtypes held by the guards (layouts checked).
                run = _compile(aten_gm, aten_inputs, options, trusted="shapes")
            finally:
                _MUTATED.reset(token)
            return make_boxed_func(run) if split is None else WritingBack(run, split)

        def backward(aten_gm, aten_inputs):
            before = _STATS["graphs_compiled"]
            run = _compile(aten_gm, aten_inputs, options, trusted="shapes")
            if _STATS["graphs_compiled"] > before:
                _STATS["graphs_compiled"] = before
                _STATS["backward_graphs_compiled"] += 1
            return make_boxed_func(run)

        compiler = aot_autograd(
            fw_compiler=forward,
            bw_compiler=backward,
            decompositions=decompositions(),
            # Inductor's partitioner: cheap (fusible) ops recomputed in the backward rather
            # than saved.
            partition_fn=partial(min_cut_rematerialization_partition, compiler="inductor"),
            # On the CPU, inputs written in place (an optimizer's state, a KV cache, batch
            # norm's running statistics) stay in the graph as `copy_` nodes, as Inductor asks:
            # no epilogue copying each back per call (`_writes`; gpt2's AdamW step 0.43 ->
            # 0.26 ms). On the GPU AOTAutograd's epilogue measured faster (a gpt2 training
            # step on an H100 3.9-4.2 ms against 4.7-4.8, cause not found): it stays there.
            keep_inference_input_mutations=_all_on_cpu(example_inputs),
        )
        return compiler(gm, example_inputs)


def _all_on_cpu(example_inputs):
    """Whether every tensor among `example_inputs` is on the CPU."""
    return all(t.device.type == "cpu" for t in example_inputs if isinstance(t, torch.Tensor))


def _optimizer_graph(gm):
    """Whether Dynamo's graph is an optimizer step: it calls `_foreach_*` ops, or its ops were
    traced from `torch.optim`'s code (the for-loop form, the default on the CPU)."""
    for n in gm.graph.nodes:
        if n.op != "call_function":
            continue
        if "_foreach_" in str(n.target):
            return True
        trace = n.meta.get("stack_trace") or ""
        if "/torch/optim/" in trace.replace("\\", "/"):
            return True
    return False


def _symbolic(example_inputs):
    """Whether Dynamo traced with symbolic sizes (SymInt inputs, or tensors of symbolic shape)."""
    for a in example_inputs:
        if isinstance(a, (torch.SymInt, torch.SymFloat)):
            return True
        if isinstance(a, torch.Tensor) and any(not isinstance(s, int) for s in a.shape):
            return True
    return False


def _inference_graph(gm, example_inputs, decompositions):
    """Dynamo's graph functionalized and decomposed to core ATen (as AOTAutograd would trace
    it), when it is an inference graph that neither mutates nor returns an input; else `None`
    (AOTAutograd's wrappers then handle what the graph does)."""
    if not _inference_candidate(gm, example_inputs):
        return None
    from torch._guards import detect_fake_mode
    from torch.fx.experimental.proxy_tensor import make_fx

    fake_mode = detect_fake_mode(example_inputs)
    try:
        fn = torch.func.functionalize(gm, remove="mutations")
        if fake_mode is not None:
            fakes = [fake_mode.from_tensor(t) for t in example_inputs]
            with fake_mode:
                traced = make_fx(fn, decomposition_table=decompositions)(*fakes)
        else:
            traced = make_fx(fn, decomposition_table=decompositions, tracing_mode="fake")(
                *example_inputs
            )
    except Exception as e:  # AOTAutograd traces it, or says why it cannot
        log.debug("coil: tracing for inference failed (%s); using AOTAutograd", e)
        return None
    return traced if _serves_inference(traced) else None


def _inference_candidate(gm, example_inputs):
    """Whether `_inference_graph` may trace `gm` (what it can tell before tracing): tensor
    inputs only, none requiring grad while grad is on, no module attribute written in place."""
    tensors = [t for t in example_inputs if isinstance(t, torch.Tensor)]
    if len(tensors) != len(example_inputs):
        return False  # symbolic sizes: AOTAutograd says why it cannot go on
    if needs_grad(tensors):
        return False
    # Tracing would run the in-place ops on the module's real tensors (an optimizer's state,
    # which Dynamo keeps as attributes); AOTAutograd lifts them to inputs first.
    return not _attributes_mutated(gm)


def _attributes_mutated(gm):
    """Whether `gm` holds tensor attributes (`get_attr`) and writes any tensor in place: an
    in-place method or function (`mul_`, `torch._foreach_add_`), a mutable ATen overload, or
    an `out=` argument."""
    nodes = list(gm.graph.nodes)
    return any(n.op == "get_attr" for n in nodes) and any(writes_in_place(n) for n in nodes)


def _device_of(example_inputs):
    """The device the graph runs on, and the positions of 0-d CPU tensors among inputs on
    another device (scalars to Inductor, as `cache_position` or a step count can be: copied to
    the device at each call)."""
    tensors = [(i, t) for i, t in enumerate(example_inputs) if isinstance(t, torch.Tensor)]
    devices = {t.device for _, t in tensors}
    host_scalars = []
    if len(devices) > 1:
        host_scalars = [i for i, t in tensors if t.device.type == "cpu" and t.dim() == 0]
        devices = {t.device for i, t in tensors if i not in host_scalars}
    if len(devices) > 1:
        raise Unsupported(f"inputs on several devices ({', '.join(sorted(map(str, devices)))})")
    device = devices.pop() if devices else torch.device("cpu")
    if device.type not in ("cpu", "cuda"):
        raise Unsupported(f"inputs on {device.type}")
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    return device, host_scalars


def readable(gm):
    """`gm`'s readable-FX text as coil's graph files have it."""
    text = gm.print_readable(print_output=False)
    # The class is `<lambda>` for AOTAutograd's graphs; coil reads `GraphModule`.
    return re.sub(r"^class [^(]*\(", "class GraphModule(", text, count=1)


def lift_constants(gm, fresh=True):
    """A copy of `gm` whose tensor attributes (`get_attr` nodes: constants AOTAutograd keeps,
    such as a mask's fill value) are trailing placeholders instead, and those tensors. With
    `fresh=False`, `gm` itself when it has no such attribute (rebuilding a `GraphModule`
    generates its Python code again: tens of milliseconds for a training graph)."""
    if not fresh and not any(n.op == "get_attr" for n in gm.graph.nodes):
        return gm, []
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
            raise Unsupported(f"attribute {node.target} is a {type(value).__name__}")
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


def _source(gm, inputs, options):
    """What coil compiles (the FX description, or the text) and the output layouts."""
    frontend = options.get("frontend", "fx")
    if frontend not in ("fx", "text"):
        raise ValueError(f"coil: frontend is fx or text, not {frontend!r}")
    desc, layouts = describe(gm, inputs, eager_strides=frontend == "fx",
                             dense_inputs=frontend == "fx")
    debug_dir = options.get("debug_dir")
    if debug_dir:
        os.makedirs(debug_dir, exist_ok=True)
        with open(os.path.join(str(debug_dir), "graph.py"), "w") as f:
            f.write(readable(gm))
    return (desc if frontend == "fx" else readable(gm)), layouts


def compile_fx(gm, example_inputs, **options):
    """Compiles an ATen `GraphModule` (what AOTAutograd gives a backend) for the device of its
    example inputs; returns a callable taking and returning what `gm.forward` does (each call's
    inputs checked against the example inputs' shapes and dtypes). An op coil lacks runs through
    ATen between the graph's compiled segments (`_lacked_op`), anything else coil cannot
    compile runs the graph eagerly, each with one warning, or raises with `strict=True`."""
    return _compile(gm, example_inputs, options, trusted=False)


def _mutated_outputs():
    """For the forward graph AOTAutograd is compiling: `{output: input}` for each input the
    graph mutates (its data only), whose new value is that output (AOTAutograd's outputs begin
    with them, then copies each into its input after the call). Empty when AOTAutograd says
    nothing (no tracing context)."""
    from torch._guards import TracingContext

    ctx = TracingContext.try_get()
    meta = getattr(ctx, "fw_metadata", None)
    indices = getattr(meta, "mutated_inp_runtime_indices", None)
    if meta is None or indices is None or getattr(meta, "num_intermediate_bases", 0):
        return {}
    pairs = {}
    for k, i in enumerate(indices):
        info = meta.input_info[i] if i < len(meta.input_info) else None
        if info is not None and info.mutates_data and not info.mutates_metadata:
            pairs[k] = i
    return pairs


# Whether outputs may be written into the inputs they update on the GPU too (on by default
# since it was run on an H100 on 2026-12-06: decoding with a static cache gives eager's tokens
# with the cache updates written in place; `COIL_GPU_IN_PLACE=0` turns it off: the outputs then
# take fresh memory and AOTAutograd copies them back).
_GPU_IN_PLACE = os.environ.get("COIL_GPU_IN_PLACE", "1") == "1"

# `{output: input}` (from `_mutated_outputs`) while AOTAutograd's forward graph compiles:
# outputs that are new values of inputs, which `_compile` writes straight into the input's
# memory where the plan allows (`Model.output_may_alias_input`), so that AOTAutograd's
# write-back copies nothing.
_MUTATED = contextvars.ContextVar("coil_mutated", default=None)


# `(cache key, entry)` for the `_compile` call under way (`_traced_and_compiled`): the entry
# `_prepare` gave for its graph in an earlier process (`_trace_cache`), or the key to store
# what `_prepare` gives now. (A context variable, not arguments: `_compile(gm, example_inputs,
# options, trusted)` is what tools that watch the backend wrap.)
_TRACED = contextvars.ContextVar("coil_traced", default=(None, None))


def _compile(gm, example_inputs, options, trusted):
    """`compile_fx`; `trusted` when Dynamo's guards already hold each input's shape, dtype,
    strides and device to the example inputs' (the call then checks nothing itself),
    `"shapes"` when they hold the shapes, dtypes and device but not the layouts (AOTAutograd's
    calls: each input's layout is checked)."""
    cache_key, entry = _TRACED.get()
    token = _TRACED.set((None, None))  # not for the graphs `_split` compiles within
    try:
        return _compile_entry(gm, example_inputs, options, trusted, cache_key, entry)
    finally:
        _TRACED.reset(token)


def _compile_entry(gm, example_inputs, options, trusted, cache_key, entry):
    """`_compile`, from an `entry` of the trace cache when given, else storing what `_prepare`
    gives under `cache_key` (when given)."""
    _check_options(options)
    mode = mode_of(options)
    if entry is None and has_externs(gm, mode):
        return _split(gm, example_inputs, options, trusted, mode)
    mutated = _MUTATED.get()
    if "logs" in options:
        _native.set_logs(str(options["logs"]))
    strict = bool(options.get("strict", False))
    start = time.perf_counter()
    try:
        device, host_scalars = _device_of(example_inputs)
        fresh = entry is None
        if fresh:
            entry = _prepare(gm, example_inputs, options, device)
        native = {k: str(options[k]) for k in _NATIVE_OPTIONS if k in options}
        if torch.are_deterministic_algorithms_enabled():
            # Scatters that add run on the host, in order (Dynamo recompiles when the mode
            # changes: its global-state guard holds it).
            native["deterministic"] = "True"
        native_start = time.perf_counter()
        model = _native.compile(entry["source"], device.type, native)
        _STATS["coil_compile_s"] += time.perf_counter() - native_start
        # Kept only once it compiled: a graph that fails (an op coil lacks) is traced again
        # next time, so that it can be split at that op (`_lacked_op`).
        if fresh and cache_key is not None and _storable(entry):
            trace_cache.store(cache_key, entry)
    except Exception as e:  # every failure is a fallback to eager, or an error in strict mode
        reason = f"{type(e).__name__ if not isinstance(e, Unsupported) else 'unsupported'}: {e}"
        if strict:
            raise RuntimeError(f"coil cannot compile this graph ({reason})") from e
        lacked = _lacked_op(e, gm)
        if lacked is not None:
            # As Inductor's implicit fallbacks: that op alone runs through ATen, between coil's
            # compiled segments (each of which may split again at another op it lacks).
            warnings.warn(f"coil: {lacked} runs through ATen, the rest of the graph compiled "
                          f"({reason})", stacklevel=2)
            _STATS["fallback_ops"].append(lacked)
            return _split(gm, example_inputs, options, trusted, mode, frozenset({lacked}))
        warnings.warn(f"coil: running this graph eagerly: {reason}", stacklevel=2)
        _STATS["graphs_to_eager"].append(reason)
        return gm.forward
    report = model.report()
    _STATS["graphs_compiled"] += 1
    _STATS["compile_s"] += time.perf_counter() - start
    _STATS["fallback_ops"].extend(report["fallback_ops"])
    _STATS["cache_hits"] += int(report.get("cache") == "hit")
    _STATS["program_cache_hits"] += int(report.get("program_cache") == "hit")
    _STATS["kernels"] += report["kernels"]
    _STATS["kernels_reused"] += report.get("kernels_reused", 0)
    log.info(
        "coil compiled a graph for %s: %d kernels, %d extern calls, %.3f s",
        device,
        report["kernels"],
        report["extern_calls"],
        report["compile_s"],
    )
    graphs = bool(options.get("cudagraphs", False))
    return _runner(model, entry, example_inputs, device, host_scalars, mutated, trusted, graphs)


def _prepare(gm, example_inputs, options, device):
    """The ATen graph rewritten for coil (constants lifted, numbers, unsigned and complex values
    and random ops rewritten, storage and aliasing planned) and described: the entry
    `_trace_cache` keeps, plain data and tensors only."""
    lifted, consts = lift_constants(gm)
    normalize_prims(lifted)
    if options.get("group_heads", True):
        group_repeated_heads(lifted)
    numbers = _number_outputs(lifted)
    tensorize_scalars(lifted)
    unsigned_in, unsigned_out = lower_unsigned(lifted)
    complex_in, complex_out = lower_complex(lifted, device)
    # The DFT matrices of `_fft` (`lifted` is this compile's own copy already).
    lifted, transform_consts = lift_constants(lifted, fresh=False)
    inputs = _converted(example_inputs, consts, complex_in, unsigned_in) + transform_consts
    seeded = seed_random_ops(lifted)
    if seeded:
        inputs.append(torch.zeros((), dtype=torch.int64))
    storage_rewrite(lifted, inputs)
    plan = alias_plan(lifted, eager_strides=options.get("frontend", "fx") == "fx")
    source, layouts = _source(lifted, inputs, options)
    orders = input_orders(inputs) if options.get("frontend", "fx") == "fx" else []
    return {
        # Inputs read as the permutation of their memory (`describe`): the runner passes them
        # uncopied where their layout is the example's.
        "input_orders": [[i, o] for i, o in enumerate(orders) if o is not None],
        "source": source,
        "layouts": [None if lay is None else (str(lay.dtype), lay.sizes, lay.strides, lay.order)
                    for lay in layouts],
        "consts": inputs[len(example_inputs):len(inputs) - int(seeded)],
        "complex_in": sorted(complex_in),
        "complex_out": [(i, str(d)) for i, d in complex_out],
        "unsigned_in": sorted(unsigned_in),
        "unsigned_out": [(i, str(d)) for i, d in unsigned_out],
        "seeded": seeded,
        "numbers": numbers,
        "alias": plan.entries,
        "out_dtypes": _output_dtypes(lifted),
        "returned_inputs": _returned_inputs(lifted),
    }


def _returned_inputs(gm):
    """`[[output, input], ...]` for the outputs the graph returns as one of its inputs itself
    (the placeholder, not a copy of it): only those may be handed back as the input's own
    tensor. A `clone` of an input is a new tensor (SGD's first momentum buffer), even where
    coil's passes make it the input's buffer."""
    placeholders = {n: i for i, n in enumerate(n for n in gm.graph.nodes if n.op == "placeholder")}
    out = next(n for n in gm.graph.nodes if n.op == "output")
    (result,) = out.args
    if not isinstance(result, (list, tuple)):
        result = [result]
    return [[k, placeholders[n]] for k, n in enumerate(result)
            if isinstance(n, torch.fx.Node) and n in placeholders]


def _storable(entry):
    """Whether an entry can be kept: its constants real tensors (AOTAutograd's graphs, compiled
    under a fake mode, are not cached)."""
    from torch._subclasses.fake_tensor import FakeTensor

    return not any(isinstance(c, FakeTensor) for c in entry["consts"])


def _converted(example_inputs, consts, complex_in, unsigned_in):
    """The inputs as coil's graph takes them: complex ones as their real views, unsigned ones
    as their signed bits."""
    return [
        torch.view_as_real(t) if i in complex_in
        else t.view(SIGNED[t.dtype]) if i in unsigned_in else t
        for i, t in enumerate(list(example_inputs) + list(consts))
    ]


def _runner(model, entry, example_inputs, device, host_scalars, mutated, trusted, graphs=False):
    """What Dynamo calls: the compiled model's `_Runner`, inside the wrappers that undo the
    graph's rewrites."""
    complex_in, complex_out = entry["complex_in"], entry["complex_out"]
    unsigned_in, unsigned_out = entry["unsigned_in"], entry["unsigned_out"]
    complex_out = [(i, dtype_named(d)) for i, d in complex_out]
    unsigned_out = [(i, dtype_named(d)) for i, d in unsigned_out]
    seeded, numbers = entry["seeded"], entry["numbers"]
    plan = AliasPlan(entry["alias"])
    inputs = _converted(example_inputs, [], set(complex_in), set(unsigned_in)) + list(
        entry["consts"])
    consts = inputs[len(example_inputs):]
    if seeded:
        inputs.append(torch.zeros((), dtype=torch.int64))
    layouts = [None if d is None else OutputLayout(dtype_named(d[0]), d[1], d[2], d[3])
               for d in entry["layouts"]]
    alias = {}
    if not numbers and plan.trivial and (device.type == "cpu" or _GPU_IN_PLACE):
        alias = _input_memory_outputs(
            model, mutated or {}, set(complex_in) | set(unsigned_in), device.type == "cuda",
            dict(entry.get("returned_inputs", [])),
        )
        _STATS["outputs_in_place"] += sum((mutated or {}).get(k) == i for k, i in alias.items())
        _STATS["copies_skipped"] += sum(model.skips_copy_into(k, i) for k, i in alias.items())
    runner = _Runner(model, device, inputs, consts, layouts, trusted, seeded, alias,
                     dict((i, o) for i, o in entry.get("input_orders", [])))
    if graphs and runner.cuda:
        if not seeded:
            runner = Graphed(runner, _STATS)
        else:
            log.info("coil: no CUDA graph for a graph with random ops (a seed drawn each call)")
    casts = _output_casts(entry["out_dtypes"], model)
    if casts:
        inner = runner
        runner = lambda *args: [  # noqa: E731
            o.to(casts[k]) if k in casts else o for k, o in enumerate(inner(*args))
        ]
    # The wrappers in the order the graph's rewrites were made, undone outward: the alias plan
    # (on the real outputs), complex outputs, then the number outputs put back.
    if not plan.trivial:
        base = runner
        runner = lambda *args: plan.apply(base(*args))  # noqa: E731
    if complex_in or complex_out:
        runner = _ComplexRunner(runner, complex_in, complex_out)
    if unsigned_in or unsigned_out:
        runner = _UnsignedRunner(runner, unsigned_in, unsigned_out)
    if numbers:
        runner = _with_numbers(runner, numbers)
    if host_scalars:
        runner = _host_scalars_moved(
            runner, device, host_scalars, set((mutated or {}).values())
        )
    return runner


_LACKED = re.compile(r"unsupported op:? ([\w.]+)")


def _lacked_op(error, gm):
    """The operator an error says coil lacks (`unsupported op aten.histc.default`), when `gm`
    calls it as a node of its own that ATen can run (an operator overload); else None."""
    m = _LACKED.search(str(error))
    if m is None:
        return None
    name = m.group(1)
    calls = any(n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)
                and str(n.target) == name for n in gm.graph.nodes)
    return name if calls else None


def _split(gm, example_inputs, options, trusted, mode, lacking=frozenset()):
    """`_compile` of a graph holding ops Inductor leaves to ATen (or ops coil lacks,
    `lacking`): split at them (`_extern`), each segment compiled (or run eagerly, as a graph
    would) and counted as one graph."""
    before, to_eager = _STATS["graphs_compiled"], len(_STATS["graphs_to_eager"])
    # Which outputs are new values of inputs is said of the whole graph, not of a segment.
    token = _MUTATED.set(None)
    try:
        run, externs = split_compile(
            gm, example_inputs,
            lambda sub, inputs, sub_trusted: _compile(sub, inputs, options, sub_trusted),
            trusted, mode, lacking,
        )
    finally:
        _MUTATED.reset(token)
    _STATS["graphs_compiled"] = before + int(len(_STATS["graphs_to_eager"]) == to_eager)
    _STATS["aten_extern_calls"] += externs
    return run


def _input_memory_outputs(model, mutated, rewritten, on_gpu, returned):
    """`{output: input}` for the outputs that can be their input's own memory: a mutated
    input's new value where the plan allows writing it in place (`Model.output_may_alias_input`;
    on the GPU, whose kernels read inputs through the read-only cache, `ld.global.nc`, also no
    kernel that runs may both read the input and write it: `output_may_alias_input_on_device`),
    and an input the graph returns itself (`returned`, `_returned_inputs`: the weights a training
    forward returns for the backward; not a copy of it) and coil's plan whole
    (`Model.output_input`), unless the graph mutates it (then the output is the value from
    before the write-back). Inputs the graph's rewrites view otherwise (`rewritten`: complex,
    unsigned) take no part."""
    allowed = model.output_may_alias_input_on_device if on_gpu else model.output_may_alias_input
    alias = {k: i for k, i in mutated.items() if i not in rewritten and allowed(k, i)}
    written = set(mutated.values())
    for k in range(len(model.output_specs())):
        j = model.output_input(k)
        if (j is not None and returned.get(k) == j and j not in written and k not in alias
                and j not in rewritten):
            alias[k] = j
    return alias


def _output_dtypes(gm):
    """The dtype the graph's metadata gives each output (its name; `None` where none)."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    (result,) = out.args
    if not isinstance(result, (list, tuple)):
        result = [result]
    dtypes = []
    for node in result:
        val = getattr(node, "meta", {}).get("val")
        dtypes.append(str(val.dtype) if isinstance(val, torch.Tensor) else None)
    return dtypes


def _output_casts(out_dtypes, model):
    """`{output: dtype}` where the graph's metadata (`_output_dtypes`) gives an output another
    floating dtype than coil's inference does: a rule that depends on the device, such as
    `native_layer_norm`'s mean and rstd, in the input's dtype on the CPU (PyTorch's
    reference rounds them there) but in float32 on CUDA, coil's rule. The later graphs
    (AOTAutograd's backward) are compiled for the metadata's dtype, so the output is rounded
    to it."""
    specs = model.output_specs()
    if len(specs) != len(out_dtypes):
        return {}
    casts = {}
    for k, (name, (dt, _)) in enumerate(zip(out_dtypes, specs)):
        want = dtype_named(name) if name is not None else None
        have = TORCH_DTYPES.get(dt)
        if want is not None and have is not None and want != have:
            if want.is_floating_point and have.is_floating_point:
                casts[k] = want
    return casts


def _number_outputs(gm):
    """Takes the graph's outputs that are numbers (a static size Dynamo returns, say) out of
    it; returns `(position, value)` of each, for `_with_numbers` to put back."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    (result,) = out.args
    if not isinstance(result, (list, tuple)):
        return []
    # (None: a backward graph's gradient of an input that needs none.)
    numbers = [
        (i, r) for i, r in enumerate(result) if r is None or isinstance(r, (int, float, bool))
    ]
    if numbers:
        out.args = (type(result)(
            r for r in result if not (r is None or isinstance(r, (int, float, bool)))
        ),)
        gm.recompile()
    return numbers
