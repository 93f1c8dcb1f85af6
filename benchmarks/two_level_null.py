"""Null distribution of the two-group statistic behind the noise model's two-level scale
(``postmortem.noise.two_level_sd``): the best least-squares split of the sorted log run means (each
group >= 5 runs and 5 % of them), and its (median gap) / (pooled robust sd) - by number of runs and
noise kind; then the statistic on real runner files; then the final ``bimodal`` / ``bands`` rate of
``classify`` on the same null series (does the rest of the pipeline keep the false alarms honest?).

    python benchmarks/two_level_null.py null [--reps 20000]            # quantiles of the statistic
    python benchmarks/two_level_null.py verdicts [--reps 2000]         # bimodal/bands rate of classify
    python benchmarks/two_level_null.py real FILE...                   # the statistic of "2 levels" verdicts

Noise (seeded, per row): i.i.d. Gaussian, Student t3 (scaled to unit sd), AR(1) with rho 0.3
(stationary start). The statistic is scale-free, so the sd does not matter for ``null``; ``verdicts``
uses 1 % and 5 % sd (``min_ratio`` 3 % hides much at 1 %). Prints Markdown tables.
"""
from __future__ import annotations

import argparse
import math
import sys
from collections import Counter

import numpy as np

from bandkit.postmortem.noise import two_group_split, two_group_t

NS = (10, 15, 20, 25, 30, 40, 50, 70, 100, 150, 200)
KINDS = ("gauss", "t3", "ar0.3")
PROBS = (0.95, 0.99, 0.995, 0.999)


def statistic(x: np.ndarray, min_share: float = 0.05, min_count: int = 5) -> float | None:
    """(median gap) / (pooled robust sd) at the best split of the sorted ``x``
    (:func:`bandkit.postmortem.noise.two_group_split`, as ``two_level_sd`` judges it with its
    separation gate); None when no split has ``min_count`` runs a side."""
    split = two_group_split(x, min_share, min_count)
    if split is None:
        return None
    gap, sd = split
    return gap / sd if sd > 0 else math.inf


def noise(rng: np.random.Generator, kind: str, n: int) -> np.ndarray:
    if kind == "gauss":
        return rng.standard_normal(n)
    if kind == "t3":
        return rng.standard_t(3, n) / math.sqrt(3.0)
    e = rng.standard_normal(n)
    out = np.empty(n)
    out[0] = e[0] / math.sqrt(1 - 0.09)
    for i in range(1, n):
        out[i] = 0.3 * out[i - 1] + e[i]
    return out


def null(reps: int, min_share: float = 0.05, min_count: int = 5, which: str = "robust") -> dict:
    """Quantiles of the statistic and its rate >= 4 (the gate before calibration), per kind and n."""
    stat = statistic if which == "robust" else two_group_t
    print(f"statistic {which}, groups >= {min_count} runs and {100 * min_share:g} %\n")
    print("| noise | runs | q95 | q99 | q99.5 | q99.9 | P(T >= 4) |\n|---|---|---|---|---|---|---|")
    out = {}
    for ki, kind in enumerate(KINDS):
        for n in NS:
            rng = np.random.default_rng(7000 + 100 * ki + n)
            t = np.array([stat(noise(rng, kind, n), min_share, min_count) for _ in range(reps)], dtype=float)
            q = np.quantile(t, PROBS)
            out[(kind, n)] = t
            print(f"| {kind} | {n} | " + " | ".join(f"{v:.2f}" for v in q) + f" | {100 * np.mean(t >= 4):.1f} % |",
                  flush=True)
    return out


def verdicts(reps: int, sds=(0.01, 0.05), ns=(10, 20, 50, 100, 200)) -> None:
    from bandkit.postmortem.classify import classify
    print("| noise | sd | runs | bimodal | bands | any finding |\n|---|---|---|---|---|---|")
    for ki, kind in enumerate(KINDS):
        for sd in sds:
            for n in ns:
                rng = np.random.default_rng((9000, ki, n, round(10000 * sd)))
                c = Counter(classify(np.exp(sd * noise(rng, kind, n))).verdict for _ in range(reps))
                print(f"| {kind} | {100 * sd:g} % | {n} | {100 * c['bimodal'] / reps:.1f} % | "
                      f"{100 * c['bands'] / reps:.1f} % | {100 * (reps - c['stable']) / reps:.1f} % |", flush=True)


def real(paths: list[str]) -> None:
    import bandkit
    from bandkit.postmortem import postmortem
    print("| file | benchmark | runs | verdict | bands (share) | T robust (>= 5) | T ls (>= 3, 10 %) |\n"
          "|---|---|---|---|---|---|---|")
    for p in paths:
        ts = bandkit.load(p)
        for t in ts if isinstance(ts, list) else [ts]:
            pm = postmortem(t)
            if pm.verdict not in ("bimodal", "bands"):
                continue
            x = np.log(pm.run_means)
            s, t_ls = statistic(x), two_group_t(x, 0.10, 3)
            print(f"| {p.rsplit('/', 1)[-1][:30]} | {pm.name} | {x.size} | {pm.verdict} | "
                  + ", ".join(f"{b.share:.2f}" for b in pm.bands)
                  + f" | {'-' if s is None else f'{s:.1f}'} | {'-' if t_ls is None else f'{t_ls:.2f}'} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("null", "verdicts", "real"))
    ap.add_argument("files", nargs="*")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--sds", default="0.01,0.05", help="verdicts: noise sds (relative), comma-separated")
    ap.add_argument("--ns", default="10,20,50,100,200", help="verdicts: run counts, comma-separated")
    ap.add_argument("--statistic", choices=("robust", "ls"), default="robust",
                    help="null: robust = median gap / pooled robust sd (two_level_sd); ls = mean gap / pooled sd "
                         "(two_group_t, the gate of a band made of scattered runs)")
    ap.add_argument("--min-count", type=int, default=5, help="null: runs a group holds at least (5: two_level_sd)")
    ap.add_argument("--min-share", type=float, default=0.05, help="null: share a group holds at least")
    a = ap.parse_args(argv)
    if a.what == "null":
        null(a.reps or 20000, a.min_share, a.min_count, a.statistic)
    elif a.what == "verdicts":
        verdicts(a.reps or 2000, tuple(map(float, a.sds.split(","))), tuple(map(int, a.ns.split(","))))
    else:
        real(a.files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
