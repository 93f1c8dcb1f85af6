"""Step changes: exact penalised change-point detection (FPOP) with a robust noise model, significance that
holds under realistic noise (family-wise p-values, FDR q-values), closed-form location intervals.

``detect_changepoints(values, ...) -> ChangePointResult`` (the one call: segmentation, p-values and
intervals; ``result.candidates`` is the full path); :class:`ChangePointDetector` is the scikit-learn estimator
(imported on first use: it loads scikit-learn); scoring metrics of TCPDBench in :mod:`.scoring`.
"""
from __future__ import annotations

from .api import detect_changepoints
from .fpop import fpop, pelt
from .result import Candidate, ChangePoint, ChangePointResult, Segment

__all__ = ["detect_changepoints", "ChangePointDetector", "ChangePoint", "ChangePointResult", "Segment",
           "Candidate", "fpop", "pelt"]


def __getattr__(name: str):
    if name == "ChangePointDetector":  # scikit-learn estimator: loads scikit-learn, so only when asked for
        from .estimator import ChangePointDetector

        return ChangePointDetector
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
