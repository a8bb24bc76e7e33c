"""CUDA graphs around coil's calls (`_graphs`, `mode="reduce-overhead"`): replays give eager's
results when an input moves every call (copied in), when one that stayed put moves (captured
again), and when the graph updates an input in place; outputs handed back are not overwritten
by the next replay."""

import pytest
import torch

import coil

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


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
