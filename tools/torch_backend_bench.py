"""Per-call time of a module through torch.compile(backend="coil"), backend="inductor" and eager
(issue 18: one call's overhead from Python). Prints one JSON line per (model, backend).

    python tools/torch_backend_bench.py --device cuda --rows 1024 --cols 1024 --calls 200

The model is the zoo's seed_model (pointwise ops, a row mean, an affine tail) on [rows, cols].
Each call is timed from Python to the result being ready (torch.cuda.synchronize on a GPU):
what a user's loop sees, host overhead included. Median of --calls after --warmup calls.
"""

import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from torch_backend_models import call_us, tb  # noqa: E402  (also puts python/tests on the path)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--rows", type=int, default=1024)
    p.add_argument("--cols", type=int, default=1024)
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    a = p.parse_args()
    dev = a.device
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    m = tb.SeedModel(a.cols).to(dev).eval()
    x = torch.randn(a.rows, a.cols, device=dev)
    with torch.no_grad():
        want = m(x)
        for backend in ("coil", "inductor", "eager"):
            f = m if backend == "eager" else torch.compile(m, backend=backend, dynamic=False)
            err = (f(x) - want).abs().max().item()
            print(json.dumps({"model": "seed_model", "shape": [a.rows, a.cols], "device": dev,
                              "backend": backend,
                              "call_us": call_us(f, x, sync, a.warmup, a.calls),
                              "max_abs_err": err}), flush=True)


if __name__ == "__main__":
    main()
