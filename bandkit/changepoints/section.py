"""The report section for step changes: ``section(trace, options) -> SectionResult`` ("changepoints").

FTQ traces are aggregated into blocks (mean work count per quantum over ``block_s`` = 10 ms, more
quanta per block if that would give more than ``max_points`` blocks), so millions of quanta cost
a fraction of a second; "series" traces are analysed value by value (blocks only above
``max_points``). Runner traces are handled by the runner section (it calls
:func:`bandkit.detect_changepoints` per benchmark), so this section skips them.

Reported changes must be significant (``p_value < alpha``) and large enough
(``|ratio - 1| >= min_relative``); the others are counted as suppressed. ``before``/``after`` are
the levels of the segments adjacent in the full segmentation.

Options (``options.for_section("changepoints")``): ``block_s`` (0.01), ``max_points`` (100000),
``alpha`` (0.001), ``min_relative`` (0.02), and keyword arguments of
:func:`bandkit.detect_changepoints` (``cost``, ``penalty``, ``min_size``, ``confidence``,
``n_boot``, ``seed``).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import UsageError
from .api import detect_changepoints

DEFAULTS = {"block_s": 0.01, "max_points": 100_000, "alpha": 0.001, "min_relative": 0.02}
_DETECT_KEYS = ("cost", "penalty", "min_size", "confidence", "n_boot", "seed", "max_window")
MAX_SEGMENTS_LISTED = 50


def aggregate(values: np.ndarray, times: np.ndarray | None, block: int):
    """Block means of ``values`` (the last partial block is dropped if it has < block/2 values)
    and the time of each block's first value."""
    v = np.asarray(values, dtype=np.float64)
    n = v.size
    m = n // block
    rest = n - m * block
    means = v[: m * block].reshape(m, block).mean(axis=1) if m else np.zeros(0)
    if rest and (rest * 2 >= block or m == 0):
        means = np.r_[means, v[m * block:].mean()]
    t = None
    if times is not None:
        t = np.asarray(times, dtype=np.float64)[::block][: means.size]
    return means, t


def block_size(trace, n: int, block_s: float, max_points: int) -> int:
    """Quanta per block for an FTQ trace (>= 1)."""
    hz = trace.meta.sampling_hz
    b = int(round(block_s * hz)) if hz else 1
    return max(1, b, math.ceil(n / max_points))


def analyse_trace(trace, **params):
    """Run detection on a trace as the report does; returns (result, block, series, times).

    ``times`` are seconds (None when the trace has no times, or counts ticks at an unknown rate;
    for tick-based traces they start at 0)."""
    p = {**DEFAULTS, **params}
    v = trace.values
    t = trace.times
    if t is not None and not np.all(np.isfinite(t)):
        t = None
    if t is not None and trace.meta.time_unit != "s":
        # older FTQ files count ticks: seconds only when the tick rate is known
        tpn = trace.meta.ticks_per_ns
        t = (t - t[0]) / (tpn * 1e9) if tpn else None
    if trace.kind == "ftq":
        block = block_size(trace, v.size, p["block_s"], p["max_points"])
    else:
        block = max(1, math.ceil(v.size / p["max_points"]))
    x, xt = aggregate(v, t, block) if block > 1 else (v, t)
    kwargs = {k: p[k] for k in _DETECT_KEYS if k in p}
    res = detect_changepoints(x, times=xt, **kwargs)
    return res, block, x, xt


def section(trace, options):
    """Step changes of one trace: JSON fields ``changepoints`` (list of {index, time_s, before,
    after, ratio, ci_low, ci_high, ci_time_low, ci_time_high, p_value, effect}; indices in the
    trace's sample numbering, i.e. without catch-up rows) and ``changepoint_analysis`` (how:
    block, cost, penalty, counts, segments); a ``level_shift`` finding when changes are reported."""
    from ..section import SectionResult, Series

    if trace.kind == "runner":
        return None
    params = dict(options.for_section("changepoints")) if options is not None else {}
    p = {**DEFAULTS, **params}
    if trace.values.size < 8:
        return None
    try:
        res, block, x, xt = analyse_trace(trace, **p)
    except UsageError:
        return None
    kept, suppressed = [], 0
    for c in res.changepoints:
        rel = abs(c.ratio - 1.0) if c.ratio is not None else math.inf
        if c.p_value < p["alpha"] and rel >= p["min_relative"]:
            kept.append(c)
        else:
            suppressed += 1
    n_total = trace.values.size

    def q(i):  # block index -> first quantum index
        return int(min(i * block, n_total - 1))

    cps = [{
        "index": q(c.index), "time_s": c.time_s, "before": c.before, "after": c.after, "ratio": c.ratio,
        "ci_low": q(c.ci_low), "ci_high": q(c.ci_high), "ci_time_low": c.ci_time_low,
        "ci_time_high": c.ci_time_high, "ci_level": c.ci_level, "p_value": c.p_value, "effect": c.effect,
    } for c in kept]
    segs = [{"start": q(s.start), "end": int(min(s.end * block, n_total)), "level": s.level,
             "start_time": s.start_time, "end_time": s.end_time} for s in res.segments[:MAX_SEGMENTS_LISTED]]
    fields = {
        "changepoints": cps,
        "changepoint_analysis": {
            "values": "block_means" if block > 1 else "samples", "block": block,
            "block_s": (block / trace.meta.sampling_hz) if trace.meta.sampling_hz else None,
            "n_points": int(x.size), "cost": res.cost, "penalty_rule": res.penalty_rule,
            "penalty": res.penalty, "noise_scale": res.noise_scale, "rho": res.info.get("rho"),
            "min_size": res.min_size, "alpha": p["alpha"], "min_relative": p["min_relative"],
            "n_detected": len(res.changepoints), "n_reported": len(kept), "n_suppressed": suppressed,
            "segments": segs, "segments_total": len(res.segments),
        },
    }
    findings = []
    if kept:
        big = max(kept, key=lambda c: abs((c.ratio or 1.0) - 1.0))
        findings.append({
            "kind": "level_shift",
            "severity": "warning" if abs((big.ratio or 1.0) - 1.0) >= 0.05 else "info",
            "count": len(kept), "largest_before": big.before, "largest_after": big.after,
            "largest_ratio": big.ratio, "largest_time_s": big.time_s, "largest_index": q(big.index),
            "value_unit": trace.meta.value_unit,
        })
    from .result import _clean

    series = Series(x, xt, "block_means" if block > 1 else "samples", block)
    return SectionResult(name="changepoints", fields=_clean(fields), result=res, findings=_clean(findings),
                         series=series)
