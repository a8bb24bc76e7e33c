"""What a new size costs through `torch.compile(model, backend="coil", dynamic=True)`: the first
call at each size (Dynamo's binding of the sizes, the trace to ATen, coil's compile), with the
CPU machine code shared across sizes (the default) and with every size compiling all of its own
(`share_code=False`), the two alternated size by size in one process. With `COIL_CACHE=0` so
that the compile cache serves neither:

    COIL_CACHE=0 python tools/dynamic_first_calls.py [--models gpt2,resnet18] [--device cpu]

One JSON line per (model, size, way): `first_ms`, and coil's split of it (`trace_ms`,
`coil_compile_ms`, `kernels`, `kernels_reused`)."""

import argparse
import json
import os
import sys
import time
import warnings

import torch

import coil

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python", "tests"))
import test_backend as tb  # noqa: E402
from dynamic_bench import sized_inputs  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--models", default=None)
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    torch._dynamo.config.cache_size_limit = 64
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
        ways = {share: torch.compile(model, backend="coil", dynamic=True,
                                     options={"share_code": share})
                for share in (True, False)}
        with torch.no_grad():
            for i, x in enumerate(inputs):
                order = (True, False) if i % 2 == 0 else (False, True)
                for share in order:
                    coil.reset_stats()
                    t = time.perf_counter()
                    ways[share](x)
                    sync()
                    ms = (time.perf_counter() - t) * 1e3
                    s = coil.torch_stats()
                    print(json.dumps({
                        "model": name, "size": list(x.shape), "share_code": share,
                        "first_ms": round(ms, 1), "trace_ms": round(s["trace_s"] * 1e3, 1),
                        "coil_compile_ms": round(s["coil_compile_s"] * 1e3, 1),
                        "kernels": s["kernels"], "kernels_reused": s["kernels_reused"]}),
                        flush=True)


if __name__ == "__main__":
    main()
