#!/bin/bash
# A/B of matmul epilogues as oneDNN post-ops against kernels of their own: N alternating runs
# of `run-model MODEL --epilogue library|kernel --bench`, medians and minima (docs/perf.md).
#     tools/epilogue_ab.sh MODEL [N] [run-model flags...]

m=$1; n=${2:-7}; shift; [ $# -gt 0 ] && shift
for i in $(seq $n); do for e in library kernel; do
  echo "$e $("$(dirname "$0")/../target/release/coil" run-model $m --epilogue $e --bench --json "$@" 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin); print(round(r["bench"]["compiled_ms"],4))')"
done; done | python3 -c '
import sys,statistics
d={}
for l in sys.stdin:
    k,v=l.split(); d.setdefault(k,[]).append(float(v))
print(sys.argv[1], {k:(statistics.median(v), min(v)) for k,v in d.items()})' $m
