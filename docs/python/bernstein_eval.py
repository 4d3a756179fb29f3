"""Evaluate a Bernstein Release synopsis (format 1, every kind) with numpy only.

Verify the file's signature first (docs/python.md): this code trusts its input.

    python3 bernstein_eval.py FILE.synopsis X1,X2,... [X1,X2,... ...]

prints one CSV row per query point (data units): the features, value,
noise_std and, for classifiers, class -- the columns of `bernstein eval`.
"""
import csv
import json
import math
import sys

import numpy as np


def read_synopsis(path):
    """Return (metadata dict, values): for bernstein and hall-gp an array of shape (k_1+1, ..., k_l+1), else a vector."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines[0] != "bernstein-synopsis format 1":
        raise ValueError(f"{path}: not a format-1 synopsis: {lines[0]!r}")
    end = lines.index("}")  # the JSON metadata ends with the first line that is exactly "}"
    meta = json.loads("\n".join(lines[1:end + 1]))
    count = meta["lattice"]["count"]
    values = np.array([float(v) for v in lines[end + 1:end + 1 + count]])
    if len(values) != count or lines[end + 1 + count] != "-----BEGIN SSH SIGNATURE-----":
        raise ValueError(f"{path}: expected {count} lattice values, then the signature")
    if meta["mechanism"]["k"] is None:  # wang-trig moments, output-perturbation weights
        return meta, values
    shape = [k + 1 for k in meta["mechanism"]["k"]]
    return meta, values.reshape(shape)  # row-major: the last axis varies fastest


def bernstein_basis(k, y):
    """b_{nu,k}(y) = C(k,nu) y^nu (1-y)^(k-nu), nu = 0..k, for each y (Definition 6): shape (len(y), k+1)."""
    y = np.asarray(y, dtype=float)[:, None]
    b = np.ones((len(y), 1))
    for _ in range(k):  # stable recurrence b_{nu,d+1} = (1-y) b_{nu,d} + y b_{nu-1,d}
        b = np.pad(b * (1 - y), ((0, 0), (0, 1))) + np.pad(b * y, ((0, 0), (1, 0)))
    return b


def iterated_transform(k, h):
    """T with b^(h)(y) = b(y) T: T = sum_{i=1..h} C(h,i) (-1)^(i-1) M^(i-1), M[mu,nu] = b_{nu,k}(mu/k) (Definition 8)."""
    m = bernstein_basis(k, np.arange(k + 1) / k)
    t, p = np.zeros((k + 1, k + 1)), np.eye(k + 1)
    for i in range(1, h + 1):
        t += math.comb(h, i) * (-1) ** (i - 1) * p
        p = p @ m
    return t


def contract(coeffs, weights):
    """Sum of coeffs (one axis per feature) against per-axis weights (n x (k_j+1) each): shape (n,)."""
    value = coeffs[None, ...]
    for w in weights:  # contract one axis at a time
        value = np.einsum("na,na...->n...", w, np.broadcast_to(value, (len(w),) + value.shape[1:]))
    return value


def bernstein(meta, coeffs, y):
    """Iterated Bernstein polynomial (Definitions 8, 9) and its noise std."""
    mech = meta["mechanism"]
    bh = [bernstein_basis(k, y[:, j]) @ iterated_transform(k, mech["h"]) for j, k in enumerate(mech["k"])]
    std = np.prod([np.linalg.norm(b, axis=1) for b in bh], axis=0)
    return contract(coeffs, bh), std * mech["scale"] * (math.sqrt(2) if mech["noise"] in ("laplace", "laplace-approx") else 1.0)


def hall_gp(meta, coeffs, y):
    """Multilinear interpolant of the released grid nu/k, and its noise std: scale * sqrt(A prod_j w_j (K_j + (tau_j + rho_j) I) w_j)."""
    mech, gp, u = meta["mechanism"], meta["gp"], 2.0 ** -53
    weights, var = [], np.full(len(y), gp["amplitude"])
    for j, k in enumerate(mech["k"]):
        w = np.maximum(0.0, 1.0 - np.abs(y[:, j:j + 1] * k - np.arange(k + 1)))  # hat functions of the grid
        a = np.arange(k + 1) / k
        m, tau = k + 1, gp["jitter"][j]
        mu = (m + 1) * u
        rho = 2 * mu / (1 - mu) * m * (1 + tau) + 8 * m * u  # rounding allowance of the factor (peers.GPFactor)
        cov = np.exp(-((a[:, None] - a[None, :]) / gp["sigmas"][j]) ** 2 / 2) + (tau + rho) * np.eye(m)
        weights.append(w)
        var *= np.einsum("na,ab,nb->n", w, cov, w)
    return contract(coeffs, weights), mech["scale"] * np.sqrt(var)


def jackson_multipliers(t, order):
    """mu_m, m = 0..t-1, of the generalized Jackson operator (Wang et al. 2013, Section 4.1; peers.JacksonMultipliers)."""
    r = (order + 4) // 2
    tp = (t - 1) // r + 1
    base = np.arange(tp, 0, -1.0)
    full, power = np.concatenate([base[:0:-1], base]), np.array([1.0])
    for _ in range(r):
        power = np.convolve(power, full)
    half = power[len(power) // 2:]
    rho = lambda j: half[j] / half[0] if j < len(half) else 0.0
    return np.array([1.0] + [-sum(math.comb(order + 1, l) * (-1) ** l * rho(m * l) for l in range(1, order + 2)) for m in range(1, t)])


def wang_trig(meta, coeffs, y):
    """KDE query at y from the noisy moments: sum_m w_m(y) S_m, w = Jackson-smoothed cosine coefficients of the kernel."""
    t, b, n = len(coeffs), meta["learner"]["params"]["bandwidth"][0], 2048
    theta = np.pi * np.arange(n + 1) / n
    g = np.exp(-((y[:, :1] - (np.cos(theta)[None, :] + 1) / 2) / b) ** 2 / 2) / (math.sqrt(2 * math.pi) * b)
    g[:, [0, n]] *= 0.5  # trapezoid rule on [0, pi]
    w, prev, cur = np.zeros((len(y), t)), np.cos(theta), np.ones(n + 1)
    for m in range(t):  # cos(m theta) by the Chebyshev recurrence, as the app
        w[:, m] = g @ cur / n * (2 if m > 0 else 1)
        prev, cur = cur, 2 * np.cos(theta) * cur - prev
    w *= jackson_multipliers(t, meta["trig"]["jackson"])
    return w @ coeffs, math.sqrt(2) * meta["mechanism"]["scale"] * np.linalg.norm(w[:, 1:], axis=1)


def output_perturbation(meta, coeffs, y):
    """Logistic score <w, lift(y)>, lift = (2y - 1, b)/sqrt(l + b^2), or its sigmoid; noise std theta sqrt(p+1) |lift| (times p(1-p))."""
    b = meta["learner"]["params"].get("intercept", [1.0])[0]
    lift = np.hstack([2 * y - 1, np.full((len(y), 1), b)]) / math.sqrt(y.shape[1] + b * b)
    z = lift @ coeffs
    std = meta["mechanism"]["scale"] * math.sqrt(len(coeffs) + 1) * np.linalg.norm(lift, axis=1)
    if meta["output"]["kind"] == "probability":
        p = 1 / (1 + np.exp(-z))
        return p, std * p * (1 - p)
    return z, std


KINDS = {"bernstein": bernstein, "hall-gp": hall_gp, "wang-trig": wang_trig, "output-perturbation": output_perturbation}


def evaluate(meta, coeffs, x):
    """Released value and public noise standard deviation at query points x (n x l, data units)."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    features = meta["domain"]["features"]
    lo = np.array([f["lo"] for f in features])
    hi = np.array([f["hi"] for f in features])
    if x.shape[1] != len(features) or np.any(~((x >= lo) & (x <= hi))):
        raise ValueError("every query needs one value per feature, within the public bounds")
    y = (x - lo) / (hi - lo)  # data units -> [0,1]^l
    value, std = KINDS[meta["mechanism"]["name"]](meta, coeffs, y)
    out = meta["output"]
    if out["kind"] == "density":  # change of variables from [0,1]^l to the feature box
        offset, scale = 0.0, 1.0 / np.prod(hi - lo)
    elif out["kind"] == "regression":  # the learner saw labels mapped to [-1, 1]
        label = meta["domain"]["label"]
        offset, scale = (label["lo"] + label["hi"]) / 2, (label["hi"] - label["lo"]) / 2
    else:  # class-score or probability: unitless
        offset, scale = 0.0, 1.0
    return offset + scale * value, abs(scale) * std


def classes(meta, value):
    """Class labels of a classifier's values: positive (class_labels[1]) where score >= 0 or probability >= 1/2."""
    out = meta["output"]
    threshold = 0.5 if out["kind"] == "probability" else 0.0
    return np.where(value >= threshold, out["class_labels"][1], out["class_labels"][0])


if __name__ == "__main__":
    meta, coeffs = read_synopsis(sys.argv[1])
    x = np.array([[float(v) for v in arg.split(",")] for arg in sys.argv[2:]])
    value, std = evaluate(meta, coeffs, x)
    is_classifier = meta["output"]["kind"] in ("class-score", "probability")
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow([f["name"] for f in meta["domain"]["features"]] + ["value", "noise_std"] + ["class"] * is_classifier)
    for i, row in enumerate(x):
        cls = [classes(meta, value[i:i + 1])[0]] if is_classifier else []
        out.writerow([repr(float(v)) for v in row] + [repr(float(value[i])), repr(float(std[i]))] + cls)
