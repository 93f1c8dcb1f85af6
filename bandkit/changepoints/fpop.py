"""Exact penalised segmentation for a change in mean (L2 cost): FPOP and PELT, compiled with numba.

Both minimise  sum over segments of  sum_i (y_i - mean_segment)^2  +  penalty * (#changes)
subject to every segment holding at least ``min_size`` values, and return the same optimum
(the tests check both against brute-force dynamic programming).

``fpop`` is functional pruning optimal partitioning (Maidstone, Hocking, Rigaill & Fearnhead
2017): the optimal cost as a function of the last segment's mean, Q_t(mu), is kept as a sorted
list of quadratic pieces; each step adds the new value to every piece and takes the minimum with
the quadratic of a segment starting ``min_size`` values back, which cuts pieces at the roots of a
convex quadratic. Pieces no longer optimal anywhere disappear, so the work per value stays a
handful of pieces even when segments are millions of values long, where PELT's inequality
pruning keeps every candidate and becomes quadratic. Taking the minimum with a segment that
starts ``min_size`` values back (instead of a constant) makes the minimum segment length exact,
which the usual FPOP formulation does not offer. Written here rather than taken from skchange
(whose FPOP has no minimum segment length); the speed of the two is compared in
``benchmarks/changepoints_speed.py`` (results in benchmarks/RESULTS_changepoints.md).

``pelt`` (Killick, Fearnhead & Eckley 2012) is kept as a reference and for the benchmarks.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, error_model="numpy")
def _fpop_l2(y, penalty, min_size):
    """Functional pruning with pieces: Q_t(mu) = min over eligible last changes tau of
    F(tau) + penalty + sum_{tau<i<=t} (y_i - mu)^2, stored as quadratics A mu^2 + B mu + C on
    sorted intervals of mu (A = t - tau identifies the last change). Recurrence:
    Q_t = min(Q_{t-1} + (y_t - mu)^2, q_t) with q_t the quadratic of a segment starting at
    t - min_size (the newest eligible last change), so a minimum segment length is exact.
    Pieces live in one (2, cap, 5) buffer (lo, hi, A, B, C), read from one half and written
    to the other, so no array references are swapped in the hot loop."""
    n = y.shape[0]
    ms = min_size
    nA = float(ms)
    lo0 = y.min()
    hi0 = y.max()
    F = np.full(n + 1, np.inf)
    F[0] = -penalty
    last = np.zeros(n + 1, dtype=np.int64)
    cap = 64
    P = np.empty((2, cap, 5))
    s = 0  # half holding the current pieces
    npc = 0
    total_pieces = 0
    for t in range(1, n + 1):
        yt = y[t - 1]
        y2 = yt * yt
        tn = t - ms
        best = np.inf
        barg = 0.0
        if tn < 0 or F[tn] == np.inf:
            # no new eligible last change: only add the point
            for k in range(npc):
                a = P[s, k, 2] + 1.0
                b = P[s, k, 3] - 2.0 * yt
                c = P[s, k, 4] + y2
                P[s, k, 2] = a
                P[s, k, 3] = b
                P[s, k, 4] = c
                val = c - b * b / (4.0 * a)
                if val < best:
                    best = val
                    barg = a
        else:
            if ms == 1:
                w1 = yt
                w2 = y2
            else:
                w1 = 0.0
                w2 = 0.0
                for i in range(tn, t):
                    w1 += y[i]
                    w2 += y[i] * y[i]
            nB = -2.0 * w1
            nC = F[tn] + penalty + w2
            if 2 * npc + 2 >= cap:
                cap = 2 * (2 * npc + 2)
                P2 = np.empty((2, cap, 5))
                P2[s, :npc] = P[s, :npc]
                P = P2
            d = 1 - s
            # Q_t = min(old pieces + point, new quadratic). Old piece k keeps the part of its
            # interval where it is below the new quadratic (between the roots of their
            # difference, a convex quadratic); the gaps between kept parts go to the new one.
            nq = 0
            gap = lo0  # start of the current run owned by the new quadratic
            for k in range(npc):
                A = P[s, k, 2] + 1.0
                B = P[s, k, 3] - 2.0 * yt
                C = P[s, k, 4] + y2
                a = A - nA  # > 0: older segments hold more points
                b = B - nB
                c = C - nC
                disc = b * b - 4.0 * a * c
                if disc <= 0.0:
                    continue
                sq = np.sqrt(disc)
                r1 = (-b - sq) / (2.0 * a)
                r2 = (-b + sq) / (2.0 * a)
                plo = P[s, k, 0]
                phi = P[s, k, 1]
                lo = plo if plo > r1 else r1
                hi = phi if phi < r2 else r2
                if lo >= hi:
                    continue
                if gap < lo:
                    P[d, nq, 0] = gap
                    P[d, nq, 1] = lo
                    P[d, nq, 2] = nA
                    P[d, nq, 3] = nB
                    P[d, nq, 4] = nC
                    nq += 1
                P[d, nq, 0] = lo
                P[d, nq, 1] = hi
                P[d, nq, 2] = A
                P[d, nq, 3] = B
                P[d, nq, 4] = C
                nq += 1
                gap = hi
                val = C - B * B / (4.0 * A)
                if val < best:
                    best = val
                    barg = A
            if gap < hi0 or nq == 0:
                P[d, nq, 0] = gap
                P[d, nq, 1] = hi0
                P[d, nq, 2] = nA
                P[d, nq, 3] = nB
                P[d, nq, 4] = nC
                nq += 1
            # unconstrained minima suffice: every quadratic is >= Q_t and its vertex (a segment
            # mean) lies in [min y, max y], so the smallest vertex value is F(t)
            val = nC - nB * nB / (4.0 * nA)
            if val < best:
                best = val
                barg = nA
            s = d
            npc = nq
            total_pieces += npc
        if npc == 0:
            continue
        F[t] = best
        last[t] = t - int(barg + 0.5)
    return last, F[n], total_pieces


@njit(cache=True, nogil=True, error_model="numpy")
def _pelt_l2(y, penalty, min_size):
    n = y.shape[0]
    s1 = np.zeros(n + 1)
    s2 = np.zeros(n + 1)
    for i in range(n):
        s1[i + 1] = s1[i] + y[i]
        s2[i + 1] = s2[i] + y[i] * y[i]
    F = np.full(n + 1, np.inf)
    F[0] = -penalty
    last = np.zeros(n + 1, dtype=np.int64)
    cand = np.empty(n + 1, dtype=np.int64)
    ncand = 0
    max_live = 0
    for t in range(min_size, n + 1):
        # candidate t - min_size becomes eligible
        tn = t - min_size
        if F[tn] < np.inf:
            cand[ncand] = tn
            ncand += 1
        best = np.inf
        arg = -1
        for j in range(ncand):
            tau = cand[j]
            m = t - tau
            a = s1[t] - s1[tau]
            v = F[tau] + penalty + (s2[t] - s2[tau]) - a * a / m
            if v < best:
                best = v
                arg = tau
        F[t] = best
        last[t] = arg
        # prune tau if F(tau) + C(tau, tp) > F(tp) (K = 0 for L2), where tp = t + 1 - min_size
        # is the newest last change that is eligible at every later time
        tp = t + 1 - min_size
        if F[tp] < np.inf:
            k = 0
            for j in range(ncand):
                tau = cand[j]
                if tau < tp:
                    m = tp - tau
                    a = s1[tp] - s1[tau]
                    if F[tau] + (s2[tp] - s2[tau]) - a * a / m > F[tp]:
                        continue
                cand[k] = tau
                k += 1
            ncand = k
        if ncand > max_live:
            max_live = ncand
    return last, F[n], max_live


def _backtrack(last: np.ndarray, n: int) -> np.ndarray:
    cps = []
    t = n
    while t > 0:
        t = int(last[t])
        if t > 0:
            cps.append(t)
    return np.array(cps[::-1], dtype=np.int64)


def _prep(y, penalty, min_size):
    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.ndim != 1:
        raise ValueError("y must be one-dimensional")
    if not np.all(np.isfinite(y)):
        raise ValueError("y must be finite")
    if not (penalty >= 0 and np.isfinite(penalty)):
        raise ValueError("penalty must be a finite number >= 0")
    min_size = int(min_size)
    if min_size < 1:
        raise ValueError("min_size must be >= 1")
    return y, float(penalty), min_size


def fpop(y, penalty: float, min_size: int = 1, *, return_stats: bool = False):
    """Exact L2 segmentation by functional pruning.

    Returns the sorted change points (indices where a new segment starts, 0 < i < n). With
    ``return_stats``, also ``{"cost": optimal penalised cost, "max_candidates": peak number of
    live candidates}``.
    """
    y, penalty, min_size = _prep(y, penalty, min_size)
    n = y.shape[0]
    if n < 2 * min_size:
        cps, stats = np.zeros(0, dtype=np.int64), {"cost": float(np.sum((y - y.mean()) ** 2)) if n else 0.0, "max_candidates": 1}
    else:
        last, cost, total = _fpop_l2(y, penalty, min_size)
        cps, stats = _backtrack(last, n), {"cost": float(cost), "mean_pieces": total / n}
    return (cps, stats) if return_stats else cps


def pelt(y, penalty: float, min_size: int = 1, *, return_stats: bool = False):
    """Exact L2 segmentation by PELT (inequality pruning); same optimum as :func:`fpop`."""
    y, penalty, min_size = _prep(y, penalty, min_size)
    n = y.shape[0]
    if n < 2 * min_size:
        cps, stats = np.zeros(0, dtype=np.int64), {"cost": float(np.sum((y - y.mean()) ** 2)) if n else 0.0, "max_candidates": 1}
    else:
        last, cost, max_live = _pelt_l2(y, penalty, min_size)
        cps, stats = _backtrack(last, n), {"cost": float(cost), "max_candidates": int(max_live)}
    return (cps, stats) if return_stats else cps
