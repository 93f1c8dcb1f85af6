"""Robust O(n) building blocks of the change-point detector, compiled with numba.

* :func:`clock_tick` — the grid step of quantised data (values on a clock tick), 0 for continuous data.
* :func:`robust_sd` — 1.4826 x MAD, tie-aware: on quantised data the median of the absolute deviations is
  interpolated inside its grid cell (grouped-data median), so it does not collapse to 0 when most values repeat;
  ties off any grid (>= 5 % of the values at the median, e.g. log-quantised timings) use the smallest non-zero
  deviation as the local grid step.
* :func:`m_scale` — one-step winsorised (Huber) standard deviation started from :func:`robust_sd`: bounded
  influence like the MAD, but ~90 % efficient for Gaussian data instead of 37 % (it matters at 20 points).
* :func:`running_median` — running median over ``width`` values with truncated windows at the ends (an end
  value is not its own neighbour, so a spike at the first or last value is still an outlier).
* :func:`segment_stats` — mean, SD, median and 1.4826 x MAD of every segment in one call (quickselect, O(n) total).

Speed without changing a value: medians of long arrays are selected without a copy (:func:`_select_pair`:
pivots from a sample, one branch-free pass, selection in a small buffer; a quickselect of a copy when the
sample misleads); the width-9 running median of the cost choice is a median-of-9 network (19 min/max pairs,
no branches; 20x the sliding window); the spike scan over every value is branch-free (noise makes the branch
unpredictable). Each kernel is tested equal to the plain computation (tests/test_changepoints_kernels.py).

Large inputs are subsampled where a scale is all that is wanted (:func:`stride_for`): 65,536 evenly spaced
first differences estimate a noise scale to ~0.5 %, so the noise model stays O(n) in memory traffic and cheap.
"""
from __future__ import annotations

import math

import numpy as np
from .._numba import njit  # a numba kernel, run without numba on short inputs (see bandkit._numba)

from ..robust import MAD_TO_SD  # 1 / Phi^-1(3/4) (one home for the constant)

HUBER_C = 2.5  # winsorising bound of the M-scale, in robust SDs
_E_WINSOR = 0.9775634  # E[min(Z^2, 2.5^2)] for Z ~ N(0, 1): consistency of the M-scale
SUBSAMPLE = 65536  # differences used for a noise scale on long series


def stride_for(n: int, target: int = SUBSAMPLE) -> int:
    """Stride giving about ``target`` evenly spaced samples of ``n`` (1 when n <= 2 target)."""
    return 1 if n <= 2 * target else n // target


@njit(cache=True, nogil=True)
def _select(a, k):
    """k-th smallest of ``a`` (0-based), partially reordering ``a`` in place (quickselect, median of 3)."""
    lo = 0
    hi = a.shape[0] - 1
    while hi > lo:
        mid = (lo + hi) >> 1
        # median of three as pivot
        if a[mid] < a[lo]:
            a[mid], a[lo] = a[lo], a[mid]
        if a[hi] < a[lo]:
            a[hi], a[lo] = a[lo], a[hi]
        if a[hi] < a[mid]:
            a[hi], a[mid] = a[mid], a[hi]
        p = a[mid]
        i = lo
        j = hi
        while i <= j:
            while a[i] < p:
                i += 1
            while a[j] > p:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return a[k]
    return a[k]


@njit(cache=True, nogil=True)
def _median_inplace(a):
    """Median of ``a`` (reorders ``a``); the mean of the two middle values for an even count."""
    m = a.shape[0]
    if m == 0:
        return np.nan
    h = m // 2
    hi = _select(a, h)
    if m % 2 == 1:
        return hi
    lo = a[0]
    for i in range(h):  # after selecting h, a[:h] holds the h smallest values
        if a[i] > lo:
            lo = a[i]
    return 0.5 * (lo + hi)


SELECT_MIN = 4096  # below this many values a median is a quickselect of a copy


@njit(cache=True, nogil=True)
def _pair_copy(x, c, absdev, k):
    """(k-1)-th (NaN for k = 0) and k-th smallest of v = x (or |x - c| with ``absdev``), by quickselect of a copy."""
    m = x.shape[0]
    w = np.empty(m)
    for i in range(m):
        w[i] = abs(x[i] - c) if absdev else x[i]
    hi = _select(w, k)
    lo = np.nan
    if k > 0:
        lo = w[0]
        for i in range(k):  # after selecting k, w[:k] holds the k smallest values
            if w[i] > lo:
                lo = w[i]
    return lo, hi


@njit(cache=True, nogil=True)
def _rank_in(r, below, maxb, lo_p, eqlo, buf, nin, hi_p, eqhi):
    """Value of rank ``r`` from the counts of :func:`_select_pair` (NaN when it is outside the bracket)."""
    if r < below:
        return maxb if r == below - 1 else np.nan
    r -= below
    if r < eqlo:
        return lo_p
    r -= eqlo
    if r < nin:
        return _select(buf[:nin], r)
    r -= nin
    if r < eqhi:
        return hi_p
    return np.nan


@njit(cache=True, nogil=True)
def _select_pair(x, c, absdev, k):
    """Same as :func:`_pair_copy` without copying or reordering ``x``: two pivots bracketing rank k are taken
    from an evenly spaced sample of ~m^(2/3) values; one branch-free pass counts the values below, equal to
    and above them and gathers those strictly between them (a few per cent) into a small buffer, where the
    ranks are selected (Floyd & Rivest's idea; ties at a pivot are counted, not gathered, so quantised data
    stays in the fast path). Exact: when the sample misleads (a rank outside the bracket, or too many values
    inside it) or a value is NaN, the copy is selected instead."""
    m = x.shape[0]
    if m < SELECT_MIN:
        return _pair_copy(x, c, absdev, k)
    ns = int(m ** (2.0 / 3.0))
    step = m // ns
    samp = np.empty(ns)
    off = step // 2
    for j in range(ns):
        v = x[off + j * step]
        samp[j] = abs(v - c) if absdev else v
    pos = (k + 0.5) * ns / m
    g = 2.0 * math.sqrt(ns)  # 4 SDs of the sample rank of the k-th value
    r1 = int(pos - g)
    r2 = int(pos + g) + 1
    lo_p = -np.inf if r1 < 0 else _select(samp, r1)
    hi_p = np.inf if r2 >= ns else _select(samp, r2)
    cap = int(2.0 * (r2 - r1 + 1) * m / ns) + 64
    if cap > m:
        cap = m
    buf = np.empty(cap + 1)
    below = 0
    eqlo = 0
    eqhi = 0
    nin = 0
    nan = 0
    maxb = -np.inf
    for i in range(m):
        v = abs(x[i] - c) if absdev else x[i]
        b = v < lo_p
        below += b
        u = v if b else -np.inf
        maxb = u if u > maxb else maxb
        e = v == lo_p
        eqlo += e
        eqhi += (v == hi_p) & (not e)
        buf[nin] = v
        nin += (v > lo_p) & (v < hi_p)
        nan += v != v
        if nin >= cap:
            break
    if nin >= cap or nan > 0:
        return _pair_copy(x, c, absdev, k)
    hi = _rank_in(k, below, maxb, lo_p, eqlo, buf, nin, hi_p, eqhi)
    lo = _rank_in(k - 1, below, maxb, lo_p, eqlo, buf, nin, hi_p, eqhi) if k > 0 else 0.0
    if hi != hi or lo != lo:
        return _pair_copy(x, c, absdev, k)
    return (lo if k > 0 else np.nan), hi


@njit(cache=True, nogil=True)
def _median_of(x, c, absdev):
    """Median of v = x (or |x - c|) without touching ``x``; the same value as :func:`_median_inplace` of v."""
    m = x.shape[0]
    if m == 0:
        return np.nan
    h = m // 2
    lo, hi = _select_pair(x, c, absdev, h)
    return hi if m % 2 == 1 else 0.5 * (lo + hi)


@njit(cache=True, nogil=True)
def _robust_sd(d, tick):
    """(1.4826 MAD, median) of ``d``; on a grid of step ``tick`` > 0 the MAD is interpolated in its cell, and
    so it is when >= 5 % of the values are tied at the median (grid: the smallest non-zero deviation)."""
    m = d.shape[0]
    if m == 0:
        return 0.0, 0.0
    med = _median_of(d, 0.0, False)
    if tick > 0.0:
        med = np.rint(med / tick) * tick
        w = np.empty(m)
        for i in range(m):
            w[i] = abs(d[i] - med)
    else:
        # ties off any grid (log-quantised timings: many differences exactly 0, the others log(k'/k)): with
        # >= 5 % of the values at the median and a coarse local grid (the smallest deviation above float
        # noise, >= 1/20 of the plain MAD or the plain MAD 0), the MAD is interpolated on that grid (it
        # collapsed to 0, or to the first non-zero deviation, when ties reach half the values)
        top = 0.0
        for i in range(m):
            a = abs(d[i] - med)
            if a > top:
                top = a
        tol = 1e-9 * top
        ties = 0
        t = np.inf
        for i in range(m):
            a = abs(d[i] - med)
            if a <= tol:
                ties += 1
            elif a < t:
                t = a
        plain = _median_of(d, med, True)
        if ties < 0.05 * m or ties == m or (plain > 0.0 and t < 0.05 * plain):
            return MAD_TO_SD * plain, med
        w = np.empty(m)
        for i in range(m):
            a = abs(d[i] - med)
            w[i] = 0.0 if a <= tol else a
        tick = t
    # grouped-data median of |d - med| on cells [0, tick/2), [(k - 1/2) tick, (k + 1/2) tick), ...
    kmax = 0
    for i in range(m):
        q = int(np.rint(w[i] / tick))
        if q > kmax:
            kmax = q
    kmax = min(kmax, 1 << 20)
    cnt = np.zeros(kmax + 1, dtype=np.int64)
    for i in range(m):
        q = min(int(np.rint(w[i] / tick)), kmax)
        cnt[q] += 1
    half = 0.5 * m
    below = 0
    k = 0
    while k < kmax and below + cnt[k] < half:
        below += cnt[k]
        k += 1
    lower = 0.0 if k == 0 else k - 0.5
    width = 0.5 if k == 0 else 1.0
    return MAD_TO_SD * (lower + (half - below) / cnt[k] * width) * tick, med


@njit(cache=True, nogil=True)
def _m_scale(d, tick):
    """One-step winsorised SD of ``d`` around its median, started from the MAD (see module docstring)."""
    s0, med = _robust_sd(d, tick)
    m = d.shape[0]
    if not s0 > 0.0:
        return s0
    acc = 0.0
    c2 = HUBER_C * HUBER_C
    for i in range(m):
        u = (d[i] - med) / s0
        u = u * u
        acc += u if u < c2 else c2
    return s0 * math.sqrt(acc / m / _E_WINSOR)


def robust_sd(d, tick: float = 0.0) -> float:
    """1.4826 x MAD of ``d`` around its median (tie-aware on a grid of step ``tick``; see module docstring)."""
    d = np.ascontiguousarray(d, dtype=np.float64)
    return float(_robust_sd(d, float(tick))[0])


def m_scale(d, tick: float = 0.0) -> float:
    """Huber-type (one-step winsorised) SD of ``d`` (see module docstring)."""
    d = np.ascontiguousarray(d, dtype=np.float64)
    return float(_m_scale(d, float(tick)))


@njit(cache=True, nogil=True)
def _lag_diffs(x, lag, stride):
    """x[i + lag] - x[i] for i = 0, stride, 2 stride, ... (as many as fit)."""
    n = x.shape[0]
    if n <= lag:
        return np.zeros(0)
    m = (n - lag - 1) // stride + 1
    out = np.empty(m)
    for j in range(m):
        i = j * stride
        out[j] = x[i + lag] - x[i]
    return out


def lag_diffs(x: np.ndarray, lag: int, stride: int = 1) -> np.ndarray:
    """Differences at ``lag`` sampled every ``stride`` values."""
    return _lag_diffs(np.ascontiguousarray(x, dtype=np.float64), int(lag), int(stride))


@njit(cache=True, nogil=True)
def _clock_tick(x, stride):
    """Smallest positive |first difference| when >= 5 % of the sampled differences are 0 (within float rounding) and the
    non-zero ones are multiples of it (else 0.0: continuous data)."""
    n = x.shape[0]
    if n < 3:
        return 0.0
    # differences within float rounding of the values (1e-9 of their magnitude, e.g. medians of two values
    # or logs of equal numbers computed apart) count as 0: they are no grid step
    top = 0.0
    for i in range(0, n, stride):
        if abs(x[i]) > top:
            top = abs(x[i])
    tol = 1e-9 * top
    zeros = 0
    total = 0
    t = np.inf
    for i in range(0, n - 1, stride):
        d = abs(x[i + 1] - x[i])
        total += 1
        if d <= tol:
            zeros += 1
        elif d < t:
            t = d
    if zeros < 0.05 * total or not np.isfinite(t):
        return 0.0
    bad = 0
    nz = 0
    for i in range(0, n - 1, stride):
        d = abs(x[i + 1] - x[i])
        if d > tol:
            nz += 1
            q = d / t
            if abs(q - np.rint(q)) > 1e-6 * max(q, 1.0):
                bad += 1
    return t if bad <= 0.01 * nz else 0.0


def clock_tick(x: np.ndarray) -> float:
    """Grid step of quantised values (e.g. whole milliseconds), 0.0 for continuous data (see module docstring)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    return float(_clock_tick(x, stride_for(x.size)))


@njit(cache=True, nogil=True, inline="always")
def _med9(p0, p1, p2, p3, p4, p5, p6, p7, p8):
    """Median of nine values by a selection network (Paeth; N. Devillard's ``opt_med9``): 19 min/max pairs,
    no branches; the exact middle value (min/max only move values, ties included)."""
    p1, p2 = min(p1, p2), max(p1, p2)
    p4, p5 = min(p4, p5), max(p4, p5)
    p7, p8 = min(p7, p8), max(p7, p8)
    p0, p1 = min(p0, p1), max(p0, p1)
    p3, p4 = min(p3, p4), max(p3, p4)
    p6, p7 = min(p6, p7), max(p6, p7)
    p1, p2 = min(p1, p2), max(p1, p2)
    p4, p5 = min(p4, p5), max(p4, p5)
    p7, p8 = min(p7, p8), max(p7, p8)
    p3 = max(p0, p3)
    p5 = min(p5, p8)
    p4, p7 = min(p4, p7), max(p4, p7)
    p6 = max(p3, p6)
    p4 = max(p1, p4)
    p2 = min(p2, p5)
    p4 = min(p4, p7)
    p4, p2 = min(p4, p2), max(p4, p2)
    p4 = max(p6, p4)
    return min(p4, p2)


@njit(cache=True, nogil=True)
def _window_median(y, a, b, win):
    """Median of y[a:b] (b - a <= win.size), the mean of the two middle values for an even count."""
    L = b - a
    for k in range(L):
        win[k] = y[a + k]
    return _median_inplace(win[:L])


@njit(cache=True, nogil=True)
def _running_median9(y, resid):
    """:func:`_running_median` for width 9: the median network at every full window, truncated windows at
    the ends as before."""
    n = y.shape[0]
    out = np.empty(n)
    win = np.empty(9)
    for i in range(4 if n >= 9 else n):
        med = _window_median(y, max(0, i - 4), min(n, i + 5), win)
        out[i] = y[i] - med if resid else med
    if n < 9:
        return out
    for i in range(4, n - 4):
        med = _med9(y[i - 4], y[i - 3], y[i - 2], y[i - 1], y[i], y[i + 1], y[i + 2], y[i + 3], y[i + 4])
        out[i] = y[i] - med if resid else med
    for i in range(n - 4, n):
        med = _window_median(y, i - 4, n, win)
        out[i] = y[i] - med if resid else med
    return out


@njit(cache=True, nogil=True, inline="always")
def _fill_hole(win, j, cnt, v):
    """Put ``v`` into the sorted window ``win[:cnt]`` whose slot ``j`` is free, moving the values between the
    free slot and v's place by one."""
    while j + 1 < cnt and win[j + 1] < v:
        win[j] = win[j + 1]
        j += 1
    while j > 0 and win[j - 1] > v:
        win[j] = win[j - 1]
        j -= 1
    win[j] = v


@njit(cache=True, nogil=True)
def _running_median(y, width, resid=False):
    """Running median, window ``width`` (odd) centred, truncated at the ends, from a sorted window: the window
    grows by insertion at the start, then each step replaces the value leaving it by the one entering (one
    shift of the values between the two places), and shrinks by removal at the end. ``resid``: return
    ``y - median`` instead (the same subtraction as in numpy)."""
    n = y.shape[0]
    out = np.empty(n)
    if n == 0:
        return out
    h = width // 2
    win = np.empty(width + 1)  # one value is inserted before the oldest leaves
    cnt = 0
    # window of position i is y[max(0, i-h) : min(n, i+h+1)]
    right = 0  # next index to insert
    left = 0  # next index to remove
    for i in range(n):
        hi = min(n, i + h + 1)
        lo = max(0, i - h)
        if right < hi and left < lo and hi - right == 1 and lo - left == 1:
            # steady state: y[left] leaves, y[right] enters
            old = y[left]
            v = y[right]
            j = 0
            while win[j] != old:
                j += 1
            _fill_hole(win, j, cnt, v)
            right += 1
            left += 1
        while right < hi:  # insert y[right]
            _fill_hole(win, cnt, cnt + 1, y[right])
            cnt += 1
            right += 1
        while left < lo:  # remove y[left]
            v = y[left]
            j = 0
            while win[j] != v:
                j += 1
            for k in range(j, cnt - 1):
                win[k] = win[k + 1]
            cnt -= 1
            left += 1
        if cnt % 2 == 1:
            med = win[cnt // 2]
        else:
            med = 0.5 * (win[cnt // 2 - 1] + win[cnt // 2])
        out[i] = y[i] - med if resid else med
    return out


def running_median(y: np.ndarray, width: int = 9) -> np.ndarray:
    """Centred running median over ``width`` (odd) values, windows truncated at the ends."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    width = int(width) | 1
    if width == 9:
        return _running_median9(y, False)
    return _running_median(y, width)


@njit(cache=True, nogil=True)
def _residuals_at(y, width, stride):
    """y[i] - running median at i (truncated windows), for i = 0, stride, ... (window sorted per point)."""
    n = y.shape[0]
    h = width // 2
    m = (n - 1) // stride + 1 if n else 0
    out = np.empty(m)
    win = np.empty(width)
    for j in range(m):
        i = j * stride
        a = max(0, i - h)
        b = min(n, i + h + 1)
        if width == 9 and b - a == 9:
            out[j] = y[i] - _med9(y[a], y[a + 1], y[a + 2], y[a + 3], y[a + 4], y[a + 5], y[a + 6], y[a + 7], y[a + 8])
            continue
        out[j] = y[i] - _window_median(y, a, b, win)
    return out


def running_median_residuals(y: np.ndarray, width: int = 9, stride: int = 1) -> np.ndarray:
    """``y`` minus its centred running median (``width`` values, truncated ends), every ``stride`` values."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    width = int(width) | 1
    if stride == 1:
        return _running_median9(y, True) if width == 9 else _running_median(y, width, True)
    return _residuals_at(y, int(width) | 1, int(stride))


@njit(cache=True, nogil=True)
def _segment_stats(y, bounds):
    k = bounds.shape[0] - 1
    mean = np.empty(k)
    std = np.empty(k)
    med = np.empty(k)
    spread = np.empty(k)
    for s in range(k):
        a = bounds[s]
        b = bounds[s + 1]
        m = b - a
        if m <= 0:
            mean[s] = std[s] = med[s] = spread[s] = np.nan
            continue
        acc = 0.0
        for i in range(a, b):
            acc += y[i]
        mu = acc / m
        acc = 0.0
        for i in range(a, b):
            acc += (y[i] - mu) ** 2
        mean[s] = mu
        std[s] = math.sqrt(acc / (m - 1)) if m > 1 else 0.0
        w = y[a:b].copy()
        md = _median_inplace(w)
        med[s] = md
        for i in range(m):
            w[i] = abs(y[a + i] - md)
        spread[s] = MAD_TO_SD * _median_inplace(w)
    return mean, std, med, spread


def segment_stats(y: np.ndarray, bounds: np.ndarray):
    """(mean, SD, median, 1.4826 x MAD) of ``y[bounds[k]:bounds[k+1]]`` for every segment k: one compiled pass
    with quickselect medians, O(n) in all (no Python loop over segments). A median among values 0.0 and -0.0
    is +0.0 (the two compare equal, and which one a selection meets first differs between the compiled kernel
    and its numpy stand-in)."""
    mean, std, med, spread = _segment_stats(np.ascontiguousarray(y, dtype=np.float64),
                                            np.ascontiguousarray(bounds, dtype=np.int64))
    return mean, std, med + 0.0, spread


@njit(cache=True, nogil=True)
def _segment_level_medians(y, bounds):
    k = bounds.shape[0] - 1
    med = np.empty(k)
    w = np.empty(y.shape[0])
    for s in range(k):
        a = bounds[s]
        b = bounds[s + 1]
        med[s] = np.nan if b <= a else _window_median(y, a, b, w)
    return med


def segment_level_medians(y: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """The medians of :func:`segment_stats` alone (the levels of the robust cost): one copy and one
    quickselect per segment, half its work; +0.0 for a median among 0.0 and -0.0, as there."""
    return _segment_level_medians(np.ascontiguousarray(y, dtype=np.float64),
                                  np.ascontiguousarray(bounds, dtype=np.int64)) + 0.0


@njit(cache=True, nogil=True)
def _relocate(y, cps, med, h, min_size):
    """See :func:`relocate`."""
    n = y.shape[0]
    k = cps.shape[0]
    out = cps.copy()
    prev = 0
    for j in range(k):
        c = cps[j]
        nxt = cps[j + 1] if j + 1 < k else n
        lo = max(c - h, prev + min_size)
        hi = min(c + h, nxt - min_size)
        if lo > c or hi < c:  # no room: keep the search's location
            out[j] = c
            prev = c
            continue
        ml = med[j]
        mr = med[j + 1]
        # cost of the split at s (values lo-1 .. hi only; the rest is the same for every s): values before s
        # measured from the left level, from s on from the right one
        best = c
        acc = 0.0
        for i in range(lo, c):
            acc += abs(y[i] - mr) - abs(y[i] - ml)  # split at lo: [lo, c) counted right instead of left
        cur = acc
        bestv = cur
        best = lo
        for s in range(lo + 1, hi + 1):
            i = s - 1
            cur += abs(y[i] - ml) - abs(y[i] - mr)
            if cur < bestv - 1e-12 * (abs(bestv) + 1.0) or (abs(cur - bestv) <= 1e-12 * (abs(bestv) + 1.0)
                                                           and abs(s - c) < abs(best - c)):
                bestv = cur
                best = s
        out[j] = best
        prev = best
    return out


def relocate(y: np.ndarray, cps: np.ndarray, h: int, min_size: int) -> np.ndarray:
    """Change locations of a robust-cost search refined on the raw values: each change moves within ``h`` values
    to the split that minimises the absolute deviations from the medians of its two adjacent segments (ties:
    the search's own location). The running median that winsorises the search series is pulled across a step
    by nearby outliers (a spike 6 values before a step put a real change one value early); the raw values
    around the step are not."""
    cps = np.ascontiguousarray(cps, dtype=np.int64)
    if cps.size == 0:
        return cps
    y = np.ascontiguousarray(y, dtype=np.float64)
    med = segment_level_medians(y, np.concatenate(([0], cps, [y.size])))
    return _relocate(y, cps, med, int(h), int(min_size))


@njit(cache=True, nogil=True)
def _spike_max(x):
    """Largest min(|x[t] - x[t-1]|, |x[t+1] - x[t]|) over values that go up then down (or down then up): the
    size of the most isolated single-value excursion (a step moves only one of the two differences). The first
    and last values count with their one difference (an end value cannot be told from a one-value step)."""
    n = x.shape[0]
    if n < 3:
        return 0.0
    best = max(abs(x[1] - x[0]), abs(x[n - 1] - x[n - 2]))
    for t in range(1, n - 1):  # branch-free: the sign pattern of noise is unpredictable
        a = x[t] - x[t - 1]
        b = x[t + 1] - x[t]
        m = min(abs(a), abs(b))
        m = m if a * b < 0.0 else 0.0
        best = m if m > best else best
    return best


def spike_max(x: np.ndarray) -> float:
    """Size of the most isolated single-value excursion of ``x`` (see :func:`_spike_max`), value units."""
    return float(_spike_max(np.ascontiguousarray(x, dtype=np.float64)))


def local_grid(x: np.ndarray, tick: float | None = None) -> float:
    """Resolution of coarsely quantised values: the clock tick (:func:`clock_tick`, or ``tick`` when the caller
    has it) or, for ties on no common grid (log-quantised timings), the smallest first difference above float
    rounding when >= 20 % of the first differences are 0; 0.0 for continuous data."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    t = clock_tick(x) if tick is None else float(tick)
    if t > 0 or x.size < 3:
        return t
    d = np.abs(lag_diffs(x, 1, stride_for(x.size - 1)))
    tol = 1e-9 * float(np.max(np.abs(x)))
    if np.mean(d <= tol) < 0.2:
        return 0.0
    return float(np.min(d[d > tol])) if np.any(d > tol) else 0.0
