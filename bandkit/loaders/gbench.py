"""Google Benchmark JSON (``--benchmark_out_format=json``).

One Trace per benchmark (``run_name``): each ``run_type == "iteration"`` row is one run (its
repetition), value = ``real_time`` (or ``cpu_time`` with ``value="cpu_time"``) in the row's
``time_unit``. Aggregate rows (mean / median / stddev / cv) are kept in ``meta.extra["aggregates"]``;
a benchmark reported with aggregates only becomes a summary-only trace (its mean). Counters and
``cpu_time`` / ``iterations`` are per-run columns; ``context`` is benchmark-level metadata
(``load_avg`` -> ``load_avg_1min/5min/15min``). Bare NaN / Infinity are accepted.
"""
from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..trace import Trace
from .runner_common import as_float, build_runner_trace, read_json, reject_options, require, summary_trace
from .source import Source

_SKIP = {"name", "run_name", "run_type", "family_index", "per_family_instance_index", "repetitions",
         "repetition_index", "time_unit", "aggregate_name", "aggregate_unit", "label", "error_occurred",
         "error_message"}


def load_gbench(source: Source, value: str = "real_time", **options: Any) -> list[Trace]:
    reject_options(source, "gbench", options)
    if value not in ("real_time", "cpu_time"):
        raise InputError(source.name, f"value must be 'real_time' or 'cpu_time', got {value!r}")
    doc = read_json(source)
    ctx = doc.get("context") or {}
    benches = require(doc, "benchmarks", list, source)
    const: dict[str, Any] = {}
    for k, v in ctx.items():
        if k == "load_avg" and isinstance(v, list):
            for lbl, x in zip(("load_avg_1min", "load_avg_5min", "load_avg_15min"), v):
                const[lbl] = x
        elif k == "date":
            const["context_date"] = v
        elif isinstance(v, (str, int, float, bool)):
            const[k] = v
    groups: dict[str, dict[str, Any]] = {}
    for i, b in enumerate(benches):
        where = f"benchmarks[{i}]."
        if not isinstance(b, dict):
            raise InputError(source.name, "expected an object", field=f"benchmarks[{i}]")
        name = str(b.get("run_name") or require(b, "name", str, source, where))
        g = groups.setdefault(name, {"runs": [], "aggregates": {}, "unit": b.get("time_unit", "ns"), "errors": []})
        if b.get("error_occurred"):
            g["errors"].append(str(b.get("error_message", "error")))
            continue
        if b.get("run_type", "iteration") == "aggregate":
            agg = str(b.get("aggregate_name", "aggregate"))
            g["aggregates"][agg] = as_float(b.get(value), source, where + value)
            continue
        md = {k: v for k, v in b.items() if k not in _SKIP and k != value and isinstance(v, (int, float))
              and not isinstance(v, bool)}
        if "repetition_index" in b:
            md["repetition_index"] = b["repetition_index"]
        g["runs"].append(([as_float(require(b, value, (int, float), source, where), source, where + value)], md))
    traces = []
    for name, g in groups.items():
        extra = {"aggregates": g["aggregates"], "errors": g["errors"], "value_column": value}
        if not g["runs"]:
            mean = g["aggregates"].get("mean", float("nan"))
            reason = "aggregates only (run with --benchmark_report_aggregates_only)" if g["aggregates"] else \
                "every repetition reported an error"
            traces.append(summary_trace(source, "gbench", name, mean, value_unit=g["unit"], stats=extra,
                                        metadata=const, reason=reason))
            continue
        traces.append(build_runner_trace(source, "gbench", name, g["runs"], value_unit=g["unit"],
                                         constant_metadata=const, extra=extra))
    return traces
