"""Building blocks of the HTML renderers: escaping, tables, embedded figures, the scoped stylesheet, and
the switch that leaves plots out. (The page itself is :mod:`bandkit.render.html`; the sections'
fragments are :mod:`bandkit.render.html_sections`.)"""
from __future__ import annotations

import base64
import contextvars
import html as _html
import io
import warnings
from typing import Any, Iterable, Sequence

#: Figure width in inches for a full-width plot, and the PNG resolution (px per inch).
FIG_WIDTH = 10.0
DPI = 110
#: "png" (default) or "svg": how :func:`figure_html` embeds plots.
FIGURE_FORMAT = "png"

_PLOTS = contextvars.ContextVar("bandkit_html_plots", default=True)


def plots_enabled() -> bool:
    """False while rendering a trace whose plots are left out (see
    :data:`bandkit.render.html.PLOT_ALL_TRACES_UP_TO`); section HTML functions check it before drawing."""
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
.bk .skipped{color:#57606a;margin:-.4em 0 .8em;padding:0 .8em}
.bk .verdict ul{margin:.2em 0;padding-left:1.2em}
.bk .verdict .warning{font-weight:600}
.bk .overview{width:100%}
.bk .overview td{vertical-align:top}
.bk .overview td.v{width:70%}
.bk table{border-collapse:collapse;font-size:.92em;margin:.3em 0}
.bk th,.bk td{padding:.2em .7em .2em 0;text-align:left;border-bottom:1px solid #eaeef2}
.bk td.n,.bk th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
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


def _wrap(body: str) -> str:
    return f'<div class="bk"><style>{CSS}</style>{body}</div>'


def text_fallback(section) -> str | None:
    """A section without HTML of its own: its text table in ``<pre>`` (None when it has no text)."""
    from .text import section_text

    lines = section_text(section)
    if not lines:
        return None
    return f"<h3>{esc(section.name)}</h3><pre>{esc(chr(10).join(lines))}</pre>"
