"""CUDA graphs around a compiled graph's calls (`torch.compile(model, backend="coil",
mode="reduce-overhead")`, or the option `cudagraphs=True`), as Inductor's cudagraph trees do
for its own kernels: a decode step of a language model is hundreds of small launches, and
replaying them as one graph takes the host's per-launch work out of every call.

`Graphed` wraps a CUDA `_Runner`. Its first `WARMUP` calls are plain: coil's kernels autotune
at their first launch and the libraries set up their workspaces, and the calls show which
inputs live at a new address every call (token ids, positions) and which stay put (parameters,
a static KV cache). The next call is captured into a `torch.cuda.CUDAGraph` (coil's launches
go to torch's current stream, which the capture records), reading the inputs that stay put in
place and the moving ones from copies the graph owns. Every later call copies the moving inputs
into those copies, replays the graph, and hands back copies of its outputs (an output written
into an input's memory is that input, as without graphs), so nothing a caller holds is
overwritten by the next replay. A call whose unmoving input has moved captures again, with that
input copied from then on; after `MAX_CAPTURES` captures the graph stays plain. A capture that
fails (a graph that reads the device back mid-call, a host fallback, a library that refuses
capture) leaves the calls plain, with one warning.

The kernels' index checks are read after each replay (`Model.check_deferred`: a wait for the
replay, where a plain call waits too when it has checks). A replay checks the addresses of the
inputs read in place and nothing else: Dynamo's guards
hold every input's sizes, strides and dtype, as for Inductor's graphs. An input the plain call
would make contiguous (or copy to 16-byte alignment) is copied inside the graph, from the
address it was captured at. The default stays graph-free: a graph holds its outputs' memory
and its copies of the moving inputs.
"""

import logging
import warnings

import torch

log = logging.getLogger("coil")

# Plain calls before the capture (autotuning, library set-up, which inputs move).
WARMUP = 2
# Captures of one graph (each after an input that stayed put moved); then plain calls.
MAX_CAPTURES = 4


_STREAMS = {}


def _capture_stream():
    """One capture stream per device, shared by every graph: coil's work moves once."""
    device = torch.cuda.current_device()
    if device not in _STREAMS:
        _STREAMS[device] = torch.cuda.Stream(device)
    return _STREAMS[device]


class Graphed:
    """A CUDA `_Runner`'s calls replayed from a captured CUDA graph (see the module)."""

    def __init__(self, runner, stats):
        self.runner = runner
        runner.defer_checks = True
        self.stats = stats
        self.calls = 0
        self.last = None  # the inputs' addresses at the last warm-up call
        self.moving = set()  # inputs seen at more than one address
        self.graph = None
        self.captures = 0
        self.off = False
        # The stream the captures record: the calls before a capture run on it too, so that
        # coil's work (and its libraries' handles) has moved to it before the capture begins
        # (moving synchronizes the stream left, which a capture forbids).
        self.stream = _capture_stream()

    def __call__(self, *args):
        if self.off:
            return self.runner(*args)
        if self.graph is not None:
            if tuple(args[i].data_ptr() for i in self.direct) == self.direct_ptrs:
                return self._replay(args)
            self.moving.update(
                i for i, p in zip(self.direct, self.direct_ptrs) if args[i].data_ptr() != p
            )
            self.graph = None
            # A plain call first, on the capture stream, to move coil's work back to it.
            self.last = None
            self.calls = WARMUP - 1
        ptrs = [a.data_ptr() for a in args]
        if self.calls < WARMUP:
            if self.last is not None:
                self.moving.update(i for i, (p, q) in enumerate(zip(ptrs, self.last)) if p != q)
            self.last = ptrs
            self.calls += 1
            out = self._on_capture_stream(lambda: self.runner(*args))
            self.runner.model.check_deferred(self.stream.cuda_stream)
            return out
        if self.captures >= MAX_CAPTURES:
            self._plain()
            log.info("coil: %d CUDA graph captures of one graph: its calls stay plain", MAX_CAPTURES)
            return self.runner(*args)
        return self._capture(args, ptrs)

    def _capture(self, args, ptrs):
        self.captures += 1
        # The moving inputs' copies, allocated outside the graph (they outlive it).
        staged = {i: args[i].clone() for i in sorted(self.moving)}
        call = [staged.get(i, a) for i, a in enumerate(args)]
        try:
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, stream=self.stream):
                outs = list(self.runner(*call))
        except Exception as e:  # any capture failure leaves plain calls
            self._plain()
            warnings.warn(
                f"coil: this graph's calls cannot be captured in a CUDA graph ({e}); they stay "
                "plain",
                stacklevel=2,
            )
            self.stats["cuda_graphs_refused"] += 1
            return self.runner(*args)
        # Where each output lives: an input's memory (written in place) or the graph's pool.
        self.out_from = [_input_of(o, call) for o in outs]
        self.graph, self.staged, self.outs = graph, staged, outs
        self.direct = [i for i in range(len(args)) if i not in staged]
        self.direct_ptrs = tuple(ptrs[i] for i in self.direct)
        self.stats["cuda_graphs"] += 1
        log.info(
            "coil: captured a CUDA graph (%d inputs read in place, %d copied in each call)",
            len(self.direct),
            len(staged),
        )
        return self._replay(args)

    def _plain(self):
        """Plain calls from now on, which read their index checks themselves again."""
        self.off = True
        self.graph = None
        self.runner.defer_checks = False

    def _on_capture_stream(self, run):
        """`run()` on the capture stream, ordered after the work queued on the current one,
        and the current one after it."""
        current = torch.cuda.current_stream()
        self.stream.wait_stream(current)
        with torch.cuda.stream(self.stream):
            out = run()
        current.wait_stream(self.stream)
        return out

    def _replay(self, args):
        for i, s in self.staged.items():
            s.copy_(args[i])
        self._on_capture_stream(self.graph.replay)
        # The kernels' index checks, read once the replay is done (a wait: decoding waits for
        # each token anyway); an index out of range is the plain call's error.
        self.runner.model.check_deferred(self.stream.cuda_stream)
        result = []
        for o, src in zip(self.outs, self.out_from):
            if src is None:
                result.append(o.clone())
            elif src in self.staged:
                args[src].copy_(self.staged[src])
                result.append(args[src])
            else:
                result.append(args[src])
        return result


def _input_of(out, inputs):
    """The input whose memory `out` is, whole (same address, sizes and strides), or `None`."""
    for i, a in enumerate(inputs):
        if (
            isinstance(a, torch.Tensor)
            and a.data_ptr() == out.data_ptr()
            and a.shape == out.shape
            and a.stride() == out.stride()
            and a.dtype == out.dtype
        ):
            return i
    return None
