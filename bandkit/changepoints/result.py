"""Result objects of change-point detection (frozen; ``to_dict()`` gives JSON-ready plain Python)."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from .._json import jsonable as _clean
from ..display import DisplayMixin


def _asdict(obj) -> dict[str, Any]:
    return {f.name: _clean(getattr(obj, f.name)) for f in fields(obj)}


@dataclass(frozen=True)
class Segment:
    """A stretch ``values[start:end]`` (end exclusive) between two change points.

    ``level`` is the level the detector used: ``mean`` for the L2 cost, ``median`` for the robust
    cost. ``spread`` is the robust standard deviation (1.4826 * MAD) of the values; ``std`` the
    classical one. ``start_time``/``end_time`` (times of the first and last value) when times
    were given, else None.
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

    ``before``/``after``: levels of the adjacent segments (same estimator as Segment.level);
    ``delta = after - before``; ``ratio = after / before`` (None if before is 0);
    ``effect = |delta| / noise scale`` (in noise standard deviations);
    ``ci_low``/``ci_high``: confidence interval (inclusive indices) for the location at level
    ``ci_level`` (residual bootstrap); ``p_value``: local CUSUM test of "no change between the
    neighbouring change points" (sup of a Brownian bridge, accounts for the search over the
    location within that stretch, not for the choice of the stretch); ``time_s`` and
    ``ci_time_low``/``ci_time_high`` when times were given.
    """

    index: int
    before: float
    after: float
    delta: float
    ratio: float | None
    effect: float
    ci_low: int
    ci_high: int
    ci_level: float
    p_value: float
    time_s: float | None = None
    ci_time_low: float | None = None
    ci_time_high: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return _asdict(self)


@dataclass(frozen=True)
class ChangePointResult(DisplayMixin):
    """Optimal segmentation of a series under a penalised cost.

    ``changepoints`` and ``segments`` are tuples (len(segments) == len(changepoints) + 1).
    ``penalty`` is in units of the search series (values standardised by ``noise_scale``, or
    locally winsorised values for the robust cost); ``penalty_rule`` says how it was chosen.
    ``noise_scale`` is the noise standard deviation used, in value units.
    """

    n: int
    cost: str
    penalty: float
    penalty_rule: str
    noise_scale: float
    min_size: int
    changepoints: tuple[ChangePoint, ...]
    segments: tuple[Segment, ...]
    method: str = "fpop"
    info: dict = field(default_factory=dict)

    @property
    def indices(self) -> np.ndarray:
        """Change-point indices (int64 array)."""
        return np.array([c.index for c in self.changepoints], dtype=np.int64)

    def fitted(self) -> np.ndarray:
        """The piecewise-constant fit: each value replaced by its segment's level."""
        out = np.empty(self.n)
        for s in self.segments:
            out[s.start:s.end] = s.level
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "cost": self.cost,
            "penalty": _clean(self.penalty),
            "penalty_rule": self.penalty_rule,
            "noise_scale": _clean(self.noise_scale),
            "min_size": self.min_size,
            "method": self.method,
            "changepoints": [c.to_dict() for c in self.changepoints],
            "segments": [s.to_dict() for s in self.segments],
            "info": _clean(dict(self.info)),
        }
