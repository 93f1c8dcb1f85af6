"""How much power is there to have? Oracle single-step tests on the power families of changepoints_nullpower.

Usage: python benchmarks/changepoints_oracle.py [--reps 20000] [--sizes 20,50] [--ratios 1.05,1.1]

The same series as ``changepoints_nullpower.py --part power`` (benchmarks/changepoints_families.py: one step by
``ratio`` at index n // 2, 1 % relative noise, so a 5 % step is 5 marginal noise SDs) are tested by idealised
tests that know more than a detector can, each held to a 1 % false-alarm rate per series:

* ``known loc+sigma``: the step's index and the family are known; statistic |mean after - mean before|,
  threshold its 99 % quantile on that family's own null series (the most powerful of these tests for Gaussian
  white noise; for AR(1) and 1/f noise it uses their true correlation, which no detector knows).
* ``known loc, pooled``: index known, sigma unknown: the two-sample t with the pooled within-segment SD;
  threshold (a) per family ("own") and (b) the supremum over all 16 null families of
  changepoints_nullpower (``composite``: a test that does not know which noise it is looking at).
* ``known loc, AR 0.5 allowance``: the pooled t divided by the worst-case long-run inflation of AR(1) 0.5
  (sqrt 3 = 1.73), against the normal 99 % two-sided quantile 2.576 (the brief's back-of-the-envelope test).
* ``known loc, ranks, comp`` / ``scan, ranks, comp``: the same two tests on the within-series ranks (a
  Mann-Whitney-type statistic: spikes cannot hide a step), composite thresholds.
* ``scan, pooled, composite``: index unknown: the largest pooled two-sample t over every split with >= 2 values
  per side (one step, as a CUSUM scan), threshold the supremum over the 16 null families of its 99 % quantile; a
  hit = over the threshold with the argmax within 3 values of the step (bandkit's hit rule).

The last one is what a single-change detector that must hold 1 % on every null family at once can reach; the
gap between it and bandkit is the price of bandkit's generality (multiple changes, spikes, ticks, trends).
Seeded; prints a table per length (hit rates in %) and the thresholds.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import changepoints_families as fam  # noqa: E402
import changepoints_nullpower as npw  # noqa: E402

SEED = 20261124
Z99 = 2.5758  # two-sided 1 % normal quantile


def batch(name: str, n: int, reps: int, ratio: float, rng: np.random.Generator) -> np.ndarray:
    if ratio == 1.0:
        return np.stack([fam.null(name, n, rng) for _ in range(reps)])
    return np.stack([fam.step(name, n, ratio, n // 2, rng) for _ in range(reps)])


def known_split(X: np.ndarray, c: int) -> tuple[np.ndarray, np.ndarray]:
    """(|mean difference|, pooled two-sample |t|) at split c, per row."""
    a, b = X[:, :c], X[:, c:]
    d = b.mean(1) - a.mean(1)
    n1, n2 = a.shape[1], b.shape[1]
    s2 = (((a - a.mean(1, keepdims=True)) ** 2).sum(1) + ((b - b.mean(1, keepdims=True)) ** 2).sum(1)) / (n1 + n2 - 2)
    with np.errstate(divide="ignore", invalid="ignore"):  # tick-quantised segments can be constant
        t = np.abs(d) / np.sqrt(s2 * (1 / n1 + 1 / n2))
    return np.abs(d), np.where(np.isnan(t), 0.0, t)


def scan(X: np.ndarray, m: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """(max over splits of the pooled |t|, its split index), per row."""
    reps, n = X.shape
    Xc = X - X.mean(1, keepdims=True)
    S = np.cumsum(Xc, 1)
    tss = (Xc ** 2).sum(1, keepdims=True)
    c = np.arange(m, n - m + 1)
    between = S[:, c - 1] ** 2 * n / (c * (n - c))  # n1 n2 / n (mean difference)^2
    s2 = np.maximum(tss - between, 1e-300) / (n - 2)
    t = np.sqrt(between / s2)
    k = np.argmax(t, 1)
    return t[np.arange(reps), k], c[k]


def ranks(X: np.ndarray) -> np.ndarray:
    """Mid-ranks per row (ties share their mean rank)."""
    from scipy.stats import rankdata

    return rankdata(X, axis=1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20000, help="null series per family and length (power: a tenth)")
    ap.add_argument("--sizes", default="20,50")
    ap.add_argument("--ratios", default="1.05,1.1")
    a = ap.parse_args(argv)
    sizes = [int(s) for s in a.sizes.split(",")]
    ratios = [float(r) for r in a.ratios.split(",")]
    rng = np.random.default_rng(SEED)
    for n in sizes:
        c = n // 2
        q_diff, q_t, q_scan, q_rt, q_rscan = {}, {}, {}, {}, {}
        for name in dict.fromkeys(npw.NULL_FAMILIES + npw.POWER_FAMILIES):
            X = batch(name, n, a.reps, 1.0, rng)
            d, t = known_split(X, c)
            q_diff[name], q_t[name] = np.quantile(d, 0.99), np.quantile(t, 0.99)
            q_scan[name] = np.quantile(scan(X)[0], 0.99)
            R = ranks(X)
            q_rt[name] = np.quantile(known_split(R, c)[1], 0.99)
            q_rscan[name] = np.quantile(scan(R)[0], 0.99)
        comp = npw.NULL_FAMILIES  # the composite null: the 16 families of changepoints_nullpower
        t_comp, s_comp = max(q_t[f] for f in comp), max(q_scan[f] for f in comp)
        rt_comp, rs_comp = max(q_rt[f] for f in comp), max(q_rscan[f] for f in comp)
        print(f"\nn = {n}: 1 % thresholds  pooled t at the known split: composite {t_comp:.2f} "
              f"(worst {max(comp, key=q_t.get)}; Gaussian {q_t['g']:.2f});  scan max-t: composite {s_comp:.2f} "
              f"(worst {max(comp, key=q_scan.get)}; Gaussian {q_scan['g']:.2f});  on ranks: {rt_comp:.2f} / {rs_comp:.2f}")
        hdr = ("known loc+sigma", "known loc, pooled own", "known loc, pooled comp", "known loc, AR0.5 allow",
               "scan, pooled, comp", "known loc, ranks, comp", "scan, ranks, comp")
        print(f"{'family':15s} {'ratio':>5s} " + "".join(f"{h:>24s}" for h in hdr))
        for name in npw.POWER_FAMILIES:
            for ratio in ratios:
                X = batch(name, n, max(a.reps // 10, 200), ratio, rng)
                d, t = known_split(X, c)
                ts, k = scan(X)
                R = ranks(X)
                rs, rk = scan(R)
                hits = (d > q_diff[name], t > q_t[name], t > t_comp, t / math.sqrt(3.0) > Z99,
                        (ts > s_comp) & (np.abs(k - c) <= 3), known_split(R, c)[1] > rt_comp,
                        (rs > rs_comp) & (np.abs(rk - c) <= 3))
                print(f"{name:15s} {ratio:5.2f} " + "".join(f"{100 * h.mean():23.1f}%" for h in hits), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
