#!/usr/bin/env python3
"""One coil binary under several environment settings, interleaved (each round runs every
setting once, so that the machine's drift hits all alike): a before/after check of a setting
such as the LLVM pipeline (`COIL_LLVM_PIPELINE=o3` against `lean`) or libgomp's waiting
(`GOMP_SPINCOUNT=300000`, `OMP_WAIT_POLICY=passive`).

Usage: tools/env_ab.py [--binary target/release/coil] [--runs 5] [--models a,b,...]
                       SETTING [SETTING ...]
A SETTING is `NAME=VALUE[;NAME=VALUE...]`, or `-` for the environment as it is. Each run is
`coil run-model MODEL --inputs MODEL.safetensors --bench --json` with the compile cache off
(`COIL_CACHE=0`); the real models by default. Prints a markdown table: per setting the median
parse-to-runnable ms, the median interleaved call (`bench.compiled_ms`: each call after a copy
over all threads) and back-to-back call (`bench.back_to_back_ms`), and the last setting's
interleaved call over the first's. A run whose outputs fail the check against PyTorch's stops
the script.
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys

REAL = ("dlrm_small hf_bert hf_gpt2 timm_vit_tiny tv_mlp tv_resnet18_w16 conv1d_net hf_llama "
        "hf_roberta timm_convnext_atto tv_mobilenet_v3_small tv_squeezenet").split()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def model_file(name):
    found = glob.glob(os.path.join(ROOT, "crates/coil-models/models/real*", name + ".py"))
    if not found:
        sys.exit(f"no real model named {name}")
    return found[0]


def environment(setting):
    env = dict(os.environ, COIL_CACHE="0")
    if setting != "-":
        # `;` before an upper-case `NAME=` separates settings (a pipeline's text has `;` too).
        for pair in re.split(r";(?=[A-Z_][A-Z0-9_]*=)", setting):
            name, _, value = pair.partition("=")
            env[name] = value
    return env


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "target/release/coil"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--models", default=",".join(REAL))
    ap.add_argument("settings", nargs="+")
    a = ap.parse_args()
    head = " | ".join(f"`{s}` compile / call / back to back ms" for s in a.settings)
    print(f"| model | {head} | call, last / first |")
    print("| --- |" + " ---: |" * (len(a.settings) + 1))
    for m in a.models.split(","):
        f = model_file(m)
        rows = {s: [] for s in a.settings}
        for _ in range(a.runs):
            for s in a.settings:
                out = subprocess.run(
                    [a.binary, "run-model", f, "--inputs", f[:-3] + ".safetensors", "--bench",
                     "--json"], env=environment(s), capture_output=True, text=True).stdout
                d = json.loads(out)
                if not d.get("ok"):
                    sys.exit(f"{m} under {s}: {d.get('error', 'outputs differ from PyTorch')}")
                rows[s].append((d["compile"]["parse_to_runnable_ms"], d["bench"]["compiled_ms"],
                                d["bench"]["back_to_back_ms"]))
        med = {s: [statistics.median(r[i] for r in rs) for i in range(3)]
               for s, rs in rows.items()}
        cells = " | ".join(f"{c:.1f} / {r:.3f} / {b:.3f}" for c, r, b in med.values())
        ratio = med[a.settings[-1]][1] / med[a.settings[0]][1]
        print(f"| {m} | {cells} | {ratio:.3f} |", flush=True)


if __name__ == "__main__":
    main()
