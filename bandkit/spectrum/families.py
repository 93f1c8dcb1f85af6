"""Steps of the two-rate test after the line matching: harmonic families of confirmed true
frequencies, missing (inferred) fundamentals, sampling-locked families, and the fundamental's own
evidence for inferred ones. Used by :func:`bandkit.spectrum.rates.compare_rates`."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .aliasing import alias_of
from .entries import CLOCK_TOL, Interference, observation
from .lines import TraceSpectrum

#: Local p-value at the fundamental's own bin below which an inferred fundamental counts as seen.
SEEN_P = 0.01


def missing_fundamentals(fams: list[Interference], *, n_max: int = 64, min_members: int = 3,
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
        harmonics = tuple(sorted(harmonics, key=lambda h: h["n"]))
        out.append(Interference("external", f0, tol0, strongest.observed, (f0,), harmonics,
                                snr_db=strongest.snr_db, inferred=True, fundamental_seen=False,
                                lowest_harmonic=min(h["n"] for h in harmonics)))
        rest = [e for e, k in zip(rest, ok) if not k]
    return sorted(_absorb_multiples(out, max_harmonics), key=lambda e: -(e.snr_db + len(e.harmonics)))


def _absorb_multiples(fams: list[Interference], max_harmonics: int) -> list[Interference]:
    """An established family (≥ ``max_harmonics`` harmonics) whose fundamental is a multiple m ≥ 2 of
    an inferred fundamental f0 joins it (the 700 Hz line of a 100 Hz comb whose 1,400, 2,100 …
    made it a family of its own before the 100 Hz comb was inferred). Only inferred families absorb:
    two seen sources at 100 and 250 Hz are never merged under 50 Hz."""
    inferred = [e for e in fams if e.inferred]
    if not inferred:
        return fams
    out = list(fams)
    for e in sorted(inferred, key=lambda e: e.freq_hz):
        for g in list(out):
            if g is e or g.inferred or g not in out or g.freq_hz is None:
                continue
            m = round(g.freq_hz / e.freq_hz)
            tol = m * ((e.freq_tol_hz or 0.0) + CLOCK_TOL * e.freq_hz) + (g.freq_tol_hz or 0.0) + CLOCK_TOL * g.freq_hz
            if m < 2 or abs(g.freq_hz - m * e.freq_hz) > tol:
                continue
            harm = [{"n": int(m), "freq_hz": round(float(g.freq_hz), 4), "observed": g.observed}]
            harm += [{"n": int(round(h["freq_hz"] / e.freq_hz)), "freq_hz": h["freq_hz"], "observed": h["observed"]}
                     for h in g.harmonics]
            have = {h["n"] for h in e.harmonics}
            merged = tuple(sorted(list(e.harmonics) + [h for h in harm if h["n"] not in have], key=lambda h: h["n"]))
            new = replace(e, harmonics=merged, lowest_harmonic=min(h["n"] for h in merged),
                          snr_db=max(e.snr_db, g.snr_db))
            out = [new if x is e else x for x in out if x is not g]
            e = new
    return out


def families(confirmed: list, spectra, f_max: float, tentative: list = ()) -> tuple[list[Interference], list[set], list]:
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


def locked_entries(locked: dict, pair_f: dict, ref: TraceSpectrum, others) -> list[Interference]:
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
        obs = (observation(ref, ref.peaks[key[0]]),) + tuple(observation(o, o.peaks[j]) for o, j in zip(others, key[1:]))
        harmonics = tuple({"n": int(round(f2 / fr)), "freq_hz": None,
                           "observed": (observation(ref, ref.peaks[k2[0]]),)
                           + tuple(observation(o, o.peaks[j]) for o, j in zip(others, k2[1:]))}
                          for f2, k2 in fam[1:])
        res.append(Interference("sampling-locked", None, None, obs, (), harmonics, fraction=fr,
                                snr_db=min(o.snr_db for o in obs)))
    return res


def fundamental_evidence(e: Interference, spectra) -> Interference:
    """An inferred external entry with its fundamental's own evidence in every trace: the spectrum at
    alias(f0) (SNR in dB, and a local p-value: the bin is named by the harmonics, no search charged;
    3 bins looked at). ``fundamental_seen`` when every trace's p ≤ ``SEEN_P``."""
    if not e.inferred or e.freq_hz is None:
        return e
    ev = []
    for ts in spectra:
        sp, cal = ts.spectrum, ts.calibration
        a = float(alias_of(e.freq_hz, sp.fs))
        item = {"path": sp.path or sp.label, "sampling_hz": float(sp.fs), "alias_hz": round(a, 4),
                "snr_db": None, "p_value": None}
        if cal is not None:
            i = int(round(a / sp.resolution_hz))
            lo, hi = max(i - 1, 0), min(i + 2, len(sp.psd))
            r = cal.ratio[lo:hi]
            if np.isfinite(r).any():
                j = lo + int(np.nanargmax(r))
                item["snr_db"] = round(float(10 * np.log10(max(float(cal.ratio[j]), 1e-12))), 2)
                item["p_value"] = float(f"{min(1.0, 3 * cal.local_p_value(j)):.3g}")
        ev.append(item)
    seen = bool(ev) and all(x["p_value"] is not None and x["p_value"] <= SEEN_P for x in ev)
    return replace(e, fundamental_evidence=tuple(ev), fundamental_seen=seen)
