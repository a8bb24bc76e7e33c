#!/usr/bin/env python3
"""Fits the polynomial of coil's `erfc` for x >= 1/2 (coil-lower/src/math/erfc.rs):

    erfc(x) = t * exp(P(t) - x^2),   t = 2 / (2 + x),   t in (0, 0.8]

P is smooth on the whole half-line (P(0) = log(1 / (2 sqrt(pi))), the limit as x grows), so one
polynomial covers every x from 1/2 to where erfc underflows. Fitted by least squares at
Chebyshev nodes in mpmath's precision (the reference: mpmath's erfc), and the worst error of
P over a dense grid printed: erfc's relative error is P's absolute error.

    .venv/bin/python tools/fit_erfc.py [--degree 14]
"""

import argparse

import mpmath
import numpy as np

mpmath.mp.dps = 40


def p_exact(t):
    x = 2 / t - 2
    return mpmath.log(mpmath.erfc(x) / t) + x * x


def fit(degree, nodes=400):
    # Chebyshev nodes on (0, 0.8].
    ts = [mpmath.mpf(0.4) * (1 - mpmath.cos(mpmath.pi * (k + 0.5) / nodes)) for k in range(nodes)]
    ys = [p_exact(t) for t in ts]
    # Least squares in the monomial basis of u = t / 0.8 - 1/2 scaled to [-1, 1], then expanded
    # back to powers of t (the expansion is exact in mpmath).
    a = mpmath.matrix([[(2 * t / mpmath.mpf(0.8) - 1) ** j for j in range(degree + 1)] for t in ts])
    b = mpmath.matrix(ys)
    c = mpmath.lu_solve(a.T * a, a.T * b)
    # sum c_j (2t/0.8 - 1)^j as powers of t.
    coeffs = [mpmath.mpf(0)] * (degree + 1)
    for j in range(degree + 1):
        for i in range(j + 1):
            coeffs[i] += c[j] * mpmath.binomial(j, i) * (2 / mpmath.mpf(0.8)) ** i * (-1) ** (j - i)
    return [float(v) for v in coeffs]


def horner(coeffs, t):
    r = 0.0
    for c in reversed(coeffs):
        r = r * t + c
    return r


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--degree", type=int, default=14)
    a = p.parse_args()
    coeffs = fit(a.degree)
    worst = 0.0
    for t in np.linspace(1e-6, 0.8, 20001):
        worst = max(worst, abs(horner(coeffs, float(t)) - float(p_exact(mpmath.mpf(float(t))))))
    print(f"degree {a.degree}: max |P error| {worst:.3e} (erfc's relative error)")
    print("const P: [f64; %d] = [" % len(coeffs))
    for c in coeffs:
        print(f"    {c!r},")
    print("];")


if __name__ == "__main__":
    main()
