"""Plots of spectra, of the two-rate comparison and of drifting (X-pattern) interference.

matplotlib is imported inside each function; each takes an optional ``ax`` and returns the Axes.
"""
from __future__ import annotations

import numpy as np


def _ax(ax, **kw):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=kw.get("figsize", (10, 3.5)))
    return ax


def _ts(obj):
    from ..spectrum.lines import TraceSpectrum, analyze_spectrum

    return obj if isinstance(obj, TraceSpectrum) else analyze_spectrum(obj)


def plot_spectrum(obj, ax=None, *, peaks: bool = True, max_labels: int = 8, max_combs: int = 4):
    """PSD (dB, work fraction²/Hz) of a trace or :class:`TraceSpectrum` with its local noise floor,
    the detection threshold (the floor raised by the calibrated per-bin threshold) and its lines:
    one colour per comb (the ``max_combs`` most powerful; hollow marker when the comb's fundamental is
    inferred), the ``max_labels`` most powerful lines labelled."""
    from ..spectrum.peaks import noise_floor, spectrum_calibration

    ts = _ts(obj)
    sp = ts.spectrum
    cal = ts.calibration if ts.calibration is not None else spectrum_calibration(sp)
    ax = _ax(ax)
    ax.plot(sp.freqs, 10 * np.log10(np.maximum(sp.psd, 1e-30)), lw=0.6, color="0.3", label="PSD")
    floor = noise_floor(sp, cal)
    ax.plot(sp.freqs, 10 * np.log10(floor), lw=0.8, color="tab:blue", alpha=0.7, label="local noise floor")
    thr = floor * np.where(np.isfinite(cal.threshold), cal.threshold, np.nan)
    ax.plot(sp.freqs, 10 * np.log10(thr), lw=0.6, color="tab:blue", ls="--", alpha=0.6,
            label=f"threshold (false alarms ≤ {100 * cal.alpha:g} % of clean traces)")
    if peaks and ts.peaks:
        colors = ["tab:red", "tab:orange", "tab:purple", "tab:green"]
        y_of = lambda f: 10 * np.log10(np.interp(f, sp.freqs, sp.psd))  # noqa: E731
        in_comb = set()
        for k, c in enumerate([c for c in ts.combs if c.n_lines > 1][:max_combs]):
            f = np.array([ts.peaks[j].freq_hz for j in c.members])
            in_comb.update(c.members)
            label = f"comb every {c.fundamental_hz:.4g} Hz" + ("" if c.fundamental_seen else
                                                                  f" (inferred, n ≥ {c.lowest_order})")
            ax.plot(f, y_of(f), "v", ms=4, color=colors[k % len(colors)],
                    mfc=colors[k % len(colors)] if c.fundamental_seen else "none", label=label)
        rest = [p.freq_hz for j, p in enumerate(ts.peaks) if j not in in_comb]
        if rest:
            ax.plot(rest, y_of(np.array(rest)), "v", ms=3, color="0.5", label="other lines")
        for p in ts.peaks_by_power()[:max_labels]:
            ax.annotate(f"{p.freq_hz:.1f}", (p.freq_hz, y_of(p.freq_hz)), xytext=(0, 4),
                        textcoords="offset points", ha="center", fontsize=7)
    ax.set_xlim(0, sp.fs / 2)
    ax.set_xlabel("frequency in this trace (Hz, alias)")
    ax.set_ylabel("PSD (dB)")
    ax.set_title(f"{sp.label} — {sp.fs:g} Hz, resolution {sp.resolution_hz:.3g} Hz", fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
    return ax


def plot_rates(comparison, ax=None, *, f_max: float | None = None, max_marked: int = 6, offset_db: float = 40.0):
    """The spectra of a :class:`RateComparison` unfolded onto a *true*-frequency axis (0..``f_max``;
    default: the fastest rate's Nyquist frequency, or 2.2 × the highest external fundamental).

    Each trace's PSD is drawn at every true frequency ``f`` as its value at ``alias(f, fs)``
    (so each spectrum repeats, mirrored, every fs/2), offset by ``offset_db`` per trace. An
    external source lines up across all traces at its true frequency (red lines: fundamentals of
    external entries; red triangles: where the fundamental and its confirmed harmonics sit in
    each trace); a line present in one trace only does not. The legend (above the plot, so that it
    never covers a spectrum) names each trace and the external frequencies.
    """
    from ..spectrum.aliasing import alias_of

    ax = _ax(ax, figsize=(11, 4))
    if f_max is None:  # default: the first Nyquist zone of the fastest rate, or past the external lines
        top = max([e.freq_hz for e in comparison.external] or [0.0])
        f_max = min(comparison.f_max, max(max(comparison.rates_hz) / 2, 2.2 * top))
    res = min(ts.spectrum.resolution_hz for ts in comparison.spectra)
    grid = np.linspace(0, f_max, int(min(400_000, max(2000, 2 * f_max / res))))
    colors = ["tab:blue", "tab:green", "tab:purple", "tab:brown"]
    for k, ts in enumerate(comparison.spectra):
        sp = ts.spectrum
        y = 10 * np.log10(np.maximum(np.interp(alias_of(grid, sp.fs), sp.freqs, sp.psd), 1e-30)) + k * offset_db
        ax.plot(grid, y, lw=0.5, color=colors[k % len(colors)], label=f"{sp.label} ({sp.fs:g} Hz)")
        for m in range(1, int(f_max / sp.fs) + 1):
            ax.axvline(m * sp.fs, color=colors[k % len(colors)], ls=":", lw=0.8)
    ext = comparison.external[:max_marked]
    for j, e in enumerate(sorted(ext, key=lambda e: e.freq_hz)):
        members = [e.freq_hz] + [h["freq_hz"] for h in e.harmonics]
        for k, ts in enumerate(comparison.spectra):
            sp = ts.spectrum
            fm = np.array([m for m in members if m <= f_max])
            ym = 10 * np.log10(np.maximum(np.interp(alias_of(fm, sp.fs), sp.freqs, sp.psd), 1e-30)) + k * offset_db
            ax.plot(fm, ym + 3, "v", color="tab:red", ms=3)
        names = ", ".join(f"{x.freq_hz:.2f}" for x in sorted(ext, key=lambda x: x.freq_hz))
        ax.axvline(e.freq_hz, color="tab:red", lw=0.8, alpha=0.6,
                   label=f"external interference at {names} Hz (▼: its lines in each trace)" if j == 0 else None)
    ax.set_xlim(0, f_max)
    ax.set_xlabel("true frequency (Hz); dotted: multiples of each sampling rate (box-filter nulls)")
    ax.set_ylabel(f"PSD (dB, +{offset_db:g} dB per trace)")
    ax.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0.0, 1.01), borderaxespad=0.0, frameon=False,
              ncol=1)
    return ax


def plot_fold(obj, freq_hz: float, ax=None, *, fs: float | None = None, max_rows: int = 400):
    """Folded (phase) plot: the regridded work fraction cut into rows of N = round(fs/f) quanta.

    A source locked to the grid draws a vertical stripe; a drifting one draws a slanted stripe
    (Rhoden's X pattern seen from above): the slope is the drift in quanta per row.
    """
    from ..spectrum.drift import fold
    from ..spectrum.psd import regrid

    if isinstance(obj, np.ndarray):
        x, fs = obj, float(fs)
    else:
        x, fs = regrid(obj).x, float(obj.meta.sampling_hz)
    n = max(2, int(round(fs / freq_hz)))
    f = fold(x, n)
    step = max(1, len(f) // max_rows)
    img = f[: (len(f) // step) * step].reshape(-1, step, n).mean(axis=1)
    ax = _ax(ax, figsize=(6, 5))
    im = ax.imshow(img, aspect="auto", origin="lower", cmap="viridis", vmin=0, vmax=1,
                   extent=(0, n, 0, len(img) * step * n / fs))
    ax.set_xlabel(f"quantum within a period of N = {n} quanta")
    ax.set_ylabel("time (s)")
    ax.set_title(f"folded at {freq_hz:.4g} Hz ({fs:g} Hz sampling)", fontsize=9)
    ax.figure.colorbar(im, ax=ax, label="work fraction")
    return ax


def plot_spectrogram(obj, ax=None, *, segment_s: float = 0.5, f_max: float | None = None):
    """Spectrogram (dB) of a trace's regridded work fraction (scipy.signal.spectrogram)."""
    from scipy import signal

    from ..spectrum.psd import regrid

    g = regrid(obj)
    nper = max(16, int(segment_s * g.fs))
    f, t, s = signal.spectrogram(g.x - g.x.mean(), fs=g.fs, nperseg=nper, noverlap=nper // 2)
    ax = _ax(ax)
    keep = f <= (f_max or g.fs / 2)
    ax.pcolormesh(t, f[keep], 10 * np.log10(np.maximum(s[keep], 1e-30)), shading="auto", cmap="magma")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("frequency (Hz, alias)")
    return ax
