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
    """Findings (data) of a history: open regressions first."""
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
    if res.builds < MIN_BUILDS_ANALYSED:
        out.append({"kind": "too_few_builds", "severity": "info", "builds": res.builds, "runs": res.runs,
                    "needed": MIN_BUILDS_ANALYSED})
    elif not (res.regressions or res.improvements or res.drifts):
        era = res.eras[0] if res.eras else None
        out.append({"kind": "stable_history", "severity": "info", "builds": res.builds, "runs": res.runs,
                    "level": era.level if era else None, "cv": era.cv if era else None, "value_unit": unit})
    from .result import _plain

    return [_plain(f) for f in out]


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
