"""`torch.use_deterministic_algorithms(True)`: the scatters that add (`scatter_add`, `index_put`
with `accumulate`, what `embedding`'s backward and many gradients are made of) run on the host
in order, as Inductor falls back to ATen's kernels in that mode, so repeated calls give the same
bits; outside the mode they are kernels of atomic adds."""

import warnings

import pytest
import torch

import coil


@pytest.fixture(autouse=True)
def fresh():
    torch.manual_seed(0)
    torch._dynamo.reset()
    coil.reset_stats()
    yield
    torch.use_deterministic_algorithms(False)


def _adds(x, index, src, rows, values):
    a = torch.scatter_add(x, 0, index, src)
    b = torch.index_put(x, (rows,), values, accumulate=True)
    return a * 2, b + 1


def _inputs():
    x = torch.zeros(64, 8)
    index = torch.randint(0, 64, (4096, 8))
    src = torch.randn(4096, 8)
    rows = torch.randint(0, 64, (4096,))
    values = torch.randn(4096, 8)
    return x, index, src, rows, values


@pytest.mark.parametrize("deterministic", [True, False], ids=["deterministic", "default"])
def test_scatters_that_add_are_host_calls_only_in_deterministic_mode(deterministic):
    torch.use_deterministic_algorithms(deterministic)
    args = _inputs()
    want = _adds(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = torch.compile(_adds, backend="coil", options={"strict": True})
        runs = [f(*args) for _ in range(3)]
    stats = coil.torch_stats()
    assert stats["graphs_compiled"] == 1, stats
    host = sorted(set(stats["fallback_ops"]))
    if deterministic:
        assert any("scatter_add" in op for op in host) and any("index_put" in op for op in host), host
        for got in runs[1:]:
            for g, first in zip(got, runs[0]):
                assert torch.equal(g, first), "two calls gave different bits"
    else:
        assert host == [], host
    for got in runs:
        for g, w in zip(got, want):
            torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
