#!/bin/bash
# The real models on this machine's CPU: coil (release `coil run-model --bench --json`) and
# torch.compile (tools/torch_graph_bench.py --device cpu) on the same graph file and inputs,
# one model after the other. Prints one JSON line per model (docs/perf.md, "Real models").
# Needs `cargo build --release -p coil-cli` and the .venv with torch (cargo xtask test makes it).
set -u
cd "$(dirname "$0")/.."
for f in crates/coil-models/models/real*/*.py; do
  n=${f%.py}
  c=$(./target/release/coil run-model "$f" --inputs "$n.safetensors" --bench --json 2>/dev/null)
  t=$(timeout 600 .venv/bin/python tools/torch_graph_bench.py "$f" "$n.safetensors" --runs 20 --device cpu 2>/dev/null)
  C="$c" T="$t" python3 - "$f" <<'PY'
import json, os, sys
def load(s):
    try:
        return json.loads(s)
    except Exception:
        return None
c, t = load(os.environ["C"]), load(os.environ["T"])
b = (c or {}).get("bench") or {}
print(json.dumps({"model": os.path.basename(sys.argv[1])[:-3], "ok": (c or {}).get("ok"),
                  "coil_ms": b.get("compiled_ms"), "compile": (c or {}).get("compile"),
                  "kernels": (c or {}).get("num_kernels"), "externs": (c or {}).get("num_extern_calls"),
                  "torch": t}))
PY
done
