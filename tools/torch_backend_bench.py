"""One call's overhead from Python through torch.compile (issue 18, item 3): the zoo's
seed_model on [rows, cols] through backend="coil", backend="inductor" and eager, beside two
floors that compile nothing: `dynamo` (Dynamo's guards and frame, the graph run as FX
code) and `aot_eager` (Dynamo and AOTAutograd's runtime wrappers). One JSON line per backend:

    python tools/torch_backend_bench.py --device cuda --rows 1024 --cols 1024 --calls 1000

`call_us` times each call to its result being ready; `queued_us` issues the calls back to back
and synchronizes once (the overhead a loop sees when the device keeps up). See
torch_backend_models.py.
"""

import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from torch_backend_models import call_us, zoo_modules  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--rows", type=int, default=1024)
    p.add_argument("--cols", type=int, default=1024)
    p.add_argument("--calls", type=int, default=1000)
    p.add_argument("--warmup", type=int, default=50)
    a = p.parse_args()
    dev = a.device
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    m = zoo_modules.SeedModel(a.cols).to(dev).eval()
    x = torch.randn(a.rows, a.cols, device=dev)
    backends = {
        "coil": "coil",
        "inductor": "inductor",
        "eager": None,
        "dynamo": lambda gm, example_inputs: gm.forward,
        "aot_eager": "aot_eager",
    }
    with torch.no_grad():
        want = m(x)
        for name, backend in backends.items():
            torch._dynamo.reset()
            f = m if backend is None else torch.compile(m, backend=backend, dynamic=False)
            err = (f(x) - want).abs().max().item()
            us, queued = call_us(f, [x], sync, a.warmup, a.calls)
            print(json.dumps({"model": "seed_model", "shape": [a.rows, a.cols], "device": dev,
                              "backend": name, "call_us": round(us, 1),
                              "queued_us": round(queued, 1), "max_abs_err": err}), flush=True)


if __name__ == "__main__":
    main()
