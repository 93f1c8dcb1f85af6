"""Text for the FTQ summary section and its findings."""
from __future__ import annotations

from typing import Any

from .textutil import fmt_num, fmt_pct, fmt_time, table


def render(section) -> list[str]:
    f = section.fields
    if "value_stats" in f:  # a runner benchmark
        from .text_runners import render_stats

        return render_stats(section)
    unit_s = f.get("duration_s") is not None
    st = f["stalls"]
    rows = [
        ["samples", f"{f['samples']:,}" + (f"  ({f['catchup_rows']:,} catch-up rows)" if f.get("catchup_rows") else "")],
        ["sampling rate", f"{fmt_num(f['sampling_hz'])} Hz" if f.get("sampling_hz") else "unknown (time in ticks)"],
        ["duration", fmt_time(f["duration_s"]) if unit_s else f"{fmt_num(f.get('duration_ticks'))} ticks"],
        ["FTQ fraction", fmt_num(f["ftq_fraction"], 5) + (
            f"  (header: {fmt_num(f['header_fraction'], 5)})" if f.get("header_fraction") is not None else "")],
        ["stalls", f"{st['count']:,}" + (
            f", {fmt_time(st['total_s'])} in all ({fmt_pct(st['share_of_time'])}), longest {fmt_time(st['longest_s'])}"
            if st["count"] and st.get("total_s") is not None else
            (f", {st['lost_quanta']:,} quanta lost" if st["count"] else ""))],
    ]
    pct = f.get("count_percentiles") or {}
    if pct:
        keys = [k for k in ("p1", "p5", "p50", "p95", "p99") if k in pct]
        rows.append(["count " + "/".join(keys), " / ".join(fmt_num(pct[k]) for k in keys)])
    return table(rows, header=None)


def phrase_stalls(f: dict[str, Any]) -> str:
    if f.get("longest_s") is not None:
        share = f", {fmt_pct(f['share_of_time'])} of the time in all" if f.get("share_of_time") is not None else ""
        return f"{f['count']:,} stalls{share}; longest {fmt_time(f['longest_s'])}"
    return f"{f['count']:,} stalls ({f['lost_quanta']:,} quanta lost)"


def phrase_partial(f: dict[str, Any]) -> str:
    return "first quantum short (left out of the analyses)"


def phrase_ticks(f: dict[str, Any]) -> str:
    return "time in TSC ticks (give --clock-hz for seconds)"


def phrase_fraction(f: dict[str, Any]) -> str:
    return (f"FTQ fraction {fmt_num(f['computed'], 5)} differs from the header's {fmt_num(f['header'], 5)} "
            "(header computed over all threads?)")
