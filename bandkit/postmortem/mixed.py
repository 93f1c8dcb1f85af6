"""Bands made of runs that mix the main level with slower (or faster) values inside the run.

The post-mortem classifies per-run *means*. When a few runs each hold some values at the main level and some far
from it (pyperf speedpython 2020 sympy_expand: run 2 = 1.006, 1.111, 1.367 s, while 13 runs sit at 1.00-1.02 s),
their means land between the two value levels and can form "bands" that no run sits at (there: "3 levels: 1.01 s,
1.17 s, 1.22 s"). Such a band is not a level of the run sequence: its runs are disturbed runs, i.e. outliers.

A band other than the most populated one is *mixed* when, for every one of its runs (each with >= 2 values), the
run's value nearest the main band lies nearer the main band's runs than the band's own level (on the scale the
classification compares means on), and the band's runs spread inside the run at least ``SPREAD_FACTOR`` times as
much as the main band's runs do (median within-run range). A true level shift moves every value of a run, and
keeps the within-run spread: neither condition holds there.
"""
from __future__ import annotations

import numpy as np

from .classify import Classification, _verdict
from .noise import median

#: How much wider (median within-run range) a band's runs must be than the main band's runs to be read as mixed.
SPREAD_FACTOR = 3.0

#: Verdicts whose bands are checked (scattered bands; a step's or an episode's blocks are consecutive runs).
CHECKED = ("bimodal", "bands")


def run_extremes(values: np.ndarray, run: np.ndarray, runs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest finite value of each run in ``runs`` (the run table's run numbers), NaN where the run
    has no finite value."""
    ok = np.isfinite(values)
    v, r = values[ok], run[ok]
    lo = np.full(len(runs), np.nan)
    hi = np.full(len(runs), np.nan)
    if v.size == 0:
        return lo, hi
    pos = np.searchsorted(runs, r)
    pos = np.clip(pos, 0, len(runs) - 1)
    hit = runs[pos] == r
    np.fmin.at(lo, pos[hit], v[hit])
    np.fmax.at(hi, pos[hit], v[hit])
    return lo, hi


def mixed_bands(cl: Classification, lo: np.ndarray, hi: np.ndarray, counts: np.ndarray,
                scale: float | None) -> list[int]:
    """Bands of ``cl`` (indices into ``cl.levels``) whose runs mix the main level with far values inside the run.
    ``lo``/``hi``: each run's smallest/largest value; ``counts``: values per run; ``scale``: ``None`` when
    ``cl.x`` is the log of the means, else the divisor of the means (see :func:`.classify.ratio_scale`)."""
    if cl.verdict not in CHECKED or cl.x is None or len(cl.levels) < 2:
        return []
    labels = cl.labels
    if scale is None:
        if not (np.all(lo[labels >= 0] > 0)):
            return []
        tlo, thi = np.log(lo), np.log(hi)
    elif scale > 0:
        tlo, thi = lo / scale, hi / scale
    else:
        return []
    sizes = np.bincount(labels[labels >= 0], minlength=len(cl.levels))
    main = int(np.argmax(sizes))
    im = np.flatnonzero(labels == main)
    if im.size < 2:
        return []
    main_lo, main_hi = median(tlo[im]), median(thi[im])
    main_spread = median(thi[im] - tlo[im])
    out = []
    for k in range(len(cl.levels)):
        if k == main:
            continue
        ik = np.flatnonzero(labels == k)
        if ik.size == 0 or np.any(counts[ik] < 2):
            continue
        gap = float(cl.levels[k] - cl.levels[main])
        # the run's value nearest the main band, measured from the main band's runs' same extreme
        near = (tlo[ik] - main_lo) if gap > 0 else (main_hi - thi[ik])
        if not np.all(near < 0.5 * abs(gap)):
            continue
        if median(thi[ik] - tlo[ik]) < max(SPREAD_FACTOR * main_spread, 0.5 * abs(gap)):
            continue
        out.append(k)
    return out


def settle_mixed(cl: Classification, lo: np.ndarray, hi: np.ndarray, counts: np.ndarray,
                 scale: float | None) -> tuple[Classification, tuple[int, ...]]:
    """``cl`` with its mixed bands' runs made outliers and the verdict decided again (the same rules as
    :func:`.classify.classify`), and the positions of the runs moved; ``cl`` itself when no band is mixed."""
    bad = mixed_bands(cl, lo, hi, counts, scale)
    if not bad:
        return cl, ()
    labels = cl.labels.copy()
    moved = np.flatnonzero(np.isin(labels, bad))
    labels[moved] = -1
    keep = [k for k in range(len(cl.levels)) if k not in bad]
    remap = np.full(len(cl.levels) + 1, -1, np.int64)
    remap[keep] = np.arange(len(keep))
    labels = np.where(labels >= 0, remap[np.maximum(labels, 0)], -1)
    levels = np.asarray(cl.levels)[keep]
    out = _verdict(cl.x, labels, levels, cl.noise, cl.gates, cl.changes, cl.test_scale)
    return out, tuple(int(i) for i in moved)
