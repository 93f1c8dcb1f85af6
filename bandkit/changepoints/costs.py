"""Segment costs for a change in level, as transforms onto the L2 (normal-mean) cost.

The search (:mod:`.fpop`) minimises sum over segments of sum (z_i - mean_segment)^2 for a
search series ``z``; each cost here says how ``z`` is obtained from the values:

* ``"l2"``: ``z = (y - median(y)) / sigma`` with a robust noise scale ``sigma``
  (:func:`bandkit.changepoints.penalty.noise_scale`): the Gaussian change-in-mean likelihood.
  Efficient for light-tailed noise; a single outlier can form its own segment.
* ``"robust"``: ``z`` = the values winsorised around their running median (9 values):
  ``rm + clip(y - rm, -2 s, 2 s)`` with ``s`` the robust SD (1.4826 MAD) of ``y - rm``, then
  standardised as for "l2": a Huber-type cost. A running median follows level changes (it
  preserves edges), so a genuine step is kept whole, while an outlier or a short run of them can
  move the fit by at most 2 s per value: runs shorter than ~ penalty / 4 values (about
  (3/4) log n) cannot form a segment, whatever their size, and skewed or heavy tails are cut at
  2 s. For Gaussian noise this clips ~5 % of the values by a little (efficiency loss of a few
  per cent). Levels are then reported as segment medians of the original values.
``"auto"`` picks ``"robust"`` when the residuals of an L2 segmentation look heavy-tailed or
spiky (see :func:`choose_cost`).
"""
from __future__ import annotations

import numpy as np
from scipy import special

from ..robust import robust_sd

COSTS = ("l2", "robust")


CLIP = 2.0  # winsorising bound, in robust SDs
WIDTH = 9  # running-median width (values)


def winsorize_local(y: np.ndarray, width: int = WIDTH, clip: float = CLIP) -> np.ndarray:
    """``rm + clip(y - rm, -clip s, clip s)``: ``rm`` the running median over ``width`` values,
    ``s`` = 1.4826 MAD of ``y - rm`` (the SD of the differences / sqrt 2 if that MAD is 0)."""
    from scipy.ndimage import median_filter

    y = np.asarray(y, dtype=np.float64)
    if y.size < 3:
        return y.copy()
    rm = median_filter(y, size=min(width, y.size), mode="nearest")
    r = y - rm
    s = robust_sd(r)
    if not s > 0:
        s = np.std(np.diff(y)) / np.sqrt(2.0)
    if not s > 0:
        return y.copy()
    return rm + np.clip(r, -clip * s, clip * s)


def normal_scores(y: np.ndarray, clip: float = CLIP) -> np.ndarray:  # kept for comparisons
    """Normal scores of the (average) ranks, Phi^-1((rank - 0.5) / n), winsorised at +-clip.

    Winsorising bounds what a run of k adjacent outliers can gain (k * clip^2 in noise-variance
    units), so runs shorter than ~ penalty / clip^2 (about (3/4) log n values) cannot form a
    segment of their own; longer genuine segments still can."""
    y = np.asarray(y, dtype=np.float64)
    n = y.size
    from scipy.stats import rankdata

    r = rankdata(y, method="average")
    return np.clip(special.ndtri((r - 0.5) / n), -clip, clip)


def outlier_fraction(resid: np.ndarray, k: float = 5.0) -> float:
    """Fraction of residuals farther than ``k`` robust SDs (1.4826 MAD) from their median.

    Gaussian noise: 5.7e-7 for k = 5; Student-t(3): ~1 %; lognormal(sigma=0.5): ~0.7 %; timings
    with 1 % of +50 % outliers: ~1 %.
    """
    r = np.asarray(resid, dtype=np.float64)
    if r.size == 0:
        return 0.0
    med = np.median(r)
    mad = robust_sd(r)
    if mad <= 0:
        # mostly tied (quantised) residuals: anything off the median is "far"
        return float(np.mean(r != med))
    return float(np.mean(np.abs(r - med) > k * mad))


def running_median_residuals(y: np.ndarray, width: int = 9) -> np.ndarray:
    """``y`` minus its running median over ``width`` values (edges: nearest-value padding)."""
    from scipy.ndimage import median_filter

    y = np.asarray(y, dtype=np.float64)
    return y - median_filter(y, size=min(width, max(1, y.size)), mode="nearest")


def choose_cost(resid: np.ndarray, rho: float = 0.0) -> str:
    """``"robust"`` when at least 2 and more than 0.1 % of the residuals (from a running median,
    :func:`running_median_residuals`) are 5-sigma outliers (heavy tails, spikes, strong skew)
    and the noise is not strongly autocorrelated (lag-1 ``rho`` < 0.5, from the penalty's noise
    model), else ``"l2"``. Strongly correlated residuals are slow excursions (few independent
    values), not evidence of heavy tails."""
    n = len(resid)
    if rho >= 0.5:
        return "l2"
    return "robust" if outlier_fraction(resid) > max(0.001, 1.5 / max(n, 1)) else "l2"
