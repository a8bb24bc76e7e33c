"""One row times a matrix as a decode step's projection makes it: `linear(x * 2, w) * 2` on a
`[1, 1, K]` row and an `[N, K]` weight (the row is computed, so coil lays it out itself),
through coil with torch's BLAS (the default), through coil's own f32 matmuls
(`gemm="gemm"`, as the CLI runs them: `crates/coil-cpu/src/gemv.rs`), and eager. Prints µs a
call, the best of 5 rounds of 200 calls.

    .venv/bin/python tools/row_product_bench.py [--k 512] [--n 2048]
"""

import argparse
import time

import torch

import coil  # noqa: F401  (registers the backend)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, default=512)
    ap.add_argument("--n", type=int, default=2048)
    a = ap.parse_args()
    w, x = torch.randn(a.n, a.k), torch.randn(1, 1, a.k)

    def fn(x, w):
        return torch.nn.functional.linear(x * 2, w) * 2

    ways = [("coil, torch's BLAS", torch.compile(fn, backend="coil")),
            ("coil, own matmuls", torch.compile(fn, backend="coil", options={"gemm": "gemm"})),
            ("eager", fn)]
    with torch.no_grad():
        want = fn(x, w)
        for name, f in ways:
            torch._dynamo.reset()
            for _ in range(10):
                got = f(x, w)
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
            rounds = []
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(200):
                    f(x, w)
                rounds.append((time.perf_counter() - t0) / 200 * 1e6)
            print(f"{name}: {min(rounds):.1f} us ([1, 1, {a.k}] x [{a.n}, {a.k}]^T)")


if __name__ == "__main__":
    main()
