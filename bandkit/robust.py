"""Robust statistics shared by the analyses (ground floor): the MAD scale, modified z-scores, and the
sampling period of a time column. One home, so that every analysis uses the same constant and rule.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

#: 1 / Phi^-1(3/4): the median absolute deviation times this estimates the standard deviation of
#: normal noise.
MAD_TO_SD = 1.482602218505602


def exp_ratio(log_ratio: float) -> float:
    """exp of a log ratio, saturated at e^+-700: values spanning more than 1e300 (a log difference up to
    ~1,450) give a huge but finite ratio instead of an OverflowError."""
    return math.exp(max(-700.0, min(700.0, log_ratio)))


def mad(x) -> float:
    """Median absolute deviation from the median (no scaling)."""
    x = np.asarray(x, dtype=np.float64)
    return np.median(np.abs(x - np.median(x)))


def robust_sd(x) -> float:
    """Robust standard deviation: :data:`MAD_TO_SD` x MAD (0 when most values are tied)."""
    return MAD_TO_SD * mad(x)


def diff_noise_sd(x) -> float:
    """Noise standard deviation of a piecewise-constant series from its first differences:
    ``robust_sd(diff(x)) / sqrt(2)`` (each level change moves one difference only)."""
    return robust_sd(np.diff(np.asarray(x, dtype=np.float64))) / np.sqrt(2.0)


def modified_z(x: Sequence[float | None]) -> list[float | None]:
    """Modified z-scores (Iglewicz & Hoaglin 1993) ``(x - median) / (MAD_TO_SD x MAD)``; None for
    missing values, and for all when fewer than 3 are given.

    When the MAD is 0 the mean absolute deviation x sqrt(pi / 2) (the SD of normal noise) is the scale;
    when that is 0 too, values equal to the median get 0 and any other value +-inf.
    """
    a = np.array([np.nan if v is None else float(v) for v in x], dtype=np.float64)
    ok = np.isfinite(a)
    out: list[float | None] = [None] * len(a)
    if ok.sum() < 3:
        return out
    med = float(np.median(a[ok]))
    dev = np.abs(a[ok] - med)
    m = float(np.median(dev))
    if m > 0:
        scale = MAD_TO_SD * m
    else:
        meanad = float(np.mean(dev))
        scale = meanad * math.sqrt(math.pi / 2.0) if meanad > 0 else 0.0
    for i in np.flatnonzero(ok):
        d = a[i] - med
        if scale > 0:
            out[i] = float(d / scale)
        else:
            out[i] = 0.0 if d == 0 else (math.inf if d > 0 else -math.inf)
    return out


def median_period(times, *, grid: bool = False) -> float | None:
    """Typical spacing of increasing ``times`` (same unit): the median of the positive gaps.

    ``grid``: the spacing of the sampling grid when some rows are off it. FTQ writes catch-up rows
    ~20 ns apart after a stall, one per missed quantum, which pull the plain median down (below the
    grid when they are more than half of the rows). Two estimates, the median of the gaps above half
    of the plain median and the median of those above half of the mean gap (the span per row, right
    when catch-up rows fill the stalls); of those that at least 10 % of the gaps agree with (within
    10 %), the one closest to the span per row wins (one row per quantum). None for fewer than two
    times or no positive gap.
    """
    t = np.asarray(times)
    if t.size < 2:
        return None
    d = np.diff(t).astype(np.float64)  # integer ticks: differences before the float conversion
    d = d[d > 0]
    if not d.size:
        return None
    m = float(np.median(d))
    if not grid:
        return m
    per_row = float(np.mean(d))
    best, off = m, np.inf
    for ref in (m, per_row):
        above = d[d > 0.5 * ref]
        if not above.size:
            continue
        est = float(np.median(above))
        if np.count_nonzero(np.abs(d - est) <= 0.1 * est) < 0.1 * d.size:
            continue
        dist = abs(np.log(est / per_row))
        if dist < off:
            best, off = est, dist
    return best


#: Up to this many values :func:`median` (and ``postmortem.noise.quantiles``) sorts a copy (NaNs last, as a
#: partition puts them) instead of partitioning.
SORT_MAX = 64


def median(a: np.ndarray) -> np.float64:
    """``np.median`` of a 1-D float array, bit for bit (the middle value, or the mean of the two middle
    ones; NaN if any value is NaN), without its per-call overhead (~10 us; the post-mortem of a
    60-benchmark file asks ~3,500 medians of short arrays; its report's summaries ~250 more)."""
    n = a.size
    if n == 0:
        return np.median(a)  # (NaN and numpy's warning)
    h = n // 2
    if n <= SORT_MAX:  # (the same order statistics; a copy's in-place sort costs ~1/6 of a partition here)
        p = a.copy()
        p.sort()
    else:
        p = np.partition(a, (h, n - 1) if n % 2 else (h - 1, h, n - 1))
    if n % 2:
        return p[n - 1] if p[n - 1] != p[n - 1] else 0.0 + p[h]  # (np.mean's sum starts at +0.0)
    if p[n - 1] != p[n - 1]:
        return p[n - 1]
    return (0.0 + p[h - 1] + p[h]) / 2.0


def distinct(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)`` of a 1-D array (sorted distinct values; NaNs, which sort last, as one), the same
    array: the same sort, the same comparisons - without np.unique's checks, which import ``numpy.ma``
    (~8 ms on the first call of a process) and cost ~10 us a call."""
    s = np.sort(a)
    n = s.size
    if not n:
        return s
    keep = np.empty(n, dtype=bool)
    keep[0] = True
    if s.dtype.kind in "cfmM" and np.isnan(s[-1]):  # (NaNs sort last: keep the first of them)
        first_nan = int(np.searchsorted(s, s[-1], side="left"))
        np.not_equal(s[1:first_nan], s[:first_nan - 1], out=keep[1:first_nan])
        keep[first_nan] = True
        keep[first_nan + 1:] = False
    else:
        np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def detect_tick(values: np.ndarray, max_decimals: int = 6, max_divisor: int = 10) -> float | None:
    """The quantisation step of ``values`` (e.g. 1.0 for whole milliseconds), or None when they are
    not on a grid. Decimal grids exactly (greatest common divisor of the scaled differences between
    distinct values, up to ``max_decimals`` decimals); other grids (a clock of 4.9 units) as the
    smallest gap between distinct values, or an integer fraction of it up to ``max_divisor``, that
    every gap is a whole multiple of (to 1e-6 of the gap). Two distinct values on a decimal grid give the unit they
    are written in (70 and 100 -> 1, not 30: a series of only those two readings would take its own level gap for
    the clock's resolution)."""
    v = distinct(np.asarray(values, dtype=np.float64).ravel())
    if not (v.size and math.isfinite(v[0]) and math.isfinite(v[-1])):  # (sorted, NaNs last: else all finite)
        v = v[np.isfinite(v)]
    if v.size < 2 or max(-float(v[0]), float(v[-1])) > 1e12:  # (the largest |v| of sorted values)
        return None
    head = v[:_HEAD].tolist()  # (a grid that a few values miss is no grid: those are tested first, in Python)
    x0 = head[0]
    for d in range(max_decimals + 1):
        f = 10.0 ** d
        if abs(x0 * f - round(x0 * f)) > 1e-6 * max(1.0, abs(x0 * f)):  # (all()'s first test, inline)
            continue
        if not all(abs(x * f - round(x * f)) <= 1e-6 * max(1.0, abs(x * f)) for x in head):
            continue
        s = v * f
        r = np.round(s)
        if np.all(np.abs(s - r) <= 1e-6 * np.maximum(1.0, np.abs(s))):
            g = int(np.gcd.reduce(np.diff(r).astype(np.int64)))
            if v.size == 2:  # one gap is its own gcd: not a grid that is seen, so the unit the values are written in
                return 1.0 / f
            return g / f if g > 0 else None
    if v.size > 100_000:
        return None
    gaps = v[1:] - v[:-1]  # (np.diff's subtraction)
    d0 = float(gaps.min())
    ghead = gaps[:_HEAD].tolist()
    g0 = ghead[0]
    for k in range(1, max_divisor + 1):
        step = d0 / k
        if abs(g0 / step - round(g0 / step)) > 1e-6 * max(1.0, g0 / step):  # (all()'s first test, inline)
            continue
        if not all(abs(g / step - round(g / step)) <= 1e-6 * max(1.0, g / step) for g in ghead):
            continue
        q = gaps / step
        if np.all(np.abs(q - np.round(q)) <= 1e-6 * np.maximum(1.0, q)):
            return step
    return None


def decimal_resolution(values, max_decimals: int = 6) -> float | None:
    """The reading unit of values written with few decimals: ``10**-d`` for the fewest decimals ``d``
    (<= ``max_decimals``) that write every value (0.46, 0.43 -> 0.01; 9, 10 -> 1), None for values of
    full float precision (timer readings). Unlike :func:`detect_tick` it is the unit of the writing, not
    the greatest common step (0.43 and 0.46 alone are on a 0.03 grid, but written to 0.01)."""
    v = [x for x in np.asarray(values, dtype=np.float64).ravel().tolist() if math.isfinite(x)]
    if not v or max(abs(x) for x in v) > 1e12:
        return None
    return _decimals_of(v, max_decimals)


def decimal_resolution_sorted(v: list[float], max_decimals: int = 6) -> float | None:
    """:func:`decimal_resolution` of ``v``, a sorted list of finite Python floats (what
    :func:`bandkit.postmortem.magnitude.quantum` holds): the same tests, without the round trip through
    an array and the finite filter, the largest magnitude read from the two ends."""
    if not v or max(abs(v[0]), abs(v[-1])) > 1e12:
        return None
    return _decimals_of(v, max_decimals)


def _decimals_of(v: list[float], max_decimals: int) -> float | None:
    for d in range(max_decimals + 1):
        f = 10.0 ** d
        y = v[0] * f
        if abs(y - round(y)) > 1e-6 * abs(y):  # (all()'s first test, inline: timer readings fail here)
            continue
        if all(abs(x * f - round(x * f)) <= 1e-6 * abs(x * f) for x in v):  # (relative: 5e-7 is not 0)
            return 1.0 / f
    return None


#: Values (and gaps) :func:`detect_tick` tries in plain Python before testing all of them: the same
#: test per value, so a grid that one of them misses is skipped without numpy's per-call costs.
_HEAD = 4
