"""Phase drift ("X pattern"): interference whose period is close to a whole number of quanta.

If a source's period P is close to N quanta (P ≈ N·T), each burst lands a little later (or
earlier) within the quantum grid than the one before: the quanta it hits lose a slowly changing
share of their work, and a time plot of the counts shows lines marching across the count range
(Rhoden's "X pattern"). In the spectrum the line sits just beside the sampling-locked fraction
fs/N: the offset ``beat_hz = fs/N - f`` is the drift. The hit moves through the grid at
``N·beat_hz`` quanta per second (``1 / |N·beat_hz|`` seconds to cross one quantum).

:func:`find_drifts` finds such lines among a spectrum's fundamentals and confirms each in the time
domain, which also sees drifts slower than the spectral resolution (the slow X patterns): the
regridded trace is folded at N quanta and the position of the work deficit is tracked from fold to
fold (see :func:`fold_drift`); the drift must be significant (≥ 4 standard errors, ≥ 1 quantum over
the trace) and, where the spectrum resolves it, agree with the spectral prediction.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .psd import regrid


@dataclass(frozen=True)
class Drift:
    """A drifting interferer. Units: Hz, quanta, seconds.

    ``period_quanta`` N (period ≈ N quanta), ``period_s`` = 1/freq_hz, ``beat_hz`` = fs/N - freq,
    ``drift_quanta_per_s`` (spectral: N·beat_hz; >0: the hit comes later in each fold),
    ``measured_quanta_per_s`` (from the folded trace) ± ``measured_se``, ``sweep_s`` (time to cross one
    quantum, from the measured drift when confirmed), ``concentration`` (0..1: coherence of the
    deficit's position once the drift is taken out; low means the fold shows no clear hit).
    """

    freq_hz: float
    period_quanta: int
    period_s: float
    beat_hz: float
    drift_quanta_per_s: float
    sweep_s: float | None
    measured_quanta_per_s: float | None
    concentration: float
    confirmed: bool
    snr_db: float
    measured_se: float | None = None

    def to_dict(self) -> dict:
        r = lambda x, d=6: None if x is None else round(float(x), d)  # noqa: E731
        return {"freq_hz": r(self.freq_hz, 4), "period_quanta": int(self.period_quanta),
                "period_s": r(self.period_s, 9), "beat_hz": r(self.beat_hz, 5),
                "drift_quanta_per_s": r(self.drift_quanta_per_s, 4), "sweep_s": r(self.sweep_s, 5),
                "measured_quanta_per_s": r(self.measured_quanta_per_s, 4),
                "measured_se": r(self.measured_se, 4),
                "concentration": r(self.concentration, 4), "confirmed": bool(self.confirmed),
                "snr_db": r(self.snr_db, 2)}


def fold(x: np.ndarray, n_quanta: int) -> np.ndarray:
    """Regridded series folded at ``n_quanta``: a (cycles × n_quanta) matrix (partial cycle dropped)."""
    m = len(x) // n_quanta
    return np.asarray(x[: m * n_quanta]).reshape(m, n_quanta)


def fold_drift(x: np.ndarray, n_quanta: int, fs: float) -> tuple[float, float, float]:
    """Drift of the work deficit within folds of ``n_quanta``: (quanta per second, its standard
    error, coherence 0..1 of the deficit's position once the drift is taken out).

    Folds are averaged in blocks of ≥ 20 ms; each block's deficit gives a phasor
    ``z_b = Σ deficit·exp(2πi·q/N)`` whose angle is the hit's position. A hit drifting at ``s``
    quanta/s makes ``z_b`` rotate at s/N cycles/s: the coarse drift is the peak of the zero-padded FFT
    of z_b (no unwrapping, robust to the random phasors of other tasks' stalls), refined by a weighted
    least-squares line through the residual angles, which also gives the standard error.
    """
    f = fold(x, n_quanta)
    block = max(1, int(np.ceil(0.02 * fs / n_quanta)))
    nb = len(f) // block
    if nb < 8:
        return float("nan"), float("nan"), 0.0
    deficit = np.clip(1.0 - f[: nb * block].reshape(nb, block, n_quanta).mean(axis=1), 0.0, None)
    ang = 2 * np.pi * np.arange(n_quanta) / n_quanta
    z = deficit @ np.exp(1j * ang)
    mag = np.abs(z)
    total = float(np.sum(mag))
    if total <= 0:
        return float("nan"), float("nan"), 0.0
    dt = block * n_quanta / fs  # seconds per block
    t = (np.arange(nb) + 0.5) * dt
    nfft = 1 << int(np.ceil(np.log2(nb * 16)))
    spec = np.fft.fft(z, nfft)
    nu = np.fft.fftfreq(nfft, d=dt)  # cycles of the hit's phase per second
    nu0 = float(nu[int(np.argmax(np.abs(spec)))])
    zc = z * np.exp(-2j * np.pi * nu0 * t)
    resid = np.angle(zc * np.exp(-1j * np.angle(zc.sum())))  # centred on 0: no wrap at ±N/2
    w = mag / mag.sum()
    tm = np.sum(w * t)
    sxx = np.sum(w * (t - tm) ** 2)
    slope = np.sum(w * (t - tm) * (resid - np.sum(w * resid))) / sxx
    res = resid - np.sum(w * resid) - slope * (t - tm)
    n_eff = 1.0 / np.sum(w ** 2)
    se = np.sqrt(np.sum(w * res ** 2) / max(n_eff - 2, 1.0) / sxx)
    nu_hat = nu0 + slope / (2 * np.pi)
    coherence = float(np.abs(np.sum(z * np.exp(-2j * np.pi * nu_hat * t))) / total)
    # z_b rotates as exp(+2πi·pos/N): a position slope s (quanta/s) is a rotation of s/N cycles/s
    return float(nu_hat * n_quanta), float(se / (2 * np.pi) * n_quanta), coherence


def drift_at(trace, freq_hz: float, **kw) -> Drift:
    """Phase drift of a source seen at ``freq_hz`` (Hz; the alias in this trace) — see :func:`drift_on_grid`."""
    return drift_on_grid(regrid(trace).x, float(trace.meta.sampling_hz), freq_hz, **kw)


def drift_on_grid(x: np.ndarray, fs: float, freq_hz: float, *, resolution_hz: float = 0.0,
                  snr_db: float = 0.0, min_concentration: float = 0.2) -> Drift:
    """Phase drift of a source at ``freq_hz`` in a regridded series ``x`` sampled at ``fs`` (Hz).

    N = round(fs / f). Confirmed when the fold shows a concentrated deficit (coherence
    ``≥ min_concentration`` once the drift is taken out) that moves by at least one quantum over the
    trace, at least 4 standard errors from zero, and agrees with the spectral prediction
    N·(fs/N - f) (same sign, within a factor 2) whenever that prediction is resolvable
    (|beat| ≥ 2 bins); below the resolution only the fold can see it.
    """
    n = max(2, int(round(fs / freq_hz)))
    beat = fs / n - freq_hz
    pred = n * beat
    meas, se, conc = fold_drift(x, n, fs)
    duration = len(x) / fs
    ok = bool(np.isfinite(meas) and conc >= min_concentration and abs(meas) * duration >= 1.0
              and abs(meas) >= 4.0 * se)
    if ok and abs(beat) >= 2 * resolution_hz and pred != 0:
        ok = bool(np.sign(meas) == np.sign(pred) and 0.5 <= abs(meas / pred) <= 2.0)
    rate = meas if (ok and np.isfinite(meas)) else pred
    return Drift(freq_hz=float(freq_hz), period_quanta=n, period_s=1.0 / freq_hz, beat_hz=float(beat),
                 drift_quanta_per_s=float(pred), sweep_s=float(1.0 / abs(rate)) if rate else None,
                 measured_quanta_per_s=float(meas) if np.isfinite(meas) else None,
                 concentration=float(conc), confirmed=ok, snr_db=float(snr_db),
                 measured_se=float(se) if np.isfinite(se) else None)


def find_drifts(trace, spectrum, *, n_min: int = 8, n_max: int = 1000,
                max_offset: float = 0.02, max_candidates: int = 3,
                min_concentration: float = 0.2) -> list[Drift]:
    """Confirmed drifting interferers of a trace (see :func:`drift_at`), from its ``spectrum`` (a
    :class:`~bandkit.spectrum.lines.TraceSpectrum`; ``analyze_spectrum(trace).drifts`` runs both).

    Candidates: the fundamentals of the ``max_candidates`` most powerful combs of the spectrum whose
    period is within ``max_offset`` (relative) of N quanta, ``n_min`` ≤ N ≤ ``n_max``.
    """
    ts = spectrum
    sp = ts.spectrum
    fs = sp.fs
    cands = []
    for c in ts.combs:  # strongest first
        f = c.fundamental_hz
        if f <= 0:
            continue
        n = int(round(fs / f))
        if n < n_min or n > n_max or abs(fs / n - f) > max_offset * fs / n:
            continue
        cands.append((f, ts.peaks[c.members[0]].snr_db if c.fundamental_seen else (c.fundamental_snr_db or 0.0)))
    x = ts.x if ts.x is not None else regrid(trace).x
    out = []
    for f, snr_db in cands[:max_candidates]:
        d = drift_on_grid(x, fs, f, resolution_hz=sp.resolution_hz, snr_db=snr_db,
                          min_concentration=min_concentration)
        # the hit can move at most max_offset·fs quanta per second for a candidate this close to fs/N
        if d.confirmed and abs(d.measured_quanta_per_s or 0.0) <= max_offset * fs:
            out.append(d)
    return out
