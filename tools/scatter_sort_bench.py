#!/usr/bin/env python3
"""Scatters, sorts, topk and fmod through torch.compile(backend="coil") against Inductor and
eager, per call (ms; the mean of 50 back-to-back calls after 3 warm-ups), each result checked
against eager and the host fallbacks listed (none expected).

    .venv/bin/python tools/scatter_sort_bench.py [cpu|cuda]
"""
import sys
import time

import torch

import coil

torch.manual_seed(0)
dev = sys.argv[1] if len(sys.argv) > 1 else ("cuda" if torch.cuda.is_available() else "cpu")


def sync():
    if dev == "cuda":
        torch.cuda.synchronize()


def bench(f, *a, n=50):
    for _ in range(3):
        f(*a)
    sync()
    t = time.perf_counter()
    for _ in range(n):
        f(*a)
    sync()
    return (time.perf_counter() - t) / n * 1e3


cases = {
    "scatter_add 1M into 1024 bins": (lambda x, i, s: x.scatter_add(0, i, s),
        (torch.zeros(1024, device=dev), torch.randint(0, 1024, (1 << 20,), device=dev), torch.randn(1 << 20, device=dev))),
    "index_put accumulate 64k rows of 128": (lambda x, i, v: torch.index_put(x, (i,), v, accumulate=True),
        (torch.zeros(4096, 128, device=dev), torch.randint(0, 4096, (65536,), device=dev), torch.randn(65536, 128, device=dev))),
    "index_put 4096 rows of 256 bf16": (lambda x, i, v: torch.index_put(x, (i,), v),
        (torch.zeros(8192, 256, device=dev, dtype=torch.bfloat16), torch.randperm(8192, device=dev)[:4096], torch.randn(4096, 256, device=dev, dtype=torch.bfloat16))),
    "sort 512 rows of 1024": (lambda x: torch.sort(x, dim=-1), (torch.randn(512, 1024, device=dev),)),
    "sort 4096 rows of 64": (lambda x: torch.sort(x, dim=-1), (torch.randn(4096, 64, device=dev),)),
    "topk 8 of 2048, 256 rows": (lambda x: torch.topk(x, 8), (torch.randn(256, 2048, device=dev),)),
    "topk 8 of a 128256 vocabulary, batch 1": (lambda x: torch.topk(x, 8), (torch.randn(1, 128256, device=dev),)),
    "topk 16 of 32000, batch 8": (lambda x: torch.topk(x, 16), (torch.randn(8, 32000, device=dev),)),
    "fmod 4M f32": (lambda x, y: torch.fmod(x, y), (torch.randn(1 << 22, device=dev) * 100, torch.randn(1 << 22, device=dev))),
}

for name, (f, args) in cases.items():
    torch._dynamo.reset(); coil.reset_stats()
    c = torch.compile(f, backend="coil", dynamic=False)
    want = f(*args); got = c(*args)
    w = want if isinstance(want, tuple) else (want,)
    g = got if isinstance(got, tuple) else (got,)
    ok = all(torch.allclose(a.float(), b.float(), rtol=1e-3, atol=1e-3) for a, b in zip(w, g))
    st = coil.torch_stats()
    torch._dynamo.reset()
    ind = torch.compile(f, dynamic=False)
    ind(*args)
    print(f"{name:38s} ok={ok} fallbacks={st['fallback_ops']} to_eager={len(st['graphs_to_eager'])} "
          f"coil {bench(c, *args):.3f} ms  inductor {bench(ind, *args):.3f} ms  eager {bench(f, *args):.3f} ms", flush=True)
