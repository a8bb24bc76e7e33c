#!/usr/bin/env python3
"""Fits the middle range of coil's Bessel functions of the second kind, `Y_0` and `Y_1`
(coil-graph/src/special/bessel.rs), where neither the power series (cancellation) nor
Hankel's asymptotic series (divergent) reaches f64:

    J_v(x) = sqrt(2 / (pi x)) (P_v(x) cos chi - Q_v(x) sin chi)
    Y_v(x) = sqrt(2 / (pi x)) (P_v(x) sin chi + Q_v(x) cos chi),   chi = x - (v/2 + 1/4) pi

P and Q are smooth and slowly varying (1 and 0 at infinity); on 5 <= x <= 25 each is one
Chebyshev series in t = (2 u - (1 + u0)) / (1 - u0), u = 25 / x^2, u0 = 1 / 25, interpolated
at Chebyshev nodes in mpmath's precision (the reference: mpmath's besselj and bessely). The
worst error over a dense grid is printed: the functions' absolute error, relative to their
envelope sqrt(2 / (pi x)).

    .venv/bin/python tools/fit_bessel_y.py [--degree 40]
"""

import argparse

import mpmath

mpmath.mp.dps = 40

LO, HI = mpmath.mpf(5), mpmath.mpf(25)
U0 = (LO / HI) ** 2


def pq(v, x):
    chi = x - (mpmath.mpf(v) / 2 + mpmath.mpf(1) / 4) * mpmath.pi
    j, y = mpmath.besselj(v, x), mpmath.bessely(v, x)
    s = mpmath.sqrt(mpmath.pi * x / 2)
    return s * (j * mpmath.cos(chi) + y * mpmath.sin(chi)), s * (y * mpmath.cos(chi) - j * mpmath.sin(chi))


def t_of(x):
    u = LO**2 / x**2
    return (2 * u - (1 + U0)) / (1 - U0)


def x_of(t):
    u = (t * (1 - U0) + 1 + U0) / 2
    return mpmath.sqrt(LO**2 / u)


def chebyshev(f, degree):
    n = degree + 1
    nodes = [mpmath.cos(mpmath.pi * (k + mpmath.mpf(1) / 2) / n) for k in range(n)]
    vals = [f(x_of(t)) for t in nodes]
    c = []
    for j in range(n):
        s = sum(vals[k] * mpmath.cos(mpmath.pi * j * (k + mpmath.mpf(1) / 2) / n) for k in range(n))
        c.append(2 * s / n)
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
    for v in (0, 1):
        cp = chebyshev(lambda x: pq(v, x)[0], args.degree)
        cq = chebyshev(lambda x: pq(v, x)[1], args.degree)
        worst = 0
        for k in range(2001):
            x = LO + (HI - LO) * k / 2000
            p, q = pq(v, x)
            t = t_of(x)
            worst = max(worst, abs(clenshaw([mpmath.mpf(float(a)) for a in cp], t) - p),
                        abs(clenshaw([mpmath.mpf(float(a)) for a in cq], t) - q))
        print(f"// v = {v}: degree {args.degree}, max error {float(worst):.2e}")
        for name, c in (("P", cp), ("Q", cq)):
            print(f"const {name}{v}: [f64; {len(c)}] = [")
            for a in c:
                print(f"    {float(a)!r},")
            print("];")


if __name__ == "__main__":
    main()
