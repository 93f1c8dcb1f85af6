"""A/B comparison of two result files (e.g. powersave vs performance governor).

Per benchmark present in both: ``ratio = mean(B) / mean(A)`` of the per-run means (runs, not
values, are the independent units: values inside one pyperf run share a process), a bootstrap
confidence interval (runs resampled within each side, ``n_boot`` times, seeded; percentile
interval) and Welch's t-test p-value on the log run means. ``significant`` when the p-value is below
``1 - confidence`` *and* the interval excludes 1. A benchmark is flagged ``noisy`` when either side's
post-mortem verdict is step / bimodal / bands / trend (the mean mixes levels, so the ratio
depends on how many runs fell in each) or its run means vary by 10 % or more (pyperf's rule).

Benchmarks without enough per-run values on a side (summary-only results: pytest-benchmark and asv
defaults, PTS entries without per-trial values, Google Benchmark aggregates or single runs) are
compared from the statistics the files state (``summary_stats``); ``method`` says how:

- ``"runs"``: per-run values on both sides (above).
- ``"welch-stats"``: mean, standard deviation and n on both sides: ratio of the means, Welch's
  t-test from the statistics (``scipy.stats.ttest_ind_from_stats``), interval of the ratio by the
  delta method on the log scale with Welch-Satterthwaite degrees of freedom.
- ``"ci-overlap"``: an interval for the same statistic on both sides (asv's 99 % interval of the
  median) but no n / sd: ratio of the headline values, the interval of the ratio from the interval
  ends (``lo_b / hi_a`` .. ``hi_b / lo_a``, at the files' level, conservative), significant when
  the two intervals do not overlap (asv's own rule); no p-value.
- ``"point"``: single values only: the ratio, no interval, never significant.

Benchmarks are matched by name; runner loaders that write ``meta.extra["match_name"]`` and
``"variant"`` (PTS: test and system) are also matched by those, so the same test of system X in A
pairs with system Y in B.

Values written in a unit (PTS: "0.46" GB/s, "9" iterations per minute; ``resolution``) carry a
rounding variance of unit^2 / 12: when a side varies less than that (three equal trials), Welch's
test and a t interval use that floor instead of calling a one-unit difference certain (p = 0).

Over all benchmarks: the geometric mean of the ratios with a bootstrap interval over benchmarks,
and the same without the noisy ones. When some results are higher-is-better (``higher_is_better``:
PTS ``Proportion`` HIB, ``--higher-is-better``), their ratios enter inverted, so that < 1 means B is
better for every benchmark, and results of unknown direction are left out (``geomean_definition``).
"""
from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from .display import DisplayMixin, render
from .errors import UsageError
from .robust import decimal_resolution
from ._json import jsonable
from .trace import SECONDS_PER_UNIT, Trace

# (``import bandkit.compare`` imports neither pandas nor scipy: the post-mortem's verdicts and run tables are
# imported by the calls that use them; comparing per-run results imports no scipy at all (Welch's p by
# postmortem.distributions.t_sf); tests/test_runner_lite.py)

NOISY_VERDICTS = ("step", "episode", "bimodal", "bands", "trend")
#: How a benchmark was compared (see the module docstring).
METHODS = ("runs", "welch-stats", "ci-overlap", "point")


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
    method: str = "runs"
    statistic: str = "mean"
    ci_level: float | None = None
    higher_is_better: bool | None = None
    resolution: float | None = None
    #: Benjamini-Hochberg adjusted p-value over the benchmarks of this comparison that have a p-value (None:
    #: none here); ``significant and q_value < 1 - confidence`` holds at that false discovery rate.
    q_value: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return jsonable({"name": self.name, "unit": self.unit, "mean_a": self.mean_a, "mean_b": self.mean_b,
                      "runs_a": self.runs_a, "runs_b": self.runs_b, "ratio": self.ratio, "ci_low": self.ci_low,
                      "ci_high": self.ci_high, "p_value": self.p_value, "significant": self.significant,
                      "noisy": self.noisy, "noisy_reasons": list(self.noisy_reasons),
                      "verdict_a": self.verdict_a, "verdict_b": self.verdict_b, "method": self.method,
                      "statistic": self.statistic, "ci_level": self.ci_level,
                      "higher_is_better": self.higher_is_better, "resolution": self.resolution,
                      "q_value": self.q_value})


@dataclass(frozen=True)
class Comparison(DisplayMixin):
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
                      "geomean_definition": geomean_definition(self.benchmarks),
                      "geomean_n": len(geomean_ratios(self.benchmarks)),
                      "geomean_clean": self.geomean_clean,
                      "geomean_clean_ci": list(self.geomean_clean_ci) if self.geomean_clean_ci else None,
                      "methods": {m: sum(b.method == m for b in self.benchmarks) for m in METHODS},
                      "n_compared": len(self.benchmarks),
                      "n_significant": sum(b.significant for b in self.benchmarks),
                      "n_significant_fdr": n_significant_fdr(self.benchmarks, 1 - self.confidence),
                      "expected_by_chance": expected_by_chance(self.benchmarks, 1 - self.confidence),
                      "n_noisy": sum(b.noisy for b in self.benchmarks),
                      "only_a": list(self.only_a), "only_b": list(self.only_b),
                      "skipped": [{"name": n, "reason": r} for n, r in self.skipped]})

    def to_text(self, width: int = 100) -> str:
        """The table and the conclusions as text, ``width`` columns wide (cut cells end in "…")."""
        return render(self, "text", width=width)

    def to_html(self) -> str:
        """A self-contained HTML page: the table, the verdict and a plot of the ratios with their CIs."""
        return render(self, "html")


def bh_q_values(p: Sequence[float | None]) -> list[float | None]:
    """Benjamini-Hochberg adjusted p-values (q-values) of ``p``; None stays None and does not count among the
    tests. (Five lines of numpy rather than ``scipy.stats.false_discovery_control``: compare keeps scipy.stats
    out of its start-up; tested equal.)"""
    idx = [i for i, x in enumerate(p) if x is not None and x == x]
    out: list[float | None] = [None] * len(p)
    if not idx:
        return out
    v = np.array([p[i] for i in idx], dtype=np.float64)
    order = np.argsort(v, kind="stable")
    q = v[order] * len(v) / np.arange(1, len(v) + 1)
    q = np.minimum(np.minimum.accumulate(q[::-1])[::-1], 1.0)
    for k, i in enumerate(order):
        out[idx[i]] = float(q[k])
    return out


def n_significant_fdr(benchmarks, alpha: float) -> int:
    """Significant benchmarks that also hold at false discovery rate ``alpha`` (q-value < alpha)."""
    return sum(b.significant and b.q_value is not None and b.q_value < alpha for b in benchmarks)


def expected_by_chance(benchmarks, alpha: float) -> float:
    """How many benchmarks would reach p < ``alpha`` if nothing had changed (alpha x the number tested)."""
    return alpha * sum(b.p_value is not None for b in benchmarks)


def _boot_ratio(a: np.ndarray, b: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Bootstrap ratios of the means, ``b[ib].mean(axis=1) / a[ia].mean(axis=1)`` bit for bit: np.mean is
    the row sums divided by the count; ``take`` and ``sum`` skip the fancy-index and mean wrappers."""
    ia = rng.integers(0, len(a), size=(n_boot, len(a)))
    ib = rng.integers(0, len(b), size=(n_boot, len(b)))
    return (b.take(ib).sum(axis=1) / len(b)) / (a.take(ia).sum(axis=1) / len(a))


def _interval(boots: np.ndarray, alpha: float) -> tuple[float, float]:
    """``(np.quantile(boots, alpha / 2), np.quantile(boots, 1 - alpha / 2))`` of bootstrap ratios:
    :func:`bandkit.postmortem.noise.quantiles` (numpy's linear method, both ends from one partition, no
    numpy.ma import) for finite ratios, np.quantile itself for anything else."""
    if not np.isfinite(boots).all():
        return float(np.quantile(boots, alpha / 2)), float(np.quantile(boots, 1 - alpha / 2))
    from .postmortem.noise import quantiles  # (imported by the compare path already: run tables, verdicts)

    lo, hi = quantiles(boots, (alpha / 2, 1 - alpha / 2))
    return lo, hi


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
    return gm, _interval(boots, alpha)


def direction(a: Trace, b: Trace) -> bool | None:
    """True when higher values are better (the files say so: PTS HIB, ``--higher-is-better``), False for
    times (smaller is better: :data:`bandkit.trace.SECONDS_PER_UNIT`) and lower-is-better results, None
    when unknown or when the two files disagree."""
    def one(t: Trace) -> bool | None:
        h = t.meta.extra.get("higher_is_better")
        if h is not None:
            return bool(h)
        return False if (t.meta.value_unit or "").strip() in SECONDS_PER_UNIT else None
    da, db = one(a), one(b)
    return da if da == db else None


def oriented(benchmarks) -> bool:
    """Some benchmark is higher-is-better: ratios are then oriented (see :func:`geomean_ratios`)."""
    return any(c.higher_is_better for c in benchmarks)


def geomean_ratios(benchmarks) -> np.ndarray:
    """Ratios the geometric mean is taken over: B/A as they are when no benchmark is higher-is-better
    (times, pyperf, hyperfine...); otherwise each oriented so that < 1 means B is better (A/B for
    higher-is-better results), and results of unknown direction left out (a geometric mean of MB/s
    and seconds together says nothing)."""
    if not oriented(benchmarks):
        return np.array([c.ratio for c in benchmarks])
    return np.array([1.0 / c.ratio if c.higher_is_better else c.ratio
                     for c in benchmarks if c.higher_is_better is not None])


def geomean_definition(benchmarks) -> str:
    """What ``geomean`` is the geometric mean of (see :func:`geomean_ratios`)."""
    if not oriented(benchmarks):
        return "B/A"
    return "B/A of lower-is-better results and A/B of higher-is-better ones (< 1: B better); unknown direction left out"


def _floored(la: np.ndarray, lb: np.ndarray, ma: np.ndarray, mb: np.ndarray) -> tuple[float, float, float] | None:
    """(reading unit, floor of the log-variance of A, of B) when the values are written in a unit
    (PTS: 0.46 GB/s, 9 iterations per minute) and a side varies less than that unit can show; None
    otherwise. Rounding to a unit q adds a variance of q^2 / 12 (uniform), so a spread of 0 is not 0."""
    if len(ma) + len(mb) > 1000:
        return None
    q = decimal_resolution(np.concatenate([ma, mb]))
    if q is None or q >= 0.5 * min(float(np.min(ma)), float(np.min(mb))):
        return None  # (a unit as large as the values is no reading unit)
    fa = (q / math.sqrt(12.0) / float(np.mean(ma))) ** 2
    fb = (q / math.sqrt(12.0) / float(np.mean(mb))) ** 2
    if float(np.var(la, ddof=1)) >= fa and float(np.var(lb, ddof=1)) >= fb:
        return None
    return q, fa, fb


def _welch_floored(la: np.ndarray, lb: np.ndarray, q: tuple[float, float, float], alpha: float, ratio: float):
    """Welch's test and a t interval of the ratio on the log scale, each side's variance at least the
    rounding variance of its unit: (p, ci_low, ci_high) of mean(B) / mean(A)."""
    from .postmortem.distributions import t_isf, t_sf

    n1, n2 = la.size, lb.size
    vn1 = max(float(np.var(la, ddof=1)), q[1]) / n1
    vn2 = max(float(np.var(lb, ddof=1)), q[2]) / n2
    se = math.sqrt(vn1 + vn2)
    df = (vn1 + vn2) ** 2 / (vn1 ** 2 / (n1 - 1) + vn2 ** 2 / (n2 - 1))
    d = float(np.mean(lb) - np.mean(la))
    p = 2.0 * t_sf(abs(d) / se, df)
    half = t_isf(alpha / 2.0, df) * se
    return min(p, 1.0), ratio * math.exp(-half), ratio * math.exp(half)


def _by_name(traces: Iterable[Trace]) -> dict[str, Trace]:
    out: dict[str, Trace] = {}
    for t in traces:
        out.setdefault(t.label, t)
    return out


def _match(ta: dict[str, Trace], tb: dict[str, Trace]) -> list[tuple[str, Trace, Trace]]:
    """Pairs (name, A, B): same label; then same (match_name, variant); then a match_name that is
    unique on both sides among the traces still unpaired."""
    pairs = [(n, ta[n], tb[n]) for n in ta if n in tb]
    left_a = {n: t for n, t in ta.items() if n not in tb}
    left_b = {n: t for n, t in tb.items() if n not in ta}

    def key(t: Trace, variant: bool):
        mn = t.meta.extra.get("match_name") or t.label
        return (mn, t.meta.extra.get("variant")) if variant else mn

    for variant in (True, False):
        count_a: dict[Any, int] = {}
        count_b: dict[Any, int] = {}
        for t in left_a.values():
            count_a[key(t, variant)] = count_a.get(key(t, variant), 0) + 1
        for t in left_b.values():
            count_b[key(t, variant)] = count_b.get(key(t, variant), 0) + 1
        by_b = {key(t, variant): n for n, t in left_b.items() if count_b[key(t, variant)] == 1}
        for n, t in list(left_a.items()):
            k = key(t, variant)
            if count_a[k] == 1 and k in by_b and by_b[k] in left_b:
                pairs.append((n, t, left_b.pop(by_b[k])))
                del left_a[n]
    return pairs


def compare(a: Sequence[Trace] | Trace, b: Sequence[Trace] | Trace, *, confidence: float = 0.95,
            n_boot: int = 2000, seed: int = 0, min_runs: int = 2, label_a: str | None = None,
            label_b: str | None = None, progress=None) -> Comparison:
    """Compare benchmarks of ``a`` and ``b`` (lists of runner traces, matched by name). ``progress``:
    optional wrapper of the loop over the matched benchmarks (e.g. a tqdm bar)."""
    if not 0.5 < confidence < 1:
        raise UsageError("confidence must be between 0.5 and 1")
    a = [a] if isinstance(a, Trace) else list(a)
    b = [b] if isinstance(b, Trace) else list(b)
    if not a or not b:
        raise UsageError("compare needs traces on both sides")
    ta, tb = _by_name(a), _by_name(b)
    rng = np.random.default_rng(seed)
    alpha = 1 - confidence
    pairs = _match(ta, tb)
    out, skipped = _compare_pairs(pairs, alpha, n_boot, min_runs, rng, progress)
    out = [dataclasses.replace(c, q_value=q) for c, q in zip(out, bh_q_values([c.p_value for c in out]))]
    paired_a = {id(A) for _, A, _ in pairs}
    paired_b = {id(B) for _, _, B in pairs}
    ratios = geomean_ratios(out)
    clean = geomean_ratios([c for c in out if not c.noisy])
    gm, gci = _geomean_ci(ratios, confidence, n_boot, rng)
    gmc, gcci = _geomean_ci(clean, confidence, n_boot, rng)
    return Comparison(label_a or (a[0].path if a else "A"), label_b or (b[0].path if b else "B"), tuple(out),
                      gm, gci, gmc, gcci, tuple(n for n, t in ta.items() if id(t) not in paired_a),
                      tuple(n for n, t in tb.items() if id(t) not in paired_b), tuple(skipped), confidence)


def _compare_pairs(pairs, alpha: float, n_boot: int, min_runs: int, rng, progress):
    """compare's loop over the matched benchmarks: (comparisons, skipped names with the reason)."""
    from .postmortem import run_table, run_verdicts

    out: list = []
    skipped: list[tuple[str, str]] = []
    pending: list[tuple] = []  # (position in out, the pair's numbers): their run verdicts are classified together
    for name, A, B in (progress(pairs) if progress is not None else pairs):
        ra = None if A.meta.extra.get("summary_only") else run_table(A, metadata=False)
        rb = None if B.meta.extra.get("summary_only") else run_table(B, metadata=False)
        if ra is None or rb is None or len(ra) < min_runs or len(rb) < min_runs:
            res = _compare_stats(name, A, B, ra, rb, alpha)
            if isinstance(res, str):
                skipped.append((name, res))
            else:
                out.append(res)
            continue
        if (ra.means <= 0).any() or (rb.means <= 0).any():
            skipped.append((name, "non-positive values: ratios undefined"))
            continue
        mean_a, mean_b = ra.means.mean(), rb.means.mean()  # (each side's mean once: the ratio, the table)
        ratio = float(mean_b / mean_a)
        boots = _boot_ratio(ra.means, rb.means, n_boot, rng)
        lo, hi = _interval(boots, alpha)
        la, lb = np.log(ra.means), np.log(rb.means)
        q = _floored(la, lb, ra.means, rb.means)
        if q is not None:  # a side's spread is below the unit its values are written in
            p, lo, hi = _welch_floored(la, lb, q, alpha, ratio)
        elif np.ptp(la) == 0 and np.ptp(lb) == 0:
            p = 0.0 if la[0] != lb[0] else 1.0
        else:
            with warnings.catch_warnings():  # nearly identical runs: scipy warns of precision loss
                warnings.simplefilter("ignore", RuntimeWarning)
                p = welch_p(la, lb)
        sig = bool(p < alpha and (hi < 1 or lo > 1))
        pending.append((len(out), name, A, B, ra, rb, mean_a, mean_b, ratio, lo, hi, p, sig, q))
        out.append(None)
    # the verdicts only (no suspects ranked), the classifications of every pair's two sides run together
    verdicts = run_verdicts([side for job in pending for side in ((job[2], job[4]), (job[3], job[5]))])
    for k, (at, name, A, B, ra, rb, mean_a, mean_b, ratio, lo, hi, p, sig, q) in enumerate(pending):
        va, vb = verdicts[2 * k], verdicts[2 * k + 1]
        reasons = []
        for side, verdict, rt, mu in (("A", va, ra, mean_a), ("B", vb, rb, mean_b)):
            if verdict in NOISY_VERDICTS:
                reasons.append(f"{side} {verdict}")
            cv = float(rt.means.std(ddof=1) / mu) if len(rt) > 1 else 0.0
            if cv >= 0.10:
                reasons.append(f"{side} cv {100 * cv:.0f}%")
        out[at] = BenchmarkComparison(name, A.meta.value_unit, float(mean_a), float(mean_b),
                                      len(ra), len(rb), ratio, lo, hi, p, sig, bool(reasons), tuple(reasons),
                                      va, vb, higher_is_better=direction(A, B), resolution=q and q[0])
    return out, skipped


def _side_stats(t: Trace, rt) -> dict[str, Any]:
    """The statistics of one side: the file's ``summary_stats``, else those of its few runs."""
    st = dict(t.meta.extra.get("summary_stats") or {})
    if rt is not None and len(rt) and not st.get("mean"):
        m = rt.means
        st = {"statistic": "mean", "mean": float(m.mean()), "n": len(m),
              "stddev": float(m.std(ddof=1)) if len(m) > 1 else None}
    return st


def welch_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided p-value of Welch's t-test of samples ``a`` and ``b`` (each of 2 or more values):
    ``scipy.stats.ttest_ind(a, b, equal_var=False).pvalue`` with the same operations in the same order, and
    the t tail from :func:`bandkit.postmortem.distributions.t_sf` instead of ``scipy.special.stdtr``
    (within 1e-12 relative, tested): no scipy import on the compare path (scipy.special alone ~0.2 s)."""
    from .postmortem.distributions import t_sf

    fast = _welch_t_df(a, b)
    if fast is not None:
        return float(2 * t_sf(*fast))
    with np.errstate(divide="ignore", invalid="ignore"):
        n1, n2 = a.size, b.size
        v1 = np.mean((a - np.mean(a, keepdims=True)) ** 2) * (np.float64(n1) / (np.float64(n1) - 1))
        v2 = np.mean((b - np.mean(b, keepdims=True)) ** 2) * (np.float64(n2) / (np.float64(n2) - 1))
        m1, m2 = np.mean(a), np.mean(b)
        vn1, vn2 = v1 / n1, v2 / n2
        df = (vn1 + vn2) ** 2 / (vn1 ** 2 / (n1 - 1) + vn2 ** 2 / (n2 - 1))
        df = np.where(np.isnan(df), 1.0, df)
        t = np.divide(m1 - m2, np.sqrt(vn1 + vn2))
        return float(2 * t_sf(float(np.abs(t)), float(df)))


def _welch_t_df(a: np.ndarray, b: np.ndarray) -> tuple[float, float] | None:
    """(|t|, df) of :func:`welch_p`'s numpy steps in Python floats, bit for bit (sums by ``np.add.reduce`` as
    np.mean takes them, squares of the deviations by numpy, the scalar steps as numpy's float64 scalars do
    them: IEEE operations, C ``pow`` and a correctly rounded square root), for 1-D float64 samples of 2 or
    more values with a spread on both sides; None otherwise (zero variances, infinities, overflow: numpy's
    own steps then give its NaN / inf results). ~0.15 ms a call less than the numpy scalar steps."""
    if a.dtype != np.float64 or b.dtype != np.float64 or a.ndim != 1 or b.ndim != 1 or a.size < 2 or b.size < 2:
        return None
    n1, n2 = a.size, b.size
    try:
        with np.errstate(all="ignore"):  # (an overflow here: numpy's steps below warn, once)
            m1 = float(np.add.reduce(a)) / n1
            m2 = float(np.add.reduce(b)) / n2
            d1, d2 = a - m1, b - m2
            s1, s2 = float(np.add.reduce(d1 * d1)), float(np.add.reduce(d2 * d2))
        v1 = s1 / n1 * (float(n1) / (float(n1) - 1))
        v2 = s2 / n2 * (float(n2) / (float(n2) - 1))
        vn1, vn2 = v1 / n1, v2 / n2
        df = (vn1 + vn2) ** 2 / (vn1 ** 2 / (n1 - 1) + vn2 ** 2 / (n2 - 1))
        t = (m1 - m2) / math.sqrt(vn1 + vn2)
    except (ZeroDivisionError, OverflowError, ValueError):
        return None
    if not (math.isfinite(t) and math.isfinite(df)):
        return None
    return abs(t), df


def _compare_stats(name: str, A: Trace, B: Trace, ra, rb, alpha: float) -> BenchmarkComparison | str:
    """One benchmark compared from stated statistics (see the module docstring), or why not."""
    sa, sb = _side_stats(A, ra), _side_stats(B, rb)
    if not sa or not sb:
        return "no per-run data and no statistics"
    ok = lambda st, k: isinstance(st.get(k), (int, float)) and np.isfinite(st[k])  # noqa: E731
    unit = A.meta.value_unit
    if all(ok(st, "mean") and ok(st, "stddev") and ok(st, "n") and st["n"] >= 2 for st in (sa, sb)):
        method, stat = "welch-stats", "mean"
    elif sa.get("statistic") == sb.get("statistic") and all(
            ok(st, "ci_low") and ok(st, "ci_high") and ok(st, str(st.get("statistic"))) for st in (sa, sb)) \
            and sa.get("ci_level") == sb.get("ci_level"):
        method, stat = "ci-overlap", str(sa["statistic"])
    else:
        stat = next((k for k in ("mean", "median") if ok(sa, k) and ok(sb, k)), None)
        if stat is None:
            return "no common statistic (mean or median) on both sides"
        method = "point"
    ca, cb = float(sa[stat]), float(sb[stat])
    if not (ca > 0 and cb > 0):
        return "non-positive values: ratios undefined"
    ratio = cb / ca
    lo = hi = p = None
    sig = False
    level = None
    if method == "welch-stats":
        from scipy import stats  # (summary-only files only: scipy.stats costs ~0.5 s to import)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = stats.ttest_ind_from_stats(ca, sa["stddev"], sa["n"], cb, sb["stddev"], sb["n"], equal_var=False)
        p = float(res.pvalue) if np.isfinite(res.pvalue) else (0.0 if ca != cb else 1.0)
        va, vb = (sa["stddev"] / ca) ** 2 / sa["n"], (sb["stddev"] / cb) ** 2 / sb["n"]
        if va + vb > 0:
            df = (va + vb) ** 2 / (va ** 2 / (sa["n"] - 1) + vb ** 2 / (sb["n"] - 1))
            half = float(stats.t.ppf(1 - alpha / 2, df)) * float(np.sqrt(va + vb))
            lo, hi = ratio * float(np.exp(-half)), ratio * float(np.exp(half))
        else:
            lo = hi = ratio
        sig = bool(p < alpha and (hi < 1 or lo > 1))
        level = 1 - alpha
    elif method == "ci-overlap":
        if sa["ci_low"] > 0 and sb["ci_low"] > 0:
            lo, hi = sb["ci_low"] / sa["ci_high"], sb["ci_high"] / sa["ci_low"]
        sig = bool(sb["ci_low"] > sa["ci_high"] or sb["ci_high"] < sa["ci_low"])
        level = sa.get("ci_level")
    reasons = []
    for side, st in (("A", sa), ("B", sb)):
        if ok(st, "stddev") and ok(st, "mean") and st["mean"] > 0 and st["stddev"] / st["mean"] >= 0.10:
            reasons.append(f"{side} cv {100 * st['stddev'] / st['mean']:.0f}%")
    na = int(sa["n"]) if ok(sa, "n") else 0
    nb = int(sb["n"]) if ok(sb, "n") else 0
    return BenchmarkComparison(name, unit, ca, cb, na, nb, ratio, lo, hi, p, sig, bool(reasons), tuple(reasons),
                               "no_runs" if ra is None else "too_few_runs",
                               "no_runs" if rb is None else "too_few_runs", method, stat, level,
                               higher_is_better=direction(A, B))


def compare_files(path_a, path_b, *, format: str | None = None, limits=None, **kwargs) -> Comparison:
    """Load two result files and :func:`compare` them (``limits``: :class:`bandkit.Limits` for loading)."""
    from .loaders import load_many
    from .loaders.runner_common import metadata_on_read

    with metadata_on_read():  # (compare reads no metadata column: parsed if ever read)
        a = load_many([path_a], format=format, limits=limits)
        b = load_many([path_b], format=format, limits=limits)
    return compare(a, b, label_a=str(path_a), label_b=str(path_b), **kwargs)
