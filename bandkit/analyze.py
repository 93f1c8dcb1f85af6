"""The analysis pipeline: traces in, a :class:`Report` out. No I/O here.

Every analysis plugs in as a *section* (the contract and the registry are in :mod:`bandkit.section`;
the finding kinds in :mod:`bandkit.findings`). :func:`analyze` runs, per trace, the sections
registered for its kind (``TRACE_SECTIONS``), then the cross sections over all trace reports, whose
fields go to the top level of the report. Sections are imported only when they run.
"""
from __future__ import annotations

import gc
import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from ._gc import paused
from ._json import dumps, jsonable
from ._version import __version__
from .display import DisplayMixin, render
from .section import SECTIONS, TRACE_SECTIONS, AnalysisOptions, Section, SectionResult, check_names, resolve
from .trace import Trace

__all__ = ["SCHEMA_VERSION", "AnalysisOptions", "SectionResult", "TraceReport", "Report", "analyze",
           "analyze_trace", "report"]

#: JSON report schema version; bump when a documented field changes meaning or disappears.
SCHEMA_VERSION = 1


@contextmanager
def _quiet_gc() -> Iterator[None]:
    """Objects that exist when a long pass starts (the traces, their arrays) are left out of the cyclic
    garbage collector's scans during the pass (``gc.freeze``; undone after, so cycles among them are
    still collected later). Each full scan walks every live object: the report of an asv file of
    23,000 benchmarks spent 2/3 of its JSON time there. Nothing is done when the caller froze the heap
    already or turned the collector off."""
    if not gc.isenabled() or gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@dataclass(frozen=True)
class TraceReport(DisplayMixin):
    """The analyses of one trace (``_repr_html_``: its HTML section, through :mod:`bandkit.display`)."""

    trace: Trace
    index: int
    sections: tuple[SectionResult, ...]
    #: The sections' fields hold plain JSON values only (the summary-only batch): no jsonable pass.
    plain: bool = field(default=False, repr=False, compare=False)
    #: The registered sections that did not analyse this trace, in section order: {"section", "reason",
    #: "detail"} (reasons: :data:`bandkit.section.SKIP_REASONS`); the JSON entry's ``skipped``.
    skipped: tuple[dict[str, Any], ...] = ()

    def __repr__(self) -> str:
        return (f"<TraceReport #{self.index} {self.trace!r}: sections {', '.join(s.name for s in self.sections)}; "
                f"{_kinds_text(self.findings)}>")

    def section(self, name: str) -> SectionResult | None:
        for s in self.sections:
            if s.name == name:
                return s
        return None

    def result(self, name: str) -> Any:
        s = self.section(name)
        return None if s is None else s.result

    @property
    def findings(self) -> list[dict[str, Any]]:
        out = []
        for s in self.sections:
            for f in s.findings:
                out.append({"trace": self.index, "path": self.trace.path, "section": s.name, **f})
        return out

    def to_dict(self) -> dict[str, Any]:
        m = self.trace.meta
        entry: dict[str, Any] = {"path": m.path, "kind": m.kind, "format": m.format}
        if m.kind == "runner" or m.name is not None:
            entry["name"] = m.name
        entry.update({"thread": m.thread, "cpu": m.cpu, "time_unit": m.time_unit, "value_unit": m.value_unit})
        if m.kind == "ftq":
            entry.update({"kernel": m.kernel, "cpu_model": m.cpu_model})
        for s in self.sections:
            entry.update(s.fields)
        entry["skipped"] = [{"section": k["section"], "reason": k["reason"], "detail": dict(k["detail"])}
                            for k in self.skipped]
        return entry if self.plain else jsonable(entry)


@dataclass(frozen=True)
class Report(DisplayMixin):
    """Everything :func:`analyze` found; render with :meth:`to_text`, :meth:`to_json`, :meth:`to_html`."""

    traces: tuple[TraceReport, ...]
    cross: tuple[SectionResult, ...] = ()
    options: AnalysisOptions = field(default_factory=AnalysisOptions)

    @property
    def findings(self) -> list[dict[str, Any]]:
        out = [f for tr in self.traces for f in tr.findings]
        for s in self.cross:
            out.extend({"trace": None, "path": None, "section": s.name, **f} for f in s.findings)
        return out

    def __repr__(self) -> str:
        """Short (the full data: :meth:`to_dict`; the English: :meth:`to_text`)."""
        cross = f"; across traces: {', '.join(s.name for s in self.cross)}" if self.cross else ""
        return f"<Report of {len(self.traces)} trace(s){cross}; {_kinds_text(self.findings)}>"

    def cross_section(self, name: str) -> SectionResult | None:
        for s in self.cross:
            if s.name == name:
                return s
        return None

    def to_dict(self) -> dict[str, Any]:
        with _quiet_gc():
            d: dict[str, Any] = {
                "schema_version": SCHEMA_VERSION,
                "bandkit_version": __version__,
                "traces": [tr.to_dict() for tr in self.traces],
                "findings": jsonable(self.findings),
            }
            for s in self.cross:
                d.update(jsonable(s.fields))
            d["skipped"] = jsonable(self.skipped)
        return d

    @property
    def skipped(self) -> list[dict[str, Any]]:
        """The cross sections that could not run (their needs met, e.g. two FTQ traces, but not their
        conditions, e.g. two sampling rates): {"section", "reason", "detail"}, the JSON's top-level
        ``skipped`` (the traces' own are in each trace entry)."""
        return [{"section": s.name, **s.skipped} for s in self.cross if s.skipped is not None]

    def to_json(self) -> str:
        d = self.to_dict()
        with _quiet_gc():
            return dumps(d, plain=True)  # (to_dict's values are plain already)

    def to_text(self, color: bool = False, width: int = 100) -> str:
        with _quiet_gc():
            return render(self, "text", color=color, width=width)

    def to_html(self) -> str:
        with _quiet_gc():
            return render(self, "html")


def _kinds_text(findings) -> str:
    """"findings: regression (warning), stable_runs ×3" — kinds and counts, for reprs."""
    if not findings:
        return "no findings"
    counts: dict[tuple[str, str], int] = {}
    for f in findings:
        k = (str(f.get("kind")), str(f.get("severity")))
        counts[k] = counts.get(k, 0) + 1
    parts = [f"{k} ({sev})" + (f" ×{n}" if n > 1 else "") for (k, sev), n in counts.items()]
    more = f", … {len(parts) - 8} more kinds" if len(parts) > 8 else ""
    return "findings: " + ", ".join(parts[:8]) + more


def _trace_sections(trace: Trace, options: AnalysisOptions) -> list[Section]:
    return [SECTIONS[name] for name in TRACE_SECTIONS.get(trace.kind, ()) if name not in options.skip]


def _check_options(options: AnalysisOptions) -> None:
    check_names(options.skip, "AnalysisOptions.skip")
    check_names(options.params, "AnalysisOptions.params")


def _run(section: Section, arg, options: AnalysisOptions) -> SectionResult | None:
    s = resolve(section.run)(arg, options)
    if s is not None and s.name != section.name:  # a section's results carry its registered name
        raise RuntimeError(f"section {section.name!r} returned a result named {s.name!r}")
    return s


def _skipped(trace: Trace, options: AnalysisOptions, results: Iterable[SectionResult]) -> tuple[dict[str, Any], ...]:
    """The trace's ``skipped`` entries, in section order: sections left out by ``options.skip`` and
    those whose result says it could not analyse the trace."""
    said = {s.name: s.skipped for s in results if s.skipped is not None}
    if not said and not options.skip:  # (the common case: 60,000 benchmarks of an asv file)
        return ()
    out = []
    for name in TRACE_SECTIONS.get(trace.kind, ()):
        why = {"reason": "option", "detail": {}} if name in options.skip else said.get(name)
        if why is not None:
            out.append({"section": name, **why})
    return tuple(out)


def _kept(results: Iterable[SectionResult | None]) -> tuple[SectionResult, ...]:
    """The results a trace report holds: a skipped section only when it writes contract fields all the
    same (``"spectrum": null``)."""
    return tuple(s for s in results if s is not None and (s.skipped is None or s.fields))


def analyze_trace(trace: Trace, index: int = 0, options: AnalysisOptions | None = None) -> TraceReport:
    """Run the sections registered for ``trace``'s kind; a :class:`TraceReport`."""
    options = options or AnalysisOptions()
    _check_options(options)
    results = [s for s in (_run(sec, trace, options) for sec in _trace_sections(trace, options)) if s is not None]
    return TraceReport(trace, index, _kept(results), skipped=_skipped(trace, options, results))


def analyze(traces: Trace | Iterable[Trace], options: AnalysisOptions | None = None, *,
            progress: Callable[[Iterable], Iterable] | None = None) -> Report:
    """Run every registered analysis on ``traces`` (a Trace or an iterable of them).

    ``progress``: wraps the iterable of (trace, section) steps, e.g. ``tqdm`` — so that even one big
    trace shows its analyses advancing.
    """
    with _quiet_gc():
        return _analyze(traces, options or AnalysisOptions(), progress)


def _analyze(traces, options: AnalysisOptions, progress) -> Report:
    _check_options(options)
    if isinstance(traces, Trace):
        traces = [traces]
    traces = list(traces)
    done: dict[int, list[SectionResult]] = {i: [] for i in range(len(traces))}
    batched = _summary_only_batch(traces, options, done)
    steps = [(i, sec) for i, t in enumerate(traces) if i not in batched for sec in _trace_sections(t, options)]
    batches = _SectionBatches(traces, steps, options)
    for i, sec in (progress(steps) if progress else steps):
        s = batches.result(i, sec)
        if s is not None:
            done[i].append(s)
    with paused():  # (no cycles made here; 63,000 reports set off full collections of all results)
        reports = tuple(TraceReport(t, i, _kept(done[i]), i in batched, _skipped(t, options, done[i]))
                        for i, t in enumerate(traces))
    cross = []
    for sec in SECTIONS.values():
        if not sec.cross or sec.name in options.skip:
            continue
        if sec.needs and sum(t.kind == sec.needs[0] for t in traces) < sec.needs[1]:
            if sec.empty is not None:  # its key is part of the JSON contract: written without the import
                cross.append(SectionResult(sec.name, dict(sec.empty)))
            continue
        s = _run(sec, reports, options)
        if s is not None:
            cross.append(s)
    return Report(reports, tuple(cross), options)


#: Traces a section with a ``batch`` function analyses together at most (a progress bar advances by
#: such chunks; the generator states of the post-mortems of one chunk are held at once).
BATCH_CHUNK = 64


class _SectionBatches:
    """The results of the (trace, section) ``steps``, those of sections with a ``batch`` function (the runner
    post-mortems of a file) computed together, in chunks of up to :data:`BATCH_CHUNK` of their traces in step
    order, when a step first asks for one of them: what ``run`` gives each trace (tested equal)."""

    def __init__(self, traces: list[Trace], steps: list[tuple[int, Section]], options: AnalysisOptions):
        self.traces, self.options = traces, options
        self.todo: dict[str, list[int]] = {}  # (section name -> its traces not analysed yet, in step order)
        for i, sec in steps:
            if sec.batch is not None:
                self.todo.setdefault(sec.name, []).append(i)
        self.at = {name: 0 for name in self.todo}
        self.ready: dict[tuple[int, str], SectionResult | None] = {}

    def result(self, i: int, sec: Section) -> SectionResult | None:
        key = (i, sec.name)
        if key not in self.ready and sec.batch is not None and len(self.todo[sec.name]) >= 2:
            todo, k = self.todo[sec.name], self.at[sec.name]
            if k < len(todo) and todo[k] == i:  # (the next chunk, from this step's trace on)
                chunk = todo[k:k + BATCH_CHUNK]
                self.at[sec.name] = k + len(chunk)
                results = resolve(sec.batch)([self.traces[j] for j in chunk], self.options)
                for j, s in zip(chunk, results, strict=True):
                    if s is not None and s.name != sec.name:  # (as _run)
                        raise RuntimeError(f"section {sec.name!r} returned a result named {s.name!r}")
                    self.ready[(j, sec.name)] = s
        if key in self.ready:
            return self.ready.pop(key)
        return _run(sec, self.traces[i], self.options)


#: Summary-only runner traces analysed in one pass (:mod:`bandkit.postmortem.batch`) when a report holds
#: at least this many (the first one still runs through the sections one by one, checking the options).
BATCH_MIN = 2


def _summary_only_batch(traces: list[Trace], options: AnalysisOptions, done: dict[int, list[SectionResult]]) -> set[int]:
    """Analyse the summary-only one-row runner traces in one pass (an asv file can hold 60,000 such
    benchmarks; their sections depend on the row and the metadata only); their results go to ``done``.
    The indices analysed; the first such trace, analysed one section at a time, is left to the caller."""
    runner = [SECTIONS[name] for name in TRACE_SECTIONS.get("runner", ()) if name not in options.skip]
    if sum(t.kind == "runner" for t in traces) < BATCH_MIN or not runner:
        return set()
    from .postmortem import batch

    if any(batch.SECTIONS.get(sec.name) != sec.run for sec in runner):
        return set()
    idx = [i for i, t in enumerate(traces) if t.kind == "runner" and batch.batchable(t)][1:]
    if len(idx) < BATCH_MIN:
        return set()
    ts = [traces[i] for i in idx]
    values = np.fromiter((t.column_arrays["value"][0] for t in ts), dtype=np.float64, count=len(ts))
    with paused():  # (no reference cycles made here)
        stats = [jsonable(t.meta.extra.get("summary_stats")) for t in ts]
        names = [sec.name for sec in runner]
        if "summary" in names:
            from .summary import summary_only_section

            heads = [v if math.isfinite(v) else None for v in values.tolist()]
            summaries = [summary_only_section(t.meta.value_unit, st, h) for t, st, h in zip(ts, stats, heads)]
        pms = batch.summary_only_postmortems(ts, values, stats) if "postmortem" in names else None
        for k, i in enumerate(idx):
            done[i].extend(summaries[k] if name == "summary" else pms[k] for name in names)
    return set(idx)


def report(*paths, format: str | None = None, options: AnalysisOptions | None = None, **load_options) -> Report:
    """Load ``paths`` and analyse them: ``bandkit.report("trace.dat")`` in a notebook cell shows the report."""
    from .loaders import load_many

    return analyze(load_many(paths, format=format, **load_options), options)
