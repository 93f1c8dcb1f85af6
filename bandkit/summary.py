"""Per-trace basics of an FTQ trace: samples, rate, duration, FTQ fraction, stalls, count percentiles."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .robust import distinct, median
from .trace import Trace

PERCENTILES = (0.1, 1, 5, 25, 50, 75, 95, 99, 99.9)


@dataclass(frozen=True)
class StallSummary:
    count: int
    total_s: float | None
    longest_s: float | None
    lost_quanta: int
    share_of_time: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "total_s": self.total_s, "longest_s": self.longest_s,
                "lost_quanta": self.lost_quanta, "share_of_time": self.share_of_time}


@dataclass(frozen=True)
class FtqSummary:
    """Basic figures of one FTQ trace. Times in seconds (None when the trace's time is in ticks)."""

    samples: int                 # rows as FTQ counts them (catch-up rows included)
    measured_samples: int        # rows that are measurements (catch-up rows / partial quanta excluded)
    catchup_rows: int
    sampling_hz: float | None
    duration_s: float | None
    duration_ticks: float | None
    ftq_fraction: float | None   # total count / (max count x samples), as FTQ defines it
    header_fraction: float | None
    max_count: float | None
    total_count: float
    stalls: StallSummary
    count_percentiles: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "samples": self.samples,
            "measured_samples": self.measured_samples,
            "catchup_rows": self.catchup_rows,
            "sampling_hz": self.sampling_hz,
            "duration_s": self.duration_s,
            "duration_ticks": self.duration_ticks,
            "ftq_fraction": self.ftq_fraction,
            "header_fraction": self.header_fraction,
            "max_count": self.max_count,
            "total_count": self.total_count,
            "stalls": self.stalls.to_dict(),
            "count_percentiles": dict(self.count_percentiles),
        }


def ftq_fraction(counts: np.ndarray, max_count: float | None = None, samples: int | None = None) -> float | None:
    """FTQ fraction = total count / (max count per quantum x samples); catch-up rows count as samples."""
    n = len(counts) if samples is None else samples
    if n == 0:
        return None
    m = float(np.max(counts)) if max_count is None else float(max_count)
    return float(np.sum(counts, dtype=np.float64) / (m * n)) if m > 0 else None


def summarize_ftq(trace: Trace) -> FtqSummary:
    counts = trace.column("value")
    mask = trace.sample_mask
    measured = counts if mask is None else counts[mask]
    n = len(trace)
    catchup = int(np.count_nonzero(trace.column("catchup"))) if trace.has_column("catchup") else 0
    period = trace.period
    time = np.asarray(trace.column("time"), dtype=np.float64)
    span = float(time[-1] - time[0]) if n else 0.0
    in_s = trace.meta.time_unit == "s"
    if in_s:
        duration_s, duration_ticks = span + (period or 0.0), None
    else:
        q = trace.meta.extra.get("quantum_ticks")
        duration_s, duration_ticks = None, span + (q or 0.0)
    st = trace.stall_columns
    if len(st["row"]):
        total = float(np.sum(st["duration_s"]))
        longest = float(np.max(st["duration_s"]))
        share = total / duration_s if in_s and duration_s else None
        stalls = StallSummary(len(st["row"]), total if in_s else None, longest if in_s else None,
                              int(np.sum(st["lost_quanta"])), share)
    else:
        stalls = StallSummary(0, 0.0 if in_s else None, 0.0 if in_s else None, 0, 0.0 if in_s else None)
    pct = {}
    if len(measured):
        vals = np.percentile(measured, PERCENTILES)
        pct = {f"p{p:g}": float(v) for p, v in zip(PERCENTILES, vals)}
    return FtqSummary(
        samples=n, measured_samples=int(len(measured)), catchup_rows=catchup,
        sampling_hz=trace.meta.sampling_hz, duration_s=duration_s, duration_ticks=duration_ticks,
        ftq_fraction=ftq_fraction(counts) if n else None,
        header_fraction=trace.meta.header.get("Fraction"),
        max_count=float(np.max(counts)) if n else None, total_count=float(np.sum(counts, dtype=np.float64)),
        stalls=stalls, count_percentiles=pct,
    )


def ftq_section(trace: Trace, options):
    """Report section "summary" for FTQ traces."""
    from .section import SectionResult

    s = summarize_ftq(trace)
    findings: list[dict[str, Any]] = []
    if s.stalls.count:
        findings.append({"kind": "stalls", "severity": "warning" if (s.stalls.share_of_time or 0) > 0.01 else "info",
                         "count": s.stalls.count, "total_s": s.stalls.total_s, "longest_s": s.stalls.longest_s,
                         "lost_quanta": s.stalls.lost_quanta, "share_of_time": s.stalls.share_of_time})
    partial = np.asarray(trace.column("partial"), dtype=bool) if trace.has_column("partial") else None
    if partial is not None and partial.any():
        rows = np.flatnonzero(partial)
        findings.append({"kind": "partial_quantum", "severity": "info", "rows": [int(r) for r in rows[:10]],
                         "quantum_ticks": trace.meta.extra.get("quantum_ticks"),
                         "first_quantum_ticks": trace.meta.extra.get("first_quantum_ticks")})
    if trace.meta.time_unit == "ticks":
        findings.append({"kind": "time_in_ticks", "severity": "info",
                         "quantum_ticks": trace.meta.extra.get("quantum_ticks")})
    if s.header_fraction is not None and s.ftq_fraction is not None and abs(s.header_fraction - s.ftq_fraction) > 1e-4:
        findings.append({"kind": "fraction_mismatch", "severity": "info", "computed": s.ftq_fraction,
                         "header": s.header_fraction})
    return SectionResult("summary", s.to_dict(), s, findings)


# -- runner results: the numbers people look for first ---------------------------------------------
@dataclass(frozen=True)
class RunnerSummary:
    """Central value and spread of one benchmark, as hyperfine and pyperf print them.

    ``value_stats``: over every measured value (``source`` "values"), or, for a file that holds only
    summary statistics, the statistics it states (``source`` "file"); values in the trace's unit.
    ``within_run``: how the values inside a run compare (pyperf warm-ups, first value), or None.
    """

    value_stats: dict[str, Any]
    within_run: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"value_stats": dict(self.value_stats), "within_run": None if self.within_run is None
                else dict(self.within_run)}


#: Keys of ``value_stats`` (README: summary (runner)).
VALUE_STATS_KEYS = ("source", "unit", "n", "runs", "mean", "stddev", "median", "min", "max")


def _float(x) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if np.isfinite(v) else None


def value_stats(trace: Trace) -> dict[str, Any]:
    """Mean, sample standard deviation, median, min and max of a runner trace's values (see
    :class:`RunnerSummary`)."""
    ex = trace.meta.extra
    if ex.get("summary_only"):
        v = trace.values
        return file_value_stats(trace.meta.value_unit, ex.get("summary_stats"), _float(v[0]) if len(v) else None)
    v = trace.values
    v = v[np.isfinite(v)]
    runs = _n_distinct(trace.column("run", samples=True)) if trace.has_column("run") else int(v.size)
    if not v.size:
        return {"source": "values", "unit": trace.meta.value_unit, "n": 0, "runs": 0, "mean": None, "stddev": None, "median": None,
                "min": None, "max": None}
    return {"source": "values", "unit": trace.meta.value_unit, "n": int(v.size), "runs": runs, "mean": float(np.mean(v)),
            "stddev": _sd(v), "median": float(median(v)), "min": float(np.min(v)), "max": float(np.max(v))}


def _sd(v: np.ndarray) -> float | None:
    """Sample standard deviation; exactly 0 for equal values (np.std gives 2.7e-16 for three 1.52s)."""
    if v.size < 2:
        return None
    return 0.0 if v.min() == v.max() else float(np.std(v, ddof=1))


def file_value_stats(unit: str, summary_stats: Mapping[str, Any] | None, head: float | None) -> dict[str, Any]:
    """``value_stats`` of a summary-only trace: the statistics its file states (``summary_stats``);
    ``head``, the trace's one value (finite or None), stands for its headline statistic when the
    file states neither a mean nor a median."""
    st = summary_stats or {}
    out = {"source": "file", "unit": unit, "n": st.get("n"), "runs": None,
           "mean": _float(st.get("mean")), "stddev": _float(st.get("stddev")),
           "median": _float(st.get("median")), "min": _float(st.get("min")), "max": _float(st.get("max"))}
    if out["mean"] is None and out["median"] is None and head is not None:
        out[st.get("statistic") if st.get("statistic") in ("mean", "median") else "mean"] = head
    return out


def summary_only_section(unit: str, summary_stats: Mapping[str, Any] | None, head: float | None):
    """:func:`runner_section` of a summary-only trace (see :func:`file_value_stats`), from its parts:
    what :func:`bandkit.analyze.analyze` builds for thousands of such benchmarks in one pass."""
    from .section import SectionResult

    s = RunnerSummary(file_value_stats(unit, summary_stats, head), None)
    return SectionResult("summary", s.to_dict(), s)


def _n_distinct(a) -> int:
    """Number of distinct non-missing values (``Series.nunique()``)."""
    a = np.asarray(a)
    if a.dtype.kind in "iu":
        return int(distinct(a.ravel()).size)
    import pandas as pd

    return int(pd.Series(a).nunique())


def _first_value_ratios(x: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Each run's first value over the median of its other values (runs of ``sizes`` >= 2 values from
    ``starts`` in ``x``), for the runs where that median is > 0 and the first value finite, in run order.
    Runs of one size are one 2-D ``np.median(axis=1)`` (the same numbers as a median per run: a pyperf file
    of 60 benchmarks asked 1,320 medians of 2-value arrays, ~25 us each)."""
    rest = np.empty(starts.size)
    for n in distinct(sizes):
        sel = np.flatnonzero(sizes == n)
        rest[sel] = _row_medians(x[starts[sel, None] + np.arange(1, n)])
    first = x[starts]
    ok = (rest > 0) & np.isfinite(first)
    return first[ok] / rest[ok]


def _row_medians(M: np.ndarray) -> np.ndarray:
    """``np.median(M, axis=1)`` of a 2-D float array (NaN for a row with a NaN; the middle values' mean from
    +0.0, as :func:`bandkit.robust.median`) by a sort: np.median's NaN check imports ``numpy.ma`` (~10 ms
    of a report's start)."""
    s = np.sort(M, axis=1)
    m = s.shape[1]
    h = m // 2
    out = 0.0 + s[:, h] if m % 2 else (0.0 + s[:, h - 1] + s[:, h]) / 2.0
    nan = np.isnan(s[:, -1])
    return np.where(nan, s[:, -1], out) if nan.any() else out


def within_run(trace: Trace) -> dict[str, Any] | None:
    """Values inside a run: pyperf's warm-up values against the measured ones (median / median), and
    each run's first value against the run's other values (median over runs). None when runs hold
    one value and no warm-ups."""
    if trace.meta.extra.get("summary_only") or not trace.has_column("run"):
        return None
    v = trace.values
    if not len(v):
        return None
    med = float(median(v) if not np.isnan(v).any() else np.nanmedian(v))
    warm = [w[3] for w in trace.meta.extra.get("warmups") or ()
            if isinstance(w, (list, tuple)) and len(w) == 4 and w[1] is not None]
    warm = np.asarray([x for x in (_float(w) for w in warm) if x is not None], dtype=np.float64)
    out: dict[str, Any] = {"warmups": int(warm.size),
                           "warmup_ratio": float(median(warm) / med) if warm.size and med > 0 else None,
                           "first_value_ratio": None, "runs_compared": 0}
    runs = np.asarray(trace.column("run", samples=True))
    order = np.argsort(runs, kind="stable")
    r, x = runs[order], v[order]
    starts = np.flatnonzero(np.concatenate(([True], r[1:] != r[:-1])))
    sizes = np.diff(np.append(starts, r.size))
    many = np.flatnonzero(sizes >= 2)
    if many.size:
        ratios = _first_value_ratios(x, starts[many], sizes[many])
        if ratios.size:
            out["first_value_ratio"] = float(median(ratios))
            out["runs_compared"] = int(ratios.size)
    if not out["warmups"] and out["first_value_ratio"] is None:
        return None
    return out


def runner_section(trace: Trace, options):
    """Report section "summary" for runner traces: central value and spread (no findings)."""
    from .section import SectionResult

    s = RunnerSummary(value_stats(trace), within_run(trace))
    return SectionResult("summary", s.to_dict(), s)


def section(trace: Trace, options):
    """Report section "summary": FTQ basics (:func:`ftq_section`) or a runner's central values
    (:func:`runner_section`)."""
    if trace.kind == "runner":
        return runner_section(trace, options)
    return ftq_section(trace, options)
