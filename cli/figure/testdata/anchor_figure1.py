"""numpy anchor of BenchmarkFigure1 (cli/figure/figure_test.go).

    python3 anchor_figure1.py DATA PARAMS REPEATS RUNS OUT

An independent numpy implementation of the Figure 1 protocol of
`bernstein figure 1`: the Gaussian KDE (bandwidth b) of the 5000 demo points
DATA (float64, little endian, in [0,1]) on the 21 lattice points and the
1001-point grid; the iterated Bernstein bases b^(h)(y) = b(y)^T T_h,
T_h = sum_i C(h,i) (-1)^(i-1) M^(i-1), h = 1..5 (M the collocation matrix);
the nearest-lattice baseline; the Wang et al. trig weights (Jackson
multipliers given, cosine coefficients by the trapezoid rule on 2049 nodes
as one matrix product); the Chaudhuri & Vinterbo histogram (20 bins); the
Hall et al. GP (Cholesky of the 1001-point kernel matrix plus the rounding
allowance, paths as one BLAS product). Then, with numpy's own generator:
for each of the 7 epsilons REPEATS fresh unit Laplace draws of the 21
lattice values shared by the pure series, the Laplace-approx series, the
trig and histogram peers; REPEATS unit normal draws shared by all epsilons
for the Gaussian series; REPEATS GP paths shared by all epsilons. The mean
over repeats of the sup over the grid of |release - F_D| per series and
epsilon.

PARAMS (float64): 7 epsilons, b, then 7 scales each for the pure Laplace,
Laplace-approx, Gaussian, trig, histogram and GP series (NaN: no point),
the GP amplitude and sigma, and the 21 Jackson multipliers.

Prints "ms_per_op" and "cpu_ms_per_op" (mean wall and process CPU time,
all threads, of RUNS protocols, file reading
excluded) and writes the means of the last run to OUT as a 7 x 19 array
(per epsilon: pure h = 1..5, baseline, trig, histogram, GP, Gaussian
h = 1..5, Laplace-approx h = 1..5).
"""
import math
import sys
import time

import numpy as np

K, MAXH, GRID, BINS, QUAD = 20, 5, 1001, 20, 2048
U = 2.0 ** -53


def kde(x, b, y):
    c = 1 / (math.sqrt(2 * math.pi) * b * len(x))
    return np.exp(-((y[:, None] - x[None, :]) ** 2) / (2 * b * b)).sum(axis=1) * c


def bernstein(y):
    nu = np.arange(K + 1)
    binom = np.array([math.comb(K, v) for v in nu], dtype=float)
    return binom * y[:, None] ** nu * (1 - y[:, None]) ** (K - nu)


def protocol(x, p, repeats, rng):
    eps, b = p[:7], p[7]
    pure, approx, gauss, trigs, hists, gps = (p[8 + 7 * i:15 + 7 * i] for i in range(6))
    amp, sigma = p[50], p[51]
    mu = p[52:52 + K + 1]
    lat = np.arange(K + 1) / K
    grid = np.linspace(0, 1, GRID)
    f_lat, truth = kde(x, b, lat), kde(x, b, grid)
    # Iterated bases, stacked (5 * GRID) x 21, and exact parts.
    bg, m = bernstein(grid), bernstein(lat)
    mats, power, t = [], np.eye(K + 1), np.zeros((K + 1, K + 1))
    powers = [np.eye(K + 1)]
    for i in range(1, MAXH):
        powers.append(powers[-1] @ m)
    for h in range(1, MAXH + 1):
        t = sum(math.comb(h, i) * (-1) ** (i - 1) * powers[i - 1] for i in range(1, h + 1))
        mats.append(bg @ t)
    exact = np.concatenate([truth - bm @ f_lat for bm in mats])
    near = np.minimum(np.floor(grid * K + 0.5).astype(int), K)
    base_exact = truth - f_lat[near]
    # Trig weights: g_y(theta_j) with trapezoid weights times cos(m theta_j).
    theta = np.pi * np.arange(QUAD + 1) / QUAD
    u = (np.cos(theta) + 1) / 2
    g = np.exp(-((grid[:, None] - u[None, :]) ** 2) / (2 * b * b)) / (math.sqrt(2 * math.pi) * b)
    g[:, [0, QUAD]] *= 0.5
    cosm = np.cos(np.outer(theta, np.arange(K + 1)))
    w = g @ cosm / QUAD
    w[:, 1:] *= 2
    w *= mu
    theta_x = np.arccos(2 * x - 1)
    moments = np.cos(np.outer(theta_x, np.arange(K + 1))).mean(axis=0)
    trig_resid = w @ moments - truth
    w[:, 0] = 0
    stack = np.concatenate([np.concatenate(mats), w]).T.copy()  # 21 x 6 GRID
    # Histogram: counts and the extremes of F_D per bin.
    counts = np.bincount(np.minimum((x * BINS).astype(int), BINS - 1), minlength=BINS).astype(float)
    gbin = np.minimum((grid * BINS).astype(int), BINS - 1)
    lo = np.array([truth[gbin == i].min() for i in range(BINS)])
    hi = np.array([truth[gbin == i].max() for i in range(BINS)])
    # GP factor.
    d = (grid[:, None] - grid[None, :]) / sigma
    mu_ = (GRID + 1) * U
    rho = 2 * mu_ / (1 - mu_) * GRID + 8 * GRID * U
    chol = np.linalg.cholesky(np.exp(-d * d / 2) + rho * np.eye(GRID))

    out = np.full((7, 19), np.nan)
    nb = MAXH * GRID
    for e in range(7):
        z = rng.laplace(size=(repeats, K + 1))
        noise = z @ stack
        for h in range(MAXH):
            blk = slice(h * GRID, (h + 1) * GRID)
            nz = noise[:, blk]
            out[e, h] = np.abs(exact[None, blk] - pure[e] * nz).max(axis=1).mean()
            out[e, 14 + h] = np.abs(exact[None, blk] - approx[e] * nz).max(axis=1).mean()
        out[e, 5] = np.abs(base_exact[None, :] - pure[e] * z[:, near]).max(axis=1).mean()
        out[e, 6] = np.abs(trig_resid[None, :] + trigs[e] * noise[:, nb:]).max(axis=1).mean()
        noisy = np.maximum(counts[None, :] + hists[e] * z[:, :BINS], 0)
        tot = noisy.sum(axis=1, keepdims=True)
        dens = np.where(tot > 0, noisy * BINS / np.where(tot > 0, tot, 1), 1.0)
        out[e, 7] = np.maximum(np.abs(dens - lo), np.abs(dens - hi)).max(axis=1).mean()
    zg = rng.standard_normal((repeats, K + 1))
    noise = zg @ stack[:, :nb]
    for e in range(7):
        for h in range(MAXH):
            blk = slice(h * GRID, (h + 1) * GRID)
            out[e, 9 + h] = np.abs(exact[None, blk] - gauss[e] * noise[:, blk]).max(axis=1).mean()
    paths = rng.standard_normal((repeats, GRID)) @ chol.T
    sup = np.abs(paths).max(axis=1).mean() * math.sqrt(amp)
    for e in range(7):
        if not math.isnan(gps[e]):
            out[e, 8] = gps[e] * sup
    return out


def main():
    data_path, params_path, repeats, runs, out_path = sys.argv[1:]
    repeats, runs = int(repeats), int(runs)
    x = np.fromfile(data_path, dtype="<f8")
    p = np.fromfile(params_path, dtype="<f8")
    rng = np.random.default_rng(1)
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(runs):
        out = protocol(x, p, repeats, rng)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    out.astype("<f8").tofile(out_path)
    print("ms_per_op", 1e3 * elapsed / runs)
    print("cpu_ms_per_op", 1e3 * cpu / runs)


if __name__ == "__main__":
    main()
