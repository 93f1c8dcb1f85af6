"""Text renderer: a verdict line per trace, then each section's table. Fits 100 columns.

What to draw comes from the registries: a section's table from its ``text`` function
(:data:`bandkit.section.SECTIONS`: ``(SectionResult) -> lines``), a finding's verdict phrase from its
kind's ``phrase`` function (:data:`bandkit.findings.FINDING_KINDS`: ``(finding) -> phrase``).
"""
from __future__ import annotations

import os

from ..findings import FINDING_KINDS
from ..section import SECTIONS, resolve
from .skipped import skipped_line
from .textutil import escape_control, text_width, wrap_line as _wrap

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


#: Finding kinds of a runner benchmark that says nothing but "no classification": several of them
#: in one file are shown as one table (name and central value per benchmark), not one block each.
COLLAPSIBLE = ("too_few_runs", "no_per_run_data")
#: Fewer such benchmarks than this keep their own blocks.
COLLAPSE_FROM = 3


def collapsed(report) -> list[tuple[str, object]]:
    """The traces in report order as ``("trace", trace_report)`` items, except that runner benchmarks
    of one file whose only finding is the same :data:`COLLAPSIBLE` kind (with the same reason) are one
    ``("group", [trace_reports])`` item, placed where the first of them was."""
    groups: dict[tuple, list] = {}
    for tr in report.traces:
        fs = tr.findings
        if tr.trace.kind == "runner" and len(fs) == 1 and fs[0].get("kind") in COLLAPSIBLE:
            groups.setdefault((tr.trace.path, fs[0]["kind"], str(fs[0].get("reason")), skipped_line(tr.skipped)),
                              []).append(tr)
    big = {id(tr): key for key, trs in groups.items() if len(trs) >= COLLAPSE_FROM for tr in trs}
    out: list[tuple[str, object]] = []
    seen = set()
    for tr in report.traces:
        key = big.get(id(tr))
        if key is None:
            out.append(("trace", tr))
        elif key not in seen:
            seen.add(key)
            out.append(("group", groups[key]))
    return out


def cross_findings(report) -> list[dict]:
    return [f for f in report.findings if f.get("trace") is None]


def render_text(report, color: bool = False, width: int = 100) -> str:
    with text_width(width):
        return _render_text(report, color, width)


def _render_text(report, color: bool, width: int) -> str:
    # Names and paths come from the input: every line is escaped (escape_control) before the
    # renderer's own colour codes are added, so a name cannot drive the terminal. Lines are wrapped
    # at spaces (a word is never cut), then coloured.
    items: list[tuple[str, str | None]] = []  # (plain line, style: "title" | "verdict" | None)

    def add(lines, style=None):
        items.extend((escape_control(x), style) for x in lines)

    cross = verdict_phrases(cross_findings(report))
    if cross:  # the verdict across traces first (its tables come at the end)
        add([f"Across traces — verdict: {'; '.join(cross)}"], "verdict")
    cross_skip = skipped_line(getattr(report, "skipped", ()))
    if cross_skip:
        add([f"Across traces — {cross_skip}"])
    for s in report.cross:
        if _preamble(s):
            add(section_text(s))
    for what, obj in collapsed(report):
        if items:
            add([""])
        if what == "group":
            from .text_runners import render_group

            add(render_group(obj))
            continue
        tr = obj
        add([_trace_title(tr)], "title")
        phrases = verdict_phrases(tr.findings)
        add([f"  verdict: {'; '.join(phrases) if phrases else 'nothing unusual found'}"], "verdict")
        skip = skipped_line(tr.skipped)
        if skip:
            add([f"  {skip}"])
        for s in tr.sections:
            add(section_text(s))
    for s in report.cross:
        sub = [] if _preamble(s) else section_text(s)
        if sub:
            add([""])
            add(sub)
    out = []
    for text, style in items:
        wrapped = _wrap(text, width).split("\n")
        if color and style == "title":
            wrapped = [f"{_BOLD}{w}{_RESET}" for w in wrapped]
        elif color and style == "verdict":
            wrapped[0] = wrapped[0].replace("verdict:", f"{_YELLOW}verdict:{_RESET}", 1)
        out.extend(wrapped)
    return "\n".join(out) + "\n"


