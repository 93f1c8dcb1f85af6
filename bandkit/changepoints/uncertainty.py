"""Uncertainty of detected change points: location confidence intervals and significance.

Both work on the standardised search series ``z`` (noise SD 1) and treat the neighbouring
change points as fixed.

* :func:`location_ci` — residual bootstrap (Hušková & Kirch 2008): rebuild the two adjacent
  segments from their fitted levels plus residuals resampled within each side, re-estimate the
  single change location by least squares, and form the *basic* bootstrap interval from the
  displacements. Only a window of ``~40 (sigma/delta)^2`` samples each side is used (the
  location error scales as (sigma/delta)^2; Bai 1997 gives a 95 % half-width of ~11 of those
  units for Gaussian noise), capped at ``max_window``.
* :func:`cusum_p_value` — local CUSUM test of "no change between the neighbouring change
  points": ``T = max_k |S_k - k/m S_m| / sqrt(m)``; under H0 ``T`` tends to the supremum of a
  Brownian bridge, whose tail is Kolmogorov's distribution. The maximum over k accounts for
  searching the location; the choice of the stretch by the segmentation is not accounted for,
  so small p-values are optimistic for marginal changes (measured in the tests).
"""
from __future__ import annotations

import numpy as np
from scipy import special


def cusum_p_value(z: np.ndarray, start: int, end: int, scale: float = 1.0) -> float:
    """p-value of the sup-CUSUM statistic of ``z[start:end]`` (noise SD ``scale``)."""
    seg = np.asarray(z[start:end], dtype=np.float64)
    m = seg.size
    if m < 2:
        return 1.0
    s = np.cumsum(seg - seg.mean())[:-1]
    t = float(np.max(np.abs(s))) / (scale * np.sqrt(m))
    return float(special.kolmogorov(t))


def _best_split(w: np.ndarray, min_size: int) -> np.ndarray:
    """Least-squares single change location in each row of ``w`` (B, L): index in 1..L-1."""
    L = w.shape[1]
    cs = np.cumsum(w, axis=1)
    tot = cs[:, -1:]
    k = np.arange(1, L, dtype=np.float64)
    # maximise the between-segment sum of squares S_k^2/k + (S-S_k)^2/(L-k)
    sk = cs[:, :-1]
    gain = sk * sk / k + (tot - sk) ** 2 / (L - k)
    lo = max(min_size, 1) - 1
    hi = L - max(min_size, 1)
    if hi < lo:
        return np.full(w.shape[0], L // 2)
    return np.argmax(gain[:, lo:hi + 1], axis=1) + lo + 1


def location_ci(z: np.ndarray, index: int, start: int, end: int, *, min_size: int = 1,
                level: float = 0.95, n_boot: int = 200, max_window: int = 2000,
                rng: np.random.Generator | None = None) -> tuple[int, int]:
    """Bootstrap confidence interval (inclusive indices) for a change at ``index`` between
    segments ``z[start:index]`` and ``z[index:end]``."""
    rng = np.random.default_rng(0) if rng is None else rng
    left = z[start:index]
    right = z[index:end]
    ml, mr = left.mean(), right.mean()
    delta = abs(mr - ml)
    resid = np.concatenate([left - ml, right - mr])
    sd = float(np.std(resid)) or 1.0
    reach = 40.0 * (sd / delta) ** 2 if delta > 0 else np.inf
    W = int(min(max_window, max(20.0, np.ceil(reach))))
    wa = max(start, index - W)
    wb = min(end, index + W)
    el = z[wa:index] - ml
    er = z[index:wb] - mr
    nl, nr = el.size, er.size
    boot = np.empty((n_boot, nl + nr))
    boot[:, :nl] = ml + el[rng.integers(0, nl, size=(n_boot, nl))]
    boot[:, nl:] = mr + er[rng.integers(0, nr, size=(n_boot, nr))]
    est = wa + _best_split(boot, min_size)
    d = est - index
    alpha = 1.0 - level
    q_lo = int(np.quantile(d, alpha / 2, method="lower"))
    q_hi = int(np.quantile(d, 1 - alpha / 2, method="higher"))
    lo = max(start + min_size, index - q_hi, start + 1)
    hi = min(end - min_size, index - q_lo, end - 1)
    lo = min(lo, index)
    hi = max(hi, index)
    return int(lo), int(hi)
