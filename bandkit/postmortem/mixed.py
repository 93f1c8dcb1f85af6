"""Runs whose level changes inside the run: bands made of such runs, and outlier runs between two levels.

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

from .classify import Classification, _verdict, gate_steps
from .noise import median

#: How much wider (median within-run range) a band's runs must be than the main band's runs to be read as mixed.
SPREAD_FACTOR = 3.0

#: Share of the gap between the two levels around an outlier run's mean that its values must span for the run to
#: count as one whose level changed inside it (regex_dna run 6: 455, 454, 393 ms spans 0.50 of 334 -> 449 ms).
STRADDLE = 0.4

#: Verdicts whose bands are checked (scattered bands; a step's or an episode's blocks are consecutive runs).
CHECKED = ("bimodal", "bands")


def run_extremes(values: np.ndarray, run: np.ndarray, runs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest finite value of each run in ``runs`` (the run table's run numbers), NaN where the run
    has no finite value."""
    ok = np.isfinite(values)
    v, r = (values, run) if ok.all() else (values[ok], run[ok])
    if v.size and len(runs) and bool(np.all(r[1:] >= r[:-1])):  # values grouped by run, in run order (pyperf)
        starts = np.flatnonzero(np.concatenate(([True], r[1:] != r[:-1])))
        if starts.size == len(runs) and np.array_equal(r[starts], runs):
            return np.minimum.reduceat(v, starts), np.maximum.reduceat(v, starts)
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


def mixed_bands(cl: Classification, tlo: np.ndarray, thi: np.ndarray, counts: np.ndarray) -> list[int]:
    """Bands of ``cl`` (indices into ``cl.levels``) whose runs mix the main level with far values inside the run.
    ``tlo``/``thi``: each run's smallest/largest value on the scale of ``cl.x`` (:func:`on_scale`); ``counts``:
    values per run."""
    if cl.verdict not in CHECKED or cl.x is None or len(cl.levels) < 2:
        return []
    labels = cl.labels
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


def straddling_runs(cl: Classification, tlo: np.ndarray, thi: np.ndarray, counts: np.ndarray) -> list[int]:
    """Outlier runs (positions) whose mean lies between two of ``cl``'s levels and whose values inside the run
    span at least ``STRADDLE`` of the gap between those two levels: runs during which the level changed
    (speedpython 2020 regex_dna run 6: 455, 454, 393 ms between levels at 334 and 449 ms; mako run 3: 40.5,
    38.6, 26.9 ms at the step from 40.8 to 26.9 ms), not runs that are slow as a whole."""
    levels = np.sort(np.asarray(cl.levels, dtype=np.float64))
    if cl.x is None or levels.size < 2:
        return []
    out = []
    for i in np.flatnonzero(cl.labels < 0):
        if counts[i] < 2 or not np.isfinite(tlo[i]):
            continue
        k = int(np.searchsorted(levels, cl.x[i]))
        if 0 < k < levels.size and thi[i] - tlo[i] >= STRADDLE * (levels[k] - levels[k - 1]):
            out.append(int(i))
    return out


def on_scale(lo: np.ndarray, hi: np.ndarray, scale: float | None):
    """The runs' extremes on the scale of ``Classification.x`` (``scale``: ``None`` when it is the log of the means,
    else their divisor, see :func:`.classify.ratio_scale`), or None when they cannot be put there."""
    if scale is None:
        ok = np.isfinite(lo)
        if not np.all(lo[ok] > 0):
            return None
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.log(lo), np.log(hi)
    return (lo / scale, hi / scale) if scale > 0 else None


def settle_mixed(cl: Classification, lo: np.ndarray, hi: np.ndarray, counts: np.ndarray,
                 scale: float | None, positions: bool = True) -> tuple[Classification, tuple[int, ...]]:
    """``cl`` with its mixed bands' runs made outliers and the verdict decided again (the same rules as
    :func:`.classify.classify`, its step gate included), and the positions of the runs whose level changes inside
    the run (those moved, and outlier runs between two levels: :func:`straddling_runs`; ``positions=False``: only
    those moved); ``cl`` itself when no band is mixed."""
    t = on_scale(lo, hi, scale)
    if t is None:
        return cl, ()
    tlo, thi = t
    bad = mixed_bands(cl, tlo, thi, counts)
    if not bad:
        return cl, (tuple(straddling_runs(cl, tlo, thi, counts)) if positions else ())
    labels = cl.labels.copy()
    moved = np.flatnonzero(np.isin(labels, bad))
    labels[moved] = -1
    keep = [k for k in range(len(cl.levels)) if k not in bad]
    remap = np.full(len(cl.levels) + 1, -1, np.int64)
    remap[keep] = np.arange(len(keep))
    labels = np.where(labels >= 0, remap[np.maximum(labels, 0)], -1)
    levels = np.asarray(cl.levels)[keep]
    out = gate_steps(_verdict(cl.x, labels, levels, cl.noise, cl.gates, cl.changes, cl.test_scale))
    return out, tuple(sorted({int(i) for i in moved} | set(straddling_runs(out, tlo, thi, counts))))
