"""Significant lines of a spectrum: local floor, calibrated threshold, effect sizes, harmonic combs.

A line is a local maximum of PSD / floor that clears the trace's family-wise threshold
(:mod:`bandkit.spectrum.floor`: at most ``alpha`` of clean traces get any line) and a minimum SNR.
Each line carries its effect size (``amplitude``: the sinusoid's amplitude as a fraction of a full
quantum's work; ``power_fraction``: its share of the trace's variance) and its significance
(``p_value``: family-wise over every bin searched). Lines are then grouped into harmonic combs
(:mod:`bandkit.spectrum.combs`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..peaks1d import local_maxima
from .floor import Calibration, calibrate
from .psd import Spectrum, false_alarm_snr  # noqa: F401  (false_alarm_snr: public API)

#: A local maximum this close (bins) to a much stronger line is one of its window sidelobes.
SIDELOBE_BINS = 8
#: ... when it is this much weaker (dB); the Hann window's sidelobes are ≤ -31 dB.
SIDELOBE_DB = 25.0


@dataclass(frozen=True)
class Peak:
    """One spectral line. ``freq_hz`` (interpolated), ``tol_hz`` (1-σ-ish frequency uncertainty),
    ``snr`` (peak PSD / local noise floor, power ratio), ``amplitude`` (sinusoid amplitude, fraction of a
    quantum's work), ``fraction`` (freq / fs), ``fundamental_hz`` (alias of its comb's fundamental in
    this trace) and ``harmonic`` (n: this line is the alias of n × fundamental; 1 for a fundamental),
    ``p_value`` (family-wise over the bins searched: the probability that a clean trace has a line
    this strong anywhere), ``power_fraction`` (the line's power A²/2 over the trace's variance)."""

    freq_hz: float
    tol_hz: float
    snr: float
    amplitude: float
    fraction: float
    fundamental_hz: float
    harmonic: int
    p_value: float | None = None
    power_fraction: float | None = None

    @property
    def snr_db(self) -> float:
        return float(10 * np.log10(self.snr))

    @property
    def power(self) -> float:
        """Line power A²/2 (work fraction squared)."""
        return 0.5 * float(self.amplitude) ** 2

    def to_dict(self) -> dict:
        d = {"freq_hz": round(float(self.freq_hz), 4), "tol_hz": round(float(self.tol_hz), 4),
             "snr_db": round(self.snr_db, 2), "amplitude": float(self.amplitude),
             "fraction": round(float(self.fraction), 7),
             "fundamental_hz": round(float(self.fundamental_hz), 4), "harmonic": int(self.harmonic)}
        if self.p_value is not None:
            d["p_value"] = float(f"{self.p_value:.3g}")
        if self.power_fraction is not None:
            d["power_fraction"] = float(f"{self.power_fraction:.4g}")
        return d


def noise_floor(spec: Spectrum, calibration: Calibration | None = None) -> np.ndarray:
    """Local noise floor (≈ mean noise PSD per bin) of ``spec``; bins too close to DC or Nyquist for
    a floor of their own take their nearest neighbour's (see :func:`bandkit.spectrum.floor.local_floor`)."""
    cal = calibration or calibrate(spec.psd, spec.dof)
    lv = cal.floor.level.copy()
    ok = np.isfinite(lv)
    if not ok.any():
        return np.full(len(lv), max(float(np.median(spec.psd)), np.finfo(float).tiny))
    idx = np.flatnonzero(ok)
    near = idx[np.clip(np.searchsorted(idx, np.arange(len(lv))), 0, len(idx) - 1)]
    lv[~ok] = lv[near[~ok]]
    return np.maximum(lv, np.finfo(float).tiny)


def spectrum_calibration(spec: Spectrum, *, alpha: float = 0.01, f_min: float | None = None) -> Calibration:
    """Floor and family-wise threshold of ``spec`` (bins below ``f_min``, default 2.5 bins, not searched)."""
    f_min = 2.5 * spec.resolution_hz if f_min is None else f_min
    return calibrate(spec.psd, spec.dof, alpha=alpha, first=int(math.ceil(f_min / spec.resolution_hz)))


def find_peaks(spec: Spectrum, *, min_snr_db: float = 6.0, alpha: float = 0.01, max_peaks: int = 150,
               f_min: float | None = None, harmonics: bool = True, n_max: int | None = None,
               calibration: Calibration | None = None) -> list[Peak]:
    """Significant lines of ``spec`` sorted by frequency.

    A bin is a line when it is a local maximum of PSD / floor that exceeds both the family-wise
    threshold (``alpha``: probability that a clean trace has any line; see
    :mod:`bandkit.spectrum.floor`) and ``min_snr_db``, is as narrow as the window's main lobe (not a
    broad bump) and is not a window sidelobe of a much stronger line. Frequencies are refined by a parabola through the log PSD of the three top bins.
    At most ``max_peaks`` (highest SNR) are kept. DC and bins below ``f_min`` (default 2.5 bins) are
    ignored. With ``harmonics`` the lines are grouped into combs (``fundamental_hz``, ``harmonic``;
    ``n_max`` bounds the harmonic order, default: as far as the fundamental's precision reaches).
    """
    psd, freqs = spec.psd, spec.freqs
    cal = calibration or spectrum_calibration(spec, alpha=alpha, f_min=f_min)
    ratio = np.nan_to_num(cal.ratio, nan=0.0)
    thr = np.where(np.isfinite(cal.threshold), np.maximum(cal.threshold, 10 ** (min_snr_db / 10)), np.inf)
    idx = local_maxima(ratio)
    idx = idx[(ratio[idx] > thr[idx]) & (idx < len(psd) - 1)]
    idx = _drop_sidelobes(idx, ratio)
    idx = idx[[_line_shaped(ratio, int(i), spec.dof) for i in idx]] if len(idx) else idx
    if len(idx) > max_peaks:
        idx = np.sort(idx[np.argsort(ratio[idx])[::-1][:max_peaks]])
    floor = noise_floor(spec, cal)
    df = spec.resolution_hz
    total = float(np.sum(psd[1:]) * df) or np.finfo(float).tiny  # variance of the work fraction
    lp = np.log(np.maximum(psd, np.finfo(float).tiny))
    out = []
    for i in idx:
        y0, y1, y2 = lp[i - 1], lp[i], lp[i + 1]
        den = y0 - 2 * y1 + y2
        d = 0.5 * (y0 - y2) / den if den < 0 else 0.0
        d = float(np.clip(d, -0.5, 0.5))
        f = float(freqs[i] + d * df)
        snr = float(ratio[i])
        # Hann main lobe: the interpolated peak is good to ~0.1 bin at high SNR, worse near the floor
        tol = df * (0.1 + 0.5 / np.sqrt(snr))
        power = line_power(psd, floor, int(i), d)
        amp = float(np.sqrt(2.0 * power * df))
        out.append(Peak(freq_hz=f, tol_hz=float(tol), snr=snr, amplitude=amp, fraction=f / spec.fs,
                        fundamental_hz=f, harmonic=1, p_value=cal.p_value(int(i)),
                        power_fraction=min(1.0, power * df / total)))
    if not harmonics:
        return out
    return group_harmonics(out, spec.fs, bin_hz=spec.resolution_hz, n_max=n_max)


def line_power(psd: np.ndarray, floor: np.ndarray, i: int, offset: float) -> float:
    """A line's power (Σ of its lobe's PSD over the noise under it, PSD units: × bin width = A²/2) at
    top bin ``i``, ``offset`` bins from the true frequency (parabolic interpolation).

    Density scaling: Σ PSD·df over the main lobe = A²/2. The top bin and its two neighbours hold
    ≥ 98 % of a sinusoid's lobe wherever it falls between bins (:func:`lobe_share` corrects for the
    rest); bins ±2 hold ≤ 2 % of a line but all of a bump's excess there, so they are left out. The
    noise under the line is the larger of the floor and the median PSD of bins i±3..i±5 (a sinusoid puts
    < 0.1 % of its power there): on a bump narrower than the floor's window the floor sits below the
    bump's top, and the excess over the floor would count the bump as the line's (the 79.84 Hz peak
    of the quiet 7777 Hz recording: 8.1 % amplitude over the floor, 6.7 % over the bump)."""
    n = len(psd)
    lo, hi = max(i - 1, 0), min(i + 2, n)
    side = [j for j in (i - 5, i - 4, i - 3, i + 3, i + 4, i + 5) if 0 < j < n]
    under = np.maximum(floor[lo:hi], float(np.median(psd[side])) if side else 0.0)  # median: another line nearby
    return float(np.sum(np.maximum(psd[lo:hi] - under, 0.0))) / lobe_share(offset)


def _hann_power(x):
    """Power response of a (long) Hann window to a sinusoid ``x`` bins off a bin centre, 1 at x = 0."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(np.abs(np.abs(x) - 1.0) < 1e-9, 0.5, np.sinc(x) / (1.0 - x ** 2))
    return w ** 2


def lobe_share(offset: float) -> float:
    """Share of a sinusoid's Welch power (Σ over all bins = 1.5 × its on-bin power for Hann) in the
    three bins around its top bin, for a sinusoid ``offset`` bins (|offset| ≤ 0.5) from that bin."""
    return float(np.sum(_hann_power(np.array([-1.0, 0.0, 1.0]) - offset)) / 1.5)


def _line_shaped(ratio: np.ndarray, i: int, dof: float) -> bool:
    """Is the excess power at bin ``i`` as narrow as a line? A sinusoid's Hann main lobe puts at most
    4 % of its peak bin's power 2 bins away and 0.1 % 3 bins away; a broad bump (quasi-periodic
    scheduling, the hump of the work rate's slow wander near DC) puts nearly as much there as at its
    top. Rejected when the mean excess of bins i±2, i±3 exceeds 10 % of the peak's excess by more
    than 3 standard errors of that mean (χ²_ν bins, neighbours correlated)."""
    e = ratio[i] - 1.0
    nb = [j for j in (i - 3, i - 2, i + 2, i + 3) if 0 <= j < len(ratio)]
    if not nb or e <= 0:
        return True
    shoulder = float(np.mean(ratio[nb] - 1.0))
    return shoulder <= 0.1 * e + 3 * 0.6 * np.sqrt(2.0 / dof)


def _drop_sidelobes(idx: np.ndarray, ratio: np.ndarray) -> np.ndarray:
    """Local maxima that are window sidelobes of a much stronger line nearby (see SIDELOBE_*)."""
    if len(idx) < 2:
        return idx
    db = 10 * np.log10(np.maximum(ratio[idx], 1e-300))
    keep = np.ones(len(idx), dtype=bool)
    for a in np.argsort(-db):
        if not keep[a]:
            continue
        near = (np.abs(idx - idx[a]) <= SIDELOBE_BINS) & (db < db[a] - SIDELOBE_DB)
        keep &= ~near
    return idx[keep]


def group_harmonics(peaks: list[Peak], fs: float, *, bin_hz: float | None = None,
                    n_max: int | None = None, **kw) -> list[Peak]:
    """The same lines with ``fundamental_hz`` / ``harmonic`` set by their comb
    (:func:`bandkit.spectrum.combs.find_combs`). ``kw`` go to it."""
    from .combs import find_combs, label_peaks

    combs = find_combs(peaks, fs, bin_hz=bin_hz, n_max=n_max, **kw)
    return label_peaks(peaks, combs)
