"""Evaluate the two-rate interference test on generated FTQ pairs (10 kHz and 7777.017358 Hz).

Run: ``python3 benchmarks/interference_eval.py [--cases N] [--seed S]``. Prints the figures written
down in benchmarks/RESULTS_interference.md.

1. External sources: true frequency log-uniform in turn in [20 Hz, 3888 Hz] (below both Nyquist
   frequencies), [3888, 5000] (between them) and [5000 Hz, 20 kHz] (above both), a pulse train
   (duty 2–30 %, depth 0.2–1, or log-uniform 0.02–1 with ``--realistic``; start jitter up to 2 %
   of the period below 2 kHz). Each external entry the comparison reports is a *claim*; a claim is right when it is
   within 0.5 % of n·f_true (n ≥ 1: a harmonic is a true component too; with ``--tick`` also
   n·250 Hz). A case is *recovered* when
   a claim is within 0.5 % of f_true, *wrong* when any claim is not right, else *ambiguous*.
   Ambiguous cases are split into *reported* (an ambiguous entry shows the source's alias) and not
   detected (the line is under the detection threshold: nothing is claimed). A case is *identifiable* when the fundamental's predicted line is above the detection threshold
   at both rates, aliases ≥ 3 bins away from DC at both rates, and only one true frequency
   ≤ f_max is consistent with both ideal aliases.
2. Sampling-locked artefacts: one quantum in every N (N = 2..60) loses 10–60 % of its work, at
   both rates. Any external claim is a failure.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from bandkit.spectrum import compare_rates, compute_spectrum
from bandkit.spectrum.aliasing import alias_of, box_gain, common_frequencies
from bandkit.synthetic.interference import Locked, Source, ftq_trace

FS = (10000.0, 7777.017358)
#: ``--tick``: a second external source in both traces, like the shared VM's 250 Hz scheduler tick.
TICK = Source(250.0, duty=0.02, depth=0.5)


def identifiable(f: float, duty: float, depth: float, twins, f_max: float) -> bool:
    """Ground truth only: the fundamental's predicted line clears the noise level measured on twin
    traces without the source (their PSD averaged over ±10 bins: independent of the detector's
    floor, so that two versions of the detector are judged on the same cases) by 12 dB at both rates, its aliases are ≥ 3 bins from DC and
    Nyquist, and exactly one true frequency ≤ f_max fits both ideal aliases."""
    res = []
    for fs, tw in zip(FS, twins):
        sp = compute_spectrum(tw)
        r = sp.resolution_hz
        res.append(r)
        a = alias_of(f, fs)
        if a < 3 * r or abs(a - fs / 2) < 3 * r:
            return False
        # fundamental amplitude of a pulse train (work fraction), after the box filter
        amp = 2 * depth * duty * abs(np.sinc(duty)) * box_gain(f, fs)
        i = int(round(a / r))
        floor = float(np.mean(sp.psd[max(i - 10, 1): i + 11]))  # the twin's own noise level there (no line)
        snr = amp ** 2 / (2 * 1.5 * r) / floor
        if snr < 10 ** 1.2:  # 12 dB: a margin over the 8 dB detection threshold
            return False
    tol = [0.05 * r for r in res]
    cands = common_frequencies([alias_of(f, fs) for fs in FS], list(FS), tol, f_max)
    return len(cands) == 1


def _stalls(rng, duration: float, rate_hz: float):
    """Random stalls like other tasks cause on a shared CPU: Poisson onsets, 0.2–3 ms long."""
    k = rng.poisson(rate_hz * duration)
    return [(float(t), float(rng.uniform(2e-4, 3e-3))) for t in np.sort(rng.uniform(0, duration - 0.01, k))]


def external_cases(n: int, seed: int, duration: float, realistic: bool, tick: bool = False):
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n):
        lo, hi = [(20.0, FS[1] / 2), (FS[1] / 2, FS[0] / 2), (FS[0] / 2, 20000.0)][k % 3]
        f = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
        duty = rng.uniform(0.02, 0.3)
        depth = float(np.exp(rng.uniform(np.log(0.02), np.log(1.0)))) if realistic else rng.uniform(0.2, 1.0)
        jitter = rng.uniform(0.0, 0.02 / f) if f < 2000 else 0.0
        src = Source(f, duty=duty, jitter_s=jitter, phase=rng.uniform(), depth=depth)
        kw = [dict(noise=0.02, stalls=_stalls(rng, duration, 20.0)) if realistic else {} for _ in FS]
        extra = [TICK] if tick else []
        traces = [ftq_trace(fs, duration, [src] + extra, seed=seed * 1000 + 2 * k + i, **kw[i])
                  for i, fs in enumerate(FS)]
        twins = [ftq_trace(fs, duration, extra, seed=seed * 1000 + 2 * k + i, **kw[i]) for i, fs in enumerate(FS)]
        cmp = compare_rates(*traces)
        claims = [e.freq_hz for e in cmp.external]
        known = [f] + ([TICK.freq_hz] if tick else [])
        right = [any(abs(c - m * g) <= 0.005 * m * g for g in known for m in range(1, 400)) for c in claims]
        recovered = any(abs(c - f) <= 0.005 * f for c in claims)
        outcome = "wrong" if not all(right) else ("recovered" if recovered else "ambiguous")
        # an ambiguous case is *reported* when an ambiguous entry shows the source's alias at a rate
        # (with f_true among its candidates when it lists them), else the line was not detected
        reported = any(e.verdict == "ambiguous" and any(abs(o.alias_hz - alias_of(f, o.sampling_hz)) <= 0.5
                                                       for o in e.observed) for e in cmp.interference)
        best = min(claims, key=lambda c: abs(c - f)) if claims else None
        rows.append({"f": f, "duty": duty, "depth": depth, "outcome": outcome, "reported": reported,
                     "ident": identifiable(f, duty, depth, twins, cmp.f_max),
                     "err": None if best is None else abs(best - f) / f,
                     "band": "below both" if f < FS[1] / 2 else ("between" if f < FS[0] / 2 else "above both")})
    return rows


def locked_cases(n: int, seed: int, duration: float, realistic: bool):
    rng = np.random.default_rng(seed + 1)
    rows = []
    for k in range(n):
        every = int(rng.integers(2, 61))
        depth = float(rng.uniform(0.1, 0.6))
        kw = [dict(noise=0.02, stalls=_stalls(rng, duration, 20.0)) if realistic else {} for _ in FS]
        traces = [ftq_trace(fs, duration, locked=[Locked(every, depth)], seed=seed * 1000 + 2 * k + i, **kw[i])
                  for i, fs in enumerate(FS)]
        cmp = compare_rates(*traces)
        rows.append({"every": every, "external": len(cmp.external),
                     "locked": sum(e.verdict == "sampling-locked" for e in cmp.interference)})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--locked", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--tick", action="store_true", help="add a 250 Hz, 2 %% duty source to every trace")
    ap.add_argument("--realistic", action="store_true",
                    help="2 %% count noise, 20 random stalls/s (0.2–3 ms), depth log-uniform 0.02–1")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    ext = external_cases(a.cases, a.seed, a.duration, a.realistic, a.tick)
    t1 = time.perf_counter()
    mode = ("realistic" if a.realistic else "clean") + (" + 250 Hz tick" if a.tick else "")
    print(f"external ({mode}): {len(ext)} pairs, {a.duration:g} s each, {t1 - t0:.1f} s")
    for name, sel in [("identifiable", [r for r in ext if r["ident"]]),
                      ("not identifiable", [r for r in ext if not r["ident"]]), ("all", ext)]:
        n = len(sel)
        c = {o: sum(r["outcome"] == o for r in sel) for o in ("recovered", "ambiguous", "wrong")}
        print(f"  {name:17s} n={n:4d}  recovered {c['recovered']:4d} ({100 * c['recovered'] / max(n, 1):5.1f} %)"
              f"  ambiguous {c['ambiguous']:4d}  wrong {c['wrong']:4d}")
    amb = [r for r in ext if r["outcome"] == "ambiguous"]
    print(f"  ambiguous cases: {sum(r['reported'] for r in amb)} with the source's line in an ambiguous entry, "
          f"{sum(not r['reported'] for r in amb)} with no line detected at either rate's threshold")
    for band in ("below both", "between", "above both"):
        sel = [r for r in ext if r["ident"] and r["band"] == band]
        rec = sum(r["outcome"] == "recovered" for r in sel)
        print(f"  identifiable, true f {band:10s}: {rec}/{len(sel)} recovered, "
              f"{sum(r['outcome'] == 'wrong' for r in sel)} wrong")
    errs = [r["err"] for r in ext if r["outcome"] == "recovered"]
    if errs:
        print(f"  relative error of recovered f: median {np.median(errs):.2e}, max {np.max(errs):.2e}")
    for r in ext:
        if r["outcome"] == "wrong" or (r["ident"] and r["outcome"] != "recovered"):
            print(f"    {r['outcome']:9s} f={r['f']:.2f} duty={r['duty']:.2f} depth={r['depth']:.2f} ident={r['ident']}")
    lk = locked_cases(a.locked, a.seed, a.duration, a.realistic)
    t2 = time.perf_counter()
    bad = [r for r in lk if r["external"]]
    print(f"locked: {len(lk)} pairs, {t2 - t1:.1f} s; called external: {len(bad)}; "
          f"reported sampling-locked: {sum(r['locked'] > 0 for r in lk)}")
    for r in bad:
        print(f"    every {r['every']}: {r['external']} external entries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
