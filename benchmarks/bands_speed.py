"""Speed of band detection on long series (issue 3: 10 million samples in seconds).

Measures, in one run side by side: BandDetector on 10^5 .. 10^7 samples (FTQ-like integer counts
and float values), and scikit-learn's GaussianMixture + BIC (k = 1..8) on a 200k subsample of the
10^7 float series as the reference "just use sklearn" approach. Prints wall-clock seconds (best of
``--repeat``) and the levels found.

Usage: python3 benchmarks/bands_speed.py [--repeat 2] [--sklearn]
"""
from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from bandkit.bands import BandDetector
from bandkit.synthetic.bands import banded_series

LEVELS = [780.0, 1300.0, 4174.0]


def timed(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--sklearn", action="store_true")
    a = ap.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cpus (shared), python {platform.python_version()}")
    BandDetector().fit(np.r_[np.zeros(100), np.ones(100)].reshape(-1, 1))  # JIT / cache warm-up
    for integer in (True, False):
        for n in (100_000, 1_000_000, 10_000_000):
            s = banded_series(LEVELS, n, noise=0.004, mean_dwell=[10, 30, 300], interrupted=0.005,
                              integer=integer, seed=1)
            sec, det = timed(lambda: BandDetector().fit(s.values.reshape(-1, 1), times=s.times), a.repeat)
            print(f"{'int  ' if integer else 'float'} n={n:>10,}: {sec:7.2f} s  "
                  f"levels {np.round(det.levels_, 1).tolist()}")
    if a.sklearn:
        from sklearn.mixture import GaussianMixture

        s = banded_series(LEVELS, 10_000_000, noise=0.004, mean_dwell=[10, 30, 300],
                          interrupted=0.005, seed=1)
        sub = np.random.default_rng(0).choice(s.values, 200_000, replace=False)[:, None]

        def sk():
            best = None
            for k in range(1, 9):
                g = GaussianMixture(k, random_state=0).fit(sub)
                if best is None or g.bic(sub) < best.bic(sub):
                    best = g
            lab = best.predict(s.values[:, None])
            return best, lab

        sec, (g, _) = timed(sk, 1)
        print(f"sklearn GaussianMixture+BIC on 200k subsample, predict 10M: {sec:7.2f} s  "
              f"k={g.n_components}, means {np.round(np.sort(g.means_.ravel()), 1).tolist()}")


if __name__ == "__main__":
    main()
