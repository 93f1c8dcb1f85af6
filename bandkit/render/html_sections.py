"""HTML (tables + plots) of the report sections; registered as their ``html`` in
:data:`bandkit.section.SECTIONS`.

Every function here is ``f(section, trace_report) -> str | None`` (cross sections:
``f(section, report)``). They only draw: tables from the section's fields, plots of the series the
analysis saw (``section.series``) and of its result, with the plot functions of ``bandkit.plots``
(each ``plot(..., ax=None) -> Axes``) on a pyplot-free figure embedded as PNG.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .html_kit import esc, figure_html, new_figure, plots_enabled, table_html, text_fallback
from .textutil import fmt_num, fmt_pct, fmt_time
from .text_bands import overlapping_band

_BLUE, _RED, _GREY = "#1f77b4", "#d62728", "#8c959f"


# -- the raw plot (fallback key plot; also the notebook view of a Trace) ------------------------
def _x_of(trace) -> tuple[np.ndarray, str]:
    t = trace.times
    if len(t) and np.isfinite(t).all():
        unit = "s" if trace.meta.time_unit == "s" else trace.meta.time_unit
        return t, f"time ({unit})"
    if "run" in trace.samples.columns:
        return np.arange(1, len(t) + 1, dtype=np.float64), "value index (runs in order)"
    return np.arange(len(t), dtype=np.float64), "sample"


def plot_raw(trace, ax=None, hist_ax=None, max_points: int | None = None):
    """Raw values against time (or sample index) with stall episodes marked; histogram on ``hist_ax``.

    FTQ: catch-up rows are left out (they are not measurements); stalls are drawn as red bars under
    the axis. Runners: points coloured by run (alternating), values in the trace's unit.
    Returns ``ax``.
    """
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(10, 3.2))
    x, xlabel = _x_of(trace)
    y = trace.values
    if max_points and len(y) > max_points:  # deterministic stride decimation (only for thumbnails)
        step = int(np.ceil(len(y) / max_points))
        x, y = x[::step], y[::step]
    if trace.kind == "runner" and "run" in trace.samples.columns and len(y) < 50_000:
        run = trace.samples["run"].to_numpy()
        if max_points and len(run) > len(y):
            run = run[:: int(np.ceil(len(run) / len(y)))][: len(y)]
        colors = np.where(run % 2 == 0, _BLUE, "#ff7f0e")
        ax.scatter(x, y, s=6, c=colors, linewidths=0, rasterized=True)
    else:
        ms = 1.0 if len(y) > 20_000 else 2.5
        ax.plot(x, y, linestyle="none", marker=".", ms=ms, color=_BLUE, alpha=0.6, rasterized=True)
    st = trace.stalls if trace.kind == "ftq" and trace.meta.time_unit == "s" else None
    if st is not None and len(st):
        lo = np.nanmin(y) if len(y) else 0.0
        ax.hlines(np.full(len(st), lo), st["start_s"].to_numpy(), (st["start_s"] + st["duration_s"]).to_numpy(),
                  colors=_RED, linewidth=4, label=f"stalls ({len(st):,})")
        ax.legend(loc="lower right", fontsize=8, frameon=False)
    ax.set_xlabel(xlabel)
    if trace.kind == "ftq":
        ax.set_ylabel("work count per quantum")
    else:
        from ..plots.units import value_axis

        value_axis(ax, trace.meta.value_unit, values=y)
    ax.grid(True, alpha=0.3)
    if hist_ax is not None and len(y):
        yf = y[np.isfinite(y)]
        bins = min(200, max(10, int(np.sqrt(len(yf)))))
        hist_ax.hist(yf, bins=bins, orientation="horizontal", color=_BLUE, log=len(yf) > 1000)
        hist_ax.set_xlabel("samples")
        hist_ax.tick_params(labelleft=False)
        hist_ax.grid(True, alpha=0.3)
    return ax


def raw_figure(trace, height: float = 3.2, width: float = 10.0, max_points: int | None = None):
    """A figure with :func:`plot_raw` (wide) and its histogram (narrow, same y axis)."""
    fig = new_figure(height=height, width=width)
    ax, hax = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [4, 1]})
    plot_raw(trace, ax=ax, hist_ax=hax, max_points=max_points)
    return fig


def raw_plot_html(tr) -> str:
    t = tr.trace
    _, xlabel = _x_of(t)
    what = ("work count per quantum over time (catch-up rows left out)" if t.kind == "ftq"
            else f"every value against {xlabel.split(' (')[0]}")
    return figure_html(raw_figure(t), alt=f"Raw values of {t.label}: {what}, and their histogram",
                       caption=f"Raw data: {what}; histogram on the right.")


# -- summary (FTQ basics) ----------------------------------------------------------------------
def summary_html(section, tr) -> str | None:
    f = section.fields
    if "value_stats" in f:  # a runner benchmark: its central value is in the post-mortem's table
        return None
    st = f.get("stalls") or {}
    in_s = f.get("duration_s") is not None
    rows: list[list[Any]] = [
        ["samples", f"{f['samples']:,}" + (f" ({f['catchup_rows']:,} catch-up rows)" if f.get("catchup_rows") else "")],
        ["sampling rate", f"{fmt_num(f['sampling_hz'])} Hz" if f.get("sampling_hz") else "unknown (time in ticks)"],
        ["duration", fmt_time(f["duration_s"]) if in_s else f"{fmt_num(f.get('duration_ticks'))} ticks"],
        ["FTQ fraction", fmt_num(f.get("ftq_fraction"), 5) + (
            f" (header: {fmt_num(f['header_fraction'], 5)})" if f.get("header_fraction") is not None else "")],
    ]
    if st.get("count"):
        if st.get("total_s") is not None:
            rows.append(["stalls", f"{st['count']:,}, {fmt_time(st['total_s'])} in all "
                                   f"({fmt_pct(st.get('share_of_time'))}), longest {fmt_time(st.get('longest_s'))}"])
        else:
            rows.append(["stalls", f"{st['count']:,}, {st.get('lost_quanta', 0):,} quanta lost"])
    else:
        rows.append(["stalls", "none"])
    pct = f.get("count_percentiles") or {}
    keys = [k for k in ("p1", "p5", "p50", "p95", "p99") if k in pct]
    out = ["<h3>Summary</h3>", table_html(rows, numeric=[False, False])]
    if keys:
        out.append(table_html([[fmt_num(pct[k]) for k in keys]], header=[f"count {k}" for k in keys],
                              numeric=[True] * len(keys)))
    return "".join(out)




# -- helpers -----------------------------------------------------------------------------------
def _fmt_val(x, unit: str | None) -> str:
    from .text_runners import fmt_value

    return fmt_num(x) if unit in (None, "", "count") else fmt_value(x, unit)


# -- bands -------------------------------------------------------------------------------------
def bands_html(section, tr) -> str:
    """Bands table, then the raw series coloured by band beside the histogram with the bands."""
    f = section.fields
    res = section.result
    unit = tr.trace.meta.value_unit
    an = f.get("band_analysis") or {}
    per_run = an.get("values") == "run_means"
    out = ["<h3>Bands" + (" (per-run means)" if per_run else "") + "</h3>"]
    rows = []
    for b in f.get("bands") or []:
        rows.append([b.get("index"), _fmt_val(b.get("level"), unit), _fmt_val(b.get("spread"), unit),
                     fmt_pct(b.get("share")), fmt_pct(b.get("share_time")), f"{b.get('episodes', 0):,}",
                     fmt_time(b.get("dwell_median_s")) if b.get("dwell_median_s") is not None else
                     fmt_num(b.get("dwell_median_samples")),
                     fmt_time(b.get("dwell_max_s")) if b.get("dwell_max_s") is not None else
                     fmt_num(b.get("dwell_max_samples")),
                     fmt_pct(b.get("overlap"))])
    if rows:
        out.append(table_html(rows, header=["band", "level", "spread (robust sd)", "share of samples",
                                            "share of time", "episodes", "median dwell", "longest dwell",
                                            "overlap with neighbours"]))
    else:
        out.append("<p>No band found.</p>")
    inter = f.get("intermediate") or {}
    notes = []
    if inter.get("count"):
        notes.append(f"{inter['count']:,} samples between bands ({fmt_pct(inter.get('share'))})")
    worst = overlapping_band(f.get("bands") or [])
    if worst is not None:
        notes.append(f"bands overlap (up to {fmt_pct(worst['overlap'])} of a band's samples in a neighbour's range): "
                     "labels flip on noise, dwell times are lower bounds")
    if f.get("degraded_episodes_total"):
        dt = an.get("degraded_time_s")
        notes.append(f"{f['degraded_episodes_total']:,} degraded episodes"
                     + (f", {fmt_time(dt)} in all" if dt is not None else ""))
    if notes:
        out.append(f'<p class="sub">{esc("; ".join(notes))}</p>')
    shown_by_postmortem = per_run and tr.section("postmortem") is not None  # its run plot shows the levels
    if (plots_enabled() and res is not None and section.series is not None and len(res.labels)
            and not shown_by_postmortem):
        out.append(_bands_figure(tr.trace, section.series, res, per_run))
    return "".join(out)


def _bands_figure(trace, series, res, per_run: bool) -> str:
    from ..plots.bands import plot_band_histogram, plot_band_scatter

    fig = new_figure(height=3.4)
    ax, hax = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
    from ..plots.units import value_axis

    values = series.values
    unit = None if trace.kind == "ftq" else trace.meta.value_unit
    plot_band_scatter(values, res, times=series.times, ax=ax, unit=unit)
    n = len(values)
    plot_band_histogram(values, res, ax=hax, unit=unit,
                        **({} if n > 2000 else {"bins": max(10, min(60, n // 3)), "log": False}))
    what = "work count per quantum" if trace.kind == "ftq" else "value"
    value_axis(ax, unit, values=values, what=("run mean" if per_run else what))
    value_axis(hax, unit, values=values, which="x", what=what)
    what = "run means in run order" if per_run else "raw values over time"
    return figure_html(fig, alt=f"Bands of {trace.label}: {what} coloured by band, and the histogram with the bands",
                       caption=f"Left: {what}, coloured by band (black: between bands, grey: outliers). "
                               "Right: histogram with each band's range shaded and its level marked.")


# -- spectrum ------------------------------------------------------------------------------------
def spectrum_html(section, tr) -> str | None:
    """Spectrum of the work fraction with the detected lines marked, a table of the lines (most powerful
    first, with their comb) and one note per comb (an inferred fundamental says so)."""
    from .text_interference import _comb_by_line, comb_cell, fmt_p, fundamental_note, pct, transient_notes

    d = section.fields.get("spectrum")
    ts = section.result
    if not d:
        return None
    peaks = d.get("peaks") or []
    det = d.get("detection") or {}
    sub = (f'{esc(d.get("method"))}, resolution {esc(fmt_num(d.get("resolution_hz")))} Hz, '
           f'{esc(d.get("segments"))} segments; {len(peaks)} lines above the local noise floor')
    if det.get("threshold_db") is not None:
        sub += esc(f" (false alarms ≤ {pct(det['alpha'])} of clean traces: threshold ≈ {det['threshold_db']:.1f} dB)")
    out = ["<h3>Spectrum</h3>", f'<p class="sub">{sub}</p>']
    if ts is not None and plots_enabled():
        out.append(_spectrum_figure(ts, tr.trace))
    if peaks:
        by_line = _comb_by_line(d)
        top = peaks[:12]  # most powerful first
        rows = [[fmt_num(p.get("freq_hz"), 6), fmt_num(p.get("tol_hz"), 2), fmt_num(p.get("snr_db"), 3),
                 fmt_p(p.get("p_value")), pct(p.get("amplitude")), comb_cell(by_line.get(p.get("freq_hz")),
                                                                             p.get("harmonic"))]
                for p in top]
        out.append(table_html(rows, header=["line (alias) Hz", "± Hz", "SNR dB", "p", "amplitude", "comb"],
                              numeric=[True, True, True, True, True, False]))
        if len(peaks) > len(top):
            out.append(f'<p class="sub">{len(peaks) - len(top)} weaker lines in the JSON report.</p>')
    notes = []
    for c in d.get("combs") or []:
        if c.get("lines", 1) < 2:
            continue
        note = fundamental_note(c["fundamental_seen"], c["lowest_harmonic"], c.get("fundamental_snr_db"),
                                c.get("fundamental_p_value"))
        notes.append(f"comb every {fmt_num(c['fundamental_hz'], 6)} Hz: {c['lines']} lines, "
                     + (note if note else "fundamental seen") + f"; together {pct(c['rms'])} RMS of the work")
    notes += [n.strip() for n in transient_notes(d, segments=d.get("segments"))]
    if notes:
        out.append("<ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    return "".join(out)


def _spectrum_figure(ts, trace) -> str:
    from ..plots.spectrum import plot_spectrum

    fig = new_figure(height=3.0)
    plot_spectrum(ts, ax=fig.add_subplot())
    return figure_html(fig, alt=f"Power spectrum of {trace.label} with the detected lines",
                       caption="Welch spectrum of the work fraction with its local noise floor and the "
                               "detection threshold (dashed); the detected lines are marked, one colour per "
                               "comb (hollow: fundamental inferred from its harmonics).")


# -- two-rate interference (cross section) ----------------------------------------------------------
def interference_html(section, report) -> str | None:
    """Interference found by comparing sampling rates: table, and the aliases aligned per rate."""
    entries = section.fields.get("interference")
    if entries is None and not any(tr.trace.kind == "ftq" for tr in report.traces):
        return None
    if entries is None:
        return ("<h3>Periodic interference (two rates)</h3><p>Not tested: needs FTQ traces at two or more "
                "sampling rates that are not integer multiples of each other.</p>")
    out = ["<h3>Periodic interference (two rates)</h3>"]
    if not entries:
        out.append("<p>No line is explained by one true frequency at every rate.</p>")
        return "".join(out)
    shown = [e for e in entries if e.get("verdict") != "ambiguous"]
    ambiguous = len(entries) - len(shown)
    from .text_interference import fmt_p, inferred_notes, pct

    rows = []
    for e in shown[:20]:
        obs = "; ".join(f"{fmt_num(o.get('alias_hz'), 6)} Hz @ {fmt_num(o.get('sampling_hz'), 5)} Hz"
                        for o in e.get("observed") or [])
        freq = e.get("freq_hz") if e.get("freq_hz") is not None else None
        what = fmt_num(freq, 6) if freq is not None else (
            f"{fmt_num(e.get('fraction'), 4)} × fs" if e.get("fraction") is not None else "–")
        if e.get("fundamental_inferred"):
            what += f" (inferred from harmonics n ≥ {e.get('lowest_harmonic')})"
        rows.append([what, e.get("verdict"), fmt_num(e.get("snr"), 3), pct(e.get("amplitude")),
                     fmt_p(e.get("p_value")), len(e.get("harmonics") or []), obs])
    if rows:
        out.append(table_html(rows, header=["frequency Hz", "verdict", "SNR dB", "amplitude", "p", "harmonics",
                                            "seen as (alias @ rate)"],
                              numeric=[True, False, True, True, True, True, False]))
    inferred = inferred_notes(shown[:20])
    if inferred:
        out.append("<ul>" + "".join(f"<li>{esc(n)}</li>" for n in inferred) + "</ul>")
    notes = []
    if len(shown) > 20:
        notes.append(f"{len(shown) - 20} more entries")
    if ambiguous:
        notes.append(f"{ambiguous} ambiguous lines (not explained by one frequency at every rate)")
    if notes:
        out.append(f'<p class="sub">{esc("; ".join(notes))} in the JSON report.</p>')
    res = section.result
    comps = res if isinstance(res, (list, tuple)) else [res]
    for comp in comps:
        if comp is not None and getattr(comp, "spectra", None) and plots_enabled():
            out.append(_alignment_figure(comp))
            out.append(_fold_figure(comp, report))
    return "".join(out)


def _fold_figure(comp, report) -> str:
    """The traces folded at the top external source's frequency (the one the verdict names first), one
    panel per sampling rate: the X pattern of an interferer; empty without an external source."""
    ext = [e for e in comp.external if e.freq_hz]
    if not ext:
        return ""
    top = ext[0]  # the analysis' order: the verdict names it first
    traces = []
    for ts in comp.spectra:
        tr = next((t for t in report.traces if t.result("spectrum") is ts), None)
        if tr is not None and tr.trace.meta.sampling_hz:
            traces.append(tr.trace)
    if not traces:
        return ""
    from ..plots.spectrum import plot_fold

    fig = new_figure(height=3.6)
    axes = fig.subplots(1, len(traces), squeeze=False)[0]
    for ax, t in zip(axes, traces):
        plot_fold(t, top.freq_hz, ax=ax)
    f = fmt_num(top.freq_hz, 6)
    return figure_html(fig, alt=f"The traces folded at {f} Hz, the top external source, one panel per rate",
                       caption=f"Folded at {f} Hz, the top external source: each row is one period of the "
                               "source cut from the work fraction (time upwards). A source locked to the sampling "
                               "grid draws a vertical stripe; one that is not drifts across the rows as a slanted "
                               "stripe (the X pattern), at a slope set by each sampling rate.")


def _alignment_figure(comp) -> str:
    from ..plots.spectrum import plot_rates

    fig = new_figure(height=3.8)
    plot_rates(comp, ax=fig.add_subplot())
    return figure_html(fig, alt="Spectra of every sampling rate unfolded onto the true-frequency axis",
                       caption="Each rate's spectrum unfolded onto the true-frequency axis (offset per rate). "
                               "External interference lines up at the same true frequency at every rate (red: "
                               "fundamentals; triangles: where it and its harmonics sit in each spectrum).")


# -- runner post-mortem ------------------------------------------------------------------------------
def postmortem_html(section, tr) -> str:
    """Per-run series (run means) with the levels, and the top suspects' metadata plotted alongside."""
    from .text_runners import fmt_runs, suspect_evidence

    from .text_runners import numbering_note, stats_label, stats_text, within_run_text

    f = section.fields
    pm = section.result
    unit = tr.trace.meta.value_unit
    out = ["<h3>Runs</h3>"]
    extra = f.get("postmortem") or {}
    summ = tr.section("summary")
    sf = summ.fields if summ is not None else {}
    rows = [["verdict", f.get("verdict")]]
    if stats_text(sf.get("value_stats"), unit):
        rows.append([stats_label(unit), stats_text(sf.get("value_stats"), unit)])
    rows.append(["runs", f"{f.get('runs', 0):,} ({f.get('values', 0):,} values)"
                         + numbering_note(extra).replace("; run numbers", "; numbered")])
    if extra.get("noise_rel") is not None:  # (none estimated when the runs were not classified)
        rows.append(["noise per run", fmt_pct(extra.get("noise_rel"), 2) + " (between neighbouring runs)"])
    if extra.get("spread_rel") is not None:
        rows.append(["runs spread", fmt_pct(extra.get("spread_rel"), 2) + " (robust sd of all runs)"])
    if within_run_text(sf.get("within_run")):
        rows.append(["within a run", within_run_text(sf.get("within_run"))])
    for s in f.get("steps") or []:
        rows.append(["step at run", f"{s.get('run')}: {_fmt_val(s.get('before'), unit)} → "
                                    f"{_fmt_val(s.get('after'), unit)} (p = {fmt_num(s.get('p_value'), 2)})"])
    for e in f.get("episodes") or []:
        rows.append(["episode", f"runs {e.get('start_run')}-{e.get('end_run')}: {_fmt_val(e.get('baseline'), unit)} → "
                                f"{_fmt_val(e.get('level'), unit)}, then back (p = {fmt_num(e.get('p_value'), 2)})"])
    for b in f.get("bands") or []:
        if len(f.get("bands")) > 1:
            rows.append(["level", f"{_fmt_val(b.get('level'), unit)}: {b.get('n_runs')} runs ({fmt_pct(b.get('share'))})"])
    trend = f.get("trend") or {}
    if trend.get("significant"):
        rows.append(["trend", f"drift ×{fmt_num(trend.get('drift_ratio'), 4)} over the runs, "
                              f"p = {fmt_num(trend.get('p_value'), 2)}"])
    for key, label in (("affected_runs", "affected runs"), ("outlier_runs", "outlier runs"),
                       ("warmup_runs", "warm-up runs")):
        runs = extra.get(key) if key in extra else f.get(key)
        if runs:
            rows.append([label, fmt_runs(runs)])
    from .text_runners import mixed_note

    if mixed_note(f):
        rows.append(["level inside a run", mixed_note(f)])
    if extra.get("note"):
        rows.append(["note", extra["note"]])
    if f.get("summary_stats"):
        from .text_runners import summary_stats_text

        rows.append(["the file states", summary_stats_text(f["summary_stats"], unit)])
    out.append(table_html(rows, numeric=[False, False]))
    sus = f.get("suspects") or []
    if sus:
        out.append("<h3>Suspects (metadata that separates the affected runs)</h3>")
        out.append(table_html([[s.get("metadata"), fmt_num(s.get("score"), 3), suspect_evidence(s)] for s in sus[:8]],
                              header=["metadata", "score", "evidence"], numeric=[False, True, False]))
    if f.get("negligible_suspects"):
        from .text_runners import negligible_line

        line = negligible_line(f["negligible_suspects"])
        out.append(f"<p>{esc(line[0].upper() + line[1:])}.</p>")
    if pm is not None and len(getattr(pm, "run_means", ())) and plots_enabled():
        out.append(_runs_figure(pm, tr.trace))
    return "".join(out)


def _runs_figure(pm, trace) -> str:
    from ..plots.runs import plot_runs_with_metadata

    md = pm.metadata
    cols = [x.metadata for x in pm.suspects if md is not None and x.metadata in md.columns][:2]
    fig = new_figure(height=2.8 + 1.3 * len(cols), layout=None)  # fixed margins: one figure per benchmark
    axes = fig.subplots(1 + len(cols), 1, sharex=True, squeeze=False,
                        gridspec_kw={"height_ratios": [2.5] + [1] * len(cols)})[:, 0]
    plot_runs_with_metadata(trace, columns=cols, pm=pm, axes=axes)
    cap = "Every value (grey) and the mean of each run; steps, levels and outliers marked."
    if cols:
        cap = ("Top: " + cap[0].lower() + cap[1:] + " Below: the metadata of the strongest suspects per run "
               "(slow runs in red), on the same run axis.")
    return figure_html(fig, alt=f"Per-run means of {trace.label}" + (" and the suspects' metadata per run" if cols else ""),
                       caption=cap)


# -- change points --------------------------------------------------------------------------------
def changepoints_html(section, tr) -> str | None:
    """Step changes: the series (block means for FTQ) with the segments overlaid, and a table."""
    f = section.fields
    an = f.get("changepoint_analysis") or {}
    cps = f.get("changepoints") or []
    unit = tr.trace.meta.value_unit
    blocks = an.get("values") == "block_means"
    what = (f"means of {an.get('block'):,} quanta ({fmt_time(an.get('block_s'))})" if blocks and an.get("block_s")
            else "values")
    note = (f"{len(cps)} reported ({an.get('n_detected', 0)} detected, {an.get('n_suppressed', 0)} too small or "
            f"not significant); cost {an.get('cost')}, penalty {an.get('penalty_rule')}; analysed: {what}")
    out = ["<h3>Step changes</h3>", f'<p class="sub">{esc(note)}</p>']
    if cps:
        rows = []
        for c in cps[:20]:
            at = fmt_time(c.get("time_s")) if c.get("time_s") is not None else f"#{c.get('index'):,}"
            if c.get("end_index") is not None and c["end_index"] > c.get("index", 0):
                at += f" (+{c['end_index'] - c['index']:,} transitional)"
            ci = (f"{fmt_time(c.get('ci_time_low'))} – {fmt_time(c.get('ci_time_high'))}"
                  if c.get("ci_time_low") is not None else f"#{c.get('ci_low'):,} – #{c.get('ci_high'):,}")
            rows.append([at, _fmt_val(c.get("before"), unit), _fmt_val(c.get("after"), unit),
                         f"×{fmt_num(c.get('ratio'), 4)}", ci, f"{c.get('p_value'):.2g}" if c.get("p_value") is not None
                         else "–", f"{c.get('q_value'):.2g}" if c.get("q_value") is not None else "–"])
        out.append(table_html(rows, header=["at", "before", "after", "ratio", "interval", "p", "q (FDR)"]))
        if len(cps) > 20:
            out.append(f'<p class="sub">{len(cps) - 20} more in the JSON report.</p>')
    if section.result is not None and section.series is not None and plots_enabled():
        out.append(_changepoints_figure(section.result, section.series, tr.trace))
    return "".join(out)


def _changepoints_figure(res, series, trace) -> str:
    from ..plots.changepoints import plot_changepoints

    x, xt, block = series.values, series.times, series.block
    fig = new_figure(height=3.0)
    ax = fig.add_subplot()
    unit = None if trace.kind == "ftq" else trace.meta.value_unit
    plot_changepoints(x, res, times=xt, ax=ax, unit=unit)
    if trace.kind == "ftq":
        ax.set_ylabel(("mean " if block > 1 else "") + "work count per quantum")
    else:
        from ..plots.units import value_axis

        value_axis(ax, unit, values=x, what="block mean" if block > 1 else "value")
    return figure_html(fig, alt=f"Segments of {trace.label}: the series with its segment levels and change points",
                       caption="The series" + (f" as block means ({block:,} quanta per block)" if block > 1 else "")
                               + " with each segment's level; dashed lines are change points, shaded spans their "
                                 "confidence intervals.")


# -- history (one benchmark across builds) ---------------------------------------------------
def history_html(section, tr) -> str:
    """The history plot (levels per build, eras, changes, episodes) and the section's tables."""
    parts = []
    if plots_enabled() and section.result is not None and section.result.levels is not None \
            and len(section.result.levels) > 1:
        from ..plots.history import plot_history

        fig = new_figure(height=3.2)
        plot_history(section.result, ax=fig.add_subplot())
        parts.append(figure_html(fig, alt="median per build with era levels and located changes",
                                 caption="Grey: median of each build; red steps: era levels; dashed: located "
                                         "changes (shaded: 95 % build interval); orange: episodes."))
    parts.append(text_fallback(section) or "")
    return "".join(parts)
