"""Synthetic banded series with known truth: levels, dwell times, straddling samples, noise.

The series jumps between bands as a semi-Markov chain: each episode lasts a geometric number of
samples (mean ``mean_dwell[b]``), the next band is drawn with probabilities proportional to
``jump_weights`` (never the same band). Around a switch a sample can *straddle* it (part of the
quantum at each level); some samples are *interrupted* (lower tail, like an FTQ quantum hit by an
interrupt). Values can be rounded to integers like FTQ counts.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..bands.dwell import INTERMEDIATE, OUTLIER


@dataclass(frozen=True)
class SyntheticBands:
    """``values``; ``times`` (s, start of each sample); ``labels`` (true band index ascending by
    level, -1 straddling sample, -2 interrupted sample); ``levels``; ``noise_sd`` (per band, in
    value units); ``episode_starts``/``episode_bands`` (true episodes, sample index and band)."""

    values: np.ndarray
    times: np.ndarray
    labels: np.ndarray
    levels: np.ndarray
    noise_sd: np.ndarray
    episode_starts: np.ndarray
    episode_bands: np.ndarray

    @property
    def shares(self) -> np.ndarray:
        """True share of each band among the samples that are in a band."""
        lab = self.labels[self.labels >= 0]
        return np.bincount(lab, minlength=self.levels.size) / max(lab.size, 1)


def banded_series(levels, n: int = 100_000, *, mean_dwell=200.0, noise=0.002,
                  jump_weights=None, straddle: float = 0.5, interrupted: float = 0.0,
                  integer: bool = False, sampling_hz: float = 10_000.0,
                  seed: int | None = 0) -> SyntheticBands:
    """Generate ``n`` samples jumping between ``levels``.

    ``mean_dwell``: mean episode length in samples (scalar or one per level); ``noise``: Gaussian
    sd relative to each level (scalar or per level); ``straddle``: probability that the first
    sample of an episode mixes the old and new level (fraction U(0.1, 0.9)); ``interrupted``:
    probability that a sample is level x U(0, 0.95) instead; ``integer``: round like FTQ counts.
    """
    rng = np.random.default_rng(seed)
    lv = np.asarray(levels, dtype=np.float64)
    order = np.argsort(lv)
    lv = lv[order]
    k = lv.size
    dwell = np.broadcast_to(np.asarray(mean_dwell, dtype=np.float64), (k,))[order]
    rel = np.broadcast_to(np.asarray(noise, dtype=np.float64), (k,))[order]
    jw = np.ones(k) if jump_weights is None else np.asarray(jump_weights, dtype=np.float64)[order]
    # episodes
    starts, bands = [], []
    pos, b = 0, int(rng.choice(k, p=dwell * jw / (dwell * jw).sum()))
    while pos < n:
        starts.append(pos)
        bands.append(b)
        pos += int(rng.geometric(1.0 / max(dwell[b], 1.0)))
        if k > 1:
            p = jw.copy()
            p[b] = 0.0
            b = int(rng.choice(k, p=p / p.sum()))
    starts_a = np.asarray(starts, dtype=np.int64)
    bands_a = np.asarray(bands, dtype=np.int64)
    lengths = np.diff(np.r_[starts_a, n])
    labels = np.repeat(bands_a, lengths)
    sd = rel * lv
    values = lv[labels] + rng.standard_normal(n) * sd[labels]
    labels = labels.astype(np.int64)
    if k > 1 and straddle > 0 and starts_a.size > 1:
        sw = starts_a[1:]
        hit = sw[rng.random(sw.size) < straddle]
        f = rng.uniform(0.1, 0.9, hit.size)
        prev_level = lv[labels[hit - 1]]
        values[hit] = f * prev_level + (1 - f) * lv[labels[hit]]
        labels[hit] = INTERMEDIATE
    if interrupted > 0:
        hit = np.flatnonzero(rng.random(n) < interrupted)
        hit = hit[labels[hit] >= 0]
        values[hit] = lv[labels[hit]] * rng.uniform(0.0, 0.95, hit.size)
        labels[hit] = OUTLIER
    if integer:
        values = np.rint(values)
    times = np.arange(n) / float(sampling_hz)
    return SyntheticBands(values=values, times=times, labels=labels, levels=lv, noise_sd=sd,
                          episode_starts=starts_a, episode_bands=bands_a)


def run_means(levels, n_runs: int = 20, *, shares=None, noise: float = 0.01,
              seed: int | None = 0) -> tuple[np.ndarray, np.ndarray]:
    """Per-run means of a benchmark whose runs fall into groups (e.g. two groups 2x apart):
    returns (values, true group index). ``noise`` is the relative sd within a group."""
    rng = np.random.default_rng(seed)
    lv = np.sort(np.asarray(levels, dtype=np.float64))
    p = np.ones(lv.size) / lv.size if shares is None else np.asarray(shares, dtype=np.float64)
    g = rng.choice(lv.size, size=n_runs, p=p / p.sum())
    return lv[g] * (1 + noise * rng.standard_normal(n_runs)), g
