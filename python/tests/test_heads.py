"""Grouped-query attention's repeated key and value heads (`coil/_heads.py`): the batched
matmuls over them read each shared head once, as one matmul a group, with eager's results."""

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

import coil
from coil._heads import group_repeated_heads


def repeat_kv(x, r):
    # transformers' `repeat_kv`: each key/value head repeated for the query heads sharing it.
    b, g, length, d = x.shape
    return x[:, :, None, :, :].expand(b, g, r, length, d).reshape(b, g * r, length, d)


def attention(q, k, v, mask):
    r = q.shape[1] // k.shape[1]
    k, v = repeat_kv(k, r), repeat_kv(v, r)
    scale = q.shape[-1] ** -0.25
    scores = (q * scale) @ (k.transpose(-2, -1) * scale) + mask
    return scores.softmax(-1) @ v


def inputs(batch, heads, kv_heads, queries, length, dtype=torch.float32):
    torch.manual_seed(0)
    q = torch.randn(batch, heads, queries, 16, dtype=dtype)
    k = torch.randn(batch, kv_heads, length, 16, dtype=dtype)
    v = torch.randn(batch, kv_heads, length, 16, dtype=dtype)
    mask = torch.zeros(queries, length, dtype=dtype)
    mask[:, length - 2:] = float("-inf")
    return q, k, v, mask


@pytest.mark.parametrize("batch,heads,kv_heads,queries", [
    (1, 8, 2, 1),   # a decode step
    (2, 6, 3, 5),   # a prefill of 5 tokens, two sequences
    (1, 4, 4, 3),   # no sharing: nothing to rewrite
])
def test_both_matmuls_read_each_shared_head_once(batch, heads, kv_heads, queries):
    args = inputs(batch, heads, kv_heads, queries, 11)
    gm = make_fx(attention)(*args)
    want = gm(*args)
    rewritten = group_repeated_heads(gm)
    assert rewritten == (2 if heads != kv_heads else 0)
    if rewritten:
        # No copy of the keys or values per query head is left.
        five = [n for n in gm.graph.nodes if n.target == torch.ops.aten.expand.default
                and n.meta["val"].dim() == 5]
        assert not any(n.users for n in five)
        bmms = [n for n in gm.graph.nodes if n.target == torch.ops.aten.bmm.default]
        assert [tuple(n.meta["val"].shape)[0] for n in bmms] == [batch * kv_heads] * 2
    torch.testing.assert_close(gm(*args), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_through_coil_grouped_attention_matches_eager(dtype):
    args = inputs(2, 8, 2, 4, 19, dtype)
    want = attention(*args)
    torch._dynamo.reset()
    coil.reset_stats()
    got = torch.compile(attention, backend="coil", options={"strict": True})(*args)
    tol = 1e-5 if dtype == torch.float32 else 2e-2
    torch.testing.assert_close(got, want, rtol=tol, atol=tol)
    assert coil.torch_stats()["graphs_to_eager"] == []
