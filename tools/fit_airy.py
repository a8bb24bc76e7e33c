#!/usr/bin/env python3
"""Fits the oscillating middle range of coil's Airy function `Ai` (coil-graph
src/special/bessel.rs), 4 <= z <= 12 for `Ai(-z)`, where the Maclaurin series cancels and the
asymptotic series has not converged:

    Ai(-z) = pi^(-1/2) z^(-1/4) (P(z) sin(w) - Q(z) cos(w)),   w = (2/3) z^(3/2) + pi/4

P and Q (1 and 0 far out) are smooth in u = w0 / w (the asymptotic variable): each is one
Chebyshev series in t = (2 u - (1 + u1)) / (1 - u1), interpolated at Chebyshev nodes with
mpmath's `airyai` and `airybi` (`Bi(-z)` is the same form with sin and cos traded). The worst
error over a dense grid is printed, relative to the envelope pi^(-1/2) z^(-1/4).

    .venv/bin/python tools/fit_airy.py [--degree 40]
"""

import argparse

import mpmath

mpmath.mp.dps = 40
LO, HI = mpmath.mpf(4), mpmath.mpf(12)


def zeta(z):
    return 2 * z ** mpmath.mpf(1.5) / 3


Z0, Z1 = zeta(LO), zeta(HI)
U1 = Z0 / Z1


def pq(z):
    w = zeta(z) + mpmath.pi / 4
    s = mpmath.sqrt(mpmath.pi) * z ** (mpmath.mpf(1) / 4)
    ai, bi = mpmath.airyai(-z), mpmath.airybi(-z)
    return s * (ai * mpmath.sin(w) + bi * mpmath.cos(w)), s * (bi * mpmath.sin(w) - ai * mpmath.cos(w))


def z_of(t):
    u = (t * (1 - U1) + 1 + U1) / 2
    return (3 * (Z0 / u) / 2) ** (mpmath.mpf(2) / 3)


def t_of(z):
    u = Z0 / zeta(z)
    return (2 * u - (1 + U1)) / (1 - U1)


def chebyshev(f, degree):
    n = degree + 1
    nodes = [mpmath.cos(mpmath.pi * (k + mpmath.mpf(1) / 2) / n) for k in range(n)]
    vals = [f(z_of(t)) for t in nodes]
    c = [2 * sum(vals[k] * mpmath.cos(mpmath.pi * j * (k + mpmath.mpf(1) / 2) / n)
                 for k in range(n)) / n for j in range(n)]
    c[0] /= 2
    return c


def clenshaw(c, t):
    b1 = b2 = mpmath.mpf(0)
    for a in reversed(c[1:]):
        b1, b2 = 2 * t * b1 - b2 + a, b1
    return t * b1 - b2 + c[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--degree", type=int, default=40)
    args = ap.parse_args()
    cp = chebyshev(lambda z: pq(z)[0], args.degree)
    cq = chebyshev(lambda z: pq(z)[1], args.degree)
    worst = 0
    for k in range(2001):
        z = LO + (HI - LO) * k / 2000
        p, q = pq(z)
        t = t_of(z)
        worst = max(worst, abs(clenshaw([mpmath.mpf(float(a)) for a in cp], t) - p),
                    abs(clenshaw([mpmath.mpf(float(a)) for a in cq], t) - q))
    print(f"// degree {args.degree}, max error {float(worst):.2e}; zeta at 4: {float(Z0)!r}, at 12: {float(Z1)!r}")
    for name, c in (("AIRY_P", cp), ("AIRY_Q", cq)):
        print(f"const {name}: [f64; {len(c)}] = [")
        for a in c:
            print(f"    {float(a)!r},")
        print("];")


if __name__ == "__main__":
    main()
