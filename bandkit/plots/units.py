"""Axes in readable units: a time axis in ns, µs, ms or s with the unit in its label (never a "1e-5"
offset above the ticks), and plain numbers without offsets for everything else."""
from __future__ import annotations

import numpy as np

from ..trace import SECONDS_PER_UNIT as SECONDS  # (seconds per unit of the time units runners write)


def time_unit_for(seconds: float) -> tuple[float, str]:
    """(factor, unit) to show a typical magnitude of ``seconds``: 2.3e-5 -> (1e6, "µs")."""
    a = abs(float(seconds)) if seconds is not None and np.isfinite(seconds) else 0.0
    for factor, unit in ((1e9, "ns"), (1e6, "µs"), (1e3, "ms")):
        if a and a < 1000 / factor:
            return factor, unit
    return 1.0, "s"


def value_axis(ax, unit: str | None, values=None, *, which: str = "y", what: str = "value") -> str:
    """Label and tick format of a value axis: times (``unit`` one of :data:`SECONDS`) are shown in the
    unit that suits ``values`` (default: the axis' data limits), "run mean (ms)"; other units keep
    their name, "value (MB/s)". Never an offset or a multiplier above the ticks. Returns the label."""
    from matplotlib.ticker import FuncFormatter, ScalarFormatter

    axis = ax.yaxis if which == "y" else ax.xaxis
    scale = SECONDS.get((unit or "").strip())
    if scale is not None:
        if values is None:
            lo, hi = (ax.get_ylim() if which == "y" else ax.get_xlim())
            typical = max(abs(lo), abs(hi))
        else:
            v = np.asarray(values, dtype=np.float64)
            v = v[np.isfinite(v)]
            typical = float(np.median(np.abs(v))) if v.size else 0.0
        factor, shown = time_unit_for(typical * scale)
        k = factor * scale
        axis.set_major_formatter(FuncFormatter(lambda x, pos: f"{x * k:.6g}"))
        label = f"{what} ({shown})"
    else:
        fmt = ScalarFormatter(useOffset=False)
        fmt.set_scientific(False)
        axis.set_major_formatter(fmt)
        label = f"{what} ({unit})" if unit else what
    (ax.set_ylabel if which == "y" else ax.set_xlabel)(label)
    return label
