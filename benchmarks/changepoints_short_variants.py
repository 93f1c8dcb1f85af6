"""Variants of the short-series noise model (issue 12 power bar), each with its own recalibrated table rows.

Usage: python benchmarks/changepoints_short_variants.py --variant base|cap|cap_ur|pooled [--recal 4000]
       [--nnull 2000] [--npow 400] [--sizes 20,30,40] [--json out.json]

``current`` runs the installed estimator as it is (``noise.short_unit`` up to ``noise.SHORT_MAX_N`` values);
``base`` and the variants turn it off first (main's estimator, but the installed table: measure main itself
with ``PYTHONPATH=/path/to/main``, where ``base`` is main as it is); ``bic`` is the installed unit with ``--max-n``,
``--loc`` (``noise.LOCATION_BIC``), ``--g1`` / ``--g2`` (``noise.DRIFT_GUARD``) set for the run. Exploration, not the product: the variants wrap ``bandkit.changepoints.noise.estimate`` for series of up to
``noise.SPLIT_MAX_N`` (30) values off the unit-root branch, the table rows for 20 and 30 values (min_size >= 2,
l2 and robust) are recalibrated in memory with ``changepoints_calibrate.simulate`` (its seeds, ``--recal``
series per family; ``base`` keeps the shipped rows unless ``--recal`` is given), then the null families of
changepoints_nullpower (``--nnull`` series per cell, own seeds), its power families (steps of 5/10/20 %) and its
hard (moving-level) families are run at ``--sizes``. Series of 31-49 values use the shipped estimator with
thresholds interpolated between the rows of 30 and 50 values, so the 40-value column shows that side effect.

* ``cap``: rho capped at 0.5 (long-run inflation <= sqrt 3, the worst calibration family's).
* ``cap_ur``: ``cap``, and the unit-root branch only when the split-aware rho reaches the 0.9 cap too (not only
  the rho of all differences, which a large step alone drives there).
* ``pooled``: the unit of the statistics is the pooled within-segment SD around the strongest split, rho 0
  (the oracle scan test of changepoints_oracle.py: the table absorbs the autocorrelation of the families).
* ``pooled_r1``: ``pooled``, times sqrt(max(1, (1 + r1) / (1 - r1) / ((1 + c) / (1 - c)))) with r1 the lag-1
  autocorrelation of the residuals around the split (in [0, 0.9]) and c = ``--rho-free`` (0.5: only memory
  beyond AR 0.5's inflates the unit; 0: the full long-run correction).
* ``pooled_r1_ur``: ``pooled_r1``, and a series on the unit-root branch whose residuals around the split have
  r1 < 0.5 comes back (one step explains its memory).
* ``two``: the unit is the pooled SD (n - 3 degrees of freedom) around the best segmentation into three
  segments (two changes: an episode's other edge stays out of it) times its residuals' full long-run factor;
  the unit-root gate on those residuals' r1. ``hybrid``: the same unit, the gate on one split's residuals.
  Measured with ``--max-n 49`` (rows 20, 30, 40 recalibrated).
Results: benchmarks/RESULTS_changepoints.md §8.
"""
import math
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import multiprocessing  # noqa: E402

multiprocessing.set_start_method("fork", force=True)  # workers inherit the wrapped estimator and table
from bandkit.changepoints import noise as N  # noqa: E402

_ESTIMATE = N.estimate
RHO_FREE = 0.5  # pooled_r1*: residual autocorrelation up to this is left to the table (--rho-free)


def three_segment_resid(x, m=2):
    """Residuals of ``x`` around its best segmentation into three segments (each >= m values; exact, O(n^2))."""
    n = x.size
    xc = x - x.mean()
    S1 = np.r_[0.0, np.cumsum(xc)]
    c1, c2 = np.meshgrid(np.arange(m, n - 2 * m + 1), np.arange(2 * m, n - m + 1), indexing="ij")
    ok = c2 - c1 >= m
    fit = S1[c1] ** 2 / c1 + (S1[c2] - S1[c1]) ** 2 / np.maximum(c2 - c1, 1) + (S1[n] - S1[c2]) ** 2 / (n - c2)
    k = int(np.argmax(np.where(ok, fit, -np.inf)))
    a, b = int(c1.flat[k]), int(c2.flat[k])
    return np.concatenate([xc[:a] - xc[:a].mean(), xc[a:b] - xc[a:b].mean(), xc[b:] - xc[b:].mean()])


def variant_estimate(kind):
    def estimate(x, *, tick=0.0, raw=None, min_size=2, wander=N.WANDER, grid=0.0):
        nm = _ESTIMATE(x, tick=tick, raw=raw, min_size=min_size, wander=wander, grid=grid)
        split = N.best_split(x, min_size) if x.size <= N.SPLIT_MAX_N else 0
        if not split or nm.model == "degenerate":
            return nm
        sr = N.short_range(x, tick, rho_from=raw, split=split)  # the split-aware rho (uncapped by the branch)
        a, b = x[:split], x[split:]
        r = np.r_[a - a.mean(), b - b.mean()]
        ss = float(r @ r)
        r1 = float(np.clip(r[:-1] @ r[1:] / ss, 0.0, 0.9)) if ss > 0 else 0.0  # residual lag-1 autocorrelation
        r1_gate = r1  # the unit-root gate: one split's residuals (hybrid) or the unit's own
        if kind in ("two", "hybrid"):
            if x.size < 3 * max(min_size, 2) + 1:
                return nm
            r = three_segment_resid(x, max(min_size, 2))
            ss = float(r @ r)
            r1 = float(np.clip(r[:-1] @ r[1:] / ss, 0.0, 0.9)) if ss > 0 else 0.0
            if kind == "two":
                r1_gate = r1
        if nm.model == "unit_root":
            if kind in ("pooled_r1_ur", "two", "hybrid") and r1_gate < 0.5:
                pass  # one step explains the series' memory: back on the AR(1) branch
            elif kind != "cap_ur" or min(sr.rho, N.short_range(x, tick, rho_from=raw).rho) >= N.RHO_MAX:
                return nm
            nm = sr  # cap_ur: only the rho of all differences was at the cap: back on the AR(1) branch
            if grid > 0 and nm.sigma_marg < 0.5 * grid:
                f = 0.5 * grid / nm.sigma_marg
                nm = N.NoiseModel(nm.sigma * f, nm.rho, nm.sigma_marg * f, nm.sigma_lr * f, tick)
        if kind.startswith("pooled") or kind in ("two", "hybrid"):
            sp = math.sqrt(ss / (x.size - (3 if kind in ("two", "hybrid") else 2)))
            if kind in ("two", "hybrid"):  # the full long-run factor
                sp *= math.sqrt((1.0 + r1) / (1.0 - r1))
            elif kind != "pooled":  # more memory than the worst calibration family (AR 0.5): inflate by the excess
                sp *= math.sqrt(max(1.0, (1.0 + r1) / (1.0 - r1) * (1.0 - RHO_FREE) / (1.0 + RHO_FREE)))
            if grid > 0:  # the coarse-grid floor holds for this unit too
                sp = max(sp, min(nm.sigma_marg, 0.5 * grid))
            if not sp > 0:
                return nm
            sig, rho, marg, lr = nm.sigma, 0.0, sp, sp
        elif kind in ("cap", "cap_ur") and nm.rho > 0.5:
            g0 = nm.sigma ** 2 / 0.5
            sig, rho, marg, lr = nm.sigma, 0.5, math.sqrt(g0), math.sqrt(3.0 * g0)
        else:
            sig, rho, marg, lr = nm.sigma, nm.rho, nm.sigma_marg, nm.sigma_lr
        kappa = N.wander_kappa(wander, x.size) * min(1.0, (marg / lr) ** 2)
        return N.NoiseModel(sig, rho, marg, lr, tick, float(wander), kappa, "ar1")
    return estimate


EPISODE_UP = {20: 7, 30: 10, 40: 14}  # values at the raised level of an episode, by series length


def _episode(args):
    """Hits of both edges (within 3 values) of an episode: the level rises by ``ratio`` for EPISODE_UP[n]
    values in the middle of the series, then returns."""
    from changepoints_families import series
    from changepoints_nullpower import detect
    name, n, ratio, reps, seed = args
    rng = np.random.default_rng(seed)
    up = EPISODE_UP.get(n, n // 3)
    a = (n - up) // 2
    hit = 0
    for _ in range(reps):
        sig = np.ones(n)
        sig[a:a + up] = ratio
        idx = detect(series(name, sig, rng))
        hit += bool(np.any(np.abs(idx - a) <= 3) and np.any(np.abs(idx - a - up) <= 3))
    return hit


ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument('--variant', default='base', choices=('current', 'base', 'cap', 'cap_ur', 'pooled', 'pooled_r1', 'pooled_r1_ur', 'two', 'hybrid', 'bic'))
ap.add_argument('--loc', type=float, default=getattr(N, 'LOCATION_BIC', 1.0), help='bic: noise.LOCATION_BIC')
ap.add_argument('--g1', type=float, default=getattr(N, 'DRIFT_GUARD', {1: 0})[1], help='bic: noise.DRIFT_GUARD[1]')
ap.add_argument('--g2', type=float, default=getattr(N, 'DRIFT_GUARD', {2: 0})[2], help='bic: noise.DRIFT_GUARD[2]')
ap.add_argument('--walk', type=float, default=getattr(N, 'WALK_GUARD', 0.0), help='bic: noise.WALK_GUARD')
ap.add_argument('--max-n', type=int, default=30, help='longest series the variant applies to (30 or 49)')
ap.add_argument('--recal', type=int, default=0)
ap.add_argument('--nnull', type=int, default=2000); ap.add_argument('--npow', type=int, default=400)
ap.add_argument('--sizes', default='20,30,40'); ap.add_argument('--json', default='')
ap.add_argument('--part', default='null,power,hard,episodes'); ap.add_argument('--families', default='', help='null families (default: all)')
ap.add_argument('--null-seed', type=int, default=777)
ap.add_argument('--rho-free', type=float, default=0.5); ap.add_argument('--nep', type=int, default=300)
a = ap.parse_args()
RHO_FREE = a.rho_free
if a.variant == 'bic':  # the installed segmentation unit (noise.short_unit) with these constants
    N.SHORT_MAX_N, N.LOCATION_BIC, N.DRIFT_GUARD, N.WALK_GUARD = a.max_n, a.loc, {1: a.g1, 2: a.g2}, a.walk
elif a.variant != 'current':
    N.SHORT_MAX_N = 0  # main before the segmentation unit (the variants wrap that estimator)
    N.SPLIT_MAX_N = a.max_n
if a.variant not in ('base', 'current', 'bic'):
    N.estimate = variant_estimate(a.variant)
import changepoints_calibrate as cal, changepoints_families as fam, changepoints_nullpower as npw
from bandkit.changepoints import _calibration as C, significance as sig
from concurrent.futures import ProcessPoolExecutor
t0 = time.time()
res = {'variant': a.variant, 'recal': a.recal, 'rho_free': a.rho_free, 'bic': [getattr(N, k, None) for k in ('SHORT_MAX_N', 'LOCATION_BIC', 'DRIFT_GUARD', 'WALK_GUARD')], 'max_n': a.max_n}
if a.recal:
    new = [20, 30] + ([40] if a.max_n >= 40 else [])
    out = cal.simulate(fam.CALIBRATION, new + [50], a.recal, 2, seed=12345)
    for cost in ('l2', 'robust'):
        rows = dict(cal.table(out, cost))
        old = [(n, t) for n, t in C.TABLE[(cost, 2)] if n not in new]
        C.TABLE[(cost, 2)] = tuple(sorted(old + [(n, tuple(rows[n])) for n in new]))
        print(cost, 'new rows', [(n, rows[n]) for n in new], flush=True)
        res.setdefault('rows', {})[cost] = {n: rows[n] for n in new}
    sig._table.cache_clear()
sizes = [int(s) for s in a.sizes.split(',')]
def split(r): return [r // 2, r - r // 2]
with ProcessPoolExecutor(2) as ex:
    def share_table(part, fn, families, reps, seed, fmt):
        """Share of series with a reported change per (family, size), printed and kept in ``res[part]``."""
        for name in families:
            row = []
            for n in sizes:
                jobs = [(name, n, r, seed + 1000 * k + n) for k, r in enumerate(split(reps))]
                v = sum(ex.map(fn, jobs)) / reps
                res.setdefault(part, {}).setdefault(name, {})[n] = v
                row.append(f"{100 * v:{fmt}}")
            print(f"{name:18s}" + " ".join(row), flush=True)

    parts = a.part.split(',')
    if 'null' in parts:
        print(f"null ({a.nnull}/cell) sizes {sizes}")
        share_table('null', npw._null, a.families.split(',') if a.families else npw.NULL_FAMILIES, a.nnull,
                    a.null_seed, "6.2f")
        allv = [v for d in res['null'].values() for v in d.values()]
        print(f"null mean {100*np.mean(allv):.3f} % max {100*max(allv):.2f} %")
    if 'power' in parts:
        print(f"power ({a.npow}/cell) ratio 1.05 / 1.10 / 1.20")
        for name in npw.POWER_FAMILIES:
            row = []
            for n in sizes:
                for ratio in (1.05, 1.1, 1.2):
                    ps = list(ex.map(npw._power, [(name, n, ratio, r, 999 + 77 * k + n) for k, r in enumerate(split(a.npow))]))
                    h = sum(p[0] for p in ps) / a.npow; e = sum(p[1] for p in ps) / a.npow
                    res.setdefault('power', {}).setdefault(name, {})[f"{n}/{ratio}"] = [h, e]
                    row.append(f"{100*h:5.1f}")
                row.append('|')
            print(f"{name:18s}" + " ".join(row), flush=True)
    if 'hard' in parts:
        print(f"hard ({a.npow}/cell)")
        share_table('hard', npw._hard, fam.MOVING, a.npow, 555, "6.1f")
    if 'episodes' in parts:
        print(f"episodes, both edges ({a.nep}/cell) ratio 1.05 / 1.10 / 1.20")
        for name in ("g", "ar=0.5", "t3"):
            row = []
            for n in sizes:
                for ratio in (1.05, 1.1, 1.2):
                    h = sum(ex.map(_episode, [(name, n, ratio, r, 4242 + 31 * k + n) for k, r in enumerate(split(a.nep))]))
                    res.setdefault('episodes', {}).setdefault(name, {})[f"{n}/{ratio}"] = h / a.nep
                    row.append(f"{100 * h / a.nep:5.1f}")
                row.append('|')
            print(f"{name:18s}" + " ".join(row), flush=True)
print(f"{time.time()-t0:.0f} s")
if a.json: open(a.json, 'w').write(json.dumps(res))
