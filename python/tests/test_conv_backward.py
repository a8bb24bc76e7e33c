"""coil's own `convolution_backward` (the option `aten_externs=False`; ATen's runs between
coil's kernels where coil has no library for it, or with `aten_externs="all"`: test_extern.py)
against eager: on the CPU
with oneDNN each gradient is one library call (no host op); elsewhere, and for transposed
convolutions, forward convolutions (`_decomp_nn`) or, given the op whole, the host. Every
stride, padding, dilation, group count, rank, output mask and layout below matches eager's
gradients."""

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

import coil
from coil import _native

aten = torch.ops.aten
# coil's own gradients, every graph compiled.
OWN = {"strict": True, "aten_externs": False}
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.fixture(autouse=True)
def fresh():
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    torch._dynamo.reset()
    coil.reset_stats()
    yield


# (input sizes, weight sizes, stride, padding, dilation, groups)
CASES = {
    "2d_stride2": ((2, 4, 9, 9), (6, 4, 3, 3), [2, 2], [1, 1], [1, 1], 1),
    "2d_1x1_stride2": ((2, 8, 8, 8), (16, 8, 1, 1), [2, 2], [0, 0], [1, 1], 1),
    "2d_grouped_dilated": ((1, 6, 10, 7), (9, 2, 3, 2), [1, 2], [2, 1], [2, 1], 3),
    "2d_depthwise": ((2, 8, 6, 6), (8, 1, 3, 3), [1, 1], [1, 1], [1, 1], 8),
    "2d_stem": ((2, 3, 32, 32), (16, 3, 7, 7), [2, 2], [3, 3], [1, 1], 1),
    "1d": ((3, 4, 17), (5, 4, 4), [3], [1], [1], 1),
    "3d": ((1, 2, 5, 6, 4), (3, 2, 2, 3, 2), [1, 2, 1], [1, 0, 1], [1, 1, 2], 1),
}
MASKS = [(True, True, True), (True, False, False), (False, True, False), (False, True, True)]


def backward_of(case, mask, channels_last=False, device="cpu"):
    xs, ws, stride, padding, dilation, groups = CASES[case]
    x = torch.randn(*xs, device=device)
    if channels_last and x.dim() == 4:
        x = x.to(memory_format=torch.channels_last)
    w = torch.randn(*ws, device=device)
    nd = len(stride)
    y = aten.convolution(x, w, None, stride, padding, dilation, False, [0] * nd, groups)
    dy = torch.randn_like(y)

    def f(dy, x, w):
        r = aten.convolution_backward(dy, x, w, [ws[0]], stride, padding, dilation, False,
                                      [0] * nd, groups, list(mask))
        return tuple(t for t, m in zip(r, mask) if m)

    return f, (dy, x, w)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mask", MASKS, ids=lambda m: "".join("1" if b else "0" for b in m))
@pytest.mark.parametrize("case", list(CASES))
def test_gradients_match_eager(case, mask, device):
    f, args = backward_of(case, mask, device=device)
    got = torch.compile(f, backend="coil", options=OWN)(*args)
    want = f(*args)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-4)
    stats = coil.torch_stats()
    assert stats["graphs_to_eager"] == [], stats
    assert stats["fallback_ops"] == [], stats


def test_on_the_cpu_with_onednn_each_gradient_is_one_library_call():
    if "torch.float32" not in _native.cpu_conv_backward_dtypes():
        pytest.skip("oneDNN is not loaded")
    f, args = backward_of("2d_stride2", (True, True, True), channels_last=True)
    gm = make_fx(f)(*args)
    model = _native.compile(coil._backend.readable(gm), "cpu")
    externs = model.report()["extern_names"]
    assert sorted(externs) == ["extern_kernels.convolution_backward_input",
                               "extern_kernels.convolution_backward_weight"], externs
    got = coil.compile_fx(gm, list(args), **OWN)(*args)
    for g, w in zip(got, f(*args)):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mask", [(True, True, True), (False, True, False)],
                         ids=["all", "weight"])
def test_a_transposed_convolution_backward_given_whole_runs_on_the_host(mask):
    # `compile_fx` takes the ATen graph as it is (no decomposition): coil's lowering runs the
    # op through coil-eager then, and the gradients are eager's.
    x = torch.randn(2, 4, 5, 5)
    w = torch.randn(4, 3, 3, 3)  # transposed: [C_in, C_out / groups, *k]
    y = aten.convolution(x, w, None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1)
    dy = torch.randn_like(y)

    def f(dy, x, w):
        r = aten.convolution_backward(dy, x, w, [3], [2, 2], [1, 1], [1, 1], True, [1, 1], 1,
                                      list(mask))
        return tuple(t for t, m in zip(r, mask) if m)

    gm = make_fx(f)(dy, x, w)
    got = coil.compile_fx(gm, [dy, x, w], **OWN)(dy, x, w)
    for g, want in zip(got, f(dy, x, w)):
        torch.testing.assert_close(g, want, rtol=1e-4, atol=1e-4)
    assert any("convolution_backward" in op for op in coil.torch_stats()["fallback_ops"])


@pytest.mark.parametrize("aten_externs", ["all", "none"])
def test_a_conv_net_trains_with_eager_gradients(aten_externs):
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, stride=2, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 8, 3, padding=1, groups=2, bias=False), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 4))
    import copy

    ref = copy.deepcopy(net)
    x = torch.randn(4, 3, 16, 16)
    options = {"strict": True, "aten_externs": aten_externs}
    compiled = torch.compile(net, backend="coil", options=options)
    compiled(x).square().sum().backward()
    ref(x).square().sum().backward()
    for (name, p), q in zip(net.named_parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-4, msg=name)
    stats = coil.torch_stats()
    assert stats["backward_graphs_compiled"] >= 1, stats
    assert stats["fallback_ops"] == [], stats
    assert (stats["aten_extern_calls"] > 0) == (aten_externs == "all"), stats


@pytest.mark.parametrize("shape", [(2, 3, 9, 8), (3, 7, 7)], ids=["batched", "unbatched"])
def test_coils_max_pool_backward_decomposition_equals_eagers(shape):
    # For a torch whose decomposition table lacks `max_pool2d_with_indices_backward` (2.11 on
    # the GPU machine sent resnet's backward graph to eager for it): coil's own, a scatter-add,
    # run eagerly here against ATen's kernel, overlapping windows included.
    from coil._decomp import _max_pool_with_indices_backward

    x = torch.randn(*shape)
    args = ([3, 3], [2, 2], [1, 1], [1, 1], False)
    y, idx = aten.max_pool2d_with_indices(x, *args)
    dy = torch.randn_like(y)
    want = aten.max_pool2d_with_indices_backward(dy, x, *args, idx)
    got = _max_pool_with_indices_backward(dy, x, *args, idx)
    torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", ["2d_stride2", "2d_grouped_dilated", "1d"])
def test_bf16_gradients_are_as_accurate_as_eagers(case):
    # Through oneDNN's bf16 gradient primitives where the host has them (the op whole, no host
    # op), else forward convolutions: each gradient within 3x eager bf16's own error against
    # the float64 result (plus a bf16 ulp of the largest magnitude).
    f, args = backward_of(case, (True, True, False))
    args16 = [t.to(torch.bfloat16) for t in args]
    exact = f(*[t.double() for t in args16])
    want = f(*args16)
    got = torch.compile(f, backend="coil", options=OWN)(*args16)
    for g, w, e in zip(got, want, exact):
        assert g.dtype == torch.bfloat16
        scale = e.abs().max().item()
        eager_err = (w.double() - e).abs().max().item()
        coil_err = (g.double() - e).abs().max().item()
        assert coil_err <= 3 * eager_err + scale * 2**-8, (coil_err, eager_err, scale)
    stats = coil.torch_stats()
    assert stats["fallback_ops"] == [] and stats["graphs_to_eager"] == [], stats
