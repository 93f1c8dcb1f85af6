"""``detect_changepoints``: where a series' level changes, by how much, and how sure we are."""
from __future__ import annotations

from numbers import Real

import numpy as np

from ..errors import UsageError
from ..robust import MAD_TO_SD as _MAD
from . import costs as _costs
from . import penalty as _pen
from .fpop import fpop
from .result import ChangePoint, ChangePointResult, Segment
from .uncertainty import cusum_p_value, location_ci



def _search_series(y: np.ndarray, cost: str) -> np.ndarray:
    return y if cost == "l2" else _costs.winsorize_local(y)


def _residuals(x: np.ndarray, cps: np.ndarray) -> np.ndarray:
    """Deviations of ``x`` from its segment medians."""
    bounds = np.r_[0, cps, x.size]
    resid = np.empty_like(x)
    for a, b in zip(bounds[:-1], bounds[1:]):
        resid[a:b] = x[a:b] - np.median(x[a:b])
    return resid


def _resolve_scale(base: np.ndarray, rule: str, pen: float, min_size: int, n_iter: int = 3):
    """Noise SD of the search series.

    For "bic"/"mbic"/a number: the difference-based scale (white noise assumed). For "auto": a
    long-run SD, by alternating segmentation and noise estimation, started from the marginal
    MAD scale (too large when there are steps, so the first pass only finds clear ones):
    residuals from the segment medians give a robust lag-1 autocorrelation rho and a marginal
    SD, and sigma = max(diff scale, SD * sqrt((1 + rho) / (1 - rho))) (AR(1) long-run SD).
    White noise with steps converges to the difference scale; trending or strongly correlated
    series keep a large scale and so few changes.
    """
    s_diff = _pen.diff_scale(base)
    info = {"sigma_diff": s_diff, "rho": 0.0}
    if rule != "auto":
        return s_diff, info, None
    med = np.median(base)
    s = _MAD * np.median(np.abs(base - med))
    if not s > 0:
        s = s_diff
    s = max(s, s_diff)
    rho = 0.0
    for _ in range(n_iter):
        resid = _residuals(base, fpop((base - med) / s, pen, min_size))
        rho = _pen.robust_lag1(resid)
        s_marg = _MAD * np.median(np.abs(resid - np.median(resid)))
        s_new = max(s_diff, s_marg * _pen.long_run_factor(rho))
        if np.isclose(s_new, s, rtol=1e-3):
            s = s_new
            break
        s = s_new
    info.update(rho=rho)
    return float(s), info, resid


def detect_changepoints(values, *, cost: str = "auto", penalty="auto", min_size: int = 2,
                        times=None, confidence: float = 0.95, n_boot: int = 200,
                        seed: int = 0, max_window: int = 2000) -> ChangePointResult:
    """Find the level changes of a series by exact penalised segmentation (FPOP).

    Parameters
    ----------
    values : 1-D array of finite numbers (e.g. per-run times, per-block FTQ counts).
    cost : "l2" (Gaussian change in mean), "robust" (Huber-type: values winsorised at 2 robust
        SDs around a running median, so outliers and skewed tails cannot make segments; levels
        are medians) or "auto" (robust when the
        first differences show heavy tails or spikes, see :func:`bandkit.changepoints.costs.choose_cost`).
    penalty : "auto" (MBIC, 3 log n, with an autocorrelation-aware noise scale), "mbic", "bic"
        (2 log n), or a number (in units of the noise variance of the standardised series).
    min_size : minimum number of values per segment (>= 1).
    times : optional times (s) of the values, same length; adds ``time_s`` fields.
    confidence : level of the location confidence intervals.
    n_boot : bootstrap replicates per change (0 disables the intervals: ci = index).
    seed : seed of the bootstrap.
    max_window : largest half-window (values) used for a location interval.

    Returns
    -------
    ChangePointResult with ``changepoints`` (index where the new segment starts, before/after
    levels, ratio, confidence interval, p-value) and ``segments``.
    """
    y = np.asarray(values, dtype=np.float64)
    if y.ndim != 1:
        raise UsageError(f"detect_changepoints needs a 1-D series, got shape {y.shape}")
    if not np.all(np.isfinite(y)):
        raise UsageError("detect_changepoints: values contain NaN or inf; drop or fill them first")
    n = y.size
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
    t = None
    if times is not None:
        t = np.asarray(times, dtype=np.float64)
        if t.shape != y.shape:
            raise UsageError(f"times has shape {t.shape}, values {y.shape}")
    if isinstance(penalty, Real) and not isinstance(penalty, bool):
        if not (np.isfinite(penalty) and penalty >= 0):
            raise UsageError("penalty must be a finite number >= 0")
        rule, pen = "fixed", float(penalty)
    elif penalty in _pen.PENALTIES:
        rule, pen = penalty, _pen.criterion_penalty(penalty, n)
    else:
        raise UsageError(f"unknown penalty {penalty!r}; use 'auto', 'mbic', 'bic' or a number")

    chosen = "l2" if cost == "auto" else cost
    if n < 2 * min_size or n < 3:
        seg = _segment(y, 0, n, chosen, t)
        return ChangePointResult(n=n, cost=chosen, penalty=pen, penalty_rule=rule, noise_scale=float("nan"),
                                 min_size=min_size, changepoints=(), segments=(seg,) if n else (),
                                 info={"cost_requested": cost})
    base = _search_series(y, chosen)
    scale, info, resid = _resolve_scale(base, rule, pen, min_size)
    if cost == "auto":
        # tails judged on deviations from a running median (steps move only a few of them;
        # an L2 fit would absorb outliers into short segments and hide them)
        resid = _costs.running_median_residuals(y)
        info["outlier_fraction"] = _costs.outlier_fraction(resid)
        chosen = _costs.choose_cost(resid, rho=info.get("rho", 0.0))
        if chosen != "l2":
            base = _search_series(y, chosen)
            scale, info2, _ = _resolve_scale(base, rule, pen, min_size)
            info.update(info2)
    z = (base - np.median(base)) / scale
    cps, stats = fpop(z, pen, min_size, return_stats=True)
    bounds = np.r_[0, cps, n].astype(np.int64)
    segments = tuple(_segment(y, int(a), int(b), chosen, t) for a, b in zip(bounds[:-1], bounds[1:]))
    rng = np.random.default_rng(seed)
    changes = []
    for k, c in enumerate(cps):
        a, b = int(bounds[k]), int(bounds[k + 2])
        c = int(c)
        if n_boot > 0:
            lo, hi = location_ci(z, c, a, b, min_size=min_size, level=confidence, n_boot=n_boot,
                                 max_window=max_window, rng=rng)
        else:
            lo = hi = c
        p = cusum_p_value(z, a, b)
        left, right = segments[k], segments[k + 1]
        before, after = left.level, right.level
        effect = abs(z[c:b].mean() - z[a:c].mean())
        changes.append(ChangePoint(
            index=c, before=before, after=after, delta=after - before,
            ratio=(after / before) if before != 0 else None, effect=float(effect),
            ci_low=lo, ci_high=hi, ci_level=float(confidence), p_value=p,
            time_s=None if t is None else float(t[c]),
            ci_time_low=None if t is None else float(t[lo]),
            ci_time_high=None if t is None else float(t[hi]),
        ))
    info.update(cost_requested=cost, mean_pieces=stats.get("mean_pieces"), optimal_cost=stats["cost"])
    return ChangePointResult(n=n, cost=chosen, penalty=pen, penalty_rule=rule,
                             noise_scale=float(scale), min_size=min_size, changepoints=tuple(changes),
                             segments=segments, method="fpop", info=info)


def _segment(y: np.ndarray, a: int, b: int, cost: str, t) -> Segment:
    v = y[a:b]
    med = float(np.median(v))
    mean = float(v.mean())
    return Segment(start=a, end=b, n=b - a, mean=mean, median=med, std=float(v.std(ddof=1)) if v.size > 1 else 0.0,
                   spread=float(_MAD * np.median(np.abs(v - med))), level=mean if cost == "l2" else med,
                   start_time=None if t is None else float(t[a]), end_time=None if t is None else float(t[b - 1]))


class ChangePointDetector:
    """scikit-learn-style wrapper of :func:`detect_changepoints`.

    ``fit(values, times=None)`` sets ``result_`` (ChangePointResult), ``changepoints_`` (int
    array of indices) and ``penalty_``; ``predict()`` returns ``changepoints_``.
    """

    def __init__(self, cost="auto", penalty="auto", min_size=2, confidence=0.95, n_boot=200, seed=0):
        self.cost = cost
        self.penalty = penalty
        self.min_size = min_size
        self.confidence = confidence
        self.n_boot = n_boot
        self.seed = seed

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in ("cost", "penalty", "min_size", "confidence", "n_boot", "seed")}

    def set_params(self, **params):
        for k, v in params.items():
            if k not in self.get_params():
                raise ValueError(f"invalid parameter {k!r}")
            setattr(self, k, v)
        return self

    def fit(self, values, times=None):
        self.result_ = detect_changepoints(values, times=times, **self.get_params())
        self.changepoints_ = self.result_.indices
        self.penalty_ = self.result_.penalty
        return self

    def predict(self, values=None):
        if not hasattr(self, "result_"):
            raise UsageError("ChangePointDetector: call fit() first")
        return self.changepoints_

    def fit_predict(self, values, times=None):
        return self.fit(values, times=times).changepoints_
