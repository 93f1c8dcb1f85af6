"""Accuracy and confidence-interval coverage of bandkit.detect_changepoints on generated data.

Usage: python benchmarks/changepoints_coverage.py [--reps 200] [--n 600]

Series of n values with 3 changes (positions >= 100 apart, jump sizes fixed per row, in units
of the noise scale; signs random), noise Gaussian / Student-t(3) / lognormal (right-skewed) /
Gaussian + 1 % spikes. Defaults of detect_changepoints (cost="auto", penalty="auto", alpha="auto",
min_size=2, 95 % intervals). Per row: detection rate (a detected change within 10 values of a
true one), false positives per series (detected changes not matched), median |error| of matched
locations, and the coverage of the 95 % location interval for matched changes. Runs against whichever
``bandkit`` is imported (``PYTHONPATH=../main`` for the previous version).
"""
from __future__ import annotations

import argparse
import inspect
import sys
import time

import numpy as np

from bandkit.changepoints import detect_changepoints
from bandkit.synthetic.steps import steps


def run(n: int, reps: int, jump: float, noise: str, outliers: float = 0.0, seed0: int = 0) -> dict:
    det = tot = fp = cov = 0
    errs = []
    costs = {}
    for r in range(reps):
        s = steps(n, n_changes=3, min_gap=100, jump=(jump, jump), noise_kind=noise, outliers=outliers,
                  seed=seed0 + r)
        res = (detect_changepoints(s.values, seed=r) if "seed" in inspect.signature(detect_changepoints).parameters
               else detect_changepoints(s.values))
        costs[res.cost] = costs.get(res.cost, 0) + 1
        found = list(res.changepoints)
        used = set()
        for c in s.changepoints:
            tot += 1
            cands = [(abs(f.index - c), k) for k, f in enumerate(found) if k not in used and abs(f.index - c) <= 10]
            if not cands:
                continue
            _, k = min(cands)
            used.add(k)
            det += 1
            errs.append(abs(found[k].index - c))
            cov += found[k].ci_low <= c <= found[k].ci_high
        fp += len(found) - len(used)
    return {"detected": det / tot, "fp_per_series": fp / reps, "median_abs_err": float(np.median(errs)) if errs else None,
            "coverage95": cov / det if det else None, "costs": costs}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--n", type=int, default=600)
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    print(f"n={a.n}, 3 changes, {a.reps} series per row; defaults (auto cost, auto penalty, 95 % CI)")
    print(f"{'noise':22s} {'jump':>5s} {'detected':>9s} {'FP/series':>9s} {'med|err|':>8s} {'CI cover':>8s}  costs")
    for noise, outl in [("gaussian", 0.0), ("student_t", 0.0), ("lognormal", 0.0), ("gaussian", 0.01)]:
        for jump in (1.0, 1.5, 2.0, 3.0):
            r = run(a.n, a.reps, jump, noise, outl)
            name = noise + (" +1% spikes" if outl else "")
            print(f"{name:22s} {jump:5.1f} {r['detected']:9.3f} {r['fp_per_series']:9.3f} "
                  f"{r['median_abs_err']:8.1f} {r['coverage95']:8.3f}  {r['costs']}")
    print(f"total {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
