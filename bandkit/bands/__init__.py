"""Bands: the discrete performance levels a trace keeps returning to (see :class:`BandDetector`)."""
from __future__ import annotations

from .api import find_bands, stall_adjacent
from .detector import BandDetector
from .dwell import EXCLUDED, INTERMEDIATE, OUTLIER
from .result import Band, BandResult, DegradedEpisode

__all__ = ["find_bands", "stall_adjacent", "BandDetector", "Band", "BandResult", "DegradedEpisode",
           "INTERMEDIATE", "OUTLIER", "EXCLUDED"]
from .section import section  # noqa: E402  (report section "bands")

__all__ += ["section"]
