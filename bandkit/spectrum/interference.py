"""Report section ``interference`` (cross-trace): the two-rate test over the report's FTQ traces.

Traces are grouped by sampling rate; the i-th trace of each rate (in report order) are compared
together (``a_quiet b_quiet a_load b_load`` or ``a_quiet a_load b_quiet b_load`` both pair quiet with
quiet). Top-level field ``"interference"``: list of entries (see :class:`Interference`; entries of
several groups concatenated, each naming its traces in ``observed``), or None when the report lacks
two FTQ traces at distinct rates, or any two of its rates are multiples of each other.
Findings: ``periodic_interference`` per external family (warning; info when its fundamental was
inferred from harmonics and is not seen itself), ``sampling_locked`` (info).
"""
from __future__ import annotations

from .rates import compare_rates


def interference_finding(e, d: dict) -> dict:
    """Finding (data) of one external or sampling-locked entry ``e`` (``d`` = ``e.to_dict()``).

    Effect size ``amplitude`` (largest line amplitude, fraction of a full quantum's work);
    significance ``p_value`` (every line of the claim significant in its own trace, family-wise);
    ``fundamental_inferred`` / ``lowest_harmonic`` / ``fundamental_seen`` / ``fundamental_snr_db``
    (per rate) say when the source is known from its harmonics n ≥ k only."""
    external = e.verdict == "external"
    f = {"kind": "periodic_interference" if external else "sampling_locked",
         "severity": "info" if not external or not e.fundamental_seen else "warning",
         "verdict": e.verdict, "freq_hz": d["freq_hz"], "fraction": d["fraction"],
         "harmonics": len(e.harmonics), "snr_db": d["snr"], "amplitude": d["amplitude"],
         "p_value": d["p_value"], "paths": [o.path for o in e.observed]}
    if external:
        f.update({"fundamental_inferred": d["fundamental_inferred"], "fundamental_seen": d["fundamental_seen"],
                  "lowest_harmonic": d["lowest_harmonic"],
                  "fundamental_snr_db": [x["snr_db"] for x in d["fundamental_evidence"]],
                  "fundamental_p_value": [x["p_value"] for x in d["fundamental_evidence"]],
                  "fundamental_sampling_hz": [x["sampling_hz"] for x in d["fundamental_evidence"]]})
    return f


def cross_section(trace_reports, options):
    """The two-rate test (runs when the report holds two FTQ traces or more: ``Section.needs``); when it
    cannot run, ``"interference": null`` and, when the traces come from two files or more, the report's
    ``skipped`` says why (too few spectra, one sampling rate, rates that are multiples of each other)."""
    from ..section import SectionResult, skipped

    params = dict(options.for_section("interference")) if options is not None else {}
    by_rate: dict[float, list] = {}
    for tr in trace_reports:
        ts = tr.result("spectrum")
        if ts is not None and tr.trace.kind == "ftq":
            by_rate.setdefault(round(ts.spectrum.fs, 6), []).append(ts)
    rates = sorted(by_rate)
    n_spectra = sum(len(v) for v in by_rate.values())
    one_file = len({tr.trace.path for tr in trace_reports if tr.trace.kind == "ftq"}) < 2
    if one_file and (n_spectra < 2 or len(rates) < 2):
        # the threads of one FTQ file share its run and its rate: the test compares runs, so it never
        # applies to one file (each thread says why it has no spectrum, if it has none)
        return SectionResult("interference", {"interference": None}, None, ())
    if n_spectra < 2:
        return skipped("interference", "too_few_spectra", {"interference": None}, n=n_spectra, needed=2)
    if len(rates) < 2:
        return skipped("interference", "one_rate", {"interference": None}, rates_hz=[float(r) for r in rates])
    ok = all(abs(max(a, b) / min(a, b) - round(max(a, b) / min(a, b))) >= 1e-3
             for i, a in enumerate(rates) for b in rates[i + 1:])
    if not ok:
        return skipped("interference", "multiple_rates", {"interference": None}, rates_hz=[float(r) for r in rates])
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
                f = interference_finding(e, d)
                if f not in findings:
                    findings.append(f)
    return SectionResult("interference", {"interference": entries}, results[0] if len(results) == 1 else results,
                         tuple(findings))
