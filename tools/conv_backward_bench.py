"""`convolution_backward` through coil against eager, per convolution of ResNet-18's training
shapes (batch 8 at 32x32: the stem, then each stage's 3x3 and 1x1 shapes), each the op alone
under `torch.compile`, median of 20 calls after 2, in one process; and the largest difference
from eager's gradients (issue 31).

    .venv/bin/python tools/conv_backward_bench.py [--runs 20] [--dtype float32|bfloat16]
"""

import argparse
import warnings

import torch
from train_parts import timed  # median ms of `runs` calls after two warm-ups

warnings.simplefilter("ignore")
aten = torch.ops.aten

# (C_in, C_out, kernel, stride, padding, input height and width)
SHAPES = [(3, 64, 7, 2, 3, 32), (64, 64, 3, 1, 1, 8), (64, 128, 3, 2, 1, 8), (128, 128, 3, 1, 1, 4),
          (64, 128, 1, 2, 0, 8), (128, 256, 3, 2, 1, 4), (256, 256, 3, 1, 1, 2),
          (256, 512, 3, 2, 1, 2), (512, 512, 3, 1, 1, 1)]


def main():
    import coil

    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--dtype", default="float32")
    a = ap.parse_args()
    dtype = getattr(torch, a.dtype)
    torch._dynamo.config.recompile_limit = 64
    total = {"eager": 0.0, "coil": 0.0}
    for ci, co, k, s, p, hw in SHAPES:
        torch._dynamo.reset()
        x = torch.randn(8, ci, hw, hw, dtype=dtype)
        w = torch.randn(co, ci, k, k, dtype=dtype) * 0.1
        dy = torch.randn_like(aten.convolution(x, w, None, [s, s], [p, p], [1, 1], False,
                                               [0, 0], 1))
        mask = [ci != 3, True, False]  # the stem's input needs no gradient

        def f(dy, x, w, s=s, p=p, mask=mask):
            return aten.convolution_backward(dy, x, w, [0], [s, s], [p, p], [1, 1], False,
                                             [0, 0], 1, mask)

        cf = torch.compile(f, backend="coil")
        e, c = timed(lambda: f(dy, x, w), a.runs), timed(lambda: cf(dy, x, w), a.runs)
        err = max((g - want).abs().max().item()
                  for g, want in zip(cf(dy, x, w), f(dy, x, w)) if g is not None)
        total["eager"] += e
        total["coil"] += c
        print(f"{ci}->{co} k{k} s{s} at {hw}x{hw}: eager {e:.3f} ms, coil {c:.3f} ms, "
              f"max difference {err:.1e}", flush=True)
    print(f"sum: eager {total['eager']:.2f} ms, coil {total['coil']:.2f} ms; "
          f"host ops {coil.torch_stats()['fallback_ops']}")


if __name__ == "__main__":
    main()
