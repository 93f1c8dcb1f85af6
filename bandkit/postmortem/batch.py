"""The post-mortem of many summary-only benchmarks in one pass.

A result file that holds only summary statistics (asv without ``--record-samples``, pytest-benchmark
without ``--benchmark-save-data``, Google Benchmark aggregates, PTS entries without trials) loads as
one one-row runner trace per benchmark (:func:`bandkit.loaders.runner_common.summary_trace`), and a
mutated or generated asv file can hold 60,000 of them. Their "summary" and "postmortem" sections
depend on nothing but the row's value and the trace's metadata (verdict ``no_runs``; the file's
statistics as the central values), so :func:`bandkit.analyze.analyze` builds them for all such
traces at once (:func:`summary_only_postmortems` here, :func:`bandkit.summary.summary_only_section`):
the values in one array, shared run arrays, the fields as plain dicts, with the garbage collector
paused, instead of a run table, a classification and a ``to_dict``/``jsonable`` round per benchmark
(the report writes their entries as they are: :attr:`bandkit.analyze.TraceReport.plain`). The
results are the ones the per-trace sections give (tested equal, JSON, text and result objects, in
``tests/test_summary_batch.py``).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._gc import paused
from ..section import SectionResult
from ..trace import Trace
from .result import PostMortem

#: The columns of a trace made by ``summary_trace`` (one row each).
_SUMMARY_COLUMNS = frozenset(("time", "run", "value_index", "value"))
#: Sections the batch builds (name -> the per-trace function it stands for; see
#: :func:`bandkit.analyze.analyze`): when the runner traces' section list holds another, or one of these
#: is registered to another function, traces are analysed one by one.
SECTIONS = {"summary": "bandkit.summary:section", "postmortem": "bandkit.postmortem.section:runner_section"}


def batchable(trace: Trace) -> bool:
    """True for a summary-only runner trace of one row (run 1) built from arrays, named, with
    plain-string metadata."""
    m = trace.meta
    if m.kind != "runner" or not m.extra.get("summary_only"):
        return False
    if not (type(m.name) is str and type(m.path) is str and type(m.format) is str and type(m.value_unit) is str
            and type(m.time_unit) is str and m.thread is None and m.cpu is None):
        return False  # (the report entry of a batched trace is written without a jsonable pass)
    cols = trace.column_arrays
    if cols is None or cols.keys() != _SUMMARY_COLUMNS:
        return False
    v, r = cols["value"], cols["run"]
    return (type(v) is np.ndarray and v.shape == (1,) and type(r) is np.ndarray and r.shape == (1,)
            and r.dtype.kind in "iu" and r[0] == 1)


def summary_only_postmortems(traces: Sequence[Trace], values: np.ndarray,
                             summary_stats: Sequence[Any]) -> list[SectionResult]:
    """:func:`bandkit.postmortem.section.runner_section` of each of ``traces`` (all :func:`batchable`),
    whose one-row values are ``values`` and whose plain ``summary_stats`` are given: verdict
    ``no_runs``, the run arrays as views of shared arrays. The caller runs the first such trace
    through the section itself (its options are checked there)."""
    n = len(traces)
    finite = np.isfinite(values).tolist()
    ones = np.ones(max(n, 1), dtype=np.int64)
    zeros = np.zeros(max(n, 1), dtype=np.int64)
    empty_f, empty_i = np.zeros(0), np.zeros(0, dtype=np.int64)
    proto = PostMortem("", "", "no_runs", 0, 0, empty_i, empty_f, empty_i, summary_only=True).__dict__
    out: list[SectionResult] = []
    with paused():  # (no reference cycles made here)
        for k, t in enumerate(traces):
            m = t.meta
            ex = m.extra
            ok = finite[k]
            pm = _new(PostMortem, proto, name=t.label, unit=m.value_unit, n_values=1 if ok else 0,
                      run_numbers=ones[k:k + 1] if ok else empty_i, run_means=values[k:k + 1] if ok else empty_f,
                      labels=zeros[k:k + 1] if ok else empty_i,
                      note=str(ex.get("no_runs_reason", "no per-run data")), gate={})
            out.append(_postmortem(pm, ex, summary_stats[k]))
    return out


def _new(cls, proto: dict, **fields):
    """An instance of the frozen dataclass ``cls`` whose fields are ``proto`` (the ``__dict__`` of one
    built by its ``__init__``) with ``fields`` replaced: what ``cls(...)`` makes, without the
    ``__init__`` of ~20 frozen assignments per benchmark."""
    obj = object.__new__(cls)
    d = dict(proto)
    d.update(fields)
    object.__setattr__(obj, "__dict__", d)
    return obj


def _postmortem(pm: PostMortem, ex, summary_stats: dict | None) -> SectionResult:
    """:func:`bandkit.postmortem.section.runner_section` of a summary-only post-mortem."""
    fields = {"runs": 0, "values": pm.n_values, "unit": pm.unit, "verdict": "no_runs", "steps": [], "episodes": [],
              "bands": [], "outlier_runs": [], "warmup_runs": [], "slow_runs": [], "trend": None, "suspects": [],
              "negligible_suspects": [], "run_bands": [], "summary_stats": summary_stats,
              "postmortem": {"aggregation": "per-run means", "reference": None, "affected_runs": [],
                             "noise_rel": None, "spread_rel": None, "summary_only": True, "note": pm.note, "gate": {},
                             "run_numbering": ex.get("run_numbering", "1-based, file order")}}
    finding = {"kind": "no_per_run_data", "severity": "info", "name": pm.name, "unit": pm.unit, "runs": 0,
               "reason": pm.note}
    return SectionResult("postmortem", fields, pm, [finding])
