"""Significance of detected changes: the elimination path, family-wise p-values and FDR q-values.

The candidates of the penalised search are removed one at a time, weakest first (:mod:`._eliminate`); the
strength of a candidate is ``s`` = the largest removal statistic up to and including its own removal (so the
reported sets are nested: at threshold x, every change with s >= x). The statistic of a change is the squared
two-sample z of its adjacent segments in long-run noise units, with the 1/f allowance in the variance
(:mod:`.noise`).

``p_value`` (family-wise): the probability that stationary noise of this length gives a change at least this
strong anywhere. It is read from a table calibrated by simulation (:mod:`._calibration`, written by
``benchmarks/changepoints_calibrate.py``): for series lengths from 20 to 10,000 values, the strongest path
statistic of null series of every calibration family (Gaussian, AR(1) 0.25 and 0.5, Student-t(3), t3 + AR 0.5,
tick-quantised, spiked, 1/f wander within the allowance; log-normal in the min_size >= 2 tables), separately per
cost and for ``min_size`` 1 and >= 2;
the table holds, per length, the statistic that at most 50 % ... 0.2 % of the series of *every* family exceed.
Between table points log p is interpolated linearly in the statistic and the thresholds linearly in log n;
beyond 0.2 % the tail decays exponentially with the slope of its last stretch (at most 1/2 per unit, the
chi-square rate); beyond 10,000 values the thresholds grow by 2 ln(n / 10,000) (the number of places a
spurious change can sit grows like n). Under the composite null the p-value is thus valid for all of these
families at once (the supremum of their tail probabilities), conservative for most of them.

``q_value`` (false discovery rate, Benjamini-Hochberg along the path): with the candidates sorted strongest
first, ``q_k = min_{j >= k} p_j / j``. A change is reported when ``q <= alpha``: with no change in the series
this is the family-wise level (q = p for the strongest), and when a series has many changes the later ones
need less evidence each (an expected share alpha of the reported changes is false), which is what lets dense
changes through without loosening the null false-alarm rate. Brief excursions are the exception: a change
whose shorter adjacent segment (at its removal) holds fewer than ``SHORT`` = 10 values keeps ``q = p`` and does
not count in the ranks. Short runs of outlying values are what heavy tails, skew and clustered spikes produce
by chance, and a spurious excursion brings two changes at once; letting real changes elsewhere lower their
bar (measured on log-normal noise) reported them in 25-45 % of series with three real steps. Nor does a
candidate whose own removal statistic is under half its path strength add a rank (it inherits its strength
from a stronger change removed before it: the other edge of an excursion, once the first edge is gone, tests
almost nothing): one excursion of >= 10 values is one piece of evidence, not two (as two ranks, q = p / 2
reported excursions with p up to 2 alpha: null false alarms 2-3 % on AR(1), 1/f and log-normal noise; the
dense case's F1 0.849 -> 0.836).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ._calibration import QS, TABLE

_LNQ = np.log(np.asarray(QS))
SHORT = 10  # values: a shorter adjacent segment makes a change a brief excursion (family-wise test only)
_B_MIN = 2.0  # slowest tail decay used beyond the table (chi-square rate)


@lru_cache(maxsize=8)
def _table(cost: str, ms: int) -> tuple[np.ndarray, np.ndarray]:
    rows = TABLE[(cost, ms)]
    return np.log([r[0] for r in rows]), np.array([r[1] for r in rows], dtype=np.float64)


def thresholds(n: int, cost: str, min_size: int) -> np.ndarray:
    """Path statistics at survival QS for series length ``n`` (interpolated in log n, see module docstring)."""
    lnN, T = _table(cost if cost in ("l2", "robust") else "l2", 1 if min_size <= 1 else 2)
    ln = math.log(max(n, 2))
    if ln >= lnN[-1]:
        return T[-1] + _B_MIN * (ln - lnN[-1])
    if ln <= lnN[0]:
        return T[0].copy()
    j = int(np.searchsorted(lnN, ln))
    w = (ln - lnN[j - 1]) / (lnN[j] - lnN[j - 1])
    return (1.0 - w) * T[j - 1] + w * T[j]


def familywise_p(s: np.ndarray, n: int, cost: str, min_size: int) -> np.ndarray:
    """Family-wise p-values of path strengths ``s`` (see the module docstring)."""
    t = thresholds(n, cost, min_size)
    x = np.concatenate([[0.0], np.maximum.accumulate(np.maximum(t, 0.0))])
    x = x + 1e-9 * np.arange(x.size)  # strictly increasing knots
    y = np.concatenate([[0.0], _LNQ])
    b = max(_B_MIN, (x[-1] - x[-3]) / (y[-3] - y[-1]))
    s = np.asarray(s, dtype=np.float64)
    lnp = np.where(s <= x[-1], np.interp(s, x, y), y[-1] - (s - x[-1]) / b)
    return np.minimum(1.0, np.exp(lnp))


def threshold(alpha: float, n: int, cost: str, min_size: int) -> float:
    """Path strength at which the family-wise p-value equals ``alpha`` (bisection on :func:`familywise_p`)."""
    lo, hi = 0.0, 10.0
    while familywise_p(np.array([hi]), n, cost, min_size)[0] > alpha:
        hi *= 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if familywise_p(np.array([mid]), n, cost, min_size)[0] > alpha:
            lo = mid
        else:
            hi = mid
    return hi


def path_values(stat: np.ndarray, short: np.ndarray, n: int, cost: str,
                min_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For removal statistics ``stat`` (weakest first) and the shorter adjacent segment at removal ``short``:
    strengths s, p-values and q-values, in removal order (see the module docstring)."""
    stat = np.asarray(stat, dtype=np.float64)
    if stat.size == 0:
        return stat, stat, stat
    s = np.maximum.accumulate(stat)
    p = familywise_p(s, n, cost, min_size)
    brief = np.asarray(short) < SHORT
    q = p.copy()
    long_ = ~brief
    if long_.any():
        pl = p[long_]
        own = (stat >= 0.5 * s)[long_]  # its own statistic is of the size of the path strength (not inherited)
        k = np.maximum(np.cumsum(own[::-1])[::-1], 1)  # rank among the sustained candidates, 1 = strongest
        q[long_] = np.minimum.accumulate(pl / k)  # min over weaker ranks j >= k (earlier removals)
    return s, p, np.minimum(q, 1.0)
