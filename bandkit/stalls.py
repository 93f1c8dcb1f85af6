"""Stall episodes of FTQ traces, from the catch-up rows FTQ writes after it lost the CPU.

FTQ's schedule is drift-free: when the thread stalls across k quantum boundaries, it writes about
k rows with count 0 (timestamps ~20 ns apart) and then returns to the grid. One run of consecutive
catch-up rows is one stall episode.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .robust import median_period

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
    data = trace.data
    if "catchup" not in data.columns or len(data) == 0:
        return pd.DataFrame({c: pd.Series(dtype="float64" if c.endswith("_s") else "int64") for c in STALL_COLUMNS})
    flag = data["catchup"].to_numpy(dtype=bool)
    if not flag.any():
        return pd.DataFrame({c: pd.Series(dtype="float64" if c.endswith("_s") else "int64") for c in STALL_COLUMNS})
    time = data["time"].to_numpy(dtype=np.float64)
    count = data["value"].to_numpy(dtype=np.float64)
    edges = np.diff(np.concatenate([[0], flag.astype(np.int8), [0]]))
    first = np.flatnonzero(edges == 1)
    last = np.flatnonzero(edges == -1) - 1
    n = len(data)
    period = trace.period if trace.meta.time_unit == "s" else None
    if period is None:
        period = median_period(time[~flag]) or 0.0
    ok = ~flag
    if "partial" in data.columns:
        ok &= ~data["partial"].to_numpy(dtype=bool)
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
    return pd.DataFrame({
        "start_s": start,
        "duration_s": duration,
        "gap_s": gap,
        "lost_quanta": (last - first + 1).astype(np.int64),
        "row": first.astype(np.int64),
    })
