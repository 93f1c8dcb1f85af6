"""Power spectrum of one trace: regrid onto the nominal quantum grid, then Welch-average.

Why a grid and not Lomb–Scargle
-------------------------------
An FTQ trace is *already* a uniformly sampled signal: FTQ's schedule is drift-free and it writes
exactly one row per deadline.  When the thread loses the CPU across k quantum boundaries it writes
k "catch-up" rows with count 0 (timestamps ~20 ns apart).  Those rows are not measurements of
their timestamps, but the *grid slots* they stand for really did zero work: the stall is the
interference we are looking for.  So the regridded signal is the count of each slot, with lost
slots set to 0.  For current-format FTQ this is exactly the row order (catch-up rows carry 0),
which avoids fitting the ~1e-6 relative drift between the printed ns timestamps and the nominal
rate; for other traces (no catch-up flags) real samples are put on slot ``round((t - t0) / T)``
and empty slots are filled with 0.

Lomb–Scargle on the real samples only (the alternative for uneven timestamps) treats a stall as
*missing data*: what is left of the interference is the partial quanta at the stalls' edges. Measured
(benchmarks/RESULTS_interference.md): the 100 Hz line of the real 1 ms-every-10 ms recordings loses
~9 dB of SNR (23 → 14.5 dB at 10 kHz), a source that acts only through 2 ms stalls loses ~36 dB, and
Lomb–Scargle costs O(N·F): ~40–80 s for 500 Hz of band against ~20 ms for Welch over 0–fs/2 on
200k quanta. Welch on the grid keeps the stall, has a known window response and a variance that
averaging controls (``dof``).

The signal is normalised to the fraction of a full quantum's work (count / full count, full =
99th percentile of real counts), so spectra of traces at different rates are comparable: a
sinusoidal loss of CPU of amplitude A appears with amplitude A·|sinc(f/fs)| at any rate (FTQ's
quantum is a box filter, see :mod:`bandkit.spectrum.aliasing`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy import special

from ..errors import InputError, InvalidValueError, NotAnalysable, UsageError
from .welch import hann, welch

#: A spectrum needs at least this many slots of the nominal grid.
MIN_QUANTA = 64


@dataclass(frozen=True)
class Grid:
    """A trace on its nominal grid. ``x``: fraction of full-quantum work per slot (lost slots 0)."""

    x: np.ndarray
    fs: float
    full_count: float
    lost_slots: int
    method: str  # "rows" (FTQ row order) or "time" (slot = round(t / T))


def regrid(trace) -> Grid:
    """Put a trace's counts on its nominal grid (see module docstring). Units: fs in Hz.

    Raises :class:`~bandkit.errors.InputError` for a time column that cannot be put on a grid
    (backwards, a gap longer than the trace, absurd values; see :func:`_time_slots`)."""
    fs = trace.meta.sampling_hz
    if not fs or fs <= 0:
        raise NotAnalysable(f"{trace.label}: the spectrum needs a nominal sampling rate (sampling_hz)",
                            "no_sampling_rate", time_unit=trace.meta.time_unit)
    value = np.asarray(trace.column("value"), dtype=np.float64)
    real = trace.sample_mask
    real = np.ones(len(value), dtype=bool) if real is None else real
    catch = np.asarray(trace.column("catchup"), dtype=bool) if trace.has_column("catchup") \
        else np.zeros(len(value), bool)
    time = np.asarray(trace.column("time"), dtype=np.float64)
    if not real.any():
        raise NotAnalysable(f"{trace.label}: no real samples", "no_data", n=int(len(value)))
    full = float(np.percentile(value[real], 99))
    if full <= 0:
        raise NotAnalysable(f"{trace.label}: all counts are zero", "all_zero", n=int(real.sum()))
    if catch.any() or trace.meta.time_unit != "s" or not np.isfinite(time).all():
        # FTQ row order is the grid: one row per deadline; catch-up rows are the lost slots (0 work).
        x = np.where(catch, 0.0, value) / full
        # partial quanta (e.g. the mask-aligned first quantum of the 2009 format) are not full slots
        x = np.where(real | catch, x, np.nan)
        x = _fill_nan_edges(x)
        return Grid(x=x, fs=float(fs), full_count=full, lost_slots=int(catch.sum()), method="rows")
    t = time[real]
    v = value[real]
    slot = _time_slots(trace, t, float(fs))
    n = int(slot[-1]) + 1
    x = np.zeros(n)
    np.add.at(x, slot, v)
    filled = np.zeros(n, dtype=bool)
    filled[slot] = True
    return Grid(x=np.minimum(x / full, 1.5), fs=float(fs), full_count=full,
                lost_slots=int((~filled).sum()), method="time")


#: Largest grid for a trace regridded by time: this many slots per real sample (plus a margin);
#: beyond it the time column or the sampling rate is wrong, and the grid is not allocated.
MAX_SLOTS_PER_SAMPLE = 4
MAX_EXTRA_SLOTS = 1 << 20


def _time_slots(trace, t: np.ndarray, fs: float) -> np.ndarray:
    """Grid slot of every real sample, ``round((t - t0)·fs)``, checked before anything is allocated:
    times must not go backwards (by half a slot or more), no single gap may be longer than the whole
    trace (more empty slots than real samples), and the grid may hold at most
    ``MAX_SLOTS_PER_SAMPLE`` slots per sample (+ ``MAX_EXTRA_SLOTS``). Raises :class:`InputError`
    (field ``time``) otherwise: an absurd time column must never make the spectrum allocate its gap."""
    rel = (t - t[0]) * fs
    if not np.all(np.isfinite(rel)) or np.abs(rel).max(initial=0.0) > 2.0 ** 52:
        raise InputError(trace.path, "times too large to put on the sampling grid", field="time")
    step = np.diff(rel)
    if step.size and step.min() <= -0.5:
        i = int(np.argmin(step))
        raise InputError(trace.path, f"time goes backwards between samples {i} and {i + 1} "
                                     f"({t[i]:.9g} then {t[i + 1]:.9g}): cannot put the trace on its grid",
                         field="time")
    n_real = len(t)
    if step.size and step.max() - 1 > n_real:
        i = int(np.argmax(step))
        raise InputError(trace.path, f"time jumps by {step[i] / fs:.6g} s between samples {i} and {i + 1}, longer "
                                     f"than the whole trace ({n_real:,} samples at {fs:g} Hz): the time column "
                                     "is broken", field="time")
    slot = np.round(rel).astype(np.int64)
    if slot[-1] + 1 > MAX_SLOTS_PER_SAMPLE * n_real + MAX_EXTRA_SLOTS:
        raise InputError(trace.path, f"{n_real:,} samples span {slot[-1] + 1:,} slots of 1/{fs:g} s (more than "
                                     f"{MAX_SLOTS_PER_SAMPLE} per sample): the time column or the sampling rate is "
                                     "wrong", field="time")
    return slot


def _fill_nan_edges(x: np.ndarray) -> np.ndarray:
    bad = ~np.isfinite(x)
    if not bad.any():
        return x
    x = x.copy()
    x[bad] = np.nanmedian(x)
    return x


@dataclass(frozen=True)
class Spectrum:
    """Welch PSD of a trace's work fraction. ``freqs`` in Hz, ``psd`` in 1/Hz (fraction² per Hz).

    ``resolution_hz`` is the bin spacing, ``enbw_hz`` the window's equivalent noise bandwidth,
    ``dof`` the equivalent degrees of freedom of each PSD estimate (for false-alarm thresholds).
    """

    freqs: np.ndarray
    psd: np.ndarray
    fs: float
    nperseg: int
    n_segments: int
    resolution_hz: float
    enbw_hz: float
    dof: float
    duration_s: float
    full_count: float
    lost_slots: int
    n_slots: int
    regrid: str
    window: str = "hann"
    label: str = ""
    path: str = ""

    @property
    def nyquist(self) -> float:
        return self.fs / 2.0

    def amplitude(self, power_sum: float) -> float:
        """Sinusoid amplitude (work fraction) from the PSD summed over its peak bins."""
        return float(np.sqrt(2.0 * power_sum * self.resolution_hz))

    def to_dict(self) -> dict:
        return {
            "method": f"welch/{self.window}",
            "regrid": self.regrid,
            "sampling_hz": float(self.fs),
            "resolution_hz": float(self.resolution_hz),
            "segment_s": float(self.nperseg / self.fs),
            "segments": int(self.n_segments),
            "lost_slots": int(self.lost_slots),
            "slots": int(self.n_slots),
        }


def welch_dof(n_segments: int, overlap: float = 0.5) -> float:
    """Equivalent degrees of freedom of a Welch estimate with a Hann window (Welch 1967, 50 % overlap)."""
    if n_segments <= 1:
        return 2.0
    # correlation of adjacent Hann segments at 50 % overlap: rho ~ 0.167
    rho = 0.167 if overlap == 0.5 else 0.0
    k = n_segments
    return 2.0 * k / (1.0 + 2.0 * rho ** 2 * (k - 1) / k)


def compute_spectrum(trace, *, segment_s: float | None = None, min_segments: int = 8,
                     grid: Grid | None = None) -> Spectrum:
    """Welch spectrum of a trace's work fraction on its nominal grid.

    ``segment_s``: Welch segment length in seconds (default: the longest power-of-two length
    giving at least ``min_segments`` half-overlapping segments). Frequency resolution = 1/segment.
    """
    g = grid if grid is not None else regrid(trace)
    x = g.x
    n = len(x)
    if n < MIN_QUANTA:
        raise NotAnalysable(f"{trace.label}: too short for a spectrum ({n} quanta)", "too_short",
                            n=int(n), needed=MIN_QUANTA, what="quanta")
    if segment_s is not None:
        if not (isinstance(segment_s, Real) and not isinstance(segment_s, bool) and 0 < segment_s < math.inf):
            raise InvalidValueError(f"segment_s must be a positive number of seconds, got {segment_s!r}")
        nperseg = int(round(segment_s * g.fs))
        if nperseg < 16 or nperseg > n:
            raise UsageError(f"segment of {segment_s} s does not fit a {n / g.fs:.3g} s trace")
    else:
        target = 2 * n // (min_segments + 1)
        nperseg = 1 << max(4, int(np.floor(np.log2(max(target, 16)))))
    noverlap = nperseg // 2
    freqs, psd = welch(x, g.fs, nperseg, noverlap)
    k = 1 + (n - nperseg) // (nperseg - noverlap)
    w = hann(nperseg)
    enbw = g.fs * np.sum(w ** 2) / np.sum(w) ** 2
    return Spectrum(freqs=freqs, psd=psd, fs=g.fs, nperseg=nperseg, n_segments=int(k),
                    resolution_hz=g.fs / nperseg, enbw_hz=float(enbw), dof=welch_dof(k),
                    duration_s=n / g.fs, full_count=g.full_count, lost_slots=g.lost_slots,
                    n_slots=n, regrid=g.method, label=trace.label, path=trace.path)


def false_alarm_snr(dof: float, n_bins: int, p_false: float = 0.01) -> float:
    """Power ratio (peak / mean noise) a pure-noise bin exceeds with probability p_false/n_bins."""
    return float(special.chdtri(dof, p_false / max(n_bins, 1)) / dof)
