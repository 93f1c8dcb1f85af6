"""Null and power suites of the spectral-line and two-rate interference verdicts (issue 12).

Run: ``python3 benchmarks/spectral_calibration.py [--null 200] [--pairs 100] [--power 240] [--seed 0]``.
To measure another checkout with the same suites (e.g. the previous main):
``PYTHONPATH=/path/to/old/checkout python3 benchmarks/spectral_calibration.py ...`` — the generator
(``bandkit/synthetic/realistic_ftq.py``) is loaded from *this* repository by path, the detector from
whichever ``bandkit`` is imported. Results: benchmarks/RESULTS_calibration.md, section "spectral lines
and interference".

Null suite (the right answer is "nothing"): clean generated FTQ traces with realistic structure
(:mod:`bandkit.synthetic.realistic_ftq`: 1-3 work-rate bands 1-10 % apart with Markov switching,
Poisson stalls with catch-up rows, 0.1-2 % count noise, slow 1/f^0.8-2 wander of 0.1-3 % RMS;
5, 10, 20, 60, 120 or 300 s at 10 kHz or 7777.017 Hz). A *false alarm* is a trace whose spectrum
section emits any ``spectral_line`` finding; a pair (one trace per rate, same kind of machine)
whose interference section emits any ``periodic_interference`` finding is an external false alarm.

Power suite: the same traces plus one sinusoidal loss of work at a frequency log-uniform between
max(1 Hz, 8 bins) and 0.45·fs. SNR definition: the line's power in one bin of the Welch estimate over
the local mean noise power there, measured on the line-free twin trace:
``SNR = (A²/2) / (ENBW · S_twin(f))`` with A the sinusoid's amplitude (fraction of a full quantum's
work, the unit of the spectrum), ENBW = 1.5·fs/nperseg the Hann window's noise bandwidth and
S_twin(f) the twin's PSD averaged over f ± 10 bins. A *hit* is a ``spectral_line`` finding whose comb
holds a line within max(2 bins, 0.5 Hz) of f ("in verdict"); "listed" counts the line anywhere in
the peak list.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

import bandkit
from bandkit.analyze import TraceReport
from bandkit.spectrum import compute_spectrum
from bandkit.spectrum.interference import cross_section
from bandkit.spectrum.spectrum import section as spectrum_section

_GEN = Path(__file__).resolve().parent.parent / "bandkit" / "synthetic" / "realistic_ftq.py"
_spec = importlib.util.spec_from_file_location("_realistic_ftq", _GEN)
gen = importlib.util.module_from_spec(_spec)
sys.modules["_realistic_ftq"] = gen
_spec.loader.exec_module(gen)

RATES = gen.RATES
DURATIONS = (5.0, 10.0, 20.0, 60.0, 120.0, 300.0)
SNRS_DB = (6.0, 8.0, 10.0, 12.0, 15.0, 20.0)


def _lines(findings):
    return [f for f in findings if f.get("kind") == "spectral_line"]


def _in_verdict(findings, ts, f: float, tol: float) -> bool:
    """Does a ``spectral_line`` finding hold a line (its comb's members included) within ``tol`` of ``f``?"""
    for fd in _lines(findings):
        members = [fd.get("strongest_hz"), fd.get("alias_hz")]
        if ts is not None and getattr(ts, "combs", None):
            for c in ts.combs:
                if abs(c.fundamental_hz - fd["alias_hz"]) < 1e-3:
                    members += [ts.peaks[j].freq_hz for j in c.members]
        if any(m is not None and abs(m - f) <= tol for m in members):
            return True
    return False


def null_single(n: int, seed: int, durations=DURATIONS):
    rows = []
    for k in range(n):
        s = seed * 100_000 + k
        p = gen.draw_params(s, fs=RATES[k % 2], duration_s=durations[(k // 2) % len(durations)])
        t = gen.CleanFtq(p).trace()
        t0 = time.perf_counter()
        sec = spectrum_section(t, None)
        dt = time.perf_counter() - t0
        lines = _lines(sec.findings)
        peaks = sec.result.peaks if sec.result is not None else ()
        res = sec.result.spectrum.resolution_hz if sec.result is not None else 1.0
        rows.append({"seed": s, "fs": p.fs, "duration": p.duration_s, "alarm": bool(lines), "n_lines": len(peaks),
                     "low_end": any(q.freq_hz < 20 * res for q in peaks), "seconds": dt,
                     "found": [(round(f["alias_hz"], 3), f.get("snr_db")) for f in lines]})
    return rows


def null_pairs(n: int, seed: int, durations=(10.0, 20.0, 60.0)):
    rows = []
    for k in range(n):
        s = seed * 100_000 + 50_000 + k
        dur = durations[k % len(durations)]
        reports = []
        for i, fs in enumerate(RATES):
            p = gen.draw_params(s, fs=fs, duration_s=dur)  # same machine settings, other rate
            p = gen.CleanParams(**{**p.to_dict(), "seed": s * 2 + i})
            t = gen.CleanFtq(p).trace(path=f"null-pair{k}-{fs:g}")
            reports.append(TraceReport(t, i, (spectrum_section(t, None),)))
        cs = cross_section(reports, None)
        ext = [f for f in cs.findings if f.get("kind") == "periodic_interference"]
        locked = [f for f in cs.findings if f.get("kind") == "sampling_locked"]
        rows.append({"seed": s, "duration": dur, "external": bool(ext), "locked": bool(locked),
                     "found": [(f.get("freq_hz"), f.get("snr_db")) for f in ext]})
    return rows


def power(n: int, seed: int, durations=DURATIONS):
    rng = np.random.default_rng(seed + 99)
    rows = []
    for k in range(n):
        s = seed * 100_000 + 80_000 + k
        fs = RATES[k % 2]
        snr_db = SNRS_DB[(k // 2) % len(SNRS_DB)]
        dur = durations[(k // (2 * len(SNRS_DB))) % len(durations)]
        cf = gen.CleanFtq(gen.draw_params(s, fs=fs, duration_s=dur))
        twin = cf.trace()
        sp = compute_spectrum(twin)
        r = sp.resolution_hz
        f = float(np.exp(rng.uniform(np.log(max(1.0, 8 * r)), np.log(0.45 * fs))))
        i = int(round(f / r))
        s_noise = float(np.mean(sp.psd[max(i - 10, 1): i + 11]))
        enbw = 1.5 * fs / sp.nperseg
        amp = float(np.sqrt(2 * 10 ** (snr_db / 10) * enbw * s_noise))
        t = cf.trace(line=(f, amp, float(rng.uniform(0, 2 * np.pi))))
        sec = spectrum_section(t, None)
        ts = sec.result
        tol = max(2 * r, 0.5)
        listed = ts is not None and any(abs(q.freq_hz - f) <= tol for q in ts.peaks)
        hit = _in_verdict(sec.findings, ts, f, tol)
        rows.append({"fs": fs, "duration": dur, "snr_db": snr_db, "f": f, "amp": amp, "listed": listed, "hit": hit,
                     "low": f < 20 * r})
    return rows


BUMP_DB = (6.0, 10.0, 15.0, 20.0)


def _bump_case(s: int, rng, fs: float, kind: str, level_db: float, dur: float):
    """One clean trace (seed ``s``) and a bump of ``kind`` standing ``level_db`` over the local floor,
    centre and width drawn from ``rng``."""
    cf = gen.CleanFtq(gen.draw_params(s, fs=fs, duration_s=dur))
    twin = cf.trace()
    sp = compute_spectrum(twin)
    r = sp.resolution_hz
    f_c = float(np.exp(rng.uniform(np.log(max(5.0, 40 * r)), np.log(0.4 * fs))))
    width = float(np.exp(rng.uniform(np.log(0.5 * r), np.log(max(20.0, 2 * r)))))
    n = len(cf.work)
    shape = gen.bump(kind, n, fs, f_c, width, np.random.default_rng([s, 11]), on_share=float(rng.uniform(0.15, 0.4)))
    # scale: the bump's highest Welch bin stands level_db over the twin's local mean PSD
    from bandkit.spectrum.welch import welch as _welch
    _, pb = _welch(shape, fs, sp.nperseg)
    i = int(np.argmax(pb[1:])) + 1
    s_noise = float(np.mean(sp.psd[max(i - 10, 1): i + 11]))
    scale = float(np.sqrt(10 ** (level_db / 10) * s_noise / pb[i]))
    return cf, sp, {"fs": fs, "kind": kind, "level_db": level_db, "duration": dur, "f_c": f_c, "width": width,
                    "width_bins": width / r, "peak_hz": float(i * sp.fs / sp.nperseg)}, shape * scale


def null_bumps(n: int, seed: int, durations=DURATIONS):
    """Clean traces plus one noise bump (narrow-band noise, AR(2) resonance or a burst of band-limited
    noise), no sinusoid: any ``spectral_line`` finding within the bump (± 3 widths + 2 bins) is a false
    alarm on the bump ("bump alarm"); any finding at all is an alarm."""
    rng = np.random.default_rng(seed + 7)
    rows = []
    for k in range(n):
        s = seed * 100_000 + 60_000 + k
        kinds = gen.BUMP_KINDS
        cf, sp, d, extra = _bump_case(s, rng, RATES[(k // 3) % 2], kinds[k % 3], BUMP_DB[(k // 6) % len(BUMP_DB)],
                                      durations[(k // (6 * len(BUMP_DB))) % len(durations)])
        sec = spectrum_section(cf.trace(extra=extra), None)
        lines = _lines(sec.findings)
        ts = sec.result
        near = 3 * d["width"] + 2 * sp.resolution_hz
        on = [q.freq_hz for q in (ts.peaks if ts is not None else ()) if abs(q.freq_hz - d["f_c"]) <= near]
        in_verdict = _in_verdict(sec.findings, ts, d["f_c"], near)
        rows.append({**d, "seed": s, "alarm": bool(lines), "bump_alarm": in_verdict, "listed_on_bump": len(on),
                     "transients": len(getattr(ts, "transients", ()) or ()) if ts is not None else 0})
    return rows


def power_bumps(n: int, seed: int, durations=DURATIONS):
    """The bump traces plus a steady sinusoid on the bump (within ± one width of its centre, at least
    5 bins from its top bin), SNR as in :func:`power` but over the local PSD of the twin *with* the
    bump. A hit: a ``spectral_line`` finding holding a line within 2 bins of the sinusoid."""
    rng = np.random.default_rng(seed + 8)
    rows = []
    for k in range(n):
        s = seed * 100_000 + 70_000 + k
        snr_db = SNRS_DB[k % len(SNRS_DB)]
        kinds = gen.BUMP_KINDS
        cf, sp, d, extra = _bump_case(s, rng, RATES[(k // 18) % 2], kinds[(k // 6) % 3],
                                      BUMP_DB[int(rng.integers(len(BUMP_DB)))], durations[(k // 36) % len(durations)])
        r = sp.resolution_hz
        off = float(rng.uniform(-1, 1)) * d["width"]
        off = off if abs(off) >= 5 * r else float(np.copysign(5 * r, off if off else 1.0))
        f = min(max(d["peak_hz"] + off, 8 * r), 0.45 * d["fs"])
        twin = cf.trace(extra=extra)
        spb = compute_spectrum(twin)
        i = int(round(f / r))
        s_noise = float(np.mean(spb.psd[max(i - 10, 1): i + 11]))
        amp = float(np.sqrt(2 * 10 ** (snr_db / 10) * 1.5 * d["fs"] / spb.nperseg * s_noise))
        sec = spectrum_section(cf.trace(extra=extra, line=(f, amp, float(rng.uniform(0, 2 * np.pi)))), None)
        ts = sec.result
        hit = _in_verdict(sec.findings, ts, f, 2 * r)
        listed = ts is not None and any(abs(q.freq_hz - f) <= 2 * r for q in ts.peaks)
        rows.append({**d, "snr_db": snr_db, "f": f, "hit": hit, "listed": listed})
    return rows


def _rate(x, n):
    return f"{x}/{n} ({100.0 * x / max(n, 1):.1f} %)"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--null", type=int, default=200, help="clean single traces")
    ap.add_argument("--pairs", type=int, default=100, help="clean pairs (10 kHz + 7777 Hz)")
    ap.add_argument("--power", type=int, default=240, help="traces with one injected line")
    ap.add_argument("--bumps", type=int, default=0, help="clean traces with one noise bump (no sinusoid)")
    ap.add_argument("--bump-power", type=int, default=0, help="bump traces with a steady sinusoid on the bump")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--durations", type=str, default=None, help="comma-separated trace lengths (s)")
    a = ap.parse_args(argv)
    durs = tuple(float(x) for x in a.durations.split(",")) if a.durations else DURATIONS
    print(f"bandkit from {Path(bandkit.__file__).parent}")
    if a.null:
        t0 = time.perf_counter()
        rows = null_single(a.null, a.seed, durs)
        al = sum(r["alarm"] for r in rows)
        print(f"null single traces: {len(rows)}, {time.perf_counter() - t0:.0f} s; "
              f"'spectral line' false alarms {_rate(al, len(rows))}; "
              f"lines listed (any SNR) in {sum(r['n_lines'] > 0 for r in rows)} traces, "
              f"{sum(r['n_lines'] for r in rows)} lines in all, "
              f"traces with a line in the lowest 20 bins: {sum(r['low_end'] for r in rows)}; "
              f"median spectrum-section time {np.median([r['seconds'] for r in rows]):.3f} s")
        for d in durs:
            sel = [r for r in rows if r["duration"] == d]
            print(f"  {d:5.0f} s: alarms {_rate(sum(r['alarm'] for r in sel), len(sel))}, "
                  f"max lines in a trace {max([r['n_lines'] for r in sel] or [0])}")
        for fs in RATES:
            sel = [r for r in rows if r["fs"] == fs]
            print(f"  {fs:9.3f} Hz: alarms {_rate(sum(r['alarm'] for r in sel), len(sel))}")
        for r in rows:
            if r["alarm"]:
                print(f"    alarm seed {r['seed']} {r['fs']:g} Hz {r['duration']:g} s: {r['found'][:4]}")
    if a.pairs:
        t0 = time.perf_counter()
        rows = null_pairs(a.pairs, a.seed)
        ex = sum(r["external"] for r in rows)
        print(f"null pairs: {len(rows)}, {time.perf_counter() - t0:.0f} s; 'external interference' false alarms "
              f"{_rate(ex, len(rows))}; sampling-locked findings {_rate(sum(r['locked'] for r in rows), len(rows))}")
        for r in rows:
            if r["external"]:
                print(f"    external seed {r['seed']} {r['duration']:g} s: {r['found'][:4]}")
    if a.power:
        t0 = time.perf_counter()
        rows = power(a.power, a.seed, durs)
        print(f"power: {len(rows)} traces with one line, {time.perf_counter() - t0:.0f} s")
        print("  SNR dB   hit (in verdict)        listed                  low end (< 20 bins) hit")
        for snr in SNRS_DB:
            sel = [r for r in rows if r["snr_db"] == snr]
            low = [r for r in sel if r["low"]]
            print(f"  {snr:6.1f}   {_rate(sum(r['hit'] for r in sel), len(sel)):22s}  "
                  f"{_rate(sum(r['listed'] for r in sel), len(sel)):22s}  {_rate(sum(r['hit'] for r in low), len(low))}")
        ge10 = [r for r in rows if r["snr_db"] >= 10]
        print(f"  SNR >= 10 dB: hit {_rate(sum(r['hit'] for r in ge10), len(ge10))}")
        for r in ge10:
            if not r["hit"]:
                print(f"    missed {r['snr_db']:g} dB at {r['f']:.2f} Hz ({r['fs']:g} Hz, {r['duration']:g} s, "
                      f"amplitude {r['amp']:.2e}, listed {r['listed']})")
    if a.bumps:
        t0 = time.perf_counter()
        rows = null_bumps(a.bumps, a.seed, durs)
        print(f"null bumps: {len(rows)} traces with one noise bump, {time.perf_counter() - t0:.0f} s; "
              f"'spectral line' alarms {_rate(sum(r['alarm'] for r in rows), len(rows))}, "
              f"on the bump {_rate(sum(r['bump_alarm'] for r in rows), len(rows))}; "
              f"traces with a listed line on the bump {sum(r['listed_on_bump'] > 0 for r in rows)}; "
              f"transients reported {sum(r['transients'] for r in rows)}")
        for r in rows:
            r["broad"] = "broad (>= 2 bins)" if r["width_bins"] >= 2 else "narrow (< 2 bins)"
        groups = [(f"{k:10s}", "kind", k) for k in gen.BUMP_KINDS] + [(f"bump {v:4.0f} dB", "level_db", v) for v in BUMP_DB]
        groups += [(v, "broad", v) for v in ("broad (>= 2 bins)", "narrow (< 2 bins)")]
        for label, key, v in groups:
            sel = [r for r in rows if r[key] == v]
            print(f"  {label}: alarms {_rate(sum(r['alarm'] for r in sel), len(sel)):18s} on the bump "
                  f"{_rate(sum(r['bump_alarm'] for r in sel), len(sel))}")
        for r in rows:
            if r["bump_alarm"]:
                print(f"    bump alarm seed {r['seed']} {r['kind']} {r['level_db']:g} dB at {r['f_c']:.2f} Hz, width "
                      f"{r['width']:.3g} Hz = {r['width_bins']:.2g} bins ({r['fs']:g} Hz, {r['duration']:g} s)")
    if a.bump_power:
        t0 = time.perf_counter()
        rows = power_bumps(a.bump_power, a.seed, durs)
        print(f"bump power: {len(rows)} traces with a sinusoid on a noise bump, {time.perf_counter() - t0:.0f} s")
        for snr in SNRS_DB:
            sel = [r for r in rows if r["snr_db"] == snr]
            print(f"  {snr:6.1f} dB: hit {_rate(sum(r['hit'] for r in sel), len(sel)):22s} listed "
                  f"{_rate(sum(r['listed'] for r in sel), len(sel))}")
        ge10 = [r for r in rows if r["snr_db"] >= 10]
        print(f"  SNR >= 10 dB: hit {_rate(sum(r['hit'] for r in ge10), len(ge10))}")
        for kind in gen.BUMP_KINDS:
            sel = [r for r in ge10 if r["kind"] == kind]
            print(f"    {kind:10s} >= 10 dB: hit {_rate(sum(r['hit'] for r in sel), len(sel))}")
        for lo, hi, name in ((2.0, np.inf, "broad (>= 2 bins)"), (0.0, 2.0, "narrow (< 2 bins)")):
            sel = [r for r in rows if lo <= r["width_bins"] < hi]
            print(f"    {name}: hit at 6/8 dB {_rate(sum(r['hit'] for r in sel if r['snr_db'] < 10), sum(r['snr_db'] < 10 for r in sel))}"
                  f", >= 10 dB {_rate(sum(r['hit'] for r in sel if r['snr_db'] >= 10), sum(r['snr_db'] >= 10 for r in sel))}")
        for r in ge10:
            if not r["hit"]:
                print(f"    missed {r['snr_db']:g} dB at {r['f']:.2f} Hz on a {r['kind']} bump of {r['level_db']:g} dB "
                      f"(width {r['width']:.3g} Hz; {r['fs']:g} Hz, {r['duration']:g} s; listed {r['listed']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
