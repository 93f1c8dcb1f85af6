"""Peaks of a 1-D array: local maxima, prominences and half-prominence widths.

The same definitions and results as :func:`scipy.signal.find_peaks` (plateau midpoints,
``prominence`` and ``width`` at ``rel_height=0.5``, no ``wlen``), checked against it in
tests/test_lite_numerics.py. Why not scipy.signal itself: importing it (it pulls in scipy.stats)
costs 0.5-1 s per process, which every ``bandkit report`` and every fleet worker paid for these
few lines (measured in benchmarks/RESULTS.md, "import cost"). Compiled with numba (cached).
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _local_maxima(x):
    n = x.shape[0]
    out = np.empty(n // 2 + 1, dtype=np.int64)
    m = 0
    i = 1
    i_max = n - 1
    while i < i_max:
        if x[i - 1] < x[i]:
            j = i + 1
            while j < i_max and x[j] == x[i]:
                j += 1
            if x[j] < x[i]:
                out[m] = (i + j - 1) // 2
                m += 1
                i = j
        i += 1
    return out[:m]


@njit(cache=True, nogil=True)
def _prominences_widths(x, peaks):
    n = x.shape[0]
    k = peaks.shape[0]
    prom = np.empty(k)
    width = np.empty(k)
    for p in range(k):
        pk = peaks[p]
        h = x[pk]
        # bases: lowest point on each side before a higher point (or the array's end)
        i = pk
        lmin = h
        lb = pk
        while i >= 0 and x[i] <= h:
            if x[i] < lmin:
                lmin = x[i]
                lb = i
            i -= 1
        i = pk
        rmin = h
        rb = pk
        while i <= n - 1 and x[i] <= h:
            if x[i] < rmin:
                rmin = x[i]
                rb = i
            i += 1
        pr = h - max(lmin, rmin)
        prom[p] = pr
        # width at half the prominence, interpolated, within the bases
        ref = h - 0.5 * pr
        i = pk
        while lb < i and ref < x[i]:
            i -= 1
        lip = float(i)
        if x[i] < ref:
            lip += (ref - x[i]) / (x[i + 1] - x[i])
        i = pk
        while i < rb and ref < x[i]:
            i += 1
        rip = float(i)
        if x[i] < ref:
            rip -= (ref - x[i]) / (x[i - 1] - x[i])
        width[p] = rip - lip
    return prom, width


def local_maxima(x, height: float | None = None) -> np.ndarray:
    """Indices of local maxima of ``x`` (a plateau counts once, at its midpoint, rounded down;
    the two ends never count), optionally only those with ``x >= height``. Same as
    ``scipy.signal.find_peaks(x, height=height)[0]``."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError("x must be one-dimensional")
    pk = _local_maxima(x) if x.size >= 3 else np.zeros(0, dtype=np.int64)
    if height is not None:
        pk = pk[x[pk] >= height]
    return pk


def peak_prominences_widths(x, peaks) -> tuple[np.ndarray, np.ndarray]:
    """Prominence and width at half prominence (in samples, interpolated) of each peak; same as
    ``scipy.signal.peak_prominences`` and ``peak_widths(..., rel_height=0.5)``."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    peaks = np.ascontiguousarray(peaks, dtype=np.int64)
    if peaks.size and (peaks.min() < 0 or peaks.max() >= x.size):
        raise ValueError("peak index out of range")
    return _prominences_widths(x, peaks)
