"""Peak list of a spectrum: SNR against a robust (running-median) noise floor, harmonic grouping."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage, special

from ..peaks1d import local_maxima
from .aliasing import alias_of
from .psd import Spectrum, false_alarm_snr


@dataclass(frozen=True)
class Peak:
    """One spectral line. ``freq_hz`` (interpolated), ``tol_hz`` (1-σ-ish frequency uncertainty),
    ``snr`` (peak PSD / noise floor, power ratio), ``amplitude`` (sinusoid amplitude, fraction of a
    quantum's work), ``fraction`` (freq / fs), ``fundamental_hz`` (alias of its group's fundamental in
    this trace) and ``harmonic`` (n: this line is the alias of n × fundamental; 1 for a fundamental)."""

    freq_hz: float
    tol_hz: float
    snr: float
    amplitude: float
    fraction: float
    fundamental_hz: float
    harmonic: int

    @property
    def snr_db(self) -> float:
        return float(10 * np.log10(self.snr))

    def to_dict(self) -> dict:
        return {"freq_hz": round(float(self.freq_hz), 4), "tol_hz": round(float(self.tol_hz), 4),
                "snr_db": round(self.snr_db, 2), "amplitude": float(self.amplitude),
                "fraction": round(float(self.fraction), 7),
                "fundamental_hz": round(float(self.fundamental_hz), 4), "harmonic": int(self.harmonic)}


def noise_floor(spec: Spectrum, width_hz: float | None = None) -> np.ndarray:
    """Robust noise floor: running median of the PSD over ``width_hz`` (default fs/100), corrected
    for the median's bias (median/mean of χ²_dof/dof), so that floor ≈ mean noise power."""
    n = len(spec.psd)
    width_hz = width_hz or spec.fs / 100.0
    size = int(width_hz / spec.resolution_hz) | 1
    size = max(31, min(size, n - (1 - n % 2)))
    med = ndimage.median_filter(spec.psd, size=size, mode="nearest")
    bias = special.chdtri(spec.dof, 0.5) / spec.dof
    return np.maximum(med / bias, np.finfo(float).tiny)


def find_peaks(spec: Spectrum, *, min_snr_db: float = 8.0, p_false: float = 0.01,
               max_peaks: int = 150, f_min: float | None = None, harmonics: bool = True,
               n_max: int = 32) -> list[Peak]:
    """Significant lines of ``spec`` sorted by frequency.

    A bin is a peak when it is a local maximum whose PSD exceeds the noise floor by both
    ``min_snr_db`` and the false-alarm threshold (pure noise crosses it with probability
    ``p_false`` over the whole spectrum). Frequencies are refined by a parabola through the log
    PSD of the three top bins. At most ``max_peaks`` (highest SNR) are kept. DC and bins below
    ``f_min`` (default 2 bins) are ignored.
    """
    psd, freqs = spec.psd, spec.freqs
    floor = noise_floor(spec)
    ratio = psd / floor
    thr = max(10 ** (min_snr_db / 10), false_alarm_snr(spec.dof, len(psd), p_false))
    f_min = 2.5 * spec.resolution_hz if f_min is None else f_min
    idx = local_maxima(ratio, height=thr)  # (distinct local maxima are >= 2 bins apart)
    idx = idx[(freqs[idx] >= f_min) & (idx < len(psd) - 1)]
    if len(idx) > max_peaks:
        idx = np.sort(idx[np.argsort(ratio[idx])[::-1][:max_peaks]])
    out = []
    df = spec.resolution_hz
    lp = np.log(np.maximum(psd, np.finfo(float).tiny))
    for i in idx:
        y0, y1, y2 = lp[i - 1], lp[i], lp[i + 1]
        den = y0 - 2 * y1 + y2
        d = 0.5 * (y0 - y2) / den if den < 0 else 0.0
        d = float(np.clip(d, -0.5, 0.5))
        f = float(freqs[i] + d * df)
        snr = float(ratio[i])
        # Hann main lobe: the interpolated peak is good to ~0.1 bin at high SNR, worse near the floor
        tol = df * (0.1 + 0.5 / np.sqrt(snr))
        lo, hi = max(i - 2, 0), min(i + 3, len(psd))
        power = float(np.sum(np.maximum(psd[lo:hi] - floor[lo:hi], 0.0)))
        amp = float(np.sqrt(2.0 * power * df))  # density scaling: Σ PSD·df over the lobe = A²/2
        out.append(Peak(freq_hz=f, tol_hz=float(tol), snr=snr, amplitude=amp, fraction=f / spec.fs,
                        fundamental_hz=f, harmonic=1))
    return group_harmonics(out, spec.fs, n_max=n_max, bin_hz=spec.resolution_hz) if harmonics else out


def group_harmonics(peaks: list[Peak], fs: float, *, n_max: int = 32, bin_hz: float | None = None,
                    max_drop_db: float = 20.0) -> list[Peak]:
    """Group aliased harmonics under a fundamental.

    A line at alias ``p`` is harmonic n (2 ≤ n ≤ ``n_max``) of a fundamental line at alias ``a0``
    when ``|alias(n·a0) - p| ≤ n·tol(a0) + tol(p)`` (aliases of harmonics are harmonics of
    aliases: n·f ≡ ±n·a0 mod fs), n·tol(a0) stays within max(2 bins, 5 % of a0) (a low line's
    harmonic comb must not catch everything), and the fundamental is at most ``max_drop_db`` weaker than the
    line (a weak beat line near DC must not adopt a strong source). Lines are visited in ascending
    frequency; a line no earlier fundamental explains becomes one. Within one trace this is only a
    grouping of the
    aliases: the two-rate test (:mod:`bandkit.spectrum.rates`) tells true frequencies apart.
    """
    if not peaks:
        return []
    f = np.array([p.freq_hz for p in peaks])
    tol = np.array([p.tol_hz for p in peaks])
    bin_hz = bin_hz or 10 * float(tol.min())
    n_arr = np.arange(2, n_max + 1)
    # match[i, j] = n if line j is harmonic n of line i (smallest n), else 0
    m = len(peaks)
    match = np.zeros((m, m), dtype=np.int64)
    for i in range(m):
        al = alias_of(n_arr * f[i], fs)
        err = np.abs(al[:, None] - f[None, :])
        reach = n_arr[:, None] * tol[i] <= max(2 * bin_hz, 0.05 * f[i])
        ok = (err <= n_arr[:, None] * tol[i] + tol[None, :]) & reach
        ok[:, i] = False
        hit = ok.any(axis=0)
        match[i, hit] = n_arr[np.argmax(ok[:, hit], axis=0)]
    snr_db = 10 * np.log10(np.array([p.snr for p in peaks]))
    fund = f.copy()
    harm = np.ones(m, dtype=np.int64)
    is_fund = np.zeros(m, dtype=bool)
    for j in np.argsort(f):  # ascending: a line is a harmonic of the lowest fundamental that explains it
        parents = np.flatnonzero(is_fund & (match[:, j] > 0) & (snr_db >= snr_db[j] - max_drop_db))
        if len(parents):
            i = parents[np.argmin(match[parents, j])]
            fund[j], harm[j] = f[i], match[i, j]
        else:
            is_fund[j] = True
    return [Peak(p.freq_hz, p.tol_hz, p.snr, p.amplitude, p.fraction, float(fund[k]), int(harm[k]))
            for k, p in enumerate(peaks)]
