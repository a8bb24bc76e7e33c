#!/bin/bash
# coil and torch.compile on the CPU, side by side, twice (torch first each round); needs
# torch in /work/torchvenv and jemalloc (apt install libjemalloc2). Results in $OUT (/tmp/cpu_side).
cd "$(dirname "$0")/.." && mkdir -p "${OUT:-/tmp/cpu_side}"
for round in 1 2; do
  echo "round $round torch start $(date +%T) $(cut -d' ' -f1 /proc/loadavg)"
  MALLOC_CONF="oversize_threshold:0,dirty_decay_ms:-1,muzzy_decay_ms:-1" \
  LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 \
    /work/torchvenv/bin/python tools/torch_cpu_baseline.py --size 8192 --runs 21 --json ${OUT:-/tmp/cpu_side}/torch_$round.json > ${OUT:-/tmp/cpu_side}/torch_$round.txt 2>&1
  echo "round $round coil start $(date +%T) $(cut -d' ' -f1 /proc/loadavg)"
  for m in seed_model softmax layernorm rmsnorm rowsum siblings; do
    ./target/release/coil run-model $m --size large --bench --json > ${OUT:-/tmp/cpu_side}/coil_${round}_$m.json 2>/dev/null
  done
  echo "round $round end $(date +%T) $(cut -d' ' -f1 /proc/loadavg)"
done
