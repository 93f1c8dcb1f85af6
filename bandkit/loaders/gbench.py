"""Google Benchmark ``--benchmark_format=json`` / ``--benchmark_out``: one Trace per benchmark
(``run_name``); each iteration row (one per repetition) is one run with value = ``real_time``
(or ``cpu_time`` with ``value="cpu_time"``) in the file's ``time_unit``.

Aggregate rows (``mean``, ``median``, ``stddev``, ``min``, ``max``; ``cv`` is kept but is a ratio)
become ``meta.extra["summary_stats"]`` (n = ``repetitions``); a benchmark with aggregates only
(``--benchmark_report_aggregates_only``) is a summary-only trace. Without repetitions a benchmark
has one run (the mean over ``iterations`` iterations; ``summary_stats`` says so). Complexity fits
(``BigO`` / ``RMS`` rows of a family run with ``->Complexity()``) are not measurements: they are
attached to the family's traces as ``meta.extra["complexity"]`` and never become a trace of their
own unless the file holds nothing else of the family. Errored runs are listed in
``meta.extra["errors"]``. Per-run columns: ``iterations``, ``threads``, user counters;
``context`` goes to benchmark-level metadata (``load_avg`` -> ``load_avg_1min/5min/15min``).
Bare NaN / Infinity are accepted.
"""
from __future__ import annotations

import math
from typing import Any

from ..errors import InputError
from ..trace import Trace
from .runner_common import as_float, build_runner_trace, read_json, reject_options, summary_trace
from .source import Source
from .summary_stats import summary_stats

_SKIP = {"name", "run_name", "run_type", "family_index", "per_family_instance_index", "repetitions",
         "repetition_index", "time_unit", "aggregate_name", "aggregate_unit", "label", "error_occurred",
         "error_message"}
_COMPLEXITY = ("BigO", "RMS")
_AGG_STATS = {"mean": "mean", "median": "median", "stddev": "stddev", "min": "min", "max": "max"}


def load_gbench(source: Source, value: str = "real_time", **options: Any) -> list[Trace]:
    reject_options(source, "gbench", options)
    if value not in ("real_time", "cpu_time"):
        raise InputError(source.name, f"value must be 'real_time' or 'cpu_time', got {value!r}")
    doc = read_json(source, "gbench")
    ctx = doc.get("context") or {}
    benches = doc["benchmarks"]
    const: dict[str, Any] = {}
    for k, v in ctx.items():
        if k == "load_avg" and isinstance(v, list):
            for lbl, x in zip(("load_avg_1min", "load_avg_5min", "load_avg_15min"), v):
                if isinstance(x, (int, float)) and not isinstance(x, bool):
                    const[lbl] = x
        elif k == "date":
            const["context_date"] = v
        elif isinstance(v, (str, int, float, bool)):
            const[k] = v
    groups: dict[str, dict[str, Any]] = {}
    complexity: dict[str, dict[str, Any]] = {}
    for i, b in enumerate(benches):
        where = f"benchmarks[{i}]."
        name = str(b.get("run_name") or b["name"])
        agg = str(b.get("aggregate_name", "aggregate"))
        if b.get("run_type") == "aggregate" and agg in _COMPLEXITY:
            fit = complexity.setdefault(name, {})
            if agg == "BigO":
                fit.update({"big_o": b.get("big_o"), "time_unit": b.get("time_unit", "ns"),
                            "real_coefficient": as_float(b.get("real_coefficient"), source, where + "real_coefficient"),
                            "cpu_coefficient": as_float(b.get("cpu_coefficient"), source, where + "cpu_coefficient")})
            else:
                fit["rms"] = as_float(b.get("rms"), source, where + "rms")
            continue
        g = groups.setdefault(name, {"runs": [], "aggregates": {}, "unit": b.get("time_unit", "ns"), "errors": [],
                                     "repetitions": None, "agg_where": {}})
        if b.get("error_occurred"):
            g["errors"].append(str(b.get("error_message", "error"))[:1000])
            continue
        if b.get("run_type", "iteration") == "aggregate":
            g["aggregates"][agg] = as_float(b.get(value), source, where + value)
            g["agg_where"][agg] = where + value
            if b.get("repetitions") is not None:
                g["repetitions"] = (b["repetitions"], where + "repetitions")
            continue
        if b.get(value) is None:
            raise InputError(source.name, "missing field", field=where + value)
        md = {k: v for k, v in b.items() if k not in _SKIP and k != value and isinstance(v, (int, float))
              and not isinstance(v, bool)}
        if "repetition_index" in b:
            md["repetition_index"] = b["repetition_index"]
        g["runs"].append(([as_float(b[value], source, where + value, finite=True)], md))
    traces = []
    for name, g in groups.items():
        fit = _family_fit(name, complexity)
        extra = {"aggregates": g["aggregates"], "errors": g["errors"], "value_column": value}
        if fit:
            extra["complexity"] = fit
        st = _stats(source, g, len(g["runs"]))
        extra["summary_stats"] = st
        if not g["runs"]:
            if st is None or "mean" not in st and "median" not in st:
                reason = ("every repetition reported an error" if g["errors"] else
                          "aggregates without a mean or median")
                traces.append(summary_trace(source, "gbench", name, math.nan, value_unit=g["unit"], stats=extra,
                                            metadata=const, reason=reason))
                continue
            traces.append(summary_trace(source, "gbench", name, st[st["statistic"]], value_unit=g["unit"],
                                        stats=extra, metadata=const, summary_stats=st,
                                        reason="aggregates only (run with --benchmark_report_aggregates_only)"))
            continue
        traces.append(build_runner_trace(source, "gbench", name, g["runs"], value_unit=g["unit"],
                                         constant_metadata=const, extra=extra))
    used = {f for f in complexity if any(n == f or n.startswith(f + "/") for n in groups)}
    for fam, fit in complexity.items():
        if fam in used:
            continue
        traces.append(summary_trace(source, "gbench", f"{fam} (complexity fit)", math.nan,
                                    value_unit=str(fit.get("time_unit", "")), stats={"complexity": fit},
                                    metadata=const,
                                    reason="only a complexity fit (BigO/RMS over the input sizes) is in the file, "
                                           "not the per-size measurements"))
    return traces


def _family_fit(name: str, complexity: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    for fam, fit in complexity.items():
        if name.startswith(fam + "/"):
            return fit
    return None


def _stats(source: Source, g: dict[str, Any], n_runs: int) -> dict[str, Any] | None:
    """summary_stats from the aggregate rows, or for a single run without repetitions, that run."""
    aggs = g["aggregates"]
    if any(k in aggs for k in _AGG_STATS):
        fields = {key: (aggs.get(agg), g["agg_where"].get(agg, "")) for agg, key in _AGG_STATS.items()}
        fields["n"] = g["repetitions"] or (n_runs or None, "")
        return summary_stats(source, fields, statistic="mean", origin="Google Benchmark aggregates")
    if n_runs == 1:
        value, md = g["runs"][0][0][0], g["runs"][0][1]
        its = md.get("iterations")
        return summary_stats(source, {"mean": (value, ""), "n": (1, ""),
                                      "iterations": (its if isinstance(its, int) and its >= 1 else None, "")},
                             statistic="mean", origin="Google Benchmark single run (no repetitions)")
    return None
