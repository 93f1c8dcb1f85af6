"""False alarms and power of the post-mortem's note of significant shifts that a one-level verdict does not report
(``gate.unreported_changes``, :mod:`bandkit.postmortem.shifts`) on long run sequences (> 200 runs), and of the
trend gate's "a line must fit better than one step".

    python benchmarks/shifts_null.py [--reps 100] [--only null|power|random|trend]
    PYTHONPATH=/path/to/other/checkout python benchmarks/shifts_null.py   # another bandkit (no note: 0)
    python benchmarks/shifts_null.py --only null --ns 50,100,200 --note-above 49   # the note tried on shorter runs

Null cells: stationary log run means of 300 / 1,000 / 3,000 runs at 0.3 / 1 / 3 % sd: Gaussian, Student t3,
AR(1) 0.3 and 0.5, Gaussian plus 1/f wander of half the sd, Gaussian with isolated spikes (x1.3-3 on 1 % of the
runs), Gaussian quantised to a clock tick of 1 sd. ``random``: the calibration's own null draws
(``bandkit.synthetic.noise.random_noise`` / ``random_shape``, 201-10,000 runs, one value per run). A false alarm
is a series whose post-mortem names a shift (any verdict), or whose verdict is a step (for reference).
Power cells: Gaussian noise, a step of x1.012 / 1.015 / 1.02 / 1.025 in the middle or at a quarter of the series;
a hit is a shift named within 5 % of the series of the true place (or a step verdict at the place).
``trend``: drifts of x1.10 at 2 % sd (20-50 runs) still read "trend", and steps of x1.025 in the middle no longer
do (a line must fit better than one step).
Seeded per cell; Markdown with Wilson 95 % intervals.
"""
from __future__ import annotations

import argparse
import math

import numpy as np

from bandkit.postmortem.classify import classify
from bandkit.synthetic import noise as nz

try:
    from bandkit.postmortem import _unreported as shifts_of  # this checkout
except ImportError:  # another checkout without the note
    shifts_of = None

NS = (300, 1000, 3000)
SDS = (0.003, 0.01, 0.03)
FAMILIES = ("gauss", "t3", "ar0.3", "ar0.5", "wander", "spikes", "tick")
STEPS = (1.012, 1.015, 1.02, 1.025)


def wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    z = 1.96
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def null_logs(rng, n: int, sd: float, family: str) -> tuple[np.ndarray, float | None]:
    """(run means, tick or None) of a stationary sequence at level 100."""
    if family == "t3":
        e = nz.unit_noise(n, "t3", rng)
    elif family.startswith("ar"):
        e = nz.ar1_filter(rng.standard_normal(n), float(family[2:]))
    else:
        e = rng.standard_normal(n)
    x = sd * e
    if family == "wander":
        x = x + 0.5 * sd * nz.pink_noise(n, rng)
    m = 100.0 * np.exp(x)
    if family == "spikes":
        idx = nz.isolated_indices(n, max(1, n // 100), rng)
        m[idx] *= rng.uniform(1.3, 3.0, idx.size)
    tick = None
    if family == "tick":
        tick = nz.nice_step(100.0 * sd)
        m = nz.quantise(m, tick)
    return m, tick


def verdict(m: np.ndarray, tick: float | None) -> tuple[str, list[dict]]:
    cl = classify(m, tick=tick)
    small = shifts_of(cl, m, np.arange(1, m.size + 1)) if shifts_of is not None else []
    return cl.verdict, small


def run_null(reps: int, ns: tuple[int, ...] = NS) -> None:
    print("| family | sd | runs | shift named | step verdict |")
    print("|---|---|---|---|---|")
    tot = [0, 0]
    for fam in FAMILIES:
        for sd in SDS:
            for n in ns:
                rng = np.random.default_rng([FAMILIES.index(fam), int(sd * 1e4), n])
                k_small = k_step = 0
                for _ in range(reps):
                    m, tick = null_logs(rng, n, sd, fam)
                    v, small = verdict(m, tick)
                    k_small += bool(small)
                    k_step += v == "step"
                tot[0] += k_small
                tot[1] += reps
                lo, hi = wilson(k_small, reps)
                print(f"| {fam} | {100 * sd:g} % | {n} | {100 * k_small / reps:.1f} % ({100 * lo:.1f}-{100 * hi:.1f}) "
                      f"| {100 * k_step / reps:.1f} % |", flush=True)
    print(f"\nAll null cells: shift named on {tot[0]} of {tot[1]} series ({100 * tot[0] / tot[1]:.2f} %).")


def run_random(reps: int) -> None:
    rng = np.random.default_rng(20261124)
    k = k_step = 0
    worst: list[str] = []
    for i in range(reps):
        n, _ = nz.random_shape(rng, min_runs=201)
        model = nz.random_noise(rng)
        seq = nz.run_sequence("none", n_runs=n, values_per_run=1, noise=model, seed=i)
        m = seq.values[:, 0]
        v, small = verdict(m, model.tick or None)
        k += bool(small)
        k_step += v == "step"
        if small and len(worst) < 10:
            worst.append(f"{n} runs, {model.describe()}: {small[0]}")
    lo, hi = wilson(k, reps)
    print(f"Calibration null draws (201-10,000 runs): shift named on {k} of {reps} "
          f"({100 * k / reps:.1f} %, {100 * lo:.1f}-{100 * hi:.1f}); step verdict {k_step}.")
    for w in worst:
        print("  ", w)


def run_power(reps: int, ns: tuple[int, ...] = (300, 1000)) -> None:
    print("| step | where | sd | runs | named (a shift at the place, or a step) |")
    print("|---|---|---|---|---|")
    for r in STEPS:
        for where in ("mid", "quarter"):
            for sd in (0.003, 0.01):
                for n in ns:
                    rng = np.random.default_rng([int(r * 1000), where == "mid", int(sd * 1e4), n])
                    at = n // 2 if where == "mid" else n // 4
                    hit = 0
                    for _ in range(reps):
                        m = 100.0 * np.exp(sd * rng.standard_normal(n))
                        m[at:] *= r
                        cl = classify(m)
                        if cl.verdict == "step":
                            hit += any(abs(c.index - at) <= 0.05 * n for c in cl.changes)
                            continue
                        small = shifts_of(cl, m, np.arange(n)) if shifts_of is not None else []
                        hit += any(abs(c["run"] - at) <= 0.05 * n for c in small)
                    lo, hi = wilson(hit, reps)
                    print(f"| x{r} | {where} | {100 * sd:g} % | {n} | {100 * hit / reps:.1f} % "
                          f"({100 * lo:.1f}-{100 * hi:.1f}) |", flush=True)


def run_trend(reps: int) -> None:
    """How often a drift stays a drift, and a step under the 3 % gate in the middle reads as one."""
    print("| series | runs | verdict trend |")
    print("|---|---|---|")
    for n in (20, 30, 50):
        rng = np.random.default_rng([7, n])
        k = sum(classify(100.0 * np.exp(0.02 * rng.standard_normal(n) + np.linspace(0, math.log(1.10), n))).verdict
                == "trend" for _ in range(6 * reps))
        print(f"| drift x1.10 over the runs, 2 % sd (hit) | {n} | {100 * k / (6 * reps):.1f} % of {6 * reps} |")
    for n, sd in ((20, 0.01), (50, 0.01), (100, 0.003), (300, 0.01)):
        rng = np.random.default_rng([8, n])
        k = 0
        for _ in range(2 * reps):
            m = 100.0 * np.exp(sd * rng.standard_normal(n))
            m[n // 2:] *= 1.025
            k += classify(m).verdict == "trend"
        print(f"| step x1.025 in the middle, {100 * sd:g} % sd (false 'trend') | {n} | {100 * k / (2 * reps):.1f} % "
              f"of {2 * reps} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--only", choices=("null", "power", "random", "trend"))
    ap.add_argument("--ns", default="", help="runs of the null / power cells (default 300,1000,3000 / 300,1000)")
    ap.add_argument("--note-above", type=int, default=None,
                    help="an experiment: the note on sequences of more than this many runs (the shipped limit is "
                         "classify.GATE_MAX_RUNS, 200), patched into this process")
    a = ap.parse_args()
    if a.note_above is not None:
        import bandkit.postmortem as pm
        import bandkit.postmortem.shifts as sh
        pm.GATE_MAX_RUNS = sh.GATE_MAX_RUNS = a.note_above
    ns = tuple(int(v) for v in a.ns.split(",") if v)
    if a.only in (None, "null"):
        run_null(a.reps, ns or NS)
    if a.only in (None, "random"):
        print()
        run_random(4 * a.reps)
    if a.only in (None, "power"):
        print()
        run_power(a.reps, ns or (300, 1000))
    if a.only in (None, "trend"):
        print()
        run_trend(a.reps)


if __name__ == "__main__":
    main()
