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

import base64
import contextvars
import html as _html
import io
import warnings
from typing import Any, Iterable, Sequence

from ..section import SECTIONS, resolve
from .text import _trace_title, phrase, section_text

#: Figure width in inches for a full-width plot, and the PNG resolution (px per inch).
FIG_WIDTH = 10.0
DPI = 110
#: "png" (default) or "svg": how :func:`figure_html` embeds plots.
FIGURE_FORMAT = "png"
#: A report with more traces than this plots only the traces that have a warning finding (the
#: others keep their tables and verdict); a 91-benchmark pyperformance run then stays fast and small.
PLOT_ALL_TRACES_UP_TO = 24

_PLOTS = contextvars.ContextVar("bandkit_html_plots", default=True)


def plots_enabled() -> bool:
    """False while rendering a trace whose plots are left out (see :data:`PLOT_ALL_TRACES_UP_TO`);
    section HTML functions check it before drawing."""
    return _PLOTS.get()

_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

CSS = """
.bk{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1d1d1f;
 line-height:1.45;max-width:1100px;margin:0 auto;padding:0 12px 24px;font-size:15px}
.bk h1{font-size:1.5em;margin:.6em 0 .2em}
.bk h2{font-size:1.25em;margin:1.4em 0 .3em;padding-top:.6em;border-top:2px solid #d0d7de;overflow-wrap:anywhere}
.bk h3{font-size:1.05em;margin:1em 0 .3em;color:#333}
.bk .sub{color:#57606a;font-size:.9em;margin:.1em 0 .6em;overflow-wrap:anywhere}
.bk .verdict{margin:.4em 0 .8em;padding:.5em .8em;background:#f6f8fa;border-left:4px solid #8c959f;
 border-radius:3px}
.bk .verdict.warn{border-left-color:#d4a72c;background:#fff8e1}
.bk .verdict ul{margin:.2em 0;padding-left:1.2em}
.bk .verdict .warning{font-weight:600}
.bk .overview{width:100%}
.bk .overview td{vertical-align:top}
.bk .overview td.v{width:70%}
.bk table{border-collapse:collapse;font-size:.92em;margin:.3em 0}
.bk th,.bk td{padding:.2em .7em .2em 0;text-align:left;border-bottom:1px solid #eaeef2}
.bk td.n,.bk th.n{text-align:right;font-variant-numeric:tabular-nums}
.bk .tbl{overflow-x:auto;max-width:100%}
.bk pre{font-size:.82em;background:#f6f8fa;padding:.5em;overflow-x:auto;border-radius:3px}
.bk figure{margin:.5em 0}
.bk img{max-width:100%;height:auto;display:block}
.bk figcaption{color:#57606a;font-size:.85em}
.bk .err{color:#b42318;background:#fef3f2;padding:.4em .6em;border-radius:3px}
.bk a{color:#0969da}
.bk .foot{color:#8c959f;font-size:.8em;margin-top:2em}
@media (max-width:600px){.bk{font-size:14px;padding:0 6px}.bk .overview td.v{width:auto}
 .bk .overview tr{display:block;margin-bottom:.5em}.bk .overview td{display:block;border:none}}
"""


def esc(x: Any) -> str:
    """Escape any value for HTML text and attribute context (None -> '–')."""
    return "–" if x is None else _html.escape(str(x), quote=True)


def figure_html(fig, alt: str = "", caption: str | None = None, dpi: int = DPI, fmt: str | None = None) -> str:
    """Embed a matplotlib figure as a base64 PNG ``<img>`` (or inline SVG with ``fmt="svg"``); the
    bytes are deterministic and the figure is closed.

    ``fig`` may be a :class:`matplotlib.figure.Figure` made without pyplot (preferred: no global
    state) or a pyplot figure. PNG is the default: for scatter plots of 10^5 points it is several
    times smaller and faster than SVG (benchmarks/RESULTS_html.md).
    """
    fmt = fmt or FIGURE_FORMAT
    buf = io.BytesIO()
    if fmt == "svg":
        import matplotlib

        with matplotlib.rc_context({"svg.hashsalt": "bandkit", "svg.fonttype": "none"}):
            fig.savefig(buf, format="svg", dpi=dpi, metadata={"Date": None, "Creator": None}, facecolor="white")
    elif fmt == "png":
        fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None}, facecolor="white")
    else:
        raise ValueError(f"fmt must be 'png' or 'svg', got {fmt!r}")
    try:
        import matplotlib.pyplot as plt

        plt.close(fig)
    except Exception:  # pragma: no cover
        pass
    cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
    if fmt == "svg":
        svg = buf.getvalue().decode("utf-8")
        svg = svg[svg.index("<svg"):]  # drop the XML prolog and DOCTYPE
        svg = svg.replace("<svg ", f'<svg role="img" aria-label="{esc(alt)}" style="max-width:100%;height:auto" ', 1)
        return f"<figure>{svg}{cap}</figure>"
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<figure><img src="data:image/png;base64,{data}" alt="{esc(alt)}">{cap}</figure>'


def new_figure(height: float = 3.2, width: float = FIG_WIDTH, layout: str | None = "constrained", **kw):
    """A pyplot-free :class:`~matplotlib.figure.Figure` of ``width`` x ``height`` inches.

    ``layout=None`` uses fixed margins (about 2x faster to draw than "constrained"; used where a
    report may hold hundreds of figures, e.g. one per benchmark).
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout=layout, **kw)
    if layout is None:
        fig.subplots_adjust(left=1.0 / width, right=1 - 0.25 / width, top=1 - 0.3 / height, bottom=0.55 / height,
                            hspace=0.15)
    return fig


def table_html(rows: Iterable[Sequence[Any]], header: Sequence[str] | None = None,
               numeric: Sequence[bool] | None = None) -> str:
    """A small HTML table; every cell escaped. ``numeric[i]`` right-aligns column i."""
    rows = [list(r) for r in rows]
    if not rows:
        return ""
    ncol = max(len(r) for r in rows + ([list(header)] if header else []))
    numeric = list(numeric) if numeric is not None else ([False] + [True] * (ncol - 1) if header else [False] * ncol)
    numeric += [False] * (ncol - len(numeric))
    out = ['<div class="tbl"><table>']
    if header:
        out.append("<thead><tr>" + "".join(
            f'<th{" class=n" if numeric[i] else ""}>{esc(h)}</th>' for i, h in enumerate(header)) + "</tr></thead>")
    out.append("<tbody>")
    for r in rows:
        r = r + [""] * (ncol - len(r))
        out.append("<tr>" + "".join(
            f'<td{" class=n" if numeric[i] else ""}>{esc(c)}</td>' for i, c in enumerate(r)) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def error_html(what: str, exc: BaseException) -> str:
    """A visible note for a part of the report that failed (also issued as a warning)."""
    warnings.warn(f"bandkit HTML: {what} failed: {type(exc).__name__}: {exc}", RuntimeWarning, stacklevel=3)
    return f'<p class="err">{esc(what)} failed: {esc(type(exc).__name__)}: {esc(exc)}</p>'


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
            body = _text_fallback(section)
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


def _text_fallback(section) -> str | None:
    lines = section_text(section)
    if not lines:
        return None
    return f"<h3>{esc(section.name)}</h3><pre>{esc(chr(10).join(lines))}</pre>"


def trace_report_html(tr, anchor: str | None = None, standalone: bool = True, plots: bool = True) -> str:
    """HTML of one trace's analyses (title, verdict, sections). ``standalone`` wraps it in the
    scoped stylesheet (for notebooks: ``TraceReport._repr_html_``); ``plots=False`` leaves the
    figures out (tables and verdict stay)."""
    token = _PLOTS.set(plots)
    try:
        aid = f' id="{esc(anchor)}"' if anchor else ""
        parts = [f'<section class="trace"{aid}>', f"<h2>{esc(trace_title(tr))}</h2>",
                 f'<p class="sub">{_meta_line(tr.trace)}</p>', _verdict_block(tr.findings)]
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


def _wrap(body: str) -> str:
    return f'<div class="bk"><style>{CSS}</style>{body}</div>'


# -- report -------------------------------------------------------------------------------
def _overview(report) -> str:
    rows = []
    for tr in report.traces:
        items = verdict_items(tr.findings)
        warn = any(s == "warning" for _, s in items)
        mark = "⚠ " if warn else ""
        rows.append(f'<tr><td><a href="#trace-{tr.index}">{esc(tr.trace.label)}</a></td>'
                    f'<td class="v">{mark}{esc(verdict_text(tr.findings))}</td></tr>')
    cross = [f for f in report.findings if f.get("trace") is None]
    out = ['<section class="summary"><h2>Verdict</h2>']
    if len(report.traces) == 0:
        out.append("<p>No traces.</p>")
    else:
        out.append(f'<div class="tbl"><table class="overview"><tbody>{"".join(rows)}</tbody></table></div>')
    if cross:
        out.append(_verdict_block(cross, "Across traces"))
    out.append("</section>")
    return "".join(out)


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
    parts.extend(trace_report_html(tr, anchor=f"trace-{tr.index}", standalone=False,
                                   plots=not many or any(f.get("severity") == "warning" for f in tr.findings))
                 for tr in report.traces)
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
