"""An optimizer step alone through coil and through Inductor, in one process: AdamW (or SGD
with momentum) over 30 parameters shaped like a small GPT-2's (embeddings, attention and MLP
weights and biases, three times), gradients set once, `torch.compile(opt.step)` timed over
repeated steps after warm-up. Prints µs a step per way.

    .venv/bin/python tools/optimizer_step_bench.py [--optimizer adamw|sgd] [--steps 300]
"""

import argparse
import time
import warnings

import torch

warnings.simplefilter("ignore")

SHAPES = [(1000, 128), (128,), (128, 384), (384,), (128, 128), (128,), (128, 512), (512,),
          (512, 128), (128,)] * 3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--optimizer", default="adamw", choices=["adamw", "sgd"])
    ap.add_argument("--steps", type=int, default=300)
    a = ap.parse_args()
    import coil  # noqa: F401  (registers the backend)

    torch.manual_seed(0)
    params = [torch.randn(s) for s in SHAPES]
    grads = [torch.randn(s) for s in SHAPES]
    for way in ["coil", "inductor"]:
        ps = [p.clone().requires_grad_() for p in params]
        for p, g in zip(ps, grads):
            p.grad = g.clone()
        opt = (torch.optim.AdamW(ps, lr=1e-3) if a.optimizer == "adamw"
               else torch.optim.SGD(ps, lr=1e-3, momentum=0.9))
        torch._dynamo.reset()
        step = torch.compile(opt.step, backend="coil" if way == "coil" else "inductor")
        for _ in range(5):
            step()
        t = time.perf_counter()
        for _ in range(a.steps):
            step()
        us = (time.perf_counter() - t) / a.steps * 1e6
        print(f"{way}: {us:.1f} us a step ({a.optimizer}, {len(ps)} parameters)")


if __name__ == "__main__":
    main()
