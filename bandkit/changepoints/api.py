"""``detect_changepoints``: where a series' level changes, by how much, and how sure we are.

The steps (each a small function below): validate the arguments; choose the cost (:mod:`.costs`) and build
the search series; estimate the noise model once (:mod:`.noise`); propose candidates with the exact
penalised search (:mod:`.fpop`); order them by backward elimination and give each a family-wise p-value and
an FDR q-value (:mod:`.significance`); report the significant ones with their segments and location intervals
(:mod:`.uncertainty`). Everything after the search is O(n) or O(#candidates).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from numbers import Real

import numpy as np

from ..errors import UsageError
from . import costs as _costs
from . import noise as _noise
from . import penalty as _pen
from . import robust as _r
from . import significance as _sig
from ._eliminate import eliminate
from .fpop import fpop
from .result import Candidate, ChangePoint, ChangePointResult, Segment
from .uncertainty import location_ci

DEFAULT_ALPHA = 0.01
LOCAL_HALO = 10  # values either side of a segment that enter its own noise level (see _eliminate)


@dataclass(frozen=True)
class _Options:
    cost: str
    rule: str
    penalty: float | None  # a number, or None for a rule
    alpha: float | None | str
    min_size: int
    ci_level: float | None
    wander: float


@dataclass(frozen=True)
class _Fit:
    """Everything the report needs, kept by the result for ``at_level`` / ``with_ci``."""

    y: np.ndarray
    t: np.ndarray | None
    opts: _Options
    cost: str
    choice: _costs.CostChoice
    noise: _noise.NoiseModel
    penalty: float
    Sz: np.ndarray  # prefix sums of the standardised search series (centred), len n + 1
    cps: np.ndarray  # candidates, removal order (weakest first)
    s: np.ndarray  # path strengths, removal order
    p: np.ndarray
    q: np.ndarray
    base: np.ndarray


def detect_changepoints(values, *, cost: str = "auto", penalty="auto", alpha="auto", min_size: int = 2,
                        times=None, ci: bool = True, confidence: float = 0.95, wander: float = _noise.WANDER,
                        **deprecated) -> ChangePointResult:
    """Find the significant level changes of a series.

    Parameters
    ----------
    values : 1-D array of finite numbers (per-run times, per-block FTQ counts, ...).
    cost : "l2" (Gaussian change in mean), "robust" (Huber-type: values winsorised at 2 robust SDs around a
        running median, so outliers and short runs of them cannot make segments; levels are medians) or
        "auto" (robust when a running median's residuals show heavy tails or spikes; the reason is in
        ``info["cost_choice"]``).
    penalty : "auto" (candidates from a low penalty, reported by significance), "bic" (2 log n), "mbic"
        (3 log n) or a number (noise-variance units): with a criterion or a number the search result on a
        white-noise scale is reported as is (``alpha`` None) unless ``alpha`` is given.
    alpha : level of the reported set: changes with FDR q-value <= alpha (with no change in a series the
        chance of reporting one is alpha). "auto": 0.01 for penalty "auto", None (every change of the
        search) otherwise.
    min_size : minimum number of values per segment (>= 1).
    times : optional times (s) of the values, same length; adds ``time_s`` fields.
    ci : location confidence intervals for the reported changes (False: none; ``result.with_ci()`` later).
    confidence : level of the location intervals.
    wander : allowance for slow 1/f wander, as a fraction of the noise SD (:mod:`bandkit.changepoints.noise`).

    Returns
    -------
    ChangePointResult: ``changepoints`` (reported: index where the new segment starts, before/after levels,
    ratio, effect size, confidence interval, p- and q-value), their ``segments``, and ``candidates`` (every
    change of the search with its p- and q-value: the full path).
    """
    y, t, opts = _validate(values, times, cost, penalty, alpha, min_size, ci, confidence, wander, deprecated)
    if y.size < 2 * opts.min_size or y.size < 3:
        return _trivial(y, t, opts)
    fit = _fit(y, t, opts)
    alpha_used = opts.alpha if opts.alpha != "auto" else (DEFAULT_ALPHA if opts.rule == "auto" else None)
    return _report(fit, alpha_used, opts.ci_level)


# ---------------------------------------------------------------------------------------------- steps
def _validate(values, times, cost, penalty, alpha, min_size, ci, confidence, wander, deprecated):
    """Arrays and options, or a UsageError naming the bad argument."""
    y = np.asarray(values, dtype=np.float64)
    if y.ndim != 1:
        raise UsageError(f"detect_changepoints needs a 1-D series, got shape {y.shape}")
    if not np.all(np.isfinite(y)):
        raise UsageError("detect_changepoints: values contain NaN or inf; drop or fill them first")
    if cost not in ("auto",) + _costs.COSTS:
        raise UsageError(f"unknown cost {cost!r}; use 'auto', 'l2' or 'robust'")
    try:
        min_size = int(min_size)
    except (TypeError, ValueError):
        raise UsageError(f"min_size must be an integer, got {min_size!r}") from None
    if min_size < 1:
        raise UsageError("min_size must be >= 1")
    if not 0 < confidence < 1:
        raise UsageError("confidence must be in (0, 1)")
    if isinstance(penalty, Real) and not isinstance(penalty, bool):
        if not (np.isfinite(penalty) and penalty >= 0):
            raise UsageError("penalty must be a finite number >= 0")
        rule, pen = "fixed", float(penalty)
    elif isinstance(penalty, str) and penalty in _pen.PENALTIES:
        rule, pen = penalty, None
    else:
        raise UsageError(f"unknown penalty {penalty!r}; use 'auto', 'mbic', 'bic' or a number")
    if not (alpha is None or alpha == "auto" or (isinstance(alpha, Real) and not isinstance(alpha, bool)
                                                 and 0 < alpha <= 1)):
        raise UsageError(f"alpha must be in (0, 1], 'auto' or None, got {alpha!r}")
    if not (isinstance(wander, Real) and 0 <= wander < 10):
        raise UsageError(f"wander must be a number in [0, 10), got {wander!r}")
    if "n_boot" in deprecated:  # the bootstrap intervals of earlier versions are closed-form now
        warnings.warn("detect_changepoints: n_boot is deprecated (intervals are closed-form); use ci=False "
                      "instead of n_boot=0", DeprecationWarning, stacklevel=3)
        ci = ci and bool(deprecated.pop("n_boot"))
    for old in ("seed", "max_window"):
        if old in deprecated:
            warnings.warn(f"detect_changepoints: {old} is deprecated and has no effect (no bootstrap any more)",
                          DeprecationWarning, stacklevel=3)
            deprecated.pop(old)
    if deprecated:
        raise UsageError(f"detect_changepoints: unknown argument(s) {', '.join(sorted(deprecated))}")
    t = None
    if times is not None:
        t = np.asarray(times, dtype=np.float64)
        if t.shape != y.shape:
            raise UsageError(f"times has shape {t.shape}, values {y.shape}")
    opts = _Options(cost, rule, pen, alpha if alpha is None or alpha == "auto" else float(alpha), min_size,
                    float(confidence) if ci else None, float(wander))
    return y, t, opts


def _trivial(y, t, opts) -> ChangePointResult:
    """A series too short to split: one segment, no change."""
    n = y.size
    cost = "l2" if opts.cost == "auto" else opts.cost
    segs = _segments(y, np.array([0, n], dtype=np.int64), cost, t) if n else ()
    return ChangePointResult(n=n, cost=cost, penalty=float("nan"), penalty_rule=opts.rule, noise_scale=float("nan"),
                             min_size=opts.min_size, changepoints=(), segments=segs,
                             info={"cost_requested": opts.cost, "n_candidates": 0, "n_reported": 0})


def _fit(y: np.ndarray, t, opts: _Options) -> _Fit:
    """Cost, noise model, candidates and their significance path."""
    n = y.size
    tick = _r.clock_tick(y)
    if opts.cost == "auto":
        choice = _costs.choose_cost(y, tick)
    else:
        choice = _costs.CostChoice(opts.cost, "requested")
    cost = choice.cost
    base = _costs.search_series(y, cost, tick)
    if opts.rule == "auto":
        nm = _noise.estimate(base, tick=tick, raw=y if cost != "l2" else None, min_size=opts.min_size,
                             wander=opts.wander)
        pen = _pen.criterion_penalty("auto", n)
    else:
        nm = _noise.white(base, tick)
        pen = opts.penalty if opts.rule == "fixed" else _pen.criterion_penalty(opts.rule, n)
    z = base / nm.sigma_lr
    z = z - z.mean()  # centred prefix sums keep their precision on data far from zero
    cps = fpop(z, pen, opts.min_size)
    Sz = np.empty(n + 1)
    Sz[0] = 0.0
    np.cumsum(z, out=Sz[1:])
    D2 = np.empty(n)
    D2[0] = 0.0
    v0 = (nm.sigma / nm.sigma_lr) ** 2
    np.cumsum(np.minimum(np.square(np.diff(z)), 18.0 * v0), out=D2[1:])
    order, stat, short = eliminate(Sz, D2, cps, nm.kappa, v0, LOCAL_HALO)
    s, p, q = _sig.path_values(stat, short, n, cost, opts.min_size)
    return _Fit(y, t, opts, cost, choice, nm, float(pen), Sz, cps[order], s, p, q, base)


def _report(fit: _Fit, alpha: float | None, ci_level: float | None) -> ChangePointResult:
    """The result at level ``alpha``: reported changes, their segments and intervals, and the full path."""
    n = fit.y.size
    keep = np.ones(fit.cps.size, dtype=bool) if alpha is None else fit.q <= alpha
    sel = np.argsort(fit.cps[keep], kind="stable")
    idx = fit.cps[keep][sel]
    s, p, q = fit.s[keep][sel], fit.p[keep][sel], fit.q[keep][sel]
    bounds = np.r_[0, idx, n].astype(np.int64)
    segments = _segments(fit.y, bounds, fit.cost, fit.t)
    changes = _changes(fit, bounds, segments, s, p, q, ci_level)
    k = fit.cps.size
    candidates = tuple(Candidate(int(fit.cps[i]), float(fit.s[i]), float(fit.p[i]), float(fit.q[i]), int(k - i))
                       for i in range(k - 1, -1, -1))
    nm = fit.noise
    info = {
        "cost_requested": fit.opts.cost,
        "cost_choice": fit.choice.to_dict(),
        "noise": nm.to_dict(),
        "rho": nm.rho,
        "outlier_fraction": fit.choice.outlier_fraction,
        "n_candidates": int(k),
        "n_reported": len(changes),
        "ci_level_asked": ci_level,
    }
    return ChangePointResult(n=n, cost=fit.cost, penalty=fit.penalty, penalty_rule=fit.opts.rule,
                             noise_scale=float(nm.sigma_lr), min_size=fit.opts.min_size, changepoints=changes,
                             segments=segments, method="fpop", info=info, alpha=alpha, candidates=candidates,
                             _fit=fit)


def _segments(y: np.ndarray, bounds: np.ndarray, cost: str, t) -> tuple[Segment, ...]:
    mean, std, med, spread = _r.segment_stats(y, bounds)
    level = mean if cost == "l2" else med
    out = []
    for k in range(bounds.size - 1):
        a, b = int(bounds[k]), int(bounds[k + 1])
        out.append(Segment(start=a, end=b, n=b - a, mean=float(mean[k]), median=float(med[k]), std=float(std[k]),
                           spread=float(spread[k]), level=float(level[k]),
                           start_time=None if t is None else float(t[a]),
                           end_time=None if t is None else float(t[b - 1])))
    return tuple(out)


def _changes(fit: _Fit, bounds, segments, s, p, q, ci_level) -> tuple[ChangePoint, ...]:
    """Reported changes: levels, effect size, significance and (if asked) location intervals."""
    t = fit.t
    Sz = fit.Sz
    sig_marg = fit.noise.sigma_marg
    out = []
    for k in range(bounds.size - 2):
        a, c, b = int(bounds[k]), int(bounds[k + 1]), int(bounds[k + 2])
        before, after = segments[k].level, segments[k + 1].level
        delta = after - before
        lo = hi = None
        if ci_level is not None:
            dz = (Sz[b] - Sz[c]) / (b - c) - (Sz[c] - Sz[a]) / (c - a)
            lo, hi = location_ci(c, dz, a, b, level=ci_level, min_size=fit.opts.min_size)
        out.append(ChangePoint(
            index=c, before=before, after=after, delta=delta, ratio=(after / before) if before != 0 else None,
            effect=float(abs(delta) / sig_marg) if sig_marg > 0 else float("inf"),
            ci_low=lo, ci_high=hi, ci_level=ci_level, p_value=float(p[k]),
            time_s=None if t is None else float(t[c]),
            ci_time_low=None if (t is None or lo is None) else float(t[lo]),
            ci_time_high=None if (t is None or hi is None) else float(t[hi]),
            q_value=float(q[k]), statistic=float(s[k]),
        ))
    return tuple(out)


def __getattr__(name: str):
    # ChangePointDetector subclasses scikit-learn's BaseEstimator: imported only when used
    if name == "ChangePointDetector":
        from .estimator import ChangePointDetector

        return ChangePointDetector
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
