"""Training steps through `torch.compile(model, backend="coil", dynamic=True)` at several sizes
(issue 32: training graphs are dynamic too): each step's time (a new size's first step includes
its compile), its gradients' largest difference from eager's, and the backend's counts
(`traces_bound`: halves compiled per size from the one symbolic AOTAutograd trace).

    COIL_CACHE=0 python tools/dynamic_train_steps.py [--sizes 3,8,13,21,8]

Models: a two-layer MLP over a batch of the size, and a pre-norm attention block
(`python/tests/test_dynamic.py`'s `Block`) over a sequence of the size."""

import argparse
import json
import os
import sys
import time
import warnings

import torch

import coil

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python", "tests"))
from test_dynamic import Block  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="3,8,13,21,8")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    warnings.filterwarnings("ignore")
    models = {
        "mlp": (lambda: torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(),
                                            torch.nn.Linear(32, 4)),
                lambda n: torch.randn(n, 16)),
        "block": (Block, lambda n: torch.randn(2, n, 32)),
    }
    for name, (make, draw) in models.items():
        torch.manual_seed(0)
        torch._dynamo.reset()
        coil.reset_stats()
        model = make()
        step = torch.compile(model, backend="coil", dynamic=True, options={"strict": True})
        for n in sizes:
            x = draw(n)
            for p in model.parameters():
                p.grad = None
            t = time.perf_counter()
            step(x).square().sum().backward()
            ms = (time.perf_counter() - t) * 1e3
            got = [p.grad.clone() for p in model.parameters()]
            for p in model.parameters():
                p.grad = None
            model(x).square().sum().backward()
            err = max((g - p.grad).abs().max().item() for g, p in zip(got, model.parameters()))
            print(json.dumps({"model": name, "size": n, "step_ms": round(ms, 1),
                              "max_grad_err": err}), flush=True)
        s = coil.torch_stats()
        print(json.dumps({"model": name, **{k: s[k] for k in (
            "graphs_compiled", "backward_graphs_compiled", "dynamic_graphs", "specializations",
            "traces_bound", "kernels_reused", "graphs_to_eager")}}), flush=True)


if __name__ == "__main__":
    main()
