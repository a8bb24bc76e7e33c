"""Time a call of language models through `torch.compile(..., dynamic=True)` with CPU machine
code shared across sizes (the default: kernels generalized over sizes from the second size on)
against each size's own code (`share_code=False`), both dynamic, interleaved in one process:

    COIL_CACHE=0 python tools/dynamic_share_ab.py [--models gpt2,llama] [--rounds 5] [--calls 30]

Every size is called once by both first (so the shared compiles generalize); then, per size, the
median of each round's median call (µs). Prints one line per (model, size)."""

import argparse
import os
import statistics
import sys
import time
import warnings

import torch

import coil

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python", "tests"))
import test_backend as tb  # noqa: E402
from dynamic_bench import position_limit  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="gpt2,llama")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=30)
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    torch._dynamo.config.cache_size_limit = 64
    wanted = set(a.models.split(","))
    for name, make, kind, shape in tb.real_models():
        if name not in wanted or kind == "image":
            continue
        model = make().eval()
        top = min(position_limit(model), 128)
        torch._dynamo.reset()
        ways = {share: torch.compile(model, backend="coil", dynamic=True,
                                     options={"share_code": share}) for share in (True, False)}
        with torch.no_grad():
            for n in (5, 17, 32, 61, top):
                x = torch.randint(0, 1000, (shape[0], n))
                for share in (True, False):
                    ways[share](x)
            for n in (32, 61, top):
                x = torch.randint(0, 1000, (shape[0], n))
                medians = {True: [], False: []}
                for _ in range(a.rounds):
                    for share in (True, False):
                        times = []
                        for _ in range(a.calls):
                            t = time.perf_counter()
                            ways[share](x)
                            times.append((time.perf_counter() - t) * 1e6)
                        medians[share].append(statistics.median(times))
                print(f"{name} length {n}: shared {statistics.median(medians[True]):.0f} µs, "
                      f"own code {statistics.median(medians[False]):.0f} µs", flush=True)


if __name__ == "__main__":
    main()
