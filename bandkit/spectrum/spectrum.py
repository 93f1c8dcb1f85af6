"""Report section ``spectrum`` (per FTQ trace): Welch spectrum, its significant lines and their combs."""
from __future__ import annotations

from ..errors import UsageError
from .lines import analyze_spectrum

#: Combs (strongest by power first) that reach the verdict as ``spectral_line`` findings.
MAX_FINDINGS = 3


def comb_finding(ts, comb) -> dict:
    """A ``spectral_line`` finding for one comb (data only; the renderers write the English).

    Effect size: ``amplitude`` (strongest line's sinusoid amplitude, fraction of a full quantum's
    work), ``rms`` (all the comb's lines together), ``power_fraction`` (their share of the trace's
    variance). Significance: ``p_value`` (family-wise over every bin searched, of the comb's most
    significant line). ``alias_hz`` is the comb's fundamental (an alias in this trace: the two-rate
    test says which true frequency it is); ``fundamental_seen`` false means no line there: the comb
    is ``inferred from harmonics n ≥ lowest_harmonic`` and ``fundamental_snr_db`` /
    ``fundamental_p_value`` are the spectrum's own evidence at the fundamental's bin.
    """
    d = comb.to_dict(ts.peaks)
    return {"kind": "spectral_line", "severity": "info", "alias_hz": d["fundamental_hz"],
            "snr_db": d["snr_db"], "harmonics": d["harmonics"], "lines": d["lines"],
            "fundamental_seen": d["fundamental_seen"], "lowest_harmonic": d["lowest_harmonic"],
            "strongest_hz": d["strongest_hz"], "strongest_harmonic": d["strongest_harmonic"],
            "amplitude": d["amplitude"], "rms": d["rms"], "power_fraction": d["power_fraction"],
            "p_value": d["p_value"], "fundamental_snr_db": d["fundamental_snr_db"],
            "fundamental_p_value": d["fundamental_p_value"], "sampling_hz": float(ts.spectrum.fs)}


def section(trace, options):
    """``fields``: {"spectrum": {method, resolution_hz, ..., "peaks": [...], "combs": [...],
    "drifts": [...], "detection": {...}}} (None, and the section listed under ``skipped``, without a
    sampling rate in seconds or on a trace too short for a spectrum). Findings:
    ``spectral_line`` (info) for the ``MAX_FINDINGS`` most powerful combs (a lone line is a comb of
    one; aliases in this trace: the two-rate test says which are true)."""
    from ..section import SectionResult, skipped, skipped_by

    params = dict(options.for_section("spectrum")) if options is not None else {}
    if not trace.meta.sampling_hz or trace.meta.time_unit != "s":
        return skipped("spectrum", "no_sampling_rate", {"spectrum": None}, time_unit=trace.meta.time_unit)
    try:
        ts = analyze_spectrum(trace, **params)
    except UsageError as exc:
        return skipped_by("spectrum", exc, {"spectrum": None}, params=params)
    findings = tuple(comb_finding(ts, c) for c in ts.combs[:MAX_FINDINGS])
    return SectionResult("spectrum", {"spectrum": ts.to_dict()}, ts, findings)
