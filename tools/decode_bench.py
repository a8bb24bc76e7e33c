"""Greedy decoding through coil against eager and Inductor (issue 33): a Llama-shaped causal LM
(transformers' LlamaForCausalLM from a config, random weights) generates with a static KV cache
(`cache_implementation="static"`), its forward under `torch.compile`, in one process. Prints one
JSON line per way: whether its tokens are eager's, milliseconds a token and tokens a second (a
timed `generate` after a warm-up one that compiles), the bytes a decode step must read (the
weights and, with the static cache, the whole cache) over that time (`read_gb_s`, to set against
the device's memory bandwidth), the first `generate`'s seconds, and for coil the graphs it
compiled, sent to eager and ran on the host. A way `X-graphs` is backend X with
`mode="reduce-overhead"` (CUDA graphs: coil's `_graphs`, Inductor's cudagraph trees);
`coil-ungrouped` is coil with `group_heads=False` (grouped-query attention's key and value
heads copied per query head, as traced); `coil-owngemm` is coil with `gemm="gemm"` (its own
f32 matmuls, as the CLI runs them, instead of the loaded torch's BLAS).

    .venv/bin/python tools/decode_bench.py [--device cpu|cuda] [--dtype float32|bfloat16]
        [--layers 2 --hidden 128 --heads 4 --kv-heads 2 --vocab 1000] [--prompt 16 --new 32]
        [--ways eager,coil,inductor,coil-graphs,inductor-graphs] [--step N] [--profile]
        [--runs R]

`--step N` also times the decode step alone: the forward of one token (the last call
`generate` made), called N times, then one synchronize (`step_ms`, and `step_hbm_share`: the
bytes it must read over that time against `--bandwidth`, in GB/s). `--profile` prints the
decode step's ten costliest kernels per way (torch.profiler: CUPTI sees coil's launches too).

The issue's H200 shapes: `--layers 4 --hidden 512 --heads 8 --kv-heads 8 --prompt 128`
(small f32) and `--layers 16 --hidden 2048 --heads 32 --kv-heads 8 --vocab 128256
--intermediate 8192 --prompt 512 --dtype bfloat16` (Llama-3.2-1B-shaped).
"""

import argparse
import json
import time
import warnings

import torch

warnings.simplefilter("ignore")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--intermediate", type=int, default=0, help="default: 4 * hidden")
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--vocab", type=int, default=1000)
    ap.add_argument("--prompt", type=int, default=16)
    ap.add_argument("--new", type=int, default=32)
    ap.add_argument("--ways", default="eager,coil,inductor")
    ap.add_argument("--step", type=int, default=0, help="time the decode step alone, N calls")
    ap.add_argument("--bandwidth", type=float, default=3350.0,
                    help="the device's memory bandwidth in GB/s (H100 SXM 3350, H200 4800)")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--runs", type=int, default=1,
                    help="timed generates after the warm-up one; their median is reported")
    ap.add_argument("--cache", default="static", choices=["static", "dynamic"],
                    help="static: a fixed-size KV cache (one decode graph); dynamic: "
                    "transformers' default, which grows a token a step (a new size each call)")
    a = ap.parse_args()
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.backends.cuda.matmul.allow_tf32 = False
    cfg = LlamaConfig(vocab_size=a.vocab, hidden_size=a.hidden,
                      intermediate_size=a.intermediate or 4 * a.hidden,
                      num_hidden_layers=a.layers, num_attention_heads=a.heads,
                      num_key_value_heads=a.kv_heads,
                      max_position_embeddings=a.prompt + a.new + 8)
    torch.manual_seed(0)
    dtype = getattr(torch, a.dtype)
    model = LlamaForCausalLM(cfg).to(a.device, dtype).eval()
    ids = torch.randint(0, a.vocab, (1, a.prompt), device=a.device)
    sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)
    eager_forward = model.forward
    want = None
    head_dim = a.hidden // a.heads
    cache_bytes = (2 * a.layers * a.kv_heads * head_dim * cfg.max_position_embeddings
                   * torch.finfo(dtype).bits // 8) if a.cache == "static" else 0
    read_bytes = sum(p.numel() * p.element_size() for p in model.parameters()) + cache_bytes
    for way in a.ways.split(","):
        torch._dynamo.reset()
        backend, _, variant = way.partition("-")
        if backend == "coil":
            import coil

            coil.reset_stats()
        mode = {"mode": "reduce-overhead"} if variant == "graphs" else {}
        if variant == "ungrouped":  # coil without `_heads`: a copy of the cache per query head
            mode = {"options": {"group_heads": False}}
        if variant == "owngemm":  # coil's own f32 matmuls (as the CLI), not torch's BLAS
            mode = {"options": {"gemm": "gemm"}}
        compiled = eager_forward if way == "eager" else torch.compile(
            eager_forward, backend=backend, **mode)
        last = {}

        def recording(*args, **kwargs):
            ids_now = kwargs.get("input_ids", args[0] if args else None)
            if ids_now is not None and ids_now.shape[-1] == 1:
                # Copies: `generate` advances its position tensors in place afterwards, and
                # the static cache its layers' lengths (saved to be put back before each
                # timed call).
                last["call"] = tuple(
                    torch.utils._pytree.tree_map_only(torch.Tensor, torch.clone, x)
                    for x in (args, kwargs))
                last["lengths"] = [(t, t.clone()) for t in _cache_lengths(kwargs)]
            return compiled(*args, **kwargs)

        # The one-token call is recorded only when the step is to be timed: its copies (the
        # token's inputs and the cache's lengths, a few small tensors) are in every token then.
        model.forward = recording if a.step else compiled

        def generate():
            with torch.no_grad():
                cache = {"cache_implementation": "static"} if a.cache == "static" else {}
                out = model.generate(ids, max_new_tokens=a.new, min_new_tokens=a.new,
                                     do_sample=False, pad_token_id=0, **cache)
            sync()
            return out

        t0 = time.perf_counter()
        generate()
        first_s = time.perf_counter() - t0
        if a.cache == "dynamic":
            # The second generate's prefill runs on Dynamo's dynamic graph (the first ran on
            # its static one): one more size to compile before the timed run.
            generate()
        times = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            tokens = generate()
            times.append(1e3 * (time.perf_counter() - t0) / a.new)
        ms = sorted(times)[len(times) // 2]
        tokens = tokens[0, a.prompt:].tolist()
        if way == "eager":
            want = tokens
        r = {"way": way, "device": a.device, "dtype": a.dtype, "layers": a.layers,
             "hidden": a.hidden, "prompt": a.prompt, "new": a.new,
             "ms_per_token": round(ms, 3), "tokens_per_s": round(1e3 / ms, 1),
             "read_gb_s": round(read_bytes / ms / 1e6, 1), "first_generate_s": round(first_s, 2),
             "eager_tokens": None if want is None else tokens == want}
        if a.step and "call" in last:
            r.update(decode_step(compiled, last, a.step, sync, read_bytes, a))
        if backend == "coil":
            s = coil.torch_stats()
            r.update(cache=a.cache, dynamic_graphs=s["dynamic_graphs"],
                     specializations=s["specializations"], trace_s=round(s["trace_s"], 2),
                     graphs_compiled=s["graphs_compiled"], graphs_to_eager=s["graphs_to_eager"],
                     fallback_ops=s["fallback_ops"], outputs_in_place=s["outputs_in_place"],
                     copies_skipped=s["copies_skipped"], cuda_graphs=s["cuda_graphs"],
                     cuda_graphs_refused=s["cuda_graphs_refused"])
        print(json.dumps(r), flush=True)
    model.forward = eager_forward


def _cache_lengths(kwargs):
    """The static cache's per-layer length tensors (transformers' `StaticLayer`), which each
    forward advances in place."""
    for v in kwargs.values():
        layers = getattr(v, "layers", None)
        if layers:
            return [layer.cumulative_length for layer in layers
                    if isinstance(getattr(layer, "cumulative_length", None), torch.Tensor)]
    return []


def decode_step(forward, last, n, sync, read_bytes, a):
    """The decode step alone: `forward` on `generate`'s last one-token call, `n` times queued
    then one synchronize (median of 5 rounds), the cache's lengths put back before each (one
    `_foreach_copy_`, timed alone and taken off); with `--profile`, its costliest kernels."""
    args, kwargs = last["call"]
    lengths = [t for t, _ in last["lengths"]]
    saved = [v for _, v in last["lengths"]]

    def rewind():
        if lengths:
            torch._foreach_copy_(lengths, saved)

    def timed(body):
        rounds = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(n):
                body()
            sync()
            rounds.append(1e3 * (time.perf_counter() - t0) / n)
        return sorted(rounds)[2]

    def step():
        rewind()
        forward(*args, **kwargs)

    with torch.no_grad():
        for _ in range(3):
            step()
        sync()
        ms = timed(step) - timed(rewind)
        out = {"step_ms": round(ms, 4),
               "step_hbm_share": round(read_bytes / (ms / 1e3) / 1e9 / a.bandwidth, 3)}
        if a.profile and a.device == "cuda":
            from torch.profiler import ProfilerActivity, profile

            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(10):
                    step()
                sync()
            rows = sorted(prof.key_averages(), key=lambda e: -e.device_time_total)[:10]
            out["kernels_us_per_step"] = [
                [e.key[:80], round(e.device_time_total / 10, 1), e.count // 10] for e in rows]
    return out


if __name__ == "__main__":
    main()
