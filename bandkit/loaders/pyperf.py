"""pyperf JSON (format 1.0, and the older perf format 4/5 with ``samples`` / ``common_metadata``).

One Trace per benchmark. Metadata hoisted by pyperf to benchmark and suite level is merged back
into every run (suite -> benchmark -> run, innermost wins). Runs are numbered as ``pyperf dump``
numbers them: 1-based position in the file, calibration runs counted (so the first measured run is
usually run 2). A run without values is a calibration run: it has no rows and is counted in
``meta.extra["calibration_runs"]``; all warm-up values are in ``meta.extra["warmups"]`` as
``[process, run, loops, value]`` (``process`` = the run's position in the file, ``run`` = its run
number, None for calibration runs).
"""
from __future__ import annotations

import math
from typing import Any

from ..errors import InputError
from ..trace import Trace
from .runner_common import (as_float, as_floats, build_runner_trace, flat_floats, plausible, read_json, reject_options,
                            require)
from .source import Source

_UNITS = {"second": "s", "byte": "B", "integer": ""}
_PLAIN = frozenset((int, float))  # (JSON numbers; bool excluded)


def load_pyperf(source: Source, **options: Any) -> list[Trace]:
    """Load a pyperf / perf JSON result file (``.json`` or ``.json.gz``)."""
    reject_options(source, "pyperf", options)
    doc = read_json(source, "pyperf")
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
        runs: list[tuple[Any, dict]] = []
        warmups: list[list[Any]] = []
        calibration = 0
        numbers: list[int] = []
        # every value of the benchmark converted in one go when all are plain numbers (else run by run,
        # which names the bad item)
        flat = flat_floats([run.get("values", run.get("samples")) or [] if isinstance(run, dict) else None
                            for run in runs_in])
        start = 0
        for ri, run in enumerate(runs_in):
            rw = f"{where}runs[{ri}]."
            if not isinstance(run, dict):
                raise InputError(source.name, "expected an object", field=rw.rstrip("."))
            raw_vals = run.get("values", run.get("samples")) or []
            if not isinstance(raw_vals, list):
                raise InputError(source.name, "expected a list", field=rw + "values")
            if flat is not None:
                vals = flat[start:start + len(raw_vals)]
                start += len(raw_vals)
            else:
                vals = as_floats(raw_vals, source, f"{rw}values")
            md = run.get("metadata") or {}
            if not isinstance(md, dict):
                raise InputError(source.name, "expected an object", field=rw + "metadata")
            run_no = ri + 1 if len(vals) else None  # pyperf dump's numbering: calibration runs counted
            inner = md.get("inner_loops", const.get("inner_loops", 1))
            per_loop = None if old else 1.0  # (format 1.0: warm-ups per loop iteration already)
            for wi, w in enumerate(run.get("warmups") or []):
                if per_loop is not None and type(w) is list and len(w) == 2 and type(w[0]) in _PLAIN \
                        and type(w[1]) in _PLAIN:
                    try:  # (what _warmup makes of them, when it accepts them; else its error)
                        loops, value = float(w[0]), float(w[1])
                    except OverflowError:
                        loops = value = math.nan
                    if loops >= 1 and plausible(loops) and plausible(value):
                        warmups.append([ri + 1, run_no, loops, value])
                        continue
                warmups.append([ri + 1, run_no, *_warmup(source, w, f"{rw}warmups[{wi}]", version, inner)])
            if len(vals):
                runs.append((vals, md))
                numbers.append(ri + 1)
            else:
                calibration += 1
        if not isinstance(const.get("name", ""), str):
            raise InputError(source.name, f"expected a string, got {type(const['name']).__name__}",
                             field=where + "metadata.name")
        unit = _UNITS.get(str(const.get("unit", "second")), str(const.get("unit", "second")))
        extra = {"warmups": warmups, "calibration_runs": calibration, "pyperf_version": version,
                 "run_numbering": "as pyperf dump: position in the file, 1-based, calibration runs counted"}
        if not runs:
            extra["no_runs_reason"] = "every run is a calibration or warm-up run (no values)"
        traces.append(build_runner_trace(source, "pyperf", name, runs, value_unit=unit,
                                         constant_metadata=const, extra=extra, run_numbers=numbers))
    return traces


def _warmup(source: Source, w: Any, field: str, version: Any, inner: Any) -> list[Any]:
    """``[loops, value per loop iteration]`` of one warm-up.

    Format 1.0 stores warm-ups per loop iteration like the values; formats 4-6 (perf < 1.0) store
    the raw time of all ``loops x inner_loops`` iterations (pyperf divides them on load, and so do
    we); format 3 stores bare values (loops unknown).
    """
    if not isinstance(w, list):  # format 3
        return [None, as_float(w, source, field, finite=True)]
    if len(w) != 2:
        raise InputError(source.name, "expected [loops, value]", field=field)
    loops = as_float(w[0], source, field + "[0]", finite=True)
    value = as_float(w[1], source, field + "[1]", finite=True)
    if not loops >= 1:
        raise InputError(source.name, f"loops must be >= 1, got {w[0]!r}", field=field + "[0]")
    if isinstance(version, int):  # perf format < 1.0: raw value of loops x inner_loops iterations
        inner = float(inner) if isinstance(inner, (int, float)) and not isinstance(inner, bool) and inner >= 1 else 1.0
        value = value / (loops * inner)
    return [loops, value]
