"""Text for the bands section (a table per trace) and the ``band_levels`` verdict phrase."""
from __future__ import annotations

from typing import Any

from .textutil import fmt_num, fmt_pct, fmt_time, table


#: Per-band overlap (share of its samples expected in a neighbour's range) above which the text warns.
OVERLAP_NOTE = 0.02


def overlapping_band(bands: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The band with the largest ``overlap`` if it reaches :data:`OVERLAP_NOTE` (dwell times are then
    lower bounds), else None. Shared by the text and HTML renderers."""
    worst = max(bands, key=lambda b: b.get("overlap") or 0.0, default=None)
    return worst if worst is not None and (worst.get("overlap") or 0.0) >= OVERLAP_NOTE else None


def _dwell(b: dict[str, Any]) -> str:
    if b.get("dwell_median_s") is not None:
        return f"{fmt_time(b['dwell_median_s'])} / {fmt_time(b['dwell_p95_s'])} / {fmt_time(b['dwell_max_s'])}"
    if b.get("dwell_median_samples") is not None:
        return (f"{fmt_num(b['dwell_median_samples'])} / {fmt_num(b['dwell_p95_samples'])} / "
                f"{fmt_num(b['dwell_max_samples'])} samples")
    return "–"


def render(section) -> list[str]:
    f = section.fields
    bands = f.get("bands") or []
    if not bands:
        return []
    info = f.get("band_analysis", {})
    what = "per-run means" if info.get("values") == "run_means" else "samples"
    rows = []
    for b in reversed(bands) if info.get("higher_is_better", True) else bands:
        rows.append([fmt_num(b["level"]), fmt_num(b["spread"], 3), fmt_pct(b["share"]),
                     fmt_pct(b["share_time"]), f"{b['episodes']:,}", _dwell(b)])
    out = [f"  bands ({len(bands)}, of {info.get('n_analysed', 0):,} {what}):"]
    out += table(rows, header=["level", "spread", "share", "time", "episodes", "dwell median / p95 / max"],
                 indent=6)
    loose = [b for b in bands if b.get("supported") is False]
    if loose:
        out.append(f"    not counted as levels (scattered, never {fmt_num(info.get('support_gate', {}).get('min_dwell', 3))} "
                   f"in a row, < {fmt_pct(info.get('support_gate', {}).get('min_share', 0.05), 0)} of samples): "
                   + ", ".join(fmt_num(b["level"]) for b in loose))
    worst = overlapping_band(bands)
    if worst is not None:
        out.append(f"    bands overlap: ~{fmt_pct(worst['overlap'])} of the {fmt_num(worst['level'])} band's samples "
                   "fall in a neighbour's range, so labels flip on noise and dwell times are lower bounds")
    extra = []
    inter = f.get("intermediate") or {}
    if inter.get("count"):
        extra.append(f"{inter['count']:,} intermediate ({fmt_pct(inter.get('share'))})")
    if info.get("outliers"):
        extra.append(f"{info['outliers']:,} outliers")
    if info.get("excluded"):
        extra.append(f"{info['excluded']:,} stall-adjacent/excluded")
    tot = f.get("degraded_episodes_total") or 0
    if tot:
        t = info.get("degraded_time_s")
        extra.append(f"{tot:,} degraded episodes" + (f" ({fmt_time(t)} in all)" if t else ""))
    if extra:
        out.append("    " + "; ".join(extra))
    tr = f.get("band_transitions") or {}
    counts = tr.get("counts") or []
    if 3 <= len(counts) <= 5:
        lv = [fmt_num(x) for x in tr["levels"]]
        prob = tr["probabilities"]
        rows = [[f"from {lv[i]}"] + [("–" if i == j else fmt_pct(prob[i][j], 0)) for j in range(len(lv))]
                for i in range(len(lv))]
        out += table(rows, header=["next band"] + [f"to {x}" for x in lv], indent=6)
    return out


def phrase(f: dict[str, Any]) -> str:
    """E.g. "2 bands: 1338 (24 %) and 1268 (71 %)" (best band first)."""
    lv, sh = f.get("levels") or [], f.get("shares") or []
    pairs = list(zip(lv, sh))
    best = f.get("best_level")
    if best is not None and pairs and abs(pairs[-1][0] - best) <= abs(pairs[0][0] - best):
        pairs = pairs[::-1]
    parts = [f"{fmt_num(l)} ({fmt_pct(s, 0)})" for l, s in pairs]
    what = " of run means" if f.get("values") == "run_means" else ""
    body = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)
    return f"{f.get('n_bands', len(parts))} bands{what}: {body}"
