"""Frozen results of band detection (JSON-ready through ``to_dict``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._json import jsonable as _num
from ..display import DisplayMixin
from .dwell import EXCLUDED, INTERMEDIATE, OUTLIER

#: Longest list of degraded episodes written by :meth:`BandResult.to_dict`.
MAX_EPISODES_JSON = 50


@dataclass(frozen=True)
class Band:
    """One performance level.

    Units: ``level``/``spread``/``lo``/``hi`` in the units of the values (robust centre = median,
    robust sd = 1.4826 x MAD of the band's samples; [lo, hi] the value range that is assigned to
    it); ``share`` of analysed samples; ``share_time`` of the time covered by episodes;
    dwell statistics over the band's episodes, in seconds (None without times) and samples.
    ``overlap``: estimated share of this band's samples that fall in a neighbour band's range
    (Gaussian at ``level`` with sd ``spread``, boundaries half-way between adjacent ranges). Above
    a few per cent, labels flip on noise and the dwell times are lower bounds.
    """

    index: int
    level: float
    spread: float
    lo: float
    hi: float
    count: int
    share: float
    share_time: float | None
    episodes: int
    dwell_median_s: float | None
    dwell_p95_s: float | None
    dwell_max_s: float | None
    dwell_median_samples: float | None
    dwell_p95_samples: float | None
    dwell_max_samples: int | None
    overlap: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": int(self.index),
            "level": _num(self.level),
            "spread": _num(self.spread),
            "lo": _num(self.lo),
            "hi": _num(self.hi),
            "count": int(self.count),
            "share": _num(self.share),
            "share_time": _num(self.share_time),
            "episodes": int(self.episodes),
            "dwell_median_s": _num(self.dwell_median_s),
            "dwell_p95_s": _num(self.dwell_p95_s),
            "dwell_max_s": _num(self.dwell_max_s),
            "dwell_median_samples": _num(self.dwell_median_samples),
            "dwell_p95_samples": _num(self.dwell_p95_samples),
            "dwell_max_samples": _num(self.dwell_max_samples),
            "overlap": _num(self.overlap),
        }


@dataclass(frozen=True)
class DegradedEpisode:
    """A stretch in a band below the best one: start (s, or sample index when there are no
    times), duration (s, or None), first sample index, length in samples, band index and level."""

    start_s: float | None
    duration_s: float | None
    start_index: int
    samples: int
    band: int
    level: float

    def to_dict(self) -> dict[str, Any]:
        return {"start_s": _num(self.start_s), "duration_s": _num(self.duration_s),
                "start_index": int(self.start_index), "samples": int(self.samples),
                "band": int(self.band), "level": _num(self.level)}


@dataclass(frozen=True)
class BandResult(DisplayMixin):
    """Bands of one series.

    ``labels`` (per input sample, int8): band index (bands ascending by level), or
    -1 intermediate, -2 outlier, -3 excluded (non-finite / stall-adjacent partial quantum).
    ``transition_counts[i][j]``: jumps from an episode in band i to the next episode in band j;
    ``transition_probabilities``: the same, row-normalised (rows without jumps are all 0).
    ``components``/``bic``: the mixture behind the bands (diagnostics).
    ``higher_is_better`` says which bands count as degraded (below / above the best band).
    ``values`` / ``times``: the series the bands were found in (``labels`` align with it; run means
    for ``per_run``), times in seconds or None.
    """

    bands: tuple[Band, ...]
    labels: np.ndarray = field(repr=False)
    n_samples: int
    n_analysed: int
    intermediate: int
    outliers: int
    excluded: int
    transition_counts: np.ndarray = field(repr=False)
    degraded_episodes: tuple[DegradedEpisode, ...] = field(repr=False)
    higher_is_better: bool
    has_times: bool
    method: str
    components: tuple[dict, ...] = field(repr=False, default=())
    bic: tuple[tuple[int, float], ...] = field(repr=False, default=())
    values: np.ndarray | None = field(repr=False, compare=False, default=None)
    times: np.ndarray | None = field(repr=False, compare=False, default=None)

    @property
    def n_bands(self) -> int:
        return len(self.bands)

    @property
    def levels(self) -> np.ndarray:
        return np.array([b.level for b in self.bands], dtype=np.float64)

    @property
    def transition_probabilities(self) -> np.ndarray:
        c = self.transition_counts.astype(np.float64)
        s = c.sum(axis=1, keepdims=True)
        return np.divide(c, s, out=np.zeros_like(c), where=s > 0)

    @property
    def best_band(self) -> int | None:
        if not self.bands:
            return None
        return len(self.bands) - 1 if self.higher_is_better else 0

    def to_dict(self, max_episodes: int = MAX_EPISODES_JSON) -> dict[str, Any]:
        """JSON-ready dict; the first ``max_episodes`` degraded episodes in time order
        (``degraded_episodes_total`` gives how many there are, ``degraded_time_s`` their total time)."""
        n = max(self.n_analysed, 1)
        return {
            "n_bands": self.n_bands,
            "bands": [b.to_dict() for b in self.bands],
            "band_transitions": {
                "levels": [_num(b.level) for b in self.bands],
                "counts": [[int(v) for v in row] for row in self.transition_counts],
                "probabilities": [[_num(v) for v in row] for row in self.transition_probabilities],
            },
            "intermediate": {"count": int(self.intermediate), "share": _num(self.intermediate / n)},
            "outliers": {"count": int(self.outliers), "share": _num(self.outliers / n)},
            "excluded": int(self.excluded),
            "n_samples": int(self.n_samples),
            "n_analysed": int(self.n_analysed),
            "degraded_episodes": [e.to_dict() for e in self.degraded_episodes[:max_episodes]],
            "degraded_episodes_total": len(self.degraded_episodes),
            "degraded_time_s": _num(sum(e.duration_s for e in self.degraded_episodes
                                        if e.duration_s is not None)) if self.has_times else None,
            "higher_is_better": bool(self.higher_is_better),
            "method": self.method,
        }

    def band_of(self, level: float) -> Band | None:
        """The band whose level is nearest to ``level``."""
        if not self.bands:
            return None
        return min(self.bands, key=lambda b: abs(b.level - level))


__all__ = ["Band", "BandResult", "DegradedEpisode", "INTERMEDIATE", "OUTLIER", "EXCLUDED"]
