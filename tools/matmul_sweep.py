#!/usr/bin/env python3
"""CPU matmul libraries side by side (issue 20, item 1): for every mm / addmm / bmm shape in
the zoo's and the real models' graph files and a sweep of square sizes, the same one-matmul
graph run by coil with each library (`run-model --bench --matmul32 library|gemm|openblas`
for f32, `--matmul16 library|widen` for bf16) and torch's own matmul in this process (its
threads set to the machine's cores, as coil's pool), medians in ms and GFLOP/s:

    python tools/matmul_sweep.py [--coil target/release/coil] [--squares 64,...,4096]
        [--dtypes f32,bf16] [--only-squares] [--json out.jsonl]

`library` is oneDNN's matmul (coil's default where it loads), `gemm` the gemm crate,
`openblas` OpenBLAS's cblas_sgemm, `widen` 16-bit operands widened to f32 for gemm. coil's
figure is the compiled model's median call (inputs resident, `run-model --bench`), so a few
microseconds of call overhead weigh on the smallest sizes.
"""

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
MODELS = os.path.join(ROOT, "crates", "coil-models", "models")
ANNOT = re.compile(r'(\w+): "(\w+)\[([\d, ]*)\]"')
CALL = re.compile(r'(\w+): "\w+\[[\d, ]*\]" = torch\.ops\.aten\.(mm|bmm|addmm)\.default\(([^)]*)\)')


def shapes_in(path):
    """(op, a_shape, b_shape) of each matmul in a readable FX file."""
    text = open(path).read()
    sizes = {n: [int(x) for x in s.split(",") if x.strip()] for n, _, s in ANNOT.findall(text)}
    out = []
    for _, op, args in CALL.findall(text):
        names = [a.strip() for a in args.split(",")]
        if op == "addmm":
            names = names[1:3]
        a, b = (sizes.get(n) for n in names[:2])
        if a and b:
            out.append(("bmm" if op == "bmm" else "mm", tuple(a), tuple(b)))
    return out


def graph(op, a, b, dt):
    out = list(a[:-1]) + [b[-1]]
    fmt = lambda s: ", ".join(map(str, s))  # noqa: E731
    return (
        "class GraphModule(torch.nn.Module):\n"
        f'    def forward(self, a: "{dt}[{fmt(a)}]", b: "{dt}[{fmt(b)}]"):\n'
        f'        r: "{dt}[{fmt(out)}]" = torch.ops.aten.{op}.default(a, b);  a = b = None\n'
        "        return (r,)\n"
    )


def coil_ms(coil, path, flags):
    p = subprocess.run([coil, "run-model", path, "--bench", "--json", *flags],
                       capture_output=True, text=True, timeout=600)
    try:
        r = json.loads(p.stdout)
        return r["bench"]["compiled_ms"] if r.get("ok") else None
    except Exception:
        return None


def torch_ms(op, a, b, dt, runs):
    dtype = {"f32": torch.float32, "bf16": torch.bfloat16}[dt]
    x, y = torch.randn(*a, dtype=dtype), torch.randn(*b, dtype=dtype)
    f = torch.mm if op == "mm" else torch.bmm
    out = f(x, y)
    for _ in range(3):
        f(x, y, out=out)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f(x, y, out=out)
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--coil", default=os.path.join(ROOT, "target", "release", "coil"))
    p.add_argument("--squares", default="64,128,256,512,1024,2048,4096")
    p.add_argument("--dtypes", default="f32,bf16")
    p.add_argument("--only-squares", action="store_true")
    p.add_argument("--runs", type=int, default=21)
    p.add_argument("--json", default="")
    args = p.parse_args()
    torch.set_num_threads(os.cpu_count())
    cases = {}
    for n in map(int, args.squares.split(",")):
        cases[("mm", (n, n), (n, n))] = f"square {n}"
    if not args.only_squares:
        for f in sorted(glob.glob(os.path.join(MODELS, "*.py")) + glob.glob(os.path.join(MODELS, "real", "*.py"))):
            for c in shapes_in(f):
                cases.setdefault(c, os.path.basename(f)[:-3])
    libs = {"f32": ["library", "gemm", "openblas"], "bf16": ["library", "widen"]}
    flag = {"f32": "--matmul32", "bf16": "--matmul16"}
    sink = open(args.json, "w") if args.json else None
    print("| shape | from | dtype | " + " | ".join(["oneDNN", "gemm", "OpenBLAS", "torch"]) + " | best |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for (op, a, b), where in cases.items():
            flops = 2 * a[-2] * a[-1] * b[-1] * (a[0] if op == "bmm" else 1)
            for dt in args.dtypes.split(","):
                path = os.path.join(tmp, "mm.py")
                open(path, "w").write(graph(op, a, b, dt))
                row = {lib: coil_ms(args.coil, path, [flag[dt], lib]) for lib in libs[dt]}
                row["torch"] = torch_ms(op, a, b, dt, args.runs)
                cell = lambda ms: "-" if ms is None else f"{ms:.3f} ({flops / ms / 1e6:.0f})"  # noqa: E731
                cols = [row.get("library"), row.get("gemm") or row.get("widen"), row.get("openblas"), row["torch"]]
                best = min((v, k) for k, v in row.items() if v is not None)[1]
                shape = f"{op} {list(a)} @ {list(b)}"
                print(f"| {shape} | {where} | {dt} | " + " | ".join(cell(c) for c in cols) + f" | {best} |", flush=True)
                if sink:
                    sink.write(json.dumps({"op": op, "a": a, "b": b, "dtype": dt, "from": where, "ms": row, "gflop": flops / 1e9}) + "\n")


if __name__ == "__main__":
    sys.exit(main())
