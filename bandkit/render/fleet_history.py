"""Text and HTML of a fleet ranked by regressions (histories and runner results, see
:mod:`bandkit.fleet.history`): a ranking table, and in HTML one small inline-SVG sparkline per
flagged series, the worst first (no plotting library: a fleet of 1,000 histories renders in
milliseconds)."""
from __future__ import annotations

import math
import re
from typing import Any

from .text_history import fmt_ratio
from .textutil import ellipsize, fmt_num, shorten_distinct, table


_TABLE_EXT = re.compile(r"\.(csv|tsv|parquet)(\.gz)?$", re.I)


def _stripped(label: str, prefix: str) -> str:
    s = label[len(prefix):] if prefix and label.startswith(prefix) else label
    return _TABLE_EXT.sub("", s)


def _label(label: str, prefix: str, n: int) -> str:
    return ellipsize(_stripped(label, prefix), n, "middle")


def _p(p) -> str:
    return "–" if p is None else ("<1e-12" if p < 1e-12 else f"{p:.1g}")


def _worst(e: dict[str, Any]) -> dict[str, Any] | None:
    regs = e.get("open_regressions") or []
    if not regs:
        return None
    return max(regs, key=lambda c: abs(math.log(c["ratio"])) if c.get("ratio") and c["ratio"] > 0 else 0.0)


def fleet_verdict(report) -> str:
    ex = [r.extra for r in report.rows if r.extra]
    n_reg = sum(1 for e in ex if e.get("open_regressions"))
    n_ep = sum(1 for e in ex if e.get("episodes"))
    n_dr = sum(1 for e in ex if e.get("drifts"))
    since = next((e.get("since") for e in ex if e.get("since") is not None), None)
    head = f"{len(ex):,} series" + (f", changes since build {since}" if since is not None else "")
    if not (n_reg or n_ep or n_dr):
        return f"{head}: no open regression, no episode"
    bits = []
    if n_reg:
        bits.append(f"{n_reg:,} with open regressions")
    if n_dr:
        bits.append(f"{n_dr:,} drifting slower")
    if n_ep:
        bits.append(f"{n_ep:,} with episodes (fixed or lost)")
    return f"{head}: " + ", ".join(bits)


def fleet_table(report, label_width: int = 26, limit: int | None = None):
    from ..fleet.report import common_prefix

    prefix = common_prefix(report)
    rows = []
    shown = report.rows[: limit or len(report.rows)]
    labels = shorten_distinct([_stripped(r.label, prefix) for r in shown], label_width)
    for r, label in zip(shown, labels):
        e = r.extra or {}
        w = _worst(e)
        hib = bool(e.get("higher_is_better"))
        reg = "–"
        if w:
            reg = f"×{w.get('ratio'):.3g} at {w.get('build')}"
            n = len(e.get("open_regressions") or [])
            if n > 1:
                reg += f" +{n - 1}"
        elif e.get("drifts"):
            reg = f"drift ×{e['drifts'][0].get('ratio'):.3g}"
        lt = e.get("latest") or {}
        vs = lt.get("vs_best_ratio")
        eps = e.get("episodes") or []
        rows.append([str(r.rank), label, fmt_num(e.get("builds")), reg,
                     _p(w.get("p_value")) if w else "–", str(len(eps)) if eps else "–",
                     "–" if e.get("noise_cv") is None else f"{100 * e['noise_cv']:.2g} %",
                     "–" if vs is None else ("×1.00" if abs(vs - 1) < 5e-3 else f"×{vs:.3g}")])
    header = ["#", "series", "builds", "open regression", "p", "episodes", "noise", "vs best"]
    return header, rows, prefix


def render_history_fleet_text(report, width: int = 100, limit: int | None = None) -> str:
    header, rows, prefix = fleet_table(report, limit=limit)
    out = [f"bandkit fleet — {fleet_verdict(report)}"]
    if prefix:
        out.append(f"  in {prefix}")
    out.append("  open regression: the largest in force, after/before at its first build (+N more); "
               "vs best: latest/best level")
    out += table(rows, header=header, width=width, align="rlrlrrrr")
    if limit and len(report.rows) > limit:
        out.append(f"  … {len(report.rows) - limit:,} more in the JSON report")
    ftq = [r for r in report.rows if not r.extra]
    if ftq:
        out.append(f"  {len(ftq):,} FTQ trace(s) ranked after the series (see --format json)")
    for p, err in report.errors[:20]:
        out.append(f"  could not analyse: {err}")
    from .text import _wrap

    return "\n".join(_wrap(line, width) for line in out) + "\n"


def sparkline_svg(values, marks=(), width: int = 240, height: int = 36) -> str:
    """An inline SVG polyline of ``values`` (None = gap), red ticks at the indices ``marks``."""
    pts = [(i, v) for i, v in enumerate(values) if v is not None and math.isfinite(v)]
    if len(pts) < 2:
        return ""
    lo = min(v for _, v in pts)
    hi = max(v for _, v in pts)
    span = (hi - lo) or 1.0
    n = max(len(values) - 1, 1)
    xy = " ".join(f"{2 + i * (width - 4) / n:.1f},{height - 3 - (v - lo) * (height - 6) / span:.1f}" for i, v in pts)
    ticks = "".join(f'<line x1="{2 + m * (width - 4) / n:.1f}" y1="0" x2="{2 + m * (width - 4) / n:.1f}" '
                    f'y2="{height}" stroke="#d62728" stroke-width="1.5"/>' for m in marks)
    return (f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="level per build">{ticks}<polyline fill="none" stroke="#1f77b4" stroke-width="1.2" '
            f'points="{xy}"/></svg>')


def history_fleet_html_fragment(report, max_rows: int | None = 400, max_sparklines: int = 200) -> str:
    from .html import _wrap, esc, table_html
    from ..fleet.history import flagged

    header, rows, prefix = fleet_table(report, label_width=60, limit=max_rows)
    parts = [f"<h1>bandkit fleet</h1><p class=\"sub\">{len(report.rows):,} series"
             f"{' in ' + esc(prefix) if prefix else ''}, ranked by open regressions (size, then confidence), "
             "then episodes, then noise</p>",
             f'<div class="verdict{" warn" if any(r.extra.get("open_regressions") for r in report.rows if r.extra) else ""}">'
             f"{esc(fleet_verdict(report))}</div>",
             "<h2>Ranking</h2>",
             table_html(rows, header=header, numeric=[True, False, True, False, True, True, True, True])]
    flag = [r for r in report.rows if r.extra and flagged(r.extra)][:max_sparklines]
    if flag:
        parts.append("<h2>Flagged series, worst first</h2><p class=\"sub\">median level per bin of builds; "
                     "red: open regressions</p>")
        srows = []
        for r in flag:
            e = r.extra
            w = _worst(e)
            what = (f"{fmt_ratio(w.get('ratio'), bool(e.get('higher_is_better')))} at build {w.get('build')}" if w
                    else f"{len(e.get('episodes') or [])} episode(s)")
            svg = sparkline_svg(e.get("sparkline") or [], e.get("sparkline_marks") or [])
            srows.append(f"<tr><td>{r.rank}</td><td>{esc(_label(r.label, prefix, 60))}</td><td>{esc(what)}</td>"
                         f"<td>{svg}</td></tr>")
        parts.append("<table><thead><tr><th>#</th><th>series</th><th>what</th><th>level per build</th></tr></thead>"
                     f"<tbody>{''.join(srows)}</tbody></table>")
    if report.errors:
        parts.append("<h2>Inputs that could not be analysed</h2>")
        parts.append(table_html([[p, e] for p, e in report.errors], header=["file", "error"], numeric=[False, False]))
    return _wrap("".join(parts))


def render_history_fleet_html(report) -> str:
    from .html import _CSP

    body = history_fleet_html_fragment(report)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            f"<title>bandkit fleet</title></head><body style=\"margin:0;background:#fff\">{body}</body></html>\n")
