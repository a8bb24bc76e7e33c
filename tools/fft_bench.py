"""The Fourier transforms through torch.compile(backend="coil"), ATen's routine between coil's
kernels (`aten_externs` auto, the default) against coil's own DFT matmuls (`none`) and eager,
median ms of `--runs` calls after two, in one process; and each one's largest difference from
eager's result relative to the result's largest magnitude (`coil/_extern.py`).

    .venv/bin/python tools/fft_bench.py [--runs 20] [--device cpu|cuda]
"""

import argparse
import warnings

import torch
from train_parts import timed  # median ms of `runs` calls after two warm-ups

warnings.simplefilter("ignore")

# (what, function, input shape, complex input)
CASES = [
    ("fft 16 x 4096 rows", lambda x: torch.fft.fft(x), (4096, 16), False),
    ("rfft 1000", lambda x: torch.fft.rfft(x).abs(), (64, 1000), False),
    ("fftn 16^3", lambda x: torch.fft.fftn(x), (8, 16, 16, 16), False),
    ("fft 4096", lambda x: torch.fft.fft(x), (8, 4096), True),
    ("irfft 257 (prime)", lambda x: torch.fft.irfft(x, n=257), (32, 129), True),
]


def main():
    import coil

    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args()
    sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)
    for what, f, shape, cplx in CASES:
        x = torch.randn(*shape, device=a.device, dtype=torch.complex64 if cplx else None)
        want = f(x)
        scale = want.abs().max().item()
        row = {"eager": timed(lambda: (f(x), sync()), a.runs)}
        for mode in ("auto", "none"):
            torch._dynamo.reset()
            cf = torch.compile(f, backend="coil", options={"aten_externs": mode})
            got = cf(x)
            diff = (got - want).abs().max().item() / scale
            row[mode] = timed(lambda: (cf(x), sync()), a.runs)
            row[mode + "_diff"] = diff
        print(f"{what}: eager {row['eager']:.3f} ms, coil through ATen {row['auto']:.3f} ms "
              f"(difference {row['auto_diff']:.1e}), coil's own {row['none']:.3f} ms "
              f"(difference {row['none_diff']:.1e})", flush=True)
    print(f"graphs to eager: {coil.torch_stats()['graphs_to_eager']}")


if __name__ == "__main__":
    main()
