"""Synthetic FTQ traces with injected periodic interference (seeded; ground truth known).

The model follows FTQ exactly: quantum j covers ``[j·T, (j+1)·T)`` (T = 1/fs) and counts
``work_rate × (available CPU time in the quantum)`` (a box filter of the CPU availability), plus
Gaussian count noise. Interference sources steal the CPU in bursts; a stall longer than a quantum
produces FTQ's catch-up rows (count 0, timestamps 20 ns apart after the stall, flagged ``catchup``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..trace import Trace, TraceMeta


@dataclass(frozen=True)
class Source:
    """A periodic interferer: bursts of ``duty / freq_hz`` seconds every ``1/freq_hz`` s.

    ``jitter_s``: standard deviation of each burst's start (s); ``phase``: start offset as a fraction
    of the period; ``depth``: fraction of the CPU stolen during a burst (1 = all of it).
    """

    freq_hz: float
    duty: float = 0.1
    jitter_s: float = 0.0
    phase: float = 0.0
    depth: float = 1.0

    @classmethod
    def drifting(cls, fs: float, n_quanta: int, drift_quanta_per_s: float, **kw) -> "Source":
        """A source whose period is close to ``n_quanta`` quanta at ``fs`` Hz and whose burst moves
        through the quantum grid at ``drift_quanta_per_s`` (>0: later in each period; the X pattern):
        f = (fs - drift) / N, since the position slope is fs - N·f."""
        return cls((fs - drift_quanta_per_s) / n_quanta, **kw)


@dataclass(frozen=True)
class Locked:
    """A sampling-locked artefact: every ``every`` quanta, one quantum loses ``depth`` of its work."""

    every: int
    depth: float = 0.3


def _stolen(edges: np.ndarray, src: Source, duration: float, rng) -> np.ndarray:
    """CPU time stolen by ``src`` in each interval between consecutive ``edges`` (s)."""
    period = 1.0 / src.freq_hz
    width = src.duty * period
    k = np.arange(-1, int(np.ceil(duration / period)) + 2)
    start = (k + src.phase) * period
    if src.jitter_s:
        start = start + rng.normal(0.0, src.jitter_s, len(start))
    start = np.sort(start)
    start = np.maximum.accumulate(np.concatenate([[start[0]], np.maximum(start[1:], start[:-1] + width)]))

    def busy_until(t):  # total busy time in (-inf, t]
        i = np.searchsorted(start, t, side="right") - 1
        ok = i >= 0
        out = np.zeros_like(t)
        out[ok] = i[ok] * width + np.minimum(t[ok] - start[i[ok]], width)
        return out

    b = busy_until(edges)
    return np.diff(b) * src.depth


def ftq_trace(fs: float, duration_s: float, sources=(), *, locked=(), work_rate: float = 1.3e7,
              noise: float = 0.003, stalls=(), seed: int = 0, path: str | None = None) -> Trace:
    """A synthetic FTQ trace at ``fs`` Hz lasting ``duration_s`` seconds.

    ``sources``: :class:`Source` list (or ``(freq_hz, duty)`` tuples); ``locked``: :class:`Locked`
    artefacts; ``work_rate``: work units per second of CPU (count per full quantum = work_rate/fs);
    ``noise``: relative Gaussian count noise; ``stalls``: ``(start_s, length_s)`` pairs during which
    the thread gets no CPU (FTQ writes catch-up rows for the quanta they swallow).
    """
    rng = np.random.default_rng(seed)
    T = 1.0 / fs
    n = int(round(duration_s * fs))
    edges = np.arange(n + 1) * T
    stolen = np.zeros(n)
    for s in sources:
        s = s if isinstance(s, Source) else Source(*s)
        stolen += _stolen(edges, s, duration_s, rng)
    for lk in locked:
        lk = lk if isinstance(lk, Locked) else Locked(*lk)
        stolen[:: lk.every] += lk.depth * T
    for a, length in stalls:
        stolen += np.clip(np.minimum(edges[1:], a + length) - np.maximum(edges[:-1], a), 0.0, None)
    avail = np.clip(T - stolen, 0.0, T)
    count = work_rate * avail * (1.0 + noise * rng.standard_normal(n))
    count = np.floor(np.clip(count, 0.0, None)).astype(np.int64)
    time = edges[:-1] + rng.uniform(0.0, 2e-8, n)
    catchup = np.zeros(n, dtype=bool)
    for a, length in stalls:
        end = a + length
        swallowed = np.flatnonzero((edges[:-1] >= a) & (edges[1:] <= end))
        if len(swallowed):
            catchup[swallowed] = True
            count[swallowed] = 0
            time[swallowed] = end + 2e-8 * np.arange(1, len(swallowed) + 1)
            nxt = swallowed[-1] + 1
            if nxt < n:
                time[nxt] = end + 2e-8 * (len(swallowed) + 1)
    df = pd.DataFrame({"time": time, "value": count, "catchup": catchup})
    desc = [getattr(s, "freq_hz", s[0] if isinstance(s, tuple) else None) for s in sources]
    meta = TraceMeta(path=path or f"synthetic-ftq-{fs:g}Hz", format="synthetic", kind="ftq",
                     sampling_hz=float(fs), time_unit="s", value_unit="count",
                     header={"Frequency": float(fs)},
                     extra={"seed": seed, "sources_hz": [float(x) for x in desc if x is not None],
                            "locked_every": [int(getattr(l, "every", l[0] if isinstance(l, tuple) else 0))
                                             for l in locked]})
    return Trace(df, meta)
