"""Penalty of the search, per change, in units of the noise variance of the standardised search series.

The L2 cost of a segment is the Gaussian negative log-likelihood (times 2) once the data are divided by the
noise SD, so standard criteria apply: ``"bic"`` = 2 log n (location and level), ``"mbic"`` = 3 log n (Zhang &
Siegmund's modified BIC, the R ``changepoint`` default; its small segment-length term is left out). With these
(or a number) the search result is the classical penalised segmentation on a white-noise scale.

``"auto"``: the search only proposes candidates, with the low penalty log n on the long-run noise scale; which
of them are reported is decided by their significance (:mod:`.significance`), so the penalty does not have
to carry the false-alarm control and dense changes are not lost to it.
"""
from __future__ import annotations

import math

import numpy as np

from ..robust import robust_sd


PENALTIES = ("auto", "bic", "mbic")


def criterion_penalty(rule: str, n: int) -> float:
    """Penalty per change for ``rule`` in ("auto", "bic", "mbic")."""
    ln = math.log(max(int(n), 2))
    if rule == "auto":
        return ln
    if rule == "bic":
        return 2.0 * ln
    if rule == "mbic":
        return 3.0 * ln
    raise ValueError(f"unknown penalty rule {rule!r}; use one of {PENALTIES} or a number")


def diff_scale(y: np.ndarray) -> float:
    """Noise SD from first differences: 1.4826 * MAD(diff(y)) / sqrt(2) (used by :mod:`bandkit.history`).

    Insensitive to level changes (each moves one difference) and to outliers; for white noise
    it estimates the noise SD. Falls back to the SD of the differences, then to 1.0.
    """
    y = np.asarray(y, dtype=np.float64)
    if y.size < 3:
        return 1.0
    d = np.diff(y)
    s = robust_sd(d) / np.sqrt(2.0)
    if not s > 0:
        s = np.std(d) / np.sqrt(2.0)
    return float(s) if s > 0 else 1.0


def robust_lag1(resid: np.ndarray) -> float:
    """Robust lag-1 autocorrelation of residuals (Gnanadesikan-Kettenring with MAD scales), clipped to
    [0, 0.95] (negative correlation is ignored: it only makes a test conservative). Used by
    :mod:`bandkit.postmortem`."""
    r = np.asarray(resid, dtype=np.float64)
    if r.size < 10:
        return 0.0
    a, b = r[:-1], r[1:]
    s_plus = np.median(np.abs((a + b) - np.median(a + b)))
    s_minus = np.median(np.abs((a - b) - np.median(a - b)))
    if s_plus + s_minus <= 0:
        return 0.0
    rho = (s_plus**2 - s_minus**2) / (s_plus**2 + s_minus**2)
    return float(np.clip(rho, 0.0, 0.95))


def long_run_factor(rho: float) -> float:
    """SD inflation sqrt((1 + rho) / (1 - rho)) of a mean under AR(1) noise with lag-1 correlation rho."""
    v = (1.0 + rho) / (1.0 - rho)
    # (math.sqrt and np.sqrt are both IEEE-754's correctly rounded square root: the same float, without numpy's
    # ~1 us a call on a scalar; a NaN or a negative ratio (|rho| > 1) goes to np.sqrt for its NaN and warning)
    return math.sqrt(v) if v >= 0 else float(np.sqrt(v))
