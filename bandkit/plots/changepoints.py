"""Plot of a series with its change-point segmentation: values, segment levels, change points
and their location confidence intervals."""
from __future__ import annotations

import numpy as np

from .units import value_axis


def plot_changepoints(values, result=None, *, times=None, ax=None, show_ci: bool = True,
                      max_points: int = 20000, unit: str | None = None, **detect_kwargs):
    """Draw ``values`` (thin grey), each segment's level (horizontal red lines), each change point
    (dashed vertical line) and its confidence interval (shaded span).

    ``values``: an array or a :class:`bandkit.Trace` (its values and times). ``result``: a
    :class:`ChangePointResult` for these values (computed with ``detect_kwargs`` if None).
    ``times``: x coordinates (s) of the values; sample index if None. Series longer than
    ``max_points`` are drawn decimated (min/max per bin) for speed. ``unit``: of the values (a Trace's
    by default); times are shown in ns/µs/ms/s. Returns the Axes.
    """
    import matplotlib.pyplot as plt

    from ..trace import Trace
    from ..changepoints.api import detect_changepoints as _detect

    if isinstance(values, Trace):
        unit = values.meta.value_unit if unit is None else unit
        t = values.times
        times = t if (times is None and np.all(np.isfinite(t))) else times
        values = values.values
    y = np.asarray(values, dtype=np.float64)
    if result is None:
        result = _detect(y, times=times, **detect_kwargs)
    x = np.arange(y.size, dtype=np.float64) if times is None else np.asarray(times, dtype=np.float64)
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 3.5))
    if y.size > max_points:
        step = int(np.ceil(y.size / (max_points / 2)))
        m = y.size // step
        yy = y[: m * step].reshape(m, step)
        xx = x[: m * step: step]
        ax.fill_between(xx, yy.min(axis=1), yy.max(axis=1), color="0.6", lw=0, alpha=0.6, label="values (min–max)")
    else:
        ax.plot(x, y, color="0.55", lw=0.6, label="values")
    for k, s in enumerate(result.segments):
        x0 = x[s.start]
        x1 = x[s.end] if s.end < x.size else x[-1]
        ax.hlines(s.level, x0, x1, color="tab:red", lw=2, label="segment level" if k == 0 else None)
    for k, c in enumerate(result.changepoints):
        ax.axvline(x[c.index], color="tab:blue", ls="--", lw=1, label="change point" if k == 0 else None)
        if show_ci and c.ci_low is not None and c.ci_high > c.ci_low:
            ax.axvspan(x[c.ci_low], x[c.ci_high], color="tab:blue", alpha=0.15,
                       label=f"{100 * c.ci_level:g} % interval" if k == 0 else None)
    ax.set_xlabel("time (s)" if times is not None else "index")
    value_axis(ax, unit, values=y)
    ax.legend(loc="best", fontsize="small")
    return ax
