"""English for the ``skipped`` entries of a trace (sections registered for its kind that did not analyse
it; reasons: :data:`bandkit.section.SKIP_REASONS`): one line, "not analysed: change points (8 quanta
needed, 5 given)", written by the text and HTML renderers. ``tests/test_registries_skipped.py`` checks
that every reason code and every section has its words here and shows in both renderers.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

#: How a section is named in the line (every registered section).
SECTION_TITLES: dict[str, str] = {
    "summary": "summary",
    "bands": "bands",
    "spectrum": "spectrum",
    "changepoints": "change points",
    "postmortem": "run post-mortem",
    "history": "history",
    "interference": "two-rate interference test",
    "runner_summary": "summary across benchmarks",
}


def _no_rate(d: Mapping[str, Any]) -> str:
    if d.get("time_unit") == "ticks":
        return "no sampling rate in seconds: times are clock ticks; --clock-hz gives the rate"
    return "no nominal sampling rate"


def _no_data(d: Mapping[str, Any]) -> str:
    n = d.get("n") or 0
    return f"no finite measured value in {n} row{'s' if n != 1 else ''}" if n else "no values"


#: reason code -> ``(detail) -> words`` (the words in brackets after the section's name).
PHRASES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "option": lambda d: "left out on request",
    "too_short": lambda d: f"{d.get('needed')} {d.get('what')} needed, {d.get('n')} given",
    "no_data": _no_data,
    "non_finite": lambda d: f"{d.get('n_non_finite')} of {d.get('n')} values are NaN or infinite",
    "all_zero": lambda d: "no work measured: at least 99 % of the counts are zero",
    "no_sampling_rate": _no_rate,
    "usage_error": lambda d: str(d.get("message") or "refused by the analysis"),
    "too_few_spectra": lambda d: f"{d.get('n')} FTQ trace(s) with a spectrum, {d.get('needed')} needed",
    "one_rate": lambda d: f"every FTQ trace sampled at {_rates(d)}: it needs two rates",
    "multiple_rates": lambda d: f"sampling rates {_rates(d)} are multiples of each other: aliases do not move apart",
}


def _rates(d: Mapping[str, Any]) -> str:
    return " and ".join(f"{float(r):g}" for r in d.get("rates_hz") or ()) + " Hz"



def skipped_phrase(entry: Mapping[str, Any]) -> str:
    """"change points (8 quanta needed, 5 given)"; an unregistered section or reason shows by its name
    (never dropped)."""
    name = str(entry.get("section"))
    title = SECTION_TITLES.get(name, name.replace("_", " "))
    words = PHRASES.get(str(entry.get("reason")))
    detail = entry.get("detail") or {}
    why = words(detail) if words is not None else str(entry.get("reason")).replace("_", " ")
    return f"{title} ({why})"


def skipped_line(skipped) -> str | None:
    """"not analysed: change points (…); spectrum (…)", or None when every section ran."""
    if not skipped:
        return None
    return "not analysed: " + "; ".join(skipped_phrase(e) for e in skipped)
