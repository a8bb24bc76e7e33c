#!/usr/bin/env python3
"""Compile times of two coil binaries on the same models, interleaved (A, B, A, B, ...) so that
the machine's drift hits both alike: a before/after check of a change to the compiler.

Usage: tools/compile_ab.py BINARY_A BINARY_B [RUNS] [MODEL ...]
Runs `BINARY run-model <model> --json` RUNS times (default 5) per binary and model (default:
every real model) and prints a markdown table: each binary's median parse-to-runnable time, its
lowering and scheduling medians, B's total over A's, and what each built (kernels + extern
calls; "wrong" where its outputs failed the check against PyTorch's).
"""
import json
import statistics
import subprocess
import sys

REAL = ("dlrm_small hf_bert hf_gpt2 timm_vit_tiny tv_mlp tv_resnet18_w16 conv1d_net hf_llama "
        "hf_roberta timm_convnext_atto tv_mobilenet_v3_small tv_squeezenet").split()


def compile_stats(binary, model):
    out = subprocess.run([binary, "run-model", model, "--json"], capture_output=True,
                         text=True, check=True).stdout
    d = json.loads(out)
    stats = dict(d["compile"])
    stats["shape"] = f"{d['num_kernels']}+{d['num_extern_calls']}" + ("" if d["ok"] else " (wrong)")
    return stats


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    a, b = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    models = sys.argv[4:] or REAL
    print("| model | A ms | B ms | B / A | A lower | B lower | A schedule | B schedule | A built | B built |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for m in models:
        rows = {a: [], b: []}
        for _ in range(runs):
            for binary in (a, b):
                rows[binary].append(compile_stats(binary, m))
        med = {k: {key: statistics.median(r[key] for r in v) for key in
                   ("parse_to_runnable_ms", "lower_ms", "schedule_ms")} for k, v in rows.items()}
        ta, tb = med[a]["parse_to_runnable_ms"], med[b]["parse_to_runnable_ms"]
        print(f"| {m} | {ta:.1f} | {tb:.1f} | {tb / ta:.2f} | {med[a]['lower_ms']:.1f} | "
              f"{med[b]['lower_ms']:.1f} | {med[a]['schedule_ms']:.1f} | {med[b]['schedule_ms']:.1f} | "
              f"{rows[a][0]['shape']} | {rows[b][0]['shape']} |")


if __name__ == "__main__":
    main()
