"""Results of a history analysis (frozen dataclasses; ``to_dict()`` gives the JSON contract).

Levels are in the trace's value unit; ratios are ``after / before`` (so > 1 is slower for times,
faster for throughputs: ``higher_is_better`` says which); builds are the ids as in the file.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np


def _plain(v: Any) -> Any:
    """JSON-ready plain Python (numpy arrays and scalars, NaN -> None), see changepoints' ``_clean``."""
    from ..changepoints.result import _clean

    return _clean(v.tolist() if isinstance(v, np.ndarray) else v)


class _Dict:
    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class Change(_Dict):
    """A level change located at ``build`` (the first build at the new level).

    ``build_ci``: 95 % interval of the location (first builds, inclusive); ``before``/``after``:
    median build levels of the adjacent eras; ``ratio_ci``: 95 % interval of the ratio; ``p_value``:
    sup-CUSUM test of "no change" over the two adjacent eras (standardised by the long-run noise);
    ``kind``: "regression" or "improvement"; ``fixed_at``: for a change later undone, the build where
    the level returned (see episodes), or since which it has stayed back (or beyond) to the last build
    (no clean episode: it went elsewhere first); None while the change is in force; ``reverts``: for a change that undoes an earlier one, that
    episode's start build; ``index``: 0-based build position; ``effect``: |log ratio| in noise SDs;
    ``builds_before`` / ``builds_after``: builds in the adjacent eras; ``date`` of the build (ISO
    8601) when the file has times; ``suspects``: build metadata that changed with it.
    """

    build: Any
    build_ci: tuple
    before: float
    after: float
    ratio: float
    ratio_ci: tuple
    p_value: float
    kind: str
    index: int
    builds_before: int
    builds_after: int
    effect: float
    date: str | None = None
    fixed_at: Any = None
    reverts: Any = None
    suspects: tuple = ()

    @property
    def open(self) -> bool:
        """A regression still in force: not fixed later, and not itself the end of an earlier
        improvement's episode."""
        return self.kind == "regression" and self.fixed_at is None and self.reverts is None


@dataclass(frozen=True)
class Episode(_Dict):
    """A change later undone: from ``start_build`` until ``end_build`` (the first build back at the
    old level); ``kind`` "regression" (fixed later) or "improvement" (lost later); ``ratio`` =
    level during (the farthest era) / level before; ``builds``: builds in the episode."""

    start_build: Any
    end_build: Any
    kind: str
    ratio: float
    level_before: float
    level_during: float
    builds: int
    start_index: int
    end_index: int


@dataclass(frozen=True)
class Drift(_Dict):
    """A gradual change: a staircase of same-direction changes that a straight line fits better
    (BIC); ``ratio`` = level after / level before, ``per_build`` = mean relative change per build."""

    start_build: Any
    end_build: Any
    ratio: float
    per_build: float
    kind: str
    start_index: int
    end_index: int


@dataclass(frozen=True)
class Era(_Dict):
    """A stretch between reported changes: ``level`` (median build level), ``cv`` (robust relative
    build-to-build noise, 1.4826 MAD of log levels), ``within_build_cv`` (median relative spread of
    the measurements of one build, 1.4826 x MAD / median; None with one measurement per build),
    ``spikes`` (share of builds farther than 5 cv from the level)."""

    start_build: Any
    end_build: Any
    builds: int
    runs: int
    level: float
    cv: float
    within_build_cv: float | None
    spikes: float
    start_index: int


@dataclass(frozen=True)
class Latest(_Dict):
    """The state at the last build: ``level`` of the last era (since ``since_build``), and
    ``vs_best_ratio`` = level / level of the best era (``best_build`` .. ``best_until_build``)."""

    build: Any
    since_build: Any
    level: float
    best_build: Any
    best_until_build: Any
    best_level: float
    vs_best_ratio: float


@dataclass(frozen=True)
class HistoryResult:
    """What :func:`bandkit.history.analyse_history` found in one history.

    ``regressions`` / ``improvements``: significant level changes (:class:`Change`); ``episodes``:
    regressions later fixed; ``drifts``; ``eras``: noise per era; ``latest``; ``params``: the gate
    (alpha, min_relative, min_builds) and the detector's settings; ``levels``: per-build medians and
    ``fitted``: per-build era levels (for plots and sparklines).
    """

    builds: int
    runs: int
    value_unit: str
    higher_is_better: bool
    first_build: Any
    last_build: Any
    regressions: tuple[Change, ...]
    improvements: tuple[Change, ...]
    episodes: tuple[Episode, ...]
    drifts: tuple[Drift, ...]
    eras: tuple[Era, ...]
    latest: Latest | None
    params: dict = field(default_factory=dict)
    #: significant changes smaller than the reporting threshold (``min_relative``), looked for only
    #: when no change is reported: {"build", "ratio", "p_value"}
    small_changes: tuple[dict, ...] = ()
    #: 5-95 % range of the running median of the build levels (window ``level_window`` builds):
    #: how far the level moves without a step; None for fewer than 3 windows of builds
    level_range: tuple[float, float] | None = None
    build_ids: np.ndarray | None = field(default=None, repr=False, compare=False)
    levels: np.ndarray | None = field(default=None, repr=False, compare=False)
    fitted: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def open_regressions(self) -> tuple[Change, ...]:
        """Regressions still in force (see :attr:`Change.open`)."""
        return tuple(r for r in self.regressions if r.open)

    def to_dict(self) -> dict[str, Any]:
        return {
            "builds": self.builds, "runs": self.runs, "value_unit": self.value_unit,
            "higher_is_better": self.higher_is_better, "first_build": _plain(self.first_build),
            "last_build": _plain(self.last_build),
            "regressions": [c.to_dict() for c in self.regressions],
            "improvements": [c.to_dict() for c in self.improvements],
            "episodes": [e.to_dict() for e in self.episodes],
            "drifts": [d.to_dict() for d in self.drifts],
            "eras": [e.to_dict() for e in self.eras],
            "latest": self.latest.to_dict() if self.latest else None,
            "small_changes": [_plain(c) for c in self.small_changes],
            "level_range": list(self.level_range) if self.level_range else None,
            "params": _plain(self.params),
        }
