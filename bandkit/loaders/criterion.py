"""Criterion.rs ``new/sample.json`` and ``new/raw.csv`` (both layouts of the criterion.rs book).

``sample.json``: ``{"sampling_mode", "iters", "times"}`` (criterion >= 0.3.4) or
``[[iters...], [times...]]`` (before): ``times[k]`` is the total time in ns of sample ``k``, which
ran ``iters[k]`` iterations. ``raw.csv``: ``group,function,value,throughput_num,throughput_type,
sample_measured_value,unit,iteration_count`` (0.3) or ``group,function,value,sample_time_nanos,
iteration_count`` (0.2); ``value`` is the benchmark's *parameter* (part of its name, often
empty), never a measurement.

One Trace per benchmark; each sample is one run with value = time per iteration (ns) and per-run
column ``iters`` (iterations in the sample), so the mean of the runs is Criterion's per-iteration
sample mean. The name of a ``sample.json`` benchmark comes from the sibling ``benchmark.json``
when there is one, else from the directory names (``<group>/<function>/new/sample.json``).
A ``benchmark.json`` alone holds no measurements.
"""
from __future__ import annotations

import csv
import io
import os
from typing import Any

from ..errors import BandkitError, InputError
from ..trace import Trace
from .runner_common import TIME_UNITS_S, as_float, build_runner_trace, plausible, read_json, reject_options
from .source import Source

#: raw.csv header fields of the two layouts (the measured time and its unit).
RAW_LAYOUTS = {
    "sample_measured_value": ("group", "function", "value", "throughput_num", "throughput_type",
                              "sample_measured_value", "unit", "iteration_count"),
    "sample_time_nanos": ("group", "function", "value", "sample_time_nanos", "iteration_count"),
}
#: Largest sibling benchmark.json read for the name (bytes).
_MAX_SIBLING = 1 << 20


def is_raw_csv_header(line: bytes | str) -> bool:
    """True for the header line of either raw.csv layout."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", "replace")
    fields = tuple(f.strip() for f in line.strip().lstrip("\ufeff").split(","))
    return any(fields[:len(h)] == h for h in RAW_LAYOUTS.values())


def _name_from_sibling(source: Source, stem: str) -> str | None:
    if source.path is None:
        return None
    p = source.path
    for cand in (p.with_name(p.name.replace(stem, "benchmark.json")), p.with_name("benchmark.json")):
        if cand != p and cand.is_file():
            try:
                if os.path.getsize(cand) > _MAX_SIBLING:
                    return None
                doc = read_json(source.related(cand), "criterion-benchmark")
            except (OSError, BandkitError):
                return None
            name = doc.get("full_id") or doc.get("title") if isinstance(doc, dict) else None
            return str(name) if name else None
    parts = p.parent.parts
    if len(parts) >= 3 and parts[-1] in ("new", "base"):
        return f"{parts[-3]}/{parts[-2]}"
    return None


def load_criterion(source: Source, **options: Any) -> list[Trace]:
    reject_options(source, "criterion", options)
    head = source.head(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"group,") or is_raw_csv_header(head.split(b"\n", 1)[0]):
        return _load_raw_csv(source)
    doc = read_json(source, "criterion")
    if isinstance(doc, dict) and "full_id" in doc and "times" not in doc:
        raise InputError(source.name, "Criterion benchmark.json names the benchmark but holds no measurements; "
                                      "load the sibling new/sample.json or raw.csv")
    if isinstance(doc, list):  # [[iters...], [times...]] (the input schema checked: two lists of numbers)
        iters, times, fi, ft = doc[0], doc[1], "[0]", "[1]"
        mode = None
    else:  # an object; the schema's benchmark.json branch (full_id) lets 'iters'/'times' through unchecked
        missing = [k for k in ("iters", "times") if k not in doc]
        if missing:
            raise InputError(source.name, "a Criterion sample.json needs 'iters' and 'times'",
                             field=missing[0])
        iters, times, fi, ft = doc["iters"], doc["times"], "iters", "times"
        mode = doc.get("sampling_mode")
        for seq, f in ((iters, fi), (times, ft)):
            if not isinstance(seq, list):
                raise InputError(source.name, f"expected a list, got {type(seq).__name__}", field=f)
    if len(iters) != len(times):
        raise InputError(source.name, f"{len(iters)} iteration counts but {len(times)} times", field=ft)
    if not iters:
        raise InputError(source.name, "no samples", field=fi)
    name = _name_from_sibling(source, "sample.json") or (source.path.stem if source.path else "criterion")
    runs = []
    for k, (n, t) in enumerate(zip(iters, times)):
        n_f = as_float(n, source, f"{fi}[{k}]", finite=True)
        if not n_f >= 1:
            raise InputError(source.name, f"iteration count must be >= 1, got {n!r}", field=f"{fi}[{k}]")
        v = as_float(t, source, f"{ft}[{k}]", finite=True) / n_f
        if not plausible(v):
            raise InputError(source.name, f"time per iteration {v!r} is not of plausible size", field=f"{ft}[{k}]")
        runs.append(([v], {"iters": n_f}))
    return [build_runner_trace(source, "criterion", name, runs, value_unit="ns",
                               constant_metadata={"sampling_mode": mode} if mode else None,
                               extra={"criterion_layout": "sample.json" + (" (list)" if mode is None else "")})]


def _load_raw_csv(source: Source) -> list[Trace]:
    text = source.read_table_text()
    reader = csv.reader(io.StringIO(text))
    try:
        header = [h.strip().lstrip("\ufeff") for h in next(reader, [])]
    except csv.Error as exc:
        raise InputError(source.name, f"bad raw.csv header ({exc})", line=1) from None
    layout = next((k for k, h in RAW_LAYOUTS.items() if tuple(header[:len(h)]) == h), None)
    if layout is None:
        raise InputError(source.name, "not a Criterion raw.csv header (expected "
                         + " or ".join(",".join(h) for h in RAW_LAYOUTS.values()) + ")", line=1)
    col = {h: i for i, h in enumerate(header)}
    i_time, i_iter = col[layout], col["iteration_count"]
    i_unit = col.get("unit")
    groups: dict[str, list[tuple[list[float], dict]]] = {}
    units: dict[str, str] = {}
    try:
        for row in reader:
            ln = reader.line_num
            if not row or not any(c.strip() for c in row):
                continue
            if len(row) != len(header):
                raise InputError(source.name, f"{len(row)} fields but the header has {len(header)}", line=ln)
            name = "/".join(x for x in (row[0], row[1], row[2]) if x)
            t = _number(source, row[i_time], ln, layout)
            n = _number(source, row[i_iter], ln, "iteration_count")
            if not n >= 1:
                raise InputError(source.name, f"iteration_count must be >= 1, got {row[i_iter]!r}", line=ln,
                                 field="iteration_count")
            unit = (row[i_unit].strip() if i_unit is not None else "ns") or "ns"
            scale = 1.0
            if unit in TIME_UNITS_S:  # normalise time units to ns
                scale, unit = TIME_UNITS_S[unit] / 1e-9, "ns"
            if units.setdefault(name, unit) != unit:
                raise InputError(source.name, f"unit {unit!r} differs from the benchmark's earlier rows "
                                              f"({units[name]!r})", line=ln, field="unit")
            if not plausible(t * scale / n):
                raise InputError(source.name, f"time per iteration {t * scale / n!r} is not of plausible size",
                                 line=ln)
            groups.setdefault(name, []).append(([t * scale / n], {"iters": n}))
    except csv.Error as exc:
        raise InputError(source.name, f"bad raw.csv row ({exc})", line=reader.line_num) from None
    if not groups:
        raise InputError(source.name, "no samples in raw.csv")
    return [build_runner_trace(source, "criterion", name, runs, value_unit=units[name],
                               extra={"criterion_layout": f"raw.csv ({layout})"})
            for name, runs in groups.items()]


def _number(source: Source, text: str, line: int, field: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise InputError(source.name, f"not a number: {text[:40]!r}", line=line, field=field) from None
    if not plausible(v):
        raise InputError(source.name, f"not a finite number of plausible size: {text[:40]!r}", line=line, field=field)
    return v
