"""Text for the ``spectrum`` (per trace) and ``interference`` (cross-trace) sections."""
from __future__ import annotations

from typing import Any

from .textutil import fmt_num, table


def render_spectrum(section, max_rows: int = 8) -> list[str]:
    sp = section.fields.get("spectrum")
    if not sp:
        return []
    members: dict[float, int] = {}
    for q in sp["peaks"]:
        if q["harmonic"] > 1:
            members[q["fundamental_hz"]] = members.get(q["fundamental_hz"], 0) + 1
    peaks = sorted([p for p in sp["peaks"] if p["harmonic"] == 1],
                   key=lambda p: (-members.get(p["freq_hz"], 0), -p["snr_db"]))[:max_rows]
    head = (f"  spectrum: Welch, {fmt_num(sp['resolution_hz'])} Hz resolution, {sp['segments']} segments; "
            f"{len(sp['peaks'])} lines")
    if not peaks:
        return [head + " (no significant line)"]
    rows = []
    for p in peaks:
        n_h = members.get(p["freq_hz"], 0)
        rows.append([fmt_num(p["freq_hz"], 6), f"±{fmt_num(p['tol_hz'], 2)}", f"{p['snr_db']:.1f}",
                     fmt_num(p["amplitude"], 3), f"{p['fraction']:.5f}", str(n_h)])
    out = [head] + table(rows, header=["line Hz (alias)", "±Hz", "SNR dB", "amplitude", "f/fs", "harmonics"])
    for d in sp.get("drifts", []):
        out.append(f"  phase drift: {fmt_num(d['freq_hz'], 5)} Hz ≈ every {d['period_quanta']} quanta, drifting "
                   f"{fmt_num(d['measured_quanta_per_s'], 3)} quanta/s (one quantum every {fmt_num(d['sweep_s'], 3)} s)")
    return out


def render_interference(section, max_rows: int = 12) -> list[str]:
    items = section.fields.get("interference")
    if items is None:
        return []
    lines = ["Periodic interference (two-rate test)"]
    if not items:
        return lines + ["  no significant line at any rate"]
    rows = []
    for e in items[:max_rows]:
        if e["verdict"] == "external":
            what = f"{fmt_num(e['freq_hz'], 6)} Hz" + (" (inferred f0)" if e.get("fundamental_inferred") else "")
        elif e["verdict"] == "sampling-locked":
            what = f"{e['fraction']:.5f}·fs (every {fmt_num(1 / e['fraction'], 3)} quanta)" if e["fraction"] else "–"
        else:
            cands = e["candidates_hz"]
            what = (", ".join(fmt_num(c, 5) for c in cands[:3]) + (" …" if len(cands) > 3 else "")) or "–"
        seen = ", ".join(f"{fmt_num(o['alias_hz'], 5)}@{fmt_num(o['sampling_hz'], 4)}" for o in e["observed"])
        verdict = e["verdict"] + (f" ({e['reason']})" if e.get("reason") else "")
        rows.append([verdict, what[:34], seen[:34], f"{e['snr']:.1f}", str(len(e["harmonics"]))])
    lines += table(rows, header=["verdict", "true frequency", "seen (alias@rate)", "SNR dB", "harm."],
                   align="lllrr")
    if len(items) > max_rows:
        lines.append(f"  … {len(items) - max_rows} more (see the JSON report)")
    for e in items:
        for d in e.get("drift", []):
            if d["confirmed"]:
                lines.append(f"  {fmt_num(e['freq_hz'], 5)} Hz at {fmt_num(d['sampling_hz'], 5)} Hz sampling: period "
                             f"≈ {d['period_quanta']} quanta, phase drifts {fmt_num(d['measured_quanta_per_s'], 3)} "
                             f"quanta/s (one quantum every {fmt_num(d['sweep_s'], 3)} s)")
    return lines


def phrase_line(f: dict[str, Any]) -> str:
    h = f" (+{f['harmonics']} harmonics)" if f.get("harmonics") else ""
    return f"spectral line at {fmt_num(f['alias_hz'], 5)} Hz{h}"


def phrase_interference(f: dict[str, Any]) -> str:
    h = f" with {f['harmonics']} harmonics" if f.get("harmonics") else ""
    return f"external interference at {fmt_num(f['freq_hz'], 5)} Hz{h}"


def phrase_locked(f: dict[str, Any]) -> str:
    return f"sampling-locked pattern every {fmt_num(1 / f['fraction'], 3)} quanta" if f.get("fraction") else \
        "sampling-locked pattern"
