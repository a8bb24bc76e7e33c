#!/bin/bash
# coil and torch.compile on the CPU on the same graph files and inputs: the zoo's matmul models
# (article size, inputs from tools/random_inputs.py) and the real models, ROUNDS rounds (default
# 3), torch under jemalloc (apt install libjemalloc2). One line per model and round:
# "<round> <model> coil <ok> <ms> <back-to-back ms> torch <ms>": coil's median of runs
# interleaved with copies, and of runs in a loop, which is how torch_graph_bench.py times
# torch.compile. A pause before each coil run lets the last torch process's compile workers
# finish (they ran on the same two cores). Needs `cargo build --release -p coil-cli` and the
# .venv with torch (cargo xtask test makes it). docs/perf.md, issue 20.
set -u
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
for m in mm_epilogue gelu_mlp attention transformer_block; do
  .venv/bin/python tools/random_inputs.py crates/coil-models/models/$m.py $tmp/$m.safetensors
done
for round in $(seq "${ROUNDS:-3}"); do
  for f in crates/coil-models/models/{mm_epilogue,gelu_mlp,attention,transformer_block}.py crates/coil-models/models/real*/*.py; do
    n=$(basename "${f%.py}")
    case $f in *real*) inp=${f%.py}.safetensors ;; *) inp=$tmp/$n.safetensors ;; esac
    sleep 8
    c=$(./target/release/coil run-model "$f" --inputs "$inp" --bench --json 2>/dev/null |
      python3 -c 'import json,sys; r=json.load(sys.stdin); b=r["bench"]; print(r["ok"], b["compiled_ms"], b["back_to_back_ms"])' 2>/dev/null)
    t=$(LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 timeout 600 .venv/bin/python tools/torch_graph_bench.py "$f" "$inp" --runs 20 --device cpu 2>/dev/null |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["compiled_ms"])' 2>/dev/null)
    echo "$round $n coil $c torch $t"
  done
done
