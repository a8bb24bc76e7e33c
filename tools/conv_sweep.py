#!/usr/bin/env python3
"""CPU convolutions side by side (issue 20, item 1): every distinct convolution of the real
models' graph files as a one-convolution graph, run by coil with oneDNN's convolution
(`run-model --bench --conv library`, the default where it loads) and as im2col plus a matmul
(`--conv im2col`), and by torch's own `torch.ops.aten.convolution` in this process (its
threads set to the machine's cores), f32, medians in ms:

    python tools/conv_sweep.py [--coil target/release/coil] [--json out.jsonl]
"""

import argparse
import glob
import json
import os
import re
import statistics
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from matmul_sweep import coil_ms  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
MODELS = os.path.join(ROOT, "crates", "coil-models", "models")
ANNOT = re.compile(r'(\w+): "(\w+)\[([\d, ]*)\]"')
CONV = re.compile(
    r'\w+: "\w+\[([\d, ]*)\]" = torch\.ops\.aten\.convolution\.default\((\w+), (\w+), (\w+), '
    r"\[([\d, ]*)\], \[([\d, ]*)\], \[([\d, ]*)\], False, \[[\d, ]*\], (\d+)\)"
)


def ints(s):
    return [int(x) for x in s.split(",") if x.strip()]


def convs_in(path):
    text = open(path).read()
    sizes = {n: ints(s) for n, _, s in ANNOT.findall(text)}
    out = []
    for osz, x, w, b, stride, pad, dil, groups in CONV.findall(text):
        if x in sizes and w in sizes:
            out.append((tuple(sizes[x]), tuple(sizes[w]), b != "None", tuple(ints(stride)),
                        tuple(ints(pad)), tuple(ints(dil)), int(groups), tuple(ints(osz))))
    return out


def graph(c):
    x, w, bias, stride, pad, dil, groups, out = c
    f = lambda s: ", ".join(map(str, s))  # noqa: E731
    b_arg = f', b: "f32[{w[0]}]"' if bias else ""
    b_use = "b" if bias else "None"
    return (
        "class GraphModule(torch.nn.Module):\n"
        f'    def forward(self, x: "f32[{f(x)}]", w: "f32[{f(w)}]"{b_arg}):\n'
        f'        r: "f32[{f(out)}]" = torch.ops.aten.convolution.default(x, w, {b_use}, '
        f"[{f(stride)}], [{f(pad)}], [{f(dil)}], False, [{f([0] * len(stride))}], {groups})\n"
        "        return (r,)\n"
    )


def torch_ms(c, runs):
    x, w, bias, stride, pad, dil, groups, _ = c
    xt, wt = torch.randn(*x), torch.randn(*w)
    bt = torch.randn(w[0]) if bias else None
    f = lambda: torch.ops.aten.convolution(xt, wt, bt, stride, pad, dil, False, [0] * len(stride), groups)  # noqa: E731
    for _ in range(3):
        f()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--coil", default=os.path.join(ROOT, "target", "release", "coil"))
    p.add_argument("--runs", type=int, default=21)
    p.add_argument("--json", default="")
    args = p.parse_args()
    torch.set_num_threads(os.cpu_count())
    cases = {}
    for f in sorted(glob.glob(os.path.join(MODELS, "real*", "*.py"))):
        if f.endswith("_bf16.py"):
            continue
        for c in convs_in(f):
            cases.setdefault(c, os.path.basename(f)[:-3])
    sink = open(args.json, "w") if args.json else None
    print("| input | weight | stride, pad, groups | from | oneDNN ms | im2col ms | torch ms | best |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for c, where in cases.items():
            path = os.path.join(tmp, "conv.py")
            open(path, "w").write(graph(c))
            row = {k: coil_ms(args.coil, path, ["--conv", k]) for k in ("library", "im2col")}
            row["torch"] = torch_ms(c, args.runs)
            best = min((v, k) for k, v in row.items() if v is not None)[1]
            cell = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
            print(f"| {list(c[0])} | {list(c[1])} | {list(c[3])}, {list(c[4])}, {c[6]} | {where} | "
                  f"{cell(row['library'])} | {cell(row['im2col'])} | {cell(row['torch'])} | {best} |", flush=True)
            if sink:
                sink.write(json.dumps({"conv": c, "from": where, "ms": row}) + "\n")


if __name__ == "__main__":
    sys.exit(main())
