"""turbostat logs: tab-separated; the header is repeated before every interval; the first row of
an interval with ``-`` in the topology columns is the system summary; package / core columns
appear only on the first CPU row of each package / core (ragged rows).

One Trace (kind ``"series"``) of the system summary: each interval is one ``run``, value =
``column`` (default ``Bzy_MHz``; ``Avg_MHz`` when absent) of the summary row; the other summary
columns are per-run columns, and per CPU ``<column>.cpu<N>`` (plus ``CoreTmp.cpu<N>`` /
``PkgTmp.cpu<N>`` where given). ``time`` = ``Time_Of_Day_Seconds`` relative to the first
interval when logged (``--show Time_Of_Day_Seconds``), else ``interval_s`` x index when given,
else NaN. Preamble lines (CPUID, MSR dumps) before the first header are skipped.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError
from ..trace import Trace
from .runner_common import build_runner_trace, plausible, reject_options
from .source import Source, check_columns

_TOPO = ("Package", "Die", "Node", "Core", "CPU")


def _is_header(fields: list[str]) -> bool:
    return any(f in ("Avg_MHz", "Busy%", "Bzy_MHz") for f in fields) and not _numeric(fields[-1])


def _numeric(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def load_turbostat(source: Source, column: str | None = None, interval_s: float | None = None,
                   **options: Any) -> list[Trace]:
    reject_options(source, "turbostat", options)
    header: list[str] | None = None
    intervals: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for ln, line in enumerate(source.read_table_text().splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.rstrip("\n").split("\t") if "\t" in line else line.split()
        if _is_header(fields):
            check_columns(source, len(fields), line=ln)
            header = fields
            current = None
            continue
        if header is None:
            continue  # preamble
        if len(fields) > len(header):
            raise InputError(source.name, f"{len(fields)} fields but the header has {len(header)}", line=ln)
        row = dict(zip(header, fields))
        topo = [row.get(t) for t in _TOPO if t in row]
        is_summary = bool(topo) and all(t == "-" for t in topo)
        if current is None or is_summary:
            current = {"summary": None, "cpus": {}, "line": ln}
            intervals.append(current)
        if is_summary or not topo:
            current["summary"] = row
        else:
            cpu = row.get("CPU", str(len(current["cpus"])))
            current["cpus"][cpu] = row
    if not intervals:
        raise InputError(source.name, "no turbostat header with Avg_MHz / Busy% found")
    cols = header or []
    col = column or ("Bzy_MHz" if "Bzy_MHz" in cols else "Avg_MHz")
    if col not in cols:
        raise InputError(source.name, f"no column {col!r} (columns: {', '.join(cols)})")
    runs = []
    tod = []
    for iv in intervals:
        summ = iv["summary"]
        if summ is None and len(iv["cpus"]) == 1:
            summ = next(iter(iv["cpus"].values()))
        if summ is None or col not in summ:
            continue
        md: dict[str, Any] = {}
        for k, v in summ.items():
            if k in _TOPO or k == col:
                continue
            md[k] = _to_float(v)
        for cpu, r in iv["cpus"].items():
            for k in (col, "CoreTmp", "PkgTmp"):
                if k in r and r[k] != "-":
                    md[f"{k}.cpu{cpu}"] = _to_float(r[k])
        try:
            val = float(summ[col])
        except ValueError:
            raise InputError(source.name, f"non-numeric {col} value {summ[col]!r}", line=iv["line"]) from None
        if not plausible(val):
            raise InputError(source.name, f"{col} value {summ[col][:40]!r} is not a finite number of plausible size",
                             line=iv["line"])
        runs.append(([val], md))
        tod.append(md.get("Time_Of_Day_Seconds", np.nan))
    if not runs:
        raise InputError(source.name, f"no interval has a {col} value")
    tod_a = np.asarray(tod, dtype=float)
    if np.isfinite(tod_a).any():
        times = tod_a - np.nanmin(tod_a)
    elif interval_s:
        times = np.arange(len(runs)) * float(interval_s)
    else:
        times = None
    unit = "MHz" if "MHz" in col else ("W" if "Watt" in col else ("%" if "%" in col else ("C" if "Tmp" in col else "")))
    name = f"turbostat {col}"
    tr = build_runner_trace(source, "turbostat", name, runs, value_unit=unit,
                            times=times if times is not None else [np.nan] * len(runs),
                            extra={"value_column": col, "cpus": sorted({c for iv in intervals for c in iv["cpus"]}),
                                   "run_numbering": "turbostat intervals, 1-based"})
    tr.meta = tr.meta.replace(kind="series")
    return [tr]


def _to_float(v: str) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")
