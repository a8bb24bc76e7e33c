"""The trace cache (`coil/_trace_cache.py`): an inference graph traced to ATen and rewritten in
one process is not traced again in the next (`torch._dynamo.reset()` stands for a new process:
Dynamo hands over the same graph); every part of the key misses on its own; a corrupted entry,
a read-only directory and two processes at once are all safe."""

import os
import subprocess
import sys
import textwrap

import pytest
import torch

import coil
from coil import _trace_cache


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("COIL_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("COIL_CACHE", raising=False)
    _trace_cache._WARNED.clear()
    torch._dynamo.reset()
    coil.reset_stats()
    yield tmp_path


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 16)
        self.register_buffer("shift", torch.arange(16.0))

    def forward(self, x):
        # (A tensor made in forward: a constant of the traced graph, kept in the entry.)
        scale = torch.tensor([0.5, 1.0, 2.0, -1.0] * 4)
        return torch.softmax(self.lin(x).relu() * scale + self.shift, -1), x.sum(0)


def run(net, x, **options):
    """One 'process': Dynamo reset, the net compiled and called once; (outputs, stats)."""
    torch._dynamo.reset()
    coil.reset_stats()
    with torch.no_grad():
        got = torch.compile(net, backend="coil", options={"strict": True, **options})(x)
        want = net(x)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)
    return got, coil.torch_stats()


def test_a_second_process_skips_the_trace_and_gets_the_same_results(cache_dir):
    net, x = Net().eval(), torch.randn(4, 8)
    first, s1 = run(net, x)
    assert s1["trace_cache_hits"] == 0 and s1["trace_s"] > 0, s1
    assert len(list((cache_dir / "traced").glob("*.bin"))) == 1
    second, s2 = run(net, x)
    assert s2["trace_cache_hits"] == 1 and s2["trace_s"] == 0, s2
    for a, b in zip(first, second):
        assert torch.equal(a, b)


@pytest.mark.parametrize("change", ["shape", "dtype", "strides", "option", "buffer", "code",
                                    "grad"])
def test_each_part_of_the_key_changed_on_its_own_misses(change):
    net, x = Net().eval(), torch.randn(4, 8)
    run(net, x)
    options = {}
    if change == "shape":
        x = torch.randn(5, 8)
    elif change == "dtype":
        net, x = net.double(), x.double()
    elif change == "strides":
        x = torch.randn(8, 4).t()
    elif change == "option":
        options = {"strategy": "none"}
    elif change == "buffer":
        # A tensor attribute's value (Dynamo keeps the buffer as a graph constant here).
        net.shift.add_(1)
    elif change == "code":
        net.forward = lambda x: (torch.softmax(net.lin(x).relu() - net.shift, -1), x.sum(0))
    if change == "grad":
        torch._dynamo.reset()
        coil.reset_stats()
        # Not an inference graph with grad on: AOTAutograd's path, never cached.
        out = torch.compile(net, backend="coil", options={"strict": True})(x)
        stats = coil.torch_stats()
        assert stats["trace_cache_hits"] == 0, stats
        torch.testing.assert_close(out[0], net(x)[0])
        return
    _, stats = run(net, x, **options)
    if change == "buffer" and stats["trace_cache_hits"]:
        pytest.skip("this torch passes the buffer as an input: its value is not in the graph")
    assert stats["trace_cache_hits"] == 0, (change, stats)


def test_a_key_sees_a_changed_constant_and_refuses_a_call_it_cannot_see_into():
    def user(x):
        return x * 3

    def graph_of(const):
        g = torch.fx.Graph()
        x = g.placeholder("x")
        c = g.get_attr("c")
        g.output(g.call_function(torch.ops.aten.add.Tensor, (x, c)))
        root = torch.nn.Module()
        root.register_buffer("c", const)
        return torch.fx.GraphModule(root, g)

    x = [torch.randn(3)]
    k1 = _trace_cache.key(graph_of(torch.ones(3)), x, {})
    assert k1 is not None
    assert k1 == _trace_cache.key(graph_of(torch.ones(3)), x, {})
    assert k1 != _trace_cache.key(graph_of(torch.full((3,), 2.0)), x, {})
    g = torch.fx.Graph()
    p = g.placeholder("x")
    g.output(g.call_function(user, (p,)))
    assert _trace_cache.key(torch.fx.GraphModule(torch.nn.Module(), g), x, {}) is None


def test_a_corrupted_entry_is_warned_about_and_traced_again(cache_dir):
    net, x = Net().eval(), torch.randn(4, 8)
    first, _ = run(net, x)
    (entry,) = (cache_dir / "traced").glob("*.bin")
    entry.write_bytes(entry.read_bytes()[:100])
    with pytest.warns(UserWarning, match="unreadable, traced again"):
        again, stats = run(net, x)
    assert stats["trace_cache_hits"] == 0 and stats["graphs_compiled"] == 1, stats
    for a, b in zip(first, again):
        assert torch.equal(a, b)
    _, stats = run(net, x)  # rewritten by the retrace
    assert stats["trace_cache_hits"] == 1, stats


def test_off_and_read_only_directories_compile_without_a_cache(cache_dir, monkeypatch):
    net, x = Net().eval(), torch.randn(4, 8)
    monkeypatch.setenv("COIL_CACHE", "0")
    run(net, x)
    assert not (cache_dir / "traced").exists()
    monkeypatch.delenv("COIL_CACHE")
    blocked = cache_dir / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("COIL_CACHE_DIR", str(blocked))
    with pytest.warns(UserWarning, match="cannot write"):
        _, stats = run(net, x)
    assert stats["graphs_compiled"] == 1 and stats["graphs_to_eager"] == [], stats


def test_eviction_keeps_the_most_recently_used_entries(cache_dir, monkeypatch):
    monkeypatch.setattr(_trace_cache, "MAX_ENTRIES", 2)
    net = Net().eval()
    for rows in (1, 2, 3):
        run(net, torch.randn(rows, 8))
    assert len(list((cache_dir / "traced").glob("*.bin"))) == 2
    _, stats = run(net, torch.randn(3, 8))
    assert stats["trace_cache_hits"] == 1, stats
    _, stats = run(net, torch.randn(1, 8))
    assert stats["trace_cache_hits"] == 0, stats


def test_two_processes_at_once_both_succeed_with_eagers_results(cache_dir):
    script = textwrap.dedent("""
        import torch, coil
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU()).eval()
        x = torch.randn(4, 8)
        with torch.no_grad():
            got = torch.compile(net, backend="coil", options={"strict": True})(x)
            assert torch.allclose(got, net(x), rtol=1e-5, atol=1e-6)
        s = coil.torch_stats()
        print(got.sum().item(), s["program_cache_hits"], s["cache_hits"])
    """)
    env = {**os.environ, "COIL_CACHE_DIR": str(cache_dir)}
    env.pop("COIL_CACHE", None)
    procs = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-2000:]
    assert outs[0][0].split()[0] == outs[1][0].split()[0]
    assert len(list((cache_dir / "traced").glob("*.bin"))) == 1
    assert not list((cache_dir / "traced").glob(".tmp-*"))
    # A third process finds the native program and its machine code too (coil's own compile
    # cache: the stages before the machine code skipped), with the same result.
    third = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, timeout=300)
    assert third.returncode == 0, third.stderr[-2000:]
    total, program_hits, hits = third.stdout.split()
    assert (total, program_hits, hits) == (outs[0][0].split()[0], "1", "1"), third.stdout
    assert list((cache_dir / "program").rglob("*.bin"))
