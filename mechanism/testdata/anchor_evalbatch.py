"""numpy anchor of BenchmarkEvalBatch (mechanism/bench_test.go).

    python3 anchor_evalbatch.py PRIME POINTS K1,K2,... REPEATS OUT

PRIME: the transformed coefficients C' = (T_1 x ... x T_l) c (float64,
little endian, lattice order, last axis fastest); POINTS: n x l query points
in [0,1]^l (float64, row-major). Evaluates P(y) = sum_nu C'_nu prod_j
b_{nu_j,k_j}(y_j) at every point with numpy, 2^15 points at a time (the
fastest of the variants tried: whole-array and chunked, powers by ** and by
repeated products): the plain Bernstein bases of each axis as a matrix
(binomials times products of powers), the last axis contracted by one
matrix product (BLAS), the others row-wise. Prints
"ms_per_op" (mean wall time of REPEATS evaluations, file reading excluded)
and writes the values of the last evaluation to OUT.
"""
import math
import sys
import time

import numpy as np


CHUNK = 1 << 15


def basis(k, y):
    """b_{nu,k}(y) = C(k,nu) y^nu (1-y)^(k-nu): shape (len(y), k+1)."""
    comb = np.array([math.comb(k, i) for i in range(k + 1)], dtype=float)
    yp, qp = np.empty((k + 1, len(y))), np.empty((k + 1, len(y)))
    yp[0], qp[0], q = 1, 1, 1 - y
    for i in range(1, k + 1):
        np.multiply(yp[i - 1], y, out=yp[i])
        np.multiply(qp[i - 1], q, out=qp[i])
    yp *= qp[::-1]
    yp *= comb[:, None]
    return yp.T


def evaluate(prime, ks, y):
    return np.concatenate([evaluate_chunk(prime, ks, y[i:i + CHUNK]) for i in range(0, len(y), CHUNK)])


def evaluate_chunk(prime, ks, y):
    n = y.shape[0]
    last = ks[-1] + 1
    x = basis(ks[-1], y[:, -1]) @ prime.reshape(-1, last).T  # n x R
    for j in range(len(ks) - 2, -1, -1):
        b = basis(ks[j], y[:, j])
        x = np.einsum("qrn,qn->qr", x.reshape(n, -1, ks[j] + 1), b)
    return x[:, 0]


def main():
    prime_path, points_path, ks, repeats, out_path = sys.argv[1:]
    ks = [int(v) for v in ks.split(",")]
    repeats = int(repeats)
    prime = np.fromfile(prime_path, dtype="<f8")
    y = np.fromfile(points_path, dtype="<f8").reshape(-1, len(ks))
    t0 = time.perf_counter()
    for _ in range(repeats):
        values = evaluate(prime, ks, y)
    elapsed = time.perf_counter() - t0
    values.astype("<f8").tofile(out_path)
    print("ms_per_op", 1e3 * elapsed / repeats)


if __name__ == "__main__":
    main()
