#!/usr/bin/env python3
"""torch.compile baselines for the zoo's memory-bound models, on one CUDA device.

    python tools/torch_baseline.py [--size 8192] [--runs 50] [--json out.json]

For each model (the functions the zoo was exported from, see crates/coil-models/models/README.md)
it compiles with torch.compile (Inductor), checks against eager, times the compiled call with
CUDA events (warm-up, ten calls back to back per sample, median of --runs), and reports GB/s over the model's minimum bytes (each
input read once, each output written once) against a device-to-device copy measured in the
same run.
"""

import argparse
import json
import statistics

import torch
import torch.nn.functional as F


def seed_model(x, bias, gamma, beta):
    a = torch.relu(x * 1.1 + bias)
    s = a * a + a * 0.1
    return (s - s.mean(1, keepdim=True)) * gamma + beta


def chain(x):
    return torch.sin(torch.relu(x + 1) * 2)


def rowsum(x):
    return torch.relu(x + 1).sum(1)


def siblings(x):
    return x.amax(1), x.sum(1)


def wall(x):
    return torch.relu(x - x.mean())


def softmax(x):
    return torch.softmax(x, -1)


def layernorm(x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b)


def rmsnorm(x, w):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w


def inputs(name, n, dev):
    x = torch.randn(n, n, device=dev)
    v = lambda: torch.randn(n, device=dev)
    return {
        "seed_model": (x, v(), v(), v()),
        "layernorm": (x, v(), v()),
        "rmsnorm": (x, v()),
    }.get(name, (x,))


def median_ms(fn, runs, warmup=5, back_to_back=10):
    """Median device time of one call: `back_to_back` calls between two CUDA events (so the
    GPU's queue never runs dry and Python's launch overhead is hidden, as coil's --bench
    does), `runs` samples."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(back_to_back):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / back_to_back)
    return statistics.median(times)


def host_call_us(fn, runs, warmup=20):
    """Median host time of one call followed by a synchronisation, in microseconds."""
    import time
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t) * 1e6)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=8192)
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--json")
    p.add_argument("--call-size", type=int, default=1024,
                   help="seed_model size whose whole-call host time is measured (0: skip)")
    a = p.parse_args()
    dev = "cuda"
    n = a.size
    src = torch.empty(n * n, device=dev)
    dst = torch.empty_like(src)
    copy_ms = median_ms(lambda: dst.copy_(src), a.runs)
    copy_gbps = 2 * src.numel() * 4 / (copy_ms * 1e-3) / 1e9
    print(f"{torch.cuda.get_device_name()}  torch {torch.__version__}  copy {copy_gbps:.0f} GB/s ({n}x{n} f32)")
    rows = []
    for fn in [seed_model, chain, rowsum, siblings, wall, softmax, layernorm, rmsnorm]:
        args = inputs(fn.__name__, n, dev)
        compiled = torch.compile(fn)
        out_c, out_e = compiled(*args), fn(*args)
        outs_c = out_c if isinstance(out_c, tuple) else (out_c,)
        outs_e = out_e if isinstance(out_e, tuple) else (out_e,)
        ok = all(torch.allclose(c, e, rtol=1e-4, atol=1e-4) for c, e in zip(outs_c, outs_e))
        ms = median_ms(lambda: compiled(*args), a.runs)
        min_bytes = sum(t.numel() * t.element_size() for t in args) + sum(o.numel() * o.element_size() for o in outs_c)
        gbps = min_bytes / (ms * 1e-3) / 1e9
        rows.append({"model": fn.__name__, "ok": ok, "ms": ms, "min_bytes": min_bytes, "gbps": gbps,
                     "fraction_of_copy": gbps / copy_gbps})
        print(f"{fn.__name__:12s} ok={ok} {ms:8.3f} ms  {gbps:7.0f} GB/s  {100 * gbps / copy_gbps:5.1f}% of copy")
    call_us = None
    if a.call_size:
        args = inputs("seed_model", a.call_size, dev)
        compiled = torch.compile(seed_model)
        call_us = host_call_us(lambda: compiled(*args), a.runs * 4)
        print(f"seed_model at {a.call_size}x{a.call_size}: {call_us:.1f} us per whole call (host clock, synchronised)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"copy_gbps": copy_gbps, "size": n, "models": rows,
                       "seed_call_us": call_us, "call_size": a.call_size}, f, indent=1)


if __name__ == "__main__":
    main()
