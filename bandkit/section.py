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

A section returns None only for a trace it never applies to; one it cannot analyse (too short, no
sampling rate, an analysis' UsageError) returns :func:`skipped` with a code of :data:`SKIP_REASONS`,
so that the report says so (the trace's ``skipped`` list) instead of dropping it.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from .errors import InvalidValueError

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
    #: Set when the section could not analyse the trace: ``{"reason": code of SKIP_REASONS, "detail": {...}}``
    #: (made by :func:`skipped`); the trace's JSON entry lists it under ``skipped``. ``fields`` are then
    #: only the keys the JSON contract writes all the same (e.g. ``"spectrum": null``).
    skipped: Mapping[str, Any] | None = None

    def __repr__(self) -> str:
        if self.skipped is not None:
            return f"<SectionResult {self.name!r}: skipped ({self.skipped['reason']})>"
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
    ``batch``: optional ``"module:function"`` ``(traces, options) -> list`` giving ``run``'s result of each
    of the traces, analysed together (the runner post-mortems of a file); :func:`bandkit.analyze.analyze`
    calls it once for the traces of a report that the section runs on.
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
    batch: str | None = None

    @property
    def traces(self) -> tuple[str, ...]:
        """The trace kinds this (per-trace) section runs on."""
        return tuple(kind for kind, names in TRACE_SECTIONS.items() if self.name in names)

    @property
    def emits(self) -> tuple[str, ...]:
        """The finding kinds this section emits (from :data:`bandkit.findings.FINDING_KINDS`)."""
        from .findings import FINDING_KINDS

        return tuple(k for k, fk in FINDING_KINDS.items() if fk.section == self.name)


#: Why a section registered for a trace's kind did not analyse it: code -> (detail keys, meaning for the
#: README). The trace's JSON entry lists such sections under ``skipped`` ([{section, reason, detail}]),
#: a cross section that could not run is in the report's top-level ``skipped``;
#: the text and HTML renderers have a phrase for every code (``bandkit/render/skipped.py``). A section
#: that never applies to a trace kind (not in its :data:`TRACE_SECTIONS` list) is not "skipped".
SKIP_REASONS: dict[str, tuple[tuple[str, ...], str]] = {
    "option": ((), "left out on request (`AnalysisOptions(skip=...)`)"),
    "too_short": (("n", "needed", "what"), "fewer values than the analysis needs (`what`: `values` or `quanta`)"),
    "no_data": (("n",), "no finite measured value among the trace's `n` rows"),
    "non_finite": (("n", "n_non_finite"), "some values are NaN or infinite (the analysis needs every value)"),
    "all_zero": (("n",), "FTQ counts are (nearly) all zero (99th percentile 0): no work measured to analyse"),
    "no_sampling_rate": (("time_unit",), "no sampling rate in seconds (e.g. two-file FTQ in ticks without "
                                         "`--clock-hz`)"),
    "usage_error": (("message",), "the analysis refused its input or options (`message`: what it said)"),
    # cross sections (the report's top-level ``skipped``)
    "too_few_spectra": (("n", "needed"), "two-rate test: fewer FTQ traces with a spectrum than it needs (each "
                                         "trace's `skipped` says why)"),
    "one_rate": (("rates_hz",), "two-rate test: every FTQ trace has the same sampling rate"),
    "multiple_rates": (("rates_hz",), "two-rate test: the sampling rates are multiples of each other (aliases "
                                      "do not move apart)"),
}


def skipped(name: str, reason: str, fields: Mapping[str, Any] | None = None, **detail: Any) -> SectionResult:
    """The result of a section that could not analyse the trace (``reason``: a code of
    :data:`SKIP_REASONS`; ``detail``: its data keys, numbers or codes, never English)."""
    keys = SKIP_REASONS.get(reason)
    if keys is None:
        raise ValueError(f"unregistered skip reason {reason!r} (bandkit.section.SKIP_REASONS)")
    if set(detail) != set(keys[0]):
        raise ValueError(f"skip reason {reason!r} takes detail {keys[0]}, got {tuple(detail)}")
    return SectionResult(name, dict(fields or {}), skipped={"reason": reason, "detail": dict(detail)})


def skipped_by(name: str, exc: Exception, fields: Mapping[str, Any] | None = None,
               params: Mapping[str, Any] | None = None) -> SectionResult:
    """:func:`skipped` for an analysis' :class:`~bandkit.errors.UsageError`: its reason when it is a
    :class:`~bandkit.errors.NotAnalysable`, else ``usage_error`` with its message.

    ``params``: the caller's options for this section (``AnalysisOptions.params[name]``). When the
    caller gave some and the analysis refused one as invalid whatever the trace
    (:class:`~bandkit.errors.InvalidValueError`, e.g. ``n_bands=-1``), the error is the caller's: it is
    raised, naming the section, instead of becoming a ``skipped`` entry on every trace. An option that
    only does not fit this trace (a spectrum segment longer than it) stays a ``usage_error`` entry."""
    reason = getattr(exc, "reason", None)
    if reason is not None:
        return skipped(name, reason, fields, **exc.detail)
    if params and isinstance(exc, InvalidValueError):
        raise InvalidValueError(f"AnalysisOptions params[{name!r}]: {exc}") from exc
    return skipped(name, "usage_error", fields, message=" ".join(str(exc).split()))


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
            text=_R + "text_runners:render", html=_R + "html_sections:postmortem_html", key_plot=True,
            batch="bandkit.postmortem.section:runner_sections"),
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


def skip_reasons_table() -> str:
    """The README's table of ``skipped`` reasons (regenerate: ``python -m bandkit.section``)."""
    rows = ["| reason | `detail` | meaning |", "|---|---|---|"]
    for code, (keys, meaning) in SKIP_REASONS.items():
        rows.append(f"| `{code}` | {', '.join(f'`{k}`' for k in keys) or '–'} | {meaning} |")
    return "\n".join(rows)


if __name__ == "__main__":  # pragma: no cover
    print(skip_reasons_table())
