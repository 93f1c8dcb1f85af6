"""Rich display in JupyterLab: compact HTML with the key plot for traces and analysis results.

Objects get ``_repr_html_`` from :class:`bandkit.display.DisplayMixin`, which calls the renderer
registered for their class in :data:`bandkit.display.RENDERERS`:

* ``Trace`` -> :func:`trace_html` (title, key figures, raw plot + histogram).
* ``Report`` / ``TraceReport`` -> :mod:`bandkit.render.html` (the same content as
  ``bandkit report --format html``).
* Analysis results (the default) -> :func:`result_html`: a table of the scalar fields of
  ``to_dict()`` plus the class's key plot (:data:`RESULT_PLOTS`, else its ``plot(ax=None)`` method;
  a class may define ``_repr_plot_(self, ax)`` to choose a different plot for the notebook view).
"""
from __future__ import annotations

import inspect
from typing import Any

from ..section import resolve
from .html_kit import CSS, esc, figure_html, new_figure, table_html
from .textutil import fmt_num, fmt_time

#: Scalars shown at most in a result's table.
MAX_ROWS = 14

#: Key plot of a result class (by class name): "module:function" taking ``(result, ax=...)``.
RESULT_PLOTS: dict[str, str] = {
    "TraceSpectrum": "bandkit.plots.spectrum:plot_spectrum",
    "RateComparison": "bandkit.plots.spectrum:plot_rates",
    "ChangePointResult": "bandkit.render.notebook:plot_segments",
    "PostMortem": "bandkit.render.notebook:plot_run_means",
    "BandResult": "bandkit.render.notebook:plot_band_shares",
}


def _wrap(body: str) -> str:
    return f'<div class="bk">{"<style>" + CSS + "</style>"}{body}</div>'


def trace_html(trace) -> str:
    """Compact HTML of a :class:`~bandkit.trace.Trace`: title, key figures, raw plot with histogram."""
    from .html import _meta_line
    from .html_sections import raw_figure

    v = trace.values
    rows: list[list[Any]] = [["rows", f"{len(trace):,}"], ["samples", f"{len(v):,}"]]
    if trace.has_catchup:
        rows.append(["catch-up rows", f"{int(trace.data['catchup'].sum()):,}"])
    t = trace.times
    if len(t) > 1 and trace.meta.time_unit == "s" and t[-1] == t[-1]:
        rows.append(["span", fmt_time(float(t[-1] - t[0]))])
    if trace.kind == "ftq":
        rows.append(["stalls", f"{len(trace.stalls):,}"])
    if "run" in trace.data.columns:
        rows.append(["runs", f"{trace.data['run'].nunique():,}"])
    if len(v):
        import numpy as np

        p = np.nanpercentile(v, [5, 50, 95])
        rows.append([f"{trace.meta.value_unit or 'value'} p5 / p50 / p95", " / ".join(fmt_num(float(x)) for x in p)])
    body = [f"<h3>{esc(trace.label)}</h3>", f'<p class="sub">{_meta_line(trace)}</p>',
            table_html(rows, numeric=[False, True])]
    if len(v):
        body.append(figure_html(raw_figure(trace, height=2.6, width=9.0),
                                alt=f"Raw values of {trace.label} and their histogram"))
    return _wrap("".join(body))


def _scalars(d: dict, prefix: str = "") -> list[list[str]]:
    rows = []
    for k, val in d.items():
        key = f"{prefix}{k}"
        if isinstance(val, dict):
            rows.extend(_scalars(val, key + "."))
        elif isinstance(val, (list, tuple)):
            rows.append([key, f"[{len(val)} items]"])
        elif isinstance(val, float):
            rows.append([key, fmt_num(val)])
        else:
            rows.append([key, "–" if val is None else str(val)])
    return rows


def _plot_method(obj):
    spec = RESULT_PLOTS.get(type(obj).__name__)
    if spec:
        fn = resolve(spec)
        return lambda ax: fn(obj, ax=ax)
    for name in ("_repr_plot_", "plot"):
        m = getattr(obj, name, None)
        if callable(m):
            try:
                params = inspect.signature(m).parameters
            except (TypeError, ValueError):
                continue
            required = [p for p in params.values() if p.default is inspect.Parameter.empty
                        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "ax"]
            if "ax" in params and not required:
                return lambda ax, m=m: m(ax=ax)
    return None


def result_html(obj) -> str:
    """Compact HTML of an analysis result: class name, scalar fields of ``to_dict()``, its plot."""
    body = [f"<h3>{esc(type(obj).__name__)}</h3>"]
    d = obj.to_dict() if hasattr(obj, "to_dict") else {}
    rows = _scalars(d) if isinstance(d, dict) else []
    if rows:
        more = len(rows) - MAX_ROWS
        body.append(table_html(rows[:MAX_ROWS], numeric=[False, True]))
        if more > 0:
            body.append(f'<p class="sub">… {more} more fields in <code>to_dict()</code></p>')
    plot = _plot_method(obj)
    if plot is not None:
        try:
            fig = new_figure(height=3.0, width=9.0)
            plot(fig.add_subplot())
            body.append(figure_html(fig, alt=f"{type(obj).__name__} plot"))
        except Exception as exc:  # the table is still useful
            from .html_kit import error_html

            body.append(error_html("plot", exc))
    return _wrap("".join(body))


# -- key plots drawn from a result alone (the full plots need the trace: see bandkit.plots) ----------
def plot_segments(res, ax=None):
    """A :class:`ChangePointResult`'s piecewise-constant fit against sample index, change points dashed."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(9, 3))
    for s in res.segments:
        ax.hlines(s.level, s.start, s.end, color="#d62728", lw=2)
    for c in res.changepoints:
        ax.axvline(c.index, color="0.3", ls="--", lw=1)
    ax.set_xlim(0, max(res.n, 1))
    ax.set_xlabel("sample")
    ax.set_ylabel("segment level")
    ax.set_title(f"{len(res.changepoints)} change points, {len(res.segments)} segments ({res.cost}, "
                 f"penalty {res.penalty_rule})", fontsize=9)
    return ax


def plot_run_means(pm, ax=None):
    """A :class:`PostMortem`'s run means against run number, coloured by level; steps dashed."""
    import numpy as np

    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(9, 3))
    x, y, lab = np.asarray(pm.run_numbers), np.asarray(pm.run_means), np.asarray(pm.labels)
    for k in np.unique(lab):
        m = lab == k
        ax.plot(x[m], y[m], "o", ms=4, color="0.6" if k < 0 else f"C{int(k) % 10}",
                label="outlier" if k < 0 else f"level {int(k) + 1}")
    for st in pm.steps:
        ax.axvline(st.run - 0.5, color="C3", ls="--", lw=1)
    from ..plots.units import value_axis

    ax.set_xlabel("run")
    value_axis(ax, pm.unit, values=y, what="run mean")
    ax.set_title(f"{pm.name}: {pm.verdict}", fontsize=9)
    ax.legend(fontsize=7, frameon=False)
    return ax


def plot_band_shares(res, ax=None):
    """A :class:`BandResult`'s bands: share of samples per band level (bars), best band outlined."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6, 2.5))
    names = [f"{b.level:.5g}" for b in res.bands]
    shares = [100 * b.share for b in res.bands]
    bars = ax.barh(names, shares, color=[f"C{b.index % 10}" for b in res.bands])
    if res.best_band is not None and res.bands:
        bars[res.best_band].set_edgecolor("black")
        bars[res.best_band].set_linewidth(1.5)
    ax.set_xlabel("share of samples (%)")
    ax.set_ylabel("band level")
    ax.set_xlim(0, 100)
    return ax
