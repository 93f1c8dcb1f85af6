"""Backward elimination of candidate change points (numba kernel).

Given prefix sums of the standardised search series and a candidate segmentation, repeatedly remove the
change whose two adjacent segments differ least, measured by the two-sample statistic

    Z^2 = (mean_right - mean_left)^2 / (lam_left/n_left + lam_right/n_right + kappa)

(variance of a difference of segment means in long-run noise units, plus ``kappa`` for slow wander), then
merge the two segments and update the statistics of the two neighbours. The removal order does not depend
on any threshold, so one pass gives the whole nested path: at threshold x the reported set is every change
removed after the first removal whose statistic reached x.

``lam`` lets a segment that is noisier than the series as a whole count as such (noise that grows with the
level, as timings do): the mean squared first difference over the segment and ``h`` values either side, each
squared difference capped at 9 times its expected value (so the jumps at change points cannot dominate), over
the series' short-range variance, and never below 1 (homoscedastic noise is tested as before, only a little
more conservatively; a short segment borrows its neighbours' noise level).
"""
from __future__ import annotations

import numpy as np
from .._numba import njit  # a numba kernel, run without numba on short inputs (see bandkit._numba)


@njit(cache=True, nogil=True)
def prefix_sums(z, cap):
    """Prefix sums ``S`` of ``z`` (len n + 1, S[0] = 0) and ``D2`` (len n, D2[0] = 0) of its squared first
    differences, each capped at ``cap``: the inputs of :func:`eliminate`, in one pass (the same sequential sums
    as ``np.cumsum``, so bit-identical to it)."""
    n = z.shape[0]
    S = np.empty(n + 1)
    D2 = np.empty(n)
    S[0] = 0.0
    acc = 0.0
    acc2 = 0.0
    prev = 0.0
    for i in range(n):
        v = z[i]
        acc += v
        S[i + 1] = acc
        if i > 0:
            d = v - prev
            d = d * d
            acc2 += d if d <= cap else cap
        D2[i] = acc2
        prev = v
    return S, D2


@njit(cache=True, nogil=True, inline="always")
def _lam(D2, a, b, v0, h):
    """Local variance ratio (>= 1) of segment [a, b), from the first differences of [a - h, b + h)."""
    n = D2.shape[0]
    if n == 0:
        return 1.0
    lo = a - h if a > h else 0
    hi = b + h if b + h < n else n
    m = hi - lo - 1
    if m <= 0:
        return 1.0
    r = (D2[hi - 1] - D2[lo]) / (2.0 * m * v0)
    return r if r > 1.0 else 1.0


@njit(cache=True, nogil=True, inline="always")
def _z2(S, D2, a, c, b, kappa, v0, h):
    nl = c - a
    nr = b - c
    d = (S[b] - S[c]) / nr - (S[c] - S[a]) / nl
    return d * d / (_lam(D2, a, c, v0, h) / nl + _lam(D2, c, b, v0, h) / nr + kappa)


@njit(cache=True, nogil=True, inline="always")
def _swap(hv, hi, hver, a, b):
    hv[a], hv[b] = hv[b], hv[a]
    hi[a], hi[b] = hi[b], hi[a]
    hver[a], hver[b] = hver[b], hver[a]


@njit(cache=True, nogil=True)
def _heap_push(hv, hi, hver, size, v, i, ver):
    j = size
    hv[j] = v
    hi[j] = i
    hver[j] = ver
    while j > 0:
        p = (j - 1) >> 1
        if hv[p] <= hv[j]:
            break
        _swap(hv, hi, hver, p, j)
        j = p
    return size + 1


@njit(cache=True, nogil=True)
def _heap_pop(hv, hi, hver, size):
    v = hv[0]
    i = hi[0]
    ver = hver[0]
    size -= 1
    hv[0] = hv[size]
    hi[0] = hi[size]
    hver[0] = hver[size]
    j = 0
    while True:
        l = 2 * j + 1
        if l >= size:
            break
        r = l + 1
        m = l if (r >= size or hv[l] <= hv[r]) else r
        if hv[j] <= hv[m]:
            break
        _swap(hv, hi, hver, m, j)
        j = m
    return v, i, ver, size


@njit(cache=True, nogil=True)
def eliminate(S, D2, cps, kappa, v0, h):
    """Removal order of the candidates ``cps`` (sorted change points; ``S`` prefix sums with S[0] = 0,
    len n + 1; ``D2`` prefix sums of squared first differences, len n, or empty for no local variance; ``v0``
    short-range variance of the series in the units of S): returns (order, stat, short) with ``order[r]`` the
    position in ``cps`` of the r-th removed change, ``stat[r]`` its statistic at removal (weakest first) and
    ``short[r]`` the length of the shorter of its two segments at that moment."""
    k = cps.shape[0]
    n = S.shape[0] - 1
    pos = np.empty(k + 2, dtype=np.int64)  # node 0 = start, 1..k = candidates, k+1 = end
    pos[0] = 0
    pos[k + 1] = n
    for j in range(k):
        pos[j + 1] = cps[j]
    prv = np.arange(-1, k + 1, dtype=np.int64)
    nxt = np.arange(1, k + 3, dtype=np.int64)
    ver = np.zeros(k + 2, dtype=np.int64)
    cap = 3 * k + 3
    hv = np.empty(cap)
    hi = np.empty(cap, dtype=np.int64)
    hver = np.empty(cap, dtype=np.int64)
    size = 0
    for j in range(1, k + 1):
        size = _heap_push(hv, hi, hver, size, _z2(S, D2, pos[j - 1], pos[j], pos[j + 1], kappa, v0, h), j, 0)
    order = np.empty(k, dtype=np.int64)
    stat = np.empty(k)
    short = np.empty(k, dtype=np.int64)
    r = 0
    while size > 0:
        v, j, vj, size = _heap_pop(hv, hi, hver, size)
        if vj != ver[j]:
            continue  # stale entry
        p = prv[j]
        q = nxt[j]
        order[r] = j - 1
        stat[r] = v
        short[r] = min(pos[j] - pos[p], pos[q] - pos[j])
        r += 1
        ver[j] = -1
        nxt[p] = q
        prv[q] = p
        if p >= 1:
            ver[p] += 1
            size = _heap_push(hv, hi, hver, size, _z2(S, D2, pos[prv[p]], pos[p], pos[q], kappa, v0, h), p, ver[p])
        if q <= k:
            ver[q] += 1
            size = _heap_push(hv, hi, hver, size, _z2(S, D2, pos[p], pos[q], pos[nxt[q]], kappa, v0, h), q, ver[q])
    return order, stat, short
