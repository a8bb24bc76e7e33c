"""Where a training step through coil spends its time: one of `train_bench.py`'s models, the
model and `optimizer.step` compiled with backend="coil", 5 warm-up steps, then 20 steps under
cProfile (the Python side: coil's runners, AOTAutograd, the native calls) and 5 under the
PyTorch profiler (device kernels and copies, e.g. `Memcpy DtoH` counts), each table printed.

    .venv/bin/python tools/train_profile.py resnet18_w16 [--device cuda] [--backend inductor]

`--backend inductor` profiles the same step through Inductor, to set beside coil's.
"""

import argparse
import cProfile
import os
import pstats
import sys
import time
import warnings

import torch

warnings.simplefilter("ignore")
sys.path.insert(0, os.path.dirname(__file__))
from train_bench import MODELS  # noqa: E402


def main():
    import coil

    ap = argparse.ArgumentParser()
    ap.add_argument("model", choices=sorted(MODELS))
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--backend", default="coil")
    a = ap.parse_args()
    torch.manual_seed(0)
    model, (x, y), loss_fn, make_opt = MODELS[a.model]()
    model = model.to(a.device).train()
    x, y = x.to(a.device), y.to(a.device)
    opt = make_opt(model.parameters())
    fm = torch.compile(model, backend=a.backend)
    step_fn = torch.compile(opt.step, backend=a.backend)
    sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)

    def step():
        opt.zero_grad(set_to_none=True)
        loss_fn(fm, x, y).backward()
        step_fn()

    for _ in range(5):
        step()
    sync()
    prof = cProfile.Profile()
    t = time.perf_counter()
    prof.enable()
    for _ in range(20):
        step()
    sync()
    prof.disable()
    print(f"{a.model} on {a.device}: {(time.perf_counter() - t) / 20 * 1e3:.2f} ms a step "
          "under cProfile")
    s = coil.torch_stats()
    print({k: s[k] for k in ("graphs_compiled", "backward_graphs_compiled", "graphs_to_eager",
                             "fallback_ops", "aten_extern_calls", "outputs_in_place")})
    pstats.Stats(prof).sort_stats("tottime").print_stats(22)
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if a.device == "cuda" else [])
    with profile(activities=activities) as p:
        for _ in range(5):
            step()
        sync()
    key = "cuda_time_total" if a.device == "cuda" else "cpu_time_total"
    print(p.key_averages().table(sort_by=key, row_limit=22, max_name_column_width=60))


if __name__ == "__main__":
    main()
