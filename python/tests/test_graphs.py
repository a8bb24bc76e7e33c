"""CUDA graphs around coil's calls (`_graphs`, `mode="reduce-overhead"`): replays give eager's
results when an input moves every call (copied in), when one that stayed put moves (captured
again), and when the graph updates an input in place; outputs handed back are not overwritten
by the next replay."""

import pytest
import torch

import coil

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


@CUDA
def test_replays_follow_moving_inputs_and_in_place_updates():
    def step(w, cache, x):
        y = torch.relu(x @ w) + 1.0
        cache.add_(y.sum(0))
        return y * 2.0

    torch._dynamo.reset()
    coil.reset_stats()
    f = torch.compile(step, backend="coil", options={"cudagraphs": True, "strict": True})
    w = torch.randn(16, 8, device="cuda")
    cache, want_cache = torch.zeros(8, device="cuda"), torch.zeros(8, device="cuda")
    held = []
    for k in range(8):
        if k == 5:
            w = w.clone()  # a weight that stayed put moves: captured again
        x = torch.randn(4, 16, device="cuda")  # a new address every call
        got = f(w, cache, x)
        want = step(w, want_cache, x)
        held.append((got, want))
        torch.testing.assert_close(cache, want_cache)
    for got, want in held:  # earlier outputs untouched by later replays
        torch.testing.assert_close(got, want)
    stats = coil.torch_stats()
    assert stats["cuda_graphs"] == 2 and stats["cuda_graphs_refused"] == 0, stats


def test_a_refused_capture_leaves_plain_calls_that_read_their_checks(monkeypatch):
    """A capture that fails (here: no CUDA graph can be made) warns once, counts a refusal, and
    every later call is the plain runner's with its index checks read again (not deferred)."""
    import coil._graphs as g

    class Runner:
        defer_checks = False
        model = None

        def __init__(self):
            self.calls = []

        def __call__(self, *args):
            self.calls.append(self.defer_checks)
            return [args[0] + 1]

    class Model:
        def check_deferred(self, stream):
            pass

    class NoGraph:
        def __init__(self):
            raise RuntimeError("no graphs here")

    class Stream:
        cuda_stream = 0

    monkeypatch.setattr(g, "_capture_stream", lambda: Stream())
    monkeypatch.setattr(g.Graphed, "_on_capture_stream", lambda self, run: run())
    monkeypatch.setattr(g.torch.cuda, "CUDAGraph", NoGraph)
    runner = Runner()
    runner.model = Model()
    stats = {"cuda_graphs": 0, "cuda_graphs_refused": 0}
    graphed = g.Graphed(runner, stats)
    x = torch.zeros(3)
    with pytest.warns(UserWarning, match="cannot be captured"):
        for _ in range(g.WARMUP + 1):
            assert torch.equal(graphed(x)[0], x + 1)
    for _ in range(3):
        assert torch.equal(graphed(x)[0], x + 1)
    assert stats == {"cuda_graphs": 0, "cuda_graphs_refused": 1}
    # Deferred during the warm-up (checks read by the wrapper), the runner's own afterwards.
    assert runner.calls[: g.WARMUP] == [True] * g.WARMUP
    assert runner.calls[g.WARMUP:] == [False] * (len(runner.calls) - g.WARMUP)
