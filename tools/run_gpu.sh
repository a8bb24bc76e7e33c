#!/usr/bin/env bash
# Copy into gpu-bundle/ beside the release `coil`, `gpu_selfcheck` and torch_baseline.py.
# Runs on the GPU machine from the bundle folder: self-check, zoo correctness, large benchmarks,
# torch.compile baselines. Writes into $OUT (few files).
set -u
cd "$(dirname "$0")"
NV=$(python3 -c 'import nvidia,os;print(os.path.dirname(nvidia.__file__))' 2>/dev/null)
for d in "$NV"/*/lib; do export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; done
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/selfcheck.txt" 2>&1
timeout 120 ./gpu_selfcheck >> "$OUT/selfcheck.txt" 2>&1; echo "selfcheck rc=$?" >> "$OUT/selfcheck.txt"
for m in seed_model chain rowsum siblings wall softmax layernorm rmsnorm mm_epilogue gelu_mlp attention transformer_block; do
  for s in tiny article; do
    timeout 60 ./coil run-model $m --size $s --backend cuda --json > /tmp/r.json 2>/tmp/r.err
    echo "{\"run\": \"$m $s\", \"rc\": $?, \"report\": $(cat /tmp/r.json | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))' 2>/dev/null || echo null), \"stderr\": $(tail -c 600 /tmp/r.err | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')}" >> "$OUT/zoo.jsonl"
  done
done
for m in seed_model chain rowsum siblings wall softmax layernorm rmsnorm; do
  timeout 90 ./coil run-model $m --size large --backend cuda --bench --json > /tmp/r.json 2>/tmp/r.err
  echo "{\"run\": \"$m large\", \"rc\": $?, \"report\": $(cat /tmp/r.json | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))' 2>/dev/null || echo null), \"stderr\": $(tail -c 600 /tmp/r.err | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')}" >> "$OUT/large.jsonl"
done
timeout 240 python3 torch_baseline.py --json "$OUT/torch.json" > "$OUT/torch.txt" 2>&1
echo done
