"""``ChangePointDetector``: :func:`detect_changepoints` as a scikit-learn estimator.

Imports scikit-learn, so it is loaded only when the estimator is used (``bandkit.changepoints`` resolves the
name lazily; report start-up never pays for it). Follows the conventions of scikit-learn and skchange:
parameters only in ``__init__``, ``fit(X, y=None, *, times=None)`` returns self, fitted attributes end in
``_``, input validated by :func:`sklearn.utils.validation.validate_data`, ``NotFittedError`` before ``fit``.

``X`` is one series as a (n_samples, 1) array (scikit-learn's convention; ``values[:, None]`` or
``values.reshape(-1, 1)``). ``predict(X)`` gives, for each
sample of the fitted series, the index of its segment (0, 1, ...), so the estimator also works as a
segmenter; ``changepoints_`` holds the reported change-point indices. ``score(X, y)`` (when labels of the true
segments are given, e.g. from :func:`bandkit.synthetic.steps.steps`) is the TCPDBench F1 with a 5-sample margin,
which makes the parameters tunable with ``GridSearchCV``.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from .api import detect_changepoints


class ChangePointDetector(BaseEstimator):
    """scikit-learn estimator wrapping :func:`detect_changepoints` (same parameters, same defaults).

    Fitted attributes: ``result_`` (ChangePointResult), ``changepoints_`` (int64 indices of the reported
    changes), ``penalty_``, ``n_features_in_``, ``n_samples_fit_``.
    """

    def __init__(self, cost="auto", penalty="auto", alpha="auto", min_size=2, ci=True, confidence=0.95,
                 wander=0.3):
        self.cost = cost
        self.penalty = penalty
        self.alpha = alpha
        self.min_size = min_size
        self.ci = ci
        self.confidence = confidence
        self.wander = wander

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False
        return tags

    def _series(self, X, reset: bool) -> np.ndarray:
        X = validate_data(self, X, reset=reset, dtype=np.float64, ensure_min_samples=2)
        if X.shape[1] != 1:
            raise ValueError(f"ChangePointDetector takes one series: X must have 1 feature (shape (n, 1)), "
                             f"got {X.shape[1]}")
        return X[:, 0]

    def fit(self, X, y=None, *, times=None):
        """Detect the change points of series ``X`` (``y`` is ignored; ``times``: optional times in s)."""
        x = self._series(X, reset=True)
        self.result_ = detect_changepoints(x, times=times, cost=self.cost, penalty=self.penalty, alpha=self.alpha,
                                           min_size=self.min_size, ci=self.ci, confidence=self.confidence,
                                           wander=self.wander)
        self.changepoints_ = self.result_.indices
        self.penalty_ = self.result_.penalty
        self.n_samples_fit_ = x.size
        return self

    def predict(self, X):
        """Segment label (0, 1, ...) of every sample of the fitted series; ``X`` must have its length."""
        check_is_fitted(self, "result_")
        x = self._series(X, reset=False)
        if x.size != self.n_samples_fit_:
            raise ValueError(f"predict labels the fitted series: X has {x.size} samples, the fit had "
                             f"{self.n_samples_fit_}")
        return np.searchsorted(self.changepoints_, np.arange(x.size), side="right").astype(np.int64)

    def fit_predict(self, X, y=None, *, times=None):
        return self.fit(X, y, times=times).predict(X)

    def score(self, X, y):
        """TCPDBench F1 (margin 5) of the detected changes against the changes of the segment labels ``y``."""
        from .scoring import f_measure

        self.fit(X)
        labels = np.asarray(y).ravel()
        truth = (np.flatnonzero(np.diff(labels) != 0) + 1).tolist()
        return f_measure({"truth": truth}, self.changepoints_.tolist())
