#!/usr/bin/env python3
"""Runs a readable-FX graph file in PyTorch on CUDA, eager and torch.compile'd, on the inputs of
a safetensors file; checks both against its saved outputs and times them.

    python tools/torch_graph_bench.py graph.py inputs.safetensors [--device cuda|cpu] [--runs 50] [--json out.json]
        [--backend inductor|coil]

`--backend` is torch.compile's (default inductor); with coil the line also gives the host
calls inside coil's graphs (`fallback_ops`).

The graph is the text coil reads (`class GraphModule(torch.nn.Module): def forward(...)`), so
coil and Inductor compile the same graph. Timing: CUDA events around ten calls back to back,
median of --runs samples, after a warm-up; per-call host time of one synchronous call too. On
the CPU (`--device cpu`) each sample is one call timed with the host clock.
"""

import argparse
import json
import math
import statistics
import time

import torch
from safetensors.torch import load_file


def load_module(path, dev="cuda"):
    # Factories in the graph name the device they were exported on; run them on `dev`.
    scope = {"torch": torch, "device": lambda type=None, index=None: torch.device(dev),
             "inf": math.inf, "nan": math.nan}
    # The export-time device assertions name the device the graph was exported on.
    text = "\n".join(l for l in open(path).read().splitlines() if "_assert_tensor_metadata" not in l)
    exec(compile(text, path, "exec"), scope)
    return scope["GraphModule"]()


def bench_cpu(fn, args, runs):
    for _ in range(3):
        fn(*args)
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn(*args)
        samples.append((time.perf_counter() - t) * 1e3)
    return statistics.median(samples), statistics.median(samples) * 1e3


def bench(fn, args, runs):
    for _ in range(3):
        fn(*args)
    torch.cuda.synchronize()
    samples = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(10):
            fn(*args)
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) / 10)
    t = time.perf_counter()
    for _ in range(20):
        fn(*args)
        torch.cuda.synchronize()
    host_us = (time.perf_counter() - t) / 20 * 1e6
    return statistics.median(samples), host_us


def max_err(got, want):
    got = got if isinstance(got, (tuple, list)) else (got,)
    return max((g.float().cpu() - w.float()).abs().max().item() if g.numel() else 0.0
               for g, w in zip(got, want))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("graph")
    p.add_argument("inputs")
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--device", default="cuda")
    p.add_argument("--json")
    p.add_argument("--backend", default="inductor")
    a = p.parse_args()
    m = load_module(a.graph, a.device)
    timed = bench if a.device == "cuda" else bench_cpu
    tensors = load_file(a.inputs)
    names = [n for n in m.forward.__code__.co_varnames[1:m.forward.__code__.co_argcount]]
    args = [tensors[f"input.{n}"].to(a.device) for n in names]
    want = [tensors[k] for k in sorted((k for k in tensors if k.startswith("output.")),
                                       key=lambda k: int(k.split(".")[1]))]
    out = {"graph": a.graph, "device": a.device, "threads": torch.get_num_threads(),
           "backend": a.backend}
    with torch.no_grad():
        out["eager_err"] = max_err(m(*args), want)
        out["eager_ms"], out["eager_host_us"] = timed(m, args, a.runs)
        c = torch.compile(m, backend=a.backend, dynamic=False)
        t = time.perf_counter()
        got = c(*args)
        if a.device == "cuda":
            torch.cuda.synchronize()
        out["compile_s"] = time.perf_counter() - t
        out["compiled_err"] = max_err(got, want)
        out["compiled_ms"], out["compiled_host_us"] = timed(c, args, a.runs)
    if a.backend == "coil":
        import coil

        out["fallback_ops"] = coil.torch_stats()["fallback_ops"]
    print(json.dumps(out))
    if a.json:
        json.dump(out, open(a.json, "w"))


if __name__ == "__main__":
    main()
