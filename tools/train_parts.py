"""Where a training step's time goes, part by part (issue 31): torchvision's ResNet-18 (10
classes, batch 8 at 3x32x32, SGD with momentum, foreach), or `--model gpt2` / `resnet18_w16`
(tools/train_bench.py's, with their losses and optimizers), each part timed alone, median of
the runs after two warm-ups, in one process, for eager, coil and Inductor (`torch.compile` of
the model and of `optimizer.step`):

    .venv/bin/python tools/train_parts.py [--runs 10] [--ways eager,coil,inductor] [--model resnet18]

A way `coil:key=value;...` is coil with those options (`coil:gemm=onednn`).

Parts: the forward under no_grad; the training forward and its backward (timed apart); the
optimizer step. Prints one line per way, ms.
"""

import argparse
import copy
import statistics
import time
import warnings

import torch

warnings.simplefilter("ignore")


def timed(f, runs):
    for _ in range(2):
        f()
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return 1e3 * statistics.median(ts)


def main():
    from torchvision.models.resnet import BasicBlock, ResNet

    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--ways", default="eager,coil,inductor")
    ap.add_argument("--model", default="resnet18", choices=["resnet18", "resnet18_w16", "gpt2"])
    a = ap.parse_args()
    torch.manual_seed(0)
    if a.model == "resnet18":
        model = ResNet(BasicBlock, [2, 2, 2, 2], num_classes=10)
        x, y = torch.randn(8, 3, 32, 32), torch.randint(0, 10, (8,))

        def loss_of(m, x, y):
            return torch.nn.functional.cross_entropy(m(x), y)

        def make_opt(p):
            return torch.optim.SGD(p, lr=0.01, momentum=0.9, foreach=True)
    else:
        import os
        import sys

        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import train_bench

        model, (x, y), loss_of, make_opt = train_bench.MODELS[a.model]()
    model = model.train()
    for way in a.ways.split(","):
        torch._dynamo.reset()
        m = copy.deepcopy(model)
        opt = make_opt(m.parameters())
        name, _, opts = way.partition(":")
        backend = {"coil": "coil", "inductor": "inductor"}.get(name)
        # `coil:key=value;key=value`: coil with those options.
        options = dict(kv.split("=", 1) for kv in opts.split(";") if kv) or None
        fm = torch.compile(m, backend=backend, options=options) if backend else m
        step = torch.compile(opt.step, backend=backend, options=options) if backend else opt.step
        loss_of(fm, x, y).backward()
        step()
        with torch.no_grad():
            inference = timed(lambda: fm(x), a.runs)
        fwd, bwd = [], []
        for _ in range(a.runs + 2):
            opt.zero_grad()
            t0 = time.perf_counter()
            loss = loss_of(fm, x, y)
            t1 = time.perf_counter()
            loss.backward()
            fwd.append(t1 - t0)
            bwd.append(time.perf_counter() - t1)
        opt_ms = timed(step, a.runs)
        print(f"{way}: forward (no_grad) {inference:.2f} ms, training forward "
              f"{1e3 * statistics.median(fwd[2:]):.2f} ms, backward "
              f"{1e3 * statistics.median(bwd[2:]):.2f} ms, optimizer step {opt_ms:.2f} ms",
              flush=True)


if __name__ == "__main__":
    main()
