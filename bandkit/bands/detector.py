"""`BandDetector`: band finding as a scikit-learn estimator (the steps are in :mod:`.fit`).

This module imports scikit-learn. ``bandkit.bands.BandDetector`` loads it on first use only, so a
report, which calls :func:`~bandkit.bands.find_bands` (:mod:`.fit`), does not pay for scikit-learn.
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from . import dwell as dw
from .fit import BandParams, fit_bands

__all__ = ["BandDetector"]


class BandDetector(BaseEstimator):
    """Find bands (discrete performance levels) in a series: a scikit-learn estimator.

    ``X``: array-like of shape (n_samples, n_features), one row per observation, **in time order**.
    With one column the values are the series; with several, each row is one observation measured
    several times (e.g. the values of one benchmark run) and the series is the mean of each row's
    finite entries, as :func:`~bandkit.bands.find_bands` does with ``per_run=True``. NaN marks a
    missing observation (label -3). For a plain 1-D series use ``X = values.reshape(-1, 1)``, or
    :func:`~bandkit.bands.find_bands` (which also takes a :class:`~bandkit.Trace`).

    Parameters (stored as given; checked in :meth:`fit`, which raises ValueError for bad ones):

    n_bands: exact number of bands wanted (None: chosen by BIC + mode merging).
    min_separation: smallest relative distance between two band levels (0.008 = 0.8 %); closer
        levels are merged. Default 0.008: FTQ's work-loop granularity makes combs of counts ~0.35 %
        apart (1338, 1333, 1329 at 10 kHz) whose uneven teeth leave bumps up to ~0.7 % apart
        that are one level, not several; bands 1 % apart are still resolved.
    max_valley: adjacent modes are separate bands only if the fitted density at the valley between
        them is below ``max_valley`` x the lower of the two peaks (0.8: resolves equal bands about
        2.6 sd apart).
    min_share, min_count: smallest band (share of analysed samples, and samples).
    max_components: most Gaussians tried by BIC.
    core_width: a sample belongs to its band only within level +- core_width robust sds.
    tail_spread, tail_share: a band wider than ``tail_spread`` x its level (relative robust sd) that
        holds less than ``tail_share`` of the samples is the bump of a heavy tail (interrupted
        quanta), not a level: its samples become outliers.
    bridge_ratio: a band between two others whose robust sd exceeds ``bridge_ratio`` x the gap to
        its nearer neighbour (bands overlapping that much are not separate levels) is a bridge of
        straddling samples.
    max_transit: a band more than ``max_transit`` of whose samples sit alone between samples of two
        different other bands is a transit of switch-straddling quanta, not a level.
    background: fit a uniform background component (absorbs heavy tails; only with >= 100 samples).
    max_bins: histogram bins used when the values are neither integers nor few.
    higher_is_better: which side is degraded (FTQ counts: True; run times: False).
    max_gap: an unassigned sample is intermediate only if assigned samples of two different bands
        lie within ``max_gap`` positions on either side.
    random_state: unused (the fit is deterministic); accepted for scikit-learn compatibility.

    Fitted attributes: ``result_`` (:class:`~bandkit.bands.BandResult`), ``bands_``, ``labels_``
    (band index per row, or -1 intermediate, -2 outlier, -3 excluded), ``n_bands_``, ``levels_``,
    ``mixture_`` (the BIC-chosen mixture), ``bic_`` (dict k -> BIC), ``band_of_component_`` (band
    index per Gaussian, -1 if dropped), ``comb_period_`` (FTQ count comb, or None),
    ``n_features_in_``.
    """

    def __init__(self, n_bands: int | None = None, *, min_separation: float = 0.008,
                 max_valley: float = 0.8, min_share: float = 0.002, min_count: int = 3,
                 max_components: int = 10, core_width: float = 5.0, tail_spread: float = 0.05,
                 tail_share: float = 0.1, bridge_ratio: float = 0.3, max_transit: float = 0.5, background: bool = True,
                 max_bins: int = 8192, higher_is_better: bool = True, max_gap: int = 2,
                 random_state: int | None = 0):
        self.n_bands = n_bands
        self.min_separation = min_separation
        self.max_valley = max_valley
        self.min_share = min_share
        self.min_count = min_count
        self.max_components = max_components
        self.core_width = core_width
        self.tail_spread = tail_spread
        self.tail_share = tail_share
        self.bridge_ratio = bridge_ratio
        self.max_transit = max_transit
        self.background = background
        self.max_bins = max_bins
        self.higher_is_better = higher_is_better
        self.max_gap = max_gap
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # a missing observation is excluded, not an error
        return tags

    def fit(self, X, y=None, *, times=None, exclude=None) -> "BandDetector":
        """Fit on ``X`` (see the class); ``y`` is ignored. ``times`` (s, one per row) give dwell times
        in seconds; ``exclude`` (bool, one per row) marks rows not to analyse (stall-adjacent quanta)."""
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan")
        params = BandParams(**{name: getattr(self, name) for name in BandParams.names()})
        fitted = fit_bands(_series(X), times=times, exclude=exclude, params=params)
        self.result_ = fitted.result
        self.bands_ = fitted.result.bands
        self.labels_ = fitted.labels
        self.n_bands_ = fitted.result.n_bands
        self.levels_ = fitted.levels
        self.mixture_ = fitted.mixture
        self.bic_ = fitted.bic
        self.band_of_component_ = fitted.band_of_component
        self.comb_period_ = fitted.comb_period
        return self

    def fit_predict(self, X, y=None, *, times=None, exclude=None) -> np.ndarray:
        """``fit(X, ...)`` and return ``labels_`` (which, unlike :meth:`predict`, also tell
        intermediate samples from outliers by their neighbours in time)."""
        return self.fit(X, y, times=times, exclude=exclude).labels_

    def predict(self, X) -> np.ndarray:
        """Band index of each row by its value alone (-2 outside every band's [lo, hi])."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=False)
        v = _series(X)
        out = np.full(v.shape, dw.OUTLIER, dtype=np.int8)
        for b in self.result_.bands:
            out[(v >= b.lo) & (v <= b.hi)] = b.index
        return out


def _series(X: np.ndarray) -> np.ndarray:
    """The series of a validated 2-D ``X``: its column, or each row's mean of its finite entries."""
    if X.shape[1] == 1:
        return np.array(X[:, 0], dtype=np.float64)
    with warnings.catch_warnings():  # an all-NaN row is a missing observation, not a warning
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(X, axis=1)
