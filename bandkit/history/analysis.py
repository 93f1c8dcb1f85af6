"""History analysis: where a benchmark's level changed across builds, by how much, how sure we are,
whether it was fixed, and where it stands now.

Method (per history; numbers in ``DEFAULTS``):

1. Per-build levels (:mod:`.builds`): the median of each build's measurements; analysed as
   ``y = log(level)`` so that changes compare as ratios (raw levels when some are <= 0).
2. Candidates: :func:`bandkit.changepoints.detect_changepoints` on ``y`` (its automatic cost,
   penalty and long-run noise scale; no bootstrap at this stage).
3. Gate (calibrated on generated null histories, ``benchmarks/history_eval.py``; when the detector's
   scale collapsed on a tick grid, its candidates come from the levels de-quantised by a seeded
   1/4-tick dither): each candidate
   is tested between its neighbouring candidates with the sup-CUSUM test on ``y`` (winsorised
   around a running median when the detector chose its robust cost) standardised by the
   detector's noise scale; a change is kept when ``p < alpha``, ``|ratio - 1| >= min_relative``
   and both adjacent eras hold at least ``min_builds`` builds. The weakest failing candidate is
   dropped and its neighbours re-tested until every kept change passes. When none passes, a finer
   second look (no effect floor, alpha / 10, sustained eras) may give boundaries of which one is
   reportable (a drop recovering in stages); the others stay boundaries, not changes.
4. For kept changes: 95 % build interval (residual bootstrap of the location,
   :func:`bandkit.changepoints.uncertainty.location_ci`), levels before/after (medians of the
   adjacent eras), ratio with a 95 % interval (difference of era medians; standard error
   1.2533 x robust SD / sqrt(n) per era, at least the long-run noise sigma, plus the rounding of
   quantised timings: step^2 / 12 per era, the step relative to the level).
5. Episodes: a regression followed later by a change back to within half its size of the level
   before it, or beyond it (a return shorter than the episode and than the stretch after it is a dip,
   not the end); a change whose level is not in force at the last build is undone (``fixed_at``)
   since the final stretch back; drifts: two or more same-direction changes whose middle eras a straight line fits
   better than the steps (BIC); eras: level and noise between kept changes; latest: the last
   era against the best one.
"""
from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import numpy as np

from ..robust import exp_ratio
from .builds import BuildTable, build_table
from .result import Change, Drift, Episode, Era, HistoryResult, Latest

DEFAULTS: dict[str, Any] = {
    "alpha": 1e-3,        # significance of a kept change (sup-CUSUM p-value)
    "min_relative": 0.02,  # smallest |ratio - 1| reported
    "min_builds": 3,      # builds on each side of a kept change
    "confidence": 0.95,   # level of the build and ratio intervals
    "n_boot": 200,        # bootstrap replicates of a location interval
    "seed": 0,
    "cost": "auto",
    "penalty": "auto",
}
_MAD = 1.482602218505602
#: Fewer builds than this: no change is looked for (levels and noise only).
MIN_BUILDS_ANALYSED = 8
#: A significant change under ``min_relative`` is named only from this size and this share of the
#: build-to-build robust SD (in log units, or relative to the level's scale in linear mode).
SMALL_MIN_RELATIVE = 0.005
SMALL_MIN_NOISE = 0.25


def _iso(origin: str | None, t: float) -> str | None:
    if origin is None or not np.isfinite(t):
        return None
    import datetime as _dt

    try:
        base = _dt.datetime.fromisoformat(origin)
    except ValueError:
        return None
    return (base + _dt.timedelta(seconds=float(t))).isoformat(timespec="seconds")


def _gate(y: np.ndarray, zw: np.ndarray, cands: list[int], p: dict) -> tuple[list[int], list[float]]:
    """Drop failing candidates one at a time (largest p-value first); returns the kept changes and
    their p-values. Each (start, change, end) triple is tested once (dropping a candidate only
    changes its neighbours' tests), so this is linear in the number of candidates."""
    from ..changepoints.uncertainty import cusum_p_value

    n = y.size
    min_eff = math.log1p(p["min_relative"])
    cands = sorted(int(c) for c in cands)
    memo: dict[tuple[int, int, int], tuple[float, float]] = {}

    def test(a: int, c: int, b: int) -> tuple[float, float]:
        key = (a, c, b)
        if key not in memo:
            memo[key] = (cusum_p_value(zw, a, b), abs(float(np.median(y[c:b]) - np.median(y[a:c]))))
        return memo[key]

    while True:
        bounds = [0] + cands + [n]
        worst, worst_key, pvals = None, None, []
        for k, c in enumerate(cands):
            a, b = bounds[k], bounds[k + 2]
            pv, eff = test(a, c, b)
            pvals.append(pv)
            ok = pv < p["alpha"] and eff >= min_eff and c - a >= p["min_builds"] and b - c >= p["min_builds"]
            if not ok:
                key = (pv >= p["alpha"], pv, -eff)
                if worst_key is None or key > worst_key:
                    worst, worst_key = k, key
        if worst is None:
            return cands, pvals
        cands.pop(worst)


def analyse_history(bt: BuildTable, *, higher_is_better: bool = False, value_unit: str = "",
                    time_origin: str | None = None, metadata=None, **params) -> HistoryResult:
    """Analyse a history given its per-build table (:func:`bandkit.history.builds.build_table`).

    ``metadata``: optional DataFrame with one row per build (build metadata, for suspects).
    ``params``: overrides of :data:`DEFAULTS`.
    """
    unknown = set(params) - set(DEFAULTS)
    if unknown:
        from ..errors import UsageError

        raise UsageError(f"unknown history option(s) {sorted(unknown)} (known: {', '.join(DEFAULTS)})")
    p = {**DEFAULTS, **params}
    nb = len(bt)
    med = bt.median
    positive = bool(np.all(med > 0))
    lin_scale = 1.0  # linear mode (some levels <= 0): y = levels / lin_scale
    if positive:
        y = np.log(med)
    else:
        lin_scale = float(np.median(np.abs(med))) or 1.0
        y = med / lin_scale
    runs = int(bt.counts.sum())
    lvl = float(np.median(np.abs(med))) if nb else 1.0
    # rounding of quantised timings in units of y (medians of even counts sit on half ticks)
    q_rel = (bt.tick / 2.0) / lvl if lvl > 0 else 0.0
    cands: list[int] = []
    pvals: list[float] = []
    n_cand = 0
    all_cands: list[int] = []
    sigma = float("nan")
    cost = "l2"
    zw = y
    if nb >= max(2 * p["min_builds"], MIN_BUILDS_ANALYSED):
        from ..changepoints import detect_changepoints
        from ..changepoints.costs import winsorize_local
        from ..changepoints.penalty import diff_scale

        res = detect_changepoints(y, cost=p["cost"], penalty=p["penalty"], min_size=2, ci=False)
        cost = res.cost
        yw = winsorize_local(y, width=9) if cost == "robust" else y  # the width its gate was calibrated with
        # the detector's long-run scale, floored at half the first-difference scale: on quantised
        # timings in log units (build medians on a tick grid, which is no grid after the log) most
        # differences are exactly 0 and the detector's Huber scale collapsed to ~1e-7 of the noise
        # (null false alarms 7 %); its scale is 0.69-1.0x diff_scale on 95 % of null histories, so a
        # scale under a quarter of it is taken as collapsed and replaced
        ds = diff_scale(yw)
        if not (np.isfinite(res.noise_scale) and res.noise_scale > 0.25 * ds) and bt.tick > 0:
            # collapsed on a tick grid: its reported set is then noise too (SAP 08680: 308 'changes', the
            # x0.96 step after the first 20 builds lost among them). Its candidates come from the levels
            # de-quantised by a seeded uniform dither of +-1/4 tick (build medians sit on a half-tick grid);
            # the gate below still tests the levels as measured
            jit = np.random.default_rng(p["seed"]).uniform(-bt.tick / 4, bt.tick / 4, nb)
            yd = np.log(med + jit) if positive and np.all(med + jit > 0) else (med + jit) / lin_scale
            res = detect_changepoints(yd, cost=p["cost"], penalty=p["penalty"], min_size=2, ci=False)
            cost = res.cost
            yw = winsorize_local(y, width=9) if cost == "robust" else y
            ds = diff_scale(yw)
        sigma = res.noise_scale if np.isfinite(res.noise_scale) and res.noise_scale > 0.25 * ds else ds
        sigma = max(sigma, 0.5 * ds)
        zw = (yw - np.median(yw)) / sigma
        # the gate tests the detector's reported changes (q <= 0.01); starting it from the whole search
        # path (res.candidates) kept a x1.067 'regression' on the stationary 13 %-noise SAP 07220. The
        # smaller changes are looked for on the whole path (few of them pass the detector's own level).
        all_cands = sorted({int(c.index) for c in res.candidates} | {int(i) for i in res.indices})
        n_cand = len(res.changepoints)
        cands, pvals = _boundaries(y, zw, list(res.indices), p)
    kept = cands
    bounds = [0] + kept + [nb]
    zq = NormalDist().inv_cdf(0.5 + p["confidence"] / 2)
    rng = np.random.default_rng(p["seed"])
    back = np.exp if positive else (lambda v: v * lin_scale)
    era_lv = [float(np.median(y[a:b])) for a, b in zip(bounds[:-1], bounds[1:])]
    changes: list[Change] = []
    if kept:
        from ..changepoints.uncertainty import location_ci

        for k, c in enumerate(kept):
            a, b = bounds[k], bounds[k + 2]
            lo, hi = location_ci(zw, c, a, b, min_size=1, level=p["confidence"], n_boot=p["n_boot"], rng=rng) \
                if p["n_boot"] > 0 else (c, c)
            d = era_lv[k + 1] - era_lv[k]
            se = _ratio_se(y, a, c, b, sigma, q_rel)
            before, after = float(back(era_lv[k])), float(back(era_lv[k + 1]))
            if positive:
                ratio, rlo, rhi = exp_ratio(d), exp_ratio(d - zq * se), exp_ratio(d + zq * se)
            elif before:  # linear mode: se is in units of y, i.e. of lin_scale
                ratio = after / before
                r1, r2 = (after - zq * se * lin_scale) / before, (after + zq * se * lin_scale) / before
                rlo, rhi = min(r1, r2), max(r1, r2)
            else:
                ratio = rlo = rhi = float("nan")
            slower = ratio > 1.0
            kind = "regression" if slower != higher_is_better else "improvement"
            changes.append(Change(
                build=bt.ids[c], build_ci=(bt.ids[lo], bt.ids[hi]), before=before, after=after, ratio=ratio,
                ratio_ci=(rlo, rhi), p_value=float(pvals[k]), kind=kind, index=int(c),
                builds_before=int(c - a), builds_after=int(b - c), effect=abs(d) / sigma,
                date=_iso(time_origin, bt.time[c])))
    # significant changes under the reporting threshold stay era boundaries (see _boundaries) but make
    # no regression or improvement of their own (a ramp's small stages still make its drift)
    drifts, changes = _drifts(y, changes, bounds, bt, higher_is_better)
    drifts = [d for d in drifts if not _small(d.ratio, p["min_relative"])]
    changes = [c for c in changes if not _small(c.ratio, p["min_relative"])]
    episodes, changes = _episodes(changes, era_lv, bounds, bt, higher_is_better, back)
    if metadata is not None and len(getattr(metadata, "columns", ())):
        changes = _with_suspects(changes, metadata)
    small = _small_changes(y, zw, all_cands, p, bt, back) if all_cands and not (changes or drifts) else ()
    if not (changes or drifts or episodes) and len(bounds) > 2:  # nothing to report: one era, as before
        bounds = [0, nb]
        era_lv = [float(np.median(y))]
    eras = _eras(y, bt, bounds, back, positive)
    latest = _latest(eras, bt, higher_is_better, p["min_builds"])
    fitted = np.repeat([float(back(v)) for v in era_lv], np.diff(bounds))
    params_out = {**{k: p[k] for k in ("alpha", "min_relative", "min_builds", "confidence")},
                  "cost": cost, "noise_scale": sigma, "scale": "log" if positive else "linear",
                  "candidates": n_cand}
    return HistoryResult(
        builds=nb, runs=runs, value_unit=value_unit, higher_is_better=bool(higher_is_better),
        first_build=bt.ids[0] if nb else None, last_build=bt.ids[-1] if nb else None,
        regressions=tuple(c for c in changes if c.kind == "regression"),
        improvements=tuple(c for c in changes if c.kind == "improvement"),
        episodes=tuple(episodes), drifts=tuple(drifts), eras=tuple(eras), latest=latest, params=params_out,
        small_changes=small, level_range=_level_range(y, back),
        build_ids=bt.ids, levels=med, fitted=fitted)


def _small(ratio: float, min_relative: float) -> bool:
    """Is a change of ``ratio`` under the reporting threshold?"""
    return bool(ratio > 0 and abs(math.log(ratio)) < math.log1p(min_relative))


def sustained_builds(min_builds: int, n: int) -> int:
    """Builds an era needs to count as sustained (a baseline; a change found by the finer second look)."""
    return int(max(min_builds, 10, math.ceil(0.02 * n)))


def _boundaries(y: np.ndarray, zw: np.ndarray, cands: list[int], p: dict) -> tuple[list[int], list[float]]:
    """Era boundaries: the detector's changes that pass the gate (significance, effect, length).

    When none passes, the gate is run again without the effect floor at the tenfold stricter level of
    the smaller changes: a 3 % drop that recovers in two smaller stages (SAP 04656, 07895) was lost when
    the stages (under 2 %) were dropped first and the drop was then measured against their merged era.
    Its boundaries are used when one of them is reportable (the stages stay boundaries, not changes)."""
    kept, pvals = _gate(y, zw, cands, p)
    if kept:
        return kept, pvals
    # this second look is finer (no effect floor, so narrower eras): it keeps only sustained eras, as
    # long as the baseline of `latest` (short blips of a multimodal spread passed it, SAP 04189)
    fine, fpvals = _gate(y, zw, cands, {**p, "min_relative": 0.0, "alpha": p["alpha"] / 10,
                                        "min_builds": sustained_builds(p["min_builds"], y.size)})
    bounds = [0] + fine + [y.size]
    for k, c in enumerate(fine):
        if not _small(exp_ratio(float(np.median(y[c:bounds[k + 2]]) - np.median(y[bounds[k]:c]))), p["min_relative"]):
            return fine, fpvals
    return [], []


def _small_changes(y, zw, cands: list[int], p: dict, bt: BuildTable, back) -> tuple[dict, ...]:
    """Changes that pass the significance and length gates but are smaller than ``min_relative``
    (a 1.8 % step on a 0.5 %-noise history is real, just under the reporting threshold): the
    history is then not called "stable". (Larger moves that the gate did not keep, e.g. short dips,
    show in the level range.)"""
    # a tenfold stricter level: without an effect floor, AR(1) wander passed alpha in 2.5 % of null histories
    kept, pvals = _gate(y, zw, cands, {**p, "min_relative": 0.0, "alpha": p["alpha"] / 10})
    out = []
    bounds = [0] + kept + [y.size]
    # named only when it is at least SMALL_MIN_RELATIVE and a quarter of the build-to-build noise: smaller
    # ones read as nonsense ("x1 slower" of SAP 04189, 0.15 % at 4.5 % noise). (Half the noise cost a third
    # of the power on x1.01 steps of benchmarks/history_eval.py: 89 % -> 58 %; a quarter 88 %.)
    cv = _MAD * float(np.median(np.abs(y - np.median(y))))
    floor = max(math.log1p(SMALL_MIN_RELATIVE), SMALL_MIN_NOISE * cv)
    for k, c in enumerate(kept):
        before = float(back(np.median(y[bounds[k]:c])))
        after = float(back(np.median(y[c:bounds[k + 2]])))
        ratio = after / before if before else float("nan")
        if ratio > 0 and floor <= abs(math.log(ratio)) < math.log1p(p["min_relative"]):
            out.append({"build": bt.ids[c], "ratio": ratio, "p_value": float(pvals[k])})
    return tuple(out)


def level_window(n: int) -> int:
    """Builds in the running median of :func:`_level_range` (odd)."""
    return max(21, n // 20) | 1


def _level_range(y: np.ndarray, back) -> tuple[float, float] | None:
    """5-95 % range of the centred running median of the build levels over ``max(21, n // 20)``
    builds: how far the level moves between steps (descriptive, no test)."""
    n = y.size
    w = level_window(n)
    if n < 3 * w:
        return None
    from ..changepoints.robust import running_median

    rm = running_median(y, w)[w // 2: n - w // 2]  # full windows only
    lo, hi = np.percentile(rm, [5, 95])
    return float(back(lo)), float(back(hi))


def _ratio_se(y: np.ndarray, a: int, c: int, b: int, sigma: float, q: float) -> float:
    """Standard error of the difference of the era medians of ``y[a:c]`` and ``y[c:b]``: per era
    1.2533 x its robust SD (at least the detector's long-run noise scale, which carries the
    autocorrelation) / sqrt(length), plus the rounding of quantised timings (a median sits on the
    grid of step ``q``: variance q^2 / 12 per era)."""
    var = 0.0
    for s0, s1 in ((a, c), (c, b)):
        seg = y[s0:s1]
        sd = _MAD * float(np.median(np.abs(seg - np.median(seg)))) if seg.size > 2 else sigma
        var += (1.2533 * max(sd, sigma)) ** 2 / seg.size + q * q / 12.0
    return math.sqrt(var)


def _drifts(y, changes: list[Change], bounds, bt: BuildTable, hib: bool):
    """Runs of >= 3 same-direction changes (so >= 2 middle eras, >= 6 builds in all) that a straight
    line fits better than the staircase of their era levels (BIC): one Drift instead of the steps.
    (Two steps with one flat era between them are two steps: a line against one level would only
    test for a slope inside that era, which slow wander and autocorrelation make look significant.)"""
    if len(changes) < 3:
        return [], changes
    drifts, out, i = [], [], 0
    while i < len(changes):
        j = i
        while j + 1 < len(changes) and (changes[j + 1].ratio > 1) == (changes[i].ratio > 1):
            j += 1
        if j >= i + 2:
            a, b = changes[i].index, changes[j].index  # the middle eras: builds a .. b-1
            seg = y[a:b]
            if seg.size >= 6:
                x = np.arange(seg.size, dtype=np.float64)
                slope, icpt = np.polyfit(x, seg, 1)
                rss_line = float(np.sum((seg - (icpt + slope * x)) ** 2))
                rss_steps = 0.0
                inner = [c.index for c in changes[i + 1:j]]
                for s0, s1 in zip([a] + inner, inner + [b]):
                    rss_steps += float(np.sum((y[s0:s1] - np.mean(y[s0:s1])) ** 2))
                m = seg.size
                n_lv = len(inner) + 1
                bic_line = m * math.log(max(rss_line / m, 1e-300)) + 2 * math.log(m)
                bic_steps = m * math.log(max(rss_steps / m, 1e-300)) + (2 * n_lv - 1) * math.log(m)
                if bic_line < bic_steps:
                    ratio = changes[j].after / changes[i].before if changes[i].before else float("nan")
                    kind = "regression" if (ratio > 1) != hib else "improvement"
                    drifts.append(Drift(start_build=changes[i].build, end_build=changes[j].build, ratio=ratio,
                                        per_build=ratio ** (1.0 / max(b - a, 1)) - 1.0, kind=kind,
                                        start_index=int(a), end_index=int(b)))
                    i = j + 1
                    continue
        out.extend(changes[i:j + 1])
        i = j + 1
    return drifts, out


def _episodes(changes: list[Change], era_lv, bounds, bt: BuildTable, hib: bool, back):
    """A change closed by the first later change that brings the level back to within half the
    change's size of the level before it, the eras between all on the changed side: a regression
    later fixed (``kind`` "regression"), or an improvement later lost ("improvement"). The closing
    change gets ``reverts`` (the episode's start build): it is no new regression or improvement."""
    import dataclasses

    idx_of = {int(c): k for k, c in enumerate(bounds[1:-1])}
    by_index = {c.index: c for c in changes}
    lengths = np.diff(bounds)
    episodes, fixed, reverts = [], {}, {}
    for c in changes:
        k = idx_of.get(c.index)
        if k is None or c.index in reverts:
            continue
        base = era_lv[k]
        up = era_lv[k + 1] > base
        size = abs(era_lv[k + 1] - base)
        for j in range(k + 1, len(era_lv) - 1):
            during = era_lv[k + 1:j + 1]
            if not all((v > base) == up and abs(v - base) > 0.5 * size for v in during):
                break
            # the level came back (or went beyond: a regression whose fix also made it faster is fixed,
            # SAP 00414, 02304, 07445, 08909 kept such 'open regressions' while at their best level),
            # and stayed back: a return shorter than the episode and than the stretch after it, where the
            # level is on the changed side again, is a dip inside the episode (its own episode of the other
            # kind), not its end (SAP 06170: a 7-build dip closed a 1,000-build stretch, and its end became
            # an open regression)
            again = j + 2 < len(era_lv) and ((era_lv[j + 2] > base) == up) and \
                abs(era_lv[j + 2] - base) > 0.5 * size
            sustained = not again or lengths[j + 1] >= min(lengths[k + 1:j + 1].sum(), lengths[j + 2])
            back_by = (era_lv[j + 1] - base) if up else (base - era_lv[j + 1])  # > 0: still on the changed side
            if back_by <= 0.5 * size:  # (:func:`_back`)
                if not sustained:
                    break
                mid = max(during) if up else min(during)
                a, b = bounds[k + 1], bounds[j + 1]
                episodes.append(Episode(start_build=bt.ids[a], end_build=bt.ids[b], kind=c.kind,
                                        ratio=float(back(mid) / back(base)), level_before=float(back(base)),
                                        level_during=float(back(mid)), builds=int(b - a), start_index=int(a),
                                        end_index=int(b)))
                fixed[c.index] = bt.ids[b]
                if b in by_index and back_by >= -0.5 * size:  # beyond that, the closing change is news too
                    reverts[b] = bt.ids[a]
                break
        if c.index not in fixed:
            # not in force at the last build any more (no clean episode: the level went elsewhere first):
            # undone since the first build of the final stretch of eras that are all back, or beyond
            # (alternating or wandering levels that end at their lowest have no 'open regression')
            m = len(era_lv)
            while m - 1 > k + 1 and _back(era_lv[m - 1], base, up, size):
                m -= 1
            if m < len(era_lv) and _back(era_lv[m], base, up, size):
                fixed[c.index] = bt.ids[bounds[m]]
    out = []
    for c in changes:
        if c.index in fixed:
            c = dataclasses.replace(c, fixed_at=fixed[c.index])
        if c.index in reverts:
            c = dataclasses.replace(c, reverts=reverts[c.index])
        out.append(c)
    return episodes, out


def _back(level: float, base: float, up: bool, size: float) -> bool:
    """Is ``level`` back to within half a change of ``size`` from ``base``, or beyond it?"""
    return ((level - base) if up else (base - level)) <= 0.5 * size


def _eras(y, bt: BuildTable, bounds, back, positive: bool) -> list[Era]:
    eras = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        seg = y[a:b]
        lv = float(np.median(seg))
        dev = np.abs(seg - lv)
        cv = float(_MAD * np.median(dev))
        multi = bt.counts[a:b] > 1
        within = float(_MAD * np.median(bt.spread[a:b][multi])) if multi.any() else None
        spikes = float(np.mean(dev > 5 * cv)) if cv > 0 else float(np.mean(dev > 0))
        eras.append(Era(start_build=bt.ids[a], end_build=bt.ids[b - 1], builds=int(b - a),
                        runs=int(bt.counts[a:b].sum()), level=float(back(lv)),
                        cv=cv, within_build_cv=within, spikes=spikes, start_index=int(a)))
    return eras


def _latest(eras: list[Era], bt: BuildTable, hib: bool, min_builds: int) -> Latest | None:
    if not eras:
        return None
    last = eras[-1]
    # the best era must be sustained: a short dip of a few builds is no baseline to compare with
    pool = [e for e in eras if e.builds >= sustained_builds(min_builds, len(bt))] or [last]
    best = max(pool, key=lambda e: e.level) if hib else min(pool, key=lambda e: e.level)
    return Latest(build=bt.ids[-1], since_build=last.start_build, level=last.level, best_build=best.start_build,
                  best_until_build=best.end_build, best_level=best.level,
                  vs_best_ratio=last.level / best.level if best.level else float("nan"))


def _with_suspects(changes: list[Change], metadata) -> list[Change]:
    """Build metadata that changed with each regression (:func:`bandkit.postmortem.rank_suspects`)."""
    import dataclasses

    from ..postmortem.suspects import rank_suspects

    n = len(metadata)
    out = []
    for c in changes:
        if c.kind != "regression":
            out.append(c)
            continue
        aff = np.arange(n) >= c.index
        sus = rank_suspects(metadata.reset_index(drop=True), aff, step_index=c.index, max_suspects=3,
                            slowdown=c.ratio)  # (the magnitude gate weighs a suspect against the regression)
        out.append(dataclasses.replace(c, suspects=tuple(s.to_dict() for s in sus)))
    return out


def trace_metadata(trace, bt: BuildTable):
    """Per-build metadata of a history trace (first row of each build), or None without any."""
    info = (trace.meta.extra or {}).get("history") or {}
    cols = [c for c in info.get("metadata_columns", []) if c in trace.data.columns]
    if not cols:
        return None
    return trace.data[cols].iloc[bt.first_row].reset_index(drop=True)


def analyse_trace(trace, **params) -> HistoryResult:
    """:func:`analyse_history` of a history Trace (``kind == "history"``)."""
    from .builds import trace_build_table

    bt = trace_build_table(trace)
    info = (trace.meta.extra or {}).get("history") or {}
    return analyse_history(bt, higher_is_better=bool(trace.meta.extra.get("higher_is_better", False)),
                           value_unit=trace.meta.value_unit, time_origin=info.get("time_origin"),
                           metadata=trace_metadata(trace, bt), **params)


def analyse_values(values, *, builds=None, run=None, higher_is_better: bool = False, value_unit: str = "",
                   **params) -> HistoryResult:
    """Analyse plain arrays: ``values`` with their build number (``run``, 1-based) or one value per build."""
    v = np.asarray(values, dtype=np.float64)
    r = np.arange(1, v.size + 1) if run is None else np.asarray(run, dtype=np.int64)
    order = np.argsort(r, kind="stable")
    r, v = r[order], v[order]
    codes = np.unique(r, return_inverse=True)[1] + 1
    ids = np.asarray(builds)[order] if builds is not None else r
    return analyse_history(build_table(codes, v, ids), higher_is_better=higher_is_better, value_unit=value_unit,
                           **params)
