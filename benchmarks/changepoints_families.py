"""Seeded noise families and step signals for the change-point calibration and benchmarks.

A family is a string of ``+``-joined parts (``"g"``, ``"t3+ar=0.5"``, ``"g+pink=0.3+tick=2"``):
``g`` Gaussian / ``t3`` Student-t(3) scaled to unit variance / ``lognorm`` right-skewed (log-normal, s = 0.5,
centred); ``ar=phi`` AR(1) with coefficient phi (marginal variance kept); ``pink=w`` plus 1/f noise of SD w (in
noise SDs, normalised over the series as the calibration suite of issue 12 does); ``spikes=f`` a share f of
isolated values multiplied by 1 + s, s uniform in [0.3, 2] (a quarter divided instead); ``tick=q`` values
rounded to a clock tick of q noise SDs. The noise is relative: values are ``level * exp(sd * e)`` with
``sd`` = 1 % and ``level`` = 100, so a "5 % step" is 5 noise SDs (the per-value noise of benchmark run means is
typically 0.3-5 %). AR(1) and 1/f noise are bandkit.synthetic.noise's.
"""
from __future__ import annotations

import math

import numpy as np

from bandkit.synthetic.noise import ar1_filter as ar1, pink_noise as pink  # the calibration suite's own

LEVEL = 100.0
SD = 0.01


def parse(name: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for part in name.split("+"):
        k, _, v = part.partition("=")
        out[k] = float(v) if v else 1.0
    return out


def noise(name: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Unit-variance noise of family ``name`` (before spikes and ticks)."""
    p = parse(name)
    if "t3" in p:
        e = rng.standard_t(3.0, n) / math.sqrt(3.0)
    elif "lognorm" in p:
        e = (np.exp(0.5 * rng.standard_normal(n)) - math.exp(0.125)) / math.sqrt(
            (math.exp(0.25) - 1) * math.exp(0.25))
    else:
        e = rng.standard_normal(n)
    e = ar1(e, p.get("ar", 0.0))
    if "pink" in p:
        e = e + p["pink"] * pink(n, rng)
    return e


def series(name: str, signal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``LEVEL * signal * exp(SD * noise)`` with spikes and ticks of family ``name``."""
    p = parse(name)
    n = signal.size
    x = LEVEL * signal * np.exp(SD * noise(name, n, rng))
    if "spikes" in p and n:
        k = max(1, int(rng.binomial(n, p["spikes"])))
        k = min(k, (n + 1) // 2)
        slots = np.sort(rng.choice(n - k + 1, size=k, replace=False))
        idx = slots + np.arange(k)
        s = rng.uniform(0.3, 2.0, size=k)
        fast = rng.random(k) < 0.25
        x[idx] *= np.where(fast, 1.0 / (1.0 + s), 1.0 + s)
    if "tick" in p:
        q = p["tick"] * SD * LEVEL
        x = np.maximum(np.round(x / q), 1.0) * q
    return x


def null(name: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """A stationary series of family ``name``: no change."""
    return series(name, np.ones(n), rng)


def moving(name: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """A series whose level moves without a step (the hard nulls of a step detector), parts of ``name`` in
    noise SDs: ``trend=D`` a linear drift of D from the first value to the last (values are ``exp`` of it:
    ``trend=300`` is a smooth growth to e^3 times the first value, the noise 1/300 of the range); ``rw=w`` a
    random-walk level with increments of SD w per value (``rw=3``: the level moves more than the noise, a near
    unit root as prices and exchange rates are); ``season=A`` a sinusoid of amplitude A and period 12 (monthly
    data); the other parts are the noise's (``"trend=3+ar=0.5"``)."""
    p = parse(name)
    t = np.arange(n, dtype=np.float64)
    lvl = np.zeros(n)
    if "trend" in p:
        lvl += p["trend"] * t / max(n - 1, 1)
    if "rw" in p:
        lvl += np.cumsum(p["rw"] * rng.standard_normal(n))
    if "season" in p:
        lvl += p["season"] * np.sin(2.0 * math.pi * t / 12.0)
    return series(name, np.exp(SD * lvl), rng)


def step(name: str, n: int, ratio: float, at: int, rng: np.random.Generator) -> np.ndarray:
    """One step by ``ratio`` at index ``at``."""
    sig = np.ones(n)
    sig[at:] = ratio
    return series(name, sig, rng)


def dense(n: int, seg: int, rng: np.random.Generator, jump=(1.0, 3.0)):
    """Gaussian white noise (SD 1) plus a change every ``seg`` values, jumps uniform in ``jump`` SDs with
    random signs (levels: a random walk). Returns (values, change points)."""
    cps = np.arange(seg, n, seg)
    jumps = rng.uniform(*jump, size=cps.size) * rng.choice([-1.0, 1.0], size=cps.size)
    levels = np.r_[0.0, np.cumsum(jumps)]
    return np.repeat(levels, np.diff(np.r_[0, cps, n])) + rng.standard_normal(n), cps


# log-normal noise joined the calibration on 2026-11-24: right-skewed noise is what timings have, and held out it
# had 2-14 % false alarms at 1,000-10,000 values (clusters of 5-13 right-tail values)
CALIBRATION = ("g", "ar=0.25", "ar=0.5", "t3", "t3+ar=0.5", "g+tick=1", "g+tick=2", "g+spikes=0.005",
               "g+spikes=0.02", "g+pink=0.3", "lognorm")
# level moves without a step: a trend, a random walk, seasonality (TCPD's economic series are of this kind);
# what a step detector should say there is an open question, measured in changepoints_nullpower --part hard
MOVING = ("trend=3", "trend=10", "trend=3+ar=0.5", "trend=10+ar=0.5", "trend=300", "rw=0.1", "rw=0.3", "rw=3",
          "season=2+ar=0.5")
VALIDATION_EXTRA = ("g+tick=3", "t3+spikes=0.01", "ar=0.4+pink=0.2", "ar=0.5+tick=1", "g+pink=0.5")
