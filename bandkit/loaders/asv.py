"""airspeed velocity (asv) result files: v1 (``{"result": ..., "stats": ...}`` per benchmark) and
v2 (``result_columns`` + one row per benchmark).

One Trace per benchmark and parameter combination (name ``bench(p1, p2)``). When asv recorded
``samples`` (``--record-samples``) each sample is one run; otherwise the file holds only the
summary (result and stats) and the trace is summary-only (``meta.extra["summary_only"]``).
``machine.json`` describes a machine and holds no results: loading it is an InputError saying so.
Units: seconds for ``time_*`` / ``timeraw_*`` benchmarks; other kinds (``track_*``, ``mem_*``) declare
their unit in asv's ``benchmarks.json``, which a result file does not hold, so it is left empty.
"""
from __future__ import annotations

import itertools
import math
from typing import Any

from ..errors import InputError
from ..trace import Trace
from .runner_common import (as_float, as_floats, build_runner_trace, plain_metadata_of, read_json, reject_options,
                            summary_trace)
from .summary_stats import summary_stats
from .source import Source, check_benchmarks


#: asv stats key -> summary_stats key (v1 dict keys; v2 columns are ``stats_<key>``).
_STATS = {"mean": "mean", "std": "stddev", "min": "min", "max": "max", "q_25": "q1", "q_75": "q3",
          "repeat": "n", "number": "iterations"}


def _summary(source: Source, st: dict, result: Any, where: str, result_where: str) -> dict | None:
    """summary_stats of one parameter combination: asv's result is the median of the samples,
    ``ci_99`` (v1) / ``ci_99_a``, ``ci_99_b`` (v2) a 99 % interval for it."""
    fields = {k: (st.get(f), f"{where}.{f}") for f, k in _STATS.items()}
    fields["median"] = (result, result_where)
    ci = st.get("ci_99")
    if isinstance(ci, list) and len(ci) == 2:
        fields["ci_low"], fields["ci_high"] = (ci[0], f"{where}.ci_99[0]"), (ci[1], f"{where}.ci_99[1]")
    elif "ci_99_a" in st or "ci_99_b" in st:
        fields["ci_low"], fields["ci_high"] = (st.get("ci_99_a"), f"{where}.ci_99_a"), (st.get("ci_99_b"), f"{where}.ci_99_b")
    return summary_stats(source, fields, statistic="median", origin="asv result and stats", ci_level=0.99)


def load_asv(source: Source, **options: Any) -> list[Trace]:
    reject_options(source, "asv", options)
    doc = read_json(source, "asv")
    if not isinstance(doc, dict):
        raise InputError(source.name, "asv result must be an object")
    if "results" not in doc:
        if "machine" in doc:
            raise InputError(source.name, "asv machine.json describes the machine only and holds no results "
                                          "(load results/<machine>/<commit>-<env>.json)")
        raise InputError(source.name, "missing field", field="results")
    results = doc["results"]
    if not isinstance(results, dict):
        raise InputError(source.name, "expected an object", field="results")
    version = doc.get("version", 1)
    columns = doc.get("result_columns")
    const = {k: doc[k] for k in ("commit_hash", "env_name", "python", "date", "started_at", "ended_at")
             if isinstance(doc.get(k), (str, int, float))}
    for k, v in (doc.get("params") or {}).items():
        if isinstance(v, (str, int, float)):
            const[f"params.{k}"] = v
    traces: list[Trace] = []
    plain_const = plain_metadata_of(const)  # (once: every summary-only benchmark of the file shares it)
    for name, entry in results.items():
        if entry is None:
            continue
        try:
            traces.extend(_benchmark(source, name, entry, columns, version, const, plain_const))
            check_benchmarks(source, len(traces), at_least=True)  # (before building the rest)
        except (TypeError, ValueError, IndexError, AttributeError, KeyError) as exc:  # shapes the schema allows
            raise InputError(source.name, f"malformed result ({type(exc).__name__}: {exc})",
                             field=f"results.{name}") from None
    if not traces:
        raise InputError(source.name, "no benchmark results in file (all failed or skipped)")
    return traces


def _benchmark(source: Source, name: str, entry: Any, columns, version, const, plain_const) -> list[Trace]:
    """Traces of one benchmark entry (one per parameter combination)."""
    where = f"results.{name}"
    if columns is not None:  # v2
        if not isinstance(entry, list):
            raise InputError(source.name, "expected a list (v2 result row)", field=where)
        row = dict(zip(columns, entry))
        result, params, samples = row.get("result"), row.get("params") or [], row.get("samples")
        if result is not None and not isinstance(result, list):
            result = [result]
        n = len(result or [])
        stats = [{k[len("stats_"):]: (row[k][i] if isinstance(row.get(k), list) and i < len(row[k]) else None)
                  for k in row if k.startswith("stats_")} for i in range(n)]
        stats_where = [f"{where}[stats_*][{i}]" for i in range(n)]
    elif isinstance(entry, dict):  # v1
        result, params = entry.get("result"), entry.get("params") or []
        samples, stats = entry.get("samples"), entry.get("stats") or []
        stats_where = [f"{where}.stats[{i}]" for i in range(len(stats) if isinstance(stats, list) else 0)]
    else:
        result, params, samples, stats, stats_where = [entry], [], None, [], []
    if result is None:
        return []
    if not isinstance(result, list):
        result = [result]
    if not isinstance(params, list) or not all(isinstance(p, list) for p in params):
        raise InputError(source.name, "expected a list of parameter lists", field=where + ".params")
    n_combos = 1
    for p in params:
        n_combos *= max(len(p), 1)
        if n_combos > 10 * max(len(result), 1):
            break
    combos = [", ".join(map(str, c)) for c in itertools.product(*params)] if params and n_combos == len(result) \
        else [""] if len(result) == 1 else [str(i) for i in range(len(result))]
    leaf = name.rsplit(".", 1)[-1]
    unit = "s" if leaf.startswith(("time_", "timeraw_")) else ""  # track_/mem_/peakmem_: unit not in the file
    traces: list[Trace] = []
    for i, (combo, res) in enumerate(zip(combos, result)):
        label = f"{name}({combo})" if combo else name
        smp = samples[i] if isinstance(samples, list) and i < len(samples) else None
        st = stats[i] if isinstance(stats, list) and i < len(stats) and isinstance(stats[i], dict) else {}
        if res is not None and (isinstance(res, bool) or not isinstance(res, (int, float))):
            raise InputError(source.name, f"expected a number or null, got {type(res).__name__}",
                             field=f"{where}.result[{i}]")
        summ = _summary(source, st, res, stats_where[i] if i < len(stats_where) else f"{where}.stats[{i}]",
                        f"{where}.result[{i}]")
        vals = as_floats([x for x in smp if x is not None], source, f"{where}.samples[{i}]") \
            if isinstance(smp, list) else []
        if vals:
            runs = [([x], {}) for x in vals]
            traces.append(build_runner_trace(source, "asv", label, runs, value_unit=unit, constant_metadata=const,
                                             extra={"stats": st, "asv_version": version, "summary_stats": summ}))
        elif res is not None and math.isfinite(float(res)):
            traces.append(summary_trace(source, "asv", label, as_float(res, source, f"{where}.result[{i}]", finite=True),
                                        value_unit=unit, stats=st, metadata=const, plain_metadata=plain_const,
                                        summary_stats=summ,
                                        reason="asv stored only summary statistics (no --record-samples)"))
    return traces
