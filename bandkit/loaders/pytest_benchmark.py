"""pytest-benchmark JSON: one Trace per benchmark. ``stats.data`` (raw per-round times, s; only
when saved with ``--benchmark-save-data``) gives one run per round; without it the benchmark has
no per-run data and becomes a summary-only trace (value = ``stats.mean``)."""
from __future__ import annotations

from typing import Any

from ..trace import Trace
from .runner_common import as_float, build_runner_trace, read_json, reject_options, require, summary_trace
from .source import Source


def load_pytest_benchmark(source: Source, **options: Any) -> list[Trace]:
    reject_options(source, "pytest-benchmark", options)
    doc = read_json(source)
    benches = require(doc, "benchmarks", list, source)
    const: dict[str, Any] = {}
    for section in ("machine_info", "commit_info"):
        for k, v in (doc.get(section) or {}).items():
            if isinstance(v, (str, int, float, bool)) or v is None:
                const[f"{section}.{k}"] = v
    if "datetime" in doc:
        const["datetime"] = doc["datetime"]
    traces = []
    for i, b in enumerate(benches):
        where = f"benchmarks[{i}]."
        name = str(b.get("fullname") or require(b, "name", str, source, where))
        stats = require(b, "stats", dict, source, where)
        bconst = dict(const)
        for k in ("group", "param"):
            if b.get(k) is not None:
                bconst[k] = b[k]
        data = stats.get("data")
        plain_stats = {k: v for k, v in stats.items() if k != "data"}
        if not data:
            traces.append(summary_trace(source, "pytest-benchmark", name,
                                        as_float(stats.get("mean"), source, where + "stats.mean"), value_unit="s",
                                        stats=plain_stats, metadata=bconst,
                                        reason="no stats.data (saved without --benchmark-save-data)"))
            continue
        runs = [([as_float(v, source, f"{where}stats.data[{k}]")], {}) for k, v in enumerate(data)]
        traces.append(build_runner_trace(source, "pytest-benchmark", name, runs, value_unit="s",
                                         constant_metadata=bconst, extra={"stats": plain_stats}))
    return traces
