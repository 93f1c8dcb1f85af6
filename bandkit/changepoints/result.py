"""Result objects of change-point detection (frozen; ``to_dict()`` gives JSON-ready plain Python)."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from .._json import jsonable as _clean
from ..display import DisplayMixin


def _asdict(obj) -> dict[str, Any]:
    return {f.name: _clean(getattr(obj, f.name)) for f in fields(obj) if not f.name.startswith("_")}


@dataclass(frozen=True)
class Segment:
    """A stretch ``values[start:end]`` (end exclusive) between two reported change points.

    ``level`` is the level the detector used: ``mean`` for the L2 cost, ``median`` for the robust cost.
    ``spread`` is the robust standard deviation (1.4826 * MAD) of the values; ``std`` the classical one.
    ``start_time``/``end_time`` (times of the first and last value) when times were given, else None.
    """

    start: int
    end: int
    n: int
    mean: float
    median: float
    std: float
    spread: float
    level: float
    start_time: float | None = None
    end_time: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return _asdict(self)


@dataclass(frozen=True)
class ChangePoint:
    """A change of level: ``index`` is where the new segment starts (0 < index < n).

    ``before``/``after``: levels of the adjacent segments (same estimator as Segment.level); ``delta = after -
    before``; ``ratio = after / before`` (None if before is 0); ``effect = |delta| / sigma_marg`` (the effect
    size in per-value noise SDs); ``statistic``: squared two-sample z of the adjacent segments in long-run noise
    units (the path strength, see :mod:`bandkit.changepoints.significance`); ``p_value``: family-wise p-value
    (probability that stationary noise of this length gives a change this strong anywhere); ``q_value``: its
    false-discovery-rate adjustment along the path (a change is reported when ``q_value <= alpha``);
    ``ci_low``/``ci_high``: confidence interval (inclusive indices) for the location at level ``ci_level``
    (None when intervals were not asked for); ``time_s``, ``ci_time_low``/``ci_time_high`` when times were given.
    """

    index: int
    before: float
    after: float
    delta: float
    ratio: float | None
    effect: float
    ci_low: int | None
    ci_high: int | None
    ci_level: float | None
    p_value: float
    time_s: float | None = None
    ci_time_low: float | None = None
    ci_time_high: float | None = None
    q_value: float | None = None
    statistic: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return _asdict(self)


@dataclass(frozen=True)
class Candidate:
    """A change of the full penalised segmentation, whether reported or not: ``index``, path ``statistic``,
    ``p_value``, ``q_value`` and ``rank`` (1 = strongest). The reported changes at level alpha are exactly the
    candidates with ``q_value <= alpha``."""

    index: int
    statistic: float
    p_value: float
    q_value: float
    rank: int

    def to_dict(self) -> dict[str, Any]:
        return _asdict(self)


@dataclass(frozen=True)
class ChangePointResult(DisplayMixin):
    """Significant level changes of a series, with the full segmentation path.

    ``changepoints`` are the reported changes (``q_value <= alpha``; all candidates when ``alpha`` is None) and
    ``segments`` the segments between them (len(segments) == len(changepoints) + 1). ``candidates``: every
    change of the penalised search with its statistic, p- and q-value (the full path). ``segments`` and
    ``candidates`` are built on first access (their medians and objects cost more than the detection of
    thousands of changes). ``penalty`` is the search penalty in units of the standardised search series;
    ``penalty_rule`` says how it was chosen; ``noise_scale`` is the unit of the statistics (long-run noise SD,
    value units; winsorised values for the robust cost). ``info`` holds the noise model, why the cost was
    chosen (``cost_choice``) and counts. ``at_level(alpha)`` gives the result at another level without a new
    search; ``with_ci(level)`` adds or changes location intervals.
    """

    n: int
    cost: str
    penalty: float
    penalty_rule: str
    noise_scale: float
    min_size: int
    changepoints: tuple[ChangePoint, ...]
    method: str = "fpop"
    info: dict = field(default_factory=dict)
    alpha: float | None = None
    _segments: tuple[Segment, ...] | None = field(default=None, repr=False, compare=False)
    _candidates: tuple[Candidate, ...] | None = field(default=None, repr=False, compare=False)
    _fit: Any = field(default=None, repr=False, compare=False)

    @property
    def segments(self) -> tuple[Segment, ...]:
        """Segments between the reported changes (mean, SD, median, robust spread, level)."""
        if self._segments is None:
            object.__setattr__(self, "_segments", self._fit.segments(self.indices))
        return self._segments

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        """Every change of the search, strongest first, with statistic, p- and q-value (the full path)."""
        if self._candidates is None:
            object.__setattr__(self, "_candidates", self._fit.candidates())
        return self._candidates

    @property
    def indices(self) -> np.ndarray:
        """Reported change-point indices (int64 array)."""
        return np.array([c.index for c in self.changepoints], dtype=np.int64)

    @property
    def candidate_indices(self) -> np.ndarray:
        """Indices of all candidates of the search (sorted)."""
        return np.array(sorted(c.index for c in self.candidates), dtype=np.int64)

    def fitted(self) -> np.ndarray:
        """The piecewise-constant fit: each value replaced by its segment's level."""
        out = np.empty(self.n)
        for s in self.segments:
            out[s.start:s.end] = s.level
        return out

    def at_level(self, alpha: float | None) -> "ChangePointResult":
        """The same analysis reported at significance level ``alpha`` (None: every candidate)."""
        if self._fit is None or self._fit.cps is None:
            return self
        return self._fit.report(alpha, self.info.get("ci_level_asked"))

    def with_ci(self, level: float = 0.95) -> "ChangePointResult":
        """The same result with location intervals at ``level`` for the reported changes."""
        if self._fit is None or self._fit.cps is None:
            return self
        return self._fit.report(self.alpha, level)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "cost": self.cost,
            "penalty": _clean(self.penalty),
            "penalty_rule": self.penalty_rule,
            "noise_scale": _clean(self.noise_scale),
            "min_size": self.min_size,
            "method": self.method,
            "alpha": _clean(self.alpha),
            "changepoints": [c.to_dict() for c in self.changepoints],
            "segments": [s.to_dict() for s in self.segments],
            "candidates": [c.to_dict() for c in self.candidates],
            "info": _clean(dict(self.info)),
        }
