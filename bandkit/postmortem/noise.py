"""The noise model of a run sequence: how far run means scatter around their level, how much of
that scatter persists from run to run, and the smallest scatter the measurement can resolve.

All scales are on ``x = log(run mean)``, i.e. relative (0.01 = 1 %).

- ``sigma``: robust sd of a run mean around its level: 1.4826 x MAD of the residuals from a
  segmentation (the scale of isolated deviations; outliers are judged against it), never below
  the ``floor``.
- ``rho``: robust lag-1 autocorrelation of those residuals (0..0.95); ``sigma_lr = sigma x
  sqrt((1 + rho) / (1 - rho))`` is the long-run sd that a mean of many consecutive runs has
  under AR(1) noise - the scale of tests on block means (steps, episodes, drifts).
- ``floor``: the largest of ``noise_floor`` (default 0.2 %), the quantisation step of the values
  (``tick / level / sqrt 12``: whole-millisecond timings of a 2 ms test cannot resolve less than
  ~14 %), and the within-run standard error of a run mean (``within``, from runs with several
  values: the run-to-run scatter can not be smaller than each run's own sampling error).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..changepoints.fpop import fpop
from ..changepoints.penalty import long_run_factor, robust_lag1

_MAD = 1.482602218505602


@dataclass(frozen=True)
class RunNoise:
    """Noise of a run sequence (relative, see the module docstring)."""

    sigma: float
    sigma_lr: float
    rho: float
    floor: float
    tick_rel: float | None = None
    within: float | None = None

    def to_dict(self) -> dict:
        return {"sigma": self.sigma, "sigma_long_run": self.sigma_lr, "rho": self.rho, "floor": self.floor,
                "tick_rel": self.tick_rel, "within_run": self.within}


def detect_tick(values: np.ndarray, max_decimals: int = 6) -> float | None:
    """The quantisation step of ``values`` (e.g. 1.0 for whole milliseconds), or None when they are
    not on a grid of at most ``max_decimals`` decimals. Exact: the greatest common divisor of the
    scaled differences between distinct values."""
    v = np.unique(np.asarray(values, dtype=np.float64))
    v = v[np.isfinite(v)]
    if v.size < 2 or np.max(np.abs(v)) > 1e12:
        return None
    for d in range(max_decimals + 1):
        s = v * 10.0 ** d
        r = np.round(s)
        if np.all(np.abs(s - r) <= 1e-6 * np.maximum(1.0, np.abs(s))):
            g = int(np.gcd.reduce(np.diff(r).astype(np.int64)))
            return g / 10.0 ** d if g > 0 else None
    return None


def within_run_se(values: np.ndarray, runs: np.ndarray) -> float | None:
    """Median standard error of a run mean from the spread of values within runs (relative to the
    run mean), over runs with at least 2 values; None without such runs."""
    v = np.asarray(values, dtype=np.float64)
    r = np.asarray(runs)
    if v.size == 0:
        return None
    order = np.argsort(r, kind="stable")
    v, r = v[order], r[order]
    starts = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
    counts = np.diff(np.r_[starts, v.size])
    if not np.any(counts >= 2):
        return None
    sums = np.add.reduceat(v, starts)
    means = sums / counts
    dev2 = np.add.reduceat((v - np.repeat(means, counts)) ** 2, starts)
    ok = (counts >= 2) & (means > 0)
    if not ok.any():
        return None
    sd = np.sqrt(dev2[ok] / (counts[ok] - 1)) / means[ok]
    return float(np.median(sd / np.sqrt(counts[ok])))


def segment_medians(x: np.ndarray, cps: np.ndarray) -> np.ndarray:
    """Per-point median of the segment it lies in (segments start at 0 and at ``cps``)."""
    bounds = np.r_[0, cps, x.size].astype(np.int64)
    out = np.empty_like(x)
    for a, b in zip(bounds[:-1], bounds[1:]):
        out[a:b] = np.median(x[a:b])
    return out


def estimate_noise(x: np.ndarray, *, penalty: float, noise_floor: float = 0.002, tick_rel: float | None = None,
                   within: float | None = None, n_iter: int = 4) -> RunNoise:
    """Noise model of ``x`` (log run means): alternate an L2 segmentation (segments of >= 2 runs, so
    that a spike cannot hide in its own segment) at ``penalty`` on ``x / sigma_lr`` and the robust
    scale of its residuals, from the first-difference scale, until the long-run scale settles."""
    floor = max(noise_floor, (tick_rel / math.sqrt(12.0)) if tick_rel else 0.0, within or 0.0)
    n = x.size
    if n < 4:
        s = max(float(np.std(x)), floor)
        return RunNoise(s, s, 0.0, floor, tick_rel, within)
    d = np.diff(x)
    s = max(_MAD * float(np.median(np.abs(d - np.median(d)))) / math.sqrt(2.0), floor)
    sigma, rho = s, 0.0
    for _ in range(n_iter):
        cps = fpop((x - np.median(x)) / s, penalty, 2)
        resid = x - segment_medians(x, cps)
        sigma = max(_MAD * float(np.median(np.abs(resid - np.median(resid)))), floor)
        rho = robust_lag1(resid)
        s_new = sigma * long_run_factor(rho)
        if math.isclose(s_new, s, rel_tol=1e-3):
            s = s_new
            break
        s = s_new
    return RunNoise(float(sigma), float(s), float(rho), float(floor), tick_rel, within)
