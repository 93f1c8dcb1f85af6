"""A/B comparison: each benchmark's ratio B / A with its confidence interval (a forest plot)."""
from __future__ import annotations

import numpy as np


def plot_compare(cmp, ax=None, *, max_rows: int = 80):
    """One row per benchmark of a :class:`bandkit.compare.Comparison`, sorted by ratio: the ratio B / A
    (dot; filled when significant, grey when noisy) and its confidence interval (bar), on a log axis with
    1 marked. With more than ``max_rows`` benchmarks the ``max_rows`` farthest from 1 are drawn.
    Returns the Axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 6))
    rows = [c for c in cmp.benchmarks if c.ratio and np.isfinite(c.ratio) and c.ratio > 0]
    if len(rows) > max_rows:
        rows = sorted(rows, key=lambda c: -abs(np.log(c.ratio)))[:max_rows]
    rows = sorted(rows, key=lambda c: c.ratio)
    y = np.arange(len(rows))
    for k, c in zip(y, rows):
        color = "0.6" if c.noisy else ("tab:red" if c.ratio > 1 else "tab:green") if c.significant else "tab:blue"
        if c.ci_low is not None and c.ci_high is not None:
            ax.plot([c.ci_low, c.ci_high], [k, k], color=color, lw=1.5)
        ax.plot([c.ratio], [k], "o", ms=4, color=color, mfc=color if c.significant else "white")
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_xscale("log")
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    lo, hi = ax.get_xlim()
    ticks = [t for t in (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20,
                         50, 100) if lo <= t <= hi]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, pos: f"{x:.3g}"))
    ax.grid(axis="x", color="0.9", lw=0.6)
    ax.set_yticks(y, [c.name for c in rows], fontsize="small" if len(rows) <= 40 else "x-small")
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel(f"B / A (ratio of means; {100 * cmp.confidence:.0f} % CI)   < 1: B faster   > 1: B slower")
    return ax
