"""Report sections: ``runner_section`` (per runner trace) and ``runner_summary`` (across them).

JSON per benchmark (merged into the trace entry): ``runs``, ``unit``, ``verdict``, ``steps``
(``run`` = 1-based first run after the step, ``before``, ``after``, ``ratio = after / before``,
``factor``, CI, p-value, location interval), ``episodes`` (``start_run``, ``end_run``, ``level``,
``baseline``, ``ratio``, CI, p-value, ``stages``: the levels of an episode that went in stages), ``bands`` / ``run_bands`` (levels with their runs),
``outlier_runs``, ``warmup_runs``, ``slow_runs``, ``trend``,
``suspects`` (``metadata``, ``score``, ``evidence``), ``negligible_suspects`` (significant but too small
to matter: never the finding's ``top_suspect``; :mod:`~bandkit.postmortem.magnitude`) and ``postmortem`` (method details; ``gate``:
the noise model and the thresholds the verdict passed).
Top level: ``runner_summary`` (counts of verdicts, affected benchmarks, shared suspects).
Options (``AnalysisOptions.params["postmortem"]``): ``min_ratio``, ``noise_floor``, ``min_runs``,
``gates`` (a :class:`~bandkit.postmortem.classify.Gates`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..section import SectionResult
from . import postmortem, postmortems
from .classify import NOT_CLASSIFIED, ratio_scale
from .summary import summarize

_FINDING_KIND = {"step": "step", "episode": "episode_runs", "bimodal": "bimodal", "bands": "bands", "trend": "trend",
                 "warmup": "warmup", "outliers": "outlier_runs", "no_runs": "no_per_run_data",
                 "too_few_runs": "too_few_runs", "stable": "stable_runs"}


def _finding(pm) -> dict[str, Any]:
    kind = _FINDING_KIND[pm.verdict]
    sev = "info" if pm.verdict in ("stable", "no_runs", "too_few_runs", "outliers", "warmup") else "warning"
    f: dict[str, Any] = {"kind": kind, "severity": sev, "name": pm.name, "unit": pm.unit, "runs": pm.n_runs}
    if pm.verdict == "step":
        big = max(pm.steps, key=lambda s: s.factor)
        f.update({"run": big.run, "before": big.before, "after": big.after, "ratio": big.ratio,
                  "factor": big.factor, "ci_low": big.ci_low, "ci_high": big.ci_high, "p_value": big.p_value,
                  "n_steps": len(pm.steps), "n_episodes": len(pm.episodes)})
    elif pm.verdict == "episode":
        big = max(pm.episodes, key=lambda e: e.factor)
        f.update({"start_run": big.start_run, "end_run": big.end_run, "level": big.level,
                  "baseline": big.baseline, "ratio": big.ratio, "factor": big.factor, "ci_low": big.ci_low,
                  "ci_high": big.ci_high, "p_value": big.p_value, "n_episodes": len(pm.episodes),
                  "stages": big.to_dict()["stages"]})
    elif pm.verdict in ("bimodal", "bands"):
        ps = [b.p_value for b in pm.bands if b.p_value is not None]
        f.update({"n_bands": len(pm.bands), "levels": [b.level for b in pm.bands],
                  "shares": [b.share for b in pm.bands], "slow_runs": list(pm.slow_runs),
                  "factor": max(b.level for b in pm.bands) / min(b.level for b in pm.bands)
                  if min(b.level for b in pm.bands) > 0 else None,
                  "p_value": max(ps) if ps else None})
    elif pm.verdict == "trend" and pm.trend:
        f.update({"drift_ratio": pm.trend["drift_ratio"], "p_value": pm.trend["p_value"]})
    elif pm.verdict == "warmup":
        f.update({"warmup_runs": list(pm.warmup_runs)})
    elif pm.verdict == "outliers":
        f.update({"outlier_runs": list(pm.outlier_runs), "max_factor": _max_outlier_factor(pm),
                  "threshold_sigmas": pm.gate.get("outlier_sigmas")})
    elif pm.verdict in NOT_CLASSIFIED:
        f.update({"reason": pm.note})
    shifts = pm.gate.get("unreported_changes") if pm.verdict in ("stable", "outliers") else None
    if shifts:
        f.update({"shifts": shifts, "min_ratio": pm.gate.get("min_ratio")})
    if pm.suspects:
        s = pm.suspects[0]
        f.update({"top_suspect": s.metadata, "top_suspect_score": s.score})
    return f


def _max_outlier_factor(pm) -> float | None:
    """Largest factor (>= 1) between an outlier run's mean and the main level."""
    if not pm.bands or not pm.outlier_runs:
        return None
    ref = max(pm.bands, key=lambda b: len(b.runs)).level
    sel = np.isin(pm.run_numbers, pm.outlier_runs)
    m = pm.run_means[sel]
    if ref <= 0 or np.any(m <= 0):
        return None
    return float(np.max(np.maximum(m / ref, ref / m)))


def spread_rel(pm) -> float | None:
    """Robust sd (1.4826 x MAD) of the runs, relative (of log run means; of means over their median when
    some are <= 0), every run counted, structure included: beside ``noise_rel``, the noise the model
    reads between neighbouring runs, so that runs which pair up (equal neighbours, a 1 % spread) do not
    read as a 0.2 % noise. None when the runs were not classified."""
    from .noise import robust_sd

    m = np.asarray(pm.run_means, dtype=np.float64)
    m = m[np.isfinite(m)]
    if pm.verdict in NOT_CLASSIFIED or m.size < 2:
        return None
    x, scale = ratio_scale(m)  # (the scale of noise_rel)
    return float(robust_sd(x)) if scale is None or scale > 0 else None


def runner_section(trace, options) -> SectionResult:
    """Post-mortem of one runner trace (see :func:`bandkit.postmortem.postmortem`)."""
    params = dict(options.for_section("postmortem")) if options is not None else {}
    return _section(trace, postmortem(trace, **params))


def runner_sections(traces, options) -> list[SectionResult]:
    """``[runner_section(t, options) for t in traces]``, the same results, the post-mortems of the traces
    run together (:func:`bandkit.postmortem.postmortems`: their suspects' metadata columns scored in one block).
    :func:`bandkit.analyze.analyze` calls it with the runner traces of a report."""
    params = dict(options.for_section("postmortem")) if options is not None else {}
    return [_section(t, pm) for t, pm in zip(traces, postmortems(list(traces), **params))]


def _section(trace, pm) -> SectionResult:
    """The section result of the post-mortem ``pm`` of ``trace``."""
    d = pm.to_dict()
    fields = {k: d[k] for k in ("runs", "values", "unit", "verdict", "steps", "episodes", "bands", "outlier_runs",
                                "warmup_runs", "slow_runs", "trend", "suspects", "negligible_suspects")}
    # "bands" is also written by the bands section (registered after this one for runner traces,
    # so its mixture bands of the run means replace these in the JSON); "run_bands" always holds
    # the post-mortem's levels with the runs in each.
    fields["run_bands"] = d["bands"]
    fields["summary_stats"] = trace.meta.extra.get("summary_stats")  # what the file states (bandkit.loaders.summary_stats)
    fields["postmortem"] = {"aggregation": "per-run means", "reference": d["reference"],
                            "affected_runs": d["affected_runs"], "noise_rel": d["noise_rel"],
                            "spread_rel": spread_rel(pm),
                            "summary_only": d["summary_only"], "note": d["note"], "gate": d["gate"],
                            "run_numbering": trace.meta.extra.get("run_numbering", "1-based, file order")}
    return SectionResult("postmortem", fields, pm, [_finding(pm)])


def runner_summary(trace_reports, options) -> SectionResult | None:
    """Counts of verdicts over the runner traces and suspects pooled over their runs."""
    pms = [tr.result("postmortem") for tr in trace_reports]
    pms = [p for p in pms if p is not None]
    if not pms:
        return None
    cs = summarize(pms)
    findings = []
    if cs.shared_suspects and cs.pooled_affected and len(cs.affected) >= 2:
        s = cs.shared_suspects[0]
        findings.append({"kind": "shared_suspect", "severity": "warning", "metadata": s.metadata,
                         "score": s.score, "slow_runs": cs.pooled_affected, "runs": cs.pooled_runs,
                         "affected_benchmarks": len(cs.affected)})
    return SectionResult("runner_summary", {"runner_summary": cs.to_dict()}, cs, findings)
