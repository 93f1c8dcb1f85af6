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

from ..errors import InvalidValueError, UsageError
from . import costs as _costs
from . import noise as _noise
from . import penalty as _pen
from . import robust as _r
from . import significance as _sig
from ._eliminate import eliminate, prefix_sums
from .fpop import fpop
from .result import Candidate, ChangePoint, ChangePointResult, Segment
from .uncertainty import location_cis

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
    Sz: np.ndarray | None  # prefix sums of the standardised search series (centred), len n + 1
    cps: np.ndarray | None  # candidates, removal order (weakest first); None: too short to split
    s: np.ndarray | None  # path strengths, removal order
    p: np.ndarray | None
    q: np.ndarray | None
    zbar: float = 0.0  # mean of base / scale removed from the standardised series

    # what a ChangePointResult recomputes lazily (result.py calls these; it does not import this module)
    def report(self, alpha: float | None, ci_level: float | None) -> ChangePointResult:
        return _report(self, alpha, ci_level)

    def segments(self, idx: np.ndarray) -> tuple[Segment, ...]:
        return _segments(self, idx)

    def candidates(self) -> tuple[Candidate, ...]:
        return _candidates(self)


def detect_changepoints(values, *, cost: str = "auto", penalty="auto", alpha="auto", min_size: int = 2,
                        times=None, ci: bool = True, confidence: float = 0.95, wander: float = _noise.WANDER,
                        **deprecated) -> ChangePointResult:
    """Find the significant level changes of a series.

    Parameters
    ----------
    values : 1-D array of finite numbers (per-run times, per-block FTQ counts, ...), or a Trace: its values
        as the report's change-point section sees them (FTQ quanta averaged over 10 ms blocks; times in s).
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
    if hasattr(values, "meta") and hasattr(values, "values"):  # a Trace: the series the report analyses
        if times is not None:
            raise UsageError("times= is only for arrays; a Trace has its own times")
        from .traceseries import trace_series

        values, times, _block = trace_series(values)
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
        raise InvalidValueError(f"unknown cost {cost!r}; use 'auto', 'l2' or 'robust'")
    try:
        min_size = int(min_size)
    except (TypeError, ValueError):
        raise InvalidValueError(f"min_size must be an integer, got {min_size!r}") from None
    if min_size < 1:
        raise InvalidValueError("min_size must be >= 1")
    if not 0 < confidence < 1:
        raise InvalidValueError("confidence must be in (0, 1)")
    if isinstance(penalty, Real) and not isinstance(penalty, bool):
        if not (np.isfinite(penalty) and penalty >= 0):
            raise InvalidValueError("penalty must be a finite number >= 0")
        rule, pen = "fixed", float(penalty)
    elif isinstance(penalty, str) and penalty in _pen.PENALTIES:
        rule, pen = penalty, None
    else:
        raise InvalidValueError(f"unknown penalty {penalty!r}; use 'auto', 'mbic', 'bic' or a number")
    if not (alpha is None or alpha == "auto" or (isinstance(alpha, Real) and not isinstance(alpha, bool)
                                                 and 0 < alpha <= 1)):
        raise InvalidValueError(f"alpha must be in (0, 1], 'auto' or None, got {alpha!r}")
    if not (isinstance(wander, Real) and 0 <= wander < 10):
        raise InvalidValueError(f"wander must be a number in [0, 10), got {wander!r}")
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
        raise InvalidValueError(f"detect_changepoints: unknown argument(s) {', '.join(sorted(deprecated))}")
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
    cost = "l2" if opts.cost == "auto" else opts.cost
    fit = _Fit(y, t, opts, cost, _costs.CostChoice(cost, "requested" if opts.cost != "auto" else "light_tails"),
               _noise.NoiseModel(float("nan"), 0.0, float("nan"), float("nan"), model="degenerate"), float("nan"),
               None, None, None, None, None)
    return ChangePointResult(n=y.size, cost=cost, penalty=float("nan"), penalty_rule=opts.rule,
                             noise_scale=float("nan"), min_size=opts.min_size, changepoints=(),
                             info={"cost_requested": opts.cost, "n_candidates": 0, "n_reported": 0},
                             _candidates=(), _fit=fit)


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
                             wander=opts.wander, grid=_r.local_grid(y, tick))
        pen = _pen.criterion_penalty("auto", n)
    else:
        nm = _noise.white(base, tick)
        pen = opts.penalty if opts.rule == "fixed" else _pen.criterion_penalty(opts.rule, n)
    z = base / nm.sigma_lr
    zbar = float(z.mean())
    z -= zbar  # centred prefix sums keep their precision on data far from zero
    cps = fpop(z, pen, opts.min_size)
    v0 = (nm.sigma / nm.sigma_lr) ** 2
    # after the search (its own arrays are freed by then: the peak memory stays ~4 arrays of n values)
    Sz, D2 = prefix_sums(z, 18.0 * v0)
    order, stat, short = eliminate(Sz, D2, cps, nm.kappa, v0, LOCAL_HALO)
    s, p, q = _sig.path_values(stat, short, n, cost, opts.min_size)
    return _Fit(y, t, opts, cost, choice, nm, float(pen), Sz, cps[order], s, p, q, float(zbar))


def _report(fit: _Fit, alpha: float | None, ci_level: float | None) -> ChangePointResult:
    """The result at level ``alpha``: the reported changes with their levels, effect sizes, significance and
    (if asked) intervals. Segments and candidates are built on first access (:class:`ChangePointResult`)."""
    n = fit.y.size
    keep = np.ones(fit.cps.size, dtype=bool) if alpha is None else fit.q <= alpha
    sel = np.argsort(fit.cps[keep], kind="stable")
    idx = fit.cps[keep][sel]
    if fit.cost == "robust":  # the winsorising running median can pull a step's location: refined on the values
        idx = _r.relocate(fit.y, idx, _costs.WIDTH // 2, fit.opts.min_size)
    changes = _changes(fit, idx, fit.s[keep][sel], fit.p[keep][sel], fit.q[keep][sel], ci_level)
    nm = fit.noise
    info = {
        "cost_requested": fit.opts.cost,
        "cost_choice": fit.choice.to_dict(),
        "noise": nm.to_dict(),
        "rho": nm.rho,
        "outlier_fraction": fit.choice.outlier_fraction,
        "n_candidates": int(fit.cps.size),
        "n_reported": len(changes),
        "ci_level_asked": ci_level,
    }
    return ChangePointResult(n=n, cost=fit.cost, penalty=fit.penalty, penalty_rule=fit.opts.rule,
                             noise_scale=float(nm.sigma_lr), min_size=fit.opts.min_size, changepoints=changes,
                             method="fpop", info=info, alpha=alpha, _fit=fit)


def _bounds(idx: np.ndarray, n: int) -> np.ndarray:
    """Segment bounds 0, idx..., n (int64; ``np.r_`` costs more than the rest of a short series' report)."""
    out = np.empty(idx.size + 2, dtype=np.int64)
    out[0] = 0
    out[1:-1] = idx
    out[-1] = n
    return out


def _levels(fit: _Fit, bounds: np.ndarray) -> np.ndarray:
    """Segment levels: means (l2; one vectorised pass) or medians (robust)."""
    if fit.cost == "l2":
        return np.add.reduceat(fit.y, bounds[:-1]) / np.diff(bounds)
    return _r.segment_level_medians(fit.y, bounds)


def _segments(fit: _Fit, idx: np.ndarray) -> tuple[Segment, ...]:
    """Segments between the changes ``idx`` (sorted), with their statistics (one compiled pass)."""
    y, t, n = fit.y, fit.t, fit.y.size
    if n == 0:
        return ()
    bounds = _bounds(idx, n)
    mean, std, med, spread = _r.segment_stats(y, bounds)
    level = mean if fit.cost == "l2" else med
    out = []
    for k in range(bounds.size - 1):
        a, b = int(bounds[k]), int(bounds[k + 1])
        out.append(Segment(start=a, end=b, n=b - a, mean=float(mean[k]), median=float(med[k]), std=float(std[k]),
                           spread=float(spread[k]), level=float(level[k]),
                           start_time=None if t is None else float(t[a]),
                           end_time=None if t is None else float(t[b - 1])))
    return tuple(out)


def _candidates(fit: _Fit) -> tuple[Candidate, ...]:
    """All candidates of the search, strongest first."""
    if fit.cps is None:
        return ()
    k = fit.cps.size
    cps, s, p, q = fit.cps.tolist(), fit.s.tolist(), fit.p.tolist(), fit.q.tolist()
    return tuple(Candidate(cps[i], s[i], p[i], q[i], k - i) for i in range(k - 1, -1, -1))


def _changes(fit: _Fit, idx: np.ndarray, s, p, q, ci_level) -> tuple[ChangePoint, ...]:
    """Reported changes ``idx`` (sorted): levels, effect size, significance and (if asked) location intervals,
    computed for all of them at once."""
    n = fit.y.size
    if idx.size == 0:
        return ()
    bounds = _bounds(idx, n)
    level = _levels(fit, bounds)
    before, after = level[:-1], level[1:]
    delta = after - before
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(before != 0, after / before, np.nan)
        effect = np.abs(delta) / fit.noise.sigma_marg if fit.noise.sigma_marg > 0 else np.full(delta.size, np.inf)
    a, c, b = bounds[:-2], bounds[1:-1], bounds[2:]
    if ci_level is not None:
        Sz = fit.Sz
        dz = (Sz[b] - Sz[c]) / (b - c) - (Sz[c] - Sz[a]) / (c - a)
        lo, hi = location_cis(c, dz, a, b, level=ci_level, min_size=fit.opts.min_size)
        lo, hi = lo.tolist(), hi.tolist()
    else:
        lo = hi = [None] * idx.size
    t = fit.t
    cl, bl, al, dl, rl, el = c.tolist(), before.tolist(), after.tolist(), delta.tolist(), ratio.tolist(), effect.tolist()
    pl, ql, sl = p.tolist(), q.tolist(), s.tolist()
    out = []
    for k in range(idx.size):
        out.append(ChangePoint(
            index=cl[k], before=bl[k], after=al[k], delta=dl[k], ratio=None if rl[k] != rl[k] else rl[k],
            effect=el[k], ci_low=lo[k], ci_high=hi[k], ci_level=ci_level, p_value=pl[k],
            time_s=None if t is None else float(t[cl[k]]),
            ci_time_low=None if (t is None or lo[k] is None) else float(t[lo[k]]),
            ci_time_high=None if (t is None or hi[k] is None) else float(t[hi[k]]),
            q_value=ql[k], statistic=sl[k]))
    return tuple(out)
