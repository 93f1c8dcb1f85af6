"""The two-sampling-rate test (Rhoden): is a periodic line external or an artefact of sampling?

Run FTQ at two rates, neither a multiple of the other (e.g. 10 kHz and 7777 Hz). An *external*
source has one true frequency ``f``: it appears at ``alias(f, fs)`` at every rate, so the sets of
true frequencies consistent with the lines seen at each rate (``|k·fs ± a| ≤ f_max``) intersect in
``f``. A *sampling-locked* artefact (something every N quanta) sits at the same *fraction* of each
rate instead. Everything else is *ambiguous*, with a reason:

- ``"unmatched"``: no line at the other rate(s) fits any true frequency ≤ f_max nor the same fraction;
- ``"invisible"``: every candidate true frequency would be below the other trace's noise floor
  (quantum averaging attenuates it by |sinc(f/fs)|, or it aliases to ~DC);
- ``"multiple"``: several true frequencies ≤ f_max fit the same lines, amplitudes cannot tell;
- ``"locked_and_external"``: the lines fit both a common true frequency and a common fraction.

Confirmed true frequencies are grouped into harmonic families (f ≈ n·f0); each family is one
interference entry, its fundamental the member that explains most of the others.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..display import DisplayMixin
from ..errors import UsageError
from .aliasing import alias_candidates, alias_of, box_gain
from .peaks import Peak, find_peaks, noise_floor
from .psd import Spectrum, compute_spectrum, regrid

#: Allowed relative mismatch between two recordings' clocks / a source's frequency (1e-5).
CLOCK_TOL = 1e-5
#: Largest |log(observed / predicted)| amplitude ratio between rates for a common true frequency:
#: the box-filter model predicts the ratio |sinc(f/fs_b)| / |sinc(f/fs_a)|; beyond ×10 it is a chance match.
MAX_MISFIT = float(np.log(10.0))


@dataclass(frozen=True)
class TraceSpectrum(DisplayMixin):
    """A trace's spectrum, its significant lines, drifting sources (``drifts``, see
    :mod:`bandkit.spectrum.drift`) and the regridded work fraction ``x`` (for folds and plots)."""

    spectrum: Spectrum
    peaks: tuple[Peak, ...]
    drifts: tuple = ()
    x: np.ndarray | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict:
        d = self.spectrum.to_dict()
        d["peaks"] = [p.to_dict() for p in sorted(self.peaks, key=lambda p: -p.snr)]
        d["drifts"] = [x.to_dict() for x in self.drifts]
        return d


def analyze_spectrum(trace, *, min_snr_db: float = 8.0, segment_s: float | None = None,
                     max_peaks: int = 150, drift: bool = True) -> TraceSpectrum:
    """Spectrum, peak list (harmonics grouped) and, with ``drift``, confirmed drifting sources of
    one trace. See :func:`compute_spectrum`, :func:`find_peaks`, :func:`find_drifts`."""
    from .drift import find_drifts

    g = regrid(trace)
    spec = compute_spectrum(trace, segment_s=segment_s, grid=g)
    ts = TraceSpectrum(spec, tuple(find_peaks(spec, min_snr_db=min_snr_db, max_peaks=max_peaks)), (), g.x)
    if drift:
        ts = TraceSpectrum(ts.spectrum, ts.peaks, tuple(find_drifts(trace, ts)), g.x)
    return ts


@dataclass(frozen=True)
class Observation:
    """One line of one trace that supports an interference entry (alias in Hz, SNR in dB)."""

    path: str
    sampling_hz: float
    alias_hz: float
    snr_db: float
    amplitude: float

    def to_dict(self) -> dict:
        return {"path": self.path, "sampling_hz": float(self.sampling_hz),
                "alias_hz": round(float(self.alias_hz), 4), "snr": round(float(self.snr_db), 2),
                "amplitude": float(self.amplitude)}


@dataclass(frozen=True)
class Interference:
    """One finding of the rate comparison.

    ``verdict``: "external" | "sampling-locked" | "ambiguous". ``freq_hz``: the true frequency of an
    external fundamental (None otherwise); ``fraction``: alias/fs of a sampling-locked line;
    ``observed``: its lines per trace; ``candidates_hz``: true frequencies ≤ f_max consistent with
    the observation (for an external entry: the confirmed one); ``harmonics``: confirmed members
    ``{"n", "freq_hz", "observed"}``; ``reason`` for ambiguous entries; ``drift``: for an external
    entry, the phase drift of its fundamental in each trace (:func:`bandkit.spectrum.drift.drift_on_grid`:
    ``{"path", "period_quanta", "drift_quanta_per_s", "measured_quanta_per_s", "confirmed", ...}``);
    ``inferred``: the fundamental itself was not seen, it is the common divisor of ≥ 3 confirmed
    external lines (``observed`` is then the strongest member's).
    """

    verdict: str
    freq_hz: float | None
    freq_tol_hz: float | None
    observed: tuple[Observation, ...]
    candidates_hz: tuple[float, ...]
    harmonics: tuple[dict, ...] = ()
    fraction: float | None = None
    reason: str | None = None
    snr_db: float = 0.0
    drift: tuple[dict, ...] = ()
    inferred: bool = False

    def to_dict(self) -> dict:
        return {
            "freq_hz": None if self.freq_hz is None else round(float(self.freq_hz), 4),
            "freq_tol_hz": None if self.freq_tol_hz is None else round(float(self.freq_tol_hz), 4),
            "verdict": self.verdict,
            "reason": self.reason,
            "fraction": None if self.fraction is None else round(float(self.fraction), 7),
            "snr": round(float(self.snr_db), 2),
            "observed": [o.to_dict() for o in self.observed],
            "candidates_hz": [round(float(c), 4) for c in self.candidates_hz],
            "harmonics": [dict(h, observed=[o.to_dict() for o in h["observed"]]) for h in self.harmonics],
            "drift": [dict(d) for d in self.drift],
            "fundamental_inferred": bool(self.inferred),
        }


@dataclass(frozen=True)
class RateComparison(DisplayMixin):
    """Result of :func:`compare_rates`: per-trace spectra and the interference entries."""

    paths: tuple[str, ...]
    rates_hz: tuple[float, ...]
    f_max: float
    spectra: tuple[TraceSpectrum, ...]
    interference: tuple[Interference, ...]

    @property
    def external(self) -> list[Interference]:
        return [i for i in self.interference if i.verdict == "external"]

    def to_dict(self) -> dict:
        return {"paths": list(self.paths), "rates_hz": [float(r) for r in self.rates_hz],
                "f_max_hz": float(self.f_max),
                "interference": [i.to_dict() for i in self.interference]}


def _obs(ts: TraceSpectrum, p: Peak) -> Observation:
    s = ts.spectrum
    return Observation(s.path or s.label, s.fs, p.freq_hz, p.snr_db, p.amplitude)


def _floor_at(ts: TraceSpectrum, floors: dict, f_alias: float) -> float:
    fl = floors[id(ts)]
    i = int(np.clip(round(f_alias / ts.spectrum.resolution_hz), 0, len(fl) - 1))
    return float(fl[i])


def compare_rates(*traces, f_max: float | None = None, min_snr_db: float = 8.0,
                  spectra: list[TraceSpectrum] | None = None, max_ambiguous: int = 10,
                  n_max: int = 400) -> RateComparison:
    """Compare FTQ traces recorded at different sampling rates (two or more; or one list of them).

    ``spectra``: precomputed :func:`analyze_spectrum` results to use instead of the traces.

    ``f_max`` (Hz, default 2.5 × the highest rate) bounds the true frequencies considered. Lines
    are matched when a true ``f`` ≤ f_max aliases onto a line of every trace within the lines'
    frequency uncertainties plus a relative clock tolerance of 1e-5.
    """
    if len(traces) == 1 and isinstance(traces[0], (list, tuple)):
        traces = tuple(traces[0])
    if spectra is None:
        if len(traces) < 2:
            raise UsageError("compare_rates needs at least two traces")
        spectra = [analyze_spectrum(t, min_snr_db=min_snr_db) for t in traces]
    elif len(spectra) < 2:
        raise UsageError("compare_rates needs at least two spectra")
    rates = [s.spectrum.fs for s in spectra]
    for i in range(len(rates)):
        for j in range(i + 1, len(rates)):
            r = max(rates[i], rates[j]) / min(rates[i], rates[j])
            if abs(r - round(r)) < 1e-3:
                raise UsageError(f"sampling rates {rates[i]:g} and {rates[j]:g} Hz are multiples of "
                                 "each other: the two-rate test needs rates that are not")
    f_max = float(f_max or 2.5 * max(rates))
    floors = {id(s): noise_floor(s.spectrum) for s in spectra}
    ref, others = spectra[0], spectra[1:]

    # 1. sampling-locked pairs: same fraction of every rate
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

    # lines of locked families with >= 2 members (r and k·r) are not evidence of an external source
    fr_all = sorted(set(locked.values()))
    strong = set()
    for key, fr in locked.items():
        multiples = [g for g in fr_all if g != fr and (abs(g / fr - round(g / fr)) < 0.01 or
                                                     abs(fr / g - round(fr / g)) < 0.01)]
        if multiples:
            strong.add(key)
    skip_ref = {k[0] for k in strong}
    skip_oth = [{k[1 + n] for k in strong} for n in range(len(others))]
    line_arrays = [(np.array([q.freq_hz for q in o.peaks]), np.array([q.tol_hz for q in o.peaks]))
                   for o in others]
    usable = [np.array([j not in skip_oth[n] for j in range(len(o.peaks))], dtype=bool)
              for n, o in enumerate(others)]

    # 2. for each reference line and candidate f: does every other trace have a line at alias(f)?
    #    (the amplitudes must fit the box-filter prediction within MAX_MISFIT)
    pair_f: dict[tuple, list[tuple[float, float, float]]] = {}
    matched_ref, matched_other = set(), [set() for _ in others]
    invisible = set()
    for i, p in enumerate(ref.peaks):
        if i in skip_ref:
            continue
        cands = alias_candidates(p.freq_hz, ref.spectrum.fs, f_max)
        any_visible = False
        for f in cands:
            g0 = box_gain(f, ref.spectrum.fs)
            if g0 < 1e-3:
                continue
            true_amp = p.amplitude / g0
            combo, ests, tols, visible = [], [f], [p.tol_hz], True
            for oi, o in enumerate(others):
                fo = o.spectrum.fs
                a = alias_of(f, fo)
                pred_amp = true_amp * box_gain(f, fo)
                pred_snr = pred_amp ** 2 / (2 * 1.5 * o.spectrum.resolution_hz) / _floor_at(o, floors, a)
                if pred_snr < 10 ** (min_snr_db / 10) or a < 2.5 * o.spectrum.resolution_hz:
                    visible = False
                tol_f = (p.tol_hz + CLOCK_TOL * f)
                of, ot = line_arrays[oi]
                err = np.abs(of - a)
                ok = (err <= tol_f + ot) & usable[oi]
                best = (int(np.flatnonzero(ok)[np.argmin(err[ok])]), 0.0) if ok.any() else None
                if best is None:
                    combo = None
                    break
                q = o.peaks[best[0]]
                k = np.round(f / fo)
                opts = np.array([k * fo + q.freq_hz, k * fo - q.freq_hz, (k + 1) * fo - q.freq_hz,
                                 (k - 1) * fo + q.freq_hz])
                ests.append(float(opts[np.argmin(np.abs(opts - f))]))
                tols.append(q.tol_hz)
                combo.append(best[0])
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

    used_ext = {k[0] for k in pair_f}
    used_oth = [{k[1 + n] for k in pair_f} for n in range(len(others))]
    locked = {k: v for k, v in locked.items() if k in pair_f or k in strong or
              (k[0] not in used_ext and all(k[1 + n] not in used_oth[n] for n in range(len(others))))}

    # 3. per line pair: unique true f -> confirmed; several -> amplitudes decide, else tentative
    #    (harmonics may still decide in step 4)
    confirmed, entries, amb_keys, tentative = [], [], [], []
    for key, fl in pair_f.items():
        i, combo = key[0], key[1:]
        obs = (_obs(ref, ref.peaks[i]),) + tuple(_obs(o, o.peaks[j]) for o, j in zip(others, combo))
        snr = min(o.snr_db for o in obs)
        if len(fl) > 1:
            fl = sorted(fl, key=lambda x: x[2])
            if fl[1][2] - fl[0][2] > np.log(3.0):  # amplitudes favour one candidate by > 3x
                fl = fl[:1]
        if key in locked:
            amb_keys.append(key)
            entries.append(Interference("ambiguous", None, None, obs, tuple(x[0] for x in fl),
                                        fraction=locked[key], reason="locked_and_external", snr_db=snr))
        elif len(fl) > 1:
            tentative.append((fl, obs, snr, key))
        else:
            confirmed.append((fl[0][0], fl[0][1], obs, snr, key))
        matched_ref.add(i)
        for s, j in zip(matched_other, combo):
            s.add(j)

    # 4. harmonic families of confirmed true frequencies; lines on a family's comb are explained
    fams, explained, unresolved = _families(confirmed, spectra, f_max, tentative)
    fams = _missing_fundamentals(fams)
    for fl, obs, snr, key in unresolved:
        amb_keys.append(key)
        entries.append(Interference("ambiguous", None, None, obs, tuple(sorted(x[0] for x in fl)),
                                    reason="multiple", snr_db=snr))
    # a locked family all of whose lines sit on an external family's comb is that family's doing
    locked = {k: v for k, v in locked.items()
              if not all(idx in explained[n] for n, idx in enumerate(k))}
    entries = fams + _locked_entries(locked, pair_f, ref, others) + [
        e for e, key in zip(entries, amb_keys) if not all(idx in explained[k] for k, idx in enumerate(key))]
    # 5. unmatched strong reference lines (and other traces' lines) -> ambiguous
    extra = []
    locked_ref = {k[0] for k in locked}
    for i, p in enumerate(ref.peaks):
        if i in matched_ref or i in locked_ref or i in explained[0]:
            continue
        cands = tuple(float(c) for c in alias_candidates(p.freq_hz, ref.spectrum.fs, f_max)
                      if box_gain(c, ref.spectrum.fs) > 1e-3)
        extra.append(Interference("ambiguous", None, None, (_obs(ref, p),), cands,
                                  reason="invisible" if i in invisible else "unmatched",
                                  snr_db=p.snr_db))
    for o, used, idx in zip(others, matched_other, range(1, len(spectra))):
        lk = {k[idx] for k in locked}
        for j, q in enumerate(o.peaks):
            if j in used or j in lk or j in explained[idx]:
                continue
            cands = tuple(float(c) for c in alias_candidates(q.freq_hz, o.spectrum.fs, f_max)
                          if box_gain(c, o.spectrum.fs) > 1e-3)
            extra.append(Interference("ambiguous", None, None, (_obs(o, q),), cands, reason="unmatched",
                                      snr_db=q.snr_db))
    amb = sorted([e for e in entries if e.verdict == "ambiguous"] + extra, key=lambda e: -e.snr_db)
    main = [_with_drift(e, spectra) if e.verdict == "external" else e
            for e in entries if e.verdict != "ambiguous"]
    return RateComparison(tuple(s.spectrum.path or s.spectrum.label for s in spectra), tuple(rates), f_max,
                          tuple(spectra), tuple(main + amb[:max_ambiguous]))


def _with_drift(e: Interference, spectra) -> Interference:
    """Attach the fundamental's phase drift in every trace that has its regridded series."""
    from dataclasses import replace

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


def _missing_fundamentals(fams: list[Interference], *, n_max: int = 64, min_members: int = 3,
                          f_min: float = 20.0, max_harmonics: int = 5,
                          max_window: float = 0.05) -> list[Interference]:
    """Merge small families (< ``max_harmonics`` harmonics) whose fundamentals are harmonics of one
    unseen fundamental f0 (weak lines of a source whose own fundamental is under the threshold).

    For the lowest remaining head f and n = 1..n_max, f0 = f/n (≥ ``f_min`` Hz) is tried; a head
    counts as its multiple m when within m·tol(f0) + tol, a window at most ``max_window`` × f0 wide
    (so a chance hit is unlikely). An f0 qualifies when it explains at least ``min_members`` heads and
    more than f itself does; the largest qualifying f0 wins unless a smaller one explains ≥ 2 more.
    f0 is refined by least squares over the members.
    """
    out = [e for e in fams if len(e.harmonics) >= max_harmonics]  # established families stay
    rest = sorted([e for e in fams if len(e.harmonics) < max_harmonics], key=lambda e: e.freq_hz)
    while rest:
        head = rest[0]
        f = np.array([e.freq_hz for e in rest])
        tol = np.array([e.freq_tol_hz or 0.0 for e in rest]) + CLOCK_TOL * f
        tries = []
        for n in range(1, n_max + 1):
            f0 = head.freq_hz / n
            if f0 < f_min:
                break
            m = np.round(f / f0)
            window = m * tol[0] / n + tol
            # a member counts only when its window is narrow next to f0 (a chance hit has p ≤ 5 %)
            ok = (m >= 1) & (np.abs(f - m * f0) <= window) & (2 * window <= max_window * f0)
            tries.append((int(ok.sum()), n, ok, m))
        c1 = tries[0][0] if tries else 0
        better = [t for t in tries[1:] if t[0] > c1 and t[0] >= min_members]
        if not better:
            out.append(head)
            rest = rest[1:]
            continue
        # the largest f0 wins unless a smaller one explains at least 2 more members
        better.sort(key=lambda t: t[1])
        pick = better[0]
        for t in better[1:]:
            if t[0] >= pick[0] + 2:
                pick = t
        _, n, ok, m = pick
        members = [e for e, k in zip(rest, ok) if k]
        mm = m[ok]
        w = 1.0 / np.square(tol[ok])
        f0 = float(np.sum(w * mm * f[ok]) / np.sum(w * mm * mm))
        tol0 = float(1.0 / np.sqrt(np.sum(w * mm * mm)))
        harmonics = []
        for e, k in zip(members, mm):
            harmonics.append({"n": int(k), "freq_hz": round(float(e.freq_hz), 4), "observed": e.observed})
            for h in e.harmonics:
                harmonics.append({"n": int(round(h["freq_hz"] / f0)), "freq_hz": h["freq_hz"],
                                  "observed": h["observed"]})
        strongest = max(members, key=lambda e: e.snr_db)
        out.append(Interference("external", f0, tol0, strongest.observed, (f0,),
                                tuple(sorted(harmonics, key=lambda h: h["n"])),
                                snr_db=strongest.snr_db, inferred=True))
        rest = [e for e, k in zip(rest, ok) if not k]
    return sorted(out, key=lambda e: -(e.snr_db + len(e.harmonics)))


def _families(confirmed: list, spectra, f_max: float, tentative: list = ()) -> tuple[list[Interference], list[set], list]:
    """Group confirmed true lines into harmonic families and explain lines away.

    Repeatedly, the confirmed line explaining most SNR (itself plus its harmonics n·f0, each weighted
    1/n) heads a family; f0 is refined by least squares over the members (f_n = n·f0). Every line of
    every trace at ``alias(n·f0)`` (n up to max(4·max(fs)/f0, 2·SNR^¼, 64), within n·tol(f0)) is attributed to the
    family: confirmed "true frequencies" made only of such lines are coincidences inside the
    family's comb (two harmonics n ≠ m whose aliases happen to fit one f) and are dropped.
    ``tentative``: line pairs that fit several true frequencies (``(candidates, obs, snr, key)``);
    a candidate may head a family when at least two confirmed lines are its harmonics, which
    resolves the pair; pairs whose lines all sit on an accepted family's comb are explained.
    Returns the entries, per trace the indices of lines the families explain, and the unresolved
    tentative pairs.
    """
    explained = [set() for _ in spectra]
    tentative = list(tentative)
    if not confirmed:
        return [], explained, tentative
    confirmed = sorted(confirmed, key=lambda c: c[0])
    merged = []
    for c in confirmed:
        if merged and abs(c[0] - merged[-1][0]) <= 3 * (c[1] + merged[-1][1]):
            if c[3] > merged[-1][3]:
                merged[-1] = c
        else:
            merged.append(c)
    out = []
    remaining = merged
    max_fs = max(sp.spectrum.fs for sp in spectra)
    while remaining:
        m = len(remaining)
        # heads: confirmed lines, then candidates of tentative pairs (tag = index of the pair)
        heads = [(c[0], c[1], c[3], None) for c in remaining]
        heads += [(x[0], x[1], t[2], ti) for ti, t in enumerate(tentative) for x in t[0]]
        hf = np.array([h[0] for h in heads])
        htol = np.array([h[1] for h in heads]) + CLOCK_TOL * hf
        f = hf[:m]
        tol = htol[:m]
        w = np.array([max(c[3], 1.0) for c in remaining])
        n = np.round(f[None, :] / hf[:, None])
        ok = ((n >= 2) & (np.abs(f[None, :] - n * hf[:, None]) <= n * htol[:, None] + tol[None, :])
              & (n * htol[:, None] <= 0.25 * hf[:, None]))
        harm = np.where(ok, n, 0).astype(int)
        adopt = np.where(harm > 0, 1.0 / np.maximum(harm, 1), 0.0)
        hw = np.array([max(h[2], 1.0) for h in heads])
        score = hw + adopt @ w
        n_kids = (harm > 0).sum(axis=1)
        score[m:] = np.where(n_kids[m:] >= 2, score[m:], -np.inf)  # tentative heads need 2 harmonics
        best = np.flatnonzero(score >= score.max() - 1e-9)
        i = int(best[np.argmin(hf[best])])
        kids = np.flatnonzero(harm[i] > 0)
        if i >= m:  # a tentative pair resolved by its harmonics: it becomes a confirmed head
            ti = heads[i][3]
            fl, obs_t, snr_t, key_t = tentative.pop(ti)
            remaining = remaining + [(heads[i][0], heads[i][1], obs_t, snr_t, key_t)]
            continue
        members = np.concatenate([[i], kids])
        nn = np.concatenate([[1], harm[i, kids]]).astype(float)
        wt = 1.0 / np.square(tol[members])
        f0 = float(np.sum(wt * nn * f[members]) / np.sum(wt * nn * nn))
        tol0 = float(1.0 / np.sqrt(np.sum(wt * nn * nn)))
        # attribute every line of every trace that sits on the family's comb
        # harmonics of a pulse train fall off ~1/n² in amplitude: visible up to n ~ 2·SNR^(1/4)
        fam_snr = 10 ** (max([remaining[i][3]] + [remaining[j][3] for j in kids]) / 10)
        n_hi = int(min(5000, max(np.ceil(4 * max_fs / f0), 2 * fam_snr ** 0.25, 64)))
        ns = np.arange(1, n_hi + 1)
        for k, sp in enumerate(spectra):
            if not sp.peaks:
                continue
            al = alias_of(ns * f0, sp.spectrum.fs)
            lf = np.array([q.freq_hz for q in sp.peaks])
            lt = np.array([q.tol_hz for q in sp.peaks])
            lim = ns[:, None] * (tol0 + CLOCK_TOL * f0) + lt[None, :]
            hit = (np.abs(al[:, None] - lf[None, :]) <= lim) & (ns[:, None] * tol0 <= 0.25 * f0)
            explained[k].update(np.flatnonzero(hit.any(axis=0)).tolist())
        fam = remaining[i]
        harmonics = tuple({"n": int(harm[i, j]), "freq_hz": round(float(f[j]), 4), "observed": remaining[j][2]}
                          for j in kids)
        snr = max([fam[3]] + [remaining[j][3] for j in kids])
        out.append(Interference("external", f0, tol0, fam[2], (f0,), harmonics, snr_db=snr))
        gone = set(members.tolist())
        remaining = [c for j, c in enumerate(remaining) if j not in gone and
                     not all(idx in explained[k] for k, idx in enumerate(c[4]))]
        tentative = [t for t in tentative if not all(idx in explained[k] for k, idx in enumerate(t[3]))]
    return sorted(out, key=lambda e: -(e.snr_db + len(e.harmonics))), explained, tentative


def _locked_entries(locked: dict, pair_f: dict, ref: TraceSpectrum, others) -> list[Interference]:
    """Sampling-locked lines (same fraction at every rate, no common true frequency), one per fraction
    family: fraction r and its multiples k·r are grouped under the smallest."""
    items = [(fr, key) for key, fr in locked.items() if key not in pair_f]
    if not items:
        return []
    items.sort()
    out: list[list] = []
    for fr, key in items:
        for fam in out:
            k = fr / fam[0][0]
            if abs(k - round(k)) < 0.01 and round(k) >= 2:
                fam.append((fr, key))
                break
        else:
            out.append([(fr, key)])
    res = []
    for fam in out:
        fr, key = fam[0]
        obs = (_obs(ref, ref.peaks[key[0]]),) + tuple(_obs(o, o.peaks[j]) for o, j in zip(others, key[1:]))
        harmonics = tuple({"n": int(round(f2 / fr)), "freq_hz": None,
                           "observed": (_obs(ref, ref.peaks[k2[0]]),)
                           + tuple(_obs(o, o.peaks[j]) for o, j in zip(others, k2[1:]))}
                          for f2, k2 in fam[1:])
        res.append(Interference("sampling-locked", None, None, obs, (), harmonics, fraction=fr,
                                snr_db=min(o.snr_db for o in obs)))
    return res
