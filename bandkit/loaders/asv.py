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
from .runner_common import build_runner_trace, read_json, reject_options, summary_trace
from .source import Source


def _num(v: Any) -> float:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    return math.nan


def load_asv(source: Source, **options: Any) -> list[Trace]:
    reject_options(source, "asv", options)
    doc = read_json(source)
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
    for name, entry in results.items():
        if entry is None:
            continue
        try:
            traces.extend(_benchmark(source, name, entry, columns, version, const))
        except (TypeError, ValueError, IndexError, AttributeError) as exc:
            raise InputError(source.name, f"malformed result ({exc})", field=f"results.{name}") from None
    if not traces:
        raise InputError(source.name, "no benchmark results in file (all failed or skipped)")
    return traces


def _benchmark(source: Source, name: str, entry: Any, columns, version, const) -> list[Trace]:
    """Traces of one benchmark entry (one per parameter combination)."""
    if columns is not None:  # v2
        if not isinstance(entry, list):
            raise InputError(source.name, "expected a list (v2 result row)", field=f"results.{name}")
        row = dict(zip(columns, entry))
        result, params, samples = row.get("result"), row.get("params") or [], row.get("samples")
        if result is not None and not isinstance(result, list):
            result = [result]
        stats = [{k[len("stats_"):]: (row[k][i] if isinstance(row.get(k), list) and i < len(row[k]) else None)
                  for k in row if k.startswith("stats_")} for i in range(len(result or []))]
    elif isinstance(entry, dict):  # v1
        result, params = entry.get("result"), entry.get("params") or []
        samples, stats = entry.get("samples"), entry.get("stats") or []
    else:
        result, params, samples, stats = [entry], [], None, []
    if result is None:
        return []
    if not isinstance(result, list):
        result = [result]
    combos = [", ".join(map(str, c)) for c in itertools.product(*params)] if params else [""]
    if len(combos) != len(result):
        combos = [str(i) for i in range(len(result))]
    leaf = name.rsplit(".", 1)[-1]
    unit = "s" if leaf.startswith(("time_", "timeraw_")) else ""  # track_/mem_/peakmem_: unit not in the file
    traces: list[Trace] = []
    for i, (combo, res) in enumerate(zip(combos, result)):
        label = f"{name}({combo})" if combo else name
        smp = samples[i] if isinstance(samples, list) and i < len(samples) else None
        st = stats[i] if isinstance(stats, list) and i < len(stats) and isinstance(stats[i], dict) else {}
        if isinstance(smp, list) and smp:
            runs = [([_num(x)], {}) for x in smp]
            traces.append(build_runner_trace(source, "asv", label, runs, value_unit=unit, constant_metadata=const,
                                             extra={"stats": st, "asv_version": version}))
        elif res is not None and not (isinstance(res, float) and math.isnan(res)):
            traces.append(summary_trace(source, "asv", label, _num(res), value_unit=unit, stats=st, metadata=const,
                                        reason="asv stored only summary statistics (no --record-samples)"))
    return traces
