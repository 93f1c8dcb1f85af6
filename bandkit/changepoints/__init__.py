"""Step changes: exact penalised change-point detection (FPOP) with an automatic penalty, a robust
cost, location confidence intervals and per-change significance.

``detect_changepoints(values, ...) -> ChangePointResult``; scoring metrics of TCPDBench in
:mod:`bandkit.changepoints.scoring`.
"""
from __future__ import annotations

from .api import ChangePointDetector, detect_changepoints
from .fpop import fpop, pelt
from .result import ChangePoint, ChangePointResult, Segment

__all__ = ["detect_changepoints", "ChangePointDetector", "ChangePoint", "ChangePointResult", "Segment",
           "fpop", "pelt"]
