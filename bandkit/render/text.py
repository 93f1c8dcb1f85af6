"""Text renderer: a verdict line per trace, then each section's table. Fits 100 columns.

Register a section's text with ``SECTION_TEXT[name] = "module:function"`` (function(SectionResult)
-> list of lines) and a phrase for each finding kind with ``VERDICT_PHRASES[kind] = "module:function"``
(function(finding dict) -> short phrase). Cross-trace sections use ``CROSS_TEXT``.
"""
from __future__ import annotations

import importlib
import os
import re
from typing import Callable

from .textutil import escape_control

SECTION_TEXT: dict[str, str] = {
    "bands": "bandkit.render.text_bands:render",
    "summary": "bandkit.render.text_summary:render",
    "spectrum": "bandkit.render.text_interference:render_spectrum",
    "postmortem": "bandkit.render.text_runners:render",
    "changepoints": "bandkit.render.text_changepoints:render",
    "history": "bandkit.render.text_history:render",
}
VERDICT_PHRASES: dict[str, str] = {
    "band_levels": "bandkit.render.text_bands:phrase",
    "stalls": "bandkit.render.text_summary:phrase_stalls",
    "partial_quantum": "bandkit.render.text_summary:phrase_partial",
    "time_in_ticks": "bandkit.render.text_summary:phrase_ticks",
    "fraction_mismatch": "bandkit.render.text_summary:phrase_fraction",
    "spectral_line": "bandkit.render.text_interference:phrase_line",
    "periodic_interference": "bandkit.render.text_interference:phrase_interference",
    "sampling_locked": "bandkit.render.text_interference:phrase_locked",
    "level_shift": "bandkit.render.text_changepoints:phrase",
    **{k: "bandkit.render.text_history:phrase" for k in ("regression", "episode", "drift", "improvement",
                                                         "stable_history", "too_few_builds")},
    **{k: "bandkit.render.text_runners:phrase" for k in ("step", "bimodal", "bands", "trend", "warmup", "outlier_runs",
                                                          "stable_runs", "no_per_run_data", "too_few_runs")},
}
#: Cross-trace sections: name -> function(SectionResult) -> lines.
CROSS_TEXT: dict[str, str] = {"interference": "bandkit.render.text_interference:render_interference"}
#: Report-level preamble (e.g. a summary across benchmarks): function(Report) -> lines.
PREAMBLE_TEXT: list[str] = ["bandkit.render.text_runners:preamble"]

_BOLD, _YELLOW, _RESET, _DIM = "\x1b[1m", "\x1b[33m", "\x1b[0m", "\x1b[2m"


def _fn(spec: str) -> Callable:
    module, func = spec.split(":")
    return getattr(importlib.import_module(module), func)


def use_color(stream) -> bool:
    """Colour only on a terminal, and never with NO_COLOR set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def verdict_phrases(findings) -> list[str]:
    out = []
    for f in findings:
        spec = VERDICT_PHRASES.get(f.get("kind"))
        if spec:
            phrase = _fn(spec)(f)
            if phrase:
                out.append(phrase)
    return out


def _trace_title(tr) -> str:
    m = tr.trace.meta
    bits = [m.format]
    if m.name:
        bits.insert(0, m.name)
    if m.thread is not None and m.kind == "ftq":
        bits.append(f"thread {m.thread}")
    if m.sampling_hz:
        bits.append(f"{m.sampling_hz:g} Hz")
    return f"{m.path} — " + ", ".join(bits) if not m.name else f"{m.name} — {m.path}"


def render_text(report, color: bool = False, width: int = 100) -> str:
    # Names and paths come from the input: every line is escaped (escape_control) before the
    # renderer's own colour codes are added, so a name cannot drive the terminal.
    b, y, r = (_BOLD, _YELLOW, _RESET) if color else ("", "", "")
    lines: list[str] = []
    for spec in PREAMBLE_TEXT:
        lines.extend(map(escape_control, _fn(spec)(report)))
    for tr in report.traces:
        if lines:
            lines.append("")
        lines.append(f"{b}{escape_control(_trace_title(tr))}{r}"[: width + len(b) + len(r)])
        phrases = verdict_phrases(tr.findings)
        verdict = "; ".join(phrases) if phrases else "nothing unusual found"
        lines.append(f"  {y}verdict:{r} {escape_control(verdict)}")
        for s in tr.sections:
            spec = SECTION_TEXT.get(s.name)
            if spec:
                sub = _fn(spec)(s)
                if sub:
                    lines.extend(map(escape_control, sub))
    for s in report.cross:
        spec = CROSS_TEXT.get(s.name)
        if spec:
            sub = _fn(spec)(s)
            if sub:
                lines.append("")
                lines.extend(map(escape_control, sub))
    return "\n".join(_wrap(l, width) for l in lines) + "\n"


def _wrap(line: str, width: int) -> str:
    if len(line) <= width or "\x1b" in line:
        return line
    import textwrap

    indent = len(line) - len(line.lstrip(" "))
    # a number and its unit stay on one line ("72 %", "9.9 ms", "100 Hz")
    glued = _NUMBER_UNIT.sub("\\1\u00a0\\2", line)
    return "\n".join(w.replace("\u00a0", " ")
                     for w in textwrap.wrap(glued, width=width, subsequent_indent=" " * (indent + 2)))


_NUMBER_UNIT = re.compile(r"(\d) (%|[µmnk]?s\b|[kMG]?Hz\b|°C)")
