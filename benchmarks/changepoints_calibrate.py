"""Calibrate the family-wise p-values of bandkit's change points (the TAIL table of
bandkit/changepoints/significance.py) by simulating stationary noise.

Usage: python benchmarks/changepoints_calibrate.py [--reps 2000] [--sizes 20,30,...,10000] [--min-size 2]
       [--families g,ar=0.5,...] [--save /tmp/calib.npz] [--load /tmp/calib.npz]

For every calibration family (benchmarks/changepoints_families.py: Gaussian, AR(1) 0.25/0.5, Student-t(3),
t3 + AR 0.5, clock ticks of 1 and 2 SDs, 0.5 % and 2 % isolated spikes, 1/f wander of 0.3 SD, log-normal) and
series length, the detector's own pipeline (automatic cost, noise model, candidates, elimination path; no
reporting) runs on ``--reps`` seeded null series, and the strongest path statistic T is kept with the cost that
was chosen. Per cost and length, the supremum over families of the survival function of T is fitted in its upper
tail (0.2 % - 10 %) by ``ln S = a - T / b``; then ``a(n) = a0 + a1 ln n`` and ``b(n) = b0 + b1 / ln n`` over the
lengths, and a0 is raised until no family exceeds the model's tail probability at 5 %, 1 % and 0.2 % by more than
its Monte-Carlo error (2 standard errors). Prints the TAIL entries and the per-family fit check.
"""
from __future__ import annotations

import argparse
import math
import zlib
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import changepoints_families as fam  # noqa: E402

SIZES = (20, 30, 50, 100, 200, 500, 1000, 2000, 5000, 10000)


def null_path(x: np.ndarray, min_size: int, **kw):
    """(T, cost) of the detector's elimination path on ``x`` (defaults, no report)."""
    from bandkit.changepoints import api

    y, t, opts = api._validate(x, None, "auto", "auto", "auto", min_size, False, 0.95, kw.get("wander", 0.3), {})
    if y.size < 2 * opts.min_size or y.size < 3:
        return 0.0, "l2"
    f = api._fit(y, t, opts)
    return (float(f.s[-1]) if f.s.size else 0.0), f.cost


def _job(args):
    name, n, reps, seed, min_size = args
    rng = np.random.default_rng(seed)
    T = np.empty(reps)
    robust = np.empty(reps, dtype=bool)
    for i in range(reps):
        T[i], c = null_path(fam.null(name, n, rng), min_size)
        robust[i] = c == "robust"
    return T, robust


def simulate(families, sizes, reps, min_size, workers=2, seed=12345):
    """{(family, n): (T samples, robust-cost flags)}; seeds from ``seed`` (change it for a check run)."""
    out = {}
    with ProcessPoolExecutor(workers) as ex:
        for name in families:
            for n in sizes:
                r = reps if n <= 1000 else max(reps // (2 if n <= 2000 else 4), 300)
                # zlib.crc32, not hash(): str hashes are salted per process, the seeds were not reproducible
                fseed = zlib.crc32(name.encode()) % 10007
                chunks = [(name, n, r // workers, seed + 7919 * k + 104729 * n + fseed, min_size)
                          for k in range(workers)]
                parts = list(ex.map(_job, chunks))
                out[(name, n)] = (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))
            print(f"  simulated {name}", file=sys.stderr, flush=True)
    return out


QS = (0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002)


def sup_survival(out, cost, n, min_count=300):
    """Sorted T samples per family (for ``cost`` at length ``n``, families with >= min_count samples)."""
    pools = []
    for (name, m), (T, rob) in out.items():
        if m != n:
            continue
        sel = T[rob] if cost == "robust" else T[~rob]
        if sel.size >= min_count:
            pools.append((name, np.sort(sel)))
    return pools


def table(out, cost, min_count=300):
    """Rows (n, thresholds t_q for q in QS) of the supremum survival function over families (see module
    docstring); thresholds made increasing in 1/q, and each row at least the mean of its neighbours' rows
    (a light, conservative smoothing across lengths)."""
    sizes = sorted({k[1] for k in out})
    rows = []
    for n in sizes:
        pools = sup_survival(out, cost, n, min_count)
        if not pools:
            continue
        # smallest t with S_f(t) <= q for every family f: the max over families of their (1 - q) quantiles
        t = [max(float(np.quantile(p, 1.0 - q, method="higher")) for _, p in pools) for q in QS]
        rows.append([n, np.maximum.accumulate(np.maximum(t, 0.0))])
    for i in range(1, len(rows) - 1):
        rows[i][1] = np.maximum(rows[i][1], 0.5 * (rows[i - 1][1] + rows[i + 1][1]))
    return [(n, [round(float(v), 3) for v in t]) for n, t in rows]


def check(out, cost, ms, levels=(0.1, 0.05, 0.01, 0.002)):
    """Empirical share of null series at or beyond the p-value levels, per family and length."""
    from bandkit.changepoints import significance as sig

    lines = []
    worst = 0.0
    for (name, n), (T, rob) in sorted(out.items()):
        sel = T[rob] if cost == "robust" else T[~rob]
        if sel.size < 300:
            continue
        p = sig.familywise_p(sel, n, cost, ms)
        cells = []
        for lv in levels:
            emp = float(np.mean(p <= lv))
            se = math.sqrt(lv * (1 - lv) / sel.size)
            worst = max(worst, (emp - 2 * se) / lv)
            cells.append(f"{100 * emp:6.2f}")
        lines.append(f"{name:16s} {n:6d} {sel.size:5d}  " + " ".join(cells))
    return worst, lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--families", default=",".join(fam.CALIBRATION))
    ap.add_argument("--min-size", type=int, default=2)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--save", default="")
    ap.add_argument("--load", default="")
    ap.add_argument("--check", action="store_true", help="check the installed table against these simulations")
    ap.add_argument("--min-count", type=int, default=0,
                    help="fewest series of a family with a cost for its pool to enter that cost's row (default: "
                         "7.5 %% of --reps, at least 300: the share the 4,000-series tables used, so that more "
                         "reps sharpen the rows without letting in rarer pools, e.g. the 2.8 %% of AR 0.5 series "
                         "of 20 values that take the robust cost)")
    a = ap.parse_args(argv)
    t0 = time.time()
    if a.load:
        z = np.load(a.load)
        out = {(k.split("|")[0], int(k.split("|")[1])): (z[k], z[k + "|robust"]) for k in z.files
               if not k.endswith("|robust")}
    else:
        out = simulate(a.families.split(","), [int(s) for s in a.sizes.split(",")], a.reps, a.min_size,
                       seed=a.seed)
        if a.save:
            np.savez(a.save, **{f"{k[0]}|{k[1]}": v[0] for k, v in out.items()},
                     **{f"{k[0]}|{k[1]}|robust": v[1] for k, v in out.items()})
    print(f"min_size={a.min_size}; {len(out)} (family, n) cells; {time.time() - t0:.0f} s")
    ms = min(a.min_size, 2)
    for cost in ("l2", "robust"):
        rows = table(out, cost, a.min_count or max(300, round(0.075 * a.reps)))
        print(f"\nTABLE[({cost!r}, {ms})] = (  # n, thresholds at survival {QS}")
        for n, t in rows:
            print(f"    ({n}, ({', '.join(f'{v:.2f}' for v in t)})),")
        print(")")
    if a.check:
        for cost in ("l2", "robust"):
            worst, lines = check(out, cost, ms)
            print(f"\ncheck {cost}: share of null series with p <= 10 %, 5 %, 1 %, 0.2 % (worst excess over "
                  f"level beyond 2 s.e.: {worst:.2f}x)")
            for line in lines:
                print("   ", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
