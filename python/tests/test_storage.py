"""Where eager's memory shows through a graph's values: `as_strided` reads storage (laid out as
eager lays it out: channels-last inputs and results, views of padded results), and returned
views stay views (of the inputs, of each other) so that a later in-place write shows through
them. Each compiled strict (every graph by coil) unless it must go through AOTAutograd, and
compared with eager bit for bit: these are layout questions, not rounding ones."""

import pytest
import torch

import coil

aten = torch.ops.aten


@pytest.fixture(autouse=True)
def fresh():
    torch.manual_seed(0)
    torch._dynamo.reset()
    coil.reset_stats()
    yield


def run(fn, *args):
    with torch.no_grad():
        want = fn(*args)
        got = torch.compile(fn, backend="coil", dynamic=False, options={"strict": True})(*args)
    return want, got


def assert_same(want, got):
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert g.shape == w.shape and g.dtype == w.dtype
        torch.testing.assert_close(g, w, rtol=0, atol=0)


def test_as_strided_of_a_channels_last_input_and_result_reads_their_storage():
    # The storage of a channels-last [n, c, h, w] is in (n, h, w, c) order: these strides
    # view it as [n, c, 2, h/2, w], dims reordered.
    def fn(x):
        n, c, h, w = x.shape
        size, stride = (n, c, 2, h // 2, w), (c * h * w, 1, (h // 2) * w * c, w * c, c)
        return aten.as_strided(x, size, stride, 0), aten.as_strided(x * 3, size, stride) - 1

    x = torch.randn(2, 5, 6, 7).to(memory_format=torch.channels_last)
    want, got = run(fn, x)
    assert_same(want, got)
    assert coil.torch_stats()["graphs_to_eager"] == []


def test_as_strided_of_a_transposed_input_with_an_offset():
    def fn(x):
        return (aten.as_strided(x, (3, 4), (2, 5), 3) + 0,)

    x = torch.randn(5, 6).t()  # storage in x's column order
    want, got = run(fn, x)
    assert_same(want, got)


def test_as_strided_of_views_of_a_padded_convolution():
    conv = torch.nn.Conv2d(6, 8, 1, bias=False)

    def fn(x):
        p = torch.nn.functional.pad(conv(x), (2, 2, 2, 2))  # [2, 8, 9, 9]
        a = aten.as_strided(p, (2, 8, 2, 9, 4), (648, 81, 36, 1, 9))
        b = aten.as_strided(a, (2, 8, 2, 2, 4, 4), (648, 81, 36, 4, 9, 1))
        return (b.contiguous(),)

    want, got = run(fn, torch.randn(2, 6, 5, 5))
    torch.testing.assert_close(got[0], want[0])


def test_a_view_returned_beside_its_base_sees_later_writes():
    def fn(a):
        y = a * 2
        return y, y[1:3].squeeze()

    x = torch.arange(4.0).reshape(4, 1)
    with torch.no_grad():
        base, view = torch.compile(fn, backend="coil", dynamic=False)(x)
        base2, view2 = fn(x)
    # The compiled outputs alias as eager's do: writing the base shows through the view.
    assert view.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    base[1, 0] = 100.0
    base2[1, 0] = 100.0
    torch.testing.assert_close(view, view2, rtol=0, atol=0)
    assert coil.torch_stats()["graphs_compiled"] == 1


def test_a_view_of_an_intermediate_mutated_after_a_graph_break():
    def fn():
        a = torch.tensor([7, 8, 9])
        a = a[1:3]
        b = a[1:].squeeze()
        a[0] = 0
        if a[0] < 10:  # data-dependent: a graph break
            a[1] = 5
        return b

    want = fn()
    got = torch.compile(fn, backend="coil")()
    assert got.item() == want.item() == 5


def test_outputs_that_are_views_of_inputs_share_their_storage():
    def fn(x):
        return x[0:2:2].T[3:].squeeze(0)

    x = torch.rand(4, 4, 4, 4)
    out = torch.compile(fn, backend="coil")(x)
    assert out.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert out.stride() == fn(x).stride()
    torch.testing.assert_close(out, fn(x), rtol=0, atol=0)


def test_an_output_keeps_eager_strides_across_a_graph_break():
    def fn(x):
        y = x.permute(0, 2, 3, 1).contiguous()
        torch._dynamo.graph_break()
        return y.view(-1, 4)

    x = torch.rand(4, 4, 4, 4)
    want, got = fn(x), torch.compile(fn, backend="coil")(x)
    torch.testing.assert_close(got, want, rtol=0, atol=0)
    assert got.stride() == want.stride()


@pytest.mark.parametrize("layout", ["holes", "overlap"])
def test_as_strided_of_an_input_without_a_dense_layout_runs_eagerly(layout):
    def fn(x):
        return (aten.as_strided(x, (2, 2), (1, 2)) * 1,)

    base = torch.randn(8, 8)
    x = base[:, ::2] if layout == "holes" else base[0].expand(3, 8)
    with pytest.warns(UserWarning, match="not a dense layout"):
        got = torch.compile(fn, backend="coil", dynamic=False)(x)
    torch.testing.assert_close(got[0], fn(x)[0])
