#!/usr/bin/env bash
# Cold and warm compile times on a GPU machine: every real model of the bundle (models/real*/),
# through `coil run-model --backend cuda --json`, each in a new process:
#   jit_serial  no compile cache, the driver's own cache off, the whole model one PTX module
#               (COIL_CUDA_MODULES=model: before parallel code generation)
#   jit         no compile cache, the driver's cache off, one module per kernel, compiled at once
#   cold        an empty coil cache (filled by this run), the driver's cache off
#   warm        the same cache, a new process
# and torch.compile of the same graph (tools/torch_graph_bench.py's compile_s: Dynamo, Inductor
# and the first call), cold (an empty Inductor cache) and warm (FX graph cache). Prints one JSON
# line per model and run. Usage: gpu_compile_bench.sh BUNDLE_DIR
set -u
B=${1:-.}
NV=$(python3 -c 'import nvidia,os;print(os.path.dirname(nvidia.__file__))' 2>/dev/null)
for d in "$NV"/*/lib; do [ -d "$d" ] && export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; done
export CUDA_CACHE_DISABLE=1
CACHE=$(mktemp -d)
for f in "$B"/models/real*/*.py; do
  n=${f%.py}
  for run in jit_serial jit cold warm; do
    case $run in
      jit_serial) env="COIL_CACHE=0 COIL_CUDA_MODULES=model";;
      jit) env="COIL_CACHE=0";;
      *) env="COIL_CACHE_DIR=$CACHE";;
    esac
    env $env timeout 300 "$B/coil" run-model "$f" --inputs "$n.safetensors" --backend cuda --json > /tmp/r.json 2>/tmp/r.err
    python3 - "$f" "$run" <<'PY'
import json, sys
f, run = sys.argv[1:]
try:
    r = json.load(open("/tmp/r.json"))
except Exception as e:
    print(json.dumps({"model": f, "run": run, "error": open("/tmp/r.err").read()[-400:]})); sys.exit()
c = r.get("compile") or {}
jit = c.get("jit") or []
print(json.dumps({"model": f.split("/")[-2] + "/" + f.split("/")[-1], "run": run, "ok": r.get("ok"),
    "max_abs_err": r.get("max_abs_err"), "parse_to_runnable_ms": c.get("parse_to_runnable_ms"),
    "backend_ms": c.get("backend_ms"), "jit_ms": c.get("jit_ms"), "cache": c.get("cache"),
    "modules": len(jit), "slowest_jit": sorted(jit, key=lambda m: -m["ms"])[:2]}))
PY
  done
  case $f in */real/*) ;; *) continue;; esac
  IND=$(mktemp -d)
  for run in inductor_cold inductor_warm; do
    TORCHINDUCTOR_CACHE_DIR=$IND timeout 300 python3 "$B/torch_graph_bench.py" "$f" "$n.safetensors" --runs 3 > /tmp/t.json 2>/dev/null
    python3 -c "
import json,sys
try: t=json.load(open('/tmp/t.json'))
except Exception: t={}
print(json.dumps({'model': '$f'.split('/')[-2] + '/' + '$f'.split('/')[-1], 'run': '$run', 'compile_s': t.get('compile_s')}))"
  done
done
du -sh "$CACHE"
