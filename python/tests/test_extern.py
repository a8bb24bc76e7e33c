"""ATen's own routines between coil's kernels (`coil/_extern.py`): a graph holding a Fourier
transform or (where the mode says) a `convolution_backward` is split at them, the segments
compiled by coil, the routines eager's, so their results are eager's bit for bit."""

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

import coil
from coil import _extern

aten = torch.ops.aten
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.fixture(autouse=True)
def fresh():
    torch.manual_seed(0)
    torch._dynamo.reset()
    coil.reset_stats()
    yield


def spectra(x, y):
    # A segment before (reading two inputs), the transform's result returned as it is and
    # read by a segment after, two transforms back to back, a segment reading a graph input
    # beside a transform's result.
    s = torch.fft.fftn(x * 2 + y)
    back = torch.fft.irfftn(torch.fft.rfftn(y), s=y.shape)
    return s, s.abs() + 1, back - y, torch.fft.rfft(x).real * x[..., :9]


@pytest.mark.parametrize("device", DEVICES)
def test_transforms_are_eagers_bit_for_bit(device):
    x = torch.randn(4, 16, 16, device=device)
    y = torch.randn(4, 16, 16, device=device)
    want = spectra(x, y)
    got = torch.compile(spectra, backend="coil", options={"strict": True})(x, y)
    assert torch.equal(got[0], want[0])  # the transform's own result
    for g, w in zip(got[1:], want[1:]):
        torch.testing.assert_close(g, w, rtol=1.3e-6, atol=1e-5)
    stats = coil.torch_stats()
    assert stats["aten_extern_calls"] == 4, stats
    assert stats["graphs_compiled"] == 1 and stats["graphs_to_eager"] == [], stats
    assert stats["fallback_ops"] == [], stats


def test_the_split_keeps_every_value_a_later_step_reads():
    def f(x, y):
        return spectra(x, y)

    x, y = torch.randn(2, 16, 16), torch.randn(2, 16, 16)
    gm = make_fx(f)(x, y)
    steps = _extern._steps(gm, "auto")
    kinds = ["segment" if isinstance(s, _extern._Segment) else s.target.__name__ for s in steps]
    assert kinds.count("segment") >= 3, kinds
    defined = {n for n in gm.graph.nodes if n.op == "placeholder"}
    for s in steps:
        if isinstance(s, _extern._Segment):
            assert s.nodes and s.outputs, kinds
            assert all(a in defined for a in s.inputs), kinds  # read only what came before
            defined.update(s.outputs)
        else:
            defined.add(s)
    (result,) = [n.args[0] for n in gm.graph.nodes if n.op == "output"]
    assert all(r in defined for r in result)


def conv_gradients(dy, x, w):
    gx, gw, gb = aten.convolution_backward(
        dy * 0.5, x, w, [w.shape[0]], [2, 2], [1, 1], [1, 1], False, [0, 0], 1,
        [True, True, True])
    return gx, gw, gb, gx.relu().sum()


def conv_case(device, channels_last):
    x = torch.randn(2, 64, 12, 12, device=device)
    if channels_last:
        x = x.to(memory_format=torch.channels_last)
    w = torch.randn(32, 64, 3, 3, device=device)
    dy = torch.randn(2, 32, 6, 6, device=device)
    return dy, x, w


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("channels_last", [False, True], ids=["contiguous", "channels_last"])
def test_with_all_convolution_backward_is_eagers_bit_for_bit(device, channels_last):
    dy, x, w = conv_case(device, channels_last)
    want = conv_gradients(dy, x, w)
    options = {"strict": True, "aten_externs": "all"}
    got = torch.compile(conv_gradients, backend="coil", options=options)(dy, x, w)
    for g, v in zip(got[:3], want[:3]):
        assert g.stride() == v.stride() and torch.equal(g, v)
    torch.testing.assert_close(got[3], want[3], rtol=1e-5, atol=1e-5)  # a sum: its order
    stats = coil.torch_stats()
    assert stats["aten_extern_calls"] == 1 and stats["graphs_to_eager"] == [], stats


@pytest.mark.parametrize("device", DEVICES)
def test_by_default_atens_gradients_only_where_coil_has_no_library_for_them(device):
    # The CPU with oneDNN: coil's own gradients (one library call each). The GPU: ATen's
    # (cuDNN), not forward convolutions.
    from coil import _native

    dy, x, w = conv_case(device, False)
    want = conv_gradients(dy, x, w)
    got = torch.compile(conv_gradients, backend="coil", options={"strict": True})(dy, x, w)
    own = device == "cpu" and "torch.float32" in _native.cpu_conv_backward_dtypes()
    for g, v in zip(got, want):
        torch.testing.assert_close(g, v, rtol=1e-4, atol=1e-3)
    stats = coil.torch_stats()
    assert stats["aten_extern_calls"] == (0 if own else 1), stats
    assert stats["fallback_ops"] == [] and stats["graphs_to_eager"] == [], stats


def test_the_mode_is_checked():
    with pytest.raises(Exception, match="aten_externs is one of auto, all, none"):
        torch.compile(spectra, backend="coil", options={"aten_externs": "some"})(
            torch.randn(2, 16, 16), torch.randn(2, 16, 16))


def test_without_the_option_the_graph_is_compiled_whole():
    x, y = torch.randn(2, 16, 16), torch.randn(2, 16, 16)
    options = {"strict": True, "aten_externs": False}
    got = torch.compile(spectra, backend="coil", options=options)(x, y)
    for g, w in zip(got, spectra(x, y)):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-4)
    assert coil.torch_stats()["aten_extern_calls"] == 0


def test_a_segment_with_an_op_coil_lacks_raises_in_strict_mode_and_splits_again_otherwise():
    def f(x):
        # `aten.linalg_eigh` has no lowering: the segment after the transform is not coil's.
        s = torch.fft.rfft(x).abs()
        return torch.linalg.eigh(s[:, :4, :4] @ s[:, :4, :4].mT).eigenvalues

    x = torch.randn(2, 8, 8)
    with pytest.raises(Exception, match="coil cannot compile"):
        torch.compile(f, backend="coil", options={"strict": True})(x)
    torch._dynamo.reset()
    coil.reset_stats()
    with pytest.warns(UserWarning, match="linalg_eigh.default runs through ATen"):
        got = torch.compile(f, backend="coil")(x)
    torch.testing.assert_close(got, f(x), rtol=1e-4, atol=1e-4)
    stats = coil.torch_stats()
    # The segment after the transform splits again at `_linalg_eigh`: ATen runs both.
    assert stats["graphs_to_eager"] == [] and stats["graphs_compiled"] == 1, stats
    assert stats["aten_extern_calls"] >= 2, stats
