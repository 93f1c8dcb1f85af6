"""Accuracy of band detection on a generated suite (issue 3 "Done when").

Cases: 1-5 bands; adjacent level ratios from 1.01 (1 %) to 5x; relative Gaussian noise per band
between 0.1 % and min(1 %, separation / R) (R = 4: bands at least 4 noise sds apart, the
"resolvable" regime; R = 3 reported separately as harder); dwell means 5-500 samples; 0.5 %
interrupted samples (level x U(0, 0.95)); half the switches straddled; half the cases integer
counts (FTQ-like); one case in four a dominant band with a 2 % band. A case succeeds when the
number of bands is right and every true level is matched within 1 %.

Usage: python3 benchmarks/bands_suite.py [--seeds 40] [--n 50000] [--ratio 4]
"""
from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np

from bandkit.bands import BandDetector
from bandkit.synthetic.bands import banded_series

RATIOS = [1.01, 1.02, 1.03, 1.05, 1.1, 1.2, 1.5, 2.0, 3.0, 5.0]


def make_case(k: int, seed: int, n: int, r_noise: float):
    rng = np.random.default_rng(10_000 * k + seed)
    steps = rng.choice(RATIOS, size=k - 1) if k > 1 else np.array([])
    while np.prod(steps) > 50:  # keep the span sane (levels 20..1000x)
        steps = rng.choice(RATIOS, size=k - 1)
    levels = 1000.0 * np.cumprod(np.r_[1.0, steps])
    sep = np.r_[np.inf, steps - 1, np.inf]  # relative separation left/right of each band
    near = np.minimum(sep[:-1], sep[1:])
    hi = np.minimum(0.01, near / r_noise)
    noise = np.exp(rng.uniform(np.log(0.001), np.log(np.maximum(hi, 0.0011))))
    dwell = np.exp(rng.uniform(np.log(5), np.log(500), size=k))
    weights = None
    tiny = k >= 2 and rng.random() < 0.25
    if tiny:  # a dominant band and a 2 % band: short rare visits
        j = int(rng.integers(k))
        dwell = np.full(k, 6.0 * 49 / (k - 1))  # -> the small band holds about 2 %
        dwell[j] = 6.0
        weights = np.ones(k)
    integer = bool(rng.random() < 0.5)
    s = banded_series(levels, n, mean_dwell=dwell, noise=noise, jump_weights=weights,
                      straddle=0.5, interrupted=0.005, integer=integer, seed=seed)
    return s, dict(k=k, levels=levels.round(2).tolist(), noise=noise.round(5).tolist(),
                   integer=integer, tiny=bool(tiny), shares=s.shares.round(4).tolist())


def run(seeds: int, n: int, r_noise: float):
    rows = []
    for k in range(1, 6):
        for seed in range(seeds):
            s, info = make_case(k, seed, n, r_noise)
            t0 = time.perf_counter()
            det = BandDetector().fit(s.values.reshape(-1, 1), times=s.times)
            el = time.perf_counter() - t0
            est = det.levels_
            ok_k = est.size == k
            rel = None
            if ok_k:
                rel = float(np.max(np.abs(est - s.levels) / s.levels))
            rows.append(dict(info, seed=seed, found=int(est.size), ok_k=bool(ok_k),
                             max_rel_err=rel, ok=bool(ok_k and rel <= 0.01), seconds=el,
                             est=np.round(est, 2).tolist()))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--ratio", type=float, default=4.0)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    rows = run(a.seeds, a.n, a.ratio)
    tot = len(rows)
    okk = sum(r["ok_k"] for r in rows)
    ok = sum(r["ok"] for r in rows)
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")
    print(f"cases {tot} (n={a.n}, noise <= separation/{a.ratio:g}): number of bands right "
          f"{okk}/{tot} = {okk / tot:.1%}; right and levels within 1 %: {ok}/{tot} = {ok / tot:.1%}")
    for k in range(1, 6):
        sub = [r for r in rows if r["k"] == k]
        print(f"  k={k}: {sum(r['ok'] for r in sub)}/{len(sub)}  "
              f"(median {np.median([r['seconds'] for r in sub]):.2f} s per case)")
    sub = [r for r in rows if r["tiny"]]
    print(f"  cases with a 2 % band: {sum(r['ok'] for r in sub)}/{len(sub)}")
    errs = [r["max_rel_err"] for r in rows if r["max_rel_err"] is not None]
    print(f"  max relative level error when k right: median {np.median(errs):.2e}, max {np.max(errs):.2e}")
    for r in rows:
        if not r["ok"]:
            print("  FAIL", json.dumps({x: r[x] for x in ("k", "seed", "levels", "noise", "integer", "tiny", "shares", "est", "max_rel_err")}))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows, f)


if __name__ == "__main__":
    main()
