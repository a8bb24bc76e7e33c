"""Per-call time of a module through torch.compile(backend="coil"), backend="inductor" and eager
(issue 18: one call's overhead from Python). Prints one JSON line per (model, backend).

    python tools/torch_backend_bench.py --device cuda --rows 1024 --cols 1024 --calls 200

The model is the zoo's seed_model (pointwise ops, a row mean, an affine tail) on [rows, cols].
Each call is timed from Python to the result being ready (torch.cuda.synchronize on a GPU):
what a user's loop sees, host overhead included. Median of --calls after --warmup calls.
"""

import argparse
import json
import statistics
import time

import torch


class SeedModel(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n))
        self.gamma = torch.nn.Parameter(torch.randn(n))
        self.beta = torch.nn.Parameter(torch.randn(n))

    def forward(self, x):
        r = torch.relu(x * 1.1 + self.bias)
        y = r * r + r * 0.1
        return (y - y.mean(1, keepdim=True)) * self.gamma + self.beta


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
    m = SeedModel(a.cols).to(dev).eval()
    x = torch.randn(a.rows, a.cols, device=dev)
    with torch.no_grad():
        want = m(x)
        for backend in ("coil", "inductor", "eager"):
            f = m if backend == "eager" else torch.compile(m, backend=backend, dynamic=False)
            got = f(x)
            err = (got - want).abs().max().item()
            for _ in range(a.warmup):
                f(x)
            sync()
            times = []
            for _ in range(a.calls):
                t = time.perf_counter()
                f(x)
                sync()
                times.append((time.perf_counter() - t) * 1e6)
            print(json.dumps({"model": "seed_model", "shape": [a.rows, a.cols], "device": dev,
                              "backend": backend, "call_us": statistics.median(times),
                              "max_abs_err": err}), flush=True)


if __name__ == "__main__":
    main()
