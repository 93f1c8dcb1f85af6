"""Welch's averaged periodogram with numpy's FFT, in bounded memory.

The same estimate as ``scipy.signal.welch(x, fs, window="hann", nperseg, noverlap,
detrend="constant", scaling="density")`` (one-sided, mean of the segments' periodograms), checked
against it to 1e-10 in tests/test_lite_numerics.py. Written here for two measured reasons: importing
scipy.signal (which pulls in scipy.stats) costs 0.5-1 s in every process that analyses a trace
(benchmarks/RESULTS.md, "import cost"), and scipy materialises every windowed segment and its
FFT at once (~4 x the input in memory), where this works through the segments in blocks.
"""
from __future__ import annotations

import numpy as np

BLOCK = 1 << 21  # values per FFT block (segments x nperseg): ~16 MB of float64


def hann(n: int) -> np.ndarray:
    """Periodic Hann window of ``n`` points (``scipy.signal.get_window("hann", n)``)."""
    if n == 1:
        return np.ones(1)
    return 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(n) / n)


def welch(x, fs: float, nperseg: int, noverlap: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One-sided power spectral density (units² / Hz) of ``x`` sampled at ``fs`` Hz: Hann window,
    each segment's mean removed, ``noverlap`` (default ``nperseg // 2``) values shared between
    consecutive segments. Returns ``(freqs_hz, psd)``."""
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    nperseg = int(nperseg)
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    if not 0 < nperseg <= n or not 0 <= noverlap < nperseg:
        raise ValueError("need 0 < nperseg <= len(x) and 0 <= noverlap < nperseg")
    step = nperseg - noverlap
    k = 1 + (n - nperseg) // step
    acc = np.zeros(nperseg // 2 + 1)
    for _, p in segment_power(x, nperseg, step):
        acc += p.sum(axis=0)
    psd = acc / (k * fs * np.sum(hann(nperseg) ** 2))
    if nperseg % 2:
        psd[1:] *= 2.0
    else:
        psd[1:-1] *= 2.0
    return np.fft.rfftfreq(nperseg, 1.0 / fs), psd


def segment_power(x: np.ndarray, nperseg: int, step: int):
    """``|rfft|²`` of each Hann-windowed, mean-removed segment of ``x`` (``nperseg`` values, one every ``step``), in
    blocks of at most ``BLOCK`` values: yields (index of the block's first segment, array (segments, nperseg // 2 +
    1)). :func:`welch` averages them; :func:`bandkit.spectrum.persistence.segment_periodograms` keeps them."""
    k = 1 + (x.shape[0] - nperseg) // step
    win = hann(nperseg)
    segs = np.lib.stride_tricks.sliding_window_view(x, nperseg)[::step][:k]
    per = max(1, BLOCK // nperseg)
    for a in range(0, k, per):
        s = segs[a:a + per]
        s = (s - s.mean(axis=1, keepdims=True)) * win
        f = np.fft.rfft(s, axis=1)
        yield a, f.real ** 2 + f.imag ** 2
