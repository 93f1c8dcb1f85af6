"""Step changes: exact penalised change-point detection (FPOP) with a robust noise model, significance that
holds under realistic noise (family-wise p-values, FDR q-values), closed-form location intervals.

``detect_changepoints(values, ...) -> ChangePointResult`` (the one call: segmentation, p-values and
intervals; ``result.candidates`` is the full path); :class:`ChangePointDetector` is the scikit-learn estimator
(imported on first use: it loads scikit-learn); scoring metrics of TCPDBench in :mod:`.scoring`.
"""
from __future__ import annotations

import importlib

from .fpop import fpop, pelt

__all__ = ["detect_changepoints", "ChangePointDetector", "ChangePoint", "ChangePointResult", "Segment",
           "Candidate", "fpop", "pelt"]

#: Names imported from their module on first use: the runner post-mortem needs only ``fpop`` (and the
#: penalty's helpers), not the API's noise model, significance and result classes (~8 ms of its start);
#: the scikit-learn estimator loads scikit-learn.
_LAZY = {"detect_changepoints": ".api", "ChangePointDetector": ".estimator", "Candidate": ".result",
         "ChangePoint": ".result", "ChangePointResult": ".result", "Segment": ".result"}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
