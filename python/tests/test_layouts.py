"""Property tests of the classes behind issue 29's wrong results: inputs with any strides
(permuted, sliced with steps, channels-last, expanded so elements overlap), outputs that are
views of inputs or of each other (eager's aliasing kept), and host calls (sort, scatter_add,
index_put, topk) on non-contiguous values. Each case is drawn from a seeded generator: a
random layout for every input, then a random chain of ops, compiled with coil (strict) and
compared with eager, values, dtypes and strides."""

import random

import pytest
import torch

import coil


def random_layout(rng, shape):
    """A tensor of `shape` in a random layout: contiguous, permuted, a strided slice of a
    bigger one, channels-last, or expanded (size-1 dims broadcast: overlapping elements)."""
    kind = rng.choice(["contiguous", "permuted", "sliced", "channels_last", "expanded", "offset"])
    if kind == "permuted":
        perm = list(range(len(shape)))
        rng.shuffle(perm)
        base = torch.randn([shape[p] for p in perm])
        inverse = [perm.index(d) for d in range(len(shape))]
        return base.permute(inverse)
    if kind == "sliced":
        steps = [rng.choice([1, 2, 3]) for _ in shape]
        base = torch.randn([s * k + 1 for s, k in zip(shape, steps)])
        index = tuple(slice(1, 1 + s * k, k) for s, k in zip(shape, steps))
        return base[index]
    if kind == "channels_last" and len(shape) == 4:
        return torch.randn(shape).to(memory_format=torch.channels_last)
    if kind == "expanded":
        small = [1 if rng.random() < 0.5 else s for s in shape]
        return torch.randn(small).expand(shape)
    if kind == "offset":
        flat = torch.randn(int(torch.tensor(shape).prod()) + 5)
        return flat[5:].view(shape)
    return torch.randn(shape)


UNARY = [
    lambda x: x * 2 + 1,
    lambda x: torch.relu(x),
    lambda x: torch.softmax(x, -1),
    lambda x: x.sum(-1, keepdim=True) - x,
    lambda x: torch.exp(-x.abs()),
    lambda x: x.transpose(-1, -2).contiguous() if x.dim() > 1 else x,
    lambda x: torch.cumsum(x, -1),
    lambda x: x.flip(-1),
    lambda x: torch.sort(x, -1).values,
    lambda x: torch.topk(x, 2, -1).values if x.shape[-1] >= 2 else x,
    lambda x: x.amax(-1, keepdim=True).expand_as(x) + x,
]


def make_case(seed):
    rng = random.Random(seed)
    rank = rng.choice([2, 3, 4])
    shape = [rng.choice([2, 3, 5]) for _ in range(rank)]
    a = random_layout(rng, shape)
    b = random_layout(rng, shape)
    chain = [rng.randrange(len(UNARY)) for _ in range(rng.randint(1, 3))]
    out_view = rng.choice(["none", "transpose", "slice", "view_of_input", "two_views"])

    def fn(a, b):
        x = a + b
        for i in chain:
            x = UNARY[i](x)
        if out_view == "transpose":
            return x, x.transpose(0, 1)
        if out_view == "slice":
            return x[:, ::2], x
        if out_view == "view_of_input":
            return x, a.t() if a.dim() == 2 else a[0]
        if out_view == "two_views":
            return x[0], x[1:]
        return (x,)

    return fn, (a, b)


@pytest.mark.parametrize("seed", range(60))
def test_random_layouts_and_output_views_match_eager(seed):
    torch._dynamo.reset()
    coil.reset_stats()
    fn, args = make_case(seed)
    with torch.no_grad():
        want = fn(*args)
        got = torch.compile(fn, backend="coil", dynamic=False, options={"strict": True})(*args)
    for i, (w, g) in enumerate(zip(want, got)):
        torch.testing.assert_close(g, w, msg=f"seed {seed} output {i}")
        assert g.dtype == w.dtype
        if _dense(w):
            # A dense eager layout comes back as it is (others may come back contiguous).
            assert g.stride() == w.stride(), f"seed {seed} output {i}: {g.stride()} {w.stride()}"


def _dense(t):
    order = sorted(range(t.dim()), key=lambda d: -t.stride(d))
    expect = 1
    for d in reversed(order):
        if t.shape[d] != 1 and t.stride(d) != expect:
            return False
        expect *= t.shape[d]
    return True


def test_host_calls_on_strided_values_match_eager():
    # sort, scatter_add, index_put with accumulation and topk read transposed and sliced values.
    x = torch.randn(6, 8).t()[::2]
    idx = torch.randint(0, 3, (4, 6))
    src = torch.randn(6, 4).t()

    def fn(x, idx, src):
        y = x * 1.5
        return (
            torch.sort(y, 0).values,
            torch.zeros(3, 6).scatter_add(0, idx, src),
            torch.index_put(y, (torch.tensor([0, 0, 2]),), torch.ones(3, 6), accumulate=True),
            torch.topk(y.t(), 2).indices,
        )

    want = fn(x, idx, src)
    got = torch.compile(fn, backend="coil", dynamic=False, options={"strict": True})(x, idx, src)
    for w, g in zip(want, got):
        torch.testing.assert_close(g, w)


@pytest.mark.parametrize(
    "device", ["cpu"] + (["cuda"] if torch.cuda.is_available() else []))
def test_outputs_sharing_memory_with_buffers_inputs_and_each_other_match_eager(device):
    # Outputs that are not a buffer of their own: a reshape and a slice of a buffer, the same
    # buffer twice, an input returned, a transposed view (on the GPU the contiguous ones are
    # copied on the device after the run, the strided one through the host).
    def fn(a, b):
        x = (a * b).relu()
        y = x + 1
        return x, x.view(-1), y[1:], y, x, a, y.t(), (y * 2)[2:].reshape(2, 3, 2)

    a = torch.randn(4, 6, device=device)
    b = torch.randn(4, 6, device=device)
    want = fn(a, b)
    got = torch.compile(fn, backend="coil", dynamic=False, options={"strict": True})(a, b)
    assert len(got) == len(want)
    for i, (w, g) in enumerate(zip(want, got)):
        assert g.device == w.device and g.shape == w.shape, i
        torch.testing.assert_close(g, w, msg=f"output {i}")


@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if torch.cuda.is_available() else []))
def test_dense_permuted_inputs_are_read_in_place_and_match_eager(device):
    """An input laid out as a permutation of its dims (a transpose, channels-last: what a
    backward graph's saved activations often are) is read as its memory permuted back, with no
    copy; a call whose input is laid out otherwise (contiguous, or a slice with holes) is still
    eager's, through a copy."""
    from coil._fx import input_orders

    def f(x, y, z):
        return torch.relu(x) * 2 + y, (z * 3).sum(1)

    x = torch.randn(6, 5, device=device).t()
    z = torch.randn(2, 3, 4, 5, device=device).permute(0, 2, 3, 1)
    y = torch.randn(5, 6, device=device)
    assert input_orders([x, y, z]) == [[1, 0], None, [0, 3, 1, 2]]
    torch._dynamo.reset()
    coil.reset_stats()
    g = torch.compile(f, backend="coil", options={"strict": True}, dynamic=False)
    for a, c in [(x, z), (x.contiguous(), z.contiguous()), (x, z)]:
        got, want = g(a, y, c), f(a, y, c)
        for gi, wi in zip(got, want):
            torch.testing.assert_close(gi, wi)
    # Through the checked path (AOTAutograd's: an input that requires grad).
    xg = x.detach().requires_grad_()
    out = torch.compile(lambda x, y: (torch.relu(x) * y).sum(), backend="coil",
                        options={"strict": True}, dynamic=False)(xg, y)
    out.backward()
    xe = x.detach().requires_grad_()
    (torch.relu(xe) * y).sum().backward()
    torch.testing.assert_close(xg.grad, xe.grad)
