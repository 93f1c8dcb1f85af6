"""Frozen results of a benchmark post-mortem (JSON-ready through ``to_dict``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._json import jsonable
from ..display import DisplayMixin
from .classify import NOT_CLASSIFIED
from .suspects import Suspect



@dataclass(frozen=True)
class Step:
    """A step between runs: ``run`` is the 1-based number of the first run after it;
    ``before`` / ``after``: mean of the per-run means of the blocks on each side (value unit);
    ``ratio = after / before`` with a 95 % CI (long-run standard error of the block means) and the
    p-value of the change (location searched; see :func:`.classify.change_p`); ``run_ci_low`` /
    ``run_ci_high``: 95 % bootstrap interval of the location (run numbers)."""

    run: int
    before: float
    after: float
    ratio: float
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    runs_before: int = 0
    runs_after: int = 0
    run_ci_low: int | None = None
    run_ci_high: int | None = None

    @property
    def factor(self) -> float:
        """Size of the step as a factor >= 1 (max / min of before and after)."""
        return max(self.ratio, 1.0 / self.ratio) if self.ratio > 0 else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return jsonable({"run": int(self.run), "before": self.before, "after": self.after, "ratio": self.ratio,
                      "factor": self.factor, "ci_low": self.ci_low, "ci_high": self.ci_high,
                      "p_value": self.p_value, "runs_before": self.runs_before, "runs_after": self.runs_after,
                      "run_ci_low": self.run_ci_low, "run_ci_high": self.run_ci_high})


@dataclass(frozen=True)
class Episode:
    """A step and its return: runs ``start_run`` .. ``end_run`` (1-based, inclusive) sat at
    ``level`` (mean of their run means) while the runs around them sat at ``baseline``;
    ``ratio = level / baseline`` with a 95 % CI; ``p_value``: the larger of the p-values of its
    two edges (both must be significant). ``stages``: an episode that went in stages (two or more
    consecutive levels on one side of the baseline), each stage as (start_run, end_run, level, ratio to
    the baseline, n_runs); empty for a one-level episode."""

    start_run: int
    end_run: int
    level: float
    baseline: float
    ratio: float
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    n_runs: int = 0
    stages: tuple[tuple[int, int, float, float, int], ...] = ()

    @property
    def factor(self) -> float:
        return max(self.ratio, 1.0 / self.ratio) if self.ratio > 0 else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return jsonable({"start_run": int(self.start_run), "end_run": int(self.end_run), "level": self.level,
                      "baseline": self.baseline, "ratio": self.ratio, "factor": self.factor,
                      "ci_low": self.ci_low, "ci_high": self.ci_high, "p_value": self.p_value,
                      "n_runs": int(self.n_runs),
                      "stages": [{"start_run": a, "end_run": b, "level": lv, "ratio": r, "n_runs": k}
                                 for a, b, lv, r, k in self.stages]})


@dataclass(frozen=True)
class RunBand:
    """A level the per-run means sit at: ``level`` = mean of its runs' means; ``runs`` 1-based;
    ``p_value``: test of its level against the most populated band's (long-run standard error;
    None for that band)."""

    level: float
    share: float
    runs: tuple[int, ...]
    p_value: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return jsonable({"level": self.level, "share": self.share, "n_runs": len(self.runs), "runs": list(self.runs),
                      "p_value": self.p_value})


@dataclass(frozen=True)
class PostMortem(DisplayMixin):
    """Post-mortem of one benchmark's run sequence.

    ``verdict``: one of :data:`bandkit.postmortem.classify.VERDICTS`. ``run_numbers`` /
    ``run_means``: the per-run series analysed (means of each run's values). ``affected_runs``:
    the runs the suspects were ranked against (after the largest step, or outside the most
    populated band, or the outliers, or in the episodes). ``reference`` says which. ``slow_runs``:
    runs in a band or episode slower than the most populated band, plus outlier runs slower than
    it by ``min_ratio`` (the grouping pooled across benchmarks by :func:`summarize`).
    ``episodes``: steps that came back (:class:`Episode`). ``gate``: the noise model and the
    decision thresholds the verdict passed (see :mod:`bandkit.postmortem.classify`).
    ``negligible_suspects``: suspects that pass the significance gate but whose difference is too small
    to matter (:mod:`bandkit.postmortem.magnitude`; ``evidence["negligible"]``): data, never the verdict's.
    ``run_table``: the :class:`~bandkit.postmortem.runs.RunTable` analysed (its metadata: :attr:`metadata`).
    """

    name: str
    unit: str
    verdict: str
    n_runs: int
    n_values: int
    run_numbers: np.ndarray = field(repr=False)
    run_means: np.ndarray = field(repr=False)
    labels: np.ndarray = field(repr=False)
    steps: tuple[Step, ...] = ()
    bands: tuple[RunBand, ...] = ()
    outlier_runs: tuple[int, ...] = ()
    warmup_runs: tuple[int, ...] = ()
    trend: dict | None = None
    affected_runs: tuple[int, ...] = ()
    reference: str | None = None
    suspects: tuple[Suspect, ...] = ()
    sigma: float = 0.0  # relative noise per run (0.0, not estimated, for the NOT_CLASSIFIED verdicts)
    summary_only: bool = False
    note: str | None = None
    slow_runs: tuple[int, ...] = ()
    run_table: Any = field(default=None, repr=False, compare=False)
    episodes: tuple[Episode, ...] = ()
    gate: dict = field(default_factory=dict)
    negligible_suspects: tuple[Suspect, ...] = ()

    @property
    def metadata(self):
        """Per-run metadata (DataFrame, one row per run, in the order of ``run_numbers``), or None."""
        rt = self.run_table
        return None if rt is None else rt.metadata

    @property
    def metadata_columns(self) -> dict[str, Any] | None:
        """:attr:`metadata`'s columns as arrays when the run table was built from arrays, else None."""
        return getattr(self.run_table, "metadata_columns", None)

    @property
    def stable(self) -> bool:
        return self.verdict == "stable"

    def to_dict(self) -> dict[str, Any]:
        return jsonable({
            "name": self.name, "runs": int(self.n_runs), "values": int(self.n_values), "unit": self.unit,
            "verdict": self.verdict, "steps": [s.to_dict() for s in self.steps],
            "bands": [b.to_dict() for b in self.bands], "outlier_runs": list(self.outlier_runs),
            "warmup_runs": list(self.warmup_runs), "trend": self.trend,
            "affected_runs": list(self.affected_runs), "reference": self.reference,
            "slow_runs": list(self.slow_runs), "episodes": [e.to_dict() for e in self.episodes],
            "suspects": [s.to_dict() for s in self.suspects],
            "negligible_suspects": [s.to_dict() for s in self.negligible_suspects], "noise_rel": self.sigma if self.verdict not in NOT_CLASSIFIED else None,
            "summary_only": self.summary_only, "note": self.note,
            "aggregation": "per-run means", "gate": self.gate,
        })
