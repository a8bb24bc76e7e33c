"""Training through coil against eager and Inductor (issue 31): each model trains `--steps`
steps (forward, loss, backward, optimizer step) on one random batch, with the model and the
optimizer's step compiled (`torch.compile(model)`, `torch.compile(optimizer.step)`), in one
process, and prints one JSON line per model and way: the losses of the first and last steps,
the median step time after `--warmup` steps, the first step's time (compiles included), and
coil's graph counts (and why any went to eager), and on CUDA the peak memory allocated
(`torch.cuda.max_memory_allocated`, MiB).

    .venv/bin/python tools/train_bench.py [--steps 100] [--device cpu|cuda] [--models resnet18_w16,gpt2]
        [--ways eager,coil,inductor,coil-own]

`coil-own` is coil with `aten_externs=False`: its own convolution gradients and transforms, not
ATen's called between its kernels (the default). `coil-graphs` is coil with `cudagraphs=True`
(each compiled graph's calls replayed from a captured CUDA graph, `mode="reduce-overhead"`).

Models (random weights, configs as the repo's real models):
- resnet18_w16: torchvision's ResNet-18 (BasicBlock, [2, 2, 2, 2]) at a quarter of its stage
  widths, 10 classes, batch 8 of 3x32x32, SGD with momentum 0.9, lr 0.05;
- gpt2: GPT2LMHeadModel(n_layer=2, n_embd=64, n_head=2, vocab 1000, 128 positions), batch 4 of
  32 tokens (the labels the inputs), AdamW lr 1e-3.
"""

import argparse
import copy
import json
import statistics
import time
import warnings

import torch

warnings.simplefilter("ignore")


def resnet18_w16():
    import torchvision
    from torchvision.models.resnet import BasicBlock

    class Narrow(torchvision.models.ResNet):
        def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
            return super()._make_layer(block, planes // 4, blocks, stride, dilate)

    model = Narrow(BasicBlock, [2, 2, 2, 2], num_classes=10)
    model.fc = torch.nn.Linear(128, 10)
    x = torch.randn(8, 3, 32, 32)
    y = torch.randint(0, 10, (8,))

    def loss(m, x, y):
        return torch.nn.functional.cross_entropy(m(x), y)

    return model, (x, y), loss, lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)


def gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=1000, n_positions=128,
                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    model = GPT2LMHeadModel(cfg)
    ids = torch.randint(0, 1000, (4, 32))

    def loss(m, x, y):
        return m(input_ids=x, labels=y).loss

    return model, (ids, ids), loss, lambda p: torch.optim.AdamW(p, lr=1e-3)


MODELS = {"resnet18_w16": resnet18_w16, "gpt2": gpt2}


def train(make, way, steps, warmup, device):
    import coil

    torch.manual_seed(0)
    model, (x, y), loss_fn, make_opt = make()
    model = model.to(device).train()
    x, y = x.to(device), y.to(device)
    torch._dynamo.reset()
    coil.reset_stats()
    opt = make_opt(model.parameters())
    backend = {"coil": "coil", "coil-own": "coil", "coil-graphs": "coil",
               "inductor": "inductor"}.get(way)
    # coil-own: coil's own convolution gradients, not ATen's between its kernels.
    options = {"coil-own": {"aten_externs": False},
               "coil-graphs": {"cudagraphs": True}}.get(way)
    fm = torch.compile(model, backend=backend, options=options) if backend else model
    step = torch.compile(opt.step, backend=backend, options=options) if backend else opt.step
    losses, times = [], []
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    for _ in range(steps):
        t = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(fm, x, y)
        loss.backward()
        step()
        if device == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
        losses.append(loss.item())
    stats = coil.torch_stats() if way.startswith("coil") else {}
    return {
        "way": way,
        "first_loss": losses[0],
        "last_loss": losses[-1],
        "step_ms": 1e3 * statistics.median(times[warmup:]),
        "first_step_s": times[0],
        "graphs": stats.get("graphs_compiled"),
        "backward_graphs": stats.get("backward_graphs_compiled"),
        "to_eager": len(stats.get("graphs_to_eager", [])),
        "to_eager_why": [r[:300] for r in stats.get("graphs_to_eager", [])],
        "in_place": stats.get("outputs_in_place"),
        "kernels": stats.get("kernels"),
        "aten_extern_calls": stats.get("aten_extern_calls"),
        "peak_mib": (round(torch.cuda.max_memory_allocated() / 2**20, 1)
                     if device == "cuda" else None),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--ways", default="eager,coil,inductor")
    a = ap.parse_args()
    for name in a.models.split(","):
        for way in a.ways.split(","):
            r = train(MODELS[name], way, a.steps, a.warmup, a.device)
            print(json.dumps({"model": name, "device": a.device, **r}), flush=True)


if __name__ == "__main__":
    main()
