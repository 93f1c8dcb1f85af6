"""Text renderer: a verdict line per trace, then each section's table. Fits 100 columns.

What to draw comes from the registries: a section's table from its ``text`` function
(:data:`bandkit.section.SECTIONS`: ``(SectionResult) -> lines``), a finding's verdict phrase from its
kind's ``phrase`` function (:data:`bandkit.findings.FINDING_KINDS`: ``(finding) -> phrase``).
"""
from __future__ import annotations

import os
import re

from ..findings import FINDING_KINDS
from ..section import SECTIONS, resolve
from .textutil import escape_control

_BOLD, _YELLOW, _RESET, _DIM = "\x1b[1m", "\x1b[33m", "\x1b[0m", "\x1b[2m"


def use_color(stream) -> bool:
    """Colour only on a terminal, and never with NO_COLOR set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def phrase(finding) -> str:
    """The verdict phrase of one finding; an unregistered kind shows as its name (never dropped)."""
    fk = FINDING_KINDS.get(finding.get("kind"))
    if fk is None:
        return str(finding.get("kind")).replace("_", " ")
    return resolve(fk.phrase)(finding)


def verdict_phrases(findings) -> list[str]:
    return [p for p in (phrase(f) for f in findings) if p]


def section_text(section) -> list[str]:
    """The text lines of one section result (none for an unregistered section or one without text)."""
    sec = SECTIONS.get(section.name)
    if sec is None or not sec.text:
        return []
    return resolve(sec.text)(section) or []


def _preamble(section) -> bool:
    sec = SECTIONS.get(section.name)
    return bool(sec and sec.preamble)


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
    for s in report.cross:
        if _preamble(s):
            lines.extend(map(escape_control, section_text(s)))
    for tr in report.traces:
        if lines:
            lines.append("")
        lines.append(f"{b}{escape_control(_trace_title(tr))}{r}"[: width + len(b) + len(r)])
        phrases = verdict_phrases(tr.findings)
        verdict = "; ".join(phrases) if phrases else "nothing unusual found"
        lines.append(f"  {y}verdict:{r} {escape_control(verdict)}")
        for s in tr.sections:
            lines.extend(map(escape_control, section_text(s)))
    for s in report.cross:
        sub = [] if _preamble(s) else section_text(s)
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
