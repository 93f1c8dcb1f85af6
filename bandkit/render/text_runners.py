"""Text of the runner post-mortem: per-benchmark tables, verdict phrases, and the summary across
benchmarks. Findings stay data; these functions are the only place that turns them into English."""
from __future__ import annotations

import math
from typing import Any

from ..trace import SECONDS_PER_UNIT as _SECONDS
from .textutil import ellipsize, fmt_num, fmt_pct, fmt_time, fmt_time_as, shorten_distinct, table


def _ci(lo, hi) -> str:
    """A ratio interval; an end that is not finite (null in JSON: a level of 0) prints as "?"."""
    if lo is None and hi is None:
        return "–"
    end = lambda v: "?" if v is None or not math.isfinite(v) else f"{v:.3f}"  # noqa: E731
    return f"{end(lo)}–{end(hi)}"


def fmt_value(x: float | None, unit: str) -> str:
    """A measured value with its unit (times in s get a readable unit)."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    scale = _SECONDS.get(unit)
    if scale is not None:
        return fmt_time(x * scale)
    return f"{fmt_num(x)} {unit}".rstrip()


def fmt_cell(x: float | None, unit: str, digits: int = 4) -> str:
    """A value in a table that has a unit column: a time with its readable unit, anything else as a bare
    number (the unit is in its own column)."""
    return fmt_value(x, unit) if unit in _SECONDS else fmt_num(x, digits)


def short_name(name: str, width: int = 22) -> str:
    """Shorten a long metadata column name in the middle (with "…")."""
    return ellipsize(name, width, "middle")


def _suspect_rows(suspects) -> list[list[str]]:
    names = shorten_distinct([s["metadata"] for s in suspects], 22)
    return [[n, f"{s['score']:.2f}", suspect_evidence(s)] for n, s in zip(names, suspects)]


def fmt_p(p: float | None) -> str:
    if p is None:
        return "–"
    return "< 1e-16" if p < 1e-16 else f"{p:.2g}"


def fmt_runs(runs: list[int] | tuple[int, ...], limit: int = 12, width: int | None = None) -> str:
    """``[1, 2, 3, 7, 9, 10]`` -> ``"1-3, 7, 9-10"`` (at most ``limit`` ranges, and at most ``width``
    characters when given: the ranges that fit, then "… (N runs)")."""
    runs = sorted(int(r) for r in runs)
    parts: list[str] = []
    i = 0
    while i < len(runs):
        j = i
        while j + 1 < len(runs) and runs[j + 1] == runs[j] + 1:
            j += 1
        parts.append(str(runs[i]) if i == j else f"{runs[i]}-{runs[j]}")
        i = j + 1
    k = len(parts)
    if k > limit:
        k = limit
    if width is not None:
        while k > 1 and len(", ".join(parts[:k]) + (f", … ({len(runs)} runs)" if k < len(parts) else "")) > width:
            k -= 1
    if k < len(parts):
        return ", ".join(parts[:k]) + f", … ({len(runs)} runs)"
    return ", ".join(parts)


def factor_text(ratio: float, digits: int = 2) -> str:
    """``0.59`` -> ``"×1.70 lower"`` (ratio = after / before; ``digits`` after the point)."""
    if not ratio or not math.isfinite(ratio):
        return "–"
    if ratio >= 1:
        return f"×{ratio:.{digits}f} higher"
    return f"×{1 / ratio:.{digits}f} lower"


#: Header of the evidence column: medians (affected vs other runs), then the best threshold and how
#: many affected / other runs lie on the affected side of it.
EVIDENCE_HEADER = "medians (affected vs other); threshold: affected vs other runs"


def suspect_evidence(s: dict[str, Any]) -> str:
    """One-line evidence of a suspect."""
    ev = s.get("evidence", {})
    unit = ev.get("unit") or ""
    u = f" {unit}" if unit else ""
    lag = ev.get("lag", 0)
    lag_txt = f"; value of run {'+' if lag > 0 else ''}{lag}" if lag else ""
    if ev.get("kind") == "categorical":
        return (f"= {ellipsize(str(ev.get('value', '')), 40)!r} in {ev.get('affected_with_value')}/{ev.get('affected')} affected "
                f"vs {ev.get('reference_with_value')}/{ev.get('reference')} other runs{lag_txt}")
    side = "≥" if ev.get("affected_when") == "above" else "≤"
    txt = (f"{fmt_num(ev.get('median_affected'))} vs {fmt_num(ev.get('median_reference'))}{u}; "
           f"{side}{fmt_num(ev.get('threshold'))}: {ev.get('affected_on_side')}/{ev.get('affected')} vs "
           f"{ev.get('reference_on_side')}/{ev.get('reference')}")
    if "changepoint_run" in ev:
        txt += f"; changes at run {ev['changepoint_run']}"
    return txt + lag_txt


def negligible_why(s: dict[str, Any]) -> str:
    """Why a suspect's difference is too small to matter (``evidence.magnitude_gate``,
    :mod:`bandkit.postmortem.magnitude`), after its medians: ``3,334 vs 3,330 MHz: a 0.12 % clock change,
    at most 0.3 % of the slowdown``."""
    ev = s.get("evidence", {})
    unit = ev.get("unit") or ""
    txt = f"{fmt_num(ev.get('median_affected'))} vs {fmt_num(ev.get('median_reference'))}{' ' + unit if unit else ''}"
    gate, ex = ev.get("magnitude_gate"), ev.get("explains")
    of_slowdown = f", at most {fmt_pct(ex)} of the slowdown" if ex is not None else ""
    if gate == "resolution":
        why = f"{ev.get('effect_quanta', 0):.2g} reading unit(s) of {ev.get('quantum', 0):.3g}"
    elif gate == "frequency":
        why = f"a {fmt_pct(ev.get('effect_rel'), 2)} clock change{of_slowdown}"
    elif gate == "load":
        why = f"{fmt_num(ev.get('effect'), 2)} more runnable threads{of_slowdown}"
    elif gate == "temperature":
        why = f"{fmt_num(ev.get('effect'), 2)} C, within the rounding of two readings"
    else:
        why = "too small to matter"
    return f"{txt}: {why}"


def negligible_line(suspects: list[dict[str, Any]], limit: int = 3) -> str:
    """One line naming the significant suspects whose difference is negligible ("" when none)."""
    if not suspects:
        return ""
    parts = [f"{short_name(s['metadata'])} ({negligible_why(s)})" for s in suspects[:limit]]
    more = f", and {len(suspects) - limit} more" if len(suspects) > limit else ""
    return "separate the runs but by too little to matter, not suspects: " + "; ".join(parts) + more


def summary_stats_text(st: dict[str, Any], unit: str) -> str:
    """``summary_stats`` in one line: ``mean 1.21 ms ± 0.11 ms (sd), median …, min–max …, n = 120 × 10 it.``"""
    parts = []
    for key in ("mean", "median"):
        if st.get(key) is not None:
            txt = f"{key} {fmt_value(st[key], unit)}"
            if key == "mean" and st.get("stddev") is not None:
                txt += f" ± {fmt_value(st['stddev'], unit)} (sd)"
            if key == st.get("statistic") and st.get("ci_low") is not None:
                lvl = f"{100 * st['ci_level']:.0f} % " if st.get("ci_level") else ""
                txt += f" ({lvl}CI {fmt_value(st['ci_low'], unit)}–{fmt_value(st['ci_high'], unit)})"
            parts.append(txt)
    if st.get("min") is not None and st.get("max") is not None:
        parts.append(f"min–max {fmt_value(st['min'], unit)}–{fmt_value(st['max'], unit)}")
    if st.get("n") is not None:
        parts.append(f"n = {st['n']}" + (f" × {st['iterations']} iterations" if st.get("iterations") else ""))
    return ", ".join(parts) + f" [{st.get('source', '')}]"


def fmt_value_as(x: float | None, unit: str, like: float | None) -> str:
    """:func:`fmt_value` in the time unit of ``like`` (a spread in the unit of its mean)."""
    scale = _SECONDS.get(unit)
    if x is None or scale is None or like is None:
        return fmt_value(x, unit)
    return fmt_time_as(x * scale, like * scale)


def stats_text(vs: dict[str, Any] | None, unit: str) -> str:
    """The central value and spread as hyperfine prints them: ``22.5 ms ± 0.19 ms (mean ± sd), median
    22.5 ms, min … max 22.1 ms … 22.9 ms; 120 values in 40 runs``; "" when there is nothing to show."""
    if not vs:
        return ""
    parts = []
    mean = vs.get("mean")
    if mean is not None:
        parts.append(f"{fmt_value(mean, unit)} ± {fmt_value_as(vs['stddev'], unit, mean)} (mean ± sd)"
                     if vs.get("stddev") is not None else f"mean {fmt_value(mean, unit)}")
    if vs.get("median") is not None:
        parts.append(f"median {fmt_value(vs['median'], unit)}")
    if vs.get("min") is not None and vs.get("max") is not None:
        parts.append(f"min … max {fmt_value(vs['min'], unit)} … {fmt_value(vs['max'], unit)}")
    if not parts:
        return ""
    n, runs = vs.get("n"), vs.get("runs")
    if vs.get("source") == "file":
        count = "as the file states them" + (f" (n = {n:,})" if n else "")
    elif runs and n and runs != n:
        count = f"{n:,} values in {runs:,} runs"
    else:
        count = f"{n:,} value{'s' if n != 1 else ''}" if n else ""
    return ", ".join(parts) + (f"; {count}" if count else "")


def stats_label(unit: str) -> str:
    return "time" if (unit or "").strip() in _SECONDS else "value"


def within_run_text(w: dict[str, Any] | None) -> str:
    """``warm-up values ×1.31 the measured ones (left out, as pyperf does); first value of a run ×1.02
    the run's others`` — "" without such data."""
    if not w:
        return ""
    parts = []
    if w.get("warmup_ratio") is not None:
        parts.append(f"warm-ups ×{w['warmup_ratio']:.2f} of the measured values (medians; warm-ups are left "
                     "out, as pyperf does)")
    if w.get("first_value_ratio") is not None:
        parts.append(f"a run's first value ×{w['first_value_ratio']:.2f} of its others")
    return "; ".join(parts)


def render_stats(section) -> list[str]:
    """Text of a runner's ``summary`` section: the central value line, and the values inside a run."""
    f = section.fields
    return _stats_lines(f, (f.get("value_stats") or {}).get("unit") or "")


def _stats_lines(f: dict[str, Any], unit: str) -> list[str]:
    out = []
    vs = f.get("value_stats") or {}
    # a summary-only file: the post-mortem's line "the file states: …" gives these numbers (and the
    # file's iterations and intervals); one line, not two
    txt = "" if vs.get("source") == "file" else stats_text(vs, unit)
    if txt:
        out.append(f"  {stats_label(unit)}: {txt}")
    w = within_run_text(f.get("within_run"))
    if w:
        out.append(f"  within a run: {w}")
    return out


def group_title(trs) -> str:
    return f"{len(trs)} benchmarks — {trs[0].trace.path}"


def group_verdict(trs) -> str:
    """The verdict shared by a group of benchmarks that could not be classified (:func:`render_group`)."""
    f0 = trs[0].findings[0]
    what = ("too few runs to classify" if f0["kind"] == "too_few_runs"
            else "summary statistics only, no per-run values")
    reason = f0.get("reason")
    return what + (f" ({reason})" if reason else "")


def group_table(trs) -> tuple[list[str], list[list[str]]]:
    """Header and rows (name and central value per benchmark) of a group (:func:`render_group`). Times
    carry their own readable unit; other units (PTS's "Iterations Per Minute", "MiB/s") go to a last
    column of their own, so that 90 benchmarks of mixed units still leave room for their names."""
    f0 = trs[0].findings[0]
    unit0 = trs[0].trace.meta.value_unit or ""
    units = [tr.trace.meta.value_unit or unit0 for tr in trs]
    plain = any(u not in _SECONDS for u in units)  # (a unit column only when some unit is not a time)
    rows = []
    for tr, unit in zip(trs, units):
        s = tr.section("summary")
        vs = (s.fields.get("value_stats") if s is not None else None) or {}
        n = vs.get("runs") if vs.get("source") == "values" else vs.get("n")
        sd = vs.get("stddev")
        row = [tr.trace.label, "–" if n is None else f"{n:,}", fmt_cell(vs.get("mean"), unit),
               "–" if sd is None else "± " + fmt_cell(sd, unit, 3), fmt_cell(vs.get("median"), unit),
               fmt_cell(vs.get("min"), unit), fmt_cell(vs.get("max"), unit)]
        rows.append(row + ([("" if unit in _SECONDS else unit)] if plain else []))
    header = ["benchmark", "runs" if f0["kind"] == "too_few_runs" else "n", "mean", "sd", "median", "min", "max"]
    return header + (["unit"] if plain else []), rows


def render_group(trs) -> list[str]:
    """One table for many benchmarks of one file whose only finding says they could not be classified
    (too few runs, summary statistics only): name and central value of each (:func:`stacked_table`)."""
    from .skipped import skipped_line

    header, rows = group_table(trs)
    skip = skipped_line(trs[0].skipped)  # (the same for every benchmark of a group: text.collapsed)
    head = [group_title(trs), f"  verdict: {group_verdict(trs)}; their central values:"] + \
        ([f"  {skip}"] if skip else [])
    return head + stacked_table(rows, header, "lrrrrrrl"[:len(header)], indent=4)


#: Fewest columns a table of benchmarks leaves for their names before they move to lines of their own.
NAME_MIN = 24


def stacked_table(rows: list[list[str]], header: list[str], align: str, indent: int,
                  name_width: int | None = None) -> list[str]:
    """A table whose first column is a name (at most ``name_width`` columns): names shortened apart to the
    room :func:`table` leaves them; when that is under :data:`NAME_MIN` columns and more than a quarter
    of the names need more, each name gets a line of its own above its cells (PTS files: 90 long names
    cut to "…FT Siz…" all looked alike)."""
    from .textutil import WIDTH, fit_widths

    if not rows:
        return table(rows, header, align=align, indent=indent)
    longest = max(len(r[0]) for r in rows)
    first = max(len(header[0]), min(longest, name_width or longest))
    widths = [first] + [max(len(r[i]) for r in rows + [header]) for i in range(1, len(header))]
    room = fit_widths(widths, align, WIDTH.get() - indent)[0]
    if room >= NAME_MIN or 4 * sum(len(r[0]) > room for r in rows) <= len(rows):  # (a few names cut: a table)
        short = shorten_distinct([r[0] for r in rows], room)
        return table([[name] + r[1:] for r, name in zip(rows, short)], header, align=align,
                     indent=indent)  # (names that differ stay apart)
    names = shorten_distinct([r[0] for r in rows], WIDTH.get() - indent)
    lines = table([r[1:] for r in rows], header[1:], align=align[1:], indent=indent + 2)
    out = [" " * indent + header[0]] + lines[:2]
    for name, line in zip(names, lines[2:]):
        out += [" " * indent + name, line]
    return out


#: The runs' own spread is named beside the noise when it is at least this many times the noise and the
#: verdict reports no structure (stable, outliers): runs that pair up read as a small noise otherwise.
SPREAD_SHOWN = 2.0


def spread_note(f: dict) -> str:
    """", the runs spread 1.06 % (robust sd)" when the runs spread well beyond the noise between
    neighbours and the verdict names no structure that would explain it; else ""."""
    pm = f.get("postmortem") or {}
    noise, spread = pm.get("noise_rel"), pm.get("spread_rel")
    if f.get("verdict") not in ("stable", "outliers") or noise is None or spread is None:
        return ""
    if spread < SPREAD_SHOWN * noise:
        return ""
    return f" between neighbouring runs, the runs spread {fmt_pct(spread, 2)} (robust sd)"


def mixed_note(f: dict) -> str:
    """"runs 2, 5, 7 changed level during the run: …" for the runs whose values sit at two levels
    (``postmortem.gate.mixed_runs``: their means lie between levels, so they are outliers, not a band); else ""."""
    runs = ((f.get("postmortem") or {}).get("gate") or {}).get("mixed_runs")
    if not runs:
        return ""
    if len(runs) == 1:
        return f"run {fmt_runs(runs)} changed level during the run: its values sit at two levels, its mean between them"
    return (f"runs {fmt_runs(runs)} changed level during the run: their values sit at two levels, their means "
            "between them")


def numbering_note(pm: dict[str, Any]) -> str:
    """How runs are numbered, when it is not simply 1..n in file order (pyperf: as ``pyperf dump``)."""
    n = str(pm.get("run_numbering") or "")
    if "pyperf dump" in n:
        return "; run numbers as in pyperf dump (its calibration run counted)"
    return ""


def render(section) -> list[str]:
    """Tables of one benchmark's post-mortem (section ``postmortem``)."""
    f = section.fields
    unit = f.get("unit", "")
    lines: list[str] = []
    pm = f.get("postmortem", {})
    if f["verdict"] in ("no_runs", "too_few_runs"):
        # no runs: the verdict already gives the reason ("no per-run data: no stats.data …")
        out = [] if f["verdict"] == "no_runs" else [f"  {pm.get('note') or 'no per-run data'}"]
        if f.get("summary_stats"):
            out.append("  the file states: " + summary_stats_text(f["summary_stats"], unit))
        return out
    lines.append(f"  {f['runs']} runs ({f['values']} values; per-run means), noise ≈ "
                 f"{fmt_pct(pm.get('noise_rel'), 2)} per run{spread_note(f)}{numbering_note(pm)}")
    if f["steps"]:
        rows = []
        for s in f["steps"]:
            ci = _ci(s.get("ci_low"), s.get("ci_high"))
            p = fmt_p(s.get("p_value"))
            loc = "–" if s.get("run_ci_low") is None else f"{s['run_ci_low']}–{s['run_ci_high']}"
            rows.append([str(s["run"]), loc, fmt_value(s["before"], unit), fmt_value(s["after"], unit),
                         "–" if s.get("ratio") is None else f"{s['ratio']:.3f}", ci, p, factor_text(s["ratio"])])
        lines += table(rows, ["step at run", "95 % runs", "before", "after", "ratio", "95 % CI", "p", ""], indent=4)
    if f.get("episodes"):
        rows = []
        for e in f["episodes"]:
            ci = _ci(e.get("ci_low"), e.get("ci_high"))
            rows.append([f"{e['start_run']}-{e['end_run']}", str(e["n_runs"]), fmt_value(e["baseline"], unit),
                         fmt_value(e["level"], unit), f"{e['ratio']:.3f}", ci, fmt_p(e.get("p_value")),
                         factor_text(e["ratio"])])
        lines += table(rows, ["episode runs", "runs", "around", "during", "ratio", "95 % CI", "p", ""], indent=4)
    if f["verdict"] in ("bimodal", "bands") and f["bands"]:
        from .textutil import WIDTH

        rows = [[fmt_value(b["level"], unit), fmt_pct(b["share"], 0), str(b["n_runs"])] for b in f["bands"]]
        used = 4 + sum(max(len(h), *(len(r[i]) for r in rows)) + 2 for i, h in enumerate(("band level", "share", "runs")))
        for r, b in zip(rows, f["bands"]):  # (the list of runs fits the line: "… (76 runs)" is never cut)
            r.append(fmt_runs(b["runs"], width=WIDTH.get() - used))
        lines += table(rows, ["band level", "share", "runs", "which runs"], align="rrrl", indent=4)
    if f["outlier_runs"]:
        lines.append(f"  outlier runs: {fmt_runs(f['outlier_runs'])}")
    if mixed_note(f):
        lines.append(f"  {mixed_note(f)}")
    if f["warmup_runs"]:
        lines.append(f"  warm-up runs: {fmt_runs(f['warmup_runs'])}")
    if f.get("trend") and f["verdict"] == "trend":
        t = f["trend"]
        lines.append(f"  drift over the runs: ×{t['drift_ratio']:.3f} (least squares, long-run noise; "
                     f"p = {fmt_p(t['p_value'])})")
    if f["suspects"]:
        lines.append(f"  suspects ({pm.get('reference') or 'affected runs vs the rest'}):")
        rows = _suspect_rows(f["suspects"])
        lines += table(rows, ["metadata", "score", EVIDENCE_HEADER], align="lrl", indent=6)
    if f.get("negligible_suspects"):
        lines.append("  " + negligible_line(f["negligible_suspects"]))
    return lines


# -- verdict phrases -------------------------------------------------------------------------
def phrase_step(f: dict) -> str:
    s = (f"step at run {f['run']}: {fmt_value(f['before'], f['unit'])} → {fmt_value(f['after'], f['unit'])} "
         f"({factor_text(f['ratio'])})")
    if f.get("n_steps", 1) > 1:
        s += f", {f['n_steps']} steps in all"
    if f.get("n_episodes"):
        s += f", and {f['n_episodes']} episode(s) that came back"
    return s + _suspect_tail(f)


def phrase_episode(f: dict) -> str:
    st = f.get("stages") or []
    if st:  # an episode in stages: each stage's level, in run order
        levels = " → ".join(f"{fmt_value(x['level'], f['unit'])}" for x in st)
        s = (f"episode at runs {f['start_run']}-{f['end_run']} in {len(st)} stages: "
             f"{fmt_value(f['baseline'], f['unit'])} → {levels} ({factor_text(f['ratio'])} overall), then back")
    else:
        s = (f"episode at runs {f['start_run']}-{f['end_run']}: {fmt_value(f['baseline'], f['unit'])} → "
             f"{fmt_value(f['level'], f['unit'])} ({factor_text(f['ratio'])}), then back")
    if f.get("n_episodes", 1) > 1:
        s += f", {f['n_episodes']} episodes in all"
    return s + _suspect_tail(f)


def phrase_bands(f: dict) -> str:
    levels = ", ".join(f"{fmt_value(lv, f['unit'])} ({100 * sh:.0f} %)" for lv, sh in zip(f["levels"], f["shares"]))
    return f"{f['n_bands']} levels over {f['runs']} runs: {levels}" + _suspect_tail(f)


def phrase_trend(f: dict) -> str:
    return f"drift ×{f['drift_ratio']:.3f} over {f['runs']} runs" + _suspect_tail(f)


def phrase_warmup(f: dict) -> str:
    return f"slower warm-up run(s) {fmt_runs(f['warmup_runs'])}, then stable"


def phrase_outliers(f: dict) -> str:
    size = f" (up to ×{f['max_factor']:.2f} off the main level)" if f.get("max_factor") else ""
    return (f"{len(f['outlier_runs'])} outlier run(s) of {f['runs']}: {fmt_runs(f['outlier_runs'])}{size}"
            + (f"; {_shifts_text(f)}" if f.get("shifts") else "") + _suspect_tail(f))


def phrase_stable(f: dict) -> str:
    if f.get("shifts"):
        gate = f" at the {100 * (f['min_ratio'] - 1):.0f} % gate" if f.get("min_ratio") else ""
        return f"stable{gate} over {f['runs']} runs, but {_shifts_text(f)}"
    return f"stable over {f['runs']} runs"


def _shifts_text(f: dict, limit: int = 3) -> str:
    """"significant shifts under it: ×1.015 higher at run 333, ×1.011 higher at run 773" (``gate.unreported_changes``
    of a long one-level sequence: the ``limit`` largest, in run order, and how many in all)."""
    shifts = f["shifts"]
    top = sorted(sorted(shifts, key=lambda c: -abs(math.log(c["ratio"])))[:limit], key=lambda c: c["run"])
    under = f.get("min_ratio") and all(max(c["ratio"], 1 / c["ratio"]) < f["min_ratio"] for c in shifts)
    parts = ", ".join(f"{factor_text(c['ratio'], 3)} at run {c['run']}" for c in top)
    more = f" ({len(shifts)} in all)" if len(shifts) > limit else ""
    return f"significant shift{'s' if len(shifts) > 1 else ''}{' under it' if under else ''}: {parts}{more}"


def phrase_no_runs(f: dict) -> str:
    return f"no per-run data: {f.get('reason') or 'summary statistics only'}"


def phrase_too_few(f: dict) -> str:
    return f"too few runs to classify ({f['runs']})"


def phrase_shared(f: dict) -> str:
    return f"{f['metadata']} marks the slow runs across {f['affected_benchmarks']} benchmarks (score {f['score']:.2f})"


def _suspect_tail(f: dict) -> str:
    return f"; top suspect {f['top_suspect']} ({f['top_suspect_score']:.2f})" if f.get("top_suspect") else ""


# -- across benchmarks -----------------------------------------------------------------------
def render_summary(section) -> list[str]:
    """Summary across benchmarks (cross section ``runner_summary``)."""
    d = section.fields["runner_summary"]
    counts = d["counts"]
    order = ["stable", "step", "episode", "bimodal", "bands", "trend", "warmup", "outliers", "too_few_runs",
             "no_runs"]
    parts = [f"{k.replace('_', ' ')} {counts[k]}" for k in order if counts.get(k)]
    lines = [f"Benchmarks: {d['n_benchmarks']} — " + ", ".join(parts)]
    if d["affected"]:
        lines.append("  affected: " + ", ".join(d["affected"][:30]) + (" …" if len(d["affected"]) > 30 else ""))
    if d["shared_suspects"] and len(d["affected"]) >= 2:
        lines.append(f"  metadata that marks the slow runs across benchmarks ({d['pooled_affected']} slow of "
                     f"{d['pooled_runs']} runs, pooled):")
        rows = _suspect_rows(d["shared_suspects"])
        lines += table(rows, ["metadata", "score", EVIDENCE_HEADER], align="lrl", indent=6)
    return lines


# -- A/B comparison --------------------------------------------------------------------------
COMPARE_METHOD_SHORT = {"runs": "runs", "welch-stats": "stats", "ci-overlap": "CIs", "point": "values"}
COMPARE_METHOD_TEXT = {
    "welch-stats": "from stats (summary-only results): ratio of the stated means, Welch's t-test from mean, sd and n, "
                   "{conf:.0f} % CI by the delta method",
    "ci-overlap": "from CIs: ratio of the stated medians; CI from the ends of the files' intervals; "
                  "* when the intervals do not overlap (asv's rule)",
    "point": "from values: the files state one value each (no spread): ratio only, significance not assessed",
}
def compare_notes(cmp) -> list[str]:
    """How the ratios were computed (one line per method used)."""
    methods = {c.method for c in cmp.benchmarks}
    lines = []
    if not methods or "runs" in methods:
        lines += [f"ratio = B / A of the mean of per-run means; {100 * cmp.confidence:.0f} % bootstrap CI",
                  f"* significant (Welch p < {1 - cmp.confidence:.2g} and CI excludes 1); ! noisy"]
    lines += [COMPARE_METHOD_TEXT[m].format(conf=100 * cmp.confidence, alpha=1 - cmp.confidence)
              for m in ("welch-stats", "ci-overlap", "point") if m in methods]
    return lines


#: Numeric (right-aligned) columns of :func:`compare_rows`' table.
COMPARE_NUMERIC = frozenset({"A", "B", "B/A", "CI", "p"})


def compare_rows(cmp) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the comparison table, sorted by ratio, names whole (the text renderer shortens
    them: :func:`stacked_table`). Times carry their readable unit; other units (PTS MB/s) get a column of
    their own."""
    rows = []
    ordered = sorted(cmp.benchmarks, key=lambda c: c.ratio)
    plain = any(c.unit not in _SECONDS for c in ordered)
    for c in ordered:
        ci = _ci(c.ci_low, c.ci_high)
        flag = ("*" if c.significant else " ") + ("!" if c.noisy else " ")
        unit_col = [("" if c.unit in _SECONDS else c.unit)] if plain else []
        rows.append([c.name, fmt_cell(c.mean_a, c.unit), fmt_cell(c.mean_b, c.unit)] + unit_col +
                    [f"{c.ratio:.3f}", ci, fmt_p(c.p_value), flag, COMPARE_METHOD_SHORT.get(c.method, c.method),
                     "; ".join(c.noisy_reasons)])
    return ["benchmark", "A", "B"] + (["unit"] if plain else []) + ["B/A", "CI", "p", "", "from", "noisy because"], rows


def compare_summary(cmp) -> list[str]:
    """The comparison's conclusions: geometric means, counts, unmatched and skipped benchmarks."""
    from ..compare import expected_by_chance, geomean_ratios, n_significant_fdr, oriented

    lines = []
    if cmp.geomean is not None:
        ci = f" ({cmp.geomean_ci[0]:.3f}–{cmp.geomean_ci[1]:.3f})" if cmp.geomean_ci else ""
        n = len(geomean_ratios(cmp.benchmarks))
        what = (f"geometric mean over {n} benchmarks of B/A, with A/B for higher-is-better results (< 1: B better)"
                if oriented(cmp.benchmarks) else f"geometric mean of B/A over {n} benchmarks")
        left = len(cmp.benchmarks) - n
        lines.append(f"{what}: {cmp.geomean:.3f}{ci}" + (f"; {left} of unknown direction left out" if left else ""))
    if cmp.geomean_clean is not None:
        n = len(geomean_ratios([c for c in cmp.benchmarks if not c.noisy]))
        ci = f" ({cmp.geomean_clean_ci[0]:.3f}–{cmp.geomean_clean_ci[1]:.3f})" if cmp.geomean_clean_ci else ""
        lines.append(f"  without noisy benchmarks ({n}): {cmp.geomean_clean:.3f}{ci}")
    sig = [c for c in cmp.benchmarks if c.significant]
    how = ""
    if oriented(cmp.benchmarks) and sig:
        known = [c for c in sig if c.higher_is_better is not None]
        better = sum((c.ratio > 1) == bool(c.higher_is_better) for c in known)
        unknown = len(sig) - len(known)
        how = f" (B better in {better}, worse in {len(known) - better}" + \
            (f", {unknown} of unknown direction)" if unknown else ")")
    lines.append(f"significant: {len(sig)} of {len(cmp.benchmarks)}{how}; noisy: {sum(c.noisy for c in cmp.benchmarks)}")
    alpha = 1 - cmp.confidence
    chance = expected_by_chance(cmp.benchmarks, alpha)
    if sig and chance > 0:
        lines.append(f"  {n_significant_fdr(cmp.benchmarks, alpha)} of them hold at a {100 * alpha:.0f} % false discovery "
                     f"rate (Benjamini–Hochberg); ≈ {chance:.1f} would pass by chance alone")
    if cmp.only_a:
        lines.append(f"only in A: {', '.join(cmp.only_a[:20])}" + (" …" if len(cmp.only_a) > 20 else ""))
    if cmp.only_b:
        lines.append(f"only in B: {', '.join(cmp.only_b[:20])}" + (" …" if len(cmp.only_b) > 20 else ""))
    for name, why in cmp.skipped[:20]:
        lines.append(f"skipped {name}: {why}")
    return lines


def render_compare(cmp) -> list[str]:
    """Table of a :class:`bandkit.compare.Comparison` (ratio = B / A of the mean run means)."""
    lines = [f"A: {cmp.label_a}", f"B: {cmp.label_b}", *compare_notes(cmp), ""]
    header, rows = compare_rows(cmp)
    return lines + stacked_table(rows, header, "".join("r" if h in COMPARE_NUMERIC else "l" for h in header),
                                 indent=2, name_width=30) + [""] + compare_summary(cmp)


def compare_text(cmp, width: int = 100) -> str:
    """``Comparison.to_text()``: the table of :func:`render_compare` as one string, ``width`` columns."""
    from .textutil import text_width, wrap_line

    with text_width(width):
        return "\n".join(wrap_line(line, width) for line in render_compare(cmp)) + "\n"
