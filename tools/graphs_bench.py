"""Per-call time of a launch-bound model with and without CUDA graphs (issue 33's per-call
path): a stack of `--layers` blocks (Linear, GELU, LayerNorm, residual add) at batch 1, width
`--width`, through eager, coil, coil with `mode="reduce-overhead"` (`coil._graphs`), Inductor
and Inductor's reduce-overhead; each timed over `--calls` calls queued back to back then one
synchronize, median of `--rounds`. Prints one JSON line per way (µs a call, and its output's
largest difference from eager's, relative to eager's largest magnitude).

    python tools/graphs_bench.py [--layers 16 --width 512 --calls 200 --rounds 5]
"""

import argparse
import json
import statistics
import time
import warnings

import torch

warnings.simplefilter("ignore")


class Block(torch.nn.Module):
    def __init__(self, w):
        super().__init__()
        self.fc = torch.nn.Linear(w, w)
        self.norm = torch.nn.LayerNorm(w)

    def forward(self, x):
        return x + self.norm(torch.nn.functional.gelu(self.fc(x)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--ways", default="eager,coil,coil-graphs,inductor,inductor-graphs")
    a = ap.parse_args()
    import coil  # noqa: F401  (registers the backend)

    torch.manual_seed(0)
    model = torch.nn.Sequential(*[Block(a.width) for _ in range(a.layers)]).cuda().eval()
    x = torch.randn(1, a.width, device="cuda")  # every way's checked output is of this input
    with torch.no_grad():
        want = model(x)
    for way in a.ways.split(","):
        torch._dynamo.reset()
        backend, _, variant = way.partition("-")
        mode = {"mode": "reduce-overhead"} if variant == "graphs" else {}
        f = model if way == "eager" else torch.compile(model, backend=backend, **mode)
        rounds = []
        with torch.no_grad():
            for _ in range(5):
                out = f(torch.randn(1, a.width, device="cuda"))
            out = f(x).clone()
            for _ in range(a.rounds):
                torch.cuda.synchronize()
                t = time.perf_counter()
                for _ in range(a.calls):
                    f(torch.randn(1, a.width, device="cuda"))
                torch.cuda.synchronize()
                rounds.append((time.perf_counter() - t) / a.calls * 1e6)
        err = float((out - want).abs().max() / want.abs().max())
        print(json.dumps({"way": way, "layers": a.layers, "width": a.width,
                          "us_per_call": round(statistics.median(rounds), 1),
                          "rel_err": err}), flush=True)


if __name__ == "__main__":
    main()
