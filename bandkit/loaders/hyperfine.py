"""hyperfine ``--export-json``: one Trace per command; each timed run is one run (one value, s).

Per-run columns: ``exit_code`` (None -> NaN, e.g. killed by a signal), ``memory_usage_byte``
when present. hyperfine writes no per-run timestamps, so ``time`` is NaN; ``user`` / ``system``
means and ``parameters`` are in ``meta.extra["metadata"]``.
"""
from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..trace import Trace
from .runner_common import as_float, build_runner_trace, read_json, reject_options, require, summary_trace
from .source import Source
from .summary_stats import summary_stats


def load_hyperfine(source: Source, **options: Any) -> list[Trace]:
    reject_options(source, "hyperfine", options)
    doc = read_json(source, "hyperfine")
    results = require(doc, "results", list, source)
    traces = []
    for i, res in enumerate(results):
        where = f"results[{i}]."
        if not isinstance(res, dict):
            raise InputError(source.name, "expected an object", field=f"results[{i}]")
        name = str(require(res, "command", str, source, where))
        const: dict[str, Any] = {}
        for k in ("user", "system", "mean", "stddev", "median", "min", "max"):
            if k in res:
                const[f"hyperfine_{k}"] = as_float(res[k], source, where + k)
        for k, v in (res.get("parameters") or {}).items():
            const[f"parameter.{k}"] = v
        times = res.get("times")
        n = len(times) if isinstance(times, list) and times else None
        st = summary_stats(source, {k: (res.get(k), where + k) for k in ("mean", "stddev", "median", "min", "max")}
                           | {"n": (n, where + "times")}, statistic="mean", origin="hyperfine summary")
        if not times:
            if st is None or "mean" not in st:
                raise InputError(source.name, "no 'times' and no 'mean': nothing measured", field=where + "mean")
            traces.append(summary_trace(source, "hyperfine", name, st["mean"], value_unit="s", stats=const,
                                        summary_stats=st, reason="no 'times' list (exported without per-run times)"))
            continue
        if not isinstance(times, list):
            raise InputError(source.name, "expected a list", field=where + "times")
        codes = res.get("exit_codes") or []
        mem = res.get("memory_usage_byte") or []
        runs = []
        for k, t in enumerate(times):
            md: dict[str, Any] = {}
            if k < len(codes):
                md["exit_code"] = float("nan") if codes[k] is None else as_float(codes[k], source, f"{where}exit_codes[{k}]")
            if k < len(mem):
                md["memory_usage_byte"] = as_float(mem[k], source, f"{where}memory_usage_byte[{k}]")
            runs.append(([as_float(t, source, f"{where}times[{k}]", finite=True)], md))
        traces.append(build_runner_trace(source, "hyperfine", name, runs, value_unit="s", constant_metadata=const,
                                         extra={"summary_stats": st}))
    return traces
