"""Per-build summary of a history: one robust level per build, vectorised (no loop over builds).

Input: the trace's ``run`` column (1-based build position, rows sorted by it), ``value``, ``build``
(ids) and ``time``. A build's level is the median of its measurements (a spike among three or more
measurements does not move it); ``spread`` is the build's median absolute deviation from that
median, relative to it (0 for single-measurement builds).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BuildTable:
    """One entry per build, in build order. ``ids``: the build ids as in the file; ``counts``:
    measurements per build; ``median``: the build's median value (value units); ``time``: the first
    measurement's time (s, NaN when unknown); ``spread``: relative MAD of the build's values;
    ``first_row``: index of the build's first row in the trace data; ``tick``: the quantisation step
    of the values (median gap between distinct values; ~0 for continuous data)."""

    ids: np.ndarray
    counts: np.ndarray
    median: np.ndarray
    time: np.ndarray
    spread: np.ndarray
    first_row: np.ndarray
    tick: float = 0.0

    def __len__(self) -> int:
        return int(self.counts.size)


def _group_medians(sorted_vals: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    lo = starts + (counts - 1) // 2
    hi = starts + counts // 2
    return 0.5 * (sorted_vals[lo] + sorted_vals[hi])


def build_table(run: np.ndarray, value: np.ndarray, ids: np.ndarray, time: np.ndarray | None = None) -> BuildTable:
    """Per-build medians and spreads of measurements ``value`` grouped by ``run`` (1-based, sorted)."""
    run = np.asarray(run, dtype=np.int64)
    v = np.asarray(value, dtype=np.float64)
    nb = int(run[-1]) if run.size else 0
    counts = np.bincount(run - 1, minlength=nb)
    present = counts > 0
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    order = np.lexsort((v, run))
    sv = v[order]
    med = _group_medians(sv, starts[present], counts[present])
    full_med = np.full(nb, np.nan)
    full_med[present] = med
    dev = np.abs(v - full_med[run - 1])
    order2 = np.lexsort((dev, run))
    mad = _group_medians(dev[order2], starts[present], counts[present])
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = np.where(med != 0, mad / np.abs(med), 0.0)
    t = np.full(present.sum(), np.nan)
    if time is not None:
        tt = np.asarray(time, dtype=np.float64)
        if np.isfinite(tt).any():
            tmin = np.full(nb, np.inf)
            np.minimum.at(tmin, run - 1, np.where(np.isfinite(tt), tt, np.inf))
            t = np.where(np.isfinite(tmin[present]), tmin[present], np.nan)
    first = starts[present]
    uniq = np.unique(sv[np.isfinite(sv)])
    gaps = np.diff(uniq)
    tick = float(np.median(gaps)) if gaps.size else 0.0
    return BuildTable(ids=np.asarray(ids)[first], counts=counts[present], median=med, time=t, spread=spread,
                      first_row=first, tick=tick)


def trace_build_table(trace) -> BuildTable:
    """:func:`build_table` of a history Trace (columns run, value, build, time)."""
    d = trace.data
    return build_table(d["run"].to_numpy(), d["value"].to_numpy(dtype=np.float64), d["build"].to_numpy(),
                       d["time"].to_numpy(dtype=np.float64))
