#!/usr/bin/env python3
"""Compile time of every zoo model, parse to runnable, stage by stage (docs/perf.md).

Usage: tools/compile_times.py [COIL_BINARY] [RUNS]
Runs `COIL_BINARY run-model <model> --json` RUNS times per model (article size, CPU backend),
and prints a markdown table of each stage's median and the range of the parse-to-runnable total.
"""
import json
import statistics
import subprocess
import sys

binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/coil"
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
models = ("seed_model chain rowsum siblings wall softmax layernorm rmsnorm mm_epilogue "
          "gelu_mlp attention transformer_block").split()
keys = ["parse_ms", "passes_ms", "lower_ms", "schedule_ms", "codegen_ms", "backend_ms",
        "parse_to_runnable_ms"]
print("| model | " + " | ".join(k[:-3].replace("_", " ") for k in keys) + " | range |")
print("| --- |" + " ---: |" * (len(keys) + 1))
for m in models:
    rows = []
    for _ in range(runs):
        out = subprocess.run([binary, "run-model", m, "--json"], capture_output=True,
                             text=True, check=True).stdout
        rows.append(json.loads(out)["compile"])
    med = {k: statistics.median(r[k] for r in rows) for k in keys}
    total = [r["parse_to_runnable_ms"] for r in rows]
    print(f"| {m} | " + " | ".join(f"{med[k]:.1f}" for k in keys)
          + f" | {min(total):.1f}-{max(total):.1f} |")
