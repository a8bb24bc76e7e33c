#!/usr/bin/env bash
# coil on a GPU machine, in one call. `cargo xtask gpu-bundle` copies this script (as run.sh)
# beside the release `coil`, `cuda_zoo` and `gpu_selfcheck`, the zoo (models/) and the PyTorch
# scripts; copy that folder to a machine with an NVIDIA GPU, PyTorch and Triton, and run
#
#     ./run.sh            # everything (about 6 minutes on an H200; ROUNDS=1 for a shorter perf part)
#     ./run.sh --quick    # correctness only (self-check, zoo vs PyTorch, compute-sanitizer)
#     ./run.sh --perf     # benchmarks only (cuda_zoo, run-model --bench, torch.compile)
#     ./run.sh --real     # the real models only (coil vs PyTorch, timed against torch.compile)
#
# Results go to $OUT (or ./results): summary.md (the tables docs/perf.md takes) and raw.tar.gz
# (the reports behind it). Exits non-zero when a check failed.
set -u
cd "$(dirname "$0")"
OUT=${OUT:-$(pwd)/results}
# Raw reports go to $RAW and travel as one archive (raw.tar.gz); $OUT keeps a few files.
RAW=$(mktemp -d)
mkdir -p "$OUT"
MODE=${1:-all}
# Rounds of the coil / torch.compile comparison (ROUNDS=1 for a quick look).
ROUNDS=${ROUNDS:-3}
fail=0
note() { echo "$*" | tee -a "$RAW/failures.txt" >&2; fail=1; }

# cuBLAS from PyTorch's wheels when the loader path has none.
NV=$(python3 -c 'import nvidia,os;print(os.path.dirname(nvidia.__file__))' 2>/dev/null)
for d in "$NV"/*/lib; do [ -d "$d" ] && export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; done

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$RAW/device.txt" 2>&1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' >> "$RAW/device.txt" 2>&1

# The real models (torchvision, timm, Hugging Face; models/real*/): coil's CUDA backend
# against PyTorch's saved outputs, timed, and the same graph file through eager PyTorch and
# torch.compile in the same call (tools/torch_graph_bench.py).
if [ "$MODE" != --zoo-only ]; then
echo "== real models: coil --backend cuda and torch.compile on the same graph"
: > "$OUT/real.jsonl"
for f in models/real*/*.py; do
  n=${f%.py}
  timeout 300 ./coil run-model "$f" --inputs "$n.safetensors" --backend cuda --bench --json > "$RAW/real.json" 2> "$RAW/real.err"
  rc=$?
  # Convolutions: im2col + cuBLAS (the default) against cuDNN, the same run.
  : > "$RAW/real_im2col.json"
  if grep -q convolution "$f"; then
    timeout 300 ./coil run-model "$f" --inputs "$n.safetensors" --backend cuda  --bench --json --conv library > "$RAW/real_im2col.json" 2>/dev/null
  fi
  timeout 300 python3 torch_graph_bench.py "$f" "$n.safetensors" --runs 20 > "$RAW/torch_real.json" 2> "$RAW/torch_real.err"
  python3 - "$f" "$rc" "$RAW/real.json" "$RAW/real.err" "$RAW/torch_real.json" "$RAW/torch_real.err" "$RAW/real_im2col.json" >> "$OUT/real.jsonl" <<'PYEOF'
import json, sys
f, rc, rep, err, trep, terr, im2col = sys.argv[1:]
def load(p):
    try:
        return json.load(open(p))
    except Exception:
        return None
r = load(rep)
keep = {}
if r:
    keep = {k: r.get(k) for k in ("ok", "max_abs_err", "num_kernels", "num_extern_calls", "fallback_ops", "bytes_accessed", "compile", "bench", "error")}
ic = load(im2col)
if ic:
    keep["cudnn"] = {k: ic.get(k) for k in ("ok", "num_kernels", "num_extern_calls", "bench")}
print(json.dumps({"model": f, "rc": int(rc), "coil": keep, "torch": load(trep),
                  "stderr": open(err).read()[-600:], "torch_stderr": open(terr).read()[-600:]}))
PYEOF
  [ "$rc" = 0 ] || note "real model $f failed on cuda (rc $rc)"
done
fi
if [ "$MODE" = --real ]; then
  tar -czf "$OUT/raw.tar.gz" -C "$RAW" .
  [ -s "$RAW/failures.txt" ] && { echo; echo "failures:"; cat "$RAW/failures.txt"; }
  exit $fail
fi

if [ "$MODE" != --perf ]; then
echo "== self-check (PTX math accuracy, launches)"
timeout 120 ./gpu_selfcheck > "$RAW/selfcheck.txt" 2>&1 || note "gpu_selfcheck failed (see selfcheck.txt)"

echo "== zoo against PyTorch: tiny (the zoo's saved outputs) and article sizes (fresh PyTorch run)"
REFS=$(mktemp -d)
timeout 240 python3 torch_reference.py models "$REFS" > "$RAW/refs.txt" 2>&1 || note "torch_reference.py failed for some model (see refs.txt)"
cp "$REFS/refs.json" "$RAW/" 2>/dev/null
: > "$RAW/zoo.jsonl"
for f in models/*.py; do
  m=$(basename "$f" .py)
  for s in tiny article article-f64; do
    extra=()
    case $s in
      article) extra=(--inputs "$REFS/$m.safetensors") ;;
      article-f64) extra=(--inputs "$REFS/$m.f64.safetensors") ;;
    esac
    [ "$s" = tiny ] || [ -f "${extra[1]}" ] || continue
    timeout 120 ./coil run-model "$m" --size "${s%-f64}" --backend cuda --json "${extra[@]}" > "$RAW/r.json" 2> "$RAW/r.err"
    rc=$?
    python3 - "$m" "$s" "$rc" "$RAW/r.json" "$RAW/r.err" >> "$RAW/zoo.jsonl" <<'EOF'
import json, sys
m, s, rc, rep, err = sys.argv[1:]
try:
    report = json.load(open(rep))
except Exception:
    report = None
print(json.dumps({"model": m, "size": s, "rc": int(rc), "report": report,
                  "stderr": open(err).read()[-800:]}))
EOF
    [ "$rc" = 0 ] || [ "$s" = article-f64 ] || echo "run-model $m --size $s --backend cuda: exit $rc (see summary)" >> "$RAW/mismatches.txt"
  done
done

echo "== compute-sanitizer (memcheck) on every zoo kernel"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -n "$CS" ]; then
  timeout 300 "$CS" --tool memcheck --error-exitcode 9 ./cuda_zoo --quick --reps 2 > "$RAW/sanitizer.txt" 2>&1 \
    || note "compute-sanitizer: exit $? (see sanitizer.txt)"
else
  echo "compute-sanitizer not found on this machine" > "$RAW/sanitizer.txt"
fi

fi

if [ "$MODE" != --quick ]; then
  echo "== cuda_zoo: every size, large models timed with CUDA events, per-kernel times, other plans"
  timeout 400 ./cuda_zoo --no-variants > "$RAW/cuda_zoo.md" 2> "$RAW/cuda_zoo.err" || note "cuda_zoo failed (see cuda_zoo.err)"

  # coil and torch.compile take turns, $ROUNDS times, so both sides of each comparison are
  # sampled across the same minutes (either side's times drift by a few percent between calls).
  for r in $(seq "$ROUNDS"); do
    echo "== round $r of $ROUNDS: run-model --bench on the large models"
    : > "$RAW/bench.$r.jsonl"
    for m in seed_model chain rowsum siblings wall softmax layernorm rmsnorm; do
      timeout 120 ./coil run-model "$m" --size large --backend cuda --bench --json > "$RAW/r.json" 2> "$RAW/r.err" \
        || note "run-model $m --size large --bench: exit $?"
      python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$RAW/r.json" >> "$RAW/bench.$r.jsonl" 2>/dev/null
    done
    echo "== round $r of $ROUNDS: torch.compile on the same shapes"
    timeout 300 python3 torch_baseline.py --json "$RAW/torch.$r.json" > "$RAW/torch.$r.txt" 2>&1 || note "torch_baseline.py failed (see torch.$r.txt)"
  done
  echo "== seed_model at the article size (call time)"
  timeout 120 ./coil run-model seed_model --size article --backend cuda --bench --json > "$RAW/seed_article.json" 2> "$RAW/r.err" \
    || note "run-model seed_model --size article --bench: exit $?"
fi

python3 gpu_summary.py "$RAW" > "$OUT/summary.md" 2>> "$RAW/failures.txt" || fail=1
grep -q "| FAIL" "$OUT/summary.md" && fail=1
tar -czf "$OUT/raw.tar.gz" -C "$RAW" .
cat "$OUT/summary.md"
[ -s "$RAW/failures.txt" ] && { echo; echo "failures:"; cat "$RAW/failures.txt"; }
exit $fail
