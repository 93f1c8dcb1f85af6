"""Level shifts that a one-level verdict does not report, on long run sequences: "stable", but not flat.

The classification names a step only from ``Gates.min_ratio`` (3 %) on, because slow 1/f wander of the
environment moves short sequences by that much, and its backward pruning measures each change against the
merged levels around it. On a long quiet sequence (a CI history of 1,077 builds at ~0.3 % noise, SAP 08755) a
1.5 % step stands 5 sd clear of the noise at p < 1e-40, and a dip of 1.5 % followed by a 3.5 % jump (SAP 01096)
nets under the gate: "stable" (or "N outlier runs") with no word of them reads false.
:func:`unreported_changes` finds them on sequences the step gate does not judge (more than
:data:`~.classify.GATE_MAX_RUNS` runs) that were classified as one level (``stable``, ``outliers``): the same
exact segmentation and backward pruning as the classification, at a tenfold stricter level, with an effect floor
of :data:`MIN_SHIFT_RATIO` and one run-to-run sd instead of the gate, and sides of at least :func:`sustained_runs`
runs. The verdict is not changed; the shifts are data (``gate.unreported_changes``) that the verdict's phrase
names. False alarms on stationary sequences (heavy tails, AR(1) <= 0.5, 1/f wander, spikes, ticks) and power:
``benchmarks/shifts_null.py`` (benchmarks/RESULTS_calibration.md).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from .classify import GATE_MAX_RUNS, Change, Classification, _segments

#: Smallest shift named (ratio): 1 %.
MIN_SHIFT_RATIO = 1.01
#: The pruning level is ``Gates.alpha`` times this (1e-4 by default).
ALPHA_FACTOR = 0.1


def sustained_runs(n: int, min_block: int) -> int:
    """Runs each side of a smaller change needs: ``max(min_block, 10, 2 % of n)``."""
    return int(max(min_block, 10, math.ceil(0.02 * n)))


def unreported_changes(cl: Classification) -> tuple[Change, ...]:
    """Significant level shifts of a one-level classification of more than ``GATE_MAX_RUNS`` runs (``x`` on the
    log scale), in run order; ``index`` is a position in the whole sequence (outlier runs are left out of the
    test), ``effect`` the log ratio of the levels on each side. ``()`` for every other classification."""
    if cl.verdict not in ("stable", "outliers") or cl.x is None or cl.noise is None or cl.x.size <= GATE_MAX_RUNS:
        return ()
    g, noise = cl.gates, cl.noise
    keep = np.flatnonzero(cl.labels >= 0)
    if keep.size <= GATE_MAX_RUNS or noise.sigma_lr <= 0:
        return ()
    # the classification's own segmentation and pruning, with the floor and the level of this note
    fine = dataclasses.replace(g, min_ratio=MIN_SHIFT_RATIO, alpha=g.alpha * ALPHA_FACTOR)
    segs, changes, _ = _segments(cl.x, keep, noise, fine, g.penalty_factor * math.log(cl.x.size))
    side = sustained_runs(keep.size, g.min_block)
    return tuple(c for c, a, b in zip(changes, segs[:-1], segs[1:]) if a.size >= side and b.size >= side)
