"""bandkit: explains why a performance measurement misbehaves.

Loads FTQ OS-noise traces and benchmark-runner results into :class:`Trace` objects, then finds
bands (discrete performance levels), step changes and periodic interference.
"""
from __future__ import annotations

import os as _os
import sys as _sys

if _sys.argv[:1] == ["-m"] and "numpy" not in _sys.modules:  # ``python -m bandkit`` (argv[0] is "-m" while
    # the package is imported for it): a process of the CLI's own, as bandkit_entry.main sets up
    _os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from . import _numba

_numba.configure_cache()  # before numba is imported: a read-only install caches its kernels per user

from ._version import __version__
from .errors import BandkitError, InputError, UsageError
from .limits import Limits
from .trace import Trace, TraceMeta
from .loaders import load, load_all, load_many, load_one
from .analyze import Report, analyze, report
from .section import AnalysisOptions

# Analyses are imported on first use (``bandkit.find_bands`` etc.), so that ``import bandkit`` and the
# CLI's cold start do not pay for scipy.signal, scikit-learn or numba until an analysis needs them.
# (``bandkit.postmortem`` and ``bandkit.compare`` are modules: ``from bandkit.postmortem import postmortem``.)
_LAZY = {
    "find_bands": "bandkit.bands",
    "BandDetector": "bandkit.bands",
    "compute_spectrum": "bandkit.spectrum",
    "analyze_spectrum": "bandkit.spectrum",
    "compare_rates": "bandkit.spectrum",
    "detect_changepoints": "bandkit.changepoints",
    "compare_files": "bandkit.compare",
    "rank_fleet": "bandkit.fleet",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'bandkit' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "__version__",
    "BandkitError",
    "InputError",
    "UsageError",
    "Limits",
    "Trace",
    "TraceMeta",
    "load",
    "load_many",
    "load_one",
    "load_all",
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
    "compare_files",
    "rank_fleet",
]
