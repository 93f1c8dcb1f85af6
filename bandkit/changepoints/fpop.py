"""Exact penalised segmentation for a change in mean (L2 cost): FPOP and PELT, compiled with numba.

Both minimise  sum over segments of  sum_i (y_i - mean_segment)^2  +  penalty * (#changes)
subject to every segment holding at least ``min_size`` values, and return the same optimum
(the tests check both against brute-force dynamic programming).

``fpop`` is functional pruning optimal partitioning (Maidstone, Hocking, Rigaill & Fearnhead
2017): the optimal cost as a function of the last segment's mean, Q_t(mu), is kept as a sorted
list of pieces, each owned by one candidate last change; each step takes the minimum with the
quadratic of a segment starting ``min_size`` values back, which cuts pieces at the roots of a
convex quadratic. Pieces no longer optimal anywhere disappear, so the work per value stays a
handful of pieces even when segments are millions of values long, where PELT's inequality
pruning keeps every candidate and becomes quadratic. Taking the minimum with a segment that
starts ``min_size`` values back (instead of a constant) makes the minimum segment length exact,
which the usual FPOP formulation does not offer.

Implementation (see ``_fpop_l2``): pieces are stored lazily through prefix sums of the centred
data, so adding a value touches no piece; the part of a piece's quadratic that is common to all
pieces cancels from every comparison, so each breakpoint carries a time-invariant value and one
pass over the pieces tells which ones the new candidate leaves whole (usually one contiguous
block that stays in place; only its two end pieces are cut). The same pass takes F(t) as the
smallest vertex value over the pieces. Written here rather than taken from skchange (whose FPOP
has no minimum segment length); the speed of the two is compared in
``benchmarks/changepoints_speed.py`` (results in benchmarks/RESULTS_changepoints.md).

``pelt`` (Killick, Fearnhead & Eckley 2012) is kept as a reference and for the benchmarks.
"""
from __future__ import annotations

import math
import types

import numpy as np
from .._numba import njit  # a numba kernel, run without numba on short inputs (see bandkit._numba)


@njit(cache=True, nogil=True, error_model="numpy")
def _fpop_l2(y, penalty, min_size):
    """Functional pruning. Q_t(mu) = min over eligible last changes tau of F(tau) + penalty +
    sum_{tau<i<=t} (y_i - mu)^2 is kept as pieces (intervals of mu, each owned by one tau).
    Recurrence: Q_t = min(Q_{t-1} + (y_t - mu)^2, q_t) with q_t the quadratic of a segment
    starting at tn = t - min_size (the newest eligible last change), so the minimum segment
    length is exact.

    Lazy representation: with prefix sums S1, S2 (of y centred on its mean, for precision) and
    K(tau) = F(tau) + penalty - S2(tau), the quadratic of tau at time t is
    G_tau(mu) + S2(t) - 2 mu S1(t) + t mu^2 with G_tau(mu) = K(tau) + 2 mu S1(tau) - tau mu^2.
    The part in brackets is common to all pieces, so comparisons between pieces use G only and
    never change with t: a piece stores just its tau, the breakpoints between pieces and the
    (time-invariant) value of G at every breakpoint; nothing is updated when a point is added.

    Adding candidate tn: a piece whose both ends are below G_tn stays whole (a convex difference,
    negative at both ends); usually those form one contiguous block that stays in place in the
    buffer, and only the piece at each end of the block is cut at a root and the outer pieces
    replaced by tn. Anything else goes through the general piece-by-piece merge.

    F(t) = smallest vertex value over the pieces before pruning and tn: every candidate's
    quadratic is >= Q_t and has its vertex (a segment mean) in [min y, max y], so any superset
    of the surviving candidates gives the same minimum."""
    n = y.shape[0]
    ms = min_size
    shift = 0.0
    for i in range(n):
        shift += y[i]
    shift /= n
    S1 = np.empty(n + 1)
    S1[0] = 0.0
    acc = 0.0
    lo0 = np.inf
    hi0 = -np.inf
    for i in range(n):
        v = y[i] - shift
        acc += v
        S1[i + 1] = acc
        if v < lo0:
            lo0 = v
        if v > hi0:
            hi0 = v
    K = np.empty(n + 1)  # F(tau) + penalty - S2(tau); inf where no segmentation exists
    K[0] = 0.0
    last = np.zeros(n + 1, dtype=np.int64)
    # pieces s .. s+npc-1 of a buffer with free room on both sides: piece k spans
    # br[k] .. br[k+1], is owned by tau_[k]; V[k] = G of the function at br[k]
    cap = 256
    br = np.empty(cap + 1)
    V = np.empty(cap + 1)
    tau_ = np.empty(cap, dtype=np.int64)
    tbr = np.empty(cap + 1)  # scratch for the general merge
    tV = np.empty(cap + 1)
    ttau = np.empty(cap, dtype=np.int64)
    s = 0
    npc = 0
    total_pieces = 0
    S2 = 0.0
    Fn = np.inf
    tk = 0
    for t in range(1, n + 1):
        v = y[t - 1] - shift
        S2 += v * v
        S1t = S1[t]
        tn = t - ms
        best = np.inf
        barg = -1
        if tn >= 0 and K[tn] < np.inf:
            Kn = K[tn]
            S1n = S1[tn]
            ftn = float(tn)
            two_s = 2.0 * S1n  # G_tn(x) = Kn + x * (two_s - ftn * x)
            if npc == 0:
                s = cap // 2
                br[s] = lo0
                br[s + 1] = hi0
                V[s] = Kn + lo0 * (two_s - ftn * lo0)
                V[s + 1] = Kn + hi0 * (two_s - ftn * hi0)
                tau_[s] = tn
                npc = 1
            else:
                if 2 * npc + 4 > cap // 2:
                    ncap = 4 * (2 * npc + 4)
                    nbr = np.empty(ncap + 1)
                    nV = np.empty(ncap + 1)
                    ntau = np.empty(ncap, dtype=np.int64)
                    ns = (ncap - npc) // 2
                    nbr[ns:ns + npc + 1] = br[s:s + npc + 1]
                    nV[ns:ns + npc + 1] = V[s:s + npc + 1]
                    ntau[ns:ns + npc] = tau_[s:s + npc]
                    br = nbr
                    V = nV
                    tau_ = ntau
                    s = ns
                    cap = ncap
                    tbr = np.empty(cap + 1)
                    tV = np.empty(cap + 1)
                    ttau = np.empty(cap, dtype=np.int64)
                # one pass: sign of (current function - candidate) at every breakpoint (first and
                # last negative one, how many), whether a piece with both ends above the
                # candidate dips below it inside, and the vertex values for F(t)
                x = br[s]
                dprev = V[s] - (Kn + x * (two_s - ftn * x))
                nneg = 1 if dprev < 0.0 else 0
                jl = 0 if dprev < 0.0 else npc + 1
                jr = 0 if dprev < 0.0 else -1
                dip = False
                for k in range(npc):
                    tk = tau_[s + k]
                    Sk = S1[tk]
                    Kk = K[tk]
                    D = S1t - Sk
                    val = Kk - D * D / (t - tk)
                    if val < best:
                        best = val
                        barg = tk
                    lo = x
                    x = br[s + k + 1]
                    dj = V[s + k + 1] - (Kn + x * (two_s - ftn * x))
                    neg = dj < 0.0
                    nneg += neg
                    jr = k + 1 if neg else jr
                    jl = k + 1 if (neg and jl > npc) else jl
                    a = ftn - tk  # difference G_tk - G_tn = a x^2 - 2 d x + c, a > 0
                    d = S1n - Sk
                    dip |= (dprev >= 0.0) & (dj >= 0.0) & (lo * a < d) & (d < x * a) & (d * d > a * (Kk - Kn))
                    dprev = dj
                if nneg > 0 and not dip and nneg == jr - jl + 1:
                    # breakpoints jl..jr (pieces jl..jr-1) stay as they are
                    L = 0  # pieces written left of the block: [tn], [cut piece jl-1]
                    r1 = lo0
                    if jl > 0:
                        tk = tau_[s + jl - 1]
                        a = ftn - tk
                        d = S1n - S1[tk]
                        disc = d * d - a * (K[tk] - Kn)
                        r1 = (d - np.sqrt(disc if disc > 0.0 else 0.0)) / a
                        if r1 < br[s + jl - 1]:
                            r1 = br[s + jl - 1]
                        if r1 < br[s + jl]:
                            L = 2 if lo0 < r1 else 1
                        else:  # the cut piece vanished
                            r1 = br[s + jl]
                            L = 1
                    R = 0  # pieces written right of the block: [cut piece jr], [tn]
                    r2 = hi0
                    tr = 0
                    if jr < npc:
                        tr = tau_[s + jr]
                        a = ftn - tr
                        d = S1n - S1[tr]
                        disc = d * d - a * (K[tr] - Kn)
                        r2 = (d + np.sqrt(disc if disc > 0.0 else 0.0)) / a
                        if r2 > br[s + jr + 1]:
                            r2 = br[s + jr + 1]
                        if r2 > br[s + jr]:
                            R = 2 if r2 < hi0 else 1
                        else:
                            r2 = br[s + jr]
                            R = 1
                    ns = s + jl - L
                    ne = s + jr + R  # last breakpoint
                    if ns < 0 or ne > cap:
                        # move the kept block to the middle of the buffer
                        nm = jr - jl + 1
                        ns2 = (cap - (nm + 4)) // 2 + 2
                        if ns2 < s + jl:
                            for j in range(nm):
                                br[ns2 + j] = br[s + jl + j]
                                V[ns2 + j] = V[s + jl + j]
                                if j < nm - 1:
                                    tau_[ns2 + j] = tau_[s + jl + j]
                        elif ns2 > s + jl:
                            for j in range(nm - 1, -1, -1):
                                br[ns2 + j] = br[s + jl + j]
                                V[ns2 + j] = V[s + jl + j]
                                if j < nm - 1:
                                    tau_[ns2 + j] = tau_[s + jl + j]
                        s = ns2 - jl
                        ns = s + jl - L
                        ne = s + jr + R
                    if L == 2:
                        br[ns] = lo0
                        V[ns] = Kn + lo0 * (two_s - ftn * lo0)
                        tau_[ns] = tn
                        br[ns + 1] = r1
                        V[ns + 1] = Kn + r1 * (two_s - ftn * r1)
                        tau_[ns + 1] = tk
                    elif L == 1:  # the cut piece starts at lo0, or vanished and tn takes its place
                        br[ns] = lo0
                        V[ns] = Kn + lo0 * (two_s - ftn * lo0)
                        tau_[ns] = tn if r1 >= br[s + jl] else tk
                    if R == 2:
                        b1 = s + jr
                        tau_[b1] = tr
                        br[b1 + 1] = r2
                        V[b1 + 1] = Kn + r2 * (two_s - ftn * r2)
                        tau_[b1 + 1] = tn
                        br[b1 + 2] = hi0
                        V[b1 + 2] = Kn + hi0 * (two_s - ftn * hi0)
                    elif R == 1:
                        b1 = s + jr
                        tau_[b1] = tn if r2 <= br[s + jr] else tr
                        br[b1 + 1] = hi0
                        V[b1 + 1] = Kn + hi0 * (two_s - ftn * hi0)
                    s = ns
                    npc = ne - ns
                else:
                    # general merge, piece by piece: piece k keeps the part of its interval
                    # where it is below the candidate (between the roots of the difference);
                    # the gaps between kept parts go to the candidate
                    nq = 0
                    gap = lo0
                    for k in range(npc):
                        tk = tau_[s + k]
                        a = ftn - tk
                        d = S1n - S1[tk]
                        c = K[tk] - Kn
                        lo = br[s + k]
                        hi = br[s + k + 1]
                        gl = (a * lo - 2.0 * d) * lo + c
                        gh = (a * hi - 2.0 * d) * hi + c
                        if gl < 0.0:
                            if gh >= 0.0:
                                disc = d * d - a * c
                                r = (d + np.sqrt(disc if disc > 0.0 else 0.0)) / a
                                if r < hi:
                                    hi = r
                                if lo >= hi:
                                    continue
                        elif gh < 0.0:
                            disc = d * d - a * c
                            r = (d - np.sqrt(disc if disc > 0.0 else 0.0)) / a
                            if r > lo:
                                lo = r
                            if lo >= hi:
                                continue
                        else:
                            if not (lo * a < d and d < hi * a):
                                continue
                            disc = d * d - a * c
                            if disc <= 0.0:
                                continue
                            sq = np.sqrt(disc)
                            ra = (d - sq) / a
                            rb = (d + sq) / a
                            if ra > lo:
                                lo = ra
                            if rb < hi:
                                hi = rb
                            if lo >= hi:
                                continue
                        if gap < lo:
                            tbr[nq] = gap
                            tV[nq] = Kn + gap * (two_s - ftn * gap)
                            ttau[nq] = tn
                            nq += 1
                        tbr[nq] = lo
                        tV[nq] = Kn + lo * (two_s - ftn * lo) if lo != br[s + k] else V[s + k]
                        ttau[nq] = tk
                        nq += 1
                        gap = hi
                        tbr[nq] = hi
                        tV[nq] = Kn + hi * (two_s - ftn * hi) if hi != br[s + k + 1] else V[s + k + 1]
                    if gap < hi0 or nq == 0:
                        tbr[nq] = gap
                        tV[nq] = Kn + gap * (two_s - ftn * gap)
                        ttau[nq] = tn
                        nq += 1
                        tbr[nq] = hi0
                        tV[nq] = Kn + hi0 * (two_s - ftn * hi0)
                    s = (cap - nq) // 2
                    for j in range(nq):
                        br[s + j] = tbr[j]
                        V[s + j] = tV[j]
                        tau_[s + j] = ttau[j]
                    br[s + nq] = tbr[nq]
                    V[s + nq] = tV[nq]
                    npc = nq
            total_pieces += npc
            D = S1t - S1n
            val = Kn - D * D / ms
            if val < best:
                best = val
                barg = tn
        else:
            for k in range(s, s + npc):
                tk = tau_[k]
                D = S1t - S1[tk]
                val = K[tk] - D * D / (t - tk)
                if val < best:
                    best = val
                    barg = tk
        if npc == 0:
            K[t] = np.inf
            continue
        K[t] = best + penalty
        last[t] = barg
        Fn = best + S2
    return last, Fn, total_pieces


class _ListNumpy:
    """The numpy names :func:`_fpop_l2` uses, on Python lists and floats (see :func:`_on_lists`)."""

    inf = math.inf
    int64 = int
    sqrt = staticmethod(math.sqrt)

    @staticmethod
    def empty(size, dtype=float):
        return [0] * size if dtype is int else [0.0] * size

    zeros = empty


class _Values(list):
    """A list of floats with the ``shape`` of a 1-D array (what :func:`_fpop_l2` reads of ``y``)."""

    @property
    def shape(self):
        return (len(self),)


def _on_lists(kernel):
    """``kernel``'s Python function run on Python lists: its own code object with ``np`` bound to
    :class:`_ListNumpy`. Python floats are IEEE doubles and every operation is the one the function does on
    numpy scalars (and numba compiled), so the results are the same bit for bit, without numpy's per-element
    cost (a scalar read or an arithmetic operation on numpy scalars costs several times a list's)."""
    f = getattr(kernel, "py_func", kernel)
    return types.FunctionType(f.__code__, {**f.__globals__, "np": _ListNumpy}, f.__name__, f.__defaults__,
                              f.__closure__)


#: FPOP on Python lists (the same function, :func:`_on_lists`).
_fpop_l2_lists = _on_lists(_fpop_l2)

#: Up to this many values :func:`fpop` runs :data:`_fpop_l2_lists`: a post-mortem's run sequences (~20 run
#: means, a few hundred calls for a file of 60 benchmarks) are segmented in a fraction of the numpy stand-in's
#: time (its matrix of candidates costs ~0.15 ms a call in numpy calls; a near-tie sent it to FPOP on numpy
#: scalars, ~0.3 ms), and numba is neither imported nor compiled for them.
LISTS_MAX = 64


def fpop_lists(y: np.ndarray, penalty: float, min_size: int):
    """:func:`_fpop_l2` (``last``, optimal cost, pieces) of ``y`` (float64) run on Python lists."""
    return _fpop_l2_lists(_Values(y.tolist()), float(penalty), int(min_size))


def _centred_prefix(y: list) -> tuple[list, float]:
    """Prefix sums (from 0) of ``y`` minus its mean, and the largest |value - mean| (:func:`op_lists`'s inputs)."""
    shift = 0.0
    for v in y:
        shift += v
    shift /= len(y)
    S1 = [0.0] * (len(y) + 1)
    acc = 0.0
    vmax = 0.0
    i = 1
    for v in y:
        v -= shift
        acc += v
        S1[i] = acc
        i += 1
        if abs(v) > vmax:
            vmax = abs(v)
    return S1, vmax


def op_lists(y: list, penalty: float, min_size: int) -> list | None:
    """The change points of :func:`fpop_lists` (FPOP's path) by plain optimal partitioning on Python lists, or
    None where that path is not certain (then the caller runs FPOP). At each t the minimum over every eligible
    last change tau of K(tau) - (S1(t) - S1(tau))^2 / (t - tau): the expression, prefix sums and order of
    operations FPOP uses for its surviving candidates (a superset of them gives the same minimum, bit for bit,
    when it is unique), in ~n^2 / 2 steps of a Python loop instead of FPOP's piece bookkeeping (run means of a
    post-mortem: n ~ 20, ~4x faster). Where the second-best candidate comes within rounding of the best
    (:func:`bandkit.changepoints._numpy_kernels.fpop_l2`'s near-tie margin) at a time on the optimal path, FPOP's
    choice depends on the order of its pieces: None."""
    n = len(y)
    ms = min_size
    S1, vmax = _centred_prefix(y)
    inf = math.inf
    K = [inf] * (n + 1)
    K[0] = 0.0
    rows: list = [None] * (n + 1)  # (each time's candidate values: the argmin and the tie test on the optimal path only)
    cK: list[float] = []  # the eligible last changes with a finite K: K, S1 and tau (appended only: the
    cS: list[float] = []  # candidates of time t are the first len(rows[t]) of them)
    cT: list[int] = []
    for t in range(ms, n + 1):
        tn = t - ms
        if K[tn] != inf:
            cK.append(K[tn])
            cS.append(S1[tn])
            cT.append(tn)
        S1t = S1[t]
        vals = [k - (d := S1t - s1) * d / (t - tau) for k, s1, tau in zip(cK, cS, cT)]
        K[t] = min(vals) + penalty
        rows[t] = vals
    tie_abs = 1e-13 * n * vmax * vmax + 1e-12
    cps = []
    t = n
    while t > 0:
        vals = rows[t]
        best = min(vals)
        j = vals.index(best)
        if len(vals) > 1:
            vals[j] = inf
            sec = min(vals)
            if sec - best <= 1e-12 * (abs(best) + abs(sec)) + tie_abs:
                return None
        t = cT[j]
        if t > 0:
            cps.append(t)
    return cps[::-1]


#: Beyond this largest |value - mean| (or with a NaN or an infinity) :func:`op_many` leaves a row to :func:`op_lists`
#: (squares near overflow: the row-by-row loop and the padded one could meet an inf - inf differently).
_OP_MANY_VMAX = 1e100


def op_many(ys: list, penalties: list, min_size: int) -> list:
    """``[op_lists(y, p, min_size) for y, p in zip(ys, penalties)]`` for lists of finite floats (lengths may
    differ), the rows padded into one array: the same prefix sums (sequential, from 0.0: ``np.cumsum``), the same
    candidate values ``K(tau) - (S1(t) - S1(tau))^2 / (t - tau)`` element by element, the same first minimum and
    the same near-tie test on the optimal path (None for such a row, as op_lists). One numpy pass per time
    step for all rows instead of one Python loop per row (the post-mortem's segmentations of a file's ~20-run
    series: ~60 rows at once)."""
    ms = int(min_size)
    n = max((len(y) for y in ys), default=0)
    step = max(1, _OP_MANY_CELLS // ((n + 1) * (n + 1)))  # (rows a pass: its candidate values stay ~8 MB)
    out: list = []
    with np.errstate(over="ignore", invalid="ignore"):  # (far rows: their squares may overflow; op_lists answers them)
        for k in range(0, len(ys), step):
            out.extend(_op_many(ys[k:k + step], penalties[k:k + step], ms))
    return out


#: Candidate values (rows x (longest + 1)^2 float64) in one pass of :func:`op_many` at most: a compare of two files of
#: thousands of benchmarks classifies them all together (~2,000 rows of 64 runs would be ~70 MB in one pass).
_OP_MANY_CELLS = 1 << 20


def _op_many(ys: list, penalties: list, ms: int) -> list:
    out: list = [None] * len(ys)
    rows = [i for i, y in enumerate(ys) if len(y) >= max(ms, 1)]
    for i, y in enumerate(ys):
        if not len(y) >= max(ms, 1):  # (op_lists' own answer, or its error)
            out[i] = op_lists(list(y), float(penalties[i]), ms)
    if not rows:
        return out
    B = len(rows)
    lens = np.array([len(ys[i]) for i in rows], dtype=np.int64)
    n = int(lens.max())
    Z = np.zeros((B, n + 1))
    if int(lens.min()) == n:
        Z[:, 1:] = [ys[i] for i in rows]
    else:
        for r, i in enumerate(rows):
            Z[r, 1:lens[r] + 1] = ys[i]
    at = np.arange(B)
    shift = np.cumsum(Z, axis=1)[at, lens] / lens  # (Python's running sum from 0.0, over each row's own values)
    D = Z[:, 1:] - shift[:, None]
    past = np.arange(n)[None, :] >= lens[:, None]
    D[past] = 0.0  # (padding: no effect on a row's own times)
    Z[:, 1:] = D
    S1 = np.cumsum(Z, axis=1)
    vmax = np.abs(D).max(axis=1)
    tie_abs = 1e-13 * lens * vmax * vmax + 1e-12
    pen = np.array([float(penalties[i]) for i in rows])
    inf = math.inf
    K = np.full((B, n + 1), inf)
    K[:, 0] = 0.0
    V = np.full((B, n + 1, n + 1), inf)  # (each time's candidate values; the eligible taus of t: 0, ms..t-ms)
    best = np.zeros((B, n + 1), dtype=np.int64)
    taus = np.arange(n + 1)
    hi = min(ms, n + 1)
    for t in range(ms, n + 1):
        m = t - ms + 1
        d = S1[:, t:t + 1] - S1[:, :m]
        vals = V[:, t, :m]
        np.subtract(K[:, :m], d * d / (t - taus[:m]), out=vals)
        if m > 1 and hi > 1:
            vals[:, 1:min(hi, m)] = inf  # (taus 1..min_size-1: never a change, K infinite)
        j = vals.argmin(axis=1)
        best[:, t] = j
        K[:, t] = vals[at, j] + pen
    # the near-tie test at every time at once: the best and second-best candidate values
    b = V.min(axis=2)
    V[at[:, None], taus[None, :], best] = inf
    sec = V.min(axis=2)
    tie = np.isfinite(sec) & (sec - b <= 1e-12 * (np.abs(b) + np.abs(sec)) + tie_abs[:, None])  # (inf - inf: no)
    bt = best.tolist()
    tl = tie.tolist()
    far = (~(vmax <= _OP_MANY_VMAX)).tolist()  # (and a NaN or an infinity: op_lists' own arithmetic)
    for r, i in enumerate(rows):
        if far[r]:
            out[i] = op_lists(list(ys[i]), float(penalties[i]), ms)
            continue
        br, tr = bt[r], tl[r]
        t = int(lens[r])
        cps = []
        while t > 0:
            if tr[t]:
                cps = None
                break
            t = br[t]
            if t > 0:
                cps.append(t)
        out[i] = None if cps is None else cps[::-1]
    return out


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
    if not np.isfinite(y).all():
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
        if n <= LISTS_MAX and not return_stats:
            cps = op_lists(y.tolist(), penalty, min_size)
            if cps is not None:
                return np.array(cps, dtype=np.int64)
        last, cost, total = fpop_lists(y, penalty, min_size) if n <= LISTS_MAX else _fpop_l2(y, penalty, min_size)
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
