"""Aliasing arithmetic for a sampled, quantum-averaged signal (frequencies in Hz).

A sinusoid of true frequency ``f`` sampled at ``fs`` appears at the alias
``a = |f - fs·round(f / fs)|`` in ``[0, fs/2]``; conversely an alias ``a`` is consistent with every
true ``f = |k·fs ± a|``.  FTQ counts work over a whole quantum, i.e. it samples the CPU
availability after a box filter of width ``1/fs``: a true component is scaled by
``|sinc(f / fs)|`` (``sinc(x) = sin(πx)/(πx)``), with nulls at every multiple of ``fs``.
"""
from __future__ import annotations

import numpy as np


def alias_of(f, fs: float):
    """Alias in [0, fs/2] of true frequency ``f`` (scalar or array) sampled at ``fs``."""
    f = np.asarray(f, dtype=np.float64)
    a = np.abs(f - fs * np.round(f / fs))
    return a if a.ndim else float(a)


def alias_fraction(f, fs: float):
    """Alias as a fraction of the sampling rate, in [0, 0.5]."""
    return alias_of(f, fs) / fs


def alias_candidates(alias_hz: float, fs: float, f_max: float) -> np.ndarray:
    """Sorted true frequencies ``|k·fs ± alias|`` ≤ ``f_max`` consistent with ``alias_hz`` at ``fs``."""
    k = np.arange(0, int(np.floor((f_max + alias_hz) / fs)) + 1)
    c = np.concatenate([k * fs + alias_hz, k[1:] * fs - alias_hz])
    c = c[(c >= 0) & (c <= f_max)]
    return np.unique(np.round(c, 9))


def box_gain(f, fs: float):
    """Amplitude response ``|sinc(f/fs)|`` of FTQ's quantum averaging at true frequency ``f``."""
    g = np.abs(np.sinc(np.asarray(f, dtype=np.float64) / fs))
    return g if g.ndim else float(g)


def common_frequencies(aliases: list[float], rates: list[float], tolerances: list[float],
                       f_max: float) -> list[tuple[float, float]]:
    """True frequencies ≤ f_max consistent with every (alias, rate, tolerance) triple.

    Returns ``(f, uncertainty)`` pairs: candidates of the first rate are checked against the others;
    ``f`` is the inverse-variance mean of the per-rate estimates ``k·fs ± a`` (all in Hz).
    """
    base = alias_candidates(aliases[0], rates[0], f_max + tolerances[0])
    out = []
    for f in base:
        ests, tols = [f], [tolerances[0]]
        ok = True
        for a, fs, tol in zip(aliases[1:], rates[1:], tolerances[1:]):
            if abs(alias_of(f, fs) - a) > tol + tolerances[0]:
                ok = False
                break
            # the estimate of f from this rate: k·fs ± a nearest to f
            k = np.round(f / fs)
            opts = np.array([k * fs + a, k * fs - a, (k + 1) * fs - a, (k - 1) * fs + a])
            ests.append(float(opts[np.argmin(np.abs(opts - f))]))
            tols.append(tol)
        if ok:
            w = 1.0 / np.square(tols)
            est = float(np.sum(w * np.array(ests)) / np.sum(w))
            if 0 < est <= f_max:
                out.append((est, float(1.0 / np.sqrt(np.sum(w)))))
    return out


def same_fraction(aliases: list[float], rates: list[float], tolerances: list[float]) -> bool:
    """True when every alias sits at the same fraction of its sampling rate (sampling-locked)."""
    fr = [a / fs for a, fs in zip(aliases, rates)]
    tol = [t / fs for t, fs in zip(tolerances, rates)]
    ref, rtol = fr[0], tol[0]
    return all(abs(x - ref) <= rtol + t for x, t in zip(fr[1:], tol[1:]))
