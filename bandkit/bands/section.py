"""The report section for bands: ``section(trace, options) -> SectionResult`` (name "bands")."""
from __future__ import annotations

import numpy as np

from ..errors import UsageError
from .api import find_bands

#: A runner trace is analysed by per-run means when it has at least this many runs.
MIN_RUNS_FOR_MEANS = 8

#: Support gate of the ``band_levels`` finding (issue 12: a band of a handful of scattered points
#: is spikes, not a level). A band other than the most populated one counts only when the series
#: stays in it for ``MIN_DWELL`` consecutive samples at least once, or it holds ``MIN_SHARE`` of the
#: analysed samples (how far apart levels must be is the detector's business: valleys of the
#: fitted density). Measured by benchmarks/calibration.py (benchmarks/RESULTS_calibration.md).
MIN_DWELL = 3
MIN_SHARE = 0.05
#: Quantisation gate: on values that sit on a clock-tick grid, a band less than this many ticks from
#: a more populated one is the grid itself (whole milliseconds read as 2 / 3 / 4 ms), not a level.
MIN_TICKS_APART = 1.5


def supported_bands(res) -> list[int]:
    """Indices of the bands that pass the support gate, most populated first."""
    from ..robust import detect_tick

    bands = sorted(res.bands, key=lambda b: -b.count)
    v = np.asarray(res.values, dtype=np.float64)
    # a grid needs three values on it at least (two values are two levels as much as one tick)
    tick = detect_tick(v) if len(bands) > 1 and np.unique(v[np.isfinite(v)]).size >= 3 else None

    def on_grid(i: int) -> bool:  # next to a more populated band on the tick grid
        return tick is not None and any(abs(bands[i].level - o.level) < MIN_TICKS_APART * tick
                                        for o in bands[:i])

    return [b.index for i, b in enumerate(bands)
            if i == 0 or (((b.dwell_max_samples or 0) >= MIN_DWELL or b.share >= MIN_SHARE) and not on_grid(i))]


def section(trace, options):
    """Bands of one trace: JSON fields ``bands``, ``band_transitions``, ``intermediate``,
    ``degraded_episodes`` (capped, with ``degraded_episodes_total``) and ``band_analysis``
    (what was analysed; ``support_gate``); a ``band_levels`` finding when two bands or more pass
    the support gate (:func:`supported_bands`; every band carries ``supported``).
    Options: ``options.for_section("bands")`` keyword arguments of :func:`find_bands`."""
    from ..section import SectionResult, Series, skipped, skipped_by

    params = dict(options.for_section("bands")) if options is not None else {}
    per_run = params.pop("per_run", None)
    if per_run is None:
        per_run = (trace.kind == "runner" and "run" in trace.data.columns
                   and trace.samples["run"].nunique() >= MIN_RUNS_FOR_MEANS)
    v = trace.values
    if not np.isfinite(v).any():
        return skipped("bands", "no_data", n=int(v.size))
    try:
        res = find_bands(trace, per_run=bool(per_run), **params)
    except UsageError as exc:
        return skipped_by("bands", exc, params=options.for_section("bands") if options is not None else None)
    d = res.to_dict()
    ok = supported_bands(res)
    for b in d["bands"]:
        b["supported"] = b["index"] in ok
    fields = {
        "bands": d["bands"],
        "band_transitions": d["band_transitions"],
        "intermediate": d["intermediate"],
        "degraded_episodes": d["degraded_episodes"],
        "degraded_episodes_total": d["degraded_episodes_total"],
        "band_analysis": {"values": "run_means" if per_run else "samples",
                          "n_analysed": d["n_analysed"], "outliers": d["outliers"]["count"],
                          "excluded": d["excluded"], "degraded_time_s": d["degraded_time_s"],
                          "higher_is_better": d["higher_is_better"], "method": d["method"],
                          "support_gate": {"min_dwell": MIN_DWELL, "min_share": MIN_SHARE,
                                           "min_ticks_apart": MIN_TICKS_APART,
                                           "supported": len(ok)}},
    }
    findings = []
    if len(ok) >= 2:
        kept = [b for b in res.bands if b.index in ok]
        kept_d = [b for b in d["bands"] if b["index"] in ok]
        best = res.bands[res.best_band]
        if best.index not in ok:
            best = max(kept, key=lambda b: b.level if res.higher_is_better else -b.level)
        worse_share = sum(b.share for b in kept if b.index != best.index)
        findings.append({
            "kind": "band_levels",
            "severity": "warning" if worse_share >= 0.05 else "info",
            "n_bands": len(kept),
            "levels": [b["level"] for b in kept_d],
            "shares": [b["share"] for b in kept_d],
            "best_level": best.level,
            "degraded_share": worse_share,
            "degraded_episodes": d["degraded_episodes_total"],
            "values": "run_means" if per_run else "samples",
            "value_unit": trace.meta.value_unit,
            "unsupported_bands": res.n_bands - len(kept),
        })
    series = Series(res.values, res.times, "run_means" if per_run else "samples")
    return SectionResult(name="bands", fields=fields, result=res, findings=findings, series=series)
