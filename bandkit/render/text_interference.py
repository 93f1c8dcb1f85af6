"""Text for the ``spectrum`` (per trace) and ``interference`` (cross-trace) sections.

The phrases and cells here are shared with the HTML renderer (``html_sections``), so that a comb
whose fundamental is only inferred from its harmonics says so — "inferred from harmonics n ≥ k",
with the fundamental's own evidence — in every renderer: verdict, text tables and HTML tables.
"""
from __future__ import annotations

from typing import Any

from .textutil import ellipsize, fmt_num, table


def pct(x) -> str:
    """A work fraction as a percentage ("16.6 %", "0.33 %")."""
    if x is None:
        return "–"
    v = 100.0 * float(x)
    return f"{fmt_num(v, 3)} %"


def fmt_p(p) -> str:
    """A p-value for a table ("<1e-12", "3e-05", "0.43")."""
    if p is None:
        return "–"
    p = float(p)
    if p < 1e-12:
        return "<1e-12"
    return f"{p:.0e}" if p < 1e-3 else f"{p:.2g}"


def fundamental_note(seen: bool, lowest: int, snr_db, p_value=None, rates=None) -> str:
    """"inferred from harmonics n ≥ k (fundamental itself: 1.3 dB, not significant)" — or "" when the
    fundamental is a line of its own. ``snr_db`` / ``p_value`` (/ ``rates``, Hz): scalars or per-rate
    lists."""
    if seen:
        return ""
    as_list = lambda v: list(v) if isinstance(v, (list, tuple)) else [v]  # noqa: E731
    snrs, ps = as_list(snr_db), as_list(p_value)
    rs = as_list(rates) if rates is not None else [None] * len(snrs)
    known = [(s, r) for s, r in zip(snrs, rs) if s is not None]
    if not known:
        own = "not measurable"
    else:
        sig = all(p is not None and p <= 0.01 for p in ps)
        own = ", ".join(f"{s:.1f} dB" + (f" at {fmt_num(r, 4)} Hz" if r else "") for s, r in known)
        own += "; weak but significant" if sig else "; not significant"
    return f"inferred from harmonics n ≥ {lowest} (fundamental itself: {own})"


def comb_cell(comb: dict | None, harmonic: int | None) -> str:
    """Table cell saying which comb a line belongs to: "×2 of 50.004", "×12 of 100.00 (f0 inferred)"."""
    if comb is None or comb.get("lines", 1) <= 1:
        return "–"
    f0 = fmt_num(comb["fundamental_hz"], 5)
    if harmonic == 1:
        return f"f0 of {comb['lines']}"
    return f"×{harmonic} of {f0}" + ("" if comb.get("fundamental_seen", True) else " (f0 inferred)")


def _comb_by_line(sp: dict) -> dict[float, dict]:
    out = {}
    for c in sp.get("combs") or []:
        for f in c.get("members_hz") or []:
            out[f] = c
    return out


def render_spectrum(section, max_rows: int = 8) -> list[str]:
    sp = section.fields.get("spectrum")
    if not sp:
        return []
    peaks = sp["peaks"]  # most powerful first
    det = sp.get("detection") or {}
    head = (f"  spectrum: Welch, {fmt_num(sp['resolution_hz'])} Hz resolution, {sp['segments']} segments; "
            f"{len(peaks)} lines")
    if det.get("threshold_db") is not None:
        head += (f" (local floor; false alarms ≤ {pct(det['alpha'])} of clean traces: threshold "
                 f"≈ {det['threshold_db']:.1f} dB)")
    if not peaks:
        return [head + ": no significant line"]
    by_line = _comb_by_line(sp)
    rows = []
    for p in peaks[:max_rows]:
        c = by_line.get(p["freq_hz"])
        rows.append([fmt_num(p["freq_hz"], 6), f"±{fmt_num(p['tol_hz'], 2)}", f"{p['snr_db']:.1f}",
                     fmt_p(p.get("p_value")), pct(p["amplitude"]), comb_cell(c, p["harmonic"])])
    out = [head] + table(rows, header=["line Hz (alias)", "±Hz", "SNR dB", "p", "amplitude", "comb"])
    if len(peaks) > max_rows:
        out.append(f"    … {len(peaks) - max_rows} weaker lines (see the JSON report)")
    for c in (sp.get("combs") or []):
        if c["lines"] < 2:
            continue
        note = fundamental_note(c["fundamental_seen"], c["lowest_harmonic"], c.get("fundamental_snr_db"),
                                c.get("fundamental_p_value"))
        out.append(f"  comb every {fmt_num(c['fundamental_hz'], 6)} Hz: {c['lines']} lines"
                   + (f", {note}" if note else ", fundamental seen")
                   + f"; together {pct(c['rms'])} RMS of the work")
    for d in sp.get("drifts", []):
        out.append(f"  phase drift: {fmt_num(d['freq_hz'], 5)} Hz ≈ every {d['period_quanta']} quanta, drifting "
                   f"{fmt_num(d['measured_quanta_per_s'], 3)} quanta/s (one quantum every {fmt_num(d['sweep_s'], 3)} s)")
    out += [f"  {t}" for t in transient_notes(sp, segments=sp.get("segments"))]
    return out


def transient_note(t: dict, segments: int | None = None) -> str:
    """One peak that failed the persistence gate, in words: where its power is and why it is not a line."""
    act = t.get("active_segments") or []
    spans = ", ".join(f"{fmt_num(a, 3)}–{fmt_num(b, 3)} s" for a, b in (t.get("spans_s") or []))
    n_seg = segments or len(t.get("segment_ratios") or [])
    where = (f"{pct(t['active_share'])} of its excess in {spans} ({len(act)} of {n_seg} segments)" if act
             else "no segment holds it")
    if t.get("reason") == "unsteady floor":
        why = (f"the floor there changes over time; with that floor's own ν ≈ {fmt_num(t['local_dof'], 3)} "
               f"it is not significant, p = {fmt_p(t.get('local_p_value'))}")
    else:
        why = f"too little of it in most segments for a steady line, p = {fmt_p(t.get('steady_p'))}"
    return (f"not a steady line: {fmt_num(t['freq_hz'], 5)} Hz ({t['snr_db']:.1f} dB over the whole trace; "
            f"{where}; {why})")


def transient_notes(sp: dict, segments: int | None = None, max_rows: int = 3) -> list[str]:
    """Notes for the strongest ``max_rows`` transients of a spectrum dict (and how many more)."""
    ts = sorted(sp.get("transients") or [], key=lambda t: -t["amplitude"])  # most powerful first, as lines
    out = [transient_note(t, segments) for t in ts[:max_rows]]
    if len(ts) > max_rows:
        out.append(f"  … {len(ts) - max_rows} more peaks that are not steady lines (see the JSON report)")
    return out


def interference_what(e: dict) -> str:
    """Short description of an entry's frequency, for tables."""
    if e["verdict"] == "external":
        return f"{fmt_num(e['freq_hz'], 6)} Hz" + (f" (inferred, n ≥ {e.get('lowest_harmonic')})"
                                                  if e.get("fundamental_inferred") else "")
    if e["verdict"] == "sampling-locked":
        return f"{e['fraction']:.5f}·fs (every {fmt_num(1 / e['fraction'], 3)} quanta)" if e["fraction"] else "–"
    cands = e["candidates_hz"]
    why = f"{e['reason']}: " if e.get("reason") else ""
    return why + ((", ".join(fmt_num(c, 5) for c in cands[:3]) + (" …" if len(cands) > 3 else "")) or "–")


def inferred_notes(items) -> list[str]:
    """One line per external entry whose fundamental was inferred from its harmonics."""
    out = []
    for e in items:
        if e["verdict"] != "external" or not e.get("fundamental_inferred"):
            continue
        ev = e.get("fundamental_evidence") or []
        note = fundamental_note(e.get("fundamental_seen", False), e.get("lowest_harmonic", 2),
                                [x.get("snr_db") for x in ev], [x.get("p_value") for x in ev],
                                [x.get("sampling_hz") for x in ev])
        out.append(f"{fmt_num(e['freq_hz'], 6)} Hz: {note}")
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
        seen = ", ".join(f"{fmt_num(o['alias_hz'], 5)}@{o['sampling_hz'] / 1000:.4g}k" for o in e["observed"])
        what = interference_what(e)
        rows.append([e["verdict"], ellipsize(what, 28), ellipsize(seen, 24), f"{e['snr']:.1f}", pct(e.get("amplitude")),
                     fmt_p(e.get("p_value")), str(len(e["harmonics"]))])
    lines += table(rows, header=["verdict", "true frequency", "seen (alias@rate)", "SNR dB", "ampl.", "p", "harm"],
                   align="lllrrrr")
    if len(items) > max_rows:
        lines.append(f"  … {len(items) - max_rows} more (see the JSON report)")
    lines += ["  " + n for n in inferred_notes(items)]
    for e in items:
        for d in e.get("drift", []):
            if d["confirmed"]:
                lines.append(f"  {fmt_num(e['freq_hz'], 5)} Hz at {fmt_num(d['sampling_hz'], 5)} Hz sampling: period "
                             f"≈ {d['period_quanta']} quanta, phase drifts {fmt_num(d['measured_quanta_per_s'], 3)} "
                             f"quanta/s (one quantum every {fmt_num(d['sweep_s'], 3)} s)")
    return lines


#: A lone line whose family-wise p-value is at least this is near the detection threshold (alpha = 1 % a
#: trace): its phrase shows the p-value, as a comb's does not need to (its harmonics are the support).
WEAK_LINE_P = 1e-3


def phrase_line(f: dict[str, Any]) -> str:
    """Verdict phrase of a ``spectral_line`` finding (one comb, or a lone line; a lone line with
    ``p_value`` ≥ :data:`WEAK_LINE_P` shows it)."""
    lines = f.get("lines") or (1 + (f.get("harmonics") or 0))
    amp = f" amplitude {pct(f['amplitude'])}" if f.get("amplitude") is not None else ""
    if lines <= 1:
        bits = [amp.strip()] if amp else []
        p = f.get("p_value")
        if p is not None and p >= WEAK_LINE_P:  # a lone line near the threshold says how near
            bits.append(f"p = {fmt_p(p)}")
        return f"spectral line at {fmt_num(f['alias_hz'], 5)} Hz" + (f" ({', '.join(bits)})" if bits else "")
    strongest = ""
    if f.get("strongest_hz") is not None:
        strongest = f"strongest {fmt_num(f['strongest_hz'], 5)} Hz{',' + amp if amp else ''}"
    if f.get("fundamental_seen", True):
        bits = [f"+{lines - 1} harmonics"] + ([strongest] if strongest else [])
        return f"spectral line at {fmt_num(f['alias_hz'], 5)} Hz ({'; '.join(bits)})"
    note = fundamental_note(False, f.get("lowest_harmonic", 2), f.get("fundamental_snr_db"),
                            f.get("fundamental_p_value"))
    return (f"spectral lines every {fmt_num(f['alias_hz'], 5)} Hz ({lines} lines"
            + (f"; {strongest}" if strongest else "") + f"), {note}")


def phrase_interference(f: dict[str, Any]) -> str:
    """Verdict phrase of a ``periodic_interference`` finding; an inferred fundamental says so."""
    h = f" with {f['harmonics']} harmonics" if f.get("harmonics") else ""
    if not f.get("fundamental_inferred"):
        return f"external interference at {fmt_num(f['freq_hz'], 5)} Hz{h}"
    note = fundamental_note(bool(f.get("fundamental_seen")), f.get("lowest_harmonic", 2),
                            f.get("fundamental_snr_db"), f.get("fundamental_p_value"),
                            f.get("fundamental_sampling_hz"))
    what = "external interference" if f.get("fundamental_seen") else "external periodic comb"
    return f"{what} every {fmt_num(f['freq_hz'], 5)} Hz{h}, {note}"


def phrase_locked(f: dict[str, Any]) -> str:
    return f"sampling-locked pattern every {fmt_num(1 / f['fraction'], 3)} quanta" if f.get("fraction") else \
        "sampling-locked pattern"
