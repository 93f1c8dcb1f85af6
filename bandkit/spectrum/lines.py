"""One trace's spectrum, its significant lines and their combs (:func:`analyze_spectrum`)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from ..display import DisplayMixin
from ..errors import InvalidValueError
from .combs import Comb, find_combs, fundamental_evidence, label_peaks
from .floor import Calibration
from .peaks import Peak, find_peaks, spectrum_calibration
from .persistence import SegmentSpectra, gate_lone_lines
from .psd import Spectrum, compute_spectrum, regrid


@dataclass(frozen=True)
class TraceSpectrum(DisplayMixin):
    """A trace's spectrum, its significant lines (``peaks``, by frequency), their harmonic ``combs``
    (by power, strongest first; see :mod:`bandkit.spectrum.combs`), drifting sources (``drifts``,
    see :mod:`bandkit.spectrum.drift`), the floor and threshold (``calibration``) and the regridded
    work fraction ``x`` (for folds and plots)."""

    spectrum: Spectrum
    peaks: tuple[Peak, ...]
    drifts: tuple = ()
    x: np.ndarray | None = field(default=None, repr=False, compare=False)
    combs: tuple[Comb, ...] = ()
    calibration: Calibration | None = field(default=None, repr=False, compare=False)
    transients: tuple = ()

    def peaks_by_power(self) -> list[Peak]:
        """The lines, most powerful (largest amplitude) first."""
        return sorted(self.peaks, key=lambda p: -p.amplitude)

    def comb_of(self, i: int) -> Comb | None:
        """The comb holding line ``i`` (index into ``peaks``)."""
        for c in self.combs:
            if i in c.members:
                return c
        return None

    def to_dict(self) -> dict:
        d = self.spectrum.to_dict()
        order = sorted(range(len(self.peaks)), key=lambda i: -self.peaks[i].amplitude)
        d["peaks"] = [self.peaks[i].to_dict() for i in order]  # by power, strongest first
        d["combs"] = [c.to_dict(self.peaks) for c in self.combs]
        d["drifts"] = [x.to_dict() for x in self.drifts]
        d["transients"] = [t.to_dict() for t in self.transients]  # lone peaks that failed the persistence gate
        cal = self.calibration
        if cal is not None:
            full = cal.floor.cells == cal.floor.cells.max()  # bins with a full window: one threshold
            thr = cal.threshold[full & np.isfinite(cal.threshold)]
            d["detection"] = {"floor": "local median (OS-CFAR)", "alpha": float(cal.alpha),
                              "bins_searched": int(cal.n_searched),
                              "threshold_db": round(float(10 * np.log10(thr[0])), 2) if len(thr) else None}
        return d


def _check_options(min_snr_db, alpha, max_peaks) -> None:
    """InvalidValueError for an option that is wrong whatever the trace."""
    def real(v):
        return isinstance(v, Real) and not isinstance(v, bool) and math.isfinite(v)
    if not (real(alpha) and 0 < alpha < 1):
        raise InvalidValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if not real(min_snr_db):
        raise InvalidValueError(f"min_snr_db must be a finite number of dB, got {min_snr_db!r}")
    if not (isinstance(max_peaks, Integral) and not isinstance(max_peaks, bool) and max_peaks >= 1):
        raise InvalidValueError(f"max_peaks must be a positive integer, got {max_peaks!r}")


def analyze_spectrum(trace, *, min_snr_db: float = 6.0, alpha: float = 0.01, segment_s: float | None = None,
                     max_peaks: int = 150, drift: bool = True, persistence: bool = True) -> TraceSpectrum:
    """Spectrum, calibrated line list, harmonic combs and, with ``drift``, confirmed drifting sources
    of one trace. ``alpha``: family-wise false-alarm probability per trace (any line anywhere in a
    clean trace's spectrum); ``min_snr_db``: smallest line (peak PSD / floor) reported even when
    significant; ``persistence``: a lone line (a comb of one) must be steady across the Welch
    segments, else it is reported under ``transients`` instead of as a line
    (:mod:`bandkit.spectrum.persistence`). See :func:`compute_spectrum`, :func:`find_peaks`,
    :func:`find_combs`, :func:`find_drifts`."""
    from .drift import find_drifts

    _check_options(min_snr_db, alpha, max_peaks)
    g = regrid(trace)
    spec = compute_spectrum(trace, segment_s=segment_s, grid=g)
    cal = spectrum_calibration(spec, alpha=alpha)
    peaks = find_peaks(spec, min_snr_db=min_snr_db, max_peaks=max_peaks, calibration=cal, harmonics=False)
    f_lo = 2.5 * spec.resolution_hz
    combs = find_combs(peaks, spec.fs, bin_hz=spec.resolution_hz, f_lo=f_lo)
    transients: list = []
    gated: set[float] = set()
    segs = SegmentSpectra(g.x, spec)
    for _ in range(3 if persistence else 0):  # dropping lines can leave another line alone: gate it too
        lone = [c.members[0] for c in combs if len(c.members) == 1 and peaks[c.members[0]].freq_hz not in gated]
        gated.update(peaks[j].freq_hz for j in lone)
        failed, tr = gate_lone_lines(segs, spec, peaks, lone, cal)
        if not failed:
            break
        transients += tr
        drop = set(failed)
        peaks = [p for j, p in enumerate(peaks) if j not in drop]
        combs = find_combs(peaks, spec.fs, bin_hz=spec.resolution_hz, f_lo=f_lo)
    combs = [c if c.fundamental_seen else fundamental_evidence(c, spec, cal) for c in combs]
    transients.sort(key=lambda t: t.freq_hz)
    ts = TraceSpectrum(spec, tuple(label_peaks(peaks, combs)), (), g.x, tuple(combs), cal, tuple(transients))
    if drift:
        ts = TraceSpectrum(ts.spectrum, ts.peaks, tuple(find_drifts(trace, ts)), g.x, ts.combs, cal, ts.transients)
    return ts
