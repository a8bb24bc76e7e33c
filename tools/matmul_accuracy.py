#!/usr/bin/env python3
"""How far each f32 matmul path is from the float64 product, and from eager's: the question
behind PyTorch's `test_cat_extern_kernel` (compiled `mm`s compared with eager's at f32's
rtol of 1.3e-6). Prints, per product and per coil CPU `gemm` option, the max and RMS error
against float64, and whether the result equals eager's bit for bit.

    .venv/bin/python tools/matmul_accuracy.py [--seed N]
"""

import argparse

import torch

import coil


def fn(x1, x2, x3, x4):
    x = torch.mm(x2, x3)
    s = torch.narrow(x, 1, 0, 100)
    return torch.cat((torch.mm(s, x4), x1), 1), x


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    args = (torch.randn(256, 256), torch.randn(256, 1024), torch.randn(1024, 1600),
            torch.randn(100, 256))
    with torch.no_grad():
        eager = fn(*args)
        exact = fn(*(t.double() for t in args))
        runs = {"eager (torch)": eager}
        for gemm in ("eager", "onednn", "openblas", "gemm"):
            torch._dynamo.reset()
            f = torch.compile(fn, backend="coil", dynamic=False,
                              options={"strict": True, "gemm": gemm})
            runs[f"coil gemm={gemm}"] = f(*args)
    names = ["mm(narrow(mm(x2, x3)), x4), cat", "mm(x2, x3) [256x1024 @ 1024x1600]"]
    for i, name in enumerate(names):
        print(f"{name}: max |f64 value| {exact[i].abs().max().item():.1f}")
        for label, out in runs.items():
            d = (out[i].double() - exact[i]).abs()
            same = torch.equal(out[i], eager[i])
            print(f"  {label:22} max |err| {d.max().item():.3e}  rms {d.pow(2).mean().sqrt().item():.3e}"
                  f"  {'= eager bit for bit' if same else 'differs from eager'}")


if __name__ == "__main__":
    main()
