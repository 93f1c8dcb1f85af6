"""Plots of bands: count histogram with the bands marked; the raw series coloured by band."""
from __future__ import annotations

import numpy as np

from ..bands.dwell import EXCLUDED, INTERMEDIATE, OUTLIER
from .units import SECONDS, time_unit_for, value_axis


def _unit(trace_or_values, unit):
    from ..trace import Trace

    if unit is None and isinstance(trace_or_values, Trace):
        return trace_or_values.meta.value_unit
    return unit


def _level(x: float, unit: str | None) -> str:
    """A band level for a legend: "1,334", or "21.4 ms" for times."""
    scale = SECONDS.get((unit or "").strip())
    if scale is None:
        return f"{x:.4g}"
    f, u = time_unit_for(x * scale)
    return f"{x * scale * f:.3g} {u}"


def _values_times(trace_or_values, times=None):
    from ..trace import Trace

    if isinstance(trace_or_values, Trace):
        t = trace_or_values.times
        return trace_or_values.values, (t if np.isfinite(t).all() else None)
    v = np.asarray(trace_or_values, dtype=np.float64)
    return v, (None if times is None else np.asarray(times, dtype=np.float64))


def plot_band_histogram(trace_or_values, result, *, ax=None, bins=None, log: bool = True,
                        zoom: bool = True, unit: str | None = None):
    """Histogram of the values with each band's [lo, hi] shaded and its level marked.

    ``zoom``: limit the x range to the bands (+ margins) instead of the full range of the tail.
    Integer values get one bin per count. ``unit``: of the values (a Trace's by default; times are
    shown in ns/µs/ms/s). Returns the Axes.
    """
    import matplotlib.pyplot as plt

    v, _ = _values_times(trace_or_values)
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.5))
    v = v[np.isfinite(v)]
    lo, hi = float(v.min()), float(v.max())
    if zoom and result.bands:
        span = max(b.hi for b in result.bands) - min(b.lo for b in result.bands)
        lo = max(lo, min(b.lo for b in result.bands) - 0.5 * span)
        hi = min(hi, max(b.hi for b in result.bands) + 0.1 * span)
    vv = v[(v >= lo) & (v <= hi)]
    if bins is None:
        if np.array_equal(vv, np.rint(vv)) and hi - lo <= 20000:
            bins = np.arange(np.floor(lo), np.ceil(hi) + 2) - 0.5
        else:
            bins = 200
    # one filled outline instead of a patch per bar: a count histogram has ~1,000-20,000 bins
    counts, edges = np.histogram(vv, bins=bins)
    ax.stairs(counts, edges, fill=True, color="0.45", baseline=0.5 if log else 0.0)
    if log:
        ax.set_yscale("log")
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for b in result.bands:
        c = colors[b.index % len(colors)]
        ax.axvspan(b.lo, b.hi, color=c, alpha=0.15)
        ax.axvline(b.level, color=c, lw=1.5, label=f"{_level(b.level, _unit(trace_or_values, unit))} "
                                                     f"({100 * b.share:.0f} %)")
    value_axis(ax, _unit(trace_or_values, unit), values=vv, which="x")
    ax.set_ylabel("samples")
    ax.legend(title="bands", fontsize="small")
    return ax


def plot_band_scatter(trace_or_values, result, *, times=None, ax=None, max_points: int = 200_000,
                      start: int = 0, stop: int | None = None, seed: int = 0, unit: str | None = None):
    """The series (value against time, or sample index) coloured by band; intermediate samples
    black, outliers grey; excluded (stall-adjacent) samples not drawn. ``start``/``stop``: sample
    range to draw; long ranges are thinned to ``max_points`` (seeded). Returns the Axes."""
    import matplotlib.pyplot as plt

    v, t = _values_times(trace_or_values, times)
    x = t if t is not None else np.arange(v.size)
    lab = result.labels
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 3.5))
    idx = np.arange(v.size)[start:stop]
    if idx.size > max_points:
        idx = np.sort(np.random.default_rng(seed).choice(idx, max_points, replace=False))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for code, c, name in ((OUTLIER, "0.7", "outlier"), (INTERMEDIATE, "k", "intermediate")):
        m = idx[lab[idx] == code]
        if m.size:
            ax.plot(x[m], v[m], ".", ms=2, color=c, label=name)
    for b in result.bands:
        m = idx[lab[idx] == b.index]
        ax.plot(x[m], v[m], ".", ms=2, color=colors[b.index % len(colors)],
                label=_level(b.level, _unit(trace_or_values, unit)))
    _ = EXCLUDED
    ax.set_xlabel("time (s)" if t is not None else "sample")
    value_axis(ax, _unit(trace_or_values, unit), values=v)
    ax.legend(fontsize="small", markerscale=4, loc="lower left")
    return ax
