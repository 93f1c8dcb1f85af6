"""Text and HTML of a fleet ranking (:class:`bandkit.fleet.FleetReport`); its heat-map is :mod:`bandkit.plots.fleet`."""
from __future__ import annotations

from ..fleet.report import common_prefix
from .textutil import fmt_num, fmt_pct, fmt_time, shorten_distinct, table

_REASON = {"low_fraction": "low FTQ fraction", "high_fraction": "high FTQ fraction", "stalls": "stalls"}


def _stripped(r, prefix: str = "") -> str:
    s = r.label
    return s[len(prefix):] if prefix and s.startswith(prefix) else s


def _labels(rows, n: int = 30, prefix: str = "") -> list[str]:
    """Trace names without the shared prefix, cut in the middle to ``n`` characters so that
    different names stay different."""
    return shorten_distinct([_stripped(r, prefix) for r in rows], n)


def _bands(r) -> str:
    if not r.n_bands:
        return "–"
    if r.n_bands == 1 or not r.band_levels:
        return str(r.n_bands)
    return f"{r.n_bands} ({fmt_pct(r.degraded_share, 0)} low)"


def _z(z) -> str:
    if z is None:
        return "–"
    if z in (float("inf"), float("-inf")):
        return "∞" if z > 0 else "-∞"
    return f"{z:+.1f}"


def _lines(r, all_lines: bool = False) -> str:
    if not r.lines_hz:
        return "–"
    if all_lines:
        return ", ".join(fmt_num(f, 4) for f in r.lines_hz) + " Hz"
    return f"{fmt_num(r.lines_hz[0], 3)} Hz"


_FLAG = {"low_fraction": "F", "high_fraction": "F", "stalls": "S"}
_FLAG_LONG = {"low_fraction": "low FTQ fraction", "high_fraction": "high FTQ fraction", "stalls": "stall share"}


def fleet_rows(report, limit: int | None = None, label_width: int = 30,
               compact: bool = True) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the ranking table (shared by text and HTML); trace names without the
    directory all traces share. ``compact`` (text, 100 columns): no longest-stall column, one
    spectral line (the one with most harmonics), outlier reasons as letters (F, S)."""
    header = ["#", "trace", "fraction", "z", "stalls", "stall %"] + ([] if compact else ["longest"]) + \
        ["z", "bands"] + ([] if compact else ["steps"]) + ["line" if compact else "lines",
                                                          "out" if compact else "outlier"]
    prefix = common_prefix(report)
    rows = []
    shown = report.rows[:limit] if limit else report.rows
    for r, label in zip(shown, _labels(shown, label_width, prefix)):
        cells = [str(r.rank), label, fmt_num(r.ftq_fraction, 4), _z(r.z_fraction),
                 "–" if r.stall_count is None else f"{r.stall_count:,}", fmt_pct(r.stall_share, 2)]
        if not compact:
            cells.append(fmt_time(r.longest_stall_s))
        cells += [_z(r.z_stall), _bands(r)] + ([] if compact else [str(r.steps)]) + [
                  _lines(r, all_lines=not compact),
                  ("+".join(_FLAG[x] for x in r.outlier_reasons) if compact else
                   ", ".join(_FLAG_LONG[x] for x in r.outlier_reasons))]
        rows.append(cells)
    return header, rows


def fleet_verdict(report) -> str:
    """One line: how many traces, the median, and the outliers (data -> English)."""
    n = len(report.rows)
    if not n:
        return "no trace could be analysed"
    out = report.outliers
    prefix = common_prefix(report)
    parts = [f"{n} trace{'s' if n != 1 else ''}, median FTQ fraction {fmt_num(report.median_ftq_fraction, 4)}"]
    if report.median_stall_share is not None:
        parts.append(f"median stall share {fmt_pct(report.median_stall_share, 2)}")
    if out:
        names = ", ".join(f"{label} ({' + '.join(_REASON[x] for x in r.outlier_reasons)})"
                          for r, label in zip(out[:5], _labels(out[:5], 24, prefix)))
        parts.append(f"{len(out)} outlier{'s' if len(out) != 1 else ''}: {names}" + (" …" if len(out) > 5 else ""))
    else:
        parts.append("no outliers")
    return "; ".join(parts)


def render_fleet_text(report, width: int = 100, limit: int | None = None) -> str:
    prefix = common_prefix(report)
    lines = [f"bandkit fleet — {len(report.rows)} traces" + (f" in {prefix}" if prefix else ""),
             f"  verdict: {fleet_verdict(report)}", ""]
    for lw in range(44, 9, -2):  # the widest trace names that keep the table within ``width``
        header, rows = fleet_rows(report, limit, label_width=lw)
        tab = table(rows, header=header, width=10**6, align="rlrrrrrrrl")
        if max(len(t) for t in tab) <= width:
            break
    lines.extend(tab)
    if limit and len(report.rows) > limit:
        lines.append(f"  … {len(report.rows) - limit} more (use --format json for all)")
    lines.append("")
    lines.append(f"  z: modified z-score (median/MAD) of FTQ fraction and of stall share; out: |z| > "
                 f"{report.z_threshold:g} (F: FTQ fraction, S: stall share); line: the spectral line with most "
                 "harmonics")
    if report.errors:
        lines.append("")
        lines.append(f"  {len(report.errors)} input(s) could not be analysed:")
        lines.extend(f"    {p}: {e}" for p, e in report.errors)
    import textwrap

    out = []
    for ln in lines:
        out.extend(textwrap.wrap(ln, width, subsequent_indent="    ", break_long_words=False,
                                 break_on_hyphens=False) if len(ln) > width else [ln])
    return "\n".join(out) + "\n"


def render_fleet_html(report, max_rows: int | None = 400) -> str:
    """A self-contained HTML page: verdict, heat-map (inline PNG), ranking table, errors."""
    from .html_kit import _CSP

    body = fleet_html_fragment(report, max_rows=max_rows)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            f"<title>bandkit fleet</title></head><body style=\"margin:0;background:#fff\">{body}</body></html>\n")


def fleet_html_fragment(report, max_rows: int | None = 400) -> str:
    """The fleet as an HTML fragment with scoped CSS (what notebooks display)."""
    from .html_kit import _wrap, esc, figure_html, new_figure, table_html

    prefix = common_prefix(report)
    parts = [f"<h1>bandkit fleet</h1><p class=\"sub\">{len(report.rows)} traces"
             f"{' in ' + esc(prefix) if prefix else ''}</p>",
             f'<div class="verdict{" warn" if report.outliers else ""}">{esc(fleet_verdict(report))}</div>']
    if report.rows:
        n = min(len(report.rows), max_rows or len(report.rows))
        fig = new_figure(height=min(2.0 + 0.16 * n, 14.0))
        ax = fig.add_subplot()
        from ..plots.fleet import plot_fleet_heatmap

        plot_fleet_heatmap(report, ax=ax, max_rows=max_rows)
        parts.append(figure_html(fig, alt="fleet heat-map: work fraction per time bin, one row per trace",
                                 caption="Each row a trace (worst FTQ fraction on top), each column a time bin; "
                                         "colour: work done / (trace's max count x quanta). Red: outliers."))
    header, rows = fleet_rows(report, label_width=60, compact=False)
    parts.append("<h2>Ranking</h2>")
    parts.append(table_html(rows, header=header, numeric=[True, False] + [True] * 9 + [False, False]))
    parts.append(f'<p class="sub">z: modified z-score (median/MAD); outlier at |z| &gt; {report.z_threshold:g}</p>')
    if report.errors:
        parts.append("<h2>Inputs that could not be analysed</h2>")
        parts.append(table_html([[p, e] for p, e in report.errors], header=["file", "error"], numeric=[False, False]))
    return _wrap("".join(parts))


# -- what the display hook calls (bandkit.display.RENDERERS): a fleet of histories / runner results is
# ranked by regressions and drawn by bandkit.render.fleet_history ----------------------------------
def fleet_text(report, width: int = 100, limit: int | None = None) -> str:
    if report.ranking == "regressions":
        from .fleet_history import render_history_fleet_text

        return render_history_fleet_text(report, width=width, limit=limit)
    return render_fleet_text(report, width=width, limit=limit)


def fleet_html(report) -> str:
    if report.ranking == "regressions":
        from .fleet_history import render_history_fleet_html

        return render_history_fleet_html(report)
    return render_fleet_html(report)


def fleet_notebook(report) -> str:
    if report.ranking == "regressions":
        from .fleet_history import history_fleet_html_fragment

        return history_fleet_html_fragment(report)
    return fleet_html_fragment(report)
