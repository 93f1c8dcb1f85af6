"""`find_bands`: band detection on a Trace or a plain 1-D array (thin layer over :func:`.fit.fit_bands`,
the steps :class:`BandDetector` runs too, without importing scikit-learn)."""
from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..trace import Trace
from .fit import BandParams, fit_bands
from .result import BandResult

#: Units in which a *lower* value is better (runner results).
_TIME_UNITS = {"s", "sec", "ms", "us", "µs", "ns", "seconds", "second", "time"}


def stall_adjacent(trace: Trace) -> np.ndarray:
    """Bool mask over ``trace.samples``: quanta next to a stall (partial work, not a level).

    A sample is stall-adjacent when the row just before or just after it in the full data is an
    FTQ catch-up row (the quantum in which the stall began, and the first quantum after the
    catch-up, e.g. a count of 620 where 1300 is normal), or when the loader flagged it ``partial``.
    """
    n = len(trace)
    if not trace.has_column("catchup") or n == 0:
        return np.zeros(len(trace.column("value", samples=True)), dtype=bool)
    c = np.asarray(trace.column("catchup"), dtype=bool)
    adj = np.zeros(n, dtype=bool)
    adj[:-1] |= c[1:]
    adj[1:] |= c[:-1]
    if trace.has_column("partial"):
        adj |= np.asarray(trace.column("partial"), dtype=bool)
    return adj[trace.sample_mask]  # the rows of trace.samples: catch-up rows and partial quanta left out


def run_means(trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    """(mean value per run, time of the run's first value) in run order, for traces with a
    ``run`` column (pyperf & co.); raises UsageError otherwise."""
    s = trace.samples
    if "run" not in s.columns:
        raise UsageError(f"{trace.label}: per_run needs a 'run' column (runner results)")
    g = s.groupby("run", sort=True)
    return (g["value"].mean().to_numpy(dtype=np.float64),
            g["time"].min().to_numpy(dtype=np.float64))


def higher_is_better_for(trace: Trace) -> bool:
    """FTQ work counts: more is better; runner times: less is better."""
    if trace.kind == "ftq":
        return True
    unit = (trace.meta.value_unit or "").strip().lower()
    return not (trace.kind == "runner" or unit in _TIME_UNITS)


def find_bands(trace_or_values, *, times=None, n_bands: int | None = None,
               min_separation: float | None = None, higher_is_better: bool | None = None,
               exclude_stall_adjacent: bool = True, per_run: bool = False,
               **params) -> BandResult:
    """Find the bands of a :class:`~bandkit.Trace` or of a 1-D array of values.

    Trace: uses ``trace.values``/``trace.times`` (catch-up rows excluded; times in seconds unless
    the trace is in ticks, then dwell times in seconds are not reported), and leaves FTQ
    stall-adjacent quanta out (label -3). Array: ``times`` (s) optional.
    ``n_bands`` forces the number of bands; ``min_separation`` (relative, 0.01 = 1 %) merges closer
    levels; other keyword arguments are :class:`BandDetector`'s parameters.
    ``per_run=True`` (runner traces with a ``run`` column): one value per run, the mean of its
    values, at the run's first time; the labels then align with :func:`run_means`.
    Returns a :class:`BandResult` (its ``labels`` align with ``trace.values`` / the array).
    """
    exclude = None
    if isinstance(trace_or_values, Trace):
        tr = trace_or_values
        if times is not None:
            raise UsageError("times= is only for arrays; a Trace has its own times")
        if per_run:
            values, t = run_means(tr)
        else:
            values, t = tr.values, tr.times
        if tr.meta.time_unit != "s" or not np.isfinite(t).all():
            t = None
        times = t
        if exclude_stall_adjacent and not per_run:
            exclude = stall_adjacent(tr)
        if higher_is_better is None:
            higher_is_better = higher_is_better_for(tr)
    else:
        values = np.asarray(trace_or_values, dtype=np.float64)
        if values.ndim != 1:
            raise UsageError(f"values must be 1-D, got shape {values.shape}")
        if higher_is_better is None:
            higher_is_better = True
    if min_separation is not None:
        params["min_separation"] = min_separation
    params.pop("random_state", None)  # a BandDetector parameter without effect
    p = BandParams(n_bands=n_bands, higher_is_better=bool(higher_is_better), **params)
    return fit_bands(values, times=times, exclude=exclude, params=p).result
