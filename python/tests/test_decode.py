"""Greedy decoding through coil (issue 33): a Llama-shaped causal LM from a config (random
weights) generates with a static KV cache, its forward under `torch.compile(backend="coil")`;
the tokens are eager's, every graph is coil's with no host call, and each decode step writes
its cache updates into the caches themselves without copying them first."""

import warnings

import pytest
import torch

import coil

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def _tokens_eager_then_compiled(device, calls, **compile_kwargs):
    """A small Llama's greedy tokens (static cache) in eager, then from `calls` generates with
    its forward under `torch.compile(backend="coil", **compile_kwargs)`; and its config."""
    transformers = pytest.importorskip("transformers")
    cfg = transformers.LlamaConfig(
        vocab_size=500, hidden_size=64, intermediate_size=160, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=48,
    )
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(cfg).to(device).eval()
    ids = torch.randint(0, cfg.vocab_size, (1, 11), device=device)

    def generate():
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return model.generate(ids, max_new_tokens=12, min_new_tokens=12, do_sample=False,
                                  cache_implementation="static", pad_token_id=0)

    want = generate()
    torch._dynamo.reset()
    coil.reset_stats()
    eager_forward = model.forward
    model.forward = torch.compile(eager_forward, backend="coil", **compile_kwargs)
    try:
        got = [generate() for _ in range(calls)]
    finally:
        model.forward = eager_forward
    return want, got, cfg


@pytest.mark.parametrize("device", DEVICES)
def test_greedy_generate_with_a_static_cache_gives_eagers_tokens(device):
    want, (got,), cfg = _tokens_eager_then_compiled(device, 1, options={"strict": True})
    assert torch.equal(got, want)
    stats = coil.torch_stats()
    assert stats["graphs_to_eager"] == [] and stats["fallback_ops"] == [], stats
    # The decode graph's four cache updates (keys and values of two layers) written in place,
    # the copy of each cache left out.
    assert stats["copies_skipped"] >= 2 * cfg.num_hidden_layers, stats


@pytest.mark.parametrize("device", DEVICES)
def test_reduce_overhead_generate_gives_eagers_tokens(device):
    """`mode="reduce-overhead"`: on CUDA the decode step's calls replay a captured CUDA graph
    (`_graphs`), with the token ids and positions copied in and the static caches updated in
    place; on the CPU the mode is taken and changes nothing. The tokens are eager's."""
    want, got, _ = _tokens_eager_then_compiled(device, 2, mode="reduce-overhead")
    assert torch.equal(got[0], want) and torch.equal(got[1], want)
    stats = coil.torch_stats()
    assert stats["graphs_to_eager"] == [] and stats["cuda_graphs_refused"] == 0, stats
    assert (stats["cuda_graphs"] >= 1) == (device == "cuda"), stats


def test_an_unknown_mode_is_an_error():
    f = torch.compile(lambda x: x + 1, backend="coil", mode="fastest")
    with pytest.raises(Exception, match="unknown mode 'fastest'"):
        f(torch.ones(3))
