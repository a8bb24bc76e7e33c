"""f32 matmuls on the CPU against eager's: by default through PyTorch's own BLAS, called with
eager's transposes and leading dimensions, so a product equals eager's bit for bit (as
Inductor's extern mm does); `gemm="onednn"` takes coil's own libraries, whose summation order
differs (`tools/matmul_accuracy.py` measures both against float64)."""

import pytest
import torch

import coil


@pytest.fixture(autouse=True)
def fresh():
    torch.manual_seed(0)
    torch._dynamo.reset()
    coil.reset_stats()
    yield


def products(x1, x2, x3, x4):
    x = torch.mm(x2, x3)
    s = torch.narrow(x, 1, 0, 100)  # a view with a leading dimension of 1600
    return torch.cat((torch.mm(s, x4), x1), 1), x2.t().t() @ x3, torch.mm(x1, x1.t())


def args():
    return (torch.randn(256, 256), torch.randn(256, 1024), torch.randn(1024, 1600),
            torch.randn(100, 256))


@pytest.mark.skipif(not coil._native.eager_blas_loaded(), reason="PyTorch's BLAS not found")
def test_f32_matmuls_equal_eager_bit_for_bit():
    xs = args()
    with torch.no_grad():
        want = products(*xs)
        got = torch.compile(products, backend="coil", dynamic=False, options={"strict": True})(*xs)
    for w, g in zip(want, got):
        assert torch.equal(g, w)


@pytest.mark.skipif(not coil._native.eager_blas_loaded(), reason="PyTorch's BLAS not found")
def test_an_addmm_alone_equals_eager_bit_for_bit():
    # (Beside an mm of the same operands, coil shares the product and adds the bias after it:
    # one more rounding than eager's, which the test above does not ask for.)
    def f(b, x, w):
        return (torch.addmm(b, x, w), torch.nn.functional.linear(x, w.t(), b))

    xs = (torch.randn(1600), torch.randn(256, 1024), torch.randn(1024, 1600))
    with torch.no_grad():
        want = f(*xs)
        got = torch.compile(f, backend="coil", dynamic=False, options={"strict": True})(*xs)
    for w, g in zip(want, got):
        assert torch.equal(g, w)


def test_coil_own_matmuls_are_within_f32_rounding_of_float64():
    xs = args()
    with torch.no_grad():
        f = torch.compile(products, backend="coil", dynamic=False,
                          options={"strict": True, "gemm": "onednn"})
        got = f(*xs)
        exact = products(*(t.double() for t in xs))
        eager = products(*xs)
    for g, e, w in zip(got, exact, eager):
        # As accurate as eager's, within a factor of 2 in RMS error against float64.
        rms = lambda t: (t.double() - e).pow(2).mean().sqrt().item()  # noqa: E731
        assert rms(g) < 2 * rms(w) + 1e-12


def test_an_unknown_cpu_gemm_option_is_an_error():
    with pytest.raises(Exception, match="gemm option"):
        torch.compile(lambda a: (a @ a,), backend="coil", dynamic=False,
                      options={"strict": True, "gemm": "mkl"})(torch.randn(4, 4))
