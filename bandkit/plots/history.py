"""Plot of a CI history: per-build levels, era levels, located changes (with their build
intervals) and episodes."""
from __future__ import annotations

import numpy as np

from .units import value_axis


def plot_history(result, ax=None, *, title: str | None = None):
    """Draw a :class:`bandkit.history.HistoryResult` (or a history Trace, analysed first): the median
    of each build (grey dots), the era levels (red steps), each regression / improvement (dashed line,
    its 95 % build interval shaded) and each episode (orange span). x: build position, ticks
    labelled with build ids. Returns the Axes."""
    import matplotlib.pyplot as plt

    from ..trace import Trace

    if isinstance(result, Trace):
        from ..history import analyse_trace

        result = analyse_trace(result)
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 3.2))
    lv = np.asarray(result.levels, dtype=np.float64)
    x = np.arange(lv.size)
    ax.plot(x, lv, linestyle="none", marker=".", ms=2.5, color="#8c959f", alpha=0.7, label="build median")
    if result.fitted is not None:
        ax.step(x, result.fitted, where="post", color="#d62728", linewidth=1.5, label="era level")
    pos = {str(b): i for i, b in enumerate(result.build_ids)}
    for c in (*result.regressions, *result.improvements):
        colour = "#d62728" if c.kind == "regression" else "#2ca02c"
        ax.axvline(c.index, color=colour, linestyle="--", linewidth=1)
        lo, hi = pos.get(str(c.build_ci[0]), c.index), pos.get(str(c.build_ci[1]), c.index)
        if hi > lo:
            ax.axvspan(lo, hi, color=colour, alpha=0.15)
    for e in result.episodes:
        ax.axvspan(e.start_index, e.end_index, color="#ff7f0e", alpha=0.12)
    ticks = np.linspace(0, max(lv.size - 1, 0), num=min(6, max(lv.size, 1))).astype(int)
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(result.build_ids[i]) for i in ticks], fontsize=8)
    ax.set_xlabel("build")
    value_axis(ax, result.value_unit, values=lv, what="median per build")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    return ax
