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


def select_pair(x: np.ndarray, c: float, absdev: bool, k: int):
    """(k-1)-th (NaN for k = 0) and k-th smallest of x (or |x - c|), ``x`` untouched
    (:func:`bandkit.changepoints.robust._select_pair`: order statistics, the same values)."""
    v = np.abs(x - c) if absdev else x.copy()
    if k == 0:
        v.partition(0)
        return np.nan, v[0]
    v.partition((k - 1, k))
    return v[k - 1], v[k]


def running_median9(y: np.ndarray, resid: bool) -> np.ndarray:
    """Running median of width 9 (or the residual y - median) as
    :func:`bandkit.changepoints.robust._running_median9`."""
    med = running_median(y, 9)
    return y - med if resid else med


def residuals_at(y: np.ndarray, width: int, stride: int) -> np.ndarray:
    """y[i] - running median at i (truncated windows) for i = 0, stride, ...
    (:func:`bandkit.changepoints.robust._residuals_at`)."""
    n = y.shape[0]
    h = width // 2
    m = (n - 1) // stride + 1 if n else 0
    idx = np.arange(m) * stride
    out = np.empty(m)
    full = (idx >= h) & (idx + h < n)
    if full.any():
        win = np.lib.stride_tricks.sliding_window_view(y, width)[idx[full] - h]
        out[full] = y[idx[full]] - np.median(win, axis=1)
    for j in np.flatnonzero(~full):
        i = int(idx[j])
        w = np.sort(y[max(0, i - h):min(n, i + h + 1)])
        k = w.size
        out[j] = y[i] - (w[k // 2] if k % 2 == 1 else 0.5 * (w[k // 2 - 1] + w[k // 2]))
    return out


def prefix_sums(z: np.ndarray, cap: float):
    """(S, D2) of :func:`bandkit.changepoints._eliminate.prefix_sums`: prefix sums of ``z`` and of its squared
    first differences capped at ``cap`` (sequential sums, as the kernel's loop)."""
    n = z.shape[0]
    S = np.empty(n + 1)
    S[0] = 0.0
    np.cumsum(z, out=S[1:])
    D2 = np.zeros(n)
    if n > 1:
        d = z[1:] - z[:-1]
        d = d * d
        np.cumsum(np.where(d <= cap, d, cap), out=D2[1:])
    return S, D2


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


def fpop_l2(y: np.ndarray, penalty: float, min_size: int, block: int = 64):
    """The optimum of :func:`bandkit.changepoints.fpop._fpop_l2` (``last``, optimal cost, 0 pieces counted) by
    optimal partitioning with PELT's pruning, ``block`` time steps at a time in numpy: at each t the minimum over
    the live eligible last changes tau of K(tau) - (S1(t) - S1(tau))^2 / (t - tau), the expression FPOP
    evaluates for its surviving candidates (a pruned candidate is never the minimum), so K and the cost are the
    same floating-point values.

    A block's last changes from before the block have known K: one matrix (block x live candidates). Last
    changes inside the block (tau <= t - min_size) depend on K values of the block itself: the block's K is
    iterated from the upper bound given by the earlier candidates until it no longer changes (a triangular
    system: its only fixed point is the sequential solution, bit for bit; one to three rounds in practice).
    PELT's rule (Killick et al. 2012) drops tau once K(tau) - D^2/(t - tau) exceeds K(t) by more than a
    rounding margin for a t at least ``min_size`` before the next block (the L2 cost is superadditive, so t
    then beats tau at every later time where t is eligible).

    Where two last changes come within rounding of each other (a constant stretch, values on a grid) FPOP's
    choice depends on the order of its pieces: such times are marked, and when one lies on the optimal
    segmentation's path FPOP itself decides (:func:`_exact`; rare: no case in 36 series of 1e5 and 3e5
    values); off the path ``last`` may name the
    other of the two (the change points, read from the path, are FPOP's)."""
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
    tie = np.zeros(n + 1, dtype=bool)
    B = max(int(block), 1)
    cand = np.zeros(1, dtype=np.int64)  # live last changes, ascending (0 first)
    nxt = ms  # the next last change to become a candidate (K is finite from ms on)
    best_n = np.inf
    floor = 1e-13 * (abs(S2) + abs(penalty))
    # near-tie: within 1e-12 of the values, or of the largest magnitude FPOP's own comparisons meet (its
    # piece values, up to n times the squared range): thousands of roundings, far above FPOP's few
    vmax = float(np.max(np.abs(v))) if n else 0.0
    tie_abs = 1e-13 * n * vmax * vmax + 1e-12
    t0 = ms
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        while t0 <= n:
            t1 = min(n + 1, t0 + B)
            ts = np.arange(t0, t1)
            top = t1 - 1 - ms
            if top >= nxt:
                cand = np.concatenate((cand, np.arange(nxt, top + 1, dtype=np.int64)))
                nxt = top + 1
            ctf = cand.astype(np.float64)
            D = np.subtract(S1[ts][:, None], S1[cand][None, :])
            np.multiply(D, D, out=D)
            np.divide(D, np.subtract(ts.astype(np.float64)[:, None], ctf[None, :]), out=D)
            off = cand[None, :] > (ts - ms)[:, None]  # not eligible at t
            split = int(np.searchsorted(cand, t0))  # cand[split:] lie in the block: their K is not known yet
            if split < cand.size:
                inner = D[:, split:]
                inner_off = off[:, split:]
                old = np.subtract(K[cand[:split]], D[:, :split])
                old[off[:, :split]] = np.inf
                base = _MIN(old, axis=1)
                Kb = base + penalty
                for _ in range(B + 2):
                    K[ts] = Kb
                    val = np.subtract(K[cand[split:]], inner)
                    val[inner_off] = np.inf
                    Kn = np.minimum(base, _MIN(val, axis=1)) + penalty
                    if np.array_equal(Kn, Kb):
                        break
                    Kb = Kn
                else:  # cannot happen (a triangular system): stay exact all the same
                    return _exact(y, penalty, min_size)
            val = np.subtract(K[cand], D, out=D)
            val[off] = np.inf
            j = val.argmin(axis=1)
            rows = np.arange(ts.size)
            vmin = val[rows, j]
            K[ts] = vmin + penalty
            last[ts] = cand[j]
            if t1 == n + 1:
                best_n = float(vmin[-1])
            if cand.size > 1:
                val[rows, j] = np.inf
                sec = _MIN(val, axis=1)
                tie[ts] = (sec - vmin) <= 1e-12 * (np.abs(vmin) + np.abs(sec)) + tie_abs
                # PELT: tau is beaten by t at every time >= t + ms; rows with t + ms >= t1 (the next block's
                # first time) may not prune yet
                r = ts.size - max(0, ms - 1) if t1 <= n else 0
                r = min(r, ts.size)
                if r > 0:
                    val[rows, j] = vmin
                    Kt = K[ts[:r]][:, None]
                    worse = (val[:r] - Kt) > (1e-9 * (np.abs(Kt) + 1.0) + floor)
                    worse &= ~off[:r]
                    drop = worse.any(axis=0)
                    drop[0] = False
                    if drop.any():
                        cand = cand[~drop]
            t0 = t1
    t = n
    while t > 0:
        if tie[t]:
            return _exact(y, penalty, min_size)
        t = int(last[t])
    return last, best_n + S2, 0


#: Above this many values a near-tie on the path is settled by FPOP compiled (numba compiles that one kernel,
#: ≈ 4 s of CPU when it is not cached) rather than by its Python function (run on lists, ≈ 10 µs per value).
EXACT_PYTHON_MAX = 20000


def _exact(y, penalty, min_size):
    from .fpop import _fpop_l2, fpop_lists

    if y.shape[0] > EXACT_PYTHON_MAX and hasattr(_fpop_l2, "compile_alone"):
        return _fpop_l2.compile_alone()(y, penalty, min_size)
    last, cost, pieces = fpop_lists(y, penalty, min_size)  # (FPOP's Python function on lists: the same values)
    return np.asarray(last, dtype=np.int64), cost, pieces
