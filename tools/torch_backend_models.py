"""Per-call time of the zoo's functions and real architectures through torch.compile with
backend="coil", backend="inductor" and eager (issue 18, item 6). One JSON line per (model,
backend), printed as it is measured:

    python tools/torch_backend_models.py --device cuda --calls 50

The models are python/tests/test_backend.py's (imported from there): the same modules the tests
check. Each call is timed from Python to the result being ready (torch.cuda.synchronize), median
of --calls after --warmup calls, no_grad, static shapes.
"""

import argparse
import json
import os
import statistics
import sys
import time
import warnings

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python", "tests"))
sys.path.insert(0, os.path.dirname(__file__))
import test_backend as tb  # noqa: E402


def call_us(f, x, sync, warmup, calls):
    """Median microseconds of `calls` calls `f(x)`, each timed from Python to the result being
    ready (`sync`), after `warmup` calls."""
    for _ in range(warmup):
        f(x)
    sync()
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        f(x)
        sync()
        times.append((time.perf_counter() - t) * 1e6)
    return statistics.median(times)


def models():
    yield "seed_model", lambda: tb.SeedModel(1024), ("f", (1024, 1024))
    yield "softmax", tb.Softmax, ("f", (1024, 1024))
    yield "layernorm", lambda: torch.nn.LayerNorm(1024), ("f", (1024, 1024))
    yield "attention", lambda: tb.Attention(64), ("f", (4, 128, 64))
    for name, make, kind, shape in tb.real_models():
        yield name, make, ("f" if kind == "image" else "i", shape)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--calls", type=int, default=50)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--backends", default="coil,inductor,eager")
    a = p.parse_args()
    dev = a.device
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    warnings.simplefilter("ignore")
    for name, make, (kind, shape) in models():
        torch.manual_seed(0)
        m = make().to(dev).eval()
        x = torch.randn(*shape, device=dev) if kind == "f" else torch.randint(0, 1000, shape, device=dev)
        with torch.no_grad():
            want = tb.first_tensor(m(x))
            for backend in a.backends.split(","):
                torch._dynamo.reset()
                f = m if backend == "eager" else torch.compile(m, backend=backend, dynamic=False)
                t0 = time.perf_counter()
                got = tb.first_tensor(f(x))
                first_s = time.perf_counter() - t0
                us = call_us(f, x, sync, a.warmup, a.calls)
                print(json.dumps({"model": name, "device": dev, "backend": backend,
                                  "call_us": round(us, 1),
                                  "first_call_s": round(first_s, 2),
                                  "max_abs_err": (got - want).abs().max().item()}), flush=True)


if __name__ == "__main__":
    main()
