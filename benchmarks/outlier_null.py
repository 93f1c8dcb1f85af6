""""Outlier runs" of ``classify`` on null run sequences (no run is an outlier by construction) and on sequences with
one or two real outlier runs - the series-level false-alarm rate of the outlier finding and its power.

    python benchmarks/outlier_null.py [--reps 1000] [--part null|power|both]
    python benchmarks/outlier_null.py --part esd [--reps 50000]   # the table classify.ESD_ALPHA_RATIO
    python benchmarks/outlier_null.py --long [--reps 200] [--part null|power|both]   # 300 to 10,000 runs
    PYTHONPATH=/path/to/other/checkout python benchmarks/outlier_null.py   # the same for another bandkit

Null: 10 to 200 runs, run-to-run sd 1 / 2 / 5 / 10 % (of the run means), families: Gaussian (1, 5 and 20 values per
run: each value adds within-run noise of half the run sd, and the runner's inputs ``within`` and ``tick`` are
taken from the values as ``postmortem`` does), Student-t3, AR(1) 0.3, Gaussian on a clock tick of 1 % of the level,
exGaussian (Gaussian 0.3 sd + exponential tail of mean sd: right skew). A false alarm is a series with at least one
outlier run (``Classification.outliers``). Only the Gaussian-like rows (Gaussian, AR, tick) are false alarms in the
calibration suite's sense: a t3 or exponential tail run IS a run in the tail, and "outlier" there says so.
Power: Gaussian, one run (or two) multiplied by 1.2 / 1.3 / 1.4 at a random place; a hit = every such run is an
outlier run. Seeded (the same series for any checkout); prints Markdown tables.
"""
from __future__ import annotations

import argparse

import numpy as np

from bandkit.postmortem.classify import classify
from bandkit.postmortem.noise import within_run_se
from bandkit.robust import detect_tick

RUNS = (10, 15, 20, 30, 50, 100, 200)
SDS = (0.01, 0.02, 0.05, 0.10)


#: ``--long``: sequences beyond the step / outlier gates' ``GATE_MAX_RUNS`` (CI histories of thousands of builds);
#: 10,000 runs get a quarter of the reps (a classification of 10,000 runs takes ~1 s).
LONG_RUNS = (300, 1000, 3000, 10000)
LONG_SDS = (0.01, 0.02, 0.05)
#: The clock-tick family also gets noise under one tick (0.5-0.9 % sd on a 1 % tick): most runs then sit on their
#: neighbour's tick, the neighbour scale is 0, and the scale must come from the rounding (issue 12, stop 29 "tick1").
LONG_SUB_TICK_SDS = (0.005, 0.007, 0.008, 0.009)


def _ar(rng, n, rho=0.3):
    e = rng.standard_normal(n + 50)
    y = np.empty_like(e)
    y[0] = e[0]
    for i in range(1, e.size):
        y[i] = rho * y[i - 1] + np.sqrt(1 - rho * rho) * e[i]
    return y[50:]


FAMILIES = {
    "Gaussian": lambda rng, n: rng.standard_normal(n),
    "t3": lambda rng, n: rng.standard_t(3, n) / np.sqrt(3.0),
    "AR(1) 0.3": _ar,
    "tick 1 %": lambda rng, n: rng.standard_normal(n),
    "exGaussian": lambda rng, n: 0.3 * rng.standard_normal(n) + rng.exponential(1.0, n) - 1.0,
}
#: The Gaussian-tailed families of ``--long`` (every outlier run a false alarm).
LONG_FAMILIES = {
    "Gaussian": FAMILIES["Gaussian"],
    "AR(1) 0.3": _ar,
    "AR(1) 0.5": lambda rng, n: _ar(rng, n, 0.5),
    "tick 1 %": FAMILIES["tick 1 %"],
}


def _classify(rng, run_x, sd, k, tick=None):
    """classify of runs whose log means are ``run_x`` with ``k`` values a run (level 100)."""
    n = run_x.size
    if k == 1:
        v = 100.0 * np.exp(run_x)
        if tick:
            v = np.round(v / tick) * tick
        return classify(v, tick=detect_tick(v) if tick else None)
    vals = 100.0 * np.exp(run_x[:, None] + 0.5 * sd * rng.standard_normal((n, k)))
    runs = np.repeat(np.arange(n), k)
    within = within_run_se(vals.ravel(), runs)
    return classify(vals.mean(axis=1), within=within, tick=detect_tick(vals.ravel()))


def null_table(reps: int, only: tuple[str, ...] = ()) -> None:
    print("| noise | values/run | sd | " + " | ".join(f"{n} runs" for n in RUNS) + " |")
    print("|---|---|---|" + "---|" * len(RUNS))
    for fi, (fam, make) in enumerate(FAMILIES.items()):
        if only and fam not in only:
            continue
        for k in ((1, 5, 20) if fam == "Gaussian" else (1,)):
            for sd in SDS:
                cells = []
                for n in RUNS:
                    rng = np.random.default_rng([fi, k, int(sd * 1000), n])
                    hit = 0
                    for _ in range(reps):
                        c = _classify(rng, sd * make(rng, n), sd, k, tick=1.0 if fam == "tick 1 %" else None)
                        hit += bool(c.outliers)
                    cells.append(f"{100 * hit / reps:.1f}")
                print(f"| {fam} | {k} | {100 * sd:g} % | " + " | ".join(cells) + " |", flush=True)


def _long_reps(reps: int, n: int) -> int:
    return max(reps // 4, 10) if n >= 10000 else reps


def long_null_table(reps: int, only: tuple[str, ...] = ()) -> None:
    """The null table on ``LONG_RUNS`` runs (one value a run), Gaussian-tailed families only; a cell also counts
    the outlier runs per series (mean) beside the share of series with any."""
    print("| noise | sd | " + " | ".join(f"{n} runs" for n in LONG_RUNS) + " |")
    print("|---|---|" + "---|" * len(LONG_RUNS))
    for fi, (fam, make) in enumerate(LONG_FAMILIES.items()):
        if only and fam not in only:
            continue
        for sd in (LONG_SUB_TICK_SDS + LONG_SDS if fam == "tick 1 %" else LONG_SDS):
            cells = []
            for n in LONG_RUNS:
                rng = np.random.default_rng([fi, 1, int(sd * 1000), n, 31])
                hit = runs = 0
                r = _long_reps(reps, n)
                for _ in range(r):
                    c = _classify(rng, sd * make(rng, n), sd, 1, tick=1.0 if fam == "tick 1 %" else None)
                    hit += bool(c.outliers)
                    runs += len(c.outliers)
                cells.append(f"{100 * hit / r:.1f} ({runs / r:.2f})")
            print(f"| {fam} | {100 * sd:g} % | " + " | ".join(cells) + " |", flush=True)


def long_power_table(reps: int) -> None:
    """Power on ``LONG_RUNS`` runs: 1, 3 or 0.5 % of the runs (at least 1) multiplied by 1.2 / 1.3 at random places,
    Gaussian noise; a cell: the share of series with every such run an outlier run, and (in brackets) the share of
    the spikes found over all series. Then one run on a clock tick of 1 % (values rounded to it)."""
    print("| spikes | sd | " + " | ".join(f"{n} runs" for n in LONG_RUNS) + " |")
    print("|---|---|" + "---|" * len(LONG_RUNS))
    for share in (0.0, 0.005):
        for factor in (1.2, 1.3):
            for sd in (0.02, 0.05):
                cells = []
                for n in LONG_RUNS:
                    rng = np.random.default_rng([int(share * 1000), int(factor * 100), int(sd * 1000), n, 41])
                    hit = found = total = 0
                    r = _long_reps(reps, n)
                    for _ in range(r):
                        x = sd * rng.standard_normal(n)
                        at = rng.choice(n, max(1, int(share * n)), replace=False)
                        x[at] += np.log(factor)
                        c = _classify(rng, x, sd, 1)
                        got = set(int(i) for i in at) & set(c.outliers)
                        hit += len(got) == at.size
                        found += len(got)
                        total += at.size
                    cells.append(f"{100 * hit / r:.1f} ({100 * found / total:.1f})")
                what = "1 run" if share == 0 else f"{100 * share:g} % of runs"
                print(f"| {what} x{factor:g} | {100 * sd:g} % | " + " | ".join(cells) + " |", flush=True)
    # on a clock tick of 1 % of the level: one run x1.03 / x1.05 / x1.04 under one tick of noise (0.3-0.7 % sd),
    # x1.06 / x1.08 at 1 % sd (1 tick), x1.10 / x1.15 at 2 % sd (2 ticks)
    for factor, sd, salt in ((1.03, 0.003, 47), (1.03, 0.005, 47), (1.05, 0.005, 47), (1.04, 0.007, 47),
                             (1.06, 0.01, 43), (1.08, 0.01, 43), (1.10, 0.02, 43), (1.15, 0.02, 43)):
        cells = []
        for n in LONG_RUNS:
            rng = np.random.default_rng([int(factor * 100), int(sd * 1000), n, salt])
            hit = 0
            r = _long_reps(reps, n)
            for _ in range(r):
                x = sd * rng.standard_normal(n)
                at = int(rng.integers(n))
                x[at] += np.log(factor)
                hit += at in _classify(rng, x, sd, 1, tick=1.0).outliers
            cells.append(f"{100 * hit / r:.1f}")
        print(f"| 1 run x{factor:g}, tick 1 % | {100 * sd:g} % | " + " | ".join(cells) + " |", flush=True)


def power_table(reps: int) -> None:
    print("| spike | sd | " + " | ".join(f"{n} runs" for n in (10, 15, 20, 30, 50)) + " |")
    print("|---|---|" + "---|" * 5)
    for spikes in (1, 2):
        for factor in (1.2, 1.3, 1.4):
            for sd in (0.01, 0.02, 0.05):
                cells = []
                for n in (10, 15, 20, 30, 50):
                    rng = np.random.default_rng([spikes, int(factor * 100), int(sd * 1000), n, 7])
                    hit = 0
                    for _ in range(reps):
                        x = sd * rng.standard_normal(n)
                        at = rng.choice(n, spikes, replace=False)
                        x[at] += np.log(factor)
                        c = _classify(rng, x, sd, 1)
                        hit += set(int(i) for i in at) <= set(c.outliers)
                    cells.append(f"{100 * hit / reps:.1f}")
                print(f"| {spikes} x{factor:g} | {100 * sd:g} % | " + " | ".join(cells) + " |", flush=True)


def esd_series_p(x: np.ndarray, r_max: int) -> float:
    """The smallest ``alpha`` at which the generalized ESD test (``classify.esd_count``, the same steps) finds at
    least one outlier in ``x``: Rosner's critical value inverted at every step, ``t^2 = R^2 m (m - 2) /
    ((m - 1)^2 - m R^2)``, ``alpha = 2 m P(T_{m-2} > t)``, the smallest over the steps."""
    from scipy import stats
    order = np.argsort(x)
    v = x[order] - np.median(x)
    lo, hi = 0, v.size - 1
    s1, s2 = float(v.sum()), float((v * v).sum())
    best = 1.0
    for _ in range(min(r_max, v.size - 3)):
        m = hi - lo + 1
        mu = s1 / m
        sd = np.sqrt(max(s2 - s1 * mu, 0.0) / (m - 1))
        k = lo if mu - v[lo] > v[hi] - mu else hi
        big = abs(v[k] - mu) / sd
        den = (m - 1) ** 2 - m * big * big
        best = min(best, 0.0 if den <= 0 else 2 * m * float(stats.t.sf(np.sqrt(big * big * m * (m - 2) / den), m - 2)))
        s1 -= v[k]
        s2 -= v[k] * v[k]
        lo, hi = (lo + 1, hi) if k == lo else (lo, hi - 1)
    return best


def esd_table(reps: int, alpha: float = 0.01) -> None:
    """Per number of runs, the level at which the ESD test with up to half the runs as outliers finds one in
    ``alpha`` of Gaussian series (Rosner's critical values hold for a few outliers of 25 values or more; with n // 2
    steps on 10 values the rate at 1 % is ~2.5 %), as a ratio to ``alpha``: ``classify.ESD_ALPHA_RATIO``."""
    print("| runs | level for 1 % | ratio | rate at 1 % |\n|---|---|---|---|")
    for n in (6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 70, 100):
        rng = np.random.default_rng(77000 + n)
        p = np.array([esd_series_p(rng.standard_normal(n), n // 2) for _ in range(reps)])
        q = float(np.quantile(p, alpha))
        print(f"| {n} | {q:.5f} | {q / alpha:.3f} | {100 * np.mean(p < alpha):.2f} % |", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--part", choices=("null", "power", "both", "esd"), default="both")
    ap.add_argument("--long", action="store_true", help="300 to 10,000 runs (Gaussian, AR 0.3 / 0.5, tick)")
    ap.add_argument("--families", default="", help="null rows of these families only (comma-separated, e.g. 'tick 1 %%')")
    a = ap.parse_args(argv)
    if a.part == "esd" and not a.long:
        esd_table(a.reps)
        return 0
    nulls, powers = (long_null_table, long_power_table) if a.long else (null_table, power_table)
    if a.part in ("null", "both"):
        nulls(a.reps, tuple(f for f in a.families.split(",") if f))
    if a.part in ("power", "both"):
        print()
        powers(a.reps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
