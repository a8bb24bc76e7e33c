"""Where one coil call's time goes through torch.compile (issue 18, item 3): a zoo model
(seed_model at [1024, 1024] unless told) on CUDA, the whole call against Dynamo alone (a
backend that computes nothing), coil's callable, the native launch (with and without waiting),
torch.empty, and one `x + 1` through coil, inductor and eager; then, under torch.profiler, the
GPU kernels one call of the model runs with coil and with inductor (name and microseconds,
averaged over 50 calls). Prints one JSON line of microseconds per call (2000 queued calls each):

    python tools/torch_backend_breakdown.py [--model attention --size article --dtype bfloat16]
"""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "tests"))
import coil._backend as b  # noqa: E402
import zoo_modules  # noqa: E402


def per_call_us(f, calls=2000):
    """Microseconds per call of `calls` calls queued back to back, then one synchronize."""
    for _ in range(100):
        f()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        f()
    torch.cuda.synchronize()
    return round((time.perf_counter() - start) / calls * 1e6, 2)


def kernels_per_call(f, calls=50):
    """{kernel name: µs per call} of the GPU kernels `calls` calls of `f` ran (torch.profiler)."""
    from torch.profiler import ProfilerActivity, profile

    for _ in range(10):
        f()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            f()
        torch.cuda.synchronize()
    out = {}
    for e in prof.key_averages():
        t = getattr(e, "device_time_total", None) or getattr(e, "cuda_time_total", 0)
        if t and e.device_type.name == "CUDA":
            out[e.key[:80]] = round(t / calls, 2)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="seed_model")
    p.add_argument("--size", default="article")
    p.add_argument("--dtype", default="float32")
    a = p.parse_args()
    dtype = getattr(torch, a.dtype)
    runners = []
    original = b._compile

    def spy(gm, example_inputs, options, trusted):
        runner = original(gm, example_inputs, options, trusted)
        runners.append(runner)
        return runner

    b._compile = spy
    _, make, inputs = next(z for z in zoo_modules.zoo(a.size) if z[0] == a.model)
    m = make().cuda().to(dtype).eval()
    xs = [t.cuda().to(dtype) for t in inputs()]
    x = xs[0]
    n = x.shape[-1]
    out = {"model": a.model, "size": a.size, "dtype": a.dtype}
    with torch.no_grad():
        f = torch.compile(m, backend="coil", dynamic=False)
        f(*xs)
        r = runners[0]
        # The runner takes Dynamo's graph inputs: the inputs and the parameters, matched by shape.
        pool = list(xs) + list(m.parameters())
        ins = [pool.pop(next(i for i, a in enumerate(pool) if a.shape == s)) for s in r.shapes]
        out["full"] = per_call_us(lambda: f(*xs))
        out["coil_kernels"] = kernels_per_call(lambda: f(*xs))
        out["runner"] = per_call_us(lambda: r(*ins))
        ptrs = [a.data_ptr() for a in ins] + r.const_ptrs
        bufs = [torch.empty(s, dtype=d, device="cuda") for s, d, _ in r.outs]
        outs = [q.data_ptr() for q in bufs]
        stream = r.get_stream()
        out["native_run_device"] = per_call_us(lambda: r.model.run_device(ptrs, outs, stream))
        out["native_run_device_sync"] = per_call_us(lambda: r.model.run_device(ptrs, outs, None))
        # coil's matmuls through classic cuBLAS and through cuBLASLt: both compiled, then their
        # native calls timed in turn, five rounds (the medians; drift falls on both alike).
        native = {}
        for gemm in ("classic", "lt"):
            torch._dynamo.reset()
            runners.clear()
            g = torch.compile(m, backend="coil", dynamic=False, options={"gemm": gemm})
            g(*xs)
            rg = runners[0]
            ptrs_g = [a.data_ptr() for a in ins] + rg.const_ptrs
            native[gemm] = (rg, ptrs_g)
        rounds = {"classic": [], "lt": []}
        for _ in range(5):
            for gemm, (rg, ptrs_g) in native.items():
                rounds[gemm].append(per_call_us(lambda: rg.model.run_device(ptrs_g, outs, stream)))
        for gemm, v in rounds.items():
            out[f"native_run_device_{gemm}"] = sorted(v)[len(v) // 2]
            out[f"native_run_device_{gemm}_rounds"] = v
        out["empty"] = per_call_us(lambda: torch.empty((n, n), device="cuda", dtype=dtype))
        out["get_stream"] = per_call_us(r.get_stream)
        out["data_ptrs"] = per_call_us(lambda: [a.data_ptr() for a in ins])
        torch._dynamo.reset()
        floor = torch.compile(m, backend=lambda gm, ex: (lambda *a: [a[0]]), dynamic=False)
        floor(*xs)
        out["dynamo_floor"] = per_call_us(lambda: floor(*xs))
        torch._dynamo.reset()
        ind = torch.compile(m, backend="inductor", dynamic=False)
        ind(*xs)
        out["inductor_full"] = per_call_us(lambda: ind(*xs))
        out["inductor_kernels"] = kernels_per_call(lambda: ind(*xs))
        for backend in ("inductor", "coil"):
            torch._dynamo.reset()
            add = torch.compile(lambda y: y + 1, backend=backend, dynamic=False)
            add(x)
            out[f"{backend}_one_add"] = per_call_us(lambda: add(x))
        out["eager_one_add"] = per_call_us(lambda: x + 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
