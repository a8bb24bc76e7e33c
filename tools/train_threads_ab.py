"""A training step through coil with its CPU kernels on PyTorch's OpenMP threads against
coil's own pool (`cpu_threads`), or through Inductor: one of `train_bench.py`'s models, each
way given compiled, 10 warm-up steps, then the median of 40 (ms), the last loss. Ways after
the model, comma-separated (`openmp`, `own`, `inductor`); on a small machine run one way per
process, alternated, since the order of ways in one process moves every figure:

    for r in 1 2 3; do for w in own openmp; do
        .venv/bin/python tools/train_threads_ab.py gpt2 $w; done; done
"""
import sys, time, statistics, torch, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, "tools")
import train_bench as tb
import coil
model_name = sys.argv[1]
for way in sys.argv[2].split(","):
    torch.manual_seed(0)
    model, (x, y), loss_fn, make_opt = tb.MODELS[model_name]()
    model = model.train(); torch._dynamo.reset()
    opt = make_opt(model.parameters())
    backend = "inductor" if way == "inductor" else "coil"
    options = None if way == "inductor" else {"cpu_threads": way}
    fm = torch.compile(model, backend=backend, options=options); step = torch.compile(opt.step, backend=backend, options=options)
    ts = []
    for i in range(50):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(fm, x, y); loss.backward(); step()
        if i >= 10: ts.append((time.perf_counter() - t0) * 1e3)
    print(model_name, way, round(statistics.median(ts), 2), round(loss.item(), 4), flush=True)
