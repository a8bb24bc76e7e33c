"""The discrete Fourier transforms (`aten._fft_c2c`, `_fft_r2c`, `_fft_c2r`) as the real ops
coil compiles: matmuls with constant DFT matrices, so a transform fuses and runs on every
backend with no FFT library. Inductor calls the library (pocketfft, cuFFT) instead.

A transform along one dim of length n is, by n:

- n <= `DIRECT` (or a small prime): one complex matmul `x @ W`, `W[j, k] = exp(s 2 pi i j k / n)`
  (s = -1 forward, +1 backward): 4 n flops an element, in one kernel each part;
- a composite n = n1 n2: the four-step (Cooley-Tukey) split, n1 the largest factor up to
  sqrt(n): a transform along n1, a twiddle `exp(s 2 pi i k1 j2 / n)`, a transform along n2,
  and a transpose; 4 (n1 + n2) flops an element;
- a prime n > `DIRECT`: Bluestein's chirp, a convolution of length L >= 2 n - 1 (a power of
  two) through two transforms of length L and a constant spectrum.

The constants (DFT matrices, twiddles, chirps) are computed in f64 when the graph is traced,
with every phase reduced exactly (`j k mod n` in integers) before the angle is formed, and
rounded once. A transform is computed one dtype wider than its values (f32 values in f64, f16
and bf16 in f32) and rounded once at the end: an f32 DFT through f32 matmuls is as far from the
exact transform as pocketfft's own f32 result (2.7e-5 against 2.2e-5 at 16^3 inputs), so the
two disagree by twice that, where Inductor's tests (which call pocketfft) allow 1e-5; in f64
coil's result is the exact one rounded. The parts are `_complex`'s: `(re, im)`, each a real node of
the complex shape, `im` the number 0.0 for a real input.
"""

import math

import torch

aten = torch.ops.aten

# The longest transform done as one matmul (a prime above it goes through Bluestein).
DIRECT = 128

# The dtype a transform of values of a dtype is computed in.
WIDE = {torch.float16: torch.float32, torch.bfloat16: torch.float32, torch.float32: torch.float64}


def _dims(dims, rank):
    return [d + rank if d < 0 else d for d in dims]


def _shape(b, x):
    return list(b.val(x).shape)


def _as_rows(shape, dim):
    """How a tensor of `shape` is seen as rows along `dim`: the permutation that moves `dim`
    last, its inverse, the moved shape and the number of rows."""
    rank = len(shape)
    perm = [d for d in range(rank) if d != dim] + [dim]
    inv = [perm.index(d) for d in range(rank)]
    moved = [shape[d] for d in perm]
    return perm, inv, moved, math.prod(moved[:-1])


def _phase(rows, cols, n, half=False):
    """`rows x cols` angles `2 pi (j k mod n) / n` (`pi (j^2 mod 2n) / n` with `half`), f64."""
    j = torch.arange(rows, dtype=torch.int64).unsqueeze(1)
    k = torch.arange(cols, dtype=torch.int64).unsqueeze(0)
    if half:
        return (j * j % (2 * n)).to(torch.float64) * (math.pi / n)
    return (j * k % n).to(torch.float64) * (2 * math.pi / n)


class Fft:
    """Transforms on the parts of one complex value, emitted through `_complex`'s builder."""

    def __init__(self, b, like):
        self.b = b
        self.narrow = b.val(like).dtype
        self.dtype = WIDE.get(self.narrow, self.narrow)
        self.device = b.device

    def widen(self, x):
        if not isinstance(x, torch.fx.Node) or self.dtype == self.narrow:
            return x
        return self.b.op(aten._to_copy.default, x, dtype=self.dtype)

    def round(self, x):
        if not isinstance(x, torch.fx.Node) or self.dtype == self.narrow:
            return x
        return self.b.op(aten._to_copy.default, x, dtype=self.narrow)

    def const(self, t):
        return self.b.const(t.to(self.dtype).to(self.device))

    def expi(self, angle, sign):
        """The constant parts of `exp(sign i angle)`."""
        return self.const(torch.cos(angle)), self.const(sign * torch.sin(angle))

    # Complex arithmetic on parts (`im` may be the number 0).
    def cmul(self, xr, xi, yr, yi):
        b = self.b
        re = b.sub(b.mul(xr, yr), b.mul(xi, yi))
        im = b.add(b.mul(xr, yi), b.mul(xi, yr))
        return re, im

    def cmm(self, xr, xi, wr, wi):
        b = self.b

        def mm(p, q):
            if not isinstance(p, torch.fx.Node):
                return 0.0
            return b.op(aten.mm.default, p, q)

        return b.sub(mm(xr, wr), mm(xi, wi)), b.add(mm(xr, wi), mm(xi, wr))

    def reshape(self, x, shape):
        if not isinstance(x, torch.fx.Node):
            return x
        return self.b.op(aten.reshape.default, x, shape)

    def permute(self, x, perm):
        if not isinstance(x, torch.fx.Node) or perm == list(range(len(perm))):
            return x
        return self.b.op(aten.permute.default, x, perm)

    def along(self, re, im, dim, sign):
        """The transform of `(re, im)` along `dim` (same shape)."""
        shape = _shape(self.b, re)
        n = shape[dim]
        if n <= 1 or 0 in shape:
            return re, im
        perm, inv, moved, rows = _as_rows(shape, dim)
        re2 = self.reshape(self.permute(re, perm), [rows, n])
        im2 = self.reshape(self.permute(im, perm), [rows, n])
        re2, im2 = self.rows(re2, im2, n, sign)
        back = [self.permute(self.reshape(p, moved), inv) for p in (re2, im2)]
        return back[0], back[1]

    def rows(self, xr, xi, n, sign):
        """The transform of each row of `[m, n]` parts."""
        if n <= DIRECT:
            wr, wi = self.expi(_phase(n, n, n), sign)
            return self.cmm(xr, xi, wr, wi)
        n1 = max(d for d in range(1, math.isqrt(n) + 1) if n % d == 0)
        if n1 == 1:
            return self.bluestein(xr, xi, n, sign)
        n2 = n // n1
        m = _shape(self.b, xr)[0]
        # x[n2 j1 + j2]: along j1, twiddle, along j2; the result's index is k1 + n1 k2.
        xr, xi = self.reshape(xr, [m, n1, n2]), self.reshape(xi, [m, n1, n2])
        xr, xi = self.along(xr, xi, 1, sign)
        tr, ti = self.expi(_phase(n1, n2, n), sign)
        xr, xi = self.cmul(xr, xi, tr, ti)
        xr, xi = self.along(xr, xi, 2, sign)
        out = [self.reshape(self.permute(p, [0, 2, 1]), [m, n]) for p in (xr, xi)]
        return out[0], out[1]

    def bluestein(self, xr, xi, n, sign):
        # 2 j k = j^2 + k^2 - (k - j)^2: X[k] = c[k] sum_j (x[j] c[j]) conj(c[k - j]),
        # c[m] = exp(sign i pi m^2 / n), a convolution done at a power-of-two length.
        b = self.b
        length = 1 << (2 * n - 2).bit_length()
        chirp = _phase(n, 1, n, half=True).squeeze(1)
        cr, ci = self.expi(chirp, sign)
        ar, ai = self.cmul(xr, xi, cr, ci)
        pad = [0, length - n]
        ar = b.op(aten.constant_pad_nd.default, ar, pad, 0.0)
        ai = b.op(aten.constant_pad_nd.default, ai, pad, 0.0)
        ar, ai = self.rows(ar, ai, length, -1)
        kernel = torch.zeros(length, dtype=torch.complex128)
        conj = torch.polar(torch.ones(n, dtype=torch.float64), -sign * chirp)
        kernel[:n] = conj
        kernel[length - n + 1:] = conj[1:].flip(0)
        spectrum = torch.fft.fft(kernel)
        ar, ai = self.cmul(ar, ai, self.const(spectrum.real), self.const(spectrum.imag))
        ar, ai = self.rows(ar, ai, length, 1)
        ar = b.op(aten.slice.Tensor, ar, 1, 0, n)
        ai = b.op(aten.slice.Tensor, ai, 1, 0, n)
        # The inverse's 1 / length folded into the last chirp.
        cr = self.const(torch.cos(chirp) / length)
        ci = self.const(sign * torch.sin(chirp) / length)
        return self.cmul(ar, ai, cr, ci)

    def scale(self, re, im, sizes, normalization):
        """`aten`'s normalization (0 none, 1 by 1/sqrt(n), 2 by 1/n, n the transformed
        size), then the rounding to the values' dtype."""
        n = math.prod(sizes)
        if normalization != 0 and n != 0:
            f = 1.0 / math.sqrt(n) if normalization == 1 else 1.0 / n
            re, im = self.b.mul(re, f), self.b.mul(im, f)
        return self.round(re), self.round(im)


def c2c(b, re, im, dims, normalization, forward):
    fft = Fft(b, re)
    shape = _shape(b, re)
    dims = _dims(dims, len(shape))
    sign = -1 if forward else 1
    if not isinstance(im, torch.fx.Node):
        im = 0.0
    re, im = fft.widen(re), fft.widen(im)
    for d in dims:
        re, im = fft.along(re, im, d, sign)
    return fft.scale(re, im, [shape[d] for d in dims], normalization)


def r2c(b, x, dims, normalization, onesided):
    fft = Fft(b, x)
    shape = _shape(b, x)
    dims = _dims(dims, len(shape))
    last = dims[-1]
    n = shape[last]
    half = n // 2 + 1
    x = fft.widen(x)
    if onesided and 1 < n <= DIRECT and 0 not in shape:
        # Only the columns kept: a real matmul per part.
        perm, inv, moved, rows = _as_rows(shape, last)
        x2 = fft.reshape(fft.permute(x, perm), [rows, n])
        wr, wi = fft.expi(_phase(n, half, n), -1)
        re, im = fft.cmm(x2, 0.0, wr, wi)
        moved[-1] = half
        re, im = (fft.permute(fft.reshape(p, moved), inv) for p in (re, im))
    else:
        re, im = fft.along(x, 0.0, last, -1)
        if onesided:
            re = b.op(aten.slice.Tensor, re, last, 0, half)
            im = b.op(aten.slice.Tensor, im, last, 0, half)
    for d in dims[:-1]:
        re, im = fft.along(re, im, d, -1)
    if not isinstance(im, torch.fx.Node):
        im = b.op(aten.mul.Tensor, re, 0.0)
    return fft.scale(re, im, [shape[d] for d in dims], normalization)


def c2r(b, re, im, dims, normalization, n):
    """The real inverse of a one-sided (Hermitian) spectrum: length `n` along `dims[-1]`; the
    imaginary parts of the zero and (even `n`) middle frequencies are ignored, as the
    libraries' c2r ignores them."""
    fft = Fft(b, re)
    shape = _shape(b, re)
    dims = _dims(dims, len(shape))
    last = dims[-1]
    if not isinstance(im, torch.fx.Node):
        im = b.op(aten.mul.Tensor, re, 0.0)
    re, im = fft.widen(re), fft.widen(im)
    for d in dims[:-1]:
        re, im = fft.along(re, im, d, 1)
    half = n // 2 + 1
    have = shape[last]
    if have > half:
        re = b.op(aten.slice.Tensor, re, last, 0, half)
        im = b.op(aten.slice.Tensor, im, last, 0, half)
    elif have < half:
        rank = len(shape)
        pad = [0, 0] * (rank - 1 - last) + [0, half - have]
        re = b.op(aten.constant_pad_nd.default, re, pad, 0.0)
        im = b.op(aten.constant_pad_nd.default, im, pad, 0.0)
    sizes = [shape[d] for d in dims[:-1]] + [n]
    out_shape = list(shape)
    out_shape[last] = n
    if n == 0 or 0 in shape:
        return b.op(aten.full.default, out_shape, 0.0, dtype=fft.narrow, device=fft.device)
    perm, inv, moved, rows = _as_rows(out_shape, last)
    if n <= DIRECT:
        # out[j] = sum_k w_k (re_k cos - im_k sin)(2 pi j k / n), w_k = 2 but for k = 0, n/2.
        weight = torch.full((half, 1), 2.0, dtype=torch.float64)
        weight[0] = 1.0
        if n % 2 == 0:
            weight[half - 1] = 1.0
        angle = _phase(half, n, n)
        cos = fft.const(weight * torch.cos(angle))
        sin = fft.const(weight * torch.sin(angle))
        xr = fft.reshape(fft.permute(re, perm), [rows, half])
        xi = fft.reshape(fft.permute(im, perm), [rows, half])
        out = b.sub(b.op(aten.mm.default, xr, cos), b.op(aten.mm.default, xi, sin))
    else:
        # The whole spectrum (X[n - k] = conj(X[k])), then a complex transform's real part.
        mirror = fft.b.const(torch.arange(n - half, 0, -1, dtype=torch.int64).to(fft.device))
        rest_r = b.op(aten.index_select.default, re, last, mirror)
        rest_i = b.neg(b.op(aten.index_select.default, im, last, mirror))
        full_r = b.op(aten.cat.default, [re, rest_r], last)
        full_i = b.op(aten.cat.default, [im, rest_i], last)
        xr = fft.reshape(fft.permute(full_r, perm), [rows, n])
        xi = fft.reshape(fft.permute(full_i, perm), [rows, n])
        out, _ = fft.rows(xr, xi, n, 1)
    out = fft.permute(fft.reshape(out, moved), inv)
    return fft.scale(out, 0.0, sizes, normalization)[0]
