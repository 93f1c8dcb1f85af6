"""The series a trace gives the change-point search, as the report builds it: FTQ quanta in blocks of
``block_s`` seconds (more per block above ``max_points`` blocks), other traces value by value (blocks only
above ``max_points``); times in seconds (None when unknown)."""
from __future__ import annotations

import math

import numpy as np

BLOCK_S = 0.01
MAX_POINTS = 100_000


def aggregate(values: np.ndarray, times: np.ndarray | None, block: int):
    """Block means of ``values`` (the last partial block is dropped if it has < block/2 values)
    and the time of each block's first value."""
    v = np.asarray(values, dtype=np.float64)
    n = v.size
    m = n // block
    rest = n - m * block
    means = v[: m * block].reshape(m, block).mean(axis=1) if m else np.zeros(0)
    if rest and (rest * 2 >= block or m == 0):
        means = np.r_[means, v[m * block:].mean()]
    t = None
    if times is not None:
        t = np.asarray(times, dtype=np.float64)[::block][: means.size]
    return means, t


def block_size(trace, n: int, block_s: float, max_points: int) -> int:
    """Quanta per block for an FTQ trace (>= 1)."""
    hz = trace.meta.sampling_hz
    b = int(round(block_s * hz)) if hz else 1
    return max(1, b, math.ceil(n / max_points))


def trace_series(trace, block_s: float = BLOCK_S, max_points: int = MAX_POINTS):
    """``(series, times_s, block)`` of a trace for the change-point search.

    ``times_s`` are seconds (None when the trace has no times, or counts ticks at an unknown rate;
    for tick-based traces they start at 0)."""
    v = trace.values
    t = trace.times
    if t is not None and not np.all(np.isfinite(t)):
        t = None
    if t is not None and trace.meta.time_unit != "s":
        # older FTQ files count ticks: seconds only when the tick rate is known
        tpn = trace.meta.ticks_per_ns
        t = (t - t[0]) / (tpn * 1e9) if tpn else None
    if trace.kind == "ftq":
        block = block_size(trace, v.size, block_s, max_points)
    else:
        block = max(1, math.ceil(v.size / max_points))
    x, xt = aggregate(v, t, block) if block > 1 else (v, t)
    return x, xt, block
