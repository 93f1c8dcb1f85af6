"""The classic FTQ picture: work count per quantum against time, with stall episodes marked."""
from __future__ import annotations

import numpy as np

from ..trace import Trace


def _time_axis(trace: Trace) -> tuple[float, str]:
    return (1.0, "time (s)") if trace.meta.time_unit == "s" else (1.0, "time (TSC ticks)")


def plot_trace(trace: Trace, ax=None, *, show_stalls: bool = True, max_points: int = 400_000, s: float = 1.0):
    """Scatter of count vs time (catch-up rows left out); stall episodes shaded.

    More than ``max_points`` samples are thinned by a fixed stride for drawing only (the figure
    says so in its title).
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(10, 3.5))
    t, v = trace.times, trace.values
    stride = max(1, int(np.ceil(len(t) / max_points)))
    ax.scatter(t[::stride], v[::stride], s=s, lw=0, color="C0", rasterized=True)
    scale, label = _time_axis(trace)
    if show_stalls and trace.meta.time_unit == "s":
        st = trace.stalls
        if len(st):
            ymax = float(np.max(v)) if len(v) else 1.0
            ax.vlines(st["start_s"], 0, ymax * 1.02, color="C3", lw=0.5, alpha=0.5,
                      label=f"stall onsets ({len(st)})")
            ax.legend(loc="lower right", fontsize="small")
    ax.set_xlabel(label)
    ax.set_ylabel(f"work per quantum ({trace.meta.value_unit})")
    title = trace.label + (f"  (every {stride}th sample drawn)" if stride > 1 else "")
    ax.set_title(title, fontsize="medium")
    return ax


def plot_stalls(trace: Trace, ax=None):
    """Histogram of stall durations (ms), log-scaled counts."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3))
    st = trace.stalls
    if len(st):
        ax.hist(st["duration_s"] * 1e3, bins=min(60, max(5, len(st) // 5)), color="C3")
        ax.set_yscale("log")
    ax.set_xlabel("stall duration (ms)")
    ax.set_ylabel("episodes")
    ax.set_title(f"{len(st)} stall episodes", fontsize="medium")
    return ax
