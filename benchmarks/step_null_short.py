"""False alarms per verdict kind of ``classify`` on short to medium run sequences of pure noise (10-100 runs,
1-10 % run-to-run sd), and the hit rates of the same verdicts on steps, episodes, trends and warm-ups - the
calibration of the run-sequence step / episode / trend / warm-up gates (issue 12: step <= 1 %, every other kind
<= 5 % of null series, at any noise sd).

    python benchmarks/step_null_short.py [--reps 2000] [--jobs 2] [--only null|power]
    PYTHONPATH=/path/to/other/checkout python benchmarks/step_null_short.py   # the same for another bandkit
    python benchmarks/step_null_short.py gate step|episode|lr|ramp [--reps 20000] [--ns 10,20,...]   # the gate's tables

Null cells: i.i.d. Gaussian, Student t3 (scaled to unit variance), AR(1) with rho 0.3 and 0.5 (marginal sd as
given), and Gaussian quantised to a clock tick of 1 % of the level (``tick`` passed to ``classify``), on the log run
means; a false alarm of kind K is a series whose verdict is K. Power cells: a step (x1.05, x1.10 in the middle
or 4 runs before the end), an episode (a third of the runs x1.10, then back), a drift (x1.10 over the series)
and a warm-up (the first 2 runs x1.20), Gaussian noise. Seeded per cell; prints Markdown tables with Wilson 95 %
intervals.

``gate``: the null of the statistic of ``classify.change_holds`` - its largest value over every place of a step
(sides of >= 3 runs; the statistic at the best least-squares split) or of an episode (a stretch of >= 3 runs with
runs on both sides), for Gaussian series (its 99 / 99.5 / 99.9 % quantiles: ``STEP_T999`` / ``EPISODE_T999``),
and how often Student-t3 and AR(1) 0.3 series exceed the Gaussian 99 / 99.9 % quantiles. ``gate lr``: the null
quantiles of ``classify.step_lr`` (the AR(1) likelihood ratio of one mean shift) on AR(1) series of lag-1 0 / 0.3 /
0.5 (``STEP_LR99``: the AR(1) 0.5 99 % quantile). ``gate ramp``: the null quantiles of the likelihood ratio of
"line + 2 (3) mean shifts" against a line, the largest over every place (``RAMP_LR99``: the 99 % ones; run with
``--reps 10000``).
"""
from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from bandkit.postmortem.classify import classify

NS = (10, 12, 15, 20, 30, 50, 100)
SDS = (0.01, 0.02, 0.05, 0.10)
NOISES = ("gauss", "t3", "ar0.3", "tick", "ar0.5")  # (new families at the end: the seeds are by index)
KINDS = ("step", "episode", "trend", "warmup", "bimodal/bands", "outliers")
LEVEL = 100.0
TICK = 1.0  # 1 % of the level


def noise(rng, n: int, sd: float, kind: str) -> np.ndarray:
    if kind == "t3":
        return sd * rng.standard_t(3, n) / math.sqrt(3.0)
    if kind.startswith("ar"):  # ar0.3, ar0.5: AR(1) of that lag-1 correlation, marginal sd ``sd``
        rho = float(kind[2:])
        e = rng.standard_normal(n) * math.sqrt(1 - rho * rho)
        x = np.empty(n)
        x[0] = rng.standard_normal()
        for i in range(1, n):
            x[i] = rho * x[i - 1] + e[i]
        return sd * x
    return sd * rng.standard_normal(n)


def series(rng, n: int, sd: float, kind: str, effect: str) -> tuple[np.ndarray, float | None]:
    x = noise(rng, n, sd, "gauss" if kind == "tick" else kind)
    if effect.startswith("step"):  # step:1.05:mid / step:1.10:end
        _, r, where = effect.split(":")
        at = n // 2 if where == "mid" else n - 4
        x[at:] += math.log(float(r))
    elif effect == "episode":
        x[n // 3: n // 3 + max(3, n // 3)] += math.log(1.10)
    elif effect == "trend":
        x += math.log(1.10) * np.arange(n) / (n - 1)
    elif effect == "warmup":
        x[:2] += math.log(1.20)
    m = LEVEL * np.exp(x)
    if kind == "tick":
        return np.maximum(np.round(m / TICK), 1) * TICK, TICK
    return m, None


def kind_of(verdict: str) -> str:
    return "bimodal/bands" if verdict in ("bimodal", "bands") else verdict


def run_cell(cell) -> tuple:
    n, sd, kind, effect, reps, seed = cell
    rng = np.random.default_rng(seed)
    c: Counter = Counter()
    for _ in range(reps):
        m, tick = series(rng, n, sd, kind, effect)
        c[kind_of(classify(m, tick=tick).verdict)] += 1
    return cell, c


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def fmt(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{100 * k / n:.2f} ({100 * lo:.1f}-{100 * hi:.1f})"


POWER = [(n, sd, e) for e in ("step:1.05:mid", "step:1.05:end", "step:1.10:mid", "step:1.10:end")
         for n in (10, 15, 20, 30, 50) for sd in (0.01, 0.02)]
POWER += [(n, sd, e) for e in ("episode", "trend", "warmup") for n in (20, 30, 50) for sd in (0.01, 0.02)]
WANT = {"episode": "episode", "trend": "trend", "warmup": "warmup"}


MIN_BLOCK = 3


def _gated(x: np.ndarray, res: np.ndarray, inside: np.ndarray) -> float:
    """``change_holds``' statistic of one series ``x`` with residuals ``res`` from its two levels, the runs
    ``inside`` one of them (a step's second side, an episode)."""
    from bandkit.postmortem.classify import ar1_correlation, gap_t, gate_rho, gate_scale  # (this tree's gate)

    s, w = gate_scale(res, 2)
    corr = ar1_correlation(x.size, gate_rho(w, 2))
    return gap_t(x - res + w, np.flatnonzero(inside), np.flatnonzero(~inside), s, corr)


def step_stat(X: np.ndarray) -> np.ndarray:
    """Per row of ``X``: the statistic at the best split (largest two-sample t, pooled sd, sides >= MIN_BLOCK)."""
    r, n = X.shape
    cs = np.cumsum(X, 1)
    ss = np.sum((X - X.mean(1, keepdims=True)) ** 2, 1)
    k = np.arange(MIN_BLOCK, n - MIN_BLOCK + 1)
    d = (cs[:, -1:] - cs[:, k - 1]) / (n - k) - cs[:, k - 1] / k
    s = np.sqrt(np.maximum(ss[:, None] - k * (n - k) / n * d ** 2, 1e-300) / (n - 2))
    j = np.argmax(np.abs(d) / (s * np.sqrt(1 / k + 1 / (n - k))), 1)
    out = np.empty(r)
    for i in range(r):
        kk, x = k[j[i]], X[i]
        res = np.concatenate([x[:kk] - x[:kk].mean(), x[kk:] - x[kk:].mean()])
        out[i] = _gated(x, res, np.arange(n) >= kk)
    return out


def episode_stat(X: np.ndarray) -> np.ndarray:
    """Per row of ``X``: the statistic at the stretch [a, b) (>= MIN_BLOCK runs, runs on both sides) whose mean
    differs most from the rest's (two-sample t, pooled sd)."""
    r, n = X.shape
    cs = np.concatenate([np.zeros((r, 1)), np.cumsum(X, 1)], 1)
    tot = cs[:, -1]
    ss = np.sum((X - X.mean(1, keepdims=True)) ** 2, 1)
    best = np.zeros(r)
    arg = np.zeros((r, 2), int)
    for a in range(1, n - MIN_BLOCK):
        for b in range(a + MIN_BLOCK, n):
            m = b - a
            d = (cs[:, b] - cs[:, a]) / m - (tot - (cs[:, b] - cs[:, a])) / (n - m)
            s = np.sqrt(np.maximum(ss - m * (n - m) / n * d ** 2, 1e-300) / (n - 2))
            t = np.abs(d) / (s * math.sqrt(1 / m + 1 / (n - m)))
            up = t > best
            best[up] = t[up]
            arg[up] = (a, b)
    out = np.empty(r)
    for i in range(r):
        (a, b), x = arg[i], X[i]
        inside = (np.arange(n) >= a) & (np.arange(n) < b)
        res = np.where(inside, x - x[inside].mean(), x - x[~inside].mean())
        out[i] = _gated(x, res, inside)
    return out


def gate_tables(which: str, reps: int, ns: list[int]) -> None:
    f = step_stat if which == "step" else episode_stat
    print(f"| runs | Gaussian q99 | q99.5 | q99.9 | t3 > q99 | t3 > q99.9 | AR(0.3) > q99 | AR(0.3) > q99.9 "
          "| AR(0.3) q99.5 | AR(0.5) > q99.9 |\n|---|---|---|---|---|---|---|---|---|---|")
    for n in ns:
        rng = np.random.default_rng(n)
        g = f(rng.standard_normal((reps, n)))
        q = np.quantile(g, [0.99, 0.995, 0.999])
        t3 = f(rng.standard_t(3, (reps, n)))
        a = f(np.stack([noise(rng, n, 1.0, "ar0.3") for _ in range(reps)]))
        a5 = f(np.stack([noise(rng, n, 1.0, "ar0.5") for _ in range(reps)]))
        print(f"| {n} | {q[0]:.2f} | {q[1]:.2f} | {q[2]:.2f} | {100 * np.mean(t3 > q[0]):.2f} % | "
              f"{100 * np.mean(t3 > q[2]):.2f} % | {100 * np.mean(a > q[0]):.2f} % | {100 * np.mean(a > q[2]):.2f} % "
              f"| {np.quantile(a, 0.995):.2f} | {100 * np.mean(a5 > q[2]):.2f} % |", flush=True)


def lr_tables(reps: int, ns: list[int]) -> None:
    """The null of ``classify.step_lr`` (the AR(1) likelihood ratio of one mean shift) on AR(1) series of rho 0 /
    0.3 / 0.5: its 99 / 99.5 / 99.9 % quantiles (the step gate's ``STEP_LR999``: the worst case over rho in [0, 0.5],
    which is rho 0.5 - the statistic's null grows with rho)."""
    from bandkit.postmortem.classify import step_lr

    print("| runs | rho 0: q99 / q99.5 / q99.9 | rho 0.3 | rho 0.5 |\n|---|---|---|---|")
    for n in ns:
        rng = np.random.default_rng((n, 55))
        row = []
        for rho in (0.0, 0.3, 0.5):
            r = reps if n <= 50 else reps // 2
            X = np.stack([noise(rng, n, 1.0, f"ar{rho}") if rho else rng.standard_normal(n) for _ in range(r)])
            q = np.quantile(np.concatenate([step_lr(X[i:i + 100]) for i in range(0, r, 100)]), [0.99, 0.995, 0.999])
            row.append(" / ".join(f"{v:.2f}" for v in q))
        print(f"| {n} | " + " | ".join(row) + " |", flush=True)


def ramp_stat(Y: np.ndarray, k: int) -> np.ndarray:
    """Per row of ``Y`` (series of one length): the largest likelihood ratio (2 log) of "line + ``k`` mean shifts"
    against a straight line over every place of the shifts (sides of >= ``MIN_BLOCK`` runs) - the null of
    ``classify._ramp``'s second condition (the line is in both models: the same for any slope)."""
    import itertools

    m = Y.shape[1]
    t = np.arange(m, dtype=np.float64)
    q, _ = np.linalg.qr(np.column_stack([np.ones(m), t]))
    places = np.arange(MIN_BLOCK, m - MIN_BLOCK + 1)
    h = (t[:, None] >= places[None, :]).astype(np.float64)
    h -= q @ (q.T @ h)  # the shifts' columns with the line projected out
    combos = np.array([c for c in itertools.combinations(range(places.size), k)
                       if all(places[c[i + 1]] - places[c[i]] >= MIN_BLOCK for i in range(k - 1))])
    ginv = np.linalg.inv((h.T @ h)[combos[:, :, None], combos[:, None, :]])
    yt = Y - (Y @ q) @ q.T
    sse = np.einsum("ij,ij->i", yt, yt)
    b = yt @ h
    best = np.zeros(Y.shape[0])
    for s in range(0, len(combos), 20000):
        bs = b[:, combos[s:s + 20000]]
        best = np.maximum(best, np.einsum("rci,cij,rcj->rc", bs, ginv[s:s + 20000], bs).max(1))
    return m * np.log(sse / (sse - best))


def ramp_tables(reps: int, ns: list[int]) -> None:
    """The 95 / 99 / 99.9 % quantiles of :func:`ramp_stat` on Gaussian series, for 2 and 3 shifts (``RAMP_LR99``:
    the 99 % ones; 3 shifts over 70 runs: half the series)."""
    print("| runs | 2 changes: q95 / q99 / q99.9 | 3 changes |\n|---|---|---|")
    for n in ns:
        row = []
        for k in (2, 3):
            r = max(1, reps if k == 2 else (2 * reps // 5 if n <= 70 else reps // 5))
            if n < MIN_BLOCK * (k + 1):
                row.append("-")
                continue
            rng = np.random.default_rng((k, n, 2026))
            g = np.concatenate([ramp_stat(rng.standard_normal((min(200, r - i), n)), k) for i in range(0, r, 200)])
            row.append(" / ".join(f"{v:.2f}" for v in np.quantile(g, [0.95, 0.99, 0.999])))
        print(f"| {n} | " + " | ".join(row) + " |", flush=True)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["gate"]:
        gp = argparse.ArgumentParser(prog="step_null_short.py gate")
        gp.add_argument("which", choices=("step", "episode", "lr", "ramp"))
        gp.add_argument("--reps", type=int, default=20000)
        gp.add_argument("--ns", default="10,12,15,20,25,30,40,50,70,100,150,200")
        ga = gp.parse_args(argv[1:])
        if ga.which == "lr":
            lr_tables(ga.reps, [int(v) for v in ga.ns.split(",")])
        elif ga.which == "ramp":
            ramp_tables(ga.reps, [int(v) for v in ga.ns.split(",")])
        else:
            gate_tables(ga.which, ga.reps, [int(v) for v in ga.ns.split(",")])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", choices=("null", "power"), default=None)
    ap.add_argument("--ns", default=",".join(map(str, NS)))
    ap.add_argument("--sds", default=",".join(map(str, SDS)))
    ap.add_argument("--noises", default=",".join(NOISES))
    a = ap.parse_args(argv)
    ns = [int(v) for v in a.ns.split(",")]
    sds = [float(v) for v in a.sds.split(",")]
    cells = []
    if a.only != "power":
        cells += [(n, sd, k, "null", a.reps, (n, int(sd * 1000), i, 12)) for i, k in enumerate(NOISES)
                  if k in a.noises.split(",") for sd in sds for n in ns]
    if a.only != "null":
        cells += [(n, sd, "gauss", e, a.reps // 2, (n, int(sd * 1000), j, 13)) for j, (n, sd, e) in enumerate(POWER)]
    with ProcessPoolExecutor(a.jobs) as ex:
        res = list(ex.map(run_cell, cells, chunksize=1))
    if a.only != "power":
        print("| noise | sd | runs | " + " | ".join(KINDS) + " | any |")
        print("|---" * (len(KINDS) + 4) + "|")
        for (n, sd, k, e, reps, _), c in res:
            if e != "null":
                continue
            print(f"| {k} | {100 * sd:g} % | {n} | " + " | ".join(fmt(c[kk], reps) for kk in KINDS)
                  + f" | {100 * (reps - c['stable']) / reps:.1f} |")
    if a.only != "null":
        print("\n| effect | sd | runs | hit % (Wilson 95 %) | verdicts |\n|---|---|---|---|---|")
        for (n, sd, k, e, reps, _), c in res:
            if e == "null":
                continue
            want = WANT.get(e, "step")
            print(f"| {e} | {100 * sd:g} % | {n} | {fmt(c[want], reps)} | "
                  + ", ".join(f"{v} {m}" for v, m in c.most_common()) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
