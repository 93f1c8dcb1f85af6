"""Seeded piecewise-constant series with known change points (for tests, notebooks, benchmarks).

Noise families (all additive, median ~0, ``scale`` = SD of the Gaussian part):
``"gaussian"``: scale * N(0, 1); ``"student_t"``: scale * t(df) (heavy tails, df=3 default);
``"lognormal"``: scale * (exp(s Z) - 1) / s with s = 0.5 (right-skewed, like benchmark timings);
optional ``outliers``: that fraction of values gets ``+outlier_size * scale`` (spikes).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NOISES = ("gaussian", "student_t", "lognormal")


@dataclass(frozen=True)
class StepSeries:
    """A generated series: ``values``; true ``changepoints`` (start of each new segment);
    ``levels`` (one per segment); ``noise`` family and ``scale``."""

    values: np.ndarray
    changepoints: np.ndarray
    levels: np.ndarray
    noise: str
    scale: float

    @property
    def signal(self) -> np.ndarray:
        """The noiseless piecewise-constant signal."""
        bounds = np.r_[0, self.changepoints, self.values.size]
        return np.repeat(self.levels, np.diff(bounds))


def noise(n: int, kind: str = "gaussian", scale: float = 1.0, *, df: float = 3.0, skew: float = 0.5,
          outliers: float = 0.0, outlier_size: float = 10.0, rng: np.random.Generator | None = None) -> np.ndarray:
    """``n`` noise values of the given family (see module docstring)."""
    rng = np.random.default_rng(0) if rng is None else rng
    if kind == "gaussian":
        e = rng.standard_normal(n)
    elif kind == "student_t":
        e = rng.standard_t(df, size=n)
    elif kind == "lognormal":
        e = (np.exp(skew * rng.standard_normal(n)) - 1.0) / skew
    else:
        raise ValueError(f"unknown noise {kind!r}; use one of {NOISES}")
    e = scale * e
    if outliers > 0:
        e = e + (rng.random(n) < outliers) * outlier_size * scale
    return e


def steps(n: int, changepoints=None, levels=None, *, n_changes: int = 3, min_gap: int = 50,
          jump: tuple[float, float] = (1.0, 3.0), noise_kind: str = "gaussian", scale: float = 1.0,
          df: float = 3.0, outliers: float = 0.0, outlier_size: float = 10.0, seed: int = 0) -> StepSeries:
    """A piecewise-constant series plus noise.

    Either give ``changepoints`` (sorted, 0 < i < n) and ``levels`` (len(changepoints) + 1), or
    let them be drawn: ``n_changes`` positions at least ``min_gap`` apart, jumps of random sign
    and size uniform in ``jump`` (in units of ``scale``), starting at level 0.
    """
    rng = np.random.default_rng(seed)
    if changepoints is None:
        if n_changes * min_gap >= n - min_gap:
            raise ValueError("n too small for n_changes segments of min_gap")
        # positions with gaps >= min_gap: spread the slack at random
        slack = n - (n_changes + 1) * min_gap
        cuts = np.sort(rng.integers(0, slack + 1, size=n_changes))
        changepoints = cuts + min_gap * np.arange(1, n_changes + 1)
    changepoints = np.asarray(changepoints, dtype=np.int64)
    if levels is None:
        sizes = rng.uniform(jump[0], jump[1], size=changepoints.size) * scale
        signs = rng.choice([-1.0, 1.0], size=changepoints.size)
        levels = np.r_[0.0, np.cumsum(sizes * signs)]
    levels = np.asarray(levels, dtype=np.float64)
    if levels.size != changepoints.size + 1:
        raise ValueError("need len(levels) == len(changepoints) + 1")
    if changepoints.size and (changepoints[0] <= 0 or changepoints[-1] >= n or np.any(np.diff(changepoints) <= 0)):
        raise ValueError("changepoints must be increasing and inside (0, n)")
    sig = np.repeat(levels, np.diff(np.r_[0, changepoints, n]))
    e = noise(n, noise_kind, scale, df=df, outliers=outliers, outlier_size=outlier_size, rng=rng)
    return StepSeries(values=sig + e, changepoints=changepoints, levels=levels, noise=noise_kind, scale=float(scale))
