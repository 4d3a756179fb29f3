"""numpy anchor of BenchmarkKDELattice (learners/kde_bench_test.go).

    python3 anchor_kde_lattice.py DATA DIM BANDWIDTH K REPEATS OUT

DATA: n x DIM points in [0,1]^DIM (float64, little endian, row-major).
Evaluates the Gaussian KDE of bandwidth BANDWIDTH (every axis) on the
lattice {0, 1/K, ..., 1}^DIM the separable way: per chunk of 2^12 points the
kernel matrices W_j = exp(-(a - x_j)^2 / (2 b^2)) and, for DIM = 2, the BLAS
product W_1^T W_2, accumulated over chunks (the fastest of the whole array
and chunks of 2^11 ... 2^18 points tried). Prints "ms_per_op" (mean wall
time of REPEATS evaluations, file reading excluded) and writes the lattice
values (row-major, last axis fastest) of the last one to OUT.
"""
import math
import sys
import time

import numpy as np

CHUNK = 1 << 12


def lattice(x, b, k):
    n, dim = x.shape
    a = np.arange(k + 1) / k
    c = 1 / (2 * b * b)
    acc = np.zeros((k + 1,) * dim)
    for i in range(0, n, CHUNK):
        ws = [np.exp(-((a[None, :] - x[i:i + CHUNK, j, None]) ** 2) * c) for j in range(dim)]
        if dim == 1:
            acc += ws[0].sum(axis=0)
        elif dim == 2:
            acc += ws[0].T @ ws[1]
        else:
            p = ws[1]
            for w in ws[2:]:
                p = (p[:, :, None] * w[:, None, :]).reshape(len(p), -1)
            acc += (ws[0].T @ p).reshape(acc.shape)
    return acc * (1 / (math.sqrt(2 * math.pi) * b)) ** dim / n


def main():
    data_path, dim, b, k, repeats, out_path = sys.argv[1:]
    dim, b, k, repeats = int(dim), float(b), int(k), int(repeats)
    x = np.fromfile(data_path, dtype="<f8").reshape(-1, dim)
    t0 = time.perf_counter()
    for _ in range(repeats):
        values = lattice(x, b, k)
    elapsed = time.perf_counter() - t0
    values.astype("<f8").tofile(out_path)
    print("ms_per_op", 1e3 * elapsed / repeats)


if __name__ == "__main__":
    main()
