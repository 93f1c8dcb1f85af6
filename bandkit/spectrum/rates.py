"""The two-sampling-rate test (Rhoden): is a periodic line external or an artefact of sampling?

Run FTQ at two rates, neither a multiple of the other (e.g. 10 kHz and 7777 Hz). An *external*
source has one true frequency ``f``: it appears at ``alias(f, fs)`` at every rate, so the sets of
true frequencies consistent with the lines seen at each rate (``|k·fs ± a| ≤ f_max``) intersect in
``f``. A *sampling-locked* artefact (something every N quanta) sits at the same *fraction* of each
rate instead. Everything else is *ambiguous*, with a reason:

- ``"unmatched"``: no line at the other rate(s) fits any true frequency ≤ f_max nor the same fraction;
- ``"invisible"``: every candidate true frequency would be below the other trace's detection
  threshold (quantum averaging attenuates it by |sinc(f/fs)|, or it aliases to ~DC);
- ``"multiple"``: several true frequencies ≤ f_max fit the same lines, amplitudes cannot tell;
- ``"locked_and_external"``: the lines fit both a common true frequency and a common fraction.

Confirmed true frequencies are grouped into harmonic families (f ≈ n·f0); each family is one
interference entry, its fundamental the member that explains most of the others. A family whose
fundamental was never matched (only harmonics n ≥ k were) is *inferred*; it carries its
fundamental's own evidence in every trace (:func:`bandkit.spectrum.families.fundamental_evidence`).

:func:`compare_rates` runs the steps in order: :func:`locked_pairs` (same fraction at every rate),
:func:`match_true_frequencies` (a common true frequency whose amplitudes fit the box filter),
:func:`classify_pairs` (unique / several / locked-too), then the families
(:mod:`bandkit.spectrum.families`) and :func:`unmatched_lines`.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import UsageError
from .aliasing import alias_candidates, alias_of, box_gain
from .entries import CLOCK_TOL, MAX_MISFIT, Interference, Observation, RateComparison, observation
from .families import families, fundamental_evidence, locked_entries, missing_fundamentals
from .lines import TraceSpectrum, analyze_spectrum
from .peaks import spectrum_calibration

__all__ = ["CLOCK_TOL", "MAX_MISFIT", "Interference", "Observation", "RateComparison", "TraceSpectrum",
           "analyze_spectrum", "compare_rates"]


def _spectra(traces, spectra, min_snr_db: float) -> list[TraceSpectrum]:
    if len(traces) == 1 and isinstance(traces[0], (list, tuple)):
        traces = tuple(traces[0])
    if spectra is None:
        if len(traces) < 2:
            raise UsageError("compare_rates needs at least two traces")
        spectra = [analyze_spectrum(t, min_snr_db=min_snr_db) for t in traces]
    elif len(spectra) < 2:
        raise UsageError("compare_rates needs at least two spectra")
    # spectra made without a calibration (built by hand): give them one
    return [s if s.calibration is not None else replace(s, calibration=spectrum_calibration(s.spectrum))
            for s in spectra]


def _check_rates(spectra) -> list[float]:
    rates = [s.spectrum.fs for s in spectra]
    for i in range(len(rates)):
        for j in range(i + 1, len(rates)):
            r = max(rates[i], rates[j]) / min(rates[i], rates[j])
            if abs(r - round(r)) < 1e-3:
                raise UsageError(f"sampling rates {rates[i]:g} and {rates[j]:g} Hz are multiples of "
                                 "each other: the two-rate test needs rates that are not")
    return rates


def compare_rates(*traces, f_max: float | None = None, min_snr_db: float = 6.0,
                  spectra: list[TraceSpectrum] | None = None, max_ambiguous: int = 10,
                  n_max: int = 400) -> RateComparison:
    """Compare FTQ traces recorded at different sampling rates (two or more; or one list of them).

    ``spectra``: precomputed :func:`analyze_spectrum` results to use instead of the traces.

    ``f_max`` (Hz, default 2.5 × the highest rate) bounds the true frequencies considered. Lines
    are matched when a true ``f`` ≤ f_max aliases onto a line of every trace within the lines'
    frequency uncertainties plus a relative clock tolerance of 1e-5. External entries come first,
    most powerful (largest line amplitude) first; then sampling-locked ones, then up to
    ``max_ambiguous`` ambiguous ones (highest SNR first).
    """
    spectra = _spectra(traces, spectra, min_snr_db)
    rates = _check_rates(spectra)
    f_max = float(f_max or 2.5 * max(rates))
    ref, others = spectra[0], spectra[1:]
    locked, strong = locked_pairs(ref, others)
    pair_f, invisible = match_true_frequencies(ref, others, f_max, strong, min_snr_db)
    locked = _locked_not_external(locked, pair_f, strong, len(others))
    confirmed, amb, tentative, matched = classify_pairs(pair_f, locked, ref, others)
    fams, explained, unresolved = families(confirmed, spectra, f_max, tentative)
    fams = [fundamental_evidence(e, spectra) for e in missing_fundamentals(fams)]
    for fl, obs, snr, key in unresolved:
        amb.append((Interference("ambiguous", None, None, obs, tuple(sorted(x[0] for x in fl)),
                                 reason="multiple", snr_db=snr), key))
    # a locked family all of whose lines sit on an external family's comb is that family's doing
    locked = {k: v for k, v in locked.items() if not all(idx in explained[n] for n, idx in enumerate(k))}
    amb = [e for e, key in amb if not all(idx in explained[k] for k, idx in enumerate(key))]
    amb += unmatched_lines(spectra, f_max, matched, locked, explained, invisible)
    amb.sort(key=lambda e: -e.snr_db)
    external = sorted((_with_drift(e, spectra) for e in fams), key=lambda e: -(e.amplitude or 0.0))
    entries = external + locked_entries(locked, pair_f, ref, others) + amb[:max_ambiguous]
    return RateComparison(tuple(s.spectrum.path or s.spectrum.label for s in spectra), tuple(rates), f_max,
                          tuple(spectra), tuple(entries))


def locked_pairs(ref: TraceSpectrum, others) -> tuple[dict, set]:
    """Line tuples (one index per trace) at the same fraction of every rate: ``{key: fraction}``, and
    the keys of fraction families with ≥ 2 members (r and k·r), which are not evidence of an external
    source."""
    locked = {}
    for i, p in enumerate(ref.peaks):
        combo = []
        for o in others:
            target = p.fraction * o.spectrum.fs
            js = [j for j, q in enumerate(o.peaks)
                  if abs(q.freq_hz - target) <= q.tol_hz + p.tol_hz * o.spectrum.fs / ref.spectrum.fs]
            if not js:
                combo = None
                break
            combo.append(js[0])
        if combo is not None:
            locked[(i, *combo)] = p.fraction
    fr_all = sorted(set(locked.values()))
    strong = set()
    for key, fr in locked.items():
        if any(g != fr and (abs(g / fr - round(g / fr)) < 0.01 or abs(fr / g - round(fr / g)) < 0.01)
               for g in fr_all):
            strong.add(key)
    return locked, strong


def _visible(o: TraceSpectrum, a: float, pred_amp: float, min_snr_db: float) -> bool:
    """Would a line of amplitude ``pred_amp`` at alias ``a`` clear trace ``o``'s threshold?"""
    sp, cal = o.spectrum, o.calibration
    if a < 2.5 * sp.resolution_hz:
        return False
    i = int(np.clip(round(a / sp.resolution_hz), 0, len(sp.psd) - 1))
    level, thr = cal.floor.level[i], cal.threshold[i]
    if not np.isfinite(level) or not np.isfinite(thr):
        return False
    pred_snr = pred_amp ** 2 / (2 * 1.5 * sp.resolution_hz) / level
    return bool(pred_snr >= max(thr, 10 ** (min_snr_db / 10)))


def match_true_frequencies(ref: TraceSpectrum, others, f_max: float, skip: set, min_snr_db: float):
    """For each reference line and candidate true frequency f ≤ f_max: does every other trace have a
    line at alias(f), with amplitudes that fit the box-filter prediction within ``MAX_MISFIT``?

    Returns ``{(i, j1, ...): [(f, tol, misfit), ...]}`` and the reference lines whose every candidate
    would be invisible at another rate. Lines of strong locked families (``skip``) are not used.
    """
    skip_ref = {k[0] for k in skip}
    skip_oth = [{k[1 + n] for k in skip} for n in range(len(others))]
    line_arrays = [(np.array([q.freq_hz for q in o.peaks]), np.array([q.tol_hz for q in o.peaks]))
                   for o in others]
    usable = [np.array([j not in skip_oth[n] for j in range(len(o.peaks))], dtype=bool)
              for n, o in enumerate(others)]
    pair_f: dict[tuple, list[tuple[float, float, float]]] = {}
    invisible = set()
    for i, p in enumerate(ref.peaks):
        if i in skip_ref:
            continue
        any_visible = False
        for f in alias_candidates(p.freq_hz, ref.spectrum.fs, f_max):
            g0 = box_gain(f, ref.spectrum.fs)
            if g0 < 1e-3:
                continue
            true_amp = p.amplitude / g0
            combo, ests, tols, visible = [], [f], [p.tol_hz], True
            for oi, o in enumerate(others):
                fo = o.spectrum.fs
                a = alias_of(f, fo)
                visible &= _visible(o, a, true_amp * box_gain(f, fo), min_snr_db)
                of, ot = line_arrays[oi]
                err = np.abs(of - a)
                ok = (err <= p.tol_hz + CLOCK_TOL * f + ot) & usable[oi]
                if not ok.any():
                    combo = None
                    break
                j = int(np.flatnonzero(ok)[np.argmin(err[ok])])
                q = o.peaks[j]
                k = np.round(f / fo)
                opts = np.array([k * fo + q.freq_hz, k * fo - q.freq_hz, (k + 1) * fo - q.freq_hz,
                                 (k - 1) * fo + q.freq_hz])
                ests.append(float(opts[np.argmin(np.abs(opts - f))]))
                tols.append(q.tol_hz)
                combo.append(j)
            any_visible |= visible
            if combo is None:
                continue
            w = 1.0 / np.square(tols)
            est = float(np.sum(w * np.array(ests)) / np.sum(w))
            amp_ratio = [o.peaks[j].amplitude / max(p.amplitude, 1e-12) for o, j in zip(others, combo)]
            pred_ratio = [box_gain(f, o.spectrum.fs) / g0 for o in others]
            misfit = float(np.max(np.abs(np.log(np.array(amp_ratio) / np.maximum(pred_ratio, 1e-9)))))
            if misfit > MAX_MISFIT:  # amplitudes contradict the box-filter prediction: chance match
                continue
            pair_f.setdefault((i, *combo), []).append((est, float(1 / np.sqrt(np.sum(w))), misfit))
        if not any_visible:
            invisible.add(i)
    return pair_f, invisible


def _locked_not_external(locked: dict, pair_f: dict, strong: set, n_others: int) -> dict:
    """Locked tuples that stay candidates: matched externally too, in a strong locked family, or made
    of lines no external match used."""
    used_ext = {k[0] for k in pair_f}
    used_oth = [{k[1 + n] for k in pair_f} for n in range(n_others)]
    return {k: v for k, v in locked.items() if k in pair_f or k in strong or
            (k[0] not in used_ext and all(k[1 + n] not in used_oth[n] for n in range(n_others)))}


def classify_pairs(pair_f: dict, locked: dict, ref: TraceSpectrum, others):
    """Per matched line tuple: a unique true f is *confirmed*; several are decided by the amplitudes
    (one fits > 3× better) or left *tentative* (harmonics may still decide); a tuple that is also
    locked is ambiguous ("locked_and_external").

    Returns confirmed ``(f, tol, obs, snr, key)``, ambiguous ``(entry, key)``, tentative
    ``(candidates, obs, snr, key)`` and the matched line indices per trace.
    """
    confirmed, amb, tentative = [], [], []
    matched = [set() for _ in range(1 + len(others))]
    for key, fl in pair_f.items():
        i, combo = key[0], key[1:]
        obs = (observation(ref, ref.peaks[i]),) + tuple(observation(o, o.peaks[j]) for o, j in zip(others, combo))
        snr = min(o.snr_db for o in obs)
        if len(fl) > 1:
            fl = sorted(fl, key=lambda x: x[2])
            if fl[1][2] - fl[0][2] > np.log(3.0):  # amplitudes favour one candidate by > 3x
                fl = fl[:1]
        if key in locked:
            amb.append((Interference("ambiguous", None, None, obs, tuple(x[0] for x in fl),
                                     fraction=locked[key], reason="locked_and_external", snr_db=snr), key))
        elif len(fl) > 1:
            tentative.append((fl, obs, snr, key))
        else:
            confirmed.append((fl[0][0], fl[0][1], obs, snr, key))
        for s, j in zip(matched, key):
            s.add(j)
    return confirmed, amb, tentative, matched


def unmatched_lines(spectra, f_max: float, matched: list, locked: dict, explained: list,
                    invisible: set) -> list[Interference]:
    """Lines of any trace that nothing explained: ambiguous, "invisible" (reference lines whose every
    candidate would be under the other traces' thresholds) or "unmatched"."""
    out = []
    for idx, ts in enumerate(spectra):
        lk = {k[idx] for k in locked}
        fs = ts.spectrum.fs
        for j, q in enumerate(ts.peaks):
            if j in matched[idx] or j in lk or j in explained[idx]:
                continue
            cands = tuple(float(c) for c in alias_candidates(q.freq_hz, fs, f_max) if box_gain(c, fs) > 1e-3)
            reason = "invisible" if (idx == 0 and j in invisible) else "unmatched"
            out.append(Interference("ambiguous", None, None, (observation(ts, q),), cands, reason=reason,
                                    snr_db=q.snr_db))
    return out


def _with_drift(e: Interference, spectra) -> Interference:
    """Attach the fundamental's phase drift in every trace that has its regridded series."""
    from .drift import drift_on_grid

    out = []
    for ts in spectra:
        if ts.x is None or e.freq_hz is None:
            continue
        sp = ts.spectrum
        a = alias_of(e.freq_hz, sp.fs)
        if a < 2 * sp.resolution_hz or sp.fs / a > 5000:
            continue
        d = drift_on_grid(ts.x, sp.fs, a, resolution_hz=sp.resolution_hz)
        out.append({"path": sp.path or sp.label, "sampling_hz": float(sp.fs), **d.to_dict()})
    return replace(e, drift=tuple(out))
