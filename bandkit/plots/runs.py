"""Per-run plots of a runner trace: the run means (and every value) with steps / bands marked, and
the suspect metadata alongside on a shared run axis."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..trace import Trace
from .units import value_axis


def plot_runs(trace: Trace, pm=None, *, ax=None, show_values: bool = True):
    """Per-run means (dots) and individual values (small grey marks) against the run number;
    steps as vertical lines, episodes shaded, band levels as horizontal lines, outliers circled.
    ``pm``: a :class:`~bandkit.postmortem.PostMortem` (computed when None). Returns the Axes."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from ..postmortem import postmortem

    pm = pm if pm is not None else postmortem(trace)
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 3.2))
    s = trace.samples
    if show_values and "run" in s.columns:
        ax.plot(s["run"], s["value"], ".", color="0.7", ms=3, label="values", zorder=1)
    runs, means = pm.run_numbers, pm.run_means
    colors = np.where(np.isin(runs, pm.slow_runs), "tab:red", "tab:blue")
    ax.scatter(runs, means, c=colors, s=14, zorder=3, label="run means (red: slow)")
    if pm.outlier_runs:
        sel = np.isin(runs, pm.outlier_runs)
        ax.scatter(runs[sel], means[sel], s=80, facecolors="none", edgecolors="k", zorder=4, label="outliers")
    for st in pm.steps:
        ax.axvline(st.run - 0.5, color="tab:orange", lw=1.2, ls="--")
        ax.annotate(f"run {st.run}: ×{st.factor:.2f}", (st.run - 0.5, ax.get_ylim()[1]), fontsize=8,
                    ha="left", va="top", color="tab:orange")
    for e in getattr(pm, "episodes", ()):
        ax.axvspan(e.start_run - 0.5, e.end_run + 0.5, color="tab:orange", alpha=0.15, lw=0)
    if pm.verdict in ("bimodal", "bands"):
        for b in pm.bands:
            ax.axhline(b.level, color="tab:green", lw=0.8, alpha=0.7)
    ax.set_xlabel(_run_axis_label(trace))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # run numbers: no "1.25" ticks on 3 runs
    value_axis(ax, trace.meta.value_unit, values=means)
    ax.set_title(f"{trace.label}: {pm.verdict}", fontsize=10)
    ax.legend(fontsize=7, loc="best")
    return ax


def plot_runs_with_metadata(trace: Trace, columns: Sequence[str] | None = None, pm=None, *, axes=None,
                            max_columns: int = 3):
    """Run means on top, and below them the metadata ``columns`` (default: the top suspects) per
    run, on a shared run axis, slow runs in red. Returns the array of Axes."""
    import matplotlib.pyplot as plt

    from ..postmortem import postmortem

    pm = pm if pm is not None else postmortem(trace)
    if columns is None:
        columns = [s.metadata for s in pm.suspects[:max_columns]]
    columns = list(columns)
    md = pm.metadata
    missing = [c for c in columns if md is None or c not in md.columns]
    if missing:
        raise KeyError(f"no metadata column(s) {missing}")
    n = 1 + len(columns)
    if axes is None:
        _, axes = plt.subplots(n, 1, figsize=(9, 2.2 * n), sharex=True, squeeze=False)
        axes = axes[:, 0]
    plot_runs(trace, pm, ax=axes[0])
    slow = np.isin(pm.run_numbers, pm.slow_runs)
    for ax, col in zip(axes[1:], columns):
        v = md[col]
        if not np.issubdtype(np.asarray(v).dtype, np.number):  # categories -> codes
            _, y = np.unique(v.astype(str).to_numpy(), return_inverse=True)
        else:
            y = v.to_numpy(dtype=float, na_value=np.nan)
        ax.plot(pm.run_numbers, y, "-", color="0.6", lw=0.8)
        ax.scatter(pm.run_numbers, y, c=np.where(slow, "tab:red", "tab:blue"), s=12)
        ax.set_ylabel(col if len(col) < 22 else col[:20] + "…", fontsize=8)
        for st in pm.steps:
            ax.axvline(st.run - 0.5, color="tab:orange", lw=1.0, ls="--")
    axes[0].set_xlabel("")
    axes[-1].set_xlabel(_run_axis_label(trace))
    return axes


def _run_axis_label(trace: Trace) -> str:
    """"run (as pyperf dump numbers them)" for pyperf files, else "run (1-based)"."""
    n = str(trace.meta.extra.get("run_numbering") or "")
    return "run (numbered as pyperf dump)" if "pyperf dump" in n else "run (1-based)"
