"""Change-point accuracy metrics of TCPDBench (van den Burg & Williams 2020), as restated in the
TCPD SOURCES.md: F1 with a margin (default 5 samples) over several annotators, and covering.

Conventions (as TCPDBench): change points are indices where a new segment starts; index 0 is
added to every annotator's set and to the predictions; each prediction matches at most one
true point (the nearest still-unmatched prediction within the margin, true points taken in
increasing order).
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence


def _true_positives(truth: Iterable[int], pred: Iterable[int], margin: int = 5) -> set[int]:
    """True points of ``truth`` matched to a distinct prediction within ``margin`` samples."""
    X = set(int(x) for x in pred)
    tp = set()
    for tau in sorted(set(int(t) for t in truth)):
        close = sorted((abs(tau - x), x) for x in X if abs(tau - x) <= margin)
        if not close:
            continue
        X.remove(close[0][1])
        tp.add(tau)
    return tp


def precision_recall(annotations: Mapping[str, Sequence[int]] | Sequence[Sequence[int]],
                     predictions: Sequence[int], margin: int = 5) -> tuple[float, float]:
    """Precision against the union of the annotators' points; recall averaged over annotators."""
    sets = list(annotations.values()) if isinstance(annotations, Mapping) else list(annotations)
    if not sets:
        raise ValueError("need at least one annotator")
    Tks = [set(int(x) for x in s) | {0} for s in sets]
    X = set(int(x) for x in predictions) | {0}
    Tstar = set().union(*Tks)
    P = len(_true_positives(Tstar, X, margin)) / len(X)
    R = sum(len(_true_positives(Tk, X, margin)) / len(Tk) for Tk in Tks) / len(Tks)
    return P, R


def f_measure(annotations, predictions, margin: int = 5, alpha: float = 0.5) -> float:
    """TCPDBench F1: ``P R / (alpha R + (1 - alpha) P)`` (harmonic mean for alpha = 0.5)."""
    P, R = precision_recall(annotations, predictions, margin)
    if P == 0 and R == 0:
        return 0.0
    return P * R / (alpha * R + (1 - alpha) * P)


def partition(locations: Iterable[int], n: int) -> list[range]:
    """Segments of 0..n-1 started by the change points in ``locations`` (0 and n implied)."""
    cps = sorted(set(int(x) for x in locations if 0 < int(x) < n))
    bounds = [0] + cps + [n]
    return [range(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def _overlap(a: range, b: range) -> float:
    inter = max(0, min(a.stop, b.stop) - max(a.start, b.start))
    union = (a.stop - a.start) + (b.stop - b.start) - inter
    return inter / union if union else 0.0


def cover_single(predicted: list[range], truth: list[range], n: int) -> float:
    """C(S', S) = (1/n) sum_{A in S} |A| max_{A' in S'} |A & A'| / |A | A'|."""
    total = 0.0
    for A in truth:
        best = max(_overlap(A, B) for B in predicted)
        total += len(A) * best
    return total / n


def covering(annotations, predictions: Sequence[int], n: int) -> float:
    """Mean over annotators of the covering of each annotator's partition by the predicted one."""
    sets = list(annotations.values()) if isinstance(annotations, Mapping) else list(annotations)
    if not sets:
        raise ValueError("need at least one annotator")
    pred = partition(predictions, n)
    return sum(cover_single(pred, partition(s, n), n) for s in sets) / len(sets)
