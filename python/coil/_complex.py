"""Complex tensors as Inductor takes many of them: through their real view. A graph's complex
values become real tensors with a trailing dim of 2 (`torch.view_as_real`'s layout: real part,
imaginary part), and each op on them becomes real ops on the two parts; the runner views
complex inputs as real (no copy) and hands complex outputs back through
`torch.view_as_complex` (no copy). coil itself never sees a complex dtype.

Covered: arithmetic (`add`, `sub`, `mul`, `div`, `neg`, `exp`), `conj`, `abs`, `angle`,
`real`, `imag`, `polar`, `complex`, `view_as_real`, `view_as_complex`, `where`, dtype
conversions, matmuls (four real ones), sums and means, the Fourier transforms
(`_fft_c2c`, `_fft_r2c`, `_fft_c2r`: matmuls with DFT matrices, `_fft`), and the shape ops (views, permutes,
slices, `cat`, `expand`, ...). Anything else on a complex value is `Unsupported`.
"""

import torch

from . import _fft
from ._fx import Unsupported

aten = torch.ops.aten

_REAL = {
    torch.complex32: torch.float16,
    torch.complex64: torch.float32,
    torch.complex128: torch.float64,
}


def _val(node):
    if isinstance(node, torch.fx.Node):
        v = node.meta.get("val")
        return v if isinstance(v, torch.Tensor) else None
    return None


def _is_complex(node):
    v = _val(node)
    return v is not None and v.dtype.is_complex


def _meta_of(v):
    if isinstance(v, torch.fx.Node):
        m = v.meta.get("val")
        if isinstance(m, (list, tuple)):  # a node of several results (`sort`)
            return type(m)(_meta_of(x) for x in m)
        m = _val(v)
        return torch.empty_strided(m.shape, m.stride(), dtype=m.dtype, device="meta")
    if isinstance(v, torch.Tensor):
        return torch.empty_strided(v.shape, v.stride(), dtype=v.dtype, device="meta")
    if isinstance(v, (list, tuple)):
        return type(v)(_meta_of(x) for x in v)
    return v


class _Builder:
    """Emits real ops before `anchor`, each with its meta computed on the meta device."""

    def __init__(self, gm, anchor, device):
        self.gm = gm
        self.device = device
        self.graph = gm.graph
        self.anchor = anchor

    @staticmethod
    def val(node):
        return _val(node)

    def const(self, t):
        """A constant tensor as a `get_attr` node (lifted to an input after the rewrite)."""
        name = f"_coil_constant_{sum(1 for n in self.graph.nodes if n.op == 'get_attr')}"
        while hasattr(self.gm, name):
            name += "_"
        self.gm.register_buffer(name, t)
        with self.graph.inserting_before(self.anchor):
            node = self.graph.get_attr(name)
        node.meta["val"] = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")
        return node

    def op(self, target, *args, **kwargs):
        with self.graph.inserting_before(self.anchor):
            node = self.graph.call_function(target, tuple(args), kwargs)
        val = target(*_meta_of(list(args)), **{k: _meta_of(v) for k, v in kwargs.items()})
        node.meta["val"] = val
        return node

    # Arithmetic on a part: a node or a Python number.
    def add(self, a, b):
        if not isinstance(a, torch.fx.Node) and not isinstance(b, torch.fx.Node):
            return a + b
        if not isinstance(a, torch.fx.Node):
            a, b = b, a
        if not isinstance(b, torch.fx.Node) and b == 0:
            return a
        return self.op(aten.add.Tensor, a, b)

    def neg(self, a):
        return -a if not isinstance(a, torch.fx.Node) else self.op(aten.neg.default, a)

    def sub(self, a, b):
        return self.add(a, self.neg(b))

    def mul(self, a, b):
        if not isinstance(a, torch.fx.Node) and not isinstance(b, torch.fx.Node):
            return a * b
        if not isinstance(a, torch.fx.Node):
            a, b = b, a
        if not isinstance(b, torch.fx.Node) and b == 1:
            return a
        return self.op(aten.mul.Tensor, a, b)

    def div(self, a, b):
        if not isinstance(a, torch.fx.Node) and not isinstance(b, torch.fx.Node):
            return a / b
        if not isinstance(a, torch.fx.Node):
            return self.mul(self.op(aten.reciprocal.default, b), a)
        return self.op(aten.div.Tensor, a, b)

    def tensor(self, v, like):
        """A part as a node (a number becomes a 0-d tensor of `like`'s dtype)."""
        if isinstance(v, torch.fx.Node):
            return v
        return self.op(aten.full.default, [], v, dtype=_val(like).dtype, device=_val(like).device)


def lower_complex(gm, device="cpu"):
    """Rewrites `gm`'s complex values into real `[..., 2]` ones in place (constants it needs,
    such as DFT matrices, on `device` as `get_attr` nodes); returns the indices of its complex placeholders and `(index, dtype)` of its complex outputs."""
    graph = gm.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    complex_in = []
    for i, ph in enumerate(placeholders):
        v = _val(ph)
        if v is not None and v.dtype.is_complex:
            if v.dtype not in _REAL:
                raise Unsupported(f"input '{ph.name}' is {v.dtype}")
            complex_in.append(i)
            ph.meta["val"] = torch.empty(list(v.shape) + [2], dtype=_REAL[v.dtype], device="meta")
    touched = set(placeholders[i] for i in complex_in)
    complex_out = []
    if not touched and not any(
        _is_complex(n) for n in graph.nodes if n.op == "call_function"
    ):
        return complex_in, complex_out
    parts = {}  # complex node -> (re, im), each a real node or a number

    def split(b, x):
        if isinstance(x, torch.fx.Node) and x in touched:
            if x not in parts:
                re = b.op(aten.select.int, x, -1, 0)
                im = b.op(aten.select.int, x, -1, 1)
                parts[x] = (re, im)
            return parts[x]
        if isinstance(x, complex):
            return x.real, x.imag
        if isinstance(x, (int, float, bool)):
            return float(x), 0.0
        if isinstance(x, torch.fx.Node):
            return x, 0.0  # a real tensor, promoted
        raise Unsupported(f"complex operand {x!r}")

    def pack(b, re, im, like):
        re, im = b.tensor(re, like), b.tensor(im, like)
        shape = list(torch.broadcast_shapes(_val(re).shape, _val(im).shape))
        if list(_val(re).shape) != shape:
            re = b.op(aten.expand.default, re, shape)
        if list(_val(im).shape) != shape:
            im = b.op(aten.expand.default, im, shape)
        # stack, as the native ops it decomposes into
        re = b.op(aten.unsqueeze.default, re, -1)
        im = b.op(aten.unsqueeze.default, im, -1)
        return b.op(aten.cat.default, [re, im], -1)

    for node in list(graph.nodes):
        if node.op == "output":
            outs = node.args[0]
            flat = outs if isinstance(outs, (list, tuple)) else (outs,)
            for i, o in enumerate(flat):
                if isinstance(o, torch.fx.Node) and o in touched:
                    complex_out.append((i, _COMPLEX_OF[_val(o).dtype]))
            continue
        if node.op != "call_function":
            continue
        args = list(node.args) + list(node.kwargs.values())
        ins = [a for a in _flat(args) if isinstance(a, torch.fx.Node) and a in touched]
        if not ins and not _is_complex(node):
            continue
        b = _Builder(gm, node, device)
        new = _rewrite(b, node, split, pack, touched)
        if new is None:
            raise Unsupported(f"complex values through {node.target}")
        node.replace_all_uses_with(new)
        graph.erase_node(node)
        if _val(new) is not None and _val(new).dtype in _COMPLEX_OF and _complex_result(node):
            touched.add(new)
    graph.eliminate_dead_code()
    gm.recompile()
    return complex_in, complex_out


_COMPLEX_OF = {v: k for k, v in _REAL.items()}


def _complex_result(node):
    v = node.meta.get("val")
    return isinstance(v, torch.Tensor) and v.dtype.is_complex


def _flat(xs):
    for x in xs:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def _dim(d, rank):
    return d + rank if d < 0 else d


def _rewrite(b, node, split, pack, touched):
    """The real node standing for `node` (its `[..., 2]` form if complex), or None."""
    t = node.target
    a = node.args
    kw = dict(node.kwargs)
    out = node.meta.get("val")
    rank = out.dim() if isinstance(out, torch.Tensor) else None
    x0 = a[0] if a else None

    def cplx_rank(n):
        # The complex rank of a touched node: its real view's rank less one.
        return _val(n).dim() - 1

    if t in (aten.view_as_real.default, aten.view_as_complex.default):
        # A node of its own: the same storage is a complex value on one side of the view and
        # a real one on the other.
        return b.op(aten.alias.default, x0)
    if t in (aten.clone.default, aten.resolve_conj.default, aten.resolve_neg.default,
             aten.alias.default, aten.lift_fresh_copy.default):
        return x0
    if t in (aten._conj.default, aten.conj_physical.default, aten.conj.default):
        re, im = split(b, x0)
        return pack(b, re, b.neg(im), x0)
    if t in (aten.add.Tensor, aten.add.Scalar, aten.sub.Tensor, aten.sub.Scalar):
        alpha = kw.get("alpha", a[2] if len(a) > 2 else 1)
        (ar, ai), (br, bi) = split(b, a[0]), split(b, a[1])
        if alpha != 1:
            cr, ci = split(b, alpha)
            br, bi = b.sub(b.mul(br, cr), b.mul(bi, ci)), b.add(b.mul(br, ci), b.mul(bi, cr))
        f = b.add if t in (aten.add.Tensor, aten.add.Scalar) else b.sub
        return pack(b, f(ar, br), f(ai, bi), _anchor(a))
    if t in (aten.mul.Tensor, aten.mul.Scalar):
        (ar, ai), (br, bi) = split(b, a[0]), split(b, a[1])
        re = b.sub(b.mul(ar, br), b.mul(ai, bi))
        im = b.add(b.mul(ar, bi), b.mul(ai, br))
        return pack(b, re, im, _anchor(a))
    if t in (aten.div.Tensor, aten.div.Scalar):
        (ar, ai), (br, bi) = split(b, a[0]), split(b, a[1])
        den = b.add(b.mul(br, br), b.mul(bi, bi))
        re = b.div(b.add(b.mul(ar, br), b.mul(ai, bi)), den)
        im = b.div(b.sub(b.mul(ai, br), b.mul(ar, bi)), den)
        return pack(b, re, im, _anchor(a))
    if t is aten.neg.default:
        re, im = split(b, x0)
        return pack(b, b.neg(re), b.neg(im), x0)
    if t is aten.exp.default:
        re, im = split(b, x0)
        e = b.op(aten.exp.default, re)
        return pack(b, b.mul(e, b.op(aten.cos.default, im)), b.mul(e, b.op(aten.sin.default, im)), x0)
    if t is aten.abs.default:
        re, im = split(b, x0)
        return b.op(aten.hypot.default, re, im)
    if t is aten.angle.default:
        re, im = split(b, x0)
        return b.op(aten.atan2.default, im, re)
    if t is aten.real.default:
        return split(b, x0)[0]
    if t is aten.imag.default:
        return split(b, x0)[1]
    if t is aten.polar.default:
        r, th = a[0], a[1]
        return pack(b, b.mul(r, b.op(aten.cos.default, th)), b.mul(r, b.op(aten.sin.default, th)), r)
    if t is aten.complex.default:
        return pack(b, a[0], a[1], a[0])
    if t is aten._fft_c2c.default:
        re, im = split(b, x0)
        return pack(b, *_fft.c2c(b, re, im, a[1], a[2], a[3]), re)
    if t is aten._fft_r2c.default:
        re, im = _fft.r2c(b, x0, a[1], a[2], a[3])
        return pack(b, re, im, re)
    if t is aten._fft_c2r.default:
        re, im = split(b, x0)
        return _fft.c2r(b, re, im, a[1], a[2], a[3])
    if t is aten.where.self:
        (ar, ai), (br, bi) = split(b, a[1]), split(b, a[2])
        like = _anchor(a[1:])
        ar, ai, br, bi = (b.tensor(v, like) for v in (ar, ai, br, bi))
        return pack(b, b.op(aten.where.self, a[0], ar, br), b.op(aten.where.self, a[0], ai, bi), like)
    if t is aten._to_copy.default:
        dtype = kw.get("dtype")
        re, im = split(b, x0)
        if dtype is not None and dtype.is_complex:
            real = _REAL.get(dtype)
            if real is None:
                return None
            re = b.op(aten._to_copy.default, b.tensor(re, x0), dtype=real)
            im = b.op(aten._to_copy.default, b.tensor(im, x0), dtype=real)
            return pack(b, re, im, re)
        return b.op(aten._to_copy.default, b.tensor(re, x0), **kw)
    if t in (aten.mm.default, aten.bmm.default):
        # (A + iB)(C + iD) = (AC - BD) + i(AD + BC), a real operand's part 0 left out.
        (ar, ai), (br, bi) = split(b, a[0]), split(b, a[1])

        def mm(p, q):
            if not isinstance(p, torch.fx.Node) or not isinstance(q, torch.fx.Node):
                return 0.0
            return b.op(t, p, q)

        re = b.sub(mm(ar, br), mm(ai, bi))
        im = b.add(mm(ar, bi), mm(ai, br))
        return pack(b, re, im, _anchor(a))
    # Shape ops act on the complex dims, which lead the real view's.
    if t is aten.cat.default:
        xs = list(a[0])
        if not all(x in touched for x in xs):
            return None  # a real tensor beside complex ones
        dim = a[1] if len(a) > 1 else kw.get("dim", 0)
        return b.op(t, xs, _dim(dim, cplx_rank(xs[0])))
    if not (isinstance(x0, torch.fx.Node) and x0 in touched):
        return None
    r = cplx_rank(x0)
    if t in (aten.view.default, aten._unsafe_view.default, aten.reshape.default):
        return b.op(aten.view.default if t is not aten.reshape.default else t, x0,
                    list(out.shape) + [2])
    if t is aten.expand.default:
        return b.op(t, x0, list(out.shape) + [2])
    if t is aten.permute.default:
        return b.op(t, x0, [_dim(d, r) for d in a[1]] + [r])
    if t is aten.transpose.int:
        return b.op(t, x0, _dim(a[1], r), _dim(a[2], r))
    if t is aten.t.default:
        return b.op(aten.transpose.int, x0, 0, r - 1) if r == 2 else x0
    if t is aten.unsqueeze.default:
        return b.op(t, x0, _dim(a[1], r + 1))
    if t is aten.squeeze.dim:
        return b.op(t, x0, _dim(a[1], r))
    if t is aten.squeeze.dims:
        return b.op(t, x0, [_dim(d, r) for d in a[1]])
    if t is aten.select.int:
        return b.op(t, x0, _dim(a[1], r), a[2])
    if t is aten.slice.Tensor:
        rest = list(a[2:])
        return b.op(t, x0, _dim(a[1] if len(a) > 1 else 0, r), *rest)
    if t in (aten.sum.dim_IntList, aten.mean.dim):
        dims = a[1] if len(a) > 1 else None
        dims = list(range(r)) if not dims else [_dim(d, r) for d in dims]
        keep = a[2] if len(a) > 2 else kw.get("keepdim", False)
        return b.op(t, x0, dims, keep)
    if t is aten.sum.default:
        return b.op(aten.sum.dim_IntList, x0, list(range(r)))
    return None


def _anchor(args):
    for x in args:
        if isinstance(x, torch.fx.Node):
            return x
    return None
