"""Bands: the discrete performance levels a trace keeps returning to (see :class:`BandDetector`).

``BandDetector`` (a scikit-learn estimator) is imported on first use: a report uses
:func:`find_bands`, which does not need scikit-learn.
"""
from __future__ import annotations

from .api import find_bands, stall_adjacent
from .fit import BandParams, fit_bands
from .dwell import EXCLUDED, INTERMEDIATE, OUTLIER
from .result import Band, BandResult, DegradedEpisode

__all__ = ["find_bands", "fit_bands", "BandParams", "stall_adjacent", "BandDetector", "Band", "BandResult",
           "DegradedEpisode", "INTERMEDIATE", "OUTLIER", "EXCLUDED"]
from .section import section  # noqa: E402  (report section "bands")

__all__ += ["section"]


def __getattr__(name: str):
    if name == "BandDetector":  # imports scikit-learn
        from .detector import BandDetector

        return BandDetector
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
