"""Evaluate a Bernstein Release synopsis (format 1) with numpy only.

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
    """Return (metadata dict, lattice values as an array of shape (k_1+1, ..., k_l+1))."""
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


def evaluate(meta, coeffs, x):
    """Released value and public noise standard deviation at query points x (n x l, data units)."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    mech, features = meta["mechanism"], meta["domain"]["features"]
    lo = np.array([f["lo"] for f in features])
    hi = np.array([f["hi"] for f in features])
    if x.shape[1] != len(features) or np.any(~((x >= lo) & (x <= hi))):
        raise ValueError("every query needs one value per feature, within the public bounds")
    y = (x - lo) / (hi - lo)  # data units -> [0,1]^l
    value, std = coeffs[None, ...], np.full(len(x), 1.0)
    for j, k in enumerate(mech["k"]):  # contract one axis at a time (Definition 9)
        bh = bernstein_basis(k, y[:, j]) @ iterated_transform(k, mech["h"])
        value = np.einsum("na,na...->n...", bh, np.broadcast_to(value, (len(x),) + value.shape[1:]))
        std *= np.linalg.norm(bh, axis=1)
    std *= mech["scale"] * (math.sqrt(2) if mech["noise"] in ("laplace", "laplace-approx") else 1.0)
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
