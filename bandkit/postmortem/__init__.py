"""Benchmark post-mortems: where did a runner's run sequence change, and which per-run metadata
changed with it.

``postmortem(trace)`` -> :class:`PostMortem` (verdict, steps, bands, outliers, suspects);
``summarize(postmortems)`` -> counts of verdicts and the suspects shared across benchmarks.
Steps and bands are found on per-run means (see :mod:`.runs`); run numbers are the trace's
``run`` column (pyperf: runs with values, 1-based, calibration runs excluded).
"""
from __future__ import annotations

import numpy as np

from ..trace import Trace
from .classify import VERDICTS, Classification, classify, welch_ratio
from .result import PostMortem, RunBand, Step
from .runs import RunTable, run_table
from .suspects import Suspect, rank_suspects
from .summary import CrossSummary, summarize

__all__ = ["postmortem", "summarize", "classify", "run_table", "rank_suspects",
           "PostMortem", "Step",
           "RunBand", "Suspect", "CrossSummary", "RunTable", "Classification", "VERDICTS"]


def postmortem(trace: Trace, *, min_ratio: float = 1.05, noise_floor: float = 0.002, min_runs: int = 4,
               max_suspects: int = 5) -> PostMortem:
    """Classify ``trace``'s run sequence and rank the metadata suspects.

    ``min_ratio``: smallest level change reported (1.05 = 5 %); ``noise_floor``: smallest
    relative noise assumed per run; ``min_runs``: fewer runs -> verdict ``too_few_runs``.
    """
    if min_ratio <= 1.0:
        raise ValueError("min_ratio must be > 1")
    rt = run_table(trace)
    name = trace.label
    unit = trace.meta.value_unit
    nvals = int(rt.counts.sum())
    summary_only = bool(trace.meta.extra.get("summary_only", False))
    if summary_only:
        return PostMortem(name, unit, "no_runs", 0, nvals, rt.runs, rt.means, np.zeros(len(rt), np.int64),
                          summary_only=True, note=str(trace.meta.extra.get("no_runs_reason", "no per-run data")))
    cl = classify(rt.means, min_ratio=min_ratio, noise_floor=noise_floor, min_runs=min_runs)
    runs = rt.runs
    if cl.verdict in ("no_runs", "too_few_runs"):
        return PostMortem(name, unit, cl.verdict, len(rt), nvals, runs, rt.means, cl.labels,
                          note=f"{len(rt)} run(s); at least {min_runs} needed")
    logm = np.log(rt.means) if np.all(rt.means > 0) else rt.means
    steps = []
    blocks = list(cl.blocks)
    for (b0, s0, e0), (b1, s1, e1) in zip(blocks[:-1], blocks[1:]):
        if b0 == b1:
            continue
        ia = np.arange(s0, e0 + 1)
        ib = np.arange(s1, e1 + 1)
        ia, ib = ia[cl.labels[ia] >= 0], ib[cl.labels[ib] >= 0]
        before, after = float(np.mean(rt.means[ia])), float(np.mean(rt.means[ib]))
        lo, hi, p = welch_ratio(logm[ia], logm[ib])
        ratio = after / before if before != 0 else (np.inf if after > 0 else np.nan)  # a step up from 0
        steps.append(Step(int(runs[s1]), before, after, ratio, lo, hi, p, len(ia), len(ib)))
    bands = []
    nk = len(rt)
    for k in range(len(cl.levels)):
        sel = np.flatnonzero(cl.labels == k)
        bands.append(RunBand(float(np.mean(rt.means[sel])), len(sel) / nk, tuple(int(r) for r in runs[sel])))
    outliers = tuple(int(runs[i]) for i in cl.outliers)
    warmup: tuple[int, ...] = ()
    affected = np.zeros(nk, dtype=bool)
    reference = None
    step_index = None
    verdict = cl.verdict
    if verdict == "warmup":
        b, s, e = blocks[0]
        warmup = tuple(int(r) for r in runs[s:e + 1])
        affected[s:e + 1] = True
        reference = "warm-up runs vs the rest"
        steps = []
    elif verdict == "step" and steps:
        steps = _with_location_ci(steps, logm, runs)
        with np.errstate(divide="ignore", invalid="ignore"):  # ratio 0 or inf: a step from or to 0
            big = max(range(len(steps)), key=lambda i: abs(np.log(steps[i].ratio)))
        step_index = int(np.flatnonzero(runs == steps[big].run)[0])
        affected[step_index:] = True
        reference = f"runs from {steps[big].run} on vs the runs before"
    elif verdict in ("bimodal", "bands"):
        steps = []  # transitions between bands are not steps: the bands say which runs
        main = int(np.argmax([len(b.runs) for b in bands]))
        affected = (cl.labels != main) & (cl.labels >= 0)
        reference = "runs outside the most populated band vs the runs in it"
    elif verdict == "outliers":
        affected = cl.labels < 0
        reference = "outlier runs vs the rest"
    if verdict in ("trend", "stable", "outliers"):
        steps = []
    suspects: list[Suspect] = []
    if affected.any() and not affected.all():
        suspects = rank_suspects(rt.metadata, affected, step_index=step_index, max_suspects=max_suspects)
        fixed = []
        for s in suspects:
            ev = dict(s.evidence)
            if "changepoint_index" in ev:
                ev["changepoint_run"] = int(runs[ev.pop("changepoint_index")])
            fixed.append(Suspect(s.metadata, s.score, ev))
        suspects = fixed
    slow = _slow_runs(rt.means, cl.labels, bands, min_ratio, bool(trace.meta.extra.get("higher_is_better") or False))
    return PostMortem(name, unit, verdict, nk, nvals, runs, rt.means, cl.labels, tuple(steps), tuple(bands),
                      outliers, warmup, cl.trend, tuple(int(r) for r in runs[affected]), reference,
                      tuple(suspects), float(cl.sigma), slow_runs=tuple(int(r) for r in runs[slow]),
                      metadata=rt.metadata)


def _with_location_ci(steps: list[Step], logm: np.ndarray, runs: np.ndarray) -> list[Step]:
    """Attach the location interval of each step from the change-point detector (same data)."""
    import dataclasses

    from ..changepoints import detect_changepoints
    from ..errors import BandkitError

    try:
        res = detect_changepoints(logm, cost="l2", penalty="auto", min_size=1, n_boot=200, seed=0)
    except (BandkitError, ValueError):
        return steps
    out = []
    for st in steps:
        k = int(np.flatnonzero(runs == st.run)[0])
        near = [c for c in res.changepoints if abs(int(c.index) - k) <= 1]
        if near:
            c = min(near, key=lambda c: abs(int(c.index) - k))
            st = dataclasses.replace(st, run_ci_low=int(runs[int(c.ci_low)]), run_ci_high=int(runs[int(c.ci_high)]))
        out.append(st)
    return out


def _slow_runs(means: np.ndarray, labels: np.ndarray, bands: list, min_ratio: float, hib: bool) -> np.ndarray:
    """Runs slower than the most populated band (band membership, or outliers by min_ratio)."""
    if not bands:
        return np.zeros(len(means), dtype=bool)
    main = int(np.argmax([len(b.runs) for b in bands]))
    ref = bands[main].level
    sign = -1.0 if hib else 1.0
    slower_band = np.array([sign * (b.level - ref) > 0 for b in bands] + [False])
    slow = slower_band[np.where(labels >= 0, labels, len(bands))]
    out = (labels < 0) & (sign * np.log(np.maximum(means, 1e-300) / ref) >= np.log(min_ratio)) if ref > 0 \
        else np.zeros(len(means), dtype=bool)
    return slow | out
