"""Plain tables of benchmark results: CSV / TSV (and Parquet), one row per measured value.

Two shapes:

* **History** (one benchmark across builds; SAP HANA's ``index_1based,timestamp,sut_version,value``):
  a build column (given as ``build=`` / ``group=``, or named build, sut_version, commit, revision, ...)
  groups the measurements of one build into one run. Gives ``kind="history"`` Traces, see
  :mod:`bandkit.loaders.history`; ``series=`` splits a long table holding many benchmarks.
* **Runner results** without builds: optional ``name`` / ``benchmark`` (one Trace per distinct
  name; ``name=`` / ``series=`` picks the column), optional ``run`` (1-based run number; else each
  row is a run), optional ``time`` (seconds) or ``date``. Every other column is per-run metadata.

The value is ``value=`` or the one column named value / measurement / duration / mean / time / ...
or the only numeric column; an integer 1..n column is a row index (never a value or a suspect). A
table whose only candidate holds labels (a few small integer codes) or ids is refused with the
reason. Separator auto-detected (comma, tab, semicolon); lines starting with ``#`` are comments.
Units from the value's header (``time_ms``, ``duration (s)``), ``unit=``, or a file named
``NNNNN__category__unit.csv``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, UsageError
from ..trace import Trace
from .runner_common import MAX_ABS_VALUE, MIN_ABS_VALUE, build_runner_trace, reject_options
from .source import Source
from .table import infer_roles, read_table


def load_csv(source: Source, value: str | None = None, name: str | None = None, unit: str = "",
             build: str | None = None, group: str | None = None, time: str | None = None,
             series: str | None = None, higher_is_better: bool | None = None, **options: Any) -> list[Trace]:
    """Load a CSV / TSV / Parquet table: history Traces when it has builds, runner Traces otherwise."""
    reject_options(source, "csv", options)
    if build is not None and group is not None and build != group:
        raise UsageError(f"{source.name}: give either build= or group=, not both")
    if name is not None and series is not None and name != series:
        raise UsageError(f"{source.name}: give either name= or series=, not both")
    df = read_table(source)
    if not isinstance(df.index, pd.RangeIndex):  # pandas took the leading fields of long rows as an index
        raise InputError(source.name, "rows have more fields than the header")
    fmt = "parquet" if source.read_bytes()[:4] == b"PAR1" else "csv"
    if df.empty:
        raise InputError(source.name, "table has a header but no rows")
    roles = infer_roles(df, source, value=value, build=build or group, time=time, series=series or name,
                        unit=unit or None)
    if roles.build is not None:
        from .history import history_traces

        return history_traces(source, df, roles, fmt, higher=higher_is_better)
    return _runner_traces(source, df, roles, fmt)


def load_parquet(source: Source, **options: Any) -> list[Trace]:
    """A Parquet table (pyarrow): same columns and options as :func:`load_csv`."""
    return load_csv(source, **options)


def _runner_traces(source: Source, df: pd.DataFrame, roles, fmt: str) -> list[Trace]:
    value = roles.value
    vals = pd.to_numeric(df[value], errors="coerce")
    a = np.abs(vals.to_numpy(dtype=np.float64, na_value=np.nan))
    bad = np.flatnonzero((vals.isna().to_numpy() & df[value].notna().to_numpy())
                         | ~(np.isnan(a) | (a == 0) | ((a >= MIN_ABS_VALUE) & (a <= MAX_ABS_VALUE))))
    if len(bad):
        raise InputError(source.name, f"not a finite number of plausible size: {str(df[value].iloc[bad[0]])[:40]!r}",
                         line=int(bad[0]) + 2, field=value)
    vals = vals.to_numpy(dtype=np.float64, na_value=np.nan)
    name = roles.series
    groups = [(str(k), ix) for k, ix in df.groupby(name, sort=False).indices.items()] if name else \
        [(source.name, np.arange(len(df)))]
    tcol = roles.time if roles.time and pd.api.types.is_numeric_dtype(df[roles.time]) else None
    md_cols = [c for c in roles.metadata if c not in (value, name, "run", "time")]
    traces = []
    for bname, ix in groups:
        g = df.iloc[ix]
        keys = g[roles.run].to_numpy() if roles.run else np.arange(len(g))
        codes, _ = pd.factorize(keys, sort=False, use_na_sentinel=False)  # an empty run cell is a run too
        first = np.unique(codes, return_index=True)[1]
        md = g[md_cols].iloc[first]
        runs = []
        gv = vals[ix]
        order = np.argsort(codes, kind="stable")
        bounds = np.r_[0, np.cumsum(np.bincount(codes))]
        rec = md.to_dict("records")
        for k in range(len(first)):
            sel = order[bounds[k]:bounds[k + 1]]
            runs.append((gv[sel].tolist(), {c: (None if pd.isna(v) else v.item() if hasattr(v, "item") else v)
                                            for c, v in rec[k].items()}))
        run_times = g[tcol].to_numpy(dtype=float)[first] if tcol else None
        traces.append(build_runner_trace(source, fmt, bname, runs, value_unit=roles.unit,
                                         times=run_times))
    return traces
