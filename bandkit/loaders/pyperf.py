"""pyperf JSON (format 1.0, and the older perf format 4/5 with ``samples`` / ``common_metadata``).

One Trace per benchmark. Metadata hoisted by pyperf to benchmark and suite level is merged back
into every run (suite -> benchmark -> run, innermost wins). A run without values is a calibration
run: it gets no run number (``run`` counts runs with values, 1-based, in file order) and is
counted in ``meta.extra["calibration_runs"]``; all warm-up values are in ``meta.extra["warmups"]``
as ``[process, run, loops, value]`` (``process`` = 1-based position of the worker run in the
file, ``run`` = None for calibration runs).
"""
from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..trace import Trace
from .runner_common import as_float, as_floats, build_runner_trace, read_json, reject_options, require
from .source import Source

_UNITS = {"second": "s", "byte": "B", "integer": ""}


def load_pyperf(source: Source, **options: Any) -> list[Trace]:
    """Load a pyperf / perf JSON result file (``.json`` or ``.json.gz``)."""
    reject_options(source, "pyperf", options)
    doc = read_json(source)
    if not isinstance(doc, dict):
        raise InputError(source.name, "pyperf JSON must be an object")
    version = doc.get("version")
    if version is None:
        raise InputError(source.name, "missing field (not a pyperf file?)", field="version")
    old = not (isinstance(version, str) and version.startswith("1."))
    if old and not (isinstance(version, int) and 3 <= version <= 6):
        raise InputError(source.name, f"unsupported pyperf format version {version!r}", field="version")
    suite_md = doc.get("metadata") or {}
    if not isinstance(suite_md, dict):
        raise InputError(source.name, "expected an object", field="metadata")
    if "benchmarks" in doc:
        benches = require(doc, "benchmarks", list, source)
    elif "benchmark" in doc:
        benches = [require(doc, "benchmark", dict, source)]
    else:
        raise InputError(source.name, "missing field", field="benchmarks")
    traces = []
    for bi, bench in enumerate(benches):
        where = f"benchmarks[{bi}]."
        if not isinstance(bench, dict):
            raise InputError(source.name, "expected an object", field=f"benchmarks[{bi}]")
        bmd = bench.get("common_metadata" if old and "common_metadata" in bench else "metadata") or {}
        if not isinstance(bmd, dict):
            raise InputError(source.name, "expected an object", field=where + "metadata")
        const = {**suite_md, **bmd}
        name = str(const.get("name") or f"benchmark{bi + 1}")
        runs_in = require(bench, "runs", list, source, where)
        runs: list[tuple[list[float], dict]] = []
        warmups: list[list[Any]] = []
        calibration = 0
        for ri, run in enumerate(runs_in):
            rw = f"{where}runs[{ri}]."
            if not isinstance(run, dict):
                raise InputError(source.name, "expected an object", field=rw.rstrip("."))
            raw_vals = run.get("values", run.get("samples")) or []
            if not isinstance(raw_vals, list):
                raise InputError(source.name, "expected a list", field=rw + "values")
            vals = as_floats(raw_vals, source, f"{rw}values")
            md = run.get("metadata") or {}
            if not isinstance(md, dict):
                raise InputError(source.name, "expected an object", field=rw + "metadata")
            run_no = len(runs) + 1 if vals else None
            for wi, w in enumerate(run.get("warmups") or []):
                if not (isinstance(w, list) and len(w) == 2):
                    raise InputError(source.name, "expected [loops, value]", field=f"{rw}warmups[{wi}]")
                warmups.append([ri + 1, run_no, as_float(w[0], source, f"{rw}warmups[{wi}][0]"),
                                as_float(w[1], source, f"{rw}warmups[{wi}][1]")])
            if vals:
                runs.append((vals, md))
            else:
                calibration += 1
        unit = _UNITS.get(str(const.get("unit", "second")), str(const.get("unit", "second")))
        extra = {"warmups": warmups, "calibration_runs": calibration, "pyperf_version": version,
                 "run_numbering": "runs with values, 1-based, file order (calibration runs excluded)"}
        if not runs:
            extra["no_runs_reason"] = "every run is a calibration or warm-up run (no values)"
        traces.append(build_runner_trace(source, "pyperf", name, runs, value_unit=unit,
                                         constant_metadata=const, extra=extra))
    return traces
