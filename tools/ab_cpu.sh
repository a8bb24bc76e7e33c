#!/bin/bash
# A/B of coil builds on the CPU: `tools/ab_cpu.sh MODEL ROUNDS BUILD...` runs
# `BUILD run-model MODEL --size large --bench --json` for each build in turn, ROUNDS times,
# and prints each run's compiled time, its scale copy and the fraction (docs/perf.md).
m=$1; n=$2; shift 2
for _ in $(seq "$n"); do for b in "$@"; do
  "$b" run-model "$m" --size large --bench --json 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); b=d['bench']; print('%-28s %7.2f ms  copy %5.1f  frac %.2f' % ('$b', b['compiled_ms'], b['copy_gbps'], b['fraction_of_copy']))"
done; done
