"""The steps a person sees, from the significant changes of a segmentation.

A detector's change list describes its own segmentation, and on real traces two things make that list read
wrong when it is shown as "before → after": a switch that takes a quantum or two (a transitional value that
straddles it: 9.53 M, 8.39 M, 9.53 M … after 6.19 M) becomes two changes, one of them into a "level" nobody sees
(6.19 M → 8.96 M, the median of the 2-value transition); and a 1-2 value dip cut out by the search leaves a
change whose "before" is the dip. :func:`consolidate` turns the changes into steps between *levels held for at
least* ``brief`` *values*:

- changes separated by fewer than ``brief`` values are one step (a transition): ``index`` is where the series
  leaves the old level, ``end_index`` where it settles at the new one;
- a step whose two levels are closer than ``min_relative`` is no step (a brief excursion, or a change that was
  only large relative to a neighbouring transition); it is dropped and the levels around it recomputed, the
  smallest first, until every step is ``min_relative`` or more.

Levels are recomputed over the held values only (the detector's estimator: mean or median), so transitional
values never enter a level. Significance is that of the weakest change of a step (largest p and q); the
location interval runs from its first change's lower end to its last change's upper end.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BRIEF = 3  # values: a shorter stretch between two changes is a transition or an excursion, not a level


@dataclass(frozen=True)
class Step:
    """One step between two held levels (indices in the analysed series)."""

    index: int          # first value after the old level
    end_index: int      # first value of the new level (== index for a plain change)
    before: float
    after: float
    ratio: float | None
    effect: float       # |after - before| in per-value noise SDs
    p_value: float | None
    q_value: float | None
    ci_low: int | None
    ci_high: int | None
    ci_level: float | None
    time_s: float | None
    ci_time_low: float | None
    ci_time_high: float | None
    changes: int        # detector changes merged into this step


def _level(v: np.ndarray, robust: bool) -> float:
    return float(np.median(v)) if robust else float(v.mean())


def consolidate(x, changes, *, robust: bool, min_relative: float, sigma: float | None,
                brief: int = BRIEF) -> tuple[list[Step], list[float], list[int]]:
    """Steps from ``changes`` (ChangePoint objects of a segmentation of ``x``, sorted by index).

    ``robust``: levels are medians (else means); ``sigma``: the per-value noise SD the effects are in (None:
    taken from the changes' own effect sizes). Returns (steps, levels, lengths): the held levels between the
    steps and the number of values each holds (transitional values excluded)."""
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    # transitions: neighbouring changes less than `brief` values apart are one step (one pass: merging two
    # groups leaves the gaps to their other neighbours as they were; dropping a step below only widens them)
    groups: list[list] = []
    for c in sorted(changes, key=lambda c: c.index):
        if groups and c.index - groups[-1][-1].index < brief:
            groups[-1].append(c)
        else:
            groups.append([c])
    if sigma is None:
        sig = [abs(c.delta) / c.effect for c in changes
               if c.effect and np.isfinite(c.effect) and c.effect > 0 and c.delta]
        sigma = float(np.median(sig)) if sig else None
    if not groups:
        return [], [_level(x, robust)] if n else [], [n] if n else []

    while True:
        starts = [0] + [g[-1].index for g in groups]
        ends = [g[0].index for g in groups] + [n]
        levels = [_level(x[a:b], robust) if b > a else float("nan") for a, b in zip(starts, ends)]
        gaps = [abs(a / b - 1.0) if b != 0 else float("inf") for b, a in zip(levels[:-1], levels[1:])]
        small = [j for j, r in enumerate(gaps) if not r >= min_relative]
        if not small:
            break
        groups.pop(min(small, key=lambda j: (gaps[j] if gaps[j] == gaps[j] else -1.0)))

    steps = []
    for j, g in enumerate(groups):
        b, a = levels[j], levels[j + 1]
        first, last = g[0], g[-1]
        ps = [c.p_value for c in g if c.p_value is not None]
        qs = [c.q_value for c in g if c.q_value is not None]
        effect = abs(a - b) / sigma if sigma else float("inf")
        steps.append(Step(
            index=int(first.index), end_index=int(last.index), before=b, after=a,
            ratio=(a / b) if b != 0 else None, effect=effect,
            p_value=max(ps) if ps else None, q_value=max(qs) if qs else None,
            ci_low=first.ci_low, ci_high=last.ci_high, ci_level=first.ci_level, time_s=first.time_s,
            ci_time_low=first.ci_time_low, ci_time_high=last.ci_time_high, changes=len(g)))
    lengths = [b - a for a, b in zip(starts, ends)]
    return steps, levels, lengths
