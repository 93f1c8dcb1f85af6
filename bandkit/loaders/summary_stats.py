"""Summary statistics a result file states about a benchmark, in one documented shape.

Many runners save only a summary by default (pytest-benchmark without ``--benchmark-save-data``,
asv without ``--record-samples``, PTS entries without per-trial values, Google Benchmark
aggregates, hyperfine without ``times``). The loaders carry those numbers as
``trace.meta.extra["summary_stats"]`` (also for traces that do have per-run values, when the file
states a summary too); the report writes them as the trace's ``summary_stats`` and
:func:`bandkit.compare.compare` compares summary-only benchmarks from them.

Keys (all optional except ``statistic`` and ``source``; values in the trace's ``value_unit``):
``statistic`` (``"mean"`` or ``"median"``: the file's headline result), ``mean``, ``stddev``
(sample standard deviation of the measurements), ``median``, ``min``, ``max``, ``q1``, ``q3``,
``n`` (number of measurements summarised: rounds, repeats, repetitions), ``iterations`` (loop
iterations inside one measurement), ``ci_low`` / ``ci_high`` / ``ci_level`` (an interval the file
states for its headline statistic, e.g. asv's 99 % interval), ``source`` (which fields).
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from ..errors import InputError
from .source import Source

#: Documented keys, in output order.
KEYS = ("statistic", "mean", "stddev", "median", "min", "max", "q1", "q3", "n", "iterations",
        "ci_low", "ci_high", "ci_level", "source")
_COUNTS = ("n", "iterations")


def summary_stats(source: Source, fields: Mapping[str, tuple[Any, str]], *, statistic: str, origin: str,
                  ci_level: float | None = None) -> dict[str, Any] | None:
    """Build the ``summary_stats`` dict from ``{key: (raw JSON value, field path)}``.

    Missing, null and NaN values are left out; a value that is not a number, beyond 1e30, a negative
    spread or count, or an interval with ``ci_low > ci_high`` is an InputError naming its field. Returns None
    when no statistic is given at all.
    """
    out: dict[str, Any] = {"statistic": statistic}
    for key, (raw, where) in fields.items():
        if key not in KEYS:
            raise KeyError(key)
        if raw is None:
            continue
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            raise InputError(source.name, f"expected a number, got {type(raw).__name__}", field=where)
        v = float(raw)
        if not math.isfinite(v):
            continue  # a statistic the runner could not compute (NaN: failed, or one round)
        if abs(v) > 1e30:
            raise InputError(source.name, f"{key} {raw!r} is not a number of plausible size", field=where)
        if key in _COUNTS:
            if v < 1 or v != int(v) or v > 1e15:
                raise InputError(source.name, f"{key} must be a positive integer, got {raw!r}", field=where)
            out[key] = int(v)
            continue
        if key == "stddev" and v < 0:
            raise InputError(source.name, f"stddev must be >= 0, got {raw!r}", field=where)
        out[key] = v
    if "ci_low" in out and "ci_high" in out:
        if out["ci_low"] > out["ci_high"]:
            raise InputError(source.name, f"interval [{out['ci_low']}, {out['ci_high']}] has low > high",
                             field=fields["ci_low"][1])
        out["ci_level"] = ci_level
    else:
        out.pop("ci_low", None)
        out.pop("ci_high", None)
    if len(out) == 1:
        return None
    if statistic not in out:  # the headline must be one of the given values
        out["statistic"] = "mean" if "mean" in out else ("median" if "median" in out else None)
    out["source"] = origin
    return {k: out[k] for k in KEYS if k in out}


def headline(stats: Mapping[str, Any] | None) -> float:
    """The file's headline value (its ``statistic``), NaN without one."""
    if not stats or not stats.get("statistic"):
        return math.nan
    return float(stats.get(stats["statistic"], math.nan))
