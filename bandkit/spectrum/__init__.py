"""Periodic interference: spectra of FTQ traces, aliasing arithmetic, the two-rate test, phase drift."""
from __future__ import annotations

from .aliasing import alias_candidates, alias_of, box_gain, common_frequencies
from .combs import Comb, find_combs
from .peaks import Peak, find_peaks, group_harmonics, noise_floor
from .psd import Spectrum, compute_spectrum, regrid
from .lines import TraceSpectrum, analyze_spectrum
from .rates import Interference, RateComparison, compare_rates
from .drift import Drift, drift_at, find_drifts

__all__ = ["Spectrum", "Peak", "Comb", "compute_spectrum", "regrid", "find_peaks", "find_combs",
           "group_harmonics", "noise_floor", "alias_of", "alias_candidates", "box_gain", "common_frequencies",
           "TraceSpectrum", "RateComparison", "Interference", "analyze_spectrum", "compare_rates",
           "Drift", "drift_at", "find_drifts"]
