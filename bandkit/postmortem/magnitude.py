"""Magnitude gate of a suspect: a difference a person would call negligible is no suspect, however
significant.

The significance gate of :mod:`.suspects` asks whether a column's pattern is real; this one asks
whether its size could matter. On a real pyperf file the slow runs of a x1.42 benchmark read
``cpu_freq_mhz_max`` 3,334 MHz against 3,330 MHz for the others (6/6 vs 2/13 above 3,330: the pattern
is real): 0.1 % of the frequency cannot explain a 42 % slowdown. A numeric suspect is *negligible*
(``evidence["negligible"]``, the rule in ``evidence["magnitude_gate"]``) when either rule holds:

(a) ``resolution``: the effect (``|median_affected - median_reference|``, ``evidence["effect"]``) is
    below ``K_QUANTA`` reading units of the column (``quantum``: the smallest positive difference between
    two of its distinct values, or the decimal digit its values are written to when finer;
    ``effect_quanta`` = effect / quantum) *and* below ``COARSE_REL`` of the
    larger median: a column read at 1 MHz or 0.01 load whose groups differ by a unit or two, while a
    count read in whole units (runnable threads 1 vs 2) keeps its one-unit change.
(b) a physical bound, for columns of a known unit (``evidence["effect_rel"]``: the largest share of the
    timing change the reading could explain; ``explains``: that share over the slowdown
    ``|ln(timing ratio)|`` of the affected runs):

    - ``frequency`` (MHz): run time is at most inversely proportional to the clock, so a frequency change
      of r (the effect over the machine's highest MHz reading, which also scales the spread columns)
      explains at most ~r of a timing change: negligible when r < ``FREQ_FLOOR`` (0.5 %: ~17 MHz at
      3.3 GHz, above the few-MHz jitter of one P-state's readings and below the 100 MHz of a P-state step)
      or r < ``EXPLAIN_MIN`` of the slowdown;
    - ``load`` (``load_avg_1min``: runnable threads over the last minute): Δ more threads sharing the
      benchmark's core slow it at most by a factor 1 + Δ: negligible when ln(1 + Δ) < ``EXPLAIN_MIN`` of the
      slowdown;
    - ``temperature`` (C): sensors read whole degrees, so a difference of medians under ``TEMP_MIN_C``
      (2 C) is within the rounding of two readings; heat matters through throttling, far above that.

``EXPLAIN_MIN`` (0.05: the reading could explain at least 1/20 of the slowdown) is lenient on purpose:
readings are one snapshot per run and aggregates (the mean over 24 CPUs) dilute the frequency the
benchmark ran at. On the real pyperf files the negligible frequency suspects explain <= 0.010 of their
slowdown and the real ones >= 0.14 (benchmarks/RESULTS_calibration.md). Categorical suspects have no
magnitude: a value is there or not.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np

from ..metadata import metadata_unit
from ..robust import decimal_resolution, decimal_resolution_sorted, distinct, median

#: Rule (a): an effect below this many reading units of the column ...
K_QUANTA = 3.0
#: ... and below this share of the larger median is a resolution artefact.
COARSE_REL = 0.05
#: Rule (b): the share of the slowdown a reading must be able to explain.
EXPLAIN_MIN = 0.05
#: Rule (b), frequency: smallest relative frequency change (of the machine's highest MHz reading).
FREQ_FLOOR = 0.005
#: Rule (b), temperature: smallest difference of medians, degrees C.
TEMP_MIN_C = 2.0

#: Columns of a known physical kind besides their unit (turbostat's names carry no unit).
_LOAD_COLUMNS = frozenset({"load_avg_1min"})


@lru_cache(maxsize=4096)
def physical_kind(column: str) -> str | None:
    """``"frequency"``, ``"temperature"``, ``"load"`` or None: the physical bound rule (b) applies."""
    if column in _LOAD_COLUMNS:
        return "load"
    unit = metadata_unit(column)
    if unit == "MHz" or column.endswith("_MHz"):
        return "frequency"
    if unit == "C" or column in ("CoreTmp", "PkgTmp"):
        return "temperature"
    return None


def quantum(values: np.ndarray) -> float | None:
    """The reading unit of a column: the smallest positive difference between two of its distinct finite
    values, or the decimal digit all of them are written to (1 MHz, 0.01 load;
    :func:`bandkit.robust.decimal_resolution`) when that is finer - twenty readings of a per-CPU frequency
    seldom hold two a unit apart. None: fewer than two distinct values."""
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 1 and v.size <= _LISTS_MAX:
        # (a suspect's ~20 readings as Python floats: the same sorted distinct values - a signed zero's sign
        # aside, which no difference or decimal test below sees -, the same subtractions)
        u = sorted({x for x in v.tolist() if math.isfinite(x)})
        if len(u) < 2:
            return None
        q = min([b - a for a, b in zip(u, u[1:])])
        d = decimal_resolution_sorted(u)
        return min(q, d) if d is not None else q
    v = distinct(v[np.isfinite(v)])  # (np.unique without importing numpy.ma)
    if v.size < 2:
        return None
    q = float(np.min(np.diff(v)))
    d = decimal_resolution(v)
    return min(q, d) if d is not None else q


#: Up to this many values :func:`quantum` works on Python floats.
_LISTS_MAX = 64


def slowdown_of(means: np.ndarray, affected: np.ndarray) -> float | None:
    """Median run mean of the affected runs over that of the others (None when undefined; NaN means
    left out)."""
    m = np.asarray(means, dtype=np.float64)
    a = np.asarray(affected, dtype=bool)
    ok = np.isfinite(m)
    m, a = m[ok], a[ok]
    if not a.any() or a.all():
        return None
    num, den = float(median(m[a])), float(median(m[~a]))
    if not (num > 0 and den > 0 and math.isfinite(num) and math.isfinite(den)):
        return None
    return num / den


def assess(column: str, values: np.ndarray, ev: dict[str, Any], slowdown: float | None,
           freq_scale: float | None) -> None:
    """Add the magnitude fields to a numeric suspect's evidence (medians already there): ``effect``,
    ``quantum``, ``effect_quanta``, ``effect_rel``, ``explains``, ``negligible``, ``magnitude_gate``.
    ``slowdown``: the timing ratio of the affected runs (None: unknown, the bounds against it are not
    applied); ``freq_scale``: the machine's highest MHz reading (None: the column's own largest value)."""
    a, r = ev.get("median_affected"), ev.get("median_reference")
    if a is None or r is None or not (math.isfinite(a) and math.isfinite(r)):
        ev.update(effect=None, quantum=None, effect_quanta=None, effect_rel=None, explains=None,
                  negligible=False, magnitude_gate=None)
        return
    effect = abs(a - r)
    q = quantum(values)
    quanta = effect / q if q else None
    big = max(abs(a), abs(r))
    s = abs(math.log(slowdown)) if slowdown and slowdown > 0 and math.isfinite(slowdown) else None
    gate = None
    if quanta is not None and quanta < K_QUANTA and effect < COARSE_REL * big:
        gate = "resolution"
    kind = physical_kind(column)
    rel = None
    if kind == "frequency":
        scale = freq_scale if freq_scale and freq_scale > 0 else float(np.nanmax(np.abs(values)))
        rel = effect / scale if scale > 0 else None
        if rel is not None and gate is None and (rel < FREQ_FLOOR or (s is not None and rel < EXPLAIN_MIN * s)):
            gate = "frequency"
    elif kind == "load":
        rel = math.log1p(effect)
        if gate is None and s is not None and rel < EXPLAIN_MIN * s:
            gate = "load"
    elif kind == "temperature" and gate is None and effect < TEMP_MIN_C:
        gate = "temperature"
    explains = rel / s if rel is not None and s else None
    ev.update(effect=effect, quantum=q, effect_quanta=quanta, effect_rel=rel, explains=explains,
              negligible=gate is not None, magnitude_gate=gate)


def freq_scale_of(cols: list) -> float | None:
    """The highest reading of the numeric MHz columns of ``cols`` (:func:`~.suspects.column_entry`
    triples): the machine's frequency scale for rule (b)."""
    freq = [data for name, numeric, data in cols if numeric and physical_kind(name) == "frequency"]
    if freq and all(getattr(d, "ndim", 0) == 1 and d.size == freq[0].size for d in freq):
        # (one array of them all: the largest finite |reading| of all columns, the same float)
        v = np.array(freq, dtype=np.float64)
        v = v[np.isfinite(v)]
        return float(np.max(np.abs(v))) if v.size else None
    best = None
    for name, numeric, data in cols:
        if numeric and physical_kind(name) == "frequency":
            v = np.asarray(data, dtype=np.float64)
            v = v[np.isfinite(v)]
            if v.size:
                m = float(np.max(np.abs(v)))
                best = m if best is None else max(best, m)
    return best
