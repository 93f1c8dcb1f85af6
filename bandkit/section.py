"""The section contract (ground floor): what an analysis hands the report, and the registry of sections.

A *section* is ``run(trace, options) -> SectionResult | None`` (a *cross* section:
``run(trace_reports, options)``, its fields go to the top level of the report). It is registered in
:data:`SECTIONS` by an explicit ``name``: the name users give in ``AnalysisOptions(skip=...)`` and
``params``, the ``section`` of its findings in the JSON report, and the name its result carries.
The finding kinds a section emits are listed in :mod:`bandkit.findings` (one table);
:attr:`Section.emits` reads them from there.

Functions are named by ``"module:function"`` strings so that a report imports only the analyses it
runs (an FTQ report must not pay for the runner post-mortem's imports); :func:`resolve` is the one
place that turns such a string into the function. ``tests/test_registries.py`` resolves every one.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

@dataclass(frozen=True, eq=False)
class Series:
    """The series an analysis saw, so that renderers and plots draw it instead of deriving it again.

    ``values`` (1-D float array) and ``times`` (seconds, or None when the trace has no times in
    seconds); ``what``: ``"samples"``, ``"run_means"`` (one value per run, at the run's first time)
    or ``"block_means"`` (means of ``block`` consecutive samples, at the block's first time).
    """

    values: Any = field(repr=False)
    times: Any = field(default=None, repr=False)
    what: str = "samples"
    block: int = 1


@dataclass(frozen=True)
class SectionResult:
    """One analysis' contribution to a trace's (or, for a cross section, the report's) entry.

    ``fields`` are merged, in section order, into the trace's JSON entry; ``result`` keeps the analysis
    object (for plots and HTML); ``findings`` are data (dicts with ``kind`` and ``severity``, kinds
    registered in :mod:`bandkit.findings`); ``series`` is the series the analysis saw (or None).
    """

    name: str
    fields: Mapping[str, Any]
    result: Any = None
    findings: Sequence[Mapping[str, Any]] = ()
    series: Series | None = None

    def __repr__(self) -> str:
        kinds = sorted({str(f.get("kind")) for f in self.findings})
        return (f"<SectionResult {self.name!r}: fields {', '.join(self.fields)}; "
                f"{len(self.findings)} finding(s){' (' + ', '.join(kinds) + ')' if kinds else ''}; "
                f"result {type(self.result).__name__}>")


@dataclass(frozen=True)
class AnalysisOptions:
    """Switches and parameters of :func:`bandkit.analyze`.

    ``skip``: section names (:data:`SECTIONS`) not to run. ``params``: per-section keyword options,
    e.g. ``{"bands": {"n_bands": 2}}``. Unknown names are a :class:`~bandkit.errors.UsageError`
    when the analysis starts (a misspelt skip must not silently run the section).
    """

    skip: frozenset[str] = frozenset()
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def for_section(self, name: str) -> Mapping[str, Any]:
        return self.params.get(name, {})


@dataclass(frozen=True)
class Section:
    """A registered section.

    ``run``: ``"module:function"`` of the section. Per-trace sections run on the trace kinds whose
    :data:`TRACE_SECTIONS` list names them, in that order. ``cross``: it runs once over all trace
    reports, after them (in :data:`SECTIONS` order); ``needs`` = (trace kind, minimum number of such
    traces) it needs to have anything to say (it is not even imported otherwise); ``empty``: the fields
    it writes all the same when its needs are not met (a key that is part of the JSON contract).
    ``text``: ``"module:function"`` ``(SectionResult) -> lines``; ``preamble``: a cross section whose
    text comes before the traces (e.g. the summary across benchmarks). ``html``: ``"module:function"``
    ``(SectionResult, trace report or report) -> str | None`` (without one, HTML shows the text in
    ``<pre>``); ``key_plot``: its HTML draws the trace's key plot (shown right after the verdict).
    """

    name: str
    run: str
    cross: bool = False
    needs: tuple[str, int] | None = None
    empty: Mapping[str, Any] | None = None
    text: str | None = None
    preamble: bool = False
    html: str | None = None
    key_plot: bool = False

    @property
    def traces(self) -> tuple[str, ...]:
        """The trace kinds this (per-trace) section runs on."""
        return tuple(kind for kind, names in TRACE_SECTIONS.items() if self.name in names)

    @property
    def emits(self) -> tuple[str, ...]:
        """The finding kinds this section emits (from :data:`bandkit.findings.FINDING_KINDS`)."""
        from .findings import FINDING_KINDS

        return tuple(k for k, fk in FINDING_KINDS.items() if fk.section == self.name)


_R = "bandkit.render."
#: Every section by its explicit name.
SECTIONS: dict[str, Section] = {s.name: s for s in (
    Section("summary", "bandkit.summary:section",
            text=_R + "text_summary:render", html=_R + "html_sections:summary_html"),
    Section("bands", "bandkit.bands.section:section",
            text=_R + "text_bands:render", html=_R + "html_sections:bands_html", key_plot=True),
    Section("spectrum", "bandkit.spectrum.spectrum:section",
            text=_R + "text_interference:render_spectrum", html=_R + "html_sections:spectrum_html"),
    Section("changepoints", "bandkit.changepoints.section:section",
            text=_R + "text_changepoints:render", html=_R + "html_sections:changepoints_html"),
    Section("postmortem", "bandkit.postmortem.section:runner_section",
            text=_R + "text_runners:render", html=_R + "html_sections:postmortem_html", key_plot=True),
    Section("history", "bandkit.history.section:section",
            text=_R + "text_history:render", html=_R + "html_sections:history_html", key_plot=True),
    # cross sections, in report order. (The interference test needs two FTQ traces; its
    # ``"interference": null`` is part of the JSON contract, so a runner or history report writes it
    # without importing the spectrum analyses.)
    Section("interference", "bandkit.spectrum.interference:cross_section", cross=True, needs=("ftq", 2),
            empty={"interference": None},
            text=_R + "text_interference:render_interference", html=_R + "html_sections:interference_html"),
    Section("runner_summary", "bandkit.postmortem.section:runner_summary", cross=True, needs=("runner", 1),
            text=_R + "text_runners:render_summary", preamble=True),
)}

#: The per-trace sections of each trace kind, in report order (their fields appear in this order).
TRACE_SECTIONS: dict[str, tuple[str, ...]] = {
    "ftq": ("summary", "bands", "spectrum", "changepoints"),
    "runner": ("summary", "postmortem"),
    "series": ("changepoints", "bands"),
    "history": ("history",),  # one benchmark across builds (performance-CI histories): only what it needs
}


def resolve(spec: str) -> Callable[..., Any]:
    """The function a ``"module:function"`` string names (the module is imported on first use)."""
    f = _RESOLVED.get(spec)
    if f is None:  # (import_module on every call cost ~20 us: 0.5-1 s for a file of 23,000 benchmarks)
        module, _, func = spec.partition(":")
        f = _RESOLVED[spec] = getattr(importlib.import_module(module), func)
    return f


_RESOLVED: dict[str, Callable[..., Any]] = {}


def check_names(names, what: str) -> None:
    """Raise :class:`~bandkit.errors.UsageError` for names that are not registered sections."""
    unknown = sorted(set(names) - set(SECTIONS))
    if unknown:
        from .errors import UsageError

        raise UsageError(f"unknown section name(s) in {what}: {', '.join(unknown)} "
                         f"(known: {', '.join(SECTIONS)})")
