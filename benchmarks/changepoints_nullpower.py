"""False alarms and detection rate of ``detect_changepoints`` with its defaults, on seeded generated series.

Usage: python benchmarks/changepoints_nullpower.py [--reps 500] [--part null,power,dense,hard] [--json out.json]
       [--set noise.RHO_RESID_MAX=0.8 ...]  (exploration: a constant of bandkit.changepoints changed for the run)

Runs against whichever ``bandkit`` is imported, so the previous defaults are measured by running the same
script with the previous version first on the path (``PYTHONPATH=../main python benchmarks/...``; the old
API gets ``n_boot=0``). Families: benchmarks/changepoints_families.py (relative noise of 1 % per value around
100; a "5 % step" is 5 noise SDs).

* null: stationary series of every family and length 20 ... 10,000; a false alarm = a series with at least
  one reported change (``result.changepoints``).
* power: one step in the middle (ratio 1.02 ... 1.5) at lengths 20 ... 1,000; a hit = a reported change
  within 3 values of the true one (and the share of series that also report a change elsewhere).
* hard: a level that moves without a step (changepoints_families.MOVING: linear drift of 3 or 10 noise SDs
  over the series, white or AR(1) 0.5; a random-walk level; a period-12 season), lengths 20 ... 2,000; the
  share of series with a reported change (not a false alarm by the issue's definition: no bar, a measurement
  of what the step detector does where the level moves in another way).
* dense: white noise with a change every 20 values, jumps 1-3 SDs (random signs), n = 1,000 and 5,000; TCPD
  F1 (margin 5) against the true changes.
"""
from __future__ import annotations

import argparse
import inspect
import json
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import changepoints_families as fam  # noqa: E402

NULL_FAMILIES = fam.CALIBRATION + fam.VALIDATION_EXTRA
HARD_SIZES = (20, 50, 200, 1000, 2000)
NULL_SIZES = (20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
POWER_FAMILIES = ("g", "t3", "ar=0.5", "g+spikes=0.01", "g+tick=1", "g+pink=0.3")
POWER_SIZES = (20, 50, 200, 1000)
RATIOS = (1.02, 1.05, 1.1, 1.2, 1.5)
SEED = 20261123


def detect(x):
    from bandkit.changepoints import detect_changepoints

    if "n_boot" in inspect.signature(detect_changepoints).parameters:  # the previous API
        return detect_changepoints(x, n_boot=0).indices
    return detect_changepoints(x, ci=False).indices


def _null(args):
    name, n, reps, seed = args
    rng = np.random.default_rng(seed)
    return sum(detect(fam.null(name, n, rng)).size > 0 for _ in range(reps))


def _hard(args):
    name, n, reps, seed = args
    rng = np.random.default_rng(seed)
    return sum(detect(fam.moving(name, n, rng)).size > 0 for _ in range(reps))


def _power(args):
    name, n, ratio, reps, seed = args
    rng = np.random.default_rng(seed)
    hit = extra = 0
    at = n // 2
    for _ in range(reps):
        idx = detect(fam.step(name, n, ratio, at, rng))
        near = np.abs(idx - at) <= 3
        hit += bool(near.any())
        extra += bool((~near).any())
    return hit, extra


def _dense(args):
    n, reps, seed = args
    from bandkit.changepoints.scoring import f_measure

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(reps):
        y, cps = fam.dense(n, 20, rng)
        out.append(f_measure({"truth": cps.tolist()}, detect(y).tolist()))
    return out


def _split(reps, workers):
    return [reps // workers + (1 if k < reps % workers else 0) for k in range(workers)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--part", default="null,power,dense")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", default="")
    ap.add_argument("--set", action="append", metavar="MODULE.NAME=VALUE",
                    help="exploration: change a constant of bandkit.changepoints (e.g. noise.RHO_RESID_MAX=0.8)")
    a = ap.parse_args(argv)
    from tcpd_eval import set_constants

    set_constants(a.set)
    if a.set:
        multiprocessing.set_start_method("fork", force=True)  # the workers must inherit the changed constants
    import bandkit

    print(f"bandkit from {Path(bandkit.__file__).parent}")
    res: dict = {}
    t0 = time.time()
    parts = a.part.split(",")
    with ProcessPoolExecutor(a.workers) as ex:
        if "null" in parts:
            print(f"\nnull: share of series with a reported change ({a.reps} series per cell)")
            print(f"{'family':18s}" + "".join(f"{n:>8d}" for n in NULL_SIZES))
            for name in NULL_FAMILIES:
                row = []
                for n in NULL_SIZES:
                    reps = a.reps if n <= 2000 else max(a.reps // 2, 100)
                    jobs = [(name, n, r, SEED + 1000 * k + n) for k, r in enumerate(_split(reps, a.workers))]
                    fa = sum(ex.map(_null, jobs)) / reps
                    res.setdefault("null", {}).setdefault(name, {})[n] = fa
                    row.append(f"{100 * fa:7.1f}%")
                print(f"{name:18s}" + "".join(row), flush=True)
        if "power" in parts:
            print(f"\npower: share of series with a reported change within 3 values of the step (other changes "
                  f"too: in brackets), {a.reps} series per cell")
            for name in POWER_FAMILIES:
                print(f"{name:14s} ratio " + "".join(f"{'n=' + str(n):>14s}" for n in POWER_SIZES))
                for ratio in RATIOS:
                    row = []
                    for n in POWER_SIZES:
                        jobs = [(name, n, ratio, r, SEED + 77 * k + n) for k, r in enumerate(_split(a.reps, a.workers))]
                        parts_ = list(ex.map(_power, jobs))
                        hit = sum(p[0] for p in parts_) / a.reps
                        extra = sum(p[1] for p in parts_) / a.reps
                        res.setdefault("power", {}).setdefault(name, {}).setdefault(str(ratio), {})[n] = [hit, extra]
                        row.append(f"{100 * hit:7.1f}% ({100 * extra:3.0f})")
                    print(f"{'':14s} {ratio:5.2f} " + "".join(f"{c:>14s}" for c in row), flush=True)
        if "hard" in parts:
            print(f"\nhard: share of series with a reported change where the level moves without a step "
                  f"({a.reps} series per cell)")
            print(f"{'family':18s}" + "".join(f"{n:>8d}" for n in HARD_SIZES))
            for name in fam.MOVING:
                row = []
                for n in HARD_SIZES:
                    jobs = [(name, n, r, SEED + 3000 + 1000 * k + n) for k, r in enumerate(_split(a.reps, a.workers))]
                    share = sum(ex.map(_hard, jobs)) / a.reps
                    res.setdefault("hard", {}).setdefault(name, {})[n] = share
                    row.append(f"{100 * share:7.1f}%")
                print(f"{name:18s}" + "".join(row), flush=True)
        if "dense" in parts:
            print("\ndense: change every 20 values, jumps 1-3 SD, white noise; mean TCPD F1")
            for n in (1000, 5000):
                reps = max(a.reps // (5 if n == 1000 else 25), 10)
                jobs = [(n, r, SEED + 5 * k + n) for k, r in enumerate(_split(reps, a.workers))]
                f1 = float(np.mean(sum(ex.map(_dense, jobs), [])))
                res.setdefault("dense", {})[n] = f1
                print(f"  n={n:5d}: F1 {f1:.3f} ({reps} series)", flush=True)
    print(f"\n{time.time() - t0:.0f} s")
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
