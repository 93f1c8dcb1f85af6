"""pytest-benchmark JSON: one Trace per benchmark. ``stats.data`` (raw per-round times, s; only
when saved with ``--benchmark-save-data``) gives one run per round; without it the benchmark has
no per-run data and becomes a summary-only trace (value = ``stats.mean``). Either way the file's
statistics (mean, stddev, median, min, max, q1, q3 over ``rounds`` rounds of ``iterations``
iterations) are in ``meta.extra["summary_stats"]``."""
from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..trace import Trace
from .runner_common import as_floats, build_runner_trace, read_json, reject_options, summary_trace
from .source import Source
from .summary_stats import summary_stats

_STATS = {"mean": "mean", "stddev": "stddev", "median": "median", "min": "min", "max": "max", "q1": "q1",
          "q3": "q3", "n": "rounds", "iterations": "iterations"}


def load_pytest_benchmark(source: Source, **options: Any) -> list[Trace]:
    reject_options(source, "pytest-benchmark", options)
    doc = read_json(source, "pytest-benchmark")
    benches = doc["benchmarks"]
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
        name = str(b.get("fullname") or b.get("name"))
        stats = b["stats"]
        bconst = dict(const)
        for k in ("group", "param"):
            if isinstance(b.get(k), (str, int, float, bool)):
                bconst[k] = b[k]
        data = stats.get("data")
        plain_stats = {k: v for k, v in stats.items() if k != "data"}
        st = summary_stats(source, {k: (stats.get(f), f"{where}stats.{f}") for k, f in _STATS.items()},
                           statistic="mean", origin="pytest-benchmark stats")
        if not data:
            if st is None or "mean" not in st:
                raise InputError(source.name, "no stats.data and no stats.mean: nothing measured", field=where + "stats")
            traces.append(summary_trace(source, "pytest-benchmark", name, st["mean"], value_unit="s",
                                        stats=plain_stats, metadata=bconst, summary_stats=st,
                                        reason="no stats.data (saved without --benchmark-save-data)"))
            continue
        vals = as_floats(data, source, f"{where}stats.data")
        runs = [([v], {}) for v in vals]
        traces.append(build_runner_trace(source, "pytest-benchmark", name, runs, value_unit="s",
                                         constant_metadata=bconst, extra={"stats": plain_stats, "summary_stats": st}))
    return traces

