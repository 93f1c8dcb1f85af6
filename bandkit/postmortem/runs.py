"""Per-run view of a runner trace: one mean per run, and the run's metadata (first row of the run).

pyperf runs hold several values each (one worker process per run); the post-mortem works on
per-run *means*, because the process is the unit that a glitch (CPU frequency, temperature,
placement) affects. Run numbers are the trace's ``run`` column (pyperf: runs with values,
1-based, calibration runs excluded).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..trace import Trace

#: Columns that are not metadata (bookkeeping or the measurement itself).
NON_METADATA = frozenset({"time", "run", "value", "value_index", "catchup", "warmup"})


@dataclass(frozen=True)
class RunTable:
    """``runs``: run numbers (int64); ``means``: per-run mean value; ``counts``: values per run;
    ``metadata``: DataFrame indexed 0..n-1 (one row per run)."""

    runs: np.ndarray
    means: np.ndarray
    counts: np.ndarray
    metadata: pd.DataFrame

    def __len__(self) -> int:
        return len(self.runs)


def run_table(trace: Trace, metadata: bool = True) -> RunTable:
    """Group a runner trace's samples by ``run`` (rows without ``run`` are each their own run).

    ``metadata=False``: an empty metadata frame (one row per run, no columns, not even ``time``), for
    callers that need only the means (``bandkit compare``, benchmarks with too few runs)."""
    df = trace.samples
    if "run" not in df.columns:
        df = df.assign(run=np.arange(1, len(df) + 1))
    ok = np.isfinite(df["value"].to_numpy(dtype=np.float64))
    if not ok.all():  # (a boolean take copies every column: only when something is dropped)
        df = df[ok]
    if not len(df):
        return RunTable(np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64), pd.DataFrame())
    md_cols = [c for c in df.columns if c not in NON_METADATA] if metadata else []
    r = df["run"].to_numpy()
    if r.dtype.kind in "iu" and (r.size == 1 or bool(np.all(np.diff(r) > 0))):
        # one row per run, in order (hyperfine, single-value benchmarks): the rows are the runs; no
        # groupby (a 491 kB asv file with 22,971 one-value benchmarks spent 70 s in pandas here)
        md = df[md_cols].reset_index(drop=True) if md_cols else pd.DataFrame(index=range(len(df)))
        if metadata and "time" in df.columns:
            md = md.assign(time=df["time"].to_numpy(dtype=np.float64))
        return RunTable(r.astype(np.int64), df["value"].to_numpy(dtype=np.float64), np.ones(len(df), np.int64), md)
    g = df.groupby("run", sort=True)
    means = g["value"].mean()
    counts = g["value"].size()
    md = _first_per_run(df, g, md_cols) if md_cols else pd.DataFrame(index=range(len(means)))
    if metadata and "time" in df.columns:
        md = md.assign(time=g["time"].first().to_numpy(dtype=np.float64))
    return RunTable(means.index.to_numpy(dtype=np.int64), means.to_numpy(dtype=np.float64),
                    counts.to_numpy(dtype=np.int64), md)


def _first_per_run(df: pd.DataFrame, g, cols: list[str]) -> pd.DataFrame:
    """``g[cols].first()`` (the first non-missing value of each run), indexed 0..n-1. A column takes the
    run's first row directly where that is its first non-missing value - no gaps, or only whole runs
    missing (runner loaders repeat a run's metadata onto each of its values) - in one take of all such
    columns (a 60-benchmark pyperf file has ~60 metadata columns per benchmark; tested equal); a
    groupby reduction only for the others."""
    run = df["run"]
    if run.isna().any():  # (groupby drops missing run numbers; np.unique would not)
        return g[cols].first().reset_index(drop=True)
    _, first_row, inv = np.unique(run.to_numpy(), return_index=True, return_inverse=True)
    md = df.iloc[first_row][cols].reset_index(drop=True)  # (take the few rows first, then the columns)
    gaps = []
    holes = md.isna().to_numpy()
    if holes.any():  # only a column missing in some run's first row can differ from groupby's first()
        inv = inv.ravel()
        for j in np.flatnonzero(holes.any(axis=0)):
            na = df[cols[j]].isna().to_numpy()
            present = np.bincount(inv, weights=~na, minlength=len(first_row)) > 0
            if np.any(present & holes[:, j]):  # a value later in a run whose first row misses it
                gaps.append(cols[j])
    if gaps:
        md[gaps] = g[gaps].first().reset_index(drop=True)
    return md
