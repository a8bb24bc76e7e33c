"""The model zoo (models/README.md) as the `nn.Module`s a user writes: the same twelve functions
the graph files hold, at three sizes. `tiny` is for tests, `article` the source articles' sizes,
`large` the memory-bound models at [8192, 8192] for benchmarks."""

import math

import torch
import torch.nn.functional as F
from torch import nn


class SeedModel(nn.Module):
    """`(relu(1.1 x + bias)^2 + 0.1 relu(...)) - mean, * gamma + beta`."""

    def __init__(self, n):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(n))
        self.gamma = nn.Parameter(torch.randn(n))
        self.beta = nn.Parameter(torch.randn(n))

    def forward(self, x):
        r = torch.relu(x * 1.1 + self.bias)
        y = r * r + r * 0.1
        return (y - y.mean(1, keepdim=True)) * self.gamma + self.beta


class Fn(nn.Module):
    """A module around a function of its inputs."""

    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *xs):
        return self.f(*xs)


class RMSNorm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n))

    def forward(self, x):
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * self.weight


class MmEpilogue(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(k, n) / math.sqrt(k))

    def forward(self, x):
        return torch.relu((x + 1) @ self.w)


class GeluMlp(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class TransformerBlock(nn.Module):
    """GPT-2's pre-LN block: causal self-attention and a tanh-GELU MLP, residuals around both."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        b, s, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, -1)
        q, k, v = (t.view(b, s, h, d // h).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-1, -2)) / math.sqrt(d // h)
        mask = torch.tril(torch.ones(s, s, dtype=torch.bool, device=x.device))
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


# name -> (make(size) -> module, inputs(size) -> list of tensors)
SIZES = {"tiny": 64, "article": 1024, "large": 8192}
MEMORY_BOUND = ["seed_model", "chain", "rowsum", "siblings", "wall", "softmax", "layernorm", "rmsnorm"]


def zoo(size):
    """`[(name, module, inputs)]` of the zoo at `size` (`tiny`, `article`, `large`; `large` has
    only the memory-bound models)."""
    n = SIZES[size]
    x = lambda: [torch.randn(n, n)]  # noqa: E731
    models = [
        ("seed_model", lambda: SeedModel(n), x),
        ("chain", lambda: Fn(lambda x: torch.sin(torch.relu(x + 1) * 2)), x),
        ("rowsum", lambda: Fn(lambda x: torch.relu(x + 1).sum(1)), x),
        ("siblings", lambda: Fn(lambda x: (x.amax(1), x.sum(1))), x),
        ("wall", lambda: Fn(lambda x: torch.relu(x - x.mean())), x),
        ("softmax", lambda: Fn(lambda x: torch.softmax(x, -1)), x),
        ("layernorm", lambda: nn.LayerNorm(n), x),
        ("rmsnorm", lambda: RMSNorm(n), x),
    ]
    if size != "large":
        small = size == "tiny"
        mm, d, hid = (32, 32, 64) if small else (512, 256, 1024)
        b, h, s, hd = (2, 2, 16, 8) if small else (4, 8, 256, 64)
        tb, ts, td, th = (2, 16, 32, 2) if small else (4, 128, 256, 4)
        models += [
            ("mm_epilogue", lambda: MmEpilogue(mm, mm), lambda: [torch.randn(mm, mm)]),
            ("gelu_mlp", lambda: GeluMlp(d, hid), lambda: [torch.randn(d, d)]),
            (
                "attention",
                lambda: Fn(
                    lambda q, k, v: torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]), -1)
                    @ v
                ),
                lambda: [torch.randn(b, h, s, hd) for _ in range(3)],
            ),
            ("transformer_block", lambda: TransformerBlock(td, th), lambda: [torch.randn(tb, ts, td)]),
        ]
    return models
