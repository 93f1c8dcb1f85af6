"""A/B comparison of two result files (e.g. powersave vs performance governor).

Per benchmark present in both: ``ratio = mean(B) / mean(A)`` of the per-run means (runs, not
values, are the independent units: values inside one pyperf run share a process), a bootstrap
confidence interval (runs resampled within each side, ``n_boot`` times, seeded; percentile
interval) and Welch's t-test p-value on the log run means. ``significant`` when the p-value is below
``1 - confidence`` *and* the interval excludes 1. A benchmark is flagged ``noisy`` when either side's
post-mortem verdict is step / bimodal / bands / trend (the mean mixes levels, so the ratio
depends on how many runs fell in each) or its run means vary by 10 % or more (pyperf's rule).

Over all benchmarks: the geometric mean of the ratios with a bootstrap interval over benchmarks,
and the same without the noisy ones.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np
from scipy import stats

from .display import render
from .errors import UsageError
from ._json import jsonable
from .postmortem import postmortem, run_table
from .trace import Trace

NOISY_VERDICTS = ("step", "bimodal", "bands", "trend")


@dataclass(frozen=True)
class BenchmarkComparison:
    """One benchmark: A vs B (``ratio = B / A``; < 1 means B is lower, i.e. faster for times)."""

    name: str
    unit: str
    mean_a: float
    mean_b: float
    runs_a: int
    runs_b: int
    ratio: float
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    significant: bool
    noisy: bool
    noisy_reasons: tuple[str, ...] = ()
    verdict_a: str = ""
    verdict_b: str = ""

    def to_dict(self) -> dict[str, Any]:
        return jsonable({"name": self.name, "unit": self.unit, "mean_a": self.mean_a, "mean_b": self.mean_b,
                      "runs_a": self.runs_a, "runs_b": self.runs_b, "ratio": self.ratio, "ci_low": self.ci_low,
                      "ci_high": self.ci_high, "p_value": self.p_value, "significant": self.significant,
                      "noisy": self.noisy, "noisy_reasons": list(self.noisy_reasons),
                      "verdict_a": self.verdict_a, "verdict_b": self.verdict_b})


@dataclass(frozen=True)
class Comparison:
    """All benchmarks; ``geomean`` (with ``geomean_ci``) over the compared ones, ``geomean_clean``
    over the ones not flagged noisy; ``only_a`` / ``only_b``: names in one file only."""

    label_a: str
    label_b: str
    benchmarks: tuple[BenchmarkComparison, ...]
    geomean: float | None
    geomean_ci: tuple[float, float] | None
    geomean_clean: float | None
    geomean_clean_ci: tuple[float, float] | None
    only_a: tuple[str, ...] = ()
    only_b: tuple[str, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    confidence: float = 0.95
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return jsonable({"a": self.label_a, "b": self.label_b, "confidence": self.confidence,
                      "ratio_definition": "mean of per-run means, B / A",
                      "benchmarks": [b.to_dict() for b in self.benchmarks],
                      "geomean": self.geomean, "geomean_ci": list(self.geomean_ci) if self.geomean_ci else None,
                      "geomean_clean": self.geomean_clean,
                      "geomean_clean_ci": list(self.geomean_clean_ci) if self.geomean_clean_ci else None,
                      "n_compared": len(self.benchmarks),
                      "n_significant": sum(b.significant for b in self.benchmarks),
                      "n_noisy": sum(b.noisy for b in self.benchmarks),
                      "only_a": list(self.only_a), "only_b": list(self.only_b),
                      "skipped": [{"name": n, "reason": r} for n, r in self.skipped]})

    def to_text(self) -> str:
        return render(self, "text")


def _boot_ratio(a: np.ndarray, b: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    ia = rng.integers(0, len(a), size=(n_boot, len(a)))
    ib = rng.integers(0, len(b), size=(n_boot, len(b)))
    return b[ib].mean(axis=1) / a[ia].mean(axis=1)


def _geomean_ci(ratios: np.ndarray, confidence: float, n_boot: int, rng: np.random.Generator):
    if len(ratios) == 0:
        return None, None
    lr = np.log(ratios)
    gm = float(np.exp(lr.mean()))
    if len(lr) < 2:
        return gm, None
    idx = rng.integers(0, len(lr), size=(n_boot, len(lr)))
    boots = np.exp(lr[idx].mean(axis=1))
    alpha = 1 - confidence
    return gm, (float(np.quantile(boots, alpha / 2)), float(np.quantile(boots, 1 - alpha / 2)))


def _by_name(traces: Iterable[Trace]) -> dict[str, Trace]:
    out: dict[str, Trace] = {}
    for t in traces:
        out.setdefault(t.label, t)
    return out


def compare(a: Sequence[Trace] | Trace, b: Sequence[Trace] | Trace, *, confidence: float = 0.95,
            n_boot: int = 2000, seed: int = 0, min_runs: int = 2, label_a: str | None = None,
            label_b: str | None = None) -> Comparison:
    """Compare benchmarks of ``a`` and ``b`` (lists of runner traces, matched by name)."""
    if not 0.5 < confidence < 1:
        raise UsageError("confidence must be between 0.5 and 1")
    a = [a] if isinstance(a, Trace) else list(a)
    b = [b] if isinstance(b, Trace) else list(b)
    if not a or not b:
        raise UsageError("compare needs traces on both sides")
    ta, tb = _by_name(a), _by_name(b)
    rng = np.random.default_rng(seed)
    alpha = 1 - confidence
    out: list[BenchmarkComparison] = []
    skipped: list[tuple[str, str]] = []
    for name in [n for n in ta if n in tb]:
        A, B = ta[name], tb[name]
        if A.meta.extra.get("summary_only") or B.meta.extra.get("summary_only"):
            skipped.append((name, "no per-run data"))
            continue
        ra, rb = run_table(A), run_table(B)
        if len(ra) < min_runs or len(rb) < min_runs:
            skipped.append((name, f"fewer than {min_runs} runs"))
            continue
        if np.any(ra.means <= 0) or np.any(rb.means <= 0):
            skipped.append((name, "non-positive values: ratios undefined"))
            continue
        ratio = float(rb.means.mean() / ra.means.mean())
        boots = _boot_ratio(ra.means, rb.means, n_boot, rng)
        lo, hi = float(np.quantile(boots, alpha / 2)), float(np.quantile(boots, 1 - alpha / 2))
        la, lb = np.log(ra.means), np.log(rb.means)
        if np.ptp(la) == 0 and np.ptp(lb) == 0:
            p = 0.0 if la[0] != lb[0] else 1.0
        else:
            p = float(stats.ttest_ind(la, lb, equal_var=False).pvalue)
        sig = bool(p < alpha and (hi < 1 or lo > 1))
        pa, pb = postmortem(A), postmortem(B)
        reasons = []
        for side, pm, rt in (("A", pa, ra), ("B", pb, rb)):
            if pm.verdict in NOISY_VERDICTS:
                reasons.append(f"{side} {pm.verdict}")
            cv = float(np.std(rt.means, ddof=1) / np.mean(rt.means)) if len(rt) > 1 else 0.0
            if cv >= 0.10:
                reasons.append(f"{side} cv {100 * cv:.0f}%")
        out.append(BenchmarkComparison(name, A.meta.value_unit, float(ra.means.mean()), float(rb.means.mean()),
                                       len(ra), len(rb), ratio, lo, hi, p, sig, bool(reasons), tuple(reasons),
                                       pa.verdict, pb.verdict))
    ratios = np.array([c.ratio for c in out])
    clean = np.array([c.ratio for c in out if not c.noisy])
    gm, gci = _geomean_ci(ratios, confidence, n_boot, rng)
    gmc, gcci = _geomean_ci(clean, confidence, n_boot, rng)
    return Comparison(label_a or (a[0].path if a else "A"), label_b or (b[0].path if b else "B"), tuple(out),
                      gm, gci, gmc, gcci, tuple(n for n in ta if n not in tb), tuple(n for n in tb if n not in ta),
                      tuple(skipped), confidence)


def compare_files(path_a, path_b, *, format: str | None = None, limits=None, **kwargs) -> Comparison:
    """Load two result files and :func:`compare` them (``limits``: :class:`bandkit.Limits` for loading)."""
    from .loaders import load_many

    return compare(load_many([path_a], format=format, limits=limits),
                   load_many([path_b], format=format, limits=limits),
                   label_a=str(path_a), label_b=str(path_b), **kwargs)
