"""Plain CSV / TSV of benchmark results: one row per measured value.

Columns: ``value`` (or the column given by ``value=``; if absent and only one numeric column
exists, that one), optional ``name`` / ``benchmark`` (one Trace per distinct name; ``name=`` picks
the column), optional ``run`` (1-based run number; else each row is a run), optional ``time``
(seconds) or ``date``. Every other column is per-run metadata. Separator auto-detected
(comma, tab, semicolon); lines starting with ``#`` are comments.
"""
from __future__ import annotations

import csv
import io
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..trace import Trace
from .runner_common import build_runner_trace, reject_options
from .source import Source


def load_csv(source: Source, value: str | None = None, name: str | None = None, unit: str = "",
             **options: Any) -> list[Trace]:
    reject_options(source, "csv", options)
    text = source.read_text()
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise InputError(source.name, "empty CSV")
    try:
        dialect = csv.Sniffer().sniff(lines[0], delimiters=",\t;")
        sep = dialect.delimiter
    except csv.Error:
        sep = ","
    try:
        df = pd.read_csv(io.StringIO("\n".join(lines)), sep=sep)
    except (pd.errors.ParserError, ValueError) as exc:
        raise InputError(source.name, f"cannot parse CSV: {exc}") from None
    df.columns = [str(c).strip() for c in df.columns]
    if value is None:
        if "value" in df.columns:
            value = "value"
        else:
            numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c]) and c not in ("run", "time")]
            if len(numeric) != 1:
                raise InputError(source.name, "no 'value' column; pass value=COLUMN (numeric columns: "
                                 + (", ".join(numeric) or "none") + ")")
            value = numeric[0]
    if value not in df.columns:
        raise InputError(source.name, f"no column {value!r}", field=value)
    vals = pd.to_numeric(df[value], errors="coerce")
    bad = np.flatnonzero(vals.isna().to_numpy() & df[value].notna().to_numpy())
    if len(bad):
        raise InputError(source.name, f"non-numeric value {df[value].iloc[bad[0]]!r}", line=int(bad[0]) + 2,
                         field=value)
    if name is None:
        name = next((c for c in ("name", "benchmark") if c in df.columns), None)
    groups = [(str(k), g) for k, g in df.groupby(name, sort=False)] if name else [(source.name, df)]
    traces = []
    for bname, g in groups:
        md_cols = [c for c in g.columns if c not in (value, name, "run", "time")]
        runs: list[tuple[list[float], dict]] = []
        keys = g["run"].to_numpy() if "run" in g.columns else np.arange(len(g))
        times = g["time"].to_numpy(dtype=float) if "time" in g.columns else None
        run_times = []
        order: dict[Any, int] = {}
        for i, k in enumerate(keys):
            if k not in order:
                order[k] = len(runs)
                row = g.iloc[i]
                runs.append(([], {c: (None if pd.isna(row[c]) else row[c].item() if hasattr(row[c], "item") else row[c])
                                  for c in md_cols}))
                run_times.append(times[i] if times is not None else np.nan)
            runs[order[k]][0].append(float(vals.loc[g.index[i]]))
        traces.append(build_runner_trace(source, "csv", bname, runs, value_unit=unit,
                                         times=run_times if times is not None else None))
    return traces
