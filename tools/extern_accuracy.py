"""How far coil's and eager's f32 results are from the exact (float64) ones, for the ops
whose PyTorch tests compare compiled with eager at f32's rtol of 1.3e-6 while Inductor calls
eager's own library (so only the same routine's rounding passes): `convolution_backward`
(eager: PyTorch's bundled oneDNN; coil: forward convolutions through its own backend) and the
Fourier transforms (eager: pocketfft; coil: DFT matmuls, `coil/_fft.py`).

    .venv/bin/python tools/extern_accuracy.py

Prints, per case, each result's largest absolute and RMS error against float64, and the
number of elements where coil and eager disagree beyond `torch.testing`'s f32 tolerance.
"""

import torch

import coil  # noqa: F401  (registers the backend)

aten = torch.ops.aten


def report(name, f, args):
    torch._dynamo.reset()
    wide = [a.double() if a.is_floating_point() else a for a in args]
    exact = f(*wide)
    eager = f(*args)
    got = torch.compile(f, backend="coil", options={"strict": True})(*args)
    exact, eager, got = (x if isinstance(x, (list, tuple)) else [x] for x in (exact, eager, got))
    for i, (x, e, g) in enumerate(zip(exact, eager, got)):
        if x is None:
            continue
        x = x.to(torch.complex128 if x.is_complex() else torch.float64)

        def err(v):
            d = (v.to(x.dtype) - x).abs()
            return d.max().item(), d.pow(2).mean().sqrt().item()

        far = (~torch.isclose(g, e, rtol=1.3e-6, atol=1e-5)).sum().item()
        (ea, er), (ga, gr) = err(e), err(g)
        print(
            f"{name} [{i}] max |x| {x.abs().max().item():8.1f}  eager {ea:.2e} / {er:.2e}"
            f"  coil {ga:.2e} / {gr:.2e}  apart {far} of {x.numel()}"
        )


def main():
    torch.manual_seed(0)
    print("case [output]: largest absolute error / RMS error against float64")
    conv = [
        [2, 320, 8, 8], [2, 2048, 8, 8], [320, 2048, 1, 1],
    ]
    dy, x, w = (torch.randn(s) for s in conv)
    w = w.to(memory_format=torch.channels_last)

    def backward(dy, x, w):
        return aten.convolution_backward(
            dy, x, w, [320], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, True, True]
        )

    report("convolution_backward 1x1, 2048 -> 320", backward, (dy, x, w))
    dy, x, w = torch.randn(4, 64, 28, 28), torch.randn(4, 64, 28, 28), torch.randn(64, 64, 3, 3)

    def backward3(dy, x, w):
        return aten.convolution_backward(
            dy, x, w, [64], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]
        )

    report("convolution_backward 3x3, 64 -> 64", backward3, (dy, x, w))
    report("fftn 16^3 (real part)", lambda v: torch.fft.fftn(v).real, (torch.randn(16, 16, 16),))
    report("fft 4096", lambda v: torch.fft.fft(v), (torch.randn(8, 4096),))
    report("rfft 1000", lambda v: torch.fft.rfft(v), (torch.randn(8, 1000),))


if __name__ == "__main__":
    main()
