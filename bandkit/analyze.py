"""The analysis pipeline: traces in, a :class:`Report` out. No I/O here.

Sections
--------
Every analysis plugs in as a *section*: ``section(trace, options) -> SectionResult``.
``SectionResult.fields`` are merged, in order, into the trace's JSON entry; ``result`` keeps the
analysis object (for plots / HTML); ``findings`` are data (dicts with ``kind`` and ``severity``).
Register a section by adding its ``"module:function"`` to the list for its trace kind below.

Cross-trace analyses (e.g. the two-rate interference test) are ``cross(trace_reports, options) ->
SectionResult`` whose ``fields`` are merged into the top level of the report; register them in
``CROSS_SECTIONS``.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from . import __version__
from ._json import dumps, jsonable
from .trace import Trace

#: JSON report schema version; bump when a documented field changes meaning or disappears.
SCHEMA_VERSION = 1

#: Per-kind section functions, in report order.
FTQ_SECTIONS: list[str] = [
    "bandkit.summary:ftq_section",
    "bandkit.bands:section",
    "bandkit.spectrum.spectrum:section",
    "bandkit.changepoints.section:section",
]
RUNNER_SECTIONS: list[str] = ["bandkit.postmortem:runner_section"]
SERIES_SECTIONS: list[str] = ["bandkit.changepoints.section:section", "bandkit.bands:section"]
#: One benchmark across builds (performance-CI histories): only what a history needs.
HISTORY_SECTIONS: list[str] = ["bandkit.history.section:section"]
#: Cross-trace sections (top-level report fields).
CROSS_SECTIONS: list[str] = ["bandkit.spectrum.interference:cross_section", "bandkit.postmortem:runner_summary"]

#: What a cross section needs to have anything to say: (trace kind, minimum number of such traces).
#: A section listed here is not even imported otherwise (an FTQ report does not pay for the runner
#: post-mortem's imports). Sections not listed always run.
#: (The interference section always runs: its ``"interference": null`` for a single rate is part of
#: the JSON contract.)
CROSS_SECTION_NEEDS: dict[str, tuple[str, int]] = {
    "bandkit.postmortem:runner_summary": ("runner", 1),
    "bandkit.spectrum.interference:cross_section": ("ftq", 2),
}
#: What a cross section whose needs are not met writes all the same (its key is part of the JSON
#: contract), without being imported: the interference test needs two FTQ traces, and a runner or
#: history report must not import the spectrum analyses to write ``"interference": null``.
CROSS_SECTION_EMPTY: dict[str, Mapping[str, Any]] = {
    "bandkit.spectrum.interference:cross_section": {"interference": None},
}

_SECTIONS_BY_KIND = {"ftq": FTQ_SECTIONS, "runner": RUNNER_SECTIONS, "series": SERIES_SECTIONS,
                     "history": HISTORY_SECTIONS}


@dataclass(frozen=True)
class SectionResult:
    """One analysis' contribution to a trace's (or the report's) entry."""

    name: str
    fields: Mapping[str, Any]
    result: Any = None
    findings: Sequence[Mapping[str, Any]] = ()


@dataclass(frozen=True)
class AnalysisOptions:
    """Switches and parameters of :func:`analyze`. ``skip``: section names not to run.

    ``params``: per-section keyword options, e.g. ``{"bands": {"n_bands": 2}}``.
    """

    skip: frozenset[str] = frozenset()
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def for_section(self, name: str) -> Mapping[str, Any]:
        return self.params.get(name, {})


def _resolve(spec: str) -> Callable[..., SectionResult]:
    module, func = spec.split(":")
    return getattr(importlib.import_module(module), func)


def _section_name(spec: str) -> str:
    return spec.split(":")[0].rsplit(".", 1)[-1]


@dataclass(frozen=True)
class TraceReport:
    """The analyses of one trace."""

    trace: Trace
    index: int
    sections: tuple[SectionResult, ...]

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
        return jsonable(entry)

    def _repr_html_(self) -> str:
        from .render.html import trace_report_html

        return trace_report_html(self)


@dataclass(frozen=True)
class Report:
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

    def cross_section(self, name: str) -> SectionResult | None:
        for s in self.cross:
            if s.name == name:
                return s
        return None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "bandkit_version": __version__,
            "traces": [tr.to_dict() for tr in self.traces],
            "findings": jsonable(self.findings),
        }
        for s in self.cross:
            d.update(jsonable(s.fields))
        return d

    def to_json(self) -> str:
        return dumps(self.to_dict())

    def to_text(self, color: bool = False, width: int = 100) -> str:
        from .render.text import render_text

        return render_text(self, color=color, width=width)

    def to_html(self) -> str:
        from .render.html import render_html

        return render_html(self)

    def _repr_html_(self) -> str:
        from .render.html import report_html_fragment

        return report_html_fragment(self)


def _trace_specs(trace: Trace, options: AnalysisOptions) -> list[str]:
    return [spec for spec in _SECTIONS_BY_KIND.get(trace.kind, []) if _section_name(spec) not in options.skip]


def analyze_trace(trace: Trace, index: int = 0, options: AnalysisOptions | None = None) -> TraceReport:
    options = options or AnalysisOptions()
    sections = [_resolve(spec)(trace, options) for spec in _trace_specs(trace, options)]
    return TraceReport(trace, index, tuple(s for s in sections if s is not None))


def analyze(traces: Trace | Iterable[Trace], options: AnalysisOptions | None = None, *,
            progress: Callable[[Iterable], Iterable] | None = None) -> Report:
    """Run every registered analysis on ``traces`` (a Trace or an iterable of them).

    ``progress``: wraps the iterable of (trace, section) steps, e.g. ``tqdm`` — so that even one big
    trace shows its analyses advancing.
    """
    options = options or AnalysisOptions()
    if isinstance(traces, Trace):
        traces = [traces]
    traces = list(traces)
    steps = [(i, spec) for i, t in enumerate(traces) for spec in _trace_specs(t, options)]
    done: dict[int, list[SectionResult]] = {i: [] for i in range(len(traces))}
    for i, spec in (progress(steps) if progress else steps):
        s = _resolve(spec)(traces[i], options)
        if s is not None:
            done[i].append(s)
    reports = tuple(TraceReport(t, i, tuple(done[i])) for i, t in enumerate(traces))
    cross = []
    for spec in CROSS_SECTIONS:
        if _section_name(spec) in options.skip:
            continue
        need = CROSS_SECTION_NEEDS.get(spec)
        if need and sum(t.kind == need[0] for t in traces) < need[1]:
            if spec in CROSS_SECTION_EMPTY:
                cross.append(SectionResult(_section_name(spec), dict(CROSS_SECTION_EMPTY[spec])))
            continue
        s = _resolve(spec)(reports, options)
        if s is not None:
            cross.append(s)
    return Report(reports, tuple(cross), options)


def report(*paths, format: str | None = None, options: AnalysisOptions | None = None, **load_options) -> Report:
    """Load ``paths`` and analyse them: ``bandkit.report("trace.dat")`` in a notebook cell shows the report."""
    from .loaders import load_many

    return analyze(load_many(paths, format=format, **load_options), options)
