"""Benchmark post-mortems: where did a runner's run sequence change, and which per-run metadata
changed with it.

``postmortem(trace)`` -> :class:`PostMortem` (verdict, steps, episodes, bands, outliers, suspects);
``summarize(postmortems)`` -> counts of verdicts and the suspects shared across benchmarks.
Steps and bands are found on per-run means (see :mod:`.runs`); run numbers are the trace's
``run`` column (pyperf: runs with values, 1-based, calibration runs excluded).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..trace import Trace
from .classify import (GATE_MAX_RUNS, NOT_CLASSIFIED, VERDICTS, Classification, Gates, block_ratio, change_p,
                       classify, classify_steps, collapse_blocks, outlier_sigmas, ratio_scale, two_group_threshold)
from .distributions import erfc
from .noise import detect_tick, mean, two_group_t, within_run_se
from .runs import RunTable, run_table

__all__ = ["postmortem", "postmortems", "run_verdict", "run_verdicts", "summarize", "classify", "run_table",
           "rank_suspects", "PostMortem", "Step", "Episode", "Gates",
           "RunBand", "Suspect", "CrossSummary", "RunTable", "Classification", "VERDICTS"]

#: Names imported on first use (module ``__getattr__``): ``bandkit compare``'s verdicts need none of them (the
#: result classes, suspects, cross-benchmark summary: ~8 ms of this package's ~13 ms import).
_LAZY = {"Episode": ".result", "PostMortem": ".result", "RunBand": ".result", "Step": ".result",
         "slowdown_of": ".magnitude", "Suspect": ".suspects", "rank_suspects": ".suspects",
         "CrossSummary": ".summary", "summarize": ".summary"}


def __getattr__(name: str):
    where = _LAZY.get(name)
    if where is None:  # (then ``from bandkit.postmortem import suspects`` imports the submodule)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def postmortem(trace: Trace, *, min_ratio: float | None = None, noise_floor: float = 0.002, min_runs: int = 4,
               max_suspects: int = 5, gates: Gates | None = None) -> PostMortem:
    """Classify ``trace``'s run sequence and rank the metadata suspects.

    ``min_ratio``: smallest level change reported (default ``Gates.min_ratio``, 1.03 = 3 %);
    ``noise_floor``: smallest relative noise assumed per run; ``min_runs``: fewer runs -> verdict
    ``too_few_runs``; ``gates``: every decision threshold (:class:`~bandkit.postmortem.classify.Gates`).
    """
    from .suspects import run_steps

    return run_steps(_postmortem_steps(trace, min_ratio=min_ratio, noise_floor=noise_floor, min_runs=min_runs,
                                       max_suspects=max_suspects, gates=gates))


def postmortems(traces, **options) -> list:
    """``[postmortem(t, **options) for t in traces]``, the same post-mortems, with the suspects of all the
    traces scored together (:func:`.suspects.answer`: the metadata columns of the benchmarks that share a
    run count side by side in one block per lag). Each post-mortem runs up to its first request
    (:func:`_postmortem_steps`), then the requests of all are answered at once, and so on to the end."""
    from .suspects import answer

    return _drive_all([_postmortem_steps(t, **options) for t in traces], answer)


def _drive_all(gens: list, answer) -> list:
    """The return values of the generators ``gens``: each runs to its first request, then the requests of all
    are answered at once (``answer(requests) -> replies``), and so on until every one has returned."""
    out: list = [None] * len(gens)
    waiting: dict[int, tuple] = {}
    for i, steps in enumerate(gens):
        try:
            waiting[i] = (steps, next(steps))
        except StopIteration as stop:
            out[i] = stop.value
    while waiting:
        answers = answer([ask for _, ask in waiting.values()])
        again: dict[int, tuple] = {}
        for (i, (steps, _)), reply in zip(waiting.items(), answers):
            try:
                again[i] = (steps, steps.send(reply))
            except StopIteration as stop:
                out[i] = stop.value
        waiting = again
    return out


def _postmortem_steps(trace: Trace, *, min_ratio: float | None = None, noise_floor: float = 0.002, min_runs: int = 4,
                      max_suspects: int = 5, gates: Gates | None = None):
    """:func:`postmortem` as a generator: it yields the requests of its suspects' ranking (when it ranks
    any: :func:`.suspects.rank_steps`), is sent their answers and returns the :class:`PostMortem`."""
    from .magnitude import slowdown_of
    from .result import PostMortem, RunBand, Step
    from .suspects import Suspect, rank_steps

    g = gates or Gates()
    if min_ratio is not None:
        if min_ratio <= 1.0:
            raise ValueError("min_ratio must be > 1")
        g = dataclasses.replace(g, min_ratio=float(min_ratio))
    # fewer rows than min_runs: fewer runs too, so the verdict is known; no metadata table is built
    # (a 491 kB asv file of 22,971 one-value benchmarks spent ~1 ms per benchmark on it in pandas)
    rt = run_table(trace, metadata=len(trace.values) >= min_runs)
    name = trace.label
    unit = trace.meta.value_unit
    nvals = int(rt.counts.sum())
    summary_only = bool(trace.meta.extra.get("summary_only", False))
    if summary_only:
        return PostMortem(name, unit, "no_runs", 0, nvals, rt.runs, rt.means, np.zeros(len(rt), np.int64),
                          summary_only=True, note=str(trace.meta.extra.get("no_runs_reason", "no per-run data")))
    within, tick = _noise_inputs(trace)
    cl = yield from classify_steps(rt.means, noise_floor=noise_floor, min_runs=min_runs, within=within, tick=tick,
                                  gates=g)  # (its segmentations asked for: those of a file's series run together)
    cl, mixed = _settle_mixed(cl, trace, rt)
    runs = rt.runs
    if cl.verdict in NOT_CLASSIFIED:
        return PostMortem(name, unit, cl.verdict, len(rt), nvals, runs, rt.means, cl.labels,
                          note=f"{len(rt)} run(s); at least {min_runs} needed")
    x = cl.x
    nk = len(rt)
    scale = cl.test_scale
    clip = g.clip * cl.sigma
    labels = cl.labels
    bands = []
    main = int(np.argmax(np.bincount(labels[labels >= 0], minlength=len(cl.levels))))
    for k in range(len(cl.levels)):
        sel = np.flatnonzero(labels == k)
        p = None if k == main else _level_p(x, sel, np.flatnonzero(labels == main), scale)
        bands.append(RunBand(mean(rt.means[sel]), len(sel) / nk, tuple(int(r) for r in runs[sel]), p))
    chains = _episode_chains(cl.blocks, cl.episodes)
    episodes = [_episode(x, rt.means, runs, labels, chain, cl.blocks, scale, clip) for chain in chains]
    steps: list[Step] = []
    verdict = cl.verdict
    if verdict == "step":
        blocks = collapse_blocks(list(cl.blocks), [i for i, b in enumerate(cl.blocks) if b in cl.episodes])
        for (b0, s0, e0), (b1, s1, e1) in zip(blocks[:-1], blocks[1:]):
            ia = np.arange(s0, e0 + 1)
            ib = np.arange(s1, e1 + 1)
            ia, ib = ia[labels[ia] == b0], ib[labels[ib] == b1]
            ratio, lo, hi = block_ratio(x, ia, ib, scale)
            before, after = mean(rt.means[ia]), mean(rt.means[ib])
            if np.any(rt.means <= 0):  # a step from or to 0: ratio infinite or undefined
                ratio = after / before if before != 0 else (math.inf if after > 0 else math.nan)
            p = _edge_p(x, ia, ib, scale, clip)
            rlo, rhi = _location_ci(x, ia, ib, scale, runs)
            steps.append(Step(int(runs[ib[0]]), before, after, ratio, lo, hi, p, len(ia), len(ib), rlo, rhi))
    outliers = tuple(int(runs[i]) for i in cl.outliers)
    warmup = tuple(int(r) for r in runs[:cl.warmup])
    affected = np.zeros(nk, dtype=bool)
    reference = None
    step_index = None
    if verdict == "warmup":
        affected[:cl.warmup] = True
        reference = "warm-up runs vs the rest"
    elif verdict == "step" and steps:
        with np.errstate(divide="ignore", invalid="ignore"):  # ratio 0 or inf: a step from or to 0
            big = max(range(len(steps)), key=lambda i: abs(np.log(steps[i].factor)))
        step_index = int(np.flatnonzero(runs == steps[big].run)[0])
        affected[step_index:] = True
        reference = f"runs from {steps[big].run} on vs the runs before"
    elif verdict == "episode":
        for _, s0, e0 in cl.episodes:
            affected[s0:e0 + 1] = True
        reference = "runs in the episode(s) vs the rest"
    elif verdict == "bimodal":
        affected = (labels != main) & (labels >= 0)
        reference = "runs outside the most populated band vs the runs in it"
    elif verdict == "bands":
        far_band = max((k for k in range(len(cl.levels)) if k != main),
                       key=lambda k: abs(cl.levels[k] - cl.levels[main]))
        affected = labels == far_band
        reference = "runs in the band farthest from the most populated one vs the rest"
    elif verdict == "outliers":
        affected = labels < 0
        reference = "outlier runs vs the rest"
    suspects: list[Suspect] = []
    negligible: list[Suspect] = []
    if affected.any() and not affected.all():
        md = rt.raw_columns if rt.raw_columns is not None else rt.metadata  # (raw: no pandas)
        ranked = yield from rank_steps(md, affected, step_index=step_index, max_suspects=max_suspects,
                                       slowdown=slowdown_of(rt.means, affected), keep_negligible=True)
        fixed = []
        for s in ranked:
            ev = dict(s.evidence)
            if "changepoint_index" in ev:
                ev["changepoint_run"] = int(runs[ev.pop("changepoint_index")])
            fixed.append(Suspect(s.metadata, s.score, ev))
        suspects = [s for s in fixed if not s.evidence.get("negligible")]
        negligible = [s for s in fixed if s.evidence.get("negligible")]
    hib = bool(trace.meta.extra.get("higher_is_better") or False)
    slow = _slow_runs(rt.means, labels, bands, g.min_ratio, hib)
    for e, chain in zip(episodes, chains):
        if (e.ratio > 1) != hib:
            slow[chain[0][1]:chain[-1][2] + 1] = True
    gate = {"noise": cl.noise.to_dict() if cl.noise else None, "test_scale": scale,
            "min_ratio": g.min_ratio, "alpha": g.alpha, "visible_sigmas": g.visible, "min_block": g.min_block,
            "min_share": g.min_share, "level_share": g.level_share, "outlier_alpha": g.outlier_alpha,
            "outlier_sigmas": outlier_sigmas(nk, g.outlier_alpha),
            "two_group_t": two_group_t(x, g.level_share, g.min_block), "two_group_t99": two_group_threshold(nk),
            "changes": [{"run": int(runs[c.index]), "ratio": float(np.exp(c.effect)), "p_value": c.p_value}
                        for c in cl.changes],
            "mixed_runs": [int(runs[i]) for i in mixed], "unreported_changes": _unreported(cl, rt.means, runs)}
    return PostMortem(name, unit, verdict, nk, nvals, runs, rt.means, labels, tuple(steps), tuple(bands),
                      outliers, warmup, cl.trend, tuple(int(r) for r in runs[affected]), reference,
                      tuple(suspects), float(cl.sigma), slow_runs=tuple(int(r) for r in runs[slow]),
                      run_table=rt, episodes=tuple(episodes), gate=gate, negligible_suspects=tuple(negligible))


def run_verdict(trace: Trace, rt=None, *, noise_floor: float = 0.002, min_runs: int = 4,
                gates: Gates | None = None) -> str:
    """``postmortem(trace).verdict`` (same defaults) without the rest of the post-mortem (suspects, steps,
    episodes): what ``bandkit compare`` needs to flag a noisy benchmark. ``rt``: its run table, if at hand."""
    from .noise import run_ops

    return run_ops(_run_verdict_steps(trace, rt, noise_floor=noise_floor, min_runs=min_runs, gates=gates))


def run_verdicts(items, **options) -> list[str]:
    """``[run_verdict(trace, rt, **options) for trace, rt in items]``, the same verdicts, with the segmentations
    of all the series run together (:func:`.noise.answer_ops`, as :func:`postmortems` does)."""
    from .noise import answer_ops

    return _drive_all([_run_verdict_steps(t, rt, **options) for t, rt in items], answer_ops)


def _run_verdict_steps(trace: Trace, rt=None, *, noise_floor: float = 0.002, min_runs: int = 4,
                       gates: Gates | None = None):
    """:func:`run_verdict` as a generator (its classification's segmentations asked for)."""
    if trace.meta.extra.get("summary_only", False):
        return "no_runs"
    rt = run_table(trace, metadata=False) if rt is None else rt
    within, tick = _noise_inputs(trace)
    cl = yield from classify_steps(rt.means, noise_floor=noise_floor, min_runs=min_runs, within=within, tick=tick,
                                   gates=gates or Gates())
    return _settle_mixed(cl, trace, rt, verdict_only=True)[0].verdict


def _settle_mixed(cl: Classification, trace: Trace, rt: RunTable,
                  verdict_only: bool = False) -> tuple[Classification, tuple[int, ...]]:
    """``cl`` without bands made of runs that mix the main level with far values inside the run, and the
    positions of the runs whose level changes inside the run (see :mod:`.mixed`; ``verdict_only``: the bands
    only, no positions)."""
    if cl.verdict not in ("bimodal", "bands") and (verdict_only or not cl.outliers):
        return cl, ()  # (no band to test, no outlier run to explain)
    if len(cl.levels) < 2 or not trace.has_column("run") or not np.any(rt.counts >= 2):
        return cl, ()
    from .mixed import run_extremes, settle_mixed

    lo, hi = run_extremes(trace.values, np.asarray(trace.column("run", samples=True)), rt.runs)
    return settle_mixed(cl, lo, hi, rt.counts, ratio_scale(rt.means)[1], positions=not verdict_only)


def _unreported(cl: Classification, means: np.ndarray, runs: np.ndarray) -> list[dict]:
    """``gate.unreported_changes``: significant level shifts of a long one-level sequence (:mod:`.shifts`;
    ``run`` = first run after the shift, ``ratio`` = after / before), in run order."""
    if cl.verdict not in ("stable", "outliers") or cl.x is None or cl.x.size <= GATE_MAX_RUNS or np.any(means <= 0):
        return []
    from .shifts import unreported_changes

    return [{"run": int(runs[c.index]), "ratio": float(np.exp(c.effect)), "p_value": c.p_value}
            for c in unreported_changes(cl)]


def _noise_inputs(trace: Trace) -> tuple[float | None, float | None]:
    """(within-run standard error of a run mean, relative; quantisation step of the values)."""
    v = trace.values
    ok = np.isfinite(v)
    every = bool(ok.all())  # (then no copies by the mask: the same values)
    vf = v if every else v[ok]
    within = within_run_se(vf, np.asarray(trace.column("run", samples=True)) if every else
                           np.asarray(trace.column("run", samples=True))[ok]) if trace.has_column("run") else None
    return within, detect_tick(vf)


def _edge_p(x: np.ndarray, ia: np.ndarray, ib: np.ndarray, scale: float, clip: float) -> float:
    """p-value of the change between blocks ``ia`` and ``ib`` (see :func:`.classify.change_p`)."""
    return change_p(x[ia], x[ib], scale, clip)


def _level_p(x: np.ndarray, a: np.ndarray, b: np.ndarray, scale: float) -> float:
    """Two-sided p-value of the difference of the mean of x[a] and x[b] (long-run sd ``scale``)."""
    se = scale * math.sqrt(1.0 / max(len(a), 1) + 1.0 / max(len(b), 1))
    d = mean(x[a]) - mean(x[b])
    return erfc(abs(d) / se / math.sqrt(2.0)) if se > 0 else 0.0


def _location_ci(x, ia, ib, scale, runs) -> tuple[int | None, int | None]:
    """95 % bootstrap interval of the step location (run numbers) on the two blocks' values."""
    from ..changepoints.uncertainty import location_ci

    w = np.concatenate([x[ia], x[ib]]) / scale if scale > 0 else None
    if w is None or len(ia) < 2 or len(ib) < 2:
        return None, None
    lo, hi = location_ci(w, len(ia), 0, len(w), min_size=1, n_boot=200, rng=np.random.default_rng(0))
    pos = np.concatenate([ia, ib])
    return int(runs[pos[lo]]), int(runs[pos[hi]])


def _episode_chains(blocks, episodes) -> list[tuple[tuple[int, int, int], ...]]:
    """The episode blocks grouped into episodes: the stages of one episode are consecutive blocks
    (:func:`.classify._staged_episodes`); any other episode is one block."""
    pos = [list(blocks).index(b) for b in episodes]
    chains: list[list[int]] = []
    for i in pos:
        if chains and chains[-1][-1] == i - 1:
            chains[-1].append(i)
        else:
            chains.append([i])
    return [tuple(blocks[i] for i in c) for c in chains]


def _block_runs(labels: np.ndarray, blk: tuple[int, int, int]) -> np.ndarray:
    """Positions of block ``blk``'s runs (its band's runs from its first to its last run)."""
    idx = np.arange(blk[1], blk[2] + 1)
    return idx[labels[idx] == blk[0]]


def _episode(x, means, runs, labels, chain, blocks, scale, clip) -> Episode:
    """The episode of the blocks ``chain`` (one block, or the consecutive stages of one episode) against the
    blocks on either side of it; the stages, when more than one, as ``stages``."""
    from .result import Episode

    i, j = list(blocks).index(chain[0]), list(blocks).index(chain[-1])
    ia, ic = _block_runs(labels, blocks[i - 1]), _block_runs(labels, blocks[j + 1])
    ib = np.concatenate([_block_runs(labels, b) for b in chain])
    base = np.concatenate([ia, ic])
    ratio, lo, hi = block_ratio(x, base, ib, scale)
    p = max(_edge_p(x, ia, _block_runs(labels, chain[0]), scale, clip),
            _edge_p(x, _block_runs(labels, chain[-1]), ic, scale, clip))
    level, baseline = mean(means[ib]), mean(means[base])
    if np.any(means <= 0):
        ratio = level / baseline if baseline else float("nan")
    stages = ()
    if len(chain) > 1:
        stages = tuple((int(runs[b[1]]), int(runs[b[2]]), mean(means[r]), mean(means[r]) / baseline
                        if baseline else float("nan"), len(r)) for b in chain for r in [_block_runs(labels, b)])
    return Episode(int(runs[chain[0][1]]), int(runs[chain[-1][2]]), level, baseline, ratio, lo, hi, p, len(ib),
                   stages)


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

