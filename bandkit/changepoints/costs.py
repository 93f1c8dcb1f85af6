"""Segment costs for a change in level, as transforms onto the L2 (normal-mean) cost, and the automatic choice.

The search (:mod:`.fpop`) minimises sum over segments of sum (z_i - mean_segment)^2 for a search series ``z``;
each cost says how ``z`` is obtained from the values:

* ``"l2"``: the values themselves (standardised by the noise model): the Gaussian change-in-mean likelihood.
  Efficient for light-tailed noise; an outlier or a short run of them can form its own segment.
* ``"robust"``: the values winsorised around their running median (15 values, windows truncated at the ends):
  ``rm + clip(y - rm, -2 s, 2 s)`` with ``s`` the tie-aware robust SD of ``y - rm``: a Huber-type cost. A running
  median follows level changes (it preserves edges), so a genuine step lasting 8 values or more is kept whole,
  while an outlier or a run of up to 7 can move the fit by at most 2 s per value. Levels are then reported as
  segment medians. (A 9-value window let clusters of 5 heavy-tailed values through; with 15 the null statistics
  of Student-t(3) noise are close to Gaussian ones: see benchmarks/RESULTS_calibration.md.)

``"auto"`` (:func:`choose_cost`) picks ``"robust"`` when the residuals from a running median show heavy tails or
spikes, and says why in a :class:`CostChoice`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import robust as _r


COSTS = ("l2", "robust")
CLIP = 2.0  # winsorising bound, in robust SDs
WIDTH = 15  # running-median width of the robust cost (values)
CHOICE_WIDTH = 9  # running-median width of the outlier check
OUTLIER_K = 5.0  # an outlier is farther than this many robust SDs from the running median


@dataclass(frozen=True)
class CostChoice:
    """Why a cost was used. ``reason``: "requested" (given by the caller), "outliers" (``outlier_fraction`` of the
    running-median residuals beyond 5 robust SDs exceeds ``threshold``), "extreme_outlier" (one value stands
    ``max_outlier`` robust SDs of the differences out from both neighbours, beyond ``extreme`` = sqrt(2 log n) + 3, which Gaussian noise of this length
    reaches with probability < 0.1 %), "light_tails" (neither). ``checked``: how many residuals were examined
    (every value up to 131,072, evenly spaced ones beyond)."""

    cost: str
    reason: str
    outlier_fraction: float | None = None
    threshold: float | None = None
    max_outlier: float | None = None
    extreme: float | None = None
    checked: int = 0

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def winsorize_local(y: np.ndarray, tick: float = 0.0, width: int = WIDTH, clip: float = CLIP) -> np.ndarray:
    """``rm + clip(y - rm, -clip s, clip s)``: ``rm`` the running median over ``width`` values, ``s`` the tie-aware
    robust SD of ``y - rm`` (the SD of the first differences / sqrt 2 if that is 0)."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.size < 3:
        return y.copy()
    rm = _r.running_median(y, width)
    r = y - rm
    s = _r.robust_sd(r[:: _r.stride_for(r.size)], tick)
    if not s > 0:
        s = float(np.std(np.diff(y))) / math.sqrt(2.0)
    if not s > 0:
        return y.copy()
    return rm + np.clip(r, -clip * s, clip * s)


def search_series(y: np.ndarray, cost: str, tick: float = 0.0) -> np.ndarray:
    """The series the search segments for ``cost`` (the values for "l2", winsorised values for "robust")."""
    return np.asarray(y, dtype=np.float64) if cost == "l2" else winsorize_local(y, tick)


def outlier_fraction(resid: np.ndarray, k: float = OUTLIER_K, tick: float = 0.0) -> float:
    """Fraction of residuals farther than ``k`` robust SDs (tie-aware 1.4826 MAD) from their median.

    Gaussian noise: 5.7e-7 for k = 5; Student-t(3): ~1 %; lognormal(sigma=0.5): ~0.7 %; timings with 1 % of
    +50 % outliers: ~1 %. With a zero robust SD (constant residuals) anything off the median counts."""
    r = np.ascontiguousarray(resid, dtype=np.float64)
    if r.size == 0:
        return 0.0
    s, med = _r._robust_sd(r, float(tick))
    if not s > 0:
        return float(np.mean(r != med))
    return float(np.mean(np.abs(r - med) > k * s))


def running_median_residuals(y: np.ndarray, width: int = CHOICE_WIDTH, stride: int = 1) -> np.ndarray:
    """``y`` minus its running median over ``width`` values (ends: truncated windows), every ``stride`` values."""
    return _r.running_median_residuals(y, width, stride)


def choose_cost(y: np.ndarray, tick: float = 0.0) -> CostChoice:
    """``"robust"`` when at least 2 and more than 0.1 % of the residuals from a running median (9 values) are
    5-sigma outliers ("outliers"), or when one value stands out on its own: it differs from both neighbours, in
    opposite directions, by more than sqrt(2 log n) + 3 robust SDs of the first differences / sqrt 2
    ("extreme_outlier"; a step moves only one of the two differences); else ``"l2"``. Long series are checked
    on 65,536 evenly spaced residuals (:func:`bandkit.changepoints.robust.stride_for`); the single-value check
    looks at every value."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    n = y.size
    stride = _r.stride_for(n)
    r = running_median_residuals(y, CHOICE_WIDTH, stride)
    m = r.size
    if m < 3:
        return CostChoice("l2", "light_tails", checked=m)
    s, med = _r._robust_sd(r, float(tick))
    thr = max(0.001, 1.5 / m)
    extreme = math.sqrt(2.0 * math.log(max(n, 3))) + 3.0
    if not s > 0:  # constant apart from a few values: those are outliers
        frac = float(np.mean(r != med))
        cost = "robust" if frac > thr else "l2"
        return CostChoice(cost, "outliers" if cost == "robust" else "light_tails", frac, thr, None, extreme, m)
    frac = float(np.mean(np.abs(r - med) > OUTLIER_K * s))
    # a single value that stands out from both neighbours (a step moves only one of its two differences; a
    # running median truncated at the ends takes the first runs of a step near the start for outliers)
    sd = _r.robust_sd(_r.lag_diffs(y, 1, _r.stride_for(n - 1)), tick) / math.sqrt(2.0)
    top = _r.spike_max(y) / sd if sd > 0 else 0.0
    if frac > thr:
        reason = "outliers"
    elif top > extreme:
        reason = "extreme_outlier"
    else:
        reason = "light_tails"
    return CostChoice("l2" if reason == "light_tails" else "robust", reason, frac, thr, top, extreme, m)
