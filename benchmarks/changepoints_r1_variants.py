"""Variants of the AR(1) correction of the short-series unit (noise.short_unit), each with its own table rows.

Usage: python benchmarks/changepoints_r1_variants.py --variant cur|bc|scale|floor|excess [--c C] [--recal 4000]
       [--sizes 20] [--nnull 2000] [--npow 1000] [--t3ar 8000] [--hard 0] [--extra ar=0.7,ar=0.8,ar=0.6+t3]

Replaces ``noise.short_unit`` by a copy whose unit is the pooled SD around the 1-2 changes the BIC picks times
the long-run factor of r1', r1' a function of the residuals' raw lag-1 autocorrelation r1 (clipped to [0, 0.9]):
``cur`` r1 (the unit of RESULTS_changepoints.md §9); ``bc`` r1 + C (k + 1)(1 + 3 r1) / n (Kendall-type bias
correction for k + 1 fitted means); ``scale`` C r1 (C = 0: the table absorbs the autocorrelation; what
noise.r1_weight does at 20 values); ``floor`` max(r1, C); ``excess`` only the long-run factor beyond that of
AR(C). The unit-root gate stays on r1. The table rows at ``--sizes`` (min_size >= 2, l2 and robust) are
recalibrated in memory (changepoints_calibrate.simulate, ``--recal`` series per family, seed 12345), then: the
null families of changepoints_nullpower (``--nnull`` per cell, seed 777, plus the ``--extra`` families outside
the calibration), t3 + AR 0.5 on ``--t3ar`` more (seed 31337), 5 % steps (``--npow``), and with ``--hard N`` the
moving-level families. Exploration, not the product. Results: benchmarks/RESULTS_changepoints.md §10.
"""
import sys, math, argparse, time, json
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import multiprocessing
multiprocessing.set_start_method("fork", force=True)
import numpy as np
from bandkit.changepoints import noise as N, _calibration as C, significance as sig

ap = argparse.ArgumentParser()
ap.add_argument('--variant', default='cur'); ap.add_argument('--c', type=float, default=1.0)
ap.add_argument('--recal', type=int, default=4000); ap.add_argument('--calseed', type=int, default=12345)
ap.add_argument('--sizes', default='20'); ap.add_argument('--nnull', type=int, default=2000)
ap.add_argument('--npow', type=int, default=1000); ap.add_argument('--t3ar', type=int, default=8000)
ap.add_argument('--part', default='null,power,t3ar'); ap.add_argument('--json', default=''); ap.add_argument('--extra', default='ar=0.7,ar=0.8,ar=0.6+t3'); ap.add_argument('--hard', type=int, default=0)
a = ap.parse_args()
_orig = N.short_unit

def short_unit(x, nm, min_size, tick, grid, wander):
    m = max(int(min_size), 2)
    if x.size < 3 * m + 1:
        return None
    fits = N.segment_fits(x, m)
    k = N.segments_choice(fits, x.size)
    if k in ("line", "walk", 0):
        return None
    ss, r = fits[k]
    n = x.size
    raw = float(r[:-1] @ r[1:] / ss) if ss > 0 else 0.0
    if a.variant == 'cur':
        r1 = raw
    elif a.variant == 'bc':   # Kendall-type bias correction, k + 1 fitted means
        r1 = raw + a.c * (k + 1) * (1 + 3 * max(raw, 0.0)) / n
    elif a.variant == 'scale':
        r1 = a.c * raw
    elif a.variant == 'floor':  # the unit's r1 at least c
        r1 = max(raw, a.c)
    elif a.variant == 'excess':  # only memory beyond LR(c) inflates the unit
        rr = float(np.clip(raw, 0.0, N.RHO_MAX))
        lr = (1 + rr) / (1 - rr) * (1 - a.c) / (1 + a.c)
        r1 = (lr - 1) / (lr + 1) if lr > 1 else 0.0
    r1 = float(np.clip(r1, 0.0, N.RHO_MAX))
    gate = float(np.clip(raw, 0.0, N.RHO_MAX))
    if nm.model == "unit_root" and gate >= 0.5:
        return None
    sp = math.sqrt(ss / (n - k - 1))
    s = sp * math.sqrt((1.0 + r1) / (1.0 - r1))
    if grid > 0:
        s = max(s, min(nm.sigma_marg, 0.5 * grid))
    if not s > 0:
        return None
    return N.NoiseModel(nm.sigma, r1, min(max(sp, 1e-300), s), s, tick, float(wander), N.wander_kappa(wander, n), "segments")
N.short_unit = short_unit

import changepoints_calibrate as cal, changepoints_families as fam, changepoints_nullpower as npw
from concurrent.futures import ProcessPoolExecutor
sizes = [int(s) for s in a.sizes.split(',')]
t0 = time.time()
res = {'variant': a.variant, 'c': a.c}
if a.recal:
    out = cal.simulate(fam.CALIBRATION, sizes + ([50] if 50 not in sizes else []), a.recal, 2, seed=a.calseed)
    for cost in ('l2', 'robust'):
        rows = dict(cal.table(out, cost))
        old = [(n, t) for n, t in C.TABLE[(cost, 2)] if n not in sizes]
        C.TABLE[(cost, 2)] = tuple(sorted(old + [(n, tuple(rows[n])) for n in sizes]))
        print(cost, 'rows', [(n, rows[n][6]) for n in sizes], flush=True)
        # which family sets the 1 % point
        for n in sizes:
            pools = cal.sup_survival(out, cost, n)
            q = sorted(((float(np.quantile(p, 0.99, method='higher')), nm) for nm, p in pools), reverse=True)[:3]
            print('   ', cost, n, 'top 1% quantiles', [(nm, round(v, 2)) for v, nm in q], flush=True)
    sig._table.cache_clear()
def split(r): return [r // 2, r - r // 2]
with ProcessPoolExecutor(2) as ex:
    parts = a.part.split(',')
    for n in sizes:
        if 'null' in parts:
            vals = {}
            for name in npw.NULL_FAMILIES:
                v = sum(ex.map(npw._null, [(name, n, r, 777 + 1000 * k + n) for k, r in enumerate(split(a.nnull))])) / a.nnull
                vals[name] = v
            for name in [e for e in a.extra.split(',') if e]:
                vals['x:' + name] = sum(ex.map(npw._null, [(name, n, r, 777 + 1000 * k + n) for k, r in enumerate(split(a.nnull))])) / a.nnull
            res[f'null{n}'] = vals
            print(n, 'null', ' '.join(f'{k}={100*v:.2f}' for k, v in vals.items() if v > 0), 'mean %.3f max %.2f' % (100*np.mean(list(vals.values())), 100*max(vals.values())), flush=True)
        if 't3ar' in parts:
            v = sum(ex.map(npw._null, [('t3+ar=0.5', n, r, 31337 + 1000 * k + n) for k, r in enumerate(split(a.t3ar))]))
            res[f't3ar{n}'] = v / a.t3ar
            print(n, f't3+ar held-out {a.t3ar}: {100*v/a.t3ar:.2f} %', flush=True)
        if 'power' in parts:
            row = {}
            for name in npw.POWER_FAMILIES:
                ps = list(ex.map(npw._power, [(name, n, 1.05, r, 999 + 77 * k + n) for k, r in enumerate(split(a.npow))]))
                row[name] = sum(p[0] for p in ps) / a.npow
            res[f'power{n}'] = row
            print(n, 'power 5%', ' '.join(f'{k}={100*v:.1f}' for k, v in row.items()), flush=True)
        if a.hard:
            row = {}
            for name in fam.MOVING:
                row[name] = sum(ex.map(npw._hard, [(name, n, r, 555 + 1000 * k + n) for k, r in enumerate(split(a.hard))])) / a.hard
            res[f'hard{n}'] = row
            print(n, 'hard', ' '.join(f'{k}={100*v:.1f}' for k, v in row.items()), flush=True)
print(f'{time.time()-t0:.0f} s')
if a.json:
    json.dump(res, open(a.json, 'w'))
