"""The report section of a history trace: ``section(trace, options) -> SectionResult`` ("history").

JSON field ``history`` (see :meth:`bandkit.history.HistoryResult.to_dict` and the README); findings:
``regression`` (warning: open regressions, i.e. in force at the last build), ``episode`` (info:
regressions fixed later, improvements lost later), ``improvement`` (info), ``drift`` (warning when
in the slower direction), ``stable_history`` (info: no change reported), ``too_few_builds`` (info).

Options (``options.for_section("history")``): :data:`bandkit.history.DEFAULTS` keys, plus ``since``
(a build id: report only changes at or after it; eras and latest still cover the whole history).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .analysis import MIN_BUILDS_ANALYSED, analyse_trace
from .result import HistoryResult


def since_index(res: HistoryResult, since: Any) -> int:
    """Build position from which changes are reported: the first build >= ``since`` for numeric
    ids, the build equal to ``since`` otherwise (0 when it is not in this history)."""
    if since is None or res.build_ids is None or not len(res.build_ids):
        return 0
    ids = res.build_ids
    if ids.dtype.kind in "iuf":
        try:
            return int(np.searchsorted(ids, float(since), side="left"))
        except (TypeError, ValueError):
            return 0
    hit = np.flatnonzero(ids.astype(str) == str(since))
    return int(hit[0]) if hit.size else 0


def history_fields(res: HistoryResult, since: Any = None) -> dict[str, Any]:
    """The JSON ``history`` entry, with changes before ``since`` left out."""
    d = res.to_dict()
    if since is not None:
        k = since_index(res, since)
        d["regressions"] = [c for c, o in zip(d["regressions"], res.regressions) if o.index >= k]
        d["improvements"] = [c for c, o in zip(d["improvements"], res.improvements) if o.index >= k]
        d["episodes"] = [e for e, o in zip(d["episodes"], res.episodes) if o.end_index >= k]
        d["drifts"] = [x for x, o in zip(d["drifts"], res.drifts) if o.end_index >= k]
        d["since"] = since
    return d


def history_findings(res: HistoryResult, since: Any = None, unit: str = "") -> list[dict[str, Any]]:
    """Findings (data) of a history: open regressions first, then episodes, drifts and lasting
    improvements by size (|log ratio|, largest first)."""
    k = since_index(res, since) if since is not None else 0
    out: list[dict[str, Any]] = []
    open_regs = [c for c in res.regressions if c.open and c.index >= k]
    hib = res.higher_is_better
    if open_regs:
        big = max(open_regs, key=lambda c: abs(np.log(c.ratio)) if c.ratio and c.ratio > 0 else 0.0)
        out.append({"kind": "regression", "severity": "warning", "count": len(open_regs), "build": big.build,
                    "before": big.before, "after": big.after, "ratio": big.ratio, "ratio_ci": list(big.ratio_ci),
                    "build_ci": list(big.build_ci), "p_value": big.p_value, "higher_is_better": hib,
                    "value_unit": unit})
    head = len(out)  # after the open regressions: episodes, drifts and lasting improvements, largest first
    eps = [e for e in res.episodes if e.end_index >= k]
    if eps:
        big = max(eps, key=lambda e: abs(np.log(e.ratio)) if e.ratio and e.ratio > 0 else 0.0)
        out.append({"kind": "episode", "severity": "info", "count": len(eps),
                    "regressions_fixed": sum(e.kind == "regression" for e in eps), "start_build": big.start_build,
                    "end_build": big.end_build, "ratio": big.ratio, "episode_kind": big.kind, "builds": big.builds,
                    "higher_is_better": hib})
    drifts = [d for d in res.drifts if d.end_index >= k]
    for d in drifts:
        out.append({"kind": "drift", "severity": "warning" if d.kind == "regression" else "info",
                    "start_build": d.start_build, "end_build": d.end_build, "ratio": d.ratio,
                    "drift_kind": d.kind, "higher_is_better": hib})
    imps = [c for c in res.improvements if c.index >= k and c.reverts is None and c.fixed_at is None]
    if imps:
        big = max(imps, key=lambda c: abs(np.log(c.ratio)) if c.ratio and c.ratio > 0 else 0.0)
        out.append({"kind": "improvement", "severity": "info", "count": len(imps), "build": big.build,
                    "before": big.before, "after": big.after, "ratio": big.ratio, "higher_is_better": hib,
                    "value_unit": unit})
    # a lasting x0.37 improvement comes before a x1.03 episode of 62 builds (SAP 03788)
    out[head:] = sorted(out[head:], key=lambda f: -abs(np.log(f["ratio"])) if f["ratio"] and f["ratio"] > 0 else 0.0)
    if res.builds < MIN_BUILDS_ANALYSED:
        out.append({"kind": "too_few_builds", "severity": "info", "builds": res.builds, "runs": res.runs,
                    "needed": MIN_BUILDS_ANALYSED})
    elif not (res.regressions or res.improvements or res.drifts):
        era = res.eras[0] if res.eras else None
        small = max(res.small_changes, key=lambda c: abs(np.log(c["ratio"])) if c["ratio"] > 0 else 0.0,
                    default=None)
        out.append({"kind": "stable_history", "severity": "info", "builds": res.builds, "runs": res.runs,
                    "level": era.level if era else None, "cv": era.cv if era else None, "value_unit": unit,
                    "min_relative": res.params.get("min_relative"), "higher_is_better": hib,
                    "small_changes": len(res.small_changes), "largest_small_change": small,
                    "level_range": list(res.level_range) if res.level_range else None,
                    "level_moves": _level_moves(res, era)})
    from .result import _plain

    return [_plain(f) for f in out]


#: the running median's range must exceed the reporting threshold and this many times what the
#: build-to-build noise alone gives it (± 1.645 x 1.2533 x cv / sqrt(window): the 5-95 % range of a
#: running median of independent builds); AR(1) noise with rho 0.5 gives ~1.7x, 00414 and 08909 of
#: the SAP histories (blocks wandering ±4.5-6 %) 3.1-3.5x
LEVEL_MOVES_FACTOR = 2.5


def _level_moves(res: HistoryResult, era) -> bool:
    """Does the level move (between its 5th and 95th percentile of a running median) by more than
    ``min_relative`` and more than noise alone would move it?"""
    from .analysis import level_window

    if not res.level_range or era is None or not era.level or not era.cv:
        return False
    lo, hi = res.level_range
    half = max(hi / era.level - 1.0, 1.0 - lo / era.level) if res.params.get("scale") == "log" else \
        (hi - lo) / 2.0 / abs(era.level)
    expected = 1.645 * 1.2533 * era.cv / np.sqrt(level_window(res.builds))
    return bool(half > float(res.params.get("min_relative") or 0.0) and half > LEVEL_MOVES_FACTOR * expected)


def section(trace, options=None):
    """History of one benchmark across builds (``kind == "history"`` traces only)."""
    from ..section import SectionResult

    if trace.kind != "history":
        return None
    params = dict(options.for_section("history")) if options is not None else {}
    since = params.pop("since", None)
    res = analyse_trace(trace, **params)
    unit = trace.meta.value_unit
    return SectionResult(name="history", fields={"history": history_fields(res, since)}, result=res,
                         findings=history_findings(res, since, unit))
