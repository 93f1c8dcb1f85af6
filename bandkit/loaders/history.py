"""Performance-CI histories: one benchmark measured across many builds, from a table.

A history Trace (``meta.kind == "history"``) has one row per measurement, in build order:
``run`` (1-based position of the build), ``build`` (the build id as in the file: a number or a
string such as a commit), ``value_index`` (0-based position of the measurement within its build),
``value``, ``time`` (seconds since ``meta.extra["history"]["time_origin"], NaN without a time
column) and the file's other columns (metadata; row-index columns are dropped: a row number is never
a suspect). Builds are ordered by build number when the ids are numbers, else by their first time,
else as they first appear. ``meta.extra["history"]`` says which column played which role and how
it was chosen.

Everything here is vectorised (factorize / argsort / bincount): no Python loop over rows.
"""
from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from ..errors import InputError
from ..trace import Trace, TraceMeta
from .source import Source
from .table import ColumnRoles, higher_is_better, parse_dates


def _numeric_values(source: Source, df: pd.DataFrame, col: str) -> np.ndarray:
    s = df[col]
    if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
        return s.to_numpy(dtype=np.float64, na_value=np.nan)
    vals = pd.to_numeric(s, errors="coerce")
    bad = np.flatnonzero(vals.isna().to_numpy() & s.notna().to_numpy())
    if len(bad):
        raise InputError(source.name, f"non-numeric value {s.iloc[bad[0]]!r}", line=int(bad[0]) + 2, field=col)
    return vals.to_numpy(dtype=np.float64, na_value=np.nan)


def _times(source: Source, s: pd.Series) -> tuple[np.ndarray, str | None]:
    """Seconds since the earliest time, and that origin (ISO 8601) when the column holds dates."""
    if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
        return s.to_numpy(dtype=np.float64, na_value=np.nan), None
    t = s if pd.api.types.is_datetime64_any_dtype(s) else parse_dates(s)
    if getattr(t.dt, "tz", None) is not None:
        t = t.dt.tz_convert("UTC").dt.tz_localize(None)
    ns = t.to_numpy(dtype="datetime64[ns]")
    ok = ~np.isnat(ns)
    if not ok.any():
        raise InputError(source.name, "no readable date or time in the column", field=str(s.name))
    origin = ns[ok].min()
    sec = np.full(ns.size, np.nan)
    sec[ok] = (ns[ok] - origin).astype("timedelta64[ns]").astype(np.int64) * 1e-9
    return sec, str(pd.Timestamp(origin).isoformat())


def _build_order(codes: np.ndarray, uniques, times: np.ndarray | None) -> np.ndarray:
    """Position (0-based) of each build code in build order."""
    k = len(uniques)
    u = np.asarray(uniques)
    if u.dtype.kind in "iuf":
        return np.argsort(np.argsort(u, kind="stable"), kind="stable")
    if times is not None and np.isfinite(times).any():
        first_t = np.full(k, np.inf)
        np.minimum.at(first_t, codes, np.where(np.isfinite(times), times, np.inf))
        first_seen = np.full(k, np.iinfo(np.int64).max)
        np.minimum.at(first_seen, codes, np.arange(codes.size))
        order = np.lexsort((first_seen, first_t))
        pos = np.empty(k, np.int64)
        pos[order] = np.arange(k)
        return pos
    return np.arange(k)  # factorize numbers codes by first appearance


def history_traces(source: Source, df: pd.DataFrame, roles: ColumnRoles, fmt: str,
                   higher: bool | None = None) -> list[Trace]:
    """One history Trace per series of ``df`` (see the module docstring)."""
    if roles.build is None:
        raise InputError(source.name, "a history needs a build (or group) column; pass --build COLUMN")
    values = _numeric_values(source, df, roles.value)
    times, origin = (_times(source, df[roles.time]) if roles.time else (None, None))
    keep = np.isfinite(values) & df[roles.build].notna().to_numpy()
    dropped = int(keep.size - keep.sum())
    if roles.series:
        groups = list(pd.Series(np.arange(len(df)))[keep].groupby(df[roles.series][keep].astype(str).to_numpy(),
                                                                   sort=False).indices.items())
        groups = [(str(name), np.flatnonzero(keep)[ix]) for name, ix in groups]
    else:
        groups = [(None, np.flatnonzero(keep))]
    hib = higher_is_better(roles.unit, (roles.value, roles.category)) if higher is None else bool(higher)
    meta_cols = [c for c in roles.metadata if c not in ("run", "value_index", "time", "value", "build")]
    out = []
    stem = re.sub(r"\.(csv|tsv|txt|parquet|pq)(\.gz)?$", "", os.path.basename(source.name), flags=re.I)
    for name, rows in groups:
        if rows.size == 0:
            continue
        b = df[roles.build].to_numpy()[rows]
        codes, uniques = pd.factorize(b, sort=False)
        t = times[rows] if times is not None else None
        pos = _build_order(codes, uniques, t)[codes]
        order = np.argsort(pos, kind="stable")
        pos = pos[order]
        rows = rows[order]
        counts = np.bincount(pos, minlength=len(uniques))
        starts = np.r_[0, np.cumsum(counts)[:-1]]
        vidx = np.arange(rows.size) - starts[pos]
        data = {
            "time": t[order] if t is not None else np.full(rows.size, np.nan),
            "run": pos.astype(np.int64) + 1,
            "build": _plain_ids(df[roles.build].to_numpy()[rows]),
            "value_index": vidx.astype(np.int64),
            "value": values[rows],
        }
        frame = pd.DataFrame(data)
        if meta_cols:
            extra_cols = df.iloc[rows][meta_cols].reset_index(drop=True)
            frame = pd.concat([frame, extra_cols], axis=1)
        info = {
            "value_column": roles.value, "build_column": roles.build, "time_column": roles.time,
            "series_column": roles.series, "index_columns": list(roles.index), "metadata_columns": meta_cols,
            "builds": int(len(uniques)), "measurements": int(rows.size), "dropped_rows": dropped,
            "time_origin": origin, "higher_is_better": hib, "category": roles.category or None,
            "chosen_by": dict(roles.how),
        }
        meta = TraceMeta(path=source.name, format=fmt, kind="history", name=name, value_unit=roles.unit,
                         time_unit="s", extra={"history": info, "higher_is_better": hib,
                                               "series": name if name is not None else stem})
        out.append(Trace(frame, meta))
    if not out:
        raise InputError(source.name, "no measurements (every value or build is empty)")
    return out


def _plain_ids(b: np.ndarray) -> np.ndarray:
    """Build ids as int64 when they are whole numbers, else as given (strings)."""
    if b.dtype.kind in "iu":
        return b.astype(np.int64)
    if b.dtype.kind == "f" and np.all(np.mod(b, 1) == 0):
        return b.astype(np.int64)
    return b
