"""HTML of an A/B comparison (``bandkit compare --format html``, ``Comparison.to_html()``): the same
table and sentences as the text (:func:`bandkit.render.text_runners.render_compare`), and a plot of the
ratios with their confidence intervals."""
from __future__ import annotations

from .html_kit import _CSP, _wrap, error_html, esc, figure_html, new_figure, table_html
from .text_runners import COMPARE_NUMERIC, compare_notes, compare_rows, compare_summary


def compare_fragment(cmp, plots: bool = True) -> str:
    """The comparison's body (no document shell): the notebook view and the page's content."""
    out = ["<h1>bandkit compare</h1>", f'<p class="sub">A: {esc(cmp.label_a)}<br>B: {esc(cmp.label_b)}</p>']
    summary = compare_summary(cmp)
    warn = any(c.significant for c in cmp.benchmarks)
    out.append(f'<section class="summary"><div class="verdict{" warn" if warn else ""}"><b>Verdict:</b>'
               f'<ul>{"".join(f"<li>{esc(s)}</li>" for s in summary)}</ul></div></section>')
    out.append("".join(f'<p class="sub">{esc(n)}</p>' for n in compare_notes(cmp)))
    if plots and cmp.benchmarks:
        try:
            from ..plots.compare import plot_compare

            n = min(len(cmp.benchmarks), 80)
            fig = new_figure(height=max(2.5, 0.6 + 0.17 * n))
            plot_compare(cmp, ax=fig.add_subplot())
            out.append(figure_html(fig, alt=f"Ratio B / A of {len(cmp.benchmarks)} benchmarks with "
                                            f"{100 * cmp.confidence:.0f} % confidence intervals",
                                   caption="filled: significant; grey: noisy; bars: confidence interval"))
        except Exception as exc:  # a plot that fails is a note, not a lost page
            out.append(error_html("the ratio plot", exc))
    header, rows = compare_rows(cmp)
    out.append(table_html(rows, header=header, numeric=[h in COMPARE_NUMERIC for h in header]))
    return _wrap("".join(out))


def compare_html(cmp) -> str:
    """The full self-contained HTML document of a comparison (UTF-8 text)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            '<meta name="referrer" content="no-referrer">'
            f"<title>bandkit compare — {esc(cmp.label_a)} vs {esc(cmp.label_b)}</title></head>"
            f"<body style=\"margin:0;background:#fff\">{compare_fragment(cmp)}</body></html>\n")

