"""Stall episodes of FTQ traces, from the catch-up rows FTQ writes after it lost the CPU.

FTQ's schedule is drift-free: when the thread stalls across k quantum boundaries, it writes about
k rows with count 0 (timestamps ~20 ns apart) and then returns to the grid. One run of consecutive
catch-up rows is one stall episode.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .robust import median_period

if TYPE_CHECKING:  # (pandas only for the public DataFrame: the report path reads the arrays)
    import pandas as pd

STALL_COLUMNS = ["start_s", "duration_s", "gap_s", "lost_quanta", "row"]


def find_stalls(trace) -> pd.DataFrame:
    """Stall episodes of an FTQ trace (empty DataFrame when there are none or times are not in seconds).

    Columns: ``row`` (index of the first catch-up row), ``lost_quanta`` (catch-up rows in the run),
    ``gap_s`` (time from the start of the quantum in which the stall began to the first row after
    the catch-up: what the file shows directly), ``start_s`` and ``duration_s`` (estimated stall
    onset and length: the quantum before the catch-up did ``count`` units of work at the trace's
    median rate ``r`` per second, so the stall began ``count / r`` after it started — at most one
    period — and lasted until the first row after the catch-up). In ``meta.time_unit`` (seconds or ticks).
    """
    import pandas as pd

    return pd.DataFrame(stall_columns(trace))


def _empty() -> dict[str, np.ndarray]:
    return {c: np.zeros(0, dtype=np.float64 if c.endswith("_s") else np.int64) for c in STALL_COLUMNS}


def stall_columns(trace) -> dict[str, np.ndarray]:
    """The columns of :func:`find_stalls` as numpy arrays (name -> array, in :data:`STALL_COLUMNS`
    order), without pandas: what the report's sections read (:attr:`Trace.stall_columns`)."""
    if not trace.has_column("catchup") or len(trace) == 0:
        return _empty()
    flag = np.asarray(trace.column("catchup"), dtype=bool)
    if not flag.any():
        return _empty()
    time = np.asarray(trace.column("time"), dtype=np.float64)
    count = np.asarray(trace.column("value"), dtype=np.float64)
    edges = np.diff(np.concatenate([[0], flag.astype(np.int8), [0]]))
    first = np.flatnonzero(edges == 1)
    last = np.flatnonzero(edges == -1) - 1
    n = len(flag)
    period = trace.period if trace.meta.time_unit == "s" else None
    if period is None:
        period = median_period(time[~flag]) or 0.0
    ok = ~flag
    if trace.has_column("partial"):
        ok &= ~np.asarray(trace.column("partial"), dtype=bool)
    typical = float(np.median(count[ok])) if ok.any() else 0.0
    rate = typical / period if period > 0 else 0.0
    before = np.clip(first - 1, 0, n - 1)
    after = np.clip(last + 1, 0, n - 1)
    t_before = time[before]
    t_after = np.where(last + 1 < n, time[after], time[last])
    worked = np.minimum(count[before] / rate, period) if rate > 0 else np.zeros(len(first))
    worked = np.where(first > 0, worked, 0.0)
    start = t_before + worked
    gap = t_after - t_before
    duration = np.maximum(t_after - start, 0.0)
    return {
        "start_s": start,
        "duration_s": duration,
        "gap_s": gap,
        "lost_quanta": (last - first + 1).astype(np.int64),
        "row": first.astype(np.int64),
    }
