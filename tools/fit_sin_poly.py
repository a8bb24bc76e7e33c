"""Fits the odd polynomial of coil-ptx's 16-bit-result sine and cosine
(`SIN_HALF_P` in crates/coil-ptx/src/math/funcs.rs): sin(r) = r + r^3 P(r^2) on |r| <= 1.58,
the range a reduction by pi leaves (pi/2 and the rounding of 1/pi at the fast path's limit),
with P of degree 3 minimising the maximum relative error of sin itself (Remez exchange in
z = r^2, mpmath at 40 digits). Prints the error before and after rounding the coefficients to
f32 (the latter evaluated as the GPU does, one fma at a time), and the Rust constants, highest
degree first (Horner order). Run: python3 tools/fit_sin_poly.py
"""
import mpmath as mp
import numpy as np

mp.mp.dps = 40
R = mp.mpf("1.58")
A = R * R
DEG = 3


def target(z):
    """(sin r - r) / r^3, which P approximates."""
    if z == 0:
        return mp.mpf(-1) / 6
    r = mp.sqrt(z)
    return (mp.sin(r) - r) / r**3


def weight(z):
    """r^3 / sin(r): turns an error in P into a relative error of sin."""
    if z == 0:
        return mp.mpf(0)
    r = mp.sqrt(z)
    return r**3 / mp.sin(r)


def remez(rounds=30, grid=4000):
    n = DEG + 2
    xs = [A * (1 - mp.cos(mp.pi * i / (n - 1))) / 2 for i in range(n)]
    xs[0] = A * mp.mpf("1e-6")
    pts = [A * mp.mpf(i) / grid for i in range(1, grid + 1)]
    for _ in range(rounds):
        m = mp.matrix(n, n)
        b = mp.matrix(n, 1)
        for i, x in enumerate(xs):
            for j in range(DEG + 1):
                m[i, j] = x**j
            m[i, DEG + 1] = (-1) ** i / weight(x)
            b[i] = target(x)
        sol = mp.lu_solve(m, b)
        c = [sol[j] for j in range(DEG + 1)]
        errs = [weight(x) * (sum(c[j] * x**j for j in range(DEG + 1)) - target(x)) for x in pts]
        # One extremum per run of equal sign; keep the n consecutive runs with the largest minimum.
        runs = [(pts[0], errs[0])]
        for x, e in zip(pts[1:], errs[1:]):
            if mp.sign(e) == mp.sign(runs[-1][1]):
                if abs(e) > abs(runs[-1][1]):
                    runs[-1] = (x, e)
            else:
                runs.append((x, e))
        best = max(
            (runs[s : s + n] for s in range(len(runs) - n + 1)),
            key=lambda cand: min(abs(e) for _, e in cand),
        )
        xs = [x for x, _ in best]
    return c, max(abs(e) for e in errs)


def f32_ulp_error(c32):
    r = np.linspace(1e-4, 1.575, 400001).astype(np.float32)

    def fma(a, b, c):
        return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)

    z = (r * r).astype(np.float32)
    p = np.full_like(z, c32[-1])
    for k in range(DEG - 1, -1, -1):
        p = fma(p, z, np.full_like(z, c32[k]))
    s = fma((r * z).astype(np.float32), p, r)
    ref = np.sin(r.astype(np.float64))
    return float((np.abs(s.astype(np.float64) - ref) / np.spacing(ref.astype(np.float32))).max())


def main():
    c, err = remez()
    c32 = [np.float32(float(x)) for x in c]
    print(f"relative error {mp.nstr(err, 5)}; after rounding to f32, {f32_ulp_error(c32):.3f} ulp")
    print("const SIN_HALF_P: [f32; 4] = [" + ", ".join(str(x) for x in reversed(c32)) + "];")


if __name__ == "__main__":
    main()
