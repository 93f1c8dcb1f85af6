"""Text for the step-change section (a table per trace) and the ``level_shift`` verdict phrase."""
from __future__ import annotations

from typing import Any

from .textutil import fmt_num, fmt_time, table


def _pct(ratio) -> str:
    return "–" if ratio is None else f"{100 * (ratio - 1):+.1f} %"


def _p(p) -> str:
    if p is None:
        return "–"
    return "<1e-12" if p < 1e-12 else f"{p:.1g}"


def render(section) -> list[str]:
    f = section.fields
    info = f.get("changepoint_analysis") or {}
    cps = f.get("changepoints") or []
    what = (f"{fmt_time(info['block_s'])} block means" if info.get("values") == "block_means" and info.get("block_s")
            else ("block means" if info.get("values") == "block_means" else "values"))
    held = [c for c in cps if c.get("sustained", True)]
    back = len(cps) - len(held)
    out = [f"  step changes: {len(held)} sustained of {len(cps)} significant (q ≤ {info.get('alpha')}, "
           f"≥ {100 * info.get('min_relative', 0):g} %; {info.get('n_detected', 0)} candidates)",
           f"    on {info.get('n_points', 0):,} {what}; {info.get('cost')} cost, {info.get('penalty_rule')} penalty"]
    if back:
        out.append(f"    {back} change{'s' if back != 1 else ''} back to earlier levels (band switching or episodes)")
    cps = held
    if not cps:
        return out
    rows = []
    for c in cps:
        when = fmt_time(c["time_s"]) if c.get("time_s") is not None else f"#{c['index']:,}"
        if c.get("ci_time_low") is not None:
            ci = f"{fmt_time(c['ci_time_low'])} – {fmt_time(c['ci_time_high'])}"
        else:
            ci = f"#{c['ci_low']:,} – #{c['ci_high']:,}"
        idx = f"{c['index']:,}"
        if c.get("end_index") is not None and c["end_index"] > c["index"]:
            idx += f"–{c['end_index']:,}"  # a switch that took transitional values
        rows.append([when, idx, fmt_num(c["before"]), fmt_num(c["after"]), _pct(c.get("ratio")),
                     ci, _p(c.get("p_value")), _p(c.get("q_value"))])
    level = cps[0].get("ci_level") or 0.95
    # p: family-wise (noise alone, anywhere in the series); q: the FDR value the report decides on - on a series
    # with many changes a later one can be reported at a large p (one false in ~1/alpha reported is the bargain)
    out += table(rows, header=["at", "index", "before", "after", "change", f"{100 * level:g} % interval", "p", "q"],
                 indent=6)
    alpha = info.get("alpha")
    if alpha is not None and any((c.get("p_value") or 0) > alpha for c in cps):
        out += ["      p: chance that noise alone gives a change this strong anywhere in the series;",
                f"      q: false discovery rate among the changes found, which decides (reported when q ≤ {alpha})"]
    return out


def phrase(f: dict[str, Any]) -> str:
    """E.g. "2 step changes, largest 1644 → 1457 (-11.4 %) at 19.1 s"."""
    n = f.get("count", 0)
    where = ""
    if f.get("largest_time_s") is not None:
        where = f" at {fmt_time(f['largest_time_s'])}"
    elif f.get("largest_index") is not None:
        where = f" at #{f['largest_index']:,}"
    body = f"{fmt_num(f.get('largest_before'))} → {fmt_num(f.get('largest_after'))} ({_pct(f.get('largest_ratio'))})"
    if n == 1:
        return f"step change {body}{where}"
    return f"{n} step changes, largest {body}{where}"
