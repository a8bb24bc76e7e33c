"""Graphs Dynamo traces with symbolic sizes through `torch.compile(backend="coil")`:
`dynamic=True`, `mark_dynamic`, the automatic dynamic after a second shape, training under
them, sizes read out of tensors (`item()`, `tolist()`: unbacked symbols) and tensors sized by
their inputs' values (`nonzero`, `masked_select`, `unique`). Each binding of the sizes is a
static coil graph; every result is checked against eager."""

import pytest
import torch

import coil


@pytest.fixture(autouse=True)
def fresh():
    torch.manual_seed(0)
    torch._dynamo.reset()
    coil.reset_stats()
    yield


def assert_all_compiled():
    stats = coil.torch_stats()
    assert stats["graphs_to_eager"] == [], stats["graphs_to_eager"]


class Normed(torch.nn.Module):
    """A convolution, batch norm and layer norm: Dynamo passes their `eps` (a float module
    attribute) as 0-d tensors under `dynamic=True`, and the decompositions branch on it."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.ln = torch.nn.LayerNorm(8)
        self.head = torch.nn.Linear(8, 5)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        y = y.mean(dim=(2, 3))
        return self.head(self.ln(y))


def test_dynamic_true_runs_every_size_as_eager_does():
    m = Normed().eval()
    f = torch.compile(m, backend="coil", dynamic=True, options={"strict": True})
    # Primes, a repeat, sizes off the vector width (below 16: Dynamo's convolution guards
    # `size(0) <= 15` and traces a second graph beyond).
    sizes = [2, 3, 5, 13, 3, 7]
    with torch.no_grad():
        for n in sizes:
            x = torch.randn(n, 3, 9, 11)
            torch.testing.assert_close(f(x), m(x), rtol=1e-4, atol=1e-5)
    stats = coil.torch_stats()
    assert stats["dynamic_graphs"] == 1, stats
    # One static graph per distinct size; the repeat reuses its own.
    assert stats["specializations"] == len(set(sizes)), stats
    assert_all_compiled()


class Block(torch.nn.Module):
    """A pre-norm attention block over a sequence of symbolic length: layer norm, a fused
    projection, softmax over the sequence, a gelu MLP."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc = torch.nn.Linear(d, 4 * d)
        self.out = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (t.view(b, s, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        att = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, s, d))
        return x + self.out(torch.nn.functional.gelu(self.fc(self.ln2(x))))


def test_a_new_size_binds_the_one_symbolic_trace_and_reuses_machine_code():
    """Dynamo's graph is traced to ATen once, symbolically; each new length binds that trace
    (no trace again) and compiles only the kernels whose code the length changes (the
    attention's), running the others' machine code from the first length's compile. The
    results equal eager's and, bit for bit, those of compiles that make all their own code."""
    m = Block().eval()
    lengths = [3, 5, 8, 13, 17, 33, 5]
    inputs = [torch.randn(2, n, 32) for n in lengths]
    own = torch.compile(m, backend="coil", dynamic=True,
                        options={"strict": True, "share_code": False})
    with torch.no_grad():
        alone = [own(x) for x in inputs]
    assert coil.torch_stats()["kernels_reused"] == 0
    torch._dynamo.reset()
    coil.reset_stats()
    f = torch.compile(m, backend="coil", dynamic=True, options={"strict": True})
    with torch.no_grad():
        for n, x, want in zip(lengths, inputs, alone):
            got = f(x)
            torch.testing.assert_close(got, m(x), rtol=1e-4, atol=1e-5)
            assert torch.equal(got, want), n
    stats = coil.torch_stats()
    assert stats["dynamic_graphs"] == 1, stats
    distinct = len(set(lengths))
    assert stats["specializations"] == distinct, stats
    # Every binding after the first binds the trace.
    assert stats["traces_bound"] >= distinct - 1, stats
    assert stats["kernels_reused"] > 0, stats
    assert_all_compiled()


def test_mark_dynamic_and_automatic_dynamic_compile_one_dynamic_graph():
    m = Normed().eval()
    x = torch.randn(4, 3, 8, 8)
    torch._dynamo.mark_dynamic(x, 0)
    f = torch.compile(m, backend="coil", options={"strict": True})
    with torch.no_grad():
        torch.testing.assert_close(f(x), m(x), rtol=1e-4, atol=1e-5)
        y = torch.randn(6, 3, 8, 8)
        torch.testing.assert_close(f(y), m(y), rtol=1e-4, atol=1e-5)
    assert coil.torch_stats()["dynamic_graphs"] == 1

    torch._dynamo.reset()
    coil.reset_stats()
    g = torch.compile(m, backend="coil", options={"strict": True})  # dynamic=None: automatic
    with torch.no_grad():
        for n in (3, 5, 9):
            x = torch.randn(n, 3, 8, 8)
            torch.testing.assert_close(g(x), m(x), rtol=1e-4, atol=1e-5)
    stats = coil.torch_stats()
    # The first size static, then one symbolic graph for the rest.
    assert stats["dynamic_graphs"] == 1, stats
    assert stats["graphs_compiled"] == 3, stats
    assert_all_compiled()


def test_training_under_dynamic_shapes_matches_eager_gradients():
    torch.manual_seed(1)
    m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 4))
    ref = [p.detach().clone() for p in m.parameters()]
    f = torch.compile(m, backend="coil", dynamic=True, options={"strict": True})
    for n in (3, 8, 13):
        x = torch.randn(n, 16)
        for p in m.parameters():
            p.grad = None
        f(x).square().sum().backward()
        got = [p.grad.clone() for p in m.parameters()]
        for p in m.parameters():
            p.grad = None
        m(x).square().sum().backward()
        for g, w in zip(got, (p.grad for p in m.parameters())):
            torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)
    assert all(torch.equal(p, r) for p, r in zip(m.parameters(), ref))
    stats = coil.torch_stats()
    assert stats["backward_graphs_compiled"] == 3, stats
    # AOTAutograd traced once, symbolically: each size binds both halves of that trace.
    assert stats["traces_bound"] == 6, stats
    assert stats["dynamic_graphs"] == 1, stats
    assert_all_compiled()


def test_training_reads_a_computed_tensors_size_at_each_binding():
    """AOTAutograd's graphs read the size of a computed tensor (`sym_size` of a slice): each
    binding gives it the number its traced size is (PyTorch's `test_dtype_sympy_expr`)."""

    def fn(a):
        return a[..., :-1, :].contiguous()

    g = torch.compile(fn, backend="coil", dynamic=True, options={"strict": True})
    for shape in ([1, 2, 16, 4], [1, 3, 9, 4], [2, 2, 5, 3]):
        a = torch.randn(shape).requires_grad_()
        out = g(a)
        out.sum().backward()
        b = a.detach().clone().requires_grad_()
        want = fn(b)
        want.sum().backward()
        torch.testing.assert_close(out, want)
        torch.testing.assert_close(a.grad, b.grad)
    assert coil.torch_stats()["traces_bound"] == 6
    assert_all_compiled()


def test_a_size_read_from_a_tensor_binds_the_graph_to_its_value():
    # `y.item()` sizes a tensor: an unbacked symbol. Each value read is its own static graph;
    # a check on it that fails raises as eager's would.
    def fn(x, y):
        z = y.item()
        torch._check(z // 2 == 3)
        return x + x.new_ones(z)

    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        f = torch.compile(fn, backend="coil", dynamic=True, options={"strict": True})
        for n in (6, 7, 6):
            x, y = torch.randn(n), torch.tensor([n])
            torch.testing.assert_close(f(x, y), fn(x, y))
        assert coil.torch_stats()["specializations"] == 2
        with pytest.raises(RuntimeError):
            f(torch.randn(8), torch.tensor([8]))
    assert_all_compiled()


def test_sizes_read_with_tolist_split_a_tensor():
    def fn(sizes, x):
        a, b = sizes.tolist()
        first, second = torch.split(x, [a, b])
        return first * 2, second.sort().values

    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        f = torch.compile(fn, backend="coil", options={"strict": True})
        for a in (0, 5, 17):
            sizes, x = torch.tensor([a, 40 - a]), torch.randn(40)
            for g, w in zip(f(sizes, x), fn(sizes, x)):
                torch.testing.assert_close(g, w)
    assert_all_compiled()


def test_a_float_passed_as_a_tensor_stays_a_run_time_number_unless_tracing_needs_it():
    # `eps` of a module: bound on the first compile (the batch norm decomposition branches
    # on it), so a new value is a new graph; a plain float argument stays an input.
    def scaled(x, k):
        return torch.softmax(x * k, dim=-1)

    f = torch.compile(scaled, backend="coil", dynamic=True, options={"strict": True})
    x = torch.randn(4, 10)
    for k in (0.5, 2.0, 3.25):
        torch.testing.assert_close(f(x, k), scaled(x, k))
    assert coil.torch_stats()["specializations"] == 1
    assert_all_compiled()


def test_an_op_coil_lacks_in_a_bound_graph_runs_through_aten_with_a_warning():
    def fn(x, y):
        # `histc`: an op coil lacks.
        return torch.histc(x.float(), 4).sum() + x.nonzero().sum() + y.item()

    with torch._dynamo.config.patch(capture_scalar_outputs=True,
                                    capture_dynamic_output_shape_ops=True):
        f = torch.compile(fn, backend="coil", dynamic=True)
        x, y = torch.tensor([0, 1, 2, 0, 3]), torch.tensor([4])
        with pytest.warns(UserWarning, match="histc.default runs through ATen"):
            got = f(x, y)
        assert torch.equal(got, fn(x, y))
    assert_all_compiled()


def test_past_the_binding_cap_the_least_recently_used_binding_is_dropped(monkeypatch):
    # Each binding holds a compiled model: a graph keeps at most COIL_MAX_BINDINGS of them; a
    # size that comes back after its binding was dropped compiles again and still matches.
    from coil import _dynamic

    monkeypatch.setattr(_dynamic, "MAX_BINDINGS", 2)

    def fn(x):
        return torch.softmax(x * 2, dim=-1)

    f = torch.compile(fn, backend="coil", dynamic=True, options={"strict": True})
    for n in (3, 4, 3, 5, 4, 3):
        x = torch.randn(n, 7)
        torch.testing.assert_close(f(x), fn(x))
    stats = coil.torch_stats()
    # 3, 4, (3 again), 5 drops 4, 4 drops 3, 3 drops 5.
    assert stats["specializations"] == 5, stats
    assert stats["bindings_dropped"] == 3, stats
    assert_all_compiled()


def test_a_size_read_after_an_in_place_write_runs_eagerly_instead_of_writing_twice():
    # Binding would compute the read ahead of the call, running the write twice.
    def fn(x, y):
        y.add_(1)
        n = y.item()
        return x.new_ones(n) * 2

    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        f = torch.compile(fn, backend="coil")
        y, y_eager = torch.tensor([3]), torch.tensor([3])
        with pytest.warns(UserWarning, match="writes in place"):
            got = f(torch.randn(2), y)
        want = fn(torch.randn(2), y_eager)
        assert torch.equal(got, want) and torch.equal(y, y_eager)


@pytest.mark.parametrize("dynamic", [True, None])
def test_an_input_written_in_place_under_symbolic_sizes_is_written(dynamic):
    # A write whose result the graph does not use (`y.mul_(2)`) is still a write.
    def fn(x, y):
        y.mul_(2)
        return x + y.sum()

    f = torch.compile(fn, backend="coil", dynamic=dynamic)
    for n in (4, 5, 7):
        x, y, y_eager = torch.randn(n), torch.rand(n), None
        y_eager = y.clone()
        want = fn(x, y_eager)
        got = f(x, y)
        torch.testing.assert_close(got, want)
        torch.testing.assert_close(y, y_eager)
    assert_all_compiled()


def test_dynamo_recompiles_where_a_derived_size_meets_the_0_1_specialization():
    # `x.chunk(4)` of n elements: chunks of ceil(n / 4), the last one n - 3 ceil(n / 4). The
    # symbolic trace (as AOTAutograd's for Inductor) guards that last size against 1, so a size
    # whose last chunk is 1 element (10: 3, 3, 3, 1) is a new frame, as under Inductor; sizes
    # whose chunks are all longer share the dynamic frame.
    frames = []

    def counting(gm, example_inputs):
        frames.append(gm)
        return coil.backend(gm, example_inputs)

    f = torch.compile(lambda x: x.chunk(4), backend=counting, fullgraph=True)
    counts = []
    for n in [4, 8, 12, 44, 11, 10]:
        x = torch.randn(n)
        for got, want in zip(f(x), x.chunk(4), strict=True):
            assert torch.equal(got, want)
        counts.append(len(frames))
    assert counts == [1, 2, 2, 2, 2, 3], counts


def _by_values(x, m):
    """Tensors sized by values: a mask's indices, a masked selection, a boolean index, the
    distinct values with their counts, `where`'s index tuple."""
    idx = m.nonzero()
    picked = torch.masked_select(x, m).sin() * 2
    rows = x[m.any(1)].relu().sum(0)
    values, inverse, counts = torch.unique(
        (x * 2).round(), return_inverse=True, return_counts=True)
    i, j = torch.where(m)
    return (idx + 1, picked, rows, values.softmax(0), inverse, counts,
            x[i, j].cumsum(0))


@pytest.mark.parametrize("dynamic", [False, True])
def test_tensors_sized_by_their_inputs_values_are_made_first_and_bind_the_graph(dynamic):
    # Dynamo's `capture_dynamic_output_shape_ops` puts `nonzero` and its kind in the graph,
    # with unbacked sizes (`u0`). Each is computed ahead of the call and the graph is bound to
    # what it gave: an input of a static graph, one per binding of the sizes.
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        f = torch.compile(_by_values, backend="coil", dynamic=dynamic, fullgraph=True,
                          options={"strict": True})
        x = torch.randn(6, 5)
        thresholds = (0.5, -0.3, 0.5, 9.0)  # a repeat; 9.0: nothing selected (0-size)
        for t in thresholds:
            m = x > t
            for got, want in zip(f(x, m), _by_values(x, m)):
                assert got.shape == want.shape and got.dtype == want.dtype
                torch.testing.assert_close(got, want)
    # One static graph per distinct binding: the repeated mask reuses its own.
    assert coil.torch_stats()["specializations"] == 3
    assert_all_compiled()


def test_counts_repeats_and_runs_sized_by_values_match_eager():
    def fn(x, r):
        return (torch.bincount(r).float() * 2, torch.repeat_interleave(x, r) + 1,
                torch.unique_consecutive(r) * 3, x[: (x > 0).sum().item()].sin())

    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True,
                                    capture_scalar_outputs=True):
        f = torch.compile(fn, backend="coil", fullgraph=True, options={"strict": True})
        for r in ([1, 0, 3, 2], [0, 0, 0, 0], [5, 5, 1, 1]):
            x, r = torch.randn(4), torch.tensor(r)
            for got, want in zip(f(x, r), fn(x, r)):
                assert got.shape == want.shape
                torch.testing.assert_close(got, want)
    assert_all_compiled()


def test_new_values_of_the_same_sizes_run_the_same_binding():
    def fn(x):
        return torch.masked_select(x, x > 0).exp().sum()

    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        f = torch.compile(fn, backend="coil", options={"strict": True})
        for _ in range(3):
            # Three positives each time, at new places with new values.
            x = -torch.rand(10)
            x[torch.randperm(10)[:3]] = torch.rand(3)
            torch.testing.assert_close(f(x), fn(x))
    assert coil.torch_stats()["specializations"] == 1


def test_a_check_on_a_size_given_by_values_raises_as_eager_does():
    def fn(x):
        z = x.nonzero()
        torch._check(z.size(0) == 4)
        return z + 3

    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        f = torch.compile(fn, backend="coil", options={"strict": True})
        x = torch.tensor([0, 1, 3, 4, 2, 0, 0])
        assert torch.equal(f(x), fn(x))
        # Not a reason to run eagerly: the check's own error, as eager raises it.
        with pytest.raises(RuntimeError, match="Runtime assertion failed"):
            f(torch.tensor([0, 0, 0, 5]))
    assert_all_compiled()


def test_a_selection_by_a_mask_that_needs_a_gradient_trains_as_eager_does():
    # `h[mask]` and `masked_select(h, mask)` on a tensor that needs a gradient: indexing by
    # the mask's `nonzero` (computed ahead of the call, no gradient) with static sizes once
    # bound, so the training graph compiles and its backward scatters the gradient back.
    def fn(x, w):
        h = x @ w
        return h[h.sum(1) > 0].relu().pow(2).mean() + torch.masked_select(h, h > 0.5).sum()

    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        f = torch.compile(fn, backend="coil", options={"strict": True})
        for seed in (0, 1, 0):
            torch.manual_seed(seed)
            x, w = torch.randn(10, 6), torch.randn(6, 4, requires_grad=True)
            f(x, w).backward()
            got = w.grad.clone()
            w.grad = None
            fn(x, w).backward()
            torch.testing.assert_close(got, w.grad, rtol=1e-5, atol=1e-6)
    assert_all_compiled()


def test_a_tensor_sized_by_values_that_needs_a_gradient_runs_eagerly_with_a_warning():
    def fn(x, r):
        return torch.repeat_interleave(x, r).pow(2).sum()

    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        f = torch.compile(fn, backend="coil")
        x, r = torch.randn(5, requires_grad=True), torch.tensor([1, 0, 3, 2, 1])
        with pytest.warns(UserWarning, match="needs a gradient"):
            loss = f(x, r)
        loss.backward()
        want = x.detach().clone().requires_grad_()
        fn(want, r).backward()
        torch.testing.assert_close(x.grad, want.grad)
        torch._dynamo.reset()
        strict = torch.compile(fn, backend="coil", options={"strict": True})
        with pytest.raises(Exception, match="needs a gradient"):
            strict(torch.randn(5, requires_grad=True), r)
