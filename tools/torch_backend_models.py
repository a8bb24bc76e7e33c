"""Per-call time of the zoo and real architectures through torch.compile with backend="coil",
backend="inductor" and eager (issue 18, item 6). One JSON line per (model, backend), printed as
it is measured:

    python tools/torch_backend_models.py --device cuda --calls 50 [--sets article,large,real]

The models are python/tests' (`zoo_modules.zoo` at the articles' sizes and the memory-bound ones
at [8192, 8192]; the six real architectures of test_backend.py): the modules the tests check.
Two figures per call, median of --calls after --warmup calls, no_grad, static shapes:
`call_us`, each call timed from Python to its result being ready (torch.cuda.synchronize after
each: what a loop that looks at every result sees), and `queued_us`, --calls calls issued back to
back then one synchronize, divided by --calls (what a loop that does not wait sees: host
overhead, or the device time when that is longer). With --rounds R > 1 the backends of a model
are all compiled first and then timed in turn R times (A, B, A, B, ...): drift on the machine
falls on each alike, and each figure is the median round (`queued_range` gives the spread).
"""

import argparse
import json
import os
import statistics
import sys
import time
import warnings

import torch
import coil

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python", "tests"))
sys.path.insert(0, os.path.dirname(__file__))
import test_backend as tb  # noqa: E402
import zoo_modules  # noqa: E402


def call_us(f, args, sync, warmup, calls):
    """`(call_us, queued_us)` of `f(*args)`: the median of `calls` calls each timed to its result
    being ready (`sync`), and the mean of `calls` calls issued back to back before one `sync`."""
    for _ in range(warmup):
        f(*args)
    sync()
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        f(*args)
        sync()
        times.append((time.perf_counter() - t) * 1e6)
    t = time.perf_counter()
    for _ in range(calls):
        f(*args)
    sync()
    queued = (time.perf_counter() - t) * 1e6 / calls
    return statistics.median(times), queued


def models(sets):
    for size in ("article", "large"):
        if size in sets:
            for name, make, inputs in zoo_modules.zoo(size):
                yield f"{name}@{size}", make, inputs
    if "real" in sets:
        for name, make, kind, shape in tb.real_models():
            if kind == "image":
                yield name, make, lambda shape=shape: [torch.randn(*shape)]
            else:
                yield name, make, lambda shape=shape: [torch.randint(0, 1000, shape)]


def report(name, backend, rounds, first_s, err, stats=None):
    """One JSON line: the median over `rounds` of (call_us, queued_us); for coil, how its first
    call split (`coil.torch_stats()`: Dynamo and AOTAutograd's trace, coil's compile, cache
    hits)."""
    us = statistics.median(r[0] for r in rounds)
    queued = statistics.median(r[1] for r in rounds)
    print(json.dumps({"model": name, "device": REPORT["dev"], "dtype": REPORT["dtype"],
                      "backend": backend, "call_us": round(us, 1), "queued_us": round(queued, 1),
                      "rounds": len(rounds),
                      "queued_range": [round(min(r[1] for r in rounds), 1),
                                       round(max(r[1] for r in rounds), 1)],
                      "gb_s": round(REPORT["moved"] / queued / 1e3, 1),
                      "copy_gb_s": round(REPORT["copy_gbs"], 1),
                      "first_call_s": round(first_s, 2),
                      "max_abs_err": err, **({"coil": stats} if stats else {})}), flush=True)


REPORT = {}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--calls", type=int, default=50)
    p.add_argument("--rounds", type=int, default=1, help="with more than 1: every backend "
                   "compiled first, then timed in turn, round after round; the medians")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--backends", default="coil,inductor,eager",
                   help="comma-separated; options after a colon: coil:gemm=onednn;strategy=tvm; "
                   "dynamo: torch.compile(backend='eager'), Dynamo's tracing alone")
    p.add_argument("--sets", default="article,large,real")
    p.add_argument("--only", default="", help="comma-separated model names")
    p.add_argument("--dtype", default="float32", help="float32, bfloat16 or float16: the "
                   "modules and float inputs cast to it")
    a = p.parse_args()
    dev = a.device
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    warnings.simplefilter("ignore")
    only = set(filter(None, a.only.split(",")))
    dtype = getattr(torch, a.dtype)
    for name, make, inputs in models(a.sets.split(",")):
        if only and name.split("@")[0] not in only:
            continue
        torch.manual_seed(0)
        m = make().to(dev).to(dtype).eval()
        args = [t.to(dev).to(dtype) if t.is_floating_point() else t.to(dev) for t in inputs()]
        with torch.no_grad():
            want = tb.first_tensor(m(*args))
            # The least memory a call moves (inputs read once, outputs written once), and a
            # copy of the first input's bytes for comparison (same process).
            outs = m(*args)
            outs = outs if isinstance(outs, (tuple, list)) else [outs]
            moved = sum(t.numel() * t.element_size() for t in list(args) + [o for o in outs if isinstance(o, torch.Tensor)])
            src = args[0]
            dst = torch.empty_like(src)
            copy_us, copy_queued = call_us(lambda s: dst.copy_(s), [src], sync, a.warmup, a.calls)
            copy_gbs = 2 * src.numel() * src.element_size() / copy_queued / 1e3
            REPORT.update(dev=dev, dtype=a.dtype, moved=moved, copy_gbs=copy_gbs)
            compiled = []
            # The zoo's functional models share one forward (`zoo_modules.Fn`): without a reset
            # per model, Dynamo's cache of that code fills up and later models run eagerly.
            torch._dynamo.reset()
            for backend in a.backends.split(","):
                if a.rounds == 1:
                    torch._dynamo.reset()
                # `coil:gemm=onednn;strategy=tvm`: a backend with options.
                kind, _, opts = backend.partition(":")
                options = dict(kv.split("=", 1) for kv in opts.split(";") if kv) or None
                # `dynamo`: Dynamo's own tracing, its graphs run eagerly (backend="eager").
                f = m if kind == "eager" else torch.compile(
                    m, backend="eager" if kind == "dynamo" else kind, dynamic=False,
                    options=options)
                if kind == "coil":
                    coil.reset_stats()
                t0 = time.perf_counter()
                got = tb.first_tensor(f(*args))
                first_s = time.perf_counter() - t0
                stats = None
                if kind == "coil":
                    s = coil.torch_stats()
                    stats = {k: round(s[k], 4) if isinstance(s[k], float) else s[k]
                             for k in ("trace_s", "coil_compile_s", "compile_s", "cache_hits",
                                       "trace_cache_hits", "program_cache_hits",
                                       "graphs_compiled")}
                compiled.append((backend, f, first_s, (got - want).abs().max().item(), stats))
                if a.rounds == 1:
                    report(name, backend, [call_us(f, args, sync, a.warmup, a.calls)], first_s,
                           compiled[-1][3], stats)
            if a.rounds > 1:
                # Every backend compiled, then timed in turn, round after round: drift on the
                # machine falls on all of them alike; the median round is reported.
                times = {b: [] for b, *_ in compiled}
                for _ in range(a.rounds):
                    for backend, f, *_ in compiled:
                        times[backend].append(call_us(f, args, sync, a.warmup, a.calls))
                for backend, _, first_s, err, stats in compiled:
                    report(name, backend, times[backend], first_s, err, stats)


if __name__ == "__main__":
    main()
