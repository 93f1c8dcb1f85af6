"""Criterion.rs ``new/sample.json`` (``iters`` and total ``times`` in ns per sample) and ``raw.csv``.

One Trace; each sample is one run with value = time per iteration (ns) and per-run column
``iters`` (iterations in the sample). The benchmark's name comes from the sibling
``benchmark.json`` when there is one (``sample.json`` -> ``benchmark.json`` in the file name),
else from the directory names. A ``benchmark.json`` alone holds no measurements.
"""
from __future__ import annotations

import csv
import io
import json
from typing import Any

from ..errors import BandkitError, InputError
from ..trace import Trace
from .runner_common import TIME_UNITS_S, as_float, build_runner_trace, read_json, reject_options, require
from .source import Source


def _name_from_sibling(source: Source, stem: str) -> str | None:
    if source.path is None:
        return None
    p = source.path
    for cand in (p.with_name(p.name.replace(stem, "benchmark.json")), p.with_name("benchmark.json")):
        if cand != p and cand.is_file():
            try:
                doc = json.loads(source.related(cand).read_text())
                return str(doc.get("full_id") or doc.get("title"))
            except (BandkitError, ValueError):
                return None
    parts = p.parent.parts
    if len(parts) >= 3 and parts[-1] in ("new", "base"):
        return f"{parts[-3]}/{parts[-2]}"
    return None


def load_criterion(source: Source, **options: Any) -> list[Trace]:
    reject_options(source, "criterion", options)
    head = source.head(200).lstrip()
    if head.startswith(b"group,function"):
        return _load_raw_csv(source)
    doc = read_json(source)
    if isinstance(doc, dict) and "full_id" in doc and "times" not in doc:
        raise InputError(source.name, "Criterion benchmark.json names the benchmark but holds no measurements; "
                                      "load the sibling new/sample.json or raw.csv")
    iters = require(doc, "iters", list, source)
    times = require(doc, "times", list, source)
    if len(iters) != len(times):
        raise InputError(source.name, f"'iters' has {len(iters)} items but 'times' has {len(times)}", field="times")
    name = _name_from_sibling(source, "sample.json") or (source.path.stem if source.path else "criterion")
    runs = []
    for k, (n, t) in enumerate(zip(iters, times)):
        n_f = as_float(n, source, f"iters[{k}]")
        if not n_f > 0:
            raise InputError(source.name, f"iteration count must be > 0, got {n!r}", field=f"iters[{k}]")
        runs.append(([as_float(t, source, f"times[{k}]") / n_f], {"iters": n_f}))
    return [build_runner_trace(source, "criterion", name, runs, value_unit="ns",
                               constant_metadata={"sampling_mode": doc.get("sampling_mode")})]


def _load_raw_csv(source: Source) -> list[Trace]:
    rows = list(csv.DictReader(io.StringIO(source.read_table_text())))
    if not rows:
        raise InputError(source.name, "no samples in raw.csv")
    groups: dict[str, list[tuple[list[float], dict]]] = {}
    units: dict[str, str] = {}
    for ln, r in enumerate(rows, start=2):
        try:
            name = "/".join(x for x in (r["group"], r["function"], r.get("value") or "") if x)
            v = float(r["sample_measured_value"])
            n = float(r["iteration_count"])
            unit = r.get("unit") or "ns"
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(source.name, f"bad raw.csv row ({exc})", line=ln) from None
        if not n > 0:
            raise InputError(source.name, "iteration_count must be > 0", line=ln, field="iteration_count")
        scale = 1.0
        if unit in TIME_UNITS_S:  # normalise time units to ns
            scale, unit = TIME_UNITS_S[unit] / 1e-9, "ns"
        units[name] = unit
        groups.setdefault(name, []).append(([v * scale / n], {"iters": n}))
    return [build_runner_trace(source, "criterion", name, runs, value_unit=units[name])
            for name, runs in groups.items()]
