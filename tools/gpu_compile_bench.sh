#!/usr/bin/env bash
# Cold and warm compile times on a GPU machine: every real model of the bundle (models/real*/),
# through `coil run-model --backend cuda --json`, each in a new process, with the driver's own
# JIT cache off (CUDA_CACHE_DISABLE=1):
#   jit_serial    no compile cache, the whole model one PTX module (COIL_CUDA_MODULES=model:
#                 before parallel code generation)
#   jit           no compile cache, the kernels shared out over one module per core (runs of
#                 consecutive kernels of about equal PTX size; the default), all compiled at
#                 once through the driver's linker on every core
#   jit_per_kernel  the same with one module per kernel (COIL_CUDA_MODULES=kernel)
#   kernel_cold / kernel_warm  one module per kernel through its own coil cache, then a new
#                 process on it (a start loads a module per kernel)
#   nvjitlink     the same through nvJitLink (COIL_CUDA_PTX_COMPILER=nvjitlink)
#   jit_o1        the driver's linker at optimization level 1 (COIL_CUDA_JIT_O=1)
#   cold          an empty coil cache (filled by this run)
#   warm          the same cache, a new process
#   bf16_cold / bf16_warm   the same in bf16 (models/real16/*_bf16.safetensors), its own cache
#   conv_bench_cold / conv_bench_warm / conv_heuristic   convolutions through cuDNN
#                 (--conv library): every algorithm timed once then kept in the compile cache,
#                 the next process on that cache, and cuDNN's heuristic (COIL_CUDNN_ALGO)
# and torch.compile of the same graph (tools/torch_graph_bench.py's compile_s: Dynamo, Inductor
# and the first call), cold (an empty Inductor cache) and warm (FX graph cache), for models/real/
# only. Prints one JSON line per model and run. Usage:
#   gpu_compile_bench.sh BUNDLE_DIR [RUN ...]      (default: every run above, then Inductor)
# RUNS may include `inductor` for the torch.compile pair.
set -u
B=${1:-.}
shift
RUNS=${*:-jit_serial jit nvjitlink jit_o1 cold warm bf16_cold bf16_warm conv_bench_cold conv_bench_warm conv_heuristic inductor}
NV=$(python3 -c 'import nvidia,os;print(os.path.dirname(nvidia.__file__))' 2>/dev/null)
for d in "$NV"/*/lib "$NV"/*/*/lib; do [ -d "$d" ] && export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; done
export CUDA_CACHE_DISABLE=1
CACHE=$(mktemp -d)
CACHE16=$(mktemp -d)
CACHECONV=$(mktemp -d)
CACHEK=$(mktemp -d)
summarize() { # model run report err
python3 - "$@" <<'PY'
import json, sys
f, run, rep, err = sys.argv[1:]
name = f.split("/")[-2] + "/" + f.split("/")[-1]
try:
    r = json.load(open(rep))
except Exception:
    print(json.dumps({"model": name, "run": run, "error": open(err).read()[-400:]})); sys.exit()
c = r.get("compile") or {}
jit = c.get("jit") or []
print(json.dumps({"model": name, "run": run, "ok": r.get("ok"),
    "max_abs_err": r.get("max_abs_err"), "parse_to_runnable_ms": c.get("parse_to_runnable_ms"),
    "backend_ms": c.get("backend_ms"), "jit_ms": c.get("jit_ms"), "cache": c.get("cache"),
    "run_ms": r.get("run_ms"),
    "modules": len(jit), "jit_sum_ms": round(sum(m["ms"] for m in jit), 1),
    "slowest_jit": sorted(jit, key=lambda m: -m["ms"])[:2]}))
PY
}
for f in "$B"/models/real*/*.py; do
  n=${f%.py}
  base=$(basename "$n")
  for run in $RUNS; do
    extra=""
    case $run in
      jit_serial) env="COIL_CACHE=0 COIL_CUDA_MODULES=model";;
      jit) env="COIL_CACHE=0";;
      jit_per_kernel) env="COIL_CACHE=0 COIL_CUDA_MODULES=kernel";;
      kernel_cold|kernel_warm) env="COIL_CACHE_DIR=$CACHEK COIL_CUDA_MODULES=kernel";;
      nvjitlink) env="COIL_CACHE=0 COIL_CUDA_PTX_COMPILER=nvjitlink";;
      jit_o1) env="COIL_CACHE=0 COIL_CUDA_JIT_O=1";;
      cold|warm) env="COIL_CACHE_DIR=$CACHE";;
      bf16_*) env="COIL_CACHE_DIR=$CACHE16"
        inp="$B/models/real16/${base}_bf16.safetensors"
        [ -f "$inp" ] || continue
        extra="--dtype bf16";;
      conv_*) grep -q convolution "$f" || continue
        extra="--conv library"
        case $run in
          conv_heuristic) env="COIL_CACHE=0 COIL_CUDNN_ALGO=heuristic";;
          *) env="COIL_CACHE_DIR=$CACHECONV";;
        esac;;
      inductor) continue;;
      *) echo "unknown run $run" >&2; continue;;
    esac
    case $run in bf16_*) ;; *) inp="$n.safetensors";; esac
    env $env timeout 300 "$B/coil" run-model "$f" --inputs "$inp" --backend cuda --json $extra > /tmp/r.json 2>/tmp/r.err
    summarize "$f" "$run" /tmp/r.json /tmp/r.err
  done
  case " $RUNS " in *" inductor "*) ;; *) continue;; esac
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
du -sh "$CACHE" "$CACHE16" "$CACHECONV" "$CACHEK"
