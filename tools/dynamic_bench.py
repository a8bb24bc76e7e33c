"""The real architectures through `torch.compile(..., dynamic=True)` over six sizes (issue 32's
targets): batch sizes 1 to 16 for the image models, sequence lengths 5 to 128 for the language
models. One JSON line per (model, size):

    python tools/dynamic_bench.py [--device cpu|cuda] [--calls 20] [--models resnet18,gpt2]

Per size: whether coil's dynamic compile matches eager (`coil.judge`'s tolerance as
test_backend's), its first call (`first_ms`: the binding's compile), its per-call median
(`dynamic_us`), coil's static compile of that size (`static_us`) and Inductor's `dynamic=True`
(`inductor_us`), and Dynamo alone (`backend="eager"`, symbolic and static: the difference is
what a dynamic graph costs a call before any compiler's code runs), all in this process, the
calls timed in turn. Per model, a last line
with the graphs each produced (`dynamic_graphs`, `specializations`)."""

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
import test_backend as tb  # noqa: E402

IMAGE_BATCHES = [1, 2, 4, 7, 12, 16]
SEQUENCE_LENGTHS = [5, 17, 32, 61, 100, 128]


def first(out):
    if isinstance(out, torch.Tensor):
        return out
    if isinstance(out, (tuple, list)):
        return first(out[0])
    for name in ("logits", "last_hidden_state"):
        if hasattr(out, name):
            return getattr(out, name)
    return first(out.to_tuple())


def position_limit(model):
    """The longest sequence a language model takes (its position table), else no limit."""
    config = getattr(model, "config", None)
    return (getattr(config, "n_positions", None)
            or getattr(config, "max_position_embeddings", 10**9))


def sized_inputs(model, kind, shape, dev):
    """The model's inputs at every size: `IMAGE_BATCHES` for an image model, else ids at
    `SEQUENCE_LENGTHS` (at most the model's position limit)."""
    if kind == "image":
        return [torch.randn(b, *shape[1:], device=dev) for b in IMAGE_BATCHES]
    limit = position_limit(model)
    return [torch.randint(0, 1000, (shape[0], min(s, limit)), device=dev)
            for s in SEQUENCE_LENGTHS]


def timed(f, x, sync, calls):
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        f(x)
        sync()
        times.append((time.perf_counter() - t) * 1e6)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--models", default=None)
    ap.add_argument("--inductor", action=argparse.BooleanOptionalAction, default=True)
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    torch._dynamo.config.cache_size_limit = 64
    # coil computes f32 as f32; eager's CUDA convolutions would otherwise use TF32.
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device(a.device)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    wanted = set(a.models.split(",")) if a.models else None
    for name, make, kind, shape in tb.real_models():
        if wanted and name not in wanted:
            continue
        torch.manual_seed(0)
        model = make().eval().to(dev)
        inputs = sized_inputs(model, kind, shape, dev)
        torch._dynamo.reset()
        coil.reset_stats()
        dyn = torch.compile(model, backend="coil", dynamic=True)
        ind = torch.compile(model, backend="inductor", dynamic=True) if a.inductor else None
        with torch.no_grad():
            for x in inputs:
                want = first(model(x))
                t = time.perf_counter()
                got = first(dyn(x))
                sync()
                first_ms = (time.perf_counter() - t) * 1e3
                ok = bool(torch.allclose(got, want, rtol=1e-3, atol=1e-4))
                # Dynamo alone (no compiler: backend="eager"), symbolic and static: what a
                # dynamic graph costs a call before any backend runs.
                dynamo = torch.compile(model, backend="eager", dynamic=True)
                dynamo_static = torch.compile(model, backend="eager", dynamic=False)
                dynamo(x)
                dynamo_static(x)
                # The size's own code: no machine code shared with the dynamic compiles.
                static = torch.compile(model, backend="coil", dynamic=False,
                                       options={"share_code": False})
                static_ok = bool(torch.allclose(first(static(x)), want, rtol=1e-3, atol=1e-4))
                if ind is not None:
                    ind(x)
                rounds = {"dynamic_us": [], "static_us": [], "inductor_us": [],
                          "dynamo_eager_dynamic_us": [], "dynamo_eager_static_us": []}
                for _ in range(3):
                    rounds["dynamic_us"].append(timed(dyn, x, sync, a.calls))
                    rounds["static_us"].append(timed(static, x, sync, a.calls))
                    rounds["dynamo_eager_dynamic_us"].append(timed(dynamo, x, sync, a.calls))
                    rounds["dynamo_eager_static_us"].append(timed(dynamo_static, x, sync, a.calls))
                    if ind is not None:
                        rounds["inductor_us"].append(timed(ind, x, sync, a.calls))
                row = {"model": name, "device": str(dev), "size": list(x.shape), "ok": ok,
                       "static_ok": static_ok, "first_ms": round(first_ms, 1)}
                for k, v in rounds.items():
                    if v:
                        row[k] = round(statistics.median(v), 1)
                row["dynamic_over_static"] = round(row["dynamic_us"] / row["static_us"], 3)
                print(json.dumps(row), flush=True)
        stats = coil.torch_stats()
        print(json.dumps({"model": name, "dynamic_graphs": stats["dynamic_graphs"],
                          "specializations": stats["specializations"],
                          "to_eager": len(stats["graphs_to_eager"])}), flush=True)


if __name__ == "__main__":
    main()
