"""Report section ``spectrum`` (per FTQ trace): Welch spectrum and its significant lines."""
from __future__ import annotations

from ..errors import UsageError
from .rates import analyze_spectrum


def section(trace, options):
    """``fields``: {"spectrum": {method, resolution_hz, ..., "peaks": [...], "drifts": [...]}} (None
    without a sampling rate in seconds). Findings: ``spectral_line`` (info) for the three fundamentals
    with the most harmonics (aliases in this trace: the two-rate test says which are true)."""
    from ..section import SectionResult

    params = dict(options.for_section("spectrum")) if options is not None else {}
    if not trace.meta.sampling_hz or trace.meta.time_unit != "s":
        return SectionResult("spectrum", {"spectrum": None}, None, ())
    try:
        ts = analyze_spectrum(trace, **params)
    except UsageError:
        return SectionResult("spectrum", {"spectrum": None}, None, ())
    members = {}
    for q in ts.peaks:
        if q.harmonic > 1:
            members[q.fundamental_hz] = members.get(q.fundamental_hz, 0) + 1
    fund = sorted([p for p in ts.peaks if p.harmonic == 1],
                  key=lambda p: (-members.get(p.freq_hz, 0), -p.snr))[:3]
    findings = []
    for p in fund:
        n_h = members.get(p.freq_hz, 0)
        findings.append({"kind": "spectral_line", "severity": "info", "alias_hz": round(p.freq_hz, 4),
                         "snr_db": round(p.snr_db, 2), "harmonics": n_h,
                         "sampling_hz": float(ts.spectrum.fs)})
    return SectionResult("spectrum", {"spectrum": ts.to_dict()}, ts, tuple(findings))
