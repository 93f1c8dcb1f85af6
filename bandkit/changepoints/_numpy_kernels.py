"""numpy stand-ins of the change-point kernels whose Python loops are slow, for short series run without numba
(:mod:`bandkit._numba`: a CI history's ~1,500 build medians are analysed faster in numpy than numba starts).

Each takes the arguments of its kernel and returns the same values, bit for bit: the same floating-point
operations in the same order (sequential sums by ``np.cumsum``; a median is an order statistic, the mean of two
middle values is ``0.5 * (a + b)`` either way). ``tests/test_kernels_python.py`` checks them against the
compiled kernels.
"""
from __future__ import annotations

import math

import numpy as np

from . import robust as _r

_MIN = np.minimum.reduce


def select(a: np.ndarray, k: int) -> float:
    """k-th smallest of ``a`` (0-based), partitioning ``a`` in place: ``a[:k]`` holds the k smallest values
    afterwards, as after :func:`bandkit.changepoints.robust._select`."""
    a.partition(k)
    return a[k]


def running_median(y: np.ndarray, width: int) -> np.ndarray:
    """Centred running median over ``width`` (odd) values, windows truncated at the ends
    (:func:`bandkit.changepoints.robust._running_median`)."""
    n = y.shape[0]
    out = np.empty(n)
    if n == 0:
        return out
    h = width // 2
    if n >= width:
        out[h:n - h] = np.median(np.lib.stride_tricks.sliding_window_view(y, width), axis=1)
        edges = list(range(h)) + list(range(n - h, n))
    else:
        edges = range(n)
    for i in edges:
        w = np.sort(y[max(0, i - h):min(n, i + h + 1)])
        m = w.size
        out[i] = w[m // 2] if m % 2 == 1 else 0.5 * (w[m // 2 - 1] + w[m // 2])
    return out


def median_inplace(a: np.ndarray) -> float:
    """Median of ``a`` (partitions ``a``), as :func:`bandkit.changepoints.robust._median_inplace`."""
    m = a.shape[0]
    if m == 0:
        return np.nan
    h = m // 2
    a.partition(h)
    hi = a[h]
    if m % 2 == 1:
        return hi
    return 0.5 * (a[:h].max() + hi)


def lag_diffs(x: np.ndarray, lag: int, stride: int) -> np.ndarray:
    """x[i + lag] - x[i] for i = 0, stride, ... (:func:`bandkit.changepoints.robust._lag_diffs`)."""
    n = x.shape[0]
    if n <= lag:
        return np.zeros(0)
    m = (n - lag - 1) // stride + 1
    i = np.arange(m) * stride
    return x[i + lag] - x[i]


def spike_max(x: np.ndarray) -> float:
    """Largest single-value excursion (:func:`bandkit.changepoints.robust._spike_max`)."""
    n = x.shape[0]
    if n < 3:
        return 0.0
    best = max(abs(x[1] - x[0]), abs(x[n - 1] - x[n - 2]))
    d = x[1:] - x[:-1]
    a, b = d[:-1], d[1:]
    turn = a * b < 0.0
    if turn.any():
        best = max(best, np.minimum(np.abs(a[turn]), np.abs(b[turn])).max())
    return best


def segment_stats(y: np.ndarray, bounds: np.ndarray):
    """(mean, SD, median, 1.4826 MAD) of every segment (:func:`bandkit.changepoints.robust._segment_stats`;
    sums in the kernel's sequential order)."""
    k = bounds.shape[0] - 1
    mean, std, med, spread = np.empty(k), np.empty(k), np.empty(k), np.empty(k)
    for s in range(k):
        a, b = int(bounds[s]), int(bounds[s + 1])
        m = b - a
        if m <= 0:
            mean[s] = std[s] = med[s] = spread[s] = np.nan
            continue
        seg = y[a:b]
        mu = np.cumsum(seg)[-1] / m
        acc = np.cumsum((seg - mu) ** 2)[-1]
        mean[s] = mu
        std[s] = math.sqrt(acc / (m - 1)) if m > 1 else 0.0
        w = seg.copy()
        md = median_inplace(w)
        med[s] = md
        spread[s] = _r.MAD_TO_SD * median_inplace(np.abs(seg - md))
    return mean, std, med, spread


def fpop_l2(y: np.ndarray, penalty: float, min_size: int):
    """The optimum of :func:`bandkit.changepoints.fpop._fpop_l2` (``last``, optimal cost, 0 pieces counted) by
    optimal partitioning without pruning: at each t the minimum over every eligible last change tau of
    K(tau) - (S1(t) - S1(tau))^2 / (t - tau), the expression FPOP evaluates for its surviving candidates (a
    pruned candidate is never the minimum). Where two last changes come within rounding of each other (a
    constant stretch, values on a grid) FPOP's own Python function decides. O(n^2) in numpy: for the short
    series it runs on."""
    n = y.shape[0]
    ms = int(min_size)
    shift = np.cumsum(y)[-1] / n
    v = y - shift
    S1 = np.empty(n + 1)
    S1[0] = 0.0
    np.cumsum(v, out=S1[1:])
    S2 = np.cumsum(v * v)[-1]
    K = np.full(n + 1, np.inf)
    K[0] = 0.0
    last = np.zeros(n + 1, dtype=np.int64)
    tauf = np.arange(n + 1, dtype=np.float64)
    buf = np.empty(n + 1)
    den = np.empty(n + 1)
    best = np.inf
    # eligible last changes at time t: 0, and ms .. t - ms (K is finite from ms on)
    for t in range(ms, n + 1):
        D0 = S1[t]
        best = K[0] - D0 * D0 / t
        arg = 0
        b = t - ms + 1
        if b > ms:
            L = b - ms
            D = np.subtract(S1[t], S1[ms:b], out=buf[:L])
            np.multiply(D, D, out=D)
            np.divide(D, np.subtract(t, tauf[ms:b], out=den[:L]), out=D)
            val = np.subtract(K[ms:b], D, out=D)
            j = int(val.argmin())
            vj = float(val[j])
            # a tie (or a near-tie that rounding may decide) between two last changes: FPOP's choice depends on
            # the order of its pieces, so the exact search decides (run as Python: slow, but rare)
            tol = 1e-9 * (abs(vj) + abs(best) + 1.0)
            if abs(vj - best) <= tol:
                return _exact(y, penalty, min_size)
            if L > 1:
                val[j] = np.inf
                if _MIN(val) - vj <= tol:
                    return _exact(y, penalty, min_size)
            if vj < best:
                best = vj
                arg = ms + j
        K[t] = best + penalty
        last[t] = arg
    return last, best + S2, 0


def _exact(y, penalty, min_size):
    from .fpop import _fpop_l2

    return _fpop_l2.py_func(y, penalty, min_size)
