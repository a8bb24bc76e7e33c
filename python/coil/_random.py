"""Random ops the way Inductor compiles them: each random op of a graph becomes one of coil's
Philox ops (`torch.ops.coil.philox_rand`, `_randn`, `_randint`), keyed by a seed that is a
graph input and numbered by its place in the graph. The runner draws the seed from torch's
generator on the graph's device at every call, so `torch.manual_seed` makes a compiled call
reproducible and two calls differ, as eager's do; the numbers themselves are coil's, not
eager's (Inductor's are not eager's either), with the same distributions.

The ops' eager kernels below compute the numbers coil's kernels compute
(`coil_kernel::philox` in the Rust crates), so a graph that falls back to eager draws the
same values.
"""

import math

import torch

_M0, _M1 = 0xD2511F53, 0xCD9E8D57
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_MASK = 0xFFFFFFFF

_lib = torch.library.Library("coil", "DEF")
_lib.define("philox_rand(Tensor seed, int offset, SymInt[] size, *, ScalarType dtype) -> Tensor")
_lib.define("philox_randn(Tensor seed, int offset, SymInt[] size, *, ScalarType dtype) -> Tensor")
_lib.define(
    "philox_randint(Tensor seed, int offset, SymInt[] size, int low, int high, *, "
    "ScalarType dtype) -> Tensor"
)


def _mul_hi_lo(m, a):
    al, ah = a & 0xFFFF, a >> 16
    p, q = al * m, ah * m
    return (q + (p >> 16)) >> 16, (((q & 0xFFFF) << 16) + p) & _MASK


def _words(seed, offset, numel):
    """Philox-4x32-10's four words (int64 tensors) for elements 0..numel."""
    i = torch.arange(numel, dtype=torch.int64, device=seed.device)
    c = [i & _MASK, i >> 32, torch.full_like(i, offset), torch.zeros_like(i)]
    s = seed.reshape(()).to(torch.int64)
    k0, k1 = s & _MASK, (s >> 32) & _MASK
    for r in range(10):
        key0 = (k0 + ((_W0 * r) & _MASK)) & _MASK
        key1 = (k1 + ((_W1 * r) & _MASK)) & _MASK
        hi0, lo0 = _mul_hi_lo(_M0, c[0])
        hi1, lo1 = _mul_hi_lo(_M1, c[2])
        c = [hi1 ^ c[1] ^ key0, lo1, hi0 ^ c[3] ^ key1, lo0]
    return c


_MANTISSA = {torch.float64: 52, torch.float32: 23, torch.float16: 10, torch.bfloat16: 7}


def _uniform(w0, w1, bits):
    if bits <= 32:
        k = w0 >> (32 - bits)
    else:
        k = (w1 << (bits - 32)) | (w0 >> (64 - bits))
    return k.to(torch.float64) * (1.0 / (1 << bits))


def _check_float(dtype, name):
    if dtype not in _MANTISSA:
        raise RuntimeError(f"{name}: expected a floating point dtype, got {dtype}")


def _rand_impl(seed, offset, size, *, dtype):
    _check_float(dtype, "philox_rand")
    w = _words(seed, offset, math.prod(size))
    return _uniform(w[0], w[1], _MANTISSA[dtype] + 1).to(dtype).reshape(size)


def _randn_impl(seed, offset, size, *, dtype):
    _check_float(dtype, "philox_randn")
    w = _words(seed, offset, math.prod(size))
    bits = _MANTISSA[dtype] + 1
    u1 = 1.0 - _uniform(w[0], w[1], bits)
    u2 = _uniform(w[2], w[3], bits)
    n = torch.sqrt(-2.0 * torch.log(u1)) * torch.cos(2.0 * math.pi * u2)
    return n.to(dtype).reshape(size)


def _randint_impl(seed, offset, size, low, high, *, dtype):
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    w = _words(seed, offset, math.prod(size))
    v = ((w[1] & 0x7FFFFFFF) << 32) | w[0]
    return (v % (high - low) + low).to(dtype).reshape(size)


def _fake(seed, offset, size, *args, dtype):
    return torch.empty(size, dtype=dtype, device=seed.device)


for _name, _impl in (
    ("philox_rand", _rand_impl),
    ("philox_randn", _randn_impl),
    ("philox_randint", _randint_impl),
):
    _lib.impl(_name, _impl, "CompositeExplicitAutograd")
    torch.library.register_fake(f"coil::{_name}")(_fake)


def _aten():
    aten = torch.ops.aten
    return {
        aten.rand.default: "rand",
        aten.rand.generator: "rand",
        aten.randn.generator: "randn",
        aten.randint.generator: "randint",
        aten.randint.low_generator: "randint",
        aten.rand_like.default: "rand",
        aten.randn.default: "randn",
        aten.randn_like.default: "randn",
        aten.randint.default: "randint",
        aten.randint.low: "randint",
        aten.randint_like.default: "randint",
        aten.randint_like.low_dtype: "randint",
        aten.bernoulli.p: "bernoulli",
        aten.uniform.default: "uniform",
        aten.normal_functional.default: "normal",
    }


def _meta(node):
    val = node.meta.get("val")
    return val if isinstance(val, torch.Tensor) else None


def seed_random_ops(gm):
    """Rewrites `gm`'s random ops (`rand`, `randn`, `randint`, their `_like` forms,
    `bernoulli.p`, `uniform`, `normal_functional`) into coil's Philox ops keyed by a new last
    placeholder, the seed; returns whether there were any. A random op with a `generator`
    argument is left as it is (coil then refuses the graph, as Inductor falls back on it)."""
    kinds = _aten()
    graph = gm.graph
    nodes = [
        n
        for n in graph.nodes
        if n.op == "call_function"
        and n.target in kinds
        and n.kwargs.get("generator") is None
        and _meta(n) is not None
    ]
    if not nodes:
        return False
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    anchor = placeholders[-1] if placeholders else next(iter(graph.nodes))
    insert = graph.inserting_after if placeholders else graph.inserting_before
    device = "meta"  # the metas say shape, dtype and strides; the device is the graph's
    with insert(anchor):
        seed = graph.placeholder("rng_seed")
    seed.meta["val"] = torch.empty((), dtype=torch.int64, device="meta")
    coil = torch.ops.coil
    aten = torch.ops.aten
    for offset, node in enumerate(nodes):
        out = _meta(node)
        kind = kinds[node.target]
        size = list(out.shape)
        with graph.inserting_before(node):
            if kind == "randint":
                args, kw = node.args, node.kwargs
                if node.target in (aten.randint.default, aten.randint.generator):
                    low, high = 0, args[0]
                elif node.target in (aten.randint.low, aten.randint.low_generator):
                    low, high = args[0], args[1]
                elif node.target == aten.randint_like.default:
                    low, high = 0, args[1]
                else:
                    low, high = args[1], args[2]
                new = graph.call_function(
                    coil.philox_randint.default, (seed, offset, size, low, high), {"dtype": out.dtype}
                )
            elif kind in ("rand", "randn"):
                op = coil.philox_rand.default if kind == "rand" else coil.philox_randn.default
                new = graph.call_function(op, (seed, offset, size), {"dtype": out.dtype})
            elif kind == "bernoulli":
                # PyTorch's bernoulli_(p): 1 where a uniform draw is below p.
                x, p = node.args[0], node.args[1] if len(node.args) > 1 else node.kwargs.get("p", 0.5)
                wide = torch.float64 if out.dtype == torch.float64 else torch.float32
                u = graph.call_function(coil.philox_rand.default, (seed, offset, size), {"dtype": wide})
                u.meta["val"] = torch.empty(size, dtype=wide, device=device)
                lt = graph.call_function(aten.lt.Scalar, (u, p))
                lt.meta["val"] = torch.empty(size, dtype=torch.bool, device=device)
                new = graph.call_function(aten._to_copy.default, (lt,), {"dtype": out.dtype})
            else:
                args = list(node.args) + [None] * 3
                a = node.kwargs.get("from", args[1] if args[1] is not None else 0.0)
                b = node.kwargs.get("to", args[2] if args[2] is not None else 1.0)
                if kind == "normal":
                    a = node.kwargs.get("mean", args[1] if args[1] is not None else 0.0)
                    b = node.kwargs.get("std", args[2] if args[2] is not None else 1.0)
                op = coil.philox_rand.default if kind == "uniform" else coil.philox_randn.default
                r = graph.call_function(op, (seed, offset, size), {"dtype": out.dtype})
                r.meta["val"] = torch.empty(size, dtype=out.dtype, device=device)
                scale = (b - a) if kind == "uniform" else b
                m = graph.call_function(aten.mul.Tensor, (r, scale))
                m.meta["val"] = r.meta["val"]
                new = graph.call_function(aten.add.Tensor, (m, a))
        new.meta["val"] = torch.empty_strided(
            out.shape, out.stride(), dtype=out.dtype, device=device
        )
        node.replace_all_uses_with(new)
        graph.erase_node(node)
    gm.recompile()
    return True


def draw_seed(device):
    """A seed from torch's generator on `device` (a 0-d int64 tensor there)."""
    return torch.randint(-(2**63), 2**63 - 1, (), dtype=torch.int64, device=device)
