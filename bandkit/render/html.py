"""HTML renderer: one self-contained page (inline CSS, plots as embedded PNG, no scripts, no network).

Layout: the verdicts of all traces first (with links), then a section per trace/benchmark (its
verdict, then each analysis section's tables and plots), then the cross-trace sections.

What each section draws comes from :data:`bandkit.section.SECTIONS`: its ``html`` function
``(section, trace_report) -> str | None`` (cross sections: ``(section, report)``) gives an HTML fragment
(escape every input string with :func:`esc`; embed plots with :func:`figure_html`); a section without
one is shown as its text table (``<pre>``). Sections with ``key_plot`` draw the trace's key plot and come
first; a trace with none of them gets the plain raw plot. Verdict phrases are the text renderer's.

Security: every string that comes from an input file (paths, benchmark names, metadata) goes
through :func:`html.escape`; the page also carries a Content-Security-Policy that forbids scripts
and any network access, so a missed escape still cannot run code or phone home.
"""
from __future__ import annotations

from pathlib import PurePath
from typing import Iterable

from ..section import SECTIONS, resolve
from .html_kit import (_CSP, _PLOTS, CSS, DPI, FIG_WIDTH, _wrap, error_html, esc, figure_html, new_figure,
                       plots_enabled, table_html, text_fallback)
from .skipped import skipped_line
from .text import _trace_title, collapsed, cross_findings, phrase, section_text

# the building blocks (html_kit) stay importable from here
__all__ = ["render_html", "report_html_fragment", "report_body_html", "trace_report_html", "section_html",
           "verdict_items", "verdict_text", "trace_title", "PLOT_ALL_TRACES_UP_TO", "CSS", "DPI", "FIG_WIDTH",
           "esc", "figure_html", "new_figure", "table_html", "error_html", "plots_enabled"]

#: A report with more traces than this plots only the traces that have a warning finding (the
#: others keep their tables and verdict); a 91-benchmark pyperformance run then stays fast and small.
PLOT_ALL_TRACES_UP_TO = 24


# -- verdicts -----------------------------------------------------------------------------
def verdict_items(findings: Iterable[dict]) -> list[tuple[str, str]]:
    """``(phrase, severity)`` per finding that has a verdict phrase (same phrases as the text report)."""
    out = []
    for f in findings:
        p = phrase(f)
        if p:
            out.append((p, str(f.get("severity", "info"))))
    return out


def verdict_text(findings: Iterable[dict]) -> str:
    """The one-line verdict exactly as the text renderer writes it."""
    items = verdict_items(findings)
    return "; ".join(p for p, _ in items) if items else "nothing unusual found"


def _verdict_block(findings: Iterable[dict], label: str = "Verdict") -> str:
    items = verdict_items(findings)
    cls = "verdict warn" if any(s == "warning" for _, s in items) else "verdict"
    if not items:
        return f'<div class="{cls}"><b>{esc(label)}:</b> nothing unusual found</div>'
    if len(items) == 1:
        p, s = items[0]
        return f'<div class="{cls}"><b>{esc(label)}:</b> <span class="{esc(s)}">{esc(p)}</span></div>'
    lis = "".join(f'<li class="{esc(s)}">{esc(p)}</li>' for p, s in items)
    return f'<div class="{cls}"><b>{esc(label)}:</b><ul>{lis}</ul></div>'


def skipped_html(skipped, label: str | None = None) -> str:
    """The "not analysed: …" line of a trace or (``label``) of the report (:mod:`.skipped`), or "" when
    every section ran."""
    line = skipped_line(skipped)
    if not line:
        return ""
    return f'<p class="skipped">{esc(f"{label} — {line}" if label else line[0].upper() + line[1:])}</p>'


# -- per trace ----------------------------------------------------------------------------
def trace_title(tr) -> str:
    """Plain-text title of a trace (escape before use)."""
    return _trace_title(tr)


def _meta_line(trace) -> str:
    m = trace.meta
    bits = [f"{m.kind} / {m.format}", f"{len(trace):,} rows"]
    if m.thread is not None and m.kind == "ftq":
        bits.append(f"thread {m.thread}")
    if m.cpu is not None:
        bits.append(f"CPU {m.cpu}")
    if m.sampling_hz:
        bits.append(f"{m.sampling_hz:g} Hz")
    if m.value_unit and m.value_unit != "count":
        bits.append(f"unit {m.value_unit}")
    if m.kernel:
        bits.append(m.kernel)
    if m.cpu_model:
        bits.append(m.cpu_model)
    return " · ".join(esc(b) for b in bits)


def section_html(section, tr) -> str:
    """One analysis section of a trace: its registered HTML, else its text table in ``<pre>``."""
    sec = SECTIONS.get(section.name)
    try:
        if sec is not None and sec.html:
            body = resolve(sec.html)(section, tr)
        else:
            body = text_fallback(section)
    except Exception as exc:  # a broken plot must not take the whole report down; shown visibly
        body = error_html(f"section {section.name!r}", exc)
    if not body:
        return ""
    return f'<div class="section sec-{esc(section.name)}">{body}</div>'


def _key_plot(tr) -> str:
    try:
        from .html_sections import raw_plot_html

        return raw_plot_html(tr)
    except Exception as exc:
        return error_html("raw plot", exc)


def _key_plot_section(section) -> bool:
    sec = SECTIONS.get(section.name)
    return bool(sec and sec.key_plot)


def trace_report_html(tr, anchor: str | None = None, standalone: bool = True, plots: bool = True) -> str:
    """HTML of one trace's analyses (title, verdict, sections). ``standalone`` wraps it in the
    scoped stylesheet (for notebooks: ``TraceReport._repr_html_``); ``plots=False`` leaves the
    figures out (tables and verdict stay)."""
    token = _PLOTS.set(plots)
    try:
        aid = f' id="{esc(anchor)}"' if anchor else ""
        parts = [f'<section class="trace"{aid}>', f"<h2>{esc(trace_title(tr))}</h2>",
                 f'<p class="sub">{_meta_line(tr.trace)}</p>', _verdict_block(tr.findings),
                 skipped_html(tr.skipped)]
        if not plots:
            parts.append('<p class="sub">Plots left out: nothing in this trace needs a warning, and the report '
                         f"has more than {PLOT_ALL_TRACES_UP_TO} traces.</p>")
        elif not any(_key_plot_section(s) for s in tr.sections):
            parts.append(_key_plot(tr))
        ordered = sorted(tr.sections, key=lambda s: not _key_plot_section(s))  # stable: key plots first
        parts.extend(section_html(s, tr) for s in ordered)
        parts.append("</section>")
    finally:
        _PLOTS.reset(token)
    body = "".join(parts)
    return _wrap(body) if standalone else body


# -- report -------------------------------------------------------------------------------
def _overview(report) -> str:
    """The verdicts: across traces first (as in the text report), then one row per trace (one per group
    of benchmarks that could not be classified)."""
    from .text_runners import group_title, group_verdict

    rows = []
    labels = [t.trace.label for t in report.traces]
    twice = {lab for lab in set(labels) if labels.count(lab) > 1}
    for what, obj in collapsed(report):
        if what == "group":
            rows.append(f'<tr><td><a href="#trace-{obj[0].index}">{esc(group_title(obj))}</a></td>'
                        f'<td class="v">{esc(group_verdict(obj))}</td></tr>')
            continue
        tr = obj
        items = verdict_items(tr.findings)
        warn = any(s == "warning" for _, s in items)
        mark = "⚠ " if warn else ""
        label = tr.trace.label
        if label in twice and tr.trace.path and tr.trace.path != label:  # the same benchmark in two files
            label += f" ({PurePath(tr.trace.path).name})"
        rows.append(f'<tr><td><a href="#trace-{tr.index}">{esc(label)}</a></td>'
                    f'<td class="v">{mark}{esc(verdict_text(tr.findings))}</td></tr>')
    cross = cross_findings(report)
    out = ['<section class="summary"><h2>Verdict</h2>']
    if cross:
        out.append(_verdict_block(cross, "Across traces"))
    out.append(skipped_html(getattr(report, "skipped", ()), "Across traces"))
    if len(report.traces) == 0:
        out.append("<p>No traces.</p>")
    else:
        out.append(f'<div class="tbl"><table class="overview"><tbody>{"".join(rows)}</tbody></table></div>')
    out.append("</section>")
    return "".join(out)


def group_html(trs) -> str:
    """One section for many benchmarks that could not be classified: their central values in a table."""
    from .text_runners import group_table, group_title, group_verdict

    header, rows = group_table(trs)
    return (f'<section class="trace" id="trace-{trs[0].index}"><h2>{esc(group_title(trs))}</h2>'
            f'<div class="verdict"><b>Verdict:</b> {esc(group_verdict(trs))}; their central values:</div>'
            f"{skipped_html(trs[0].skipped)}"
            f"{table_html(rows, header=header)}</section>")


def _preamble(report) -> str:
    out = []
    for s in report.cross:
        sec = SECTIONS.get(s.name)
        if not (sec and sec.preamble):
            continue
        try:
            lines = section_text(s)
        except Exception as exc:
            out.append(error_html("report preamble", exc))
            continue
        if lines:
            out.append(f"<pre>{esc(chr(10).join(lines))}</pre>")
    return "".join(out)


def _cross_html(report) -> str:
    out = []
    for s in report.cross:
        sec = SECTIONS.get(s.name)
        if sec is None or sec.preamble:
            continue
        try:
            if sec.html:
                body = resolve(sec.html)(s, report)
            else:
                lines = section_text(s)
                body = f"<h3>{esc(s.name)}</h3><pre>{esc(chr(10).join(lines))}</pre>" if lines else None
        except Exception as exc:
            body = error_html(f"cross section {s.name!r}", exc)
        if body:
            out.append(f'<div class="section cross-{esc(s.name)}">{body}</div>')
    if not out:
        return ""
    return '<section class="cross"><h2>Across traces</h2>' + "".join(out) + "</section>"


def report_body_html(report) -> str:
    """The report as an HTML fragment (scoped CSS, no <html>): what notebooks display."""
    from .._version import __version__

    n = len(report.traces)
    head = (f"<h1>bandkit report</h1><p class=\"sub\">{n} trace{'s' if n != 1 else ''} · bandkit "
            f"{esc(__version__)}</p>")
    parts = [head, _overview(report), _preamble(report)]
    many = len(report.traces) > PLOT_ALL_TRACES_UP_TO
    for what, obj in collapsed(report):
        if what == "group":
            parts.append(group_html(obj))
        else:
            parts.append(trace_report_html(obj, anchor=f"trace-{obj.index}", standalone=False,
                                           plots=not many or any(f.get("severity") == "warning"
                                                                 for f in obj.findings)))
    parts.append(_cross_html(report))
    return "".join(parts)


def report_html_fragment(report) -> str:
    """``Report._repr_html_``: the same content as :func:`render_html`, without the document shell."""
    return _wrap(report_body_html(report))


def render_html(report) -> str:
    """The full self-contained HTML document of ``report`` (UTF-8 text)."""
    title = "bandkit report"
    if len(report.traces) == 1:
        title += " — " + report.traces[0].trace.label
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            '<meta name="referrer" content="no-referrer">'
            f"<title>{esc(title)}</title></head><body style=\"margin:0;background:#fff\">"
            f"{report_html_fragment(report)}</body></html>\n")
