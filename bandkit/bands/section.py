"""The report section for bands: ``section(trace, options) -> SectionResult`` (name "bands")."""
from __future__ import annotations

from ..errors import UsageError
from .api import find_bands

#: A runner trace is analysed by per-run means when it has at least this many runs.
MIN_RUNS_FOR_MEANS = 8


def section(trace, options):
    """Bands of one trace: JSON fields ``bands``, ``band_transitions``, ``intermediate``,
    ``degraded_episodes`` (capped, with ``degraded_episodes_total``) and ``band_analysis``
    (what was analysed); a ``band_levels`` finding when there are two bands or more.
    Options: ``options.for_section("bands")`` keyword arguments of :func:`find_bands`."""
    from ..section import SectionResult, Series

    params = dict(options.for_section("bands")) if options is not None else {}
    per_run = params.pop("per_run", None)
    if per_run is None:
        per_run = (trace.kind == "runner" and "run" in trace.data.columns
                   and trace.samples["run"].nunique() >= MIN_RUNS_FOR_MEANS)
    try:
        res = find_bands(trace, per_run=bool(per_run), **params)
    except UsageError:
        return None
    d = res.to_dict()
    fields = {
        "bands": d["bands"],
        "band_transitions": d["band_transitions"],
        "intermediate": d["intermediate"],
        "degraded_episodes": d["degraded_episodes"],
        "degraded_episodes_total": d["degraded_episodes_total"],
        "band_analysis": {"values": "run_means" if per_run else "samples",
                          "n_analysed": d["n_analysed"], "outliers": d["outliers"]["count"],
                          "excluded": d["excluded"], "degraded_time_s": d["degraded_time_s"],
                          "higher_is_better": d["higher_is_better"], "method": d["method"]},
    }
    findings = []
    if res.n_bands >= 2:
        best = res.bands[res.best_band]
        worse = [b for b in res.bands if b.index != best.index]
        worse_share = sum(b.share for b in worse)
        findings.append({
            "kind": "band_levels",
            "severity": "warning" if worse_share >= 0.05 else "info",
            "n_bands": res.n_bands,
            "levels": [b["level"] for b in d["bands"]],
            "shares": [b["share"] for b in d["bands"]],
            "best_level": best.level,
            "degraded_share": worse_share,
            "degraded_episodes": d["degraded_episodes_total"],
            "values": "run_means" if per_run else "samples",
            "value_unit": trace.meta.value_unit,
        })
    series = Series(res.values, res.times, "run_means" if per_run else "samples")
    return SectionResult(name="bands", fields=fields, result=res, findings=findings, series=series)
