"""Across benchmarks: counts of verdicts, and the metadata that marks the affected runs of all
benchmarks together (pooled: every run of every analysed benchmark, affected or not)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._json import jsonable
from .suspects import Suspect, rank_suspects

#: Verdicts that count as "affected".
AFFECTED_VERDICTS = ("step", "episode", "bimodal", "bands", "trend", "warmup", "outliers")


@dataclass(frozen=True)
class CrossSummary:
    """``counts``: verdict -> number of benchmarks; ``affected``: names of benchmarks whose verdict
    is in :data:`AFFECTED_VERDICTS` (outliers and warm-up included); ``shared_suspects``: metadata
    ranked on the pooled runs (the slow runs of every affected benchmark -
    see ``PostMortem.slow_runs`` - vs all other runs of all benchmarks);
    ``pooled_runs`` / ``pooled_affected``: how many runs that ranking saw."""

    n_benchmarks: int
    counts: dict[str, int]
    affected: tuple[str, ...]
    shared_suspects: tuple[Suspect, ...] = ()
    pooled_runs: int = 0
    pooled_affected: int = 0
    top_suspect_counts: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return jsonable({"n_benchmarks": self.n_benchmarks, "counts": dict(self.counts),
                      "affected": list(self.affected),
                      "shared_suspects": [s.to_dict() for s in self.shared_suspects],
                      "pooled_runs": self.pooled_runs, "pooled_affected": self.pooled_affected,
                      "top_suspect_counts": dict(self.top_suspect_counts)})


def summarize(postmortems: Sequence[Any], *, include_outliers: bool = True, max_suspects: int = 5) -> CrossSummary:
    """Summarise post-mortems (of one result file, normally). Pooled suspects use the steps / bands
    of every affected benchmark (the slow outlier runs of outlier-only benchmarks too, unless
    ``include_outliers`` is False)."""
    counts = Counter(pm.verdict for pm in postmortems)
    affected = tuple(pm.name for pm in postmortems if pm.verdict in AFFECTED_VERDICTS)
    frames, labels = [], []
    top = Counter()
    pooled_verdicts = set(AFFECTED_VERDICTS) - ({"outliers"} if not include_outliers else set())
    for pm in postmortems:
        if pm.metadata is None or pm.n_runs == 0 or pm.verdict in ("no_runs", "too_few_runs"):
            continue
        aff = np.isin(pm.run_numbers, np.asarray(pm.slow_runs, dtype=np.int64)) \
            if pm.verdict in pooled_verdicts else np.zeros(pm.n_runs, dtype=bool)
        frames.append(pm.metadata.reset_index(drop=True))
        labels.append(aff)
        if pm.suspects and pm.verdict in AFFECTED_VERDICTS:
            top[pm.suspects[0].metadata] += 1
    shared: list[Suspect] = []
    n_pool = n_aff = 0
    if frames:
        md = pd.concat(frames, ignore_index=True, sort=False)
        lab = np.concatenate(labels)
        n_pool, n_aff = len(lab), int(lab.sum())
        # only columns every pooled benchmark has (a missing column would mark benchmarks, not runs)
        cols = [c for c in md.columns if md[c].notna().mean() > 0.9]
        if n_aff and n_aff < n_pool:
            shared = rank_suspects(md[cols], lab, max_suspects=max_suspects, lags=(0,), min_score=0.1)
    return CrossSummary(len(postmortems), dict(sorted(counts.items())), affected, tuple(shared), n_pool, n_aff,
                        dict(top.most_common()))
