"""Per-run view of a runner trace: one mean per run, and the run's metadata (first row of the run).

pyperf runs hold several values each (one worker process per run); the post-mortem works on
per-run *means*, because the process is the unit that a glitch (CPU frequency, temperature,
placement) affects. Run numbers are the trace's ``run`` column (pyperf: runs with values,
1-based, calibration runs excluded).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from .._lazy import pandas as pd  # (imported on first use: compare never uses it)

from ..metadata import Coded
from ..trace import Trace

#: Columns that are not metadata (bookkeeping or the measurement itself).
NON_METADATA = frozenset({"time", "run", "value", "value_index", "catchup", "warmup"})


class RunTable:
    """``runs``: run numbers (int64); ``means``: per-run mean value; ``counts``: values per run;
    ``metadata``: DataFrame indexed 0..n-1 (one row per run; built on first access when the table
    was made from arrays); ``metadata_columns``: its columns as arrays (name -> float64 /
    datetime64 array or ``pd.Categorical``; empty: no columns), or None when the table was made from
    a frame; ``raw_columns``: the same with string columns as :class:`~bandkit.metadata.Coded` (int64
    codes + categories: what the post-mortem reads, without pandas), or None."""

    __slots__ = ("runs", "means", "counts", "_metadata", "_columns", "raw_columns")

    def __init__(self, runs: np.ndarray, means: np.ndarray, counts: np.ndarray,
                 metadata: "pd.DataFrame | None" = None, metadata_columns: dict[str, Any] | None = None):
        self.runs, self.means, self.counts = runs, means, counts
        self._metadata = metadata
        #: ``metadata_columns`` with string columns as :class:`~bandkit.metadata.Coded` (no pandas):
        #: what the post-mortem reads.
        self.raw_columns = metadata_columns
        self._columns = None

    @property
    def metadata_columns(self) -> dict[str, Any] | None:
        raw = self.raw_columns
        if raw is None:
            return None
        if self._columns is None:
            self._columns = {k: v.to_pandas() if isinstance(v, Coded) else v for k, v in raw.items()}
        return self._columns

    @metadata_columns.setter
    def metadata_columns(self, cols: dict[str, Any] | None) -> None:
        self.raw_columns, self._columns = cols, None

    @property
    def metadata(self) -> pd.DataFrame:
        if self._metadata is None:
            cols = self.metadata_columns or {}
            self._metadata = pd.DataFrame(cols) if cols else pd.DataFrame(index=range(len(self.runs)))
        return self._metadata

    def __len__(self) -> int:
        return len(self.runs)

    def __repr__(self) -> str:
        return f"<RunTable {len(self.runs)} runs>"


def run_table(trace: Trace, metadata: bool = True) -> RunTable:
    """Group a runner trace's samples by ``run`` (rows without ``run`` are each their own run).

    ``metadata=False``: an empty metadata frame (one row per run, no columns, not even ``time``), for
    callers that need only the means (``bandkit compare``, benchmarks with too few runs)."""
    fast = _run_table_arrays(trace, metadata)
    if fast is not None:
        return fast
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


#: Most values in one run that :func:`_run_table_arrays` sums column by column (beyond: pandas' groupby).
_MAX_PER_RUN = 512


def _run_table_arrays(trace: Trace, metadata: bool) -> RunTable | None:
    """:func:`run_table` on the arrays of a trace built from arrays (the runner loaders), without
    pandas: same runs, means (pandas' compensated summation, bit-equal; tested), counts and metadata
    (first non-missing value of each run). None when the trace has no arrays or a column of a kind
    this path does not handle (then the frame path runs)."""
    cols = trace.column_arrays
    if cols is None or "run" not in cols:
        return None
    md_cols = [c for c in cols if c not in NON_METADATA] if metadata else []
    get = getattr(cols, "raw", cols.__getitem__)  # (string columns as Coded where the columns can)
    for c in md_cols:
        a = get(c)
        if not (isinstance(a, Coded) or (isinstance(a, np.ndarray) and a.dtype.kind in "fiuM")
                or isinstance(a, pd.Categorical)):
            return None
    r = np.asarray(cols["run"])
    if r.dtype.kind not in "iu":
        return None
    keep = trace.sample_mask
    v = np.asarray(cols["value"], dtype=np.float64)
    ok = np.isfinite(v)
    if keep is not None:
        ok &= keep
    rows = None if ok.all() else np.flatnonzero(ok)
    if rows is not None:
        r, v = r[rows], v[rows]
    if not len(v):
        return RunTable(np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64), pd.DataFrame())
    if r.size == 1 or bool(np.all(np.diff(r) > 0)):  # one row per run, in order
        first = np.arange(r.size)
        runs, means, counts = r.astype(np.int64), v, np.ones(r.size, np.int64)
        inv = first
    else:
        runs, first, inv, counts = np.unique(r, return_index=True, return_inverse=True, return_counts=True)
        inv = inv.ravel()
        means = _group_means(v, inv, counts)
        if means is None:
            return None
        runs = runs.astype(np.int64)
        counts = counts.astype(np.int64)
    md: dict[str, Any] = {}
    names = md_cols + (["time"] if metadata and "time" in cols else [])
    arrays = [get(c) for c in names]
    if rows is not None:
        arrays = [a.take(rows) if isinstance(a, Coded) else a[rows] for a in arrays]
    M, row = _floats_at_first(arrays, first)
    for c, a in zip(names, arrays):
        j = row.get(id(a))
        md[c] = M[j].copy() if j is not None else _first_present(a, first, inv, len(runs))
    if metadata and "time" in md:
        md["time"] = np.asarray(md["time"], dtype=np.float64)
    return RunTable(runs, means, counts, None, md)


def _group_means(v: np.ndarray, inv: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
    """Mean of ``v`` per group (``inv``: group of each value, groups 0..k-1 sorted by key) summed as
    pandas' ``groupby().mean()`` sums (bit-equal; tested): rows already in group order by
    ``np.add.reduceat`` (pandas >= 3.1), else the Kahan-compensated summation in row order of its
    Cython kernel, vectorised over groups (one step per value of a run; None for runs too long)."""
    k = len(counts)
    if bool(np.all(np.diff(inv) >= 0)):
        return np.add.reduceat(v, np.concatenate(([0], np.cumsum(counts)[:-1]))) / counts.astype(np.float64)
    m = int(counts.max())
    if m > _MAX_PER_RUN:
        return None
    order = np.argsort(inv, kind="stable")
    g = inv[order]
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    pos = np.arange(len(g)) - starts[g]
    grid = np.zeros((k, m))
    have = np.zeros((k, m), dtype=bool)
    grid[g, pos] = v[order]
    have[g, pos] = True
    total = np.zeros(k)
    comp = np.zeros(k)
    for j in range(m):
        h = have[:, j]
        y = grid[:, j] - comp
        t = total + y
        c = t - total - y
        c[c != c] = 0.0
        comp = np.where(h, c, comp)
        total = np.where(h, t, total)
    return total / counts


def _floats_at_first(arrays: list, first: np.ndarray) -> tuple[np.ndarray | None, dict[int, int]]:
    """(M, {id(a): j}): row j of M is ``a[first]`` for the float64 arrays ``a`` of ``arrays`` (one length)
    without NaN at the rows ``first`` - what :func:`_first_present` returns for them (the value at each
    group's first row) -, gathered for all of them at once (a pyperf benchmark has ~20 float metadata
    columns: one gather and one NaN test instead of ~5 numpy calls each); the caller copies each row out."""
    fl = [a for a in arrays if type(a) is np.ndarray and a.dtype == np.float64 and a.ndim == 1]
    if len(fl) < 2 or any(a.size != fl[0].size for a in fl):
        return None, {}
    M = np.stack(fl).take(first, axis=1)
    clean = (~np.isnan(M).any(axis=1)).tolist()
    return M, {id(a): j for j, a in enumerate(fl) if clean[j]}


def _first_present(a, first: np.ndarray, inv: np.ndarray, k: int):
    """Per group, ``a``'s value at the group's first row, or its first non-missing one where that
    row misses it (``groupby().first()``)."""
    coded = isinstance(a, Coded)
    out = a.take(first) if coded else a[first]
    if coded:
        miss_out = out.codes < 0
    elif isinstance(a, np.ndarray):
        miss_out = np.isnan(out) if a.dtype.kind in "fM" else np.zeros(len(out), dtype=bool)
    else:  # pd.Categorical
        miss_out = np.asarray(out.codes) < 0
    if not miss_out.any():
        return out
    miss = a.codes < 0 if coded else np.isnan(a) if isinstance(a, np.ndarray) else np.asarray(a.codes) < 0
    present = np.flatnonzero(~miss)
    if not present.size:
        return out
    grp, at = np.unique(inv[present], return_index=True)
    take = first.copy()
    fix = grp[miss_out[grp]]
    take[fix] = present[at][miss_out[grp]]
    return a.take(take) if coded else a[take]
