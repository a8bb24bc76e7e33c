#!/usr/bin/env python3
"""Summarises a `run.sh` results folder (see tools/run_gpu.sh) as Markdown tables.

    python tools/gpu_summary.py RESULTS_DIR

Reads zoo.jsonl (run-model against PyTorch), bench.<r>.jsonl (run-model --bench on the large
models, round r), seed_article.json (the 1024x1024 call), torch.<r>.json (tools/torch_baseline.py,
round r) and
sanitizer.txt, and prints what docs/perf.md records: correctness per model and size, each large
model's device time, bandwidth and fraction of the copy for coil and torch.compile side by
side, per-kernel times, and the whole-call host time.
"""

import json
import pathlib
import sys


def load_jsonl(path):
    rows = []
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return rows


def load_json(path):
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def main():
    out = pathlib.Path(sys.argv[1])
    device = (out / "device.txt").read_text().strip() if (out / "device.txt").exists() else "?"
    print("# coil on the GPU\n")
    print("```text\n" + device + "\n```\n")

    zoo = load_jsonl(out / "zoo.jsonl")
    refs = load_json(out / "refs.json") or {}
    if zoo:
        print("## Zoo against PyTorch\n")
        print("tiny: the zoo's saved PyTorch outputs; article: PyTorch float32 run here on the same "
              "inputs (rtol 1e-4, atol 1e-5), and where that misses, the float64 result: coil passes "
              "if it is no further from float64 than PyTorch's float32 is (x1.5 + 1e-5).\n")
        print("| model | size | kernels | extern calls | max abs err vs PyTorch | coil vs float64 | PyTorch f32 vs float64 | result |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
        by = {(r["model"], r["size"]): r for r in zoo}
        for r in zoo:
            if r["size"] == "article-f64":
                continue
            rep = r.get("report") or {}
            err = rep.get("max_abs_err", float("nan"))
            exact = (by.get((r["model"], "article-f64")) or {}).get("report") or {}
            coil64 = exact.get("max_abs_err")
            torch64 = (refs.get(r["model"]) or {}).get("torch_vs_f64")
            if r["rc"] == 0 and rep.get("ok"):
                ok = "ok"
            elif r["size"] == "article" and rep and coil64 is not None and torch64 is not None \
                    and coil64 <= 1.5 * torch64 + 1e-5:
                ok = "ok (as close to float64 as PyTorch)"
            else:
                last = (r.get("stderr") or "").strip().splitlines()[-1:]
                ok = "FAIL" + (f" ({last[0][:100]})" if last else "")
            fmt = lambda v: "-" if v is None else f"{v:.2e}"
            print(f"| {r['model']} | {r['size']} | {rep.get('num_kernels', '-')} | "
                  f"{rep.get('num_extern_calls', '-')} | {fmt(rep.get('max_abs_err'))} | "
                  f"{fmt(coil64) if r['size'] == 'article' else '-'} | "
                  f"{fmt(torch64) if r['size'] == 'article' else '-'} | {ok} |")
        print()

    # Rounds: bench.<r>.jsonl and torch.<r>.json (run.sh alternates them); a folder from before
    # rounds has bench.jsonl and torch.json.
    rounds = []
    for r in range(1, 100):
        b, t = out / f"bench.{r}.jsonl", out / f"torch.{r}.json"
        if not b.exists():
            break
        rounds.append((load_jsonl(b), load_json(t) or {}))
    if not rounds and (out / "bench.jsonl").exists():
        rounds.append((load_jsonl(out / "bench.jsonl"), load_json(out / "torch.json") or {}))
    rounds = [(b, t) for b, t in rounds if b]
    if rounds:
        med = lambda v: sorted(v)[len(v) // 2] if v else float("nan")
        nan = float("nan")
        print(f"## Large models ([8192, 8192] f32): coil (CUDA events) vs torch.compile, "
              f"{len(rounds)} round(s)\n")
        print("Each round runs `run-model --bench` on every model, then `torch_baseline.py`; each "
              "side's figure in a round is its median over many runs. The table gives the median "
              "over rounds, and coil's speed-up in every round (torch.compile time / coil time).\n")
        copies = [f"round {i + 1}: coil's device-to-device {b[0]['bench']['copy_gbps']:.0f} GB/s, "
                  f"torch's `copy_` {t.get('copy_gbps', nan):.0f} GB/s"
                  for i, (b, t) in enumerate(rounds)]
        print("Copy bandwidth measured in the same runs: " + "; ".join(copies) + "\n")
        print("| model | kernels | coil µs | coil GB/s | coil % of copy | torch.compile µs | "
              "torch % of copy | coil speed-up (median) | per round |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
        models = [r["model"] for r in rounds[0][0]]
        for m in models:
            cus, tus, cgb, cfr, tfr, ups, kernels = [], [], [], [], [], [], "-"
            for b, t in rounds:
                rb = next((r for r in b if r["model"] == m), None)
                rt = next((x for x in t.get("models", []) if x["model"] == m), None)
                if not rb or not rb.get("bench"):
                    continue
                kernels = rb.get("num_kernels")
                c = rb["bench"]["compiled_ms"] * 1e3
                cus.append(c)
                cgb.append(rb["bench"]["achieved_gbps"])
                cfr.append(100 * rb["bench"]["fraction_of_copy"])
                if rt:
                    tus.append(rt["ms"] * 1e3)
                    tfr.append(100 * rt["fraction_of_copy"])
                    ups.append(rt["ms"] * 1e3 / c)
            print(f"| {m} | {kernels} | {med(cus):.1f} | {med(cgb):.0f} | {med(cfr):.1f}% | "
                  f"{med(tus):.1f} | {med(tfr):.1f}% | {med(ups):.2f}x | "
                  + ", ".join(f"{u:.2f}x" for u in ups) + " |")
        print()
        print("Per launch (median device time, CUDA events, round 1):\n")
        for r in rounds[0][0]:
            ks = (r.get("bench") or {}).get("kernels", [])
            print(f"- {r['model']}: " + ", ".join(f"`{k['name']}` {k['ms'] * 1e3:.1f} µs" for k in ks))
        print()

    torch = rounds[0][1] if rounds else (load_json(out / "torch.json") or {})
    seed = load_json(out / "seed_article.json")
    if seed and seed.get("bench"):
        b = seed["bench"]
        print("## seed_model at [1024, 1024]: one whole call\n")
        tc = torch.get("seed_call_us")
        print(f"coil: {b['host_call_us']:.1f} µs per call on the host (launch + synchronise), "
              f"{b['compiled_ms'] * 1e3:.1f} µs on the device; torch.compile: "
              + (f"{tc:.1f} µs per call" if tc else "not measured") + "\n")

    san = out / "sanitizer.txt"
    if san.exists():
        lines = [l for l in san.read_text().splitlines() if "ERROR SUMMARY" in l or "not found" in l]
        print("## compute-sanitizer\n")
        print("```text\n" + ("\n".join(lines[-3:]) or san.read_text()[-400:]) + "\n```")


if __name__ == "__main__":
    main()
