"""scikit-learn anchor of BenchmarkSVMFitSVC (learners/svm_bench_test.go).

    python3 anchor_svc.py DATA LABELS DIM RUNS

DATA: n x DIM points (float64, little endian, row-major); LABELS: n values
-1/+1. Fits sklearn.svm.SVC(C=1, gamma=0.5) (RBF, LIBSVM's SMO with its
defaults: tol 1e-3, shrinking, 200 MB kernel cache) RUNS times. Prints
"ms_per_op" and "cpu_ms_per_op" (mean wall and process CPU time of a fit,
file reading excluded) and "svs" (the support vectors of the last fit).
"""
import sys
import time

import numpy as np
from sklearn.svm import SVC


def main():
    data_path, labels_path, dim, runs = sys.argv[1:]
    dim, runs = int(dim), int(runs)
    x = np.fromfile(data_path, dtype="<f8").reshape(-1, dim)
    y = np.fromfile(labels_path, dtype="<f8")
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(runs):
        clf = SVC(C=1, gamma=0.5).fit(x, y)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    print("ms_per_op", 1e3 * elapsed / runs)
    print("cpu_ms_per_op", 1e3 * cpu / runs)
    print("svs", len(clf.support_))


if __name__ == "__main__":
    main()
