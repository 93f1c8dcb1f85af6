"""Report section ``interference`` (cross-trace): the two-rate test over the report's FTQ traces.

Traces are grouped by sampling rate; the i-th trace of each rate (in report order) are compared
together (``a_quiet b_quiet a_load b_load`` or ``a_quiet a_load b_quiet b_load`` both pair quiet with
quiet). Top-level field ``"interference"``: list of entries (see :class:`Interference`; entries of
several groups concatenated, each naming its traces in ``observed``), or None when the report lacks
two FTQ traces at distinct rates, or any two of its rates are multiples of each other.
Findings: ``periodic_interference`` (warning) per external family, ``sampling_locked`` (info).
"""
from __future__ import annotations

from .rates import compare_rates


def cross_section(trace_reports, options):
    from ..section import SectionResult

    params = dict(options.for_section("interference")) if options is not None else {}
    by_rate: dict[float, list] = {}
    for tr in trace_reports:
        ts = tr.result("spectrum")
        if ts is not None and tr.trace.kind == "ftq":
            by_rate.setdefault(round(ts.spectrum.fs, 6), []).append(ts)
    rates = sorted(by_rate)
    ok = len(rates) >= 2 and all(
        abs(max(a, b) / min(a, b) - round(max(a, b) / min(a, b))) >= 1e-3
        for i, a in enumerate(rates) for b in rates[i + 1:])
    if not ok:
        return SectionResult("interference", {"interference": None}, None, ())
    n_groups = max(len(v) for v in by_rate.values())
    results, entries, findings = [], [], []
    for g in range(n_groups):
        group = [by_rate[r][min(g, len(by_rate[r]) - 1)] for r in rates]
        cmp = compare_rates(spectra=group, **params)
        results.append(cmp)
        for e in cmp.interference:
            d = e.to_dict()
            if d not in entries:
                entries.append(d)
            if e.verdict in ("external", "sampling-locked"):
                f = {"kind": "periodic_interference" if e.verdict == "external" else "sampling_locked",
                     "severity": "warning" if e.verdict == "external" else "info",
                     "verdict": e.verdict, "freq_hz": d["freq_hz"], "fraction": d["fraction"],
                     "harmonics": len(e.harmonics), "snr_db": d["snr"],
                     "paths": [o.path for o in e.observed]}
                if f not in findings:
                    findings.append(f)
    return SectionResult("interference", {"interference": entries}, results[0] if len(results) == 1 else results,
                         tuple(findings))
