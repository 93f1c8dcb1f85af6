"""Fleet rows and ranking for histories and runner results: what matters to a benchmark maintainer.

A history (or a runner benchmark) row holds its open regressions (in force at the last build: not
fixed later, not the end of an episode), episodes, drifts, noise and latest state, and a sparkline
(per-build levels in at most :data:`SPARK_POINTS` bins, bin medians). The ranking puts first the
rows with open regressions, the largest (|log ratio|) first and, at equal size, the surest (lowest
p-value); then rows with episodes (most, then largest); then the noisiest. FTQ rows keep their own
ranking (by FTQ fraction) and come after these.

Imports nothing of the FTQ analyses (nor does the package :mod:`bandkit.fleet`: its FTQ rows import
them when a trace is analysed), so the history path stays light.
"""
from __future__ import annotations

import math
import re
from typing import Any, Mapping, Sequence

import numpy as np

#: Points of a row's sparkline (bins of builds, median level per bin).
SPARK_POINTS = 100
#: Trace kinds ranked by regressions rather than by FTQ fraction.
RANKED_KINDS = ("history", "runner")


def _plain(v):
    from .._json import jsonable

    return jsonable(v)


def sparkline(levels: np.ndarray, n: int = SPARK_POINTS) -> list[float | None]:
    """Per-build levels reduced to at most ``n`` bin medians (deterministic)."""
    v = np.asarray(levels, dtype=np.float64)
    if v.size <= n:
        return _plain(v.tolist())
    edges = (np.arange(n + 1) * v.size) // n
    return _plain([float(np.median(v[a:b])) for a, b in zip(edges[:-1], edges[1:])])


def _spark_pos(index: int, n_builds: int, n: int = SPARK_POINTS) -> int:
    return int(index) if n_builds <= n else int(index * n // n_builds)


def history_row(tr, since: Any = None) -> dict[str, Any]:
    """The fleet row of a history TraceReport (needs its ``history`` section)."""
    from ..history.section import since_index

    t = tr.trace
    m = t.meta
    sec = tr.section("history")
    res = sec.result
    h = dict(sec.fields["history"])
    k = since_index(res, since) if since is not None else 0
    open_regs = [c for c in res.regressions if c.open and c.index >= k]
    drifts_bad = [d for d in res.drifts if d.kind == "regression" and d.end_index >= k]
    eps = [e for e in res.episodes if e.end_index >= k]
    last = res.eras[-1] if res.eras else None
    marks = sorted({_spark_pos(c.index, res.builds) for c in open_regs})
    row = {
        "path": m.path, "label": t.label, "node": None, "thread": None, "cpu": None, "format": m.format,
        "kind": m.kind, "error": None, "builds": res.builds, "runs": res.runs, "value_unit": m.value_unit,
        "higher_is_better": res.higher_is_better, "first_build": res.first_build, "last_build": res.last_build,
        "open_regressions": [_change(c) for c in open_regs],
        "regressions_fixed": sum(1 for e in eps if e.kind == "regression"),
        "episodes": [{"start_build": e.start_build, "end_build": e.end_build, "ratio": e.ratio, "kind": e.kind,
                      "builds": e.builds} for e in eps],
        "drifts": [{"start_build": d.start_build, "end_build": d.end_build, "ratio": d.ratio} for d in drifts_bad],
        "improvements": sum(1 for c in res.improvements if c.index >= k and c.reverts is None),
        "noise_cv": last.cv if last else None,
        "within_build_cv": last.within_build_cv if last else None,
        "latest": h.get("latest"),
        "since": since,
        "finding_kinds": sorted({f.get("kind") for f in tr.findings if f.get("kind")}),
        "findings": [{k2: v for k2, v in f.items() if k2 not in ("trace", "path")} for f in tr.findings],
        "sparkline": sparkline(res.levels if res.levels is not None else np.zeros(0)),
        "sparkline_marks": marks,
    }
    return _plain(row)


def _change(c) -> dict[str, Any]:
    return {"build": c.build, "build_ci": list(c.build_ci), "before": c.before, "after": c.after, "ratio": c.ratio,
            "ratio_ci": list(c.ratio_ci), "p_value": c.p_value, "date": c.date}


def runner_row(tr, since: Any = None) -> dict[str, Any]:
    """The fleet row of a runner benchmark: its post-mortem's steps slower than before are open
    regressions (runs play the builds), bimodal / bands verdicts count as episodes, noise_rel is
    the noise."""
    t = tr.trace
    m = t.meta
    sec = tr.section("postmortem")
    f = dict(sec.fields) if sec is not None else {}
    hib = bool(m.extra.get("higher_is_better") or False)
    steps = f.get("steps") or []
    opened = [s for s in steps if s.get("ratio") and ((s["ratio"] > 1) != hib)
              and (since is None or not isinstance(since, (int, float)) or s.get("run", 0) >= since)]
    verdict = f.get("verdict")
    row = {
        "path": m.path, "label": t.label, "node": None, "thread": None, "cpu": None, "format": m.format,
        "kind": m.kind, "error": None, "builds": f.get("runs"), "runs": f.get("values"), "value_unit": m.value_unit,
        "higher_is_better": hib, "first_build": 1, "last_build": f.get("runs"),
        "open_regressions": [{"build": s.get("run"), "build_ci": [s.get("run_ci_low"), s.get("run_ci_high")],
                              "before": s.get("before"), "after": s.get("after"), "ratio": s.get("ratio"),
                              "ratio_ci": [s.get("ci_low"), s.get("ci_high")], "p_value": s.get("p_value"),
                              "date": None} for s in opened],
        "regressions_fixed": 0,
        "episodes": [{"verdict": verdict}] if verdict in ("bimodal", "bands") else [],
        "drifts": [], "improvements": sum(1 for s in steps if s not in opened),
        "noise_cv": (f.get("postmortem") or {}).get("noise_rel"), "within_build_cv": None,
        "latest": None, "since": since, "verdict": verdict,
        "finding_kinds": sorted({x.get("kind") for x in tr.findings if x.get("kind")}),
        "findings": [{k2: v for k2, v in x.items() if k2 not in ("trace", "path")} for x in tr.findings],
        "sparkline": sparkline(_run_means(t)), "sparkline_marks": [],
    }
    return _plain(row)


def _run_means(t) -> np.ndarray:
    d = t.samples
    v = d["value"].to_numpy(dtype=np.float64)
    if "run" not in d.columns or not len(d):
        return v
    inv = np.unique(d["run"].to_numpy(), return_inverse=True)[1]
    return np.bincount(inv, weights=v) / np.bincount(inv)


def _size(c: Mapping[str, Any]) -> float:
    r = c.get("ratio")
    return abs(math.log(r)) if r and r > 0 else 0.0


def _natural_key(p: str):
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", p)]


def rank_key(row: Mapping[str, Any]) -> tuple:
    """Sort key (ascending = worst first): open regressions by size then confidence, then episodes,
    then noise; ties by path."""
    regs = list(row.get("open_regressions") or []) + [
        {"ratio": d.get("ratio"), "p_value": None} for d in row.get("drifts") or []]
    worst = max(regs, key=_size) if regs else None
    eps = row.get("episodes") or []
    ep_size = max((_size(e) for e in eps), default=0.0)
    noise = row.get("noise_cv")
    return (0 if worst else 1, -(_size(worst) if worst else 0.0),
            (worst.get("p_value") if worst and worst.get("p_value") is not None else 1.0),
            -len(eps), -ep_size, -(noise if noise is not None else 0.0),
            _natural_key(str(row.get("path"))), str(row.get("label")))


def flagged(row: Mapping[str, Any]) -> bool:
    """A row that needs a look: an open regression, a regression-direction drift or an episode."""
    return bool(row.get("open_regressions") or row.get("drifts") or row.get("episodes"))


def order_rows(rows: Sequence[Mapping[str, Any]]) -> list[int]:
    """Indices of ``rows`` (history/runner rows) worst first."""
    return sorted(range(len(rows)), key=lambda i: rank_key(rows[i]))
