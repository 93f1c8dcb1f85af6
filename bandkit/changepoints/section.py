"""The report section for step changes: ``section(trace, options) -> SectionResult`` ("changepoints").

FTQ traces are aggregated into blocks (mean work count per quantum over ``block_s`` = 10 ms, more
quanta per block if that would give more than ``max_points`` blocks), so millions of quanta cost
a fraction of a second; "series" traces are analysed value by value (blocks only above
``max_points``). Runner traces are handled by the runner section (it calls
:func:`bandkit.detect_changepoints` per benchmark), so this section skips them.

Reported changes must be significant (``q_value <= alpha``, see :mod:`.significance`); they are listed as the
steps a person sees (:func:`.steps.consolidate`): between levels held for at least 3 values (a change that
takes 1-2 transitional values is one step, ``index`` to ``end_index``; a 1-2 value excursion is none) and large
enough (``|ratio - 1| >= min_relative``, levels recomputed after each drop). ``before``/``after`` are those
held levels.

A ``level_shift`` finding needs a *sustained* shift (:func:`sustained_shifts`), not band switching: a change
counts when it enters a level not seen before in the series (``min_relative`` from every earlier level held for
at least 3 values: a 1-2 value excursion is no level) and the
series stays away from the level it left for at least ``min_hold`` of its length (10 %). When an FTQ trace
switches between performance levels (bands, reported by the bands section), its block means move with the
share of time spent in each band: those changes are significant and listed (``sustained`` false), but they
return to earlier levels and make no finding; a degraded stretch of the run (a new level, lasting seconds)
does, at its start.

Options (``options.for_section("changepoints")``): ``block_s`` (0.01), ``max_points`` (100000),
``alpha`` (0.01), ``min_relative`` (0.02), ``min_hold`` (0.1), and keyword arguments of
:func:`bandkit.detect_changepoints` (``cost``, ``penalty``, ``min_size``, ``confidence``, ``wander``).
"""
from __future__ import annotations


import numpy as np

from ..errors import UsageError
from .api import detect_changepoints
from .steps import BRIEF, consolidate
from .traceseries import BLOCK_S, MAX_POINTS, trace_series

DEFAULTS = {"block_s": BLOCK_S, "max_points": MAX_POINTS, "alpha": 0.01, "min_relative": 0.02, "min_hold": 0.1}
_DETECT_KEYS = ("cost", "penalty", "alpha", "min_size", "confidence", "wander")
MAX_SEGMENTS_LISTED = 50
#: The section analyses a trace of at least this many values (fewer: listed under ``skipped``, too_short).
MIN_VALUES = 8


def analyse_trace(trace, **params):
    """Run detection on a trace as the report does; returns (result, block, series, times)
    (:func:`.traceseries.trace_series`)."""
    p = {**DEFAULTS, **params}
    x, xt, block = trace_series(trace, p["block_s"], p["max_points"])
    kwargs = {k: p[k] for k in _DETECT_KEYS if k in p}
    res = detect_changepoints(x, times=xt, **kwargs)
    return res, block, x, xt


def sustained_shifts(levels, lengths, min_relative: float, min_hold: float) -> list[bool]:
    """For each change between consecutive segments (``levels``, ``lengths`` of the segments): is it a sustained
    shift? It must enter a new level (at least ``min_relative`` away from every earlier segment's level) and stay
    away from the level it left (``min_relative``) for at least ``min_hold`` of the series. Switching between
    recurring levels (bands) never enters a new level, and the first visit of a level the series later
    returns to after leaving it, for at least as long again, is band switching too; an episode (a level visited
    once) counts at its start, not at its return."""
    lv = np.asarray(levels, dtype=np.float64)
    ln = np.asarray(lengths, dtype=np.float64)
    k = lv.size
    total = ln.sum()

    def near(a, b):
        return abs(a - b) < min_relative * max(abs(a), abs(b), 1e-300)

    out = []
    for j in range(1, k):
        # a brief excursion (< BRIEF values, e.g. two spikes the detector cut out) is no level "seen before";
        # the first stretch is where the series started, however short (a switch that follows soon after)
        new = not any(near(lv[j], lv[i]) for i in range(j) if ln[i] >= BRIEF or i == 0)
        held = 0.0
        back = k
        for m in range(j, k):
            if near(lv[m], lv[j - 1]):
                back = m
                break
            held += ln[m]
        # after the return, the series spends at least as long again at the new level: it switches between
        # the two (bands), which a first long visit does not make a shift (a level that only wanders near it
        # for a while, as a guest's speed does, leaves the shift standing)
        recurs = sum(ln[m] for m in range(back + 1, k) if near(lv[m], lv[j])) >= held
        out.append(bool(new and held >= min_hold * total and not recurs))
    return out


def section(trace, options):
    """Step changes of one trace: JSON fields ``changepoints`` (list of {index, time_s, before, after, ratio,
    ci_low, ci_high, ci_time_low, ci_time_high, p_value, q_value, effect, sustained}; indices in the trace's
    sample numbering, i.e. without catch-up rows) and ``changepoint_analysis`` (how: block, cost and why,
    noise model, penalty, counts, segments); a ``level_shift`` finding when a sustained shift is reported."""
    from ..section import SectionResult, Series, skipped, skipped_by

    if trace.kind == "runner":  # (never registered for runner traces: their post-mortem finds steps)
        return None
    params = dict(options.for_section("changepoints")) if options is not None else {}
    p = {**DEFAULTS, **params}
    v = trace.values
    if v.size < MIN_VALUES:
        return skipped("changepoints", "too_short", n=int(v.size), needed=MIN_VALUES,
                       what="quanta" if trace.kind == "ftq" else "values")
    bad = int(np.count_nonzero(~np.isfinite(v)))
    if bad:
        return skipped("changepoints", "non_finite", n=int(v.size), n_non_finite=bad)
    try:
        res, block, x, xt = analyse_trace(trace, **p)
    except UsageError as exc:
        return skipped_by("changepoints", exc, params=params)
    steps, levels, lengths = consolidate(x, res.changepoints, robust=res.cost != "l2",
                                         min_relative=p["min_relative"], sigma=None)
    sustained = sustained_shifts(levels, lengths, p["min_relative"], p["min_hold"]) if steps else []
    n_total = trace.values.size

    def q(i):  # block index -> first quantum index
        return int(min(i * block, n_total - 1))

    cps = [{
        "index": q(c.index), "end_index": q(c.end_index), "changes": c.changes, "time_s": c.time_s,
        "before": c.before, "after": c.after, "ratio": c.ratio,
        "ci_low": q(c.ci_low), "ci_high": q(c.ci_high), "ci_time_low": c.ci_time_low,
        "ci_time_high": c.ci_time_high, "ci_level": c.ci_level, "p_value": c.p_value, "q_value": c.q_value,
        "effect": c.effect, "sustained": sus,
    } for c, sus in zip(steps, sustained)]
    segs = [{"start": q(s.start), "end": int(min(s.end * block, n_total)), "level": s.level,
             "start_time": s.start_time, "end_time": s.end_time} for s in res.segments[:MAX_SEGMENTS_LISTED]]
    fields = {
        "changepoints": cps,
        "changepoint_analysis": {
            "values": "block_means" if block > 1 else "samples", "block": block,
            "block_s": (block / trace.meta.sampling_hz) if trace.meta.sampling_hz else None,
            "n_points": int(x.size), "cost": res.cost, "cost_choice": res.info.get("cost_choice"),
            "penalty_rule": res.penalty_rule, "penalty": res.penalty, "noise_scale": res.noise_scale,
            "rho": res.info.get("rho"), "noise_model": (res.info.get("noise") or {}).get("model"),
            "min_size": res.min_size, "alpha": p["alpha"], "min_relative": p["min_relative"],
            "min_hold": p["min_hold"], "n_detected": len(res.candidates), "n_significant": len(res.changepoints),
            "n_reported": len(steps), "n_suppressed": len(res.candidates) - len(steps), "n_sustained": int(sum(sustained)),
            "segments": segs, "segments_total": len(res.segments),
        },
    }
    findings = []
    shifts = [c for c, sus in zip(steps, sustained) if sus]
    if shifts:
        big = max(shifts, key=lambda c: abs((c.ratio or 1.0) - 1.0))
        findings.append({
            "kind": "level_shift",
            "severity": "warning" if abs((big.ratio or 1.0) - 1.0) >= 0.05 else "info",
            "count": len(shifts), "largest_before": big.before, "largest_after": big.after,
            "largest_ratio": big.ratio, "largest_time_s": big.time_s, "largest_index": q(big.index),
            "largest_p_value": big.p_value, "changes_listed": len(steps),
            "value_unit": trace.meta.value_unit,
        })
    from .result import _clean

    series = Series(x, xt, "block_means" if block > 1 else "samples", block)
    return SectionResult(name="changepoints", fields=_clean(fields), result=res, findings=_clean(findings),
                         series=series)
