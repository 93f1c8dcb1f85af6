"""bandkit: explains why a performance measurement misbehaves.

Loads FTQ OS-noise traces and benchmark-runner results into :class:`Trace` objects, then finds
bands (discrete performance levels), step changes and periodic interference.
"""
from __future__ import annotations

__version__ = "0.1.0"

from .errors import BandkitError, InputError, UsageError
from .trace import Trace, TraceMeta
from .loaders import load, load_many
from .analyze import AnalysisOptions, Report, analyze, report
from .bands import BandDetector, find_bands
from .spectrum import compute_spectrum, analyze_spectrum, compare_rates
from .changepoints import detect_changepoints

__all__ = [
    "__version__",
    "BandkitError",
    "InputError",
    "UsageError",
    "Trace",
    "TraceMeta",
    "load",
    "load_many",
    "analyze",
    "report",
    "Report",
    "AnalysisOptions",
    "find_bands",
    "BandDetector",
    "compute_spectrum",
    "analyze_spectrum",
    "compare_rates",
    "detect_changepoints",
]
