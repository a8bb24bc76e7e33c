#!/usr/bin/env python3
"""torch.compile baselines for the zoo's large memory-bound models on the CPU.

    LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 \
        python tools/torch_cpu_baseline.py [--size 8192] [--runs 21] [--json out.json]

For seed_model, softmax, layernorm, rmsnorm, rowsum and siblings (the functions of
tools/torch_baseline.py, which the zoo was exported from) it compiles with torch.compile
(Inductor's C++ backend), checks against eager, times the compiled call (warm-up, median of
--runs, inputs allocated once, wall clock) and reports GB/s over the model's minimum bytes (each
input read once, each output written once) against a scale copy `b = s * a` measured in the same
run (`torch.mul(a, s, out=b)`: f32, ordinary stores, every thread, arrays of the model's input
size, the output reused), which is what coil's `run-model --bench` calls `copy_gbps`.

torch allocates its outputs on every call. Large blocks come from mmap with glibc's malloc and go
back to the kernel on free, so every call would pay first-touch page faults on its output; run it
with an allocator that keeps freed pages (jemalloc or tcmalloc through LD_PRELOAD). The script
reports which allocator it found in its own process maps.

Two medians per model: back to back (`ms`: calls in a loop, so a last-level cache that holds
the model's bytes serves them, as on the GPU machine's host with its 300 MiB of L3), and
interleaved (`interleaved_ms`: a scale copy of the input's size before each call evicts them,
as coil's `run-model --bench` interleaves its copies; that is memory's figure). coil's
`run-model --bench --json` reports the same two (`compiled_ms`, `back_to_back_ms`).
"""

import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_baseline import layernorm, rmsnorm, rowsum, seed_model, siblings, softmax  # noqa: E402


def inputs(name, n):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, n, generator=g)
    v = lambda: torch.randn(n, generator=g)
    return {
        "seed_model": (x, v(), v(), v()),
        "layernorm": (x, v(), v()),
        "rmsnorm": (x, v()),
    }.get(name, (x,))


def median_ms(fn, runs, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def interleaved_ms(fn, between, runs, warmup=3):
    """The median of `runs` calls of `fn`, each after one call of `between` (not timed)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        between()
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def scale_copy_gbps(elems, runs):
    """STREAM's scale kernel over two f32 arrays of `elems`, both touched before timing."""
    a = torch.ones(elems)
    b = torch.zeros(elems)
    ms = median_ms(lambda: torch.mul(a, 3.0, out=b), runs)
    return 2 * elems * 4 / (ms * 1e-3) / 1e9


def allocator():
    try:
        with open("/proc/self/maps") as f:
            maps = f.read()
    except OSError:
        return "unknown"
    for name in ("jemalloc", "tcmalloc"):
        if name in maps:
            return name
    return "glibc malloc"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=8192)
    p.add_argument("--runs", type=int, default=21)
    p.add_argument("--json")
    p.add_argument("--models", help="comma-separated subset (default: all six)")
    a = p.parse_args()
    n = a.size
    threads = len(os.sched_getaffinity(0))
    torch.set_num_threads(threads)
    print(f"torch {torch.__version__}, {threads} threads, allocator: {allocator()}, "
          f"MALLOC_* env: {sorted(k for k in os.environ if k.startswith('MALLOC_'))}")
    rows = []
    chosen = set(a.models.split(",")) if a.models else None
    flush_a, flush_b = torch.ones(n * n), torch.zeros(n * n)
    flush = lambda: torch.mul(flush_a, 3.0, out=flush_b)
    for fn in [seed_model, softmax, layernorm, rmsnorm, rowsum, siblings]:
        if chosen is not None and fn.__name__ not in chosen:
            continue
        args = inputs(fn.__name__, n)
        compiled = torch.compile(fn)
        out_c, out_e = compiled(*args), fn(*args)
        outs_c = out_c if isinstance(out_c, tuple) else (out_c,)
        outs_e = out_e if isinstance(out_e, tuple) else (out_e,)
        ok = all(torch.allclose(c, e, rtol=1e-4, atol=1e-3) for c, e in zip(outs_c, outs_e))
        del out_c, out_e, outs_c, outs_e
        ms = median_ms(lambda: compiled(*args), a.runs)
        ims = interleaved_ms(lambda: compiled(*args), flush, a.runs)
        outs = compiled(*args)
        outs = outs if isinstance(outs, tuple) else (outs,)
        min_bytes = sum(t.numel() * t.element_size() for t in args) + sum(
            o.numel() * o.element_size() for o in outs)
        del outs
        copy = scale_copy_gbps(n * n, a.runs)
        gbps = min_bytes / (ms * 1e-3) / 1e9
        rows.append({"model": fn.__name__, "ok": ok, "ms": ms, "interleaved_ms": ims,
                     "min_bytes": min_bytes, "gbps": gbps, "copy_gbps": copy,
                     "fraction_of_copy": gbps / copy})
        print(f"{fn.__name__:12s} ok={ok} {ms:8.2f} ms back to back, {ims:8.2f} ms interleaved, "
              f"{gbps:6.1f} GB/s  scale copy {copy:5.1f} GB/s  {100 * gbps / copy:5.1f}% of copy",
              flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"size": n, "threads": threads, "torch": torch.__version__,
                       "allocator": allocator(), "models": rows}, f, indent=1)


if __name__ == "__main__":
    main()
