"""The noise model of a run sequence: how far run means scatter around their level, how much of
that scatter persists from run to run, and the smallest scatter the measurement can resolve.

All scales are on ``x = log(run mean)``, i.e. relative (0.01 = 1 %).

- ``sigma``: robust sd of a run mean around its level (:func:`robust_sd` of the residuals from
  a segmentation: the scale of isolated deviations; outliers are judged against it), at most 1.5
  times the neighbour scale (:func:`neighbour_scale`), or than the sd inside two clearly separate
  groups of values (:func:`two_level_sd`) - scales that levels alternating run by run do not
  inflate - never below the ``floor``. (``classify`` keeps the two-group scale only when it reports
  two levels or more; with one level the noise is that level's own spread.)
- ``rho``: robust lag-1 autocorrelation of those residuals (0..0.95); ``sigma_lr = sigma x
  sqrt((1 + rho) / (1 - rho))`` is the long-run sd that a mean of many consecutive runs has
  under AR(1) noise - the scale of tests on block means (steps, episodes, drifts).
- ``floor``: the largest of ``noise_floor`` (default 0.2 %), half the quantisation step of the
  values (``tick / level / 2``: whole-millisecond timings of a 2 ms test cannot resolve less than
  25 %; with that floor a value one tick off is never far, and levels one tick apart are
  rounding, not bands), and the within-run standard error of a run mean (``within``, from runs
  with several values: the run-to-run scatter can not be smaller than each run's own sampling
  error).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..changepoints.fpop import LISTS_MAX as FPOP_LISTS_MAX, fpop, op_lists, op_many
from ..changepoints.penalty import long_run_factor
from ..robust import SORT_MAX, detect_tick, distinct, median  # noqa: F401  (detect_tick re-exported: the noise inputs of a run sequence)

_MAD = 1.482602218505602


@dataclass(frozen=True)
class RunNoise:
    """Noise of a run sequence (relative, see the module docstring)."""

    sigma: float
    sigma_lr: float
    rho: float
    floor: float
    tick_rel: float | None = None
    within: float | None = None
    two_level: float | None = None  # (the sd inside two groups of values that capped sigma, if any)

    def to_dict(self) -> dict:
        return {"sigma": self.sigma, "sigma_long_run": self.sigma_lr, "rho": self.rho, "floor": self.floor,
                "tick_rel": self.tick_rel, "within_run": self.within}


def mean(a: np.ndarray) -> float:
    """``float(np.mean(a))``, bit for bit: for a non-empty 1-D float64 array numpy's pairwise sum divided by
    the count, without np.mean's per-call overhead (~5 us of ~7); anything else by np.mean itself."""
    if a.dtype != np.float64 or a.ndim != 1 or not a.size:
        return float(np.mean(a))
    return float(np.add.reduce(a) / a.size)


def std(a: np.ndarray) -> float:
    """``float(np.std(a))`` (ddof 0), bit for bit: for a non-empty 1-D float64 array the steps of numpy's
    ``_var`` (pairwise sums, the squared deviations from the mean, a correctly rounded square root) without
    its per-call overhead; anything else by np.std itself."""
    if a.dtype != np.float64 or a.ndim != 1 or not a.size:
        return float(np.std(a))
    d = a - np.add.reduce(a) / a.size
    return math.sqrt(float(np.add.reduce(d * d) / a.size))


def clip_to(a: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """``np.clip(a, lo, hi)`` of a float array and scalar bounds: np.maximum then np.minimum (the clip ufunc's
    own max-then-min, NaN kept) without np.clip's ~4 us of wrappers; np.clip itself when a bound is 0 (where
    the two may keep a different sign of a zero)."""
    if lo and hi:
        return np.minimum(np.maximum(a, lo), hi)
    return np.clip(a, lo, hi)


def within_run_se(values: np.ndarray, runs: np.ndarray) -> float | None:
    """Median standard error of a run mean from the spread of values within runs (relative to the
    run mean), over runs with at least 2 values; None without such runs."""
    v = np.asarray(values, dtype=np.float64)
    r = np.asarray(runs)
    if v.size == 0:
        return None
    if not (r[1:] >= r[:-1]).all():  # (the runner loaders' rows are in run order already)
        order = np.argsort(r, kind="stable")
        v, r = v[order], r[order]
    new_run = np.empty(r.size, dtype=bool)
    new_run[0] = True
    np.not_equal(r[1:], r[:-1], out=new_run[1:])
    starts = np.flatnonzero(new_run)
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:]
    ends[-1] = v.size
    counts = ends - starts
    if not (counts >= 2).any():
        return None
    sums = np.add.reduceat(v, starts)
    means = sums / counts
    d = v - np.repeat(means, counts)
    dev2 = np.add.reduceat(d * d, starts)  # (x ** 2 is numpy's square: x * x)
    ok = (counts >= 2) & (means > 0)
    if not ok.any():
        return None
    sd = np.sqrt(dev2[ok] / (counts[ok] - 1)) / means[ok]
    return float(median(sd / np.sqrt(counts[ok])))


#: Median of min(|z_i - z_i-1|, |z_i - z_i+1|) for i.i.d. standard normal z (simulated, 2e6 draws).
_NN_MEDIAN = 0.5481
#: The residual scale is capped at this many neighbour scales (AR(1) with rho 0.5 shrinks the
#: neighbour scale to 0.67 of the marginal sd, so the cap does not bite there).
NEIGHBOUR_CAP = 1.5


#: Share of the residuals tied at their median from which :func:`robust_sd` takes them as quantised (on a clock
#: tick) and interpolates their MAD in its grid cell.
TIED_SHARE = 0.05


def neighbour_scale(x: np.ndarray) -> float:
    """Noise sd from each run's distance to the nearer of its two neighbours in run order (median,
    Gaussian-consistent): runs that switch between levels mostly have a neighbour at their own
    level, so - unlike residuals from a segmentation that cannot follow short blocks - this scale
    stays at the noise when a series alternates between two levels. (On a clock tick with noise of one tick,
    about half the runs have a neighbour on their own tick and this median can be 0; interpolated in its grid
    cell it stopped capping the noise of sub-tick series whose runs sit on one tick but for a minority level,
    where the residual scale is inflated by that level: two-level power lost 11 of 2,400 cases. So it stays as it
    is, and :func:`estimate_noise` takes a 0 here as "a tick or less" and caps with scales that a minority level
    does not inflate - benchmarks/RESULTS_calibration.md, branch tick1.)"""
    if x.size < 3:
        return math.inf
    d = np.minimum(np.abs(x[1:-1] - x[:-2]), np.abs(x[1:-1] - x[2:]))
    return float(median(d)) / _NN_MEDIAN


def _one_sided_tick_sd(r: np.ndarray, tick_rel: float | None) -> float:
    """Gaussian sd of values ``r`` on a clock tick of ``tick_rel`` (centred on their median) from the share ``q`` of
    them more than half a tick above it or below it, whichever side holds fewer: ``tick_rel / 2 / z(1 - q)``. A
    minority level sits on one side only (sub-tick noise beside a level 2-3 ticks away: ~1 tick from both sides
    pooled, under half a tick from the other side); 0 without a tick or with no value off the median's tick on a
    side."""
    if not tick_rel or r.size < 4:
        return 0.0
    half = 0.5 * tick_rel
    q = min(np.count_nonzero(r > half), np.count_nonzero(r < -half)) / r.size
    if q <= 0.0:
        return 0.0
    from statistics import NormalDist  # (here: statistics imports fractions and decimal, ~2-3 ms a process, and
    # only a series on a clock tick with half its runs on a neighbour's tick comes this far)

    return half / NormalDist().inv_cdf(1.0 - q) if q < 0.5 else math.inf


def _grouped_mad(r: np.ndarray) -> float:
    """1.4826 x the MAD of quantised ``r`` interpolated inside its grid cell (grouped-data median;
    :func:`bandkit.changepoints.robust.robust_sd`: the grid is the smallest non-zero deviation)."""
    from ..changepoints.robust import robust_sd as grouped  # (numba's module: only quantised residuals need it)

    return grouped(r)


def two_level_sd(x: np.ndarray, min_share: float, min_count: int, separation: float) -> float | None:
    """Pooled robust sd inside the two groups of the best split of the sorted values (least squares,
    exact), when the split is a clear two-level structure: each group holds ``min_share`` of the
    values and ``min_count`` of them, and the groups are ``separation`` pooled sds apart; None
    otherwise. Levels that alternate run by run inflate every time-based scale; this one is not."""
    split = two_group_split(x, min_share, min_count)
    if split is None:
        return None
    gap, sd = split
    if sd <= 0 or gap < separation * sd:
        return None
    return sd


def best_split(x: np.ndarray, min_share: float, min_count: int) -> tuple[np.ndarray, int, float] | None:
    """The best least-squares split of the sorted values into two groups of ``min_share`` of the values
    and ``min_count`` of them at least (exact): (sorted values, size of the lower group, within-group sum
    of squares); None when no split has that."""
    n = x.size
    if n < 2 * min_count:
        return None
    v = np.sort(x)
    c1 = v.cumsum()
    c2 = (v * v).cumsum()
    k = np.arange(1, n)
    lo = max(min_count, int(math.ceil(min_share * n)))
    if n - lo < lo:
        return None
    sse = (c2[:-1] - c1[:-1] ** 2 / k) + ((c2[-1] - c2[:-1]) - (c1[-1] - c1[:-1]) ** 2 / (n - k))
    sse[: lo - 1] = np.inf
    sse[n - lo:] = np.inf
    j = int(sse.argmin()) + 1
    return v, j, float(sse[j - 1])


def two_group_split(x: np.ndarray, min_share: float, min_count: int) -> tuple[float, float] | None:
    """(median gap, pooled robust sd) of the two groups of :func:`best_split`; None when no split has
    ``min_count`` values a side."""
    split = best_split(x, min_share, min_count)
    if split is None:
        return None
    v, j, _ = split
    a, b = v[:j], v[j:]
    sd = math.sqrt((robust_sd(a) ** 2 * a.size + robust_sd(b) ** 2 * b.size) / v.size)
    return float(median(b)) - float(median(a)), sd


def two_group_t(x: np.ndarray, min_share: float, min_count: int) -> float | None:
    """The two-group statistic of ``x``: (mean gap) / (pooled within-group sd, n - 2 degrees of freedom)
    at :func:`best_split` - Engelman and Hartigan's (1969) test of a two-group split, as a t; its null
    distribution by number of values: ``benchmarks/two_level_null.py``. None when no split has
    ``min_count`` values a side; inf when both groups are constant."""
    split = best_split(x, min_share, min_count)
    if split is None:
        return None
    v, j, sse = split
    gap = mean(v[j:]) - mean(v[:j])
    sd = math.sqrt(max(sse, 0.0) / (v.size - 2))
    return gap / sd if sd > 0 else math.inf


def quantiles(a: np.ndarray, qs: tuple[float, ...]) -> list[float]:
    """``np.quantile(a, qs)`` (method "linear") of a 1-D float64 array without NaN: the same virtual
    indices ``(n - 1) q``, neighbours in sorted order and interpolation (numpy's ``_lerp``: from the lower
    neighbour below gamma 0.5, from the upper one from 0.5 on), in Python floats - the same numbers but
    for the sign of a zero (a sort and numpy's partition may order -0.0 and 0.0 differently; equal in
    every comparison) - without np.quantile's ~60 us a call (robust scales of quantised residuals: ~170
    calls in ``bandkit compare`` of two 60-benchmark files; its bootstrap intervals); anything else by
    np.quantile itself. The neighbours are the order statistics of a sort (up to ``SORT_MAX`` values: the
    robust scales' ~20 residuals) or of one ``np.partition`` (a bootstrap's 2,000 ratios: ~1/3 of a sort)."""
    n = a.size
    if a.dtype != np.float64 or a.ndim != 1 or n < 2 or np.isnan(a).any():
        return [float(v) for v in np.quantile(a, list(qs))]
    spots = []
    for q in qs:
        vi = (n - 1) * float(q)
        lo = min(math.floor(vi), n - 1)  # (q = 1: both neighbours the largest value, as numpy takes them)
        spots.append((vi, lo, min(lo + 1, n - 1)))
    s = np.sort(a) if n <= SORT_MAX else np.partition(a, sorted({k for _, lo, hi in spots for k in (lo, hi)}))
    out = []
    for vi, lo, hi in spots:
        g = vi - lo
        a0, b0 = float(s[lo]), float(s[hi])
        d = b0 - a0
        out.append(b0 - d * (1 - g) if g >= 0.5 else a0 + d * g)
    return out


#: Up to this many values the p-value and medians of a reported suspect are computed on Python lists (a sorted()
#: of ~20 floats costs less than the numpy calls of a median).
LISTS_MAX = 64


def median_list(v: list) -> float:
    """``float(np.median(a))`` of a non-empty list of finite floats (as :func:`bandkit.robust.median`: the
    middle value, or the mean of the two middle ones, from +0.0)."""
    s = sorted(v)
    h = len(s) // 2
    return 0.0 + s[h] if len(s) % 2 else (0.0 + s[h - 1] + s[h]) / 2.0


def robust_sd(r: np.ndarray) -> float:
    """Robust sd of residuals: 1.4826 x MAD; for quantised residuals (a quarter or more of them
    exactly at the median, as when most values sit on one clock tick and some one tick off: MAD 0
    or a whole tick) the larger of that and the sd of the central 90 % (/ 0.7894, its value for
    Gaussian noise); between :data:`TIED_SHARE` and a quarter at the median with at most half the residuals
    distinct (noise of 1.5 to ~10 ticks), the MAD interpolated inside its grid cell (grouped-data median, :func:`bandkit.changepoints.robust.robust_sd`):
    the plain MAD of noise of 2 ticks is one whole tick, 0.74 sd, and made 35-90 % of Gaussian series of
    300-10,000 runs at 2 ticks "outlier runs" (benchmarks/outlier_null.py --long)."""
    r = np.asarray(r, dtype=np.float64)
    if r.size < 2:
        return 0.0
    if r.size <= LISTS_MAX:
        mad = _mad_list(r.tolist())
        if mad is not None:
            return mad
    med = median(r)
    mad = _MAD * float(median(np.abs(r - med)))
    tied = np.count_nonzero(r == med)
    if mad > 0 and tied < 0.25 * r.size:
        # (ties at the median alone are no grid: each segment's median run has a residual of exactly 0; values on a
        # clock tick also repeat, at most half of them distinct)
        quantised = tied >= TIED_SHARE * r.size and distinct(r).size <= r.size // 2
        return _grouped_mad(r) if quantised else mad
    lo, hi = quantiles(r, (0.05, 0.95))
    core = r[(r >= lo) & (r <= hi)]
    return max(mad, std(core) / 0.7894 if core.size > 1 else 0.0)


def _mad_list(v: list) -> float | None:
    """:func:`robust_sd`'s 1.4826 x MAD of the finite floats ``v`` on a list (the same middle values and the same
    operations as on the array: bit-equal), when it is its answer (MAD > 0, under a quarter of the values at the
    median and not quantised); None otherwise (a NaN or an infinity, or quantised residuals: the array path
    decides)."""
    total = sum(v)
    if total - total != 0.0:  # (NaN or +-inf among them)
        return None
    n = len(v)
    med = median_list(v)
    mad = _MAD * median_list([abs(x - med) for x in v])
    tied = v.count(med)
    # (robust_sd's test, on the list: quantised only with TIED_SHARE tied at the median and at most half the
    # values distinct - a set counts -0.0 and 0.0 as one value, as robust.distinct does)
    if mad > 0 and tied < 0.25 * n and (tied < TIED_SHARE * n or len(set(v)) > n // 2):
        return mad
    return None


def lag1(resid: np.ndarray) -> float:
    """Robust lag-1 autocorrelation of residuals (Gnanadesikan-Kettenring: the scales of the sums and
    the differences of neighbours), clipped to [0, 0.95]; the scales are :func:`robust_sd`, so that
    quantised residuals (most neighbours equal, as on a clock-tick grid: MAD of the differences 0)
    do not read as rho = 1 - which made a x0.66 step at tick 10 "outliers" (test_calibration).
    Equal to :func:`bandkit.changepoints.penalty.robust_lag1` when the residuals are not tied."""
    r = np.asarray(resid, dtype=np.float64)
    if r.size < 10:
        return 0.0
    if r.size <= LISTS_MAX:  # (on lists: the same sums, differences and MADs without four numpy calls)
        return lag1_list(r.tolist())
    return _lag1_of(robust_sd(r[:-1] + r[1:]), robust_sd(r[:-1] - r[1:]))


def robust_sd_list(v: list) -> float:
    """:func:`robust_sd` of the floats ``v``: the lists' MAD where that is its answer (:func:`_mad_list`), else
    robust_sd of their array."""
    s = _mad_list(v)
    return robust_sd(np.array(v)) if s is None else s


def lag1_list(r: list) -> float:
    """:func:`lag1` of the residuals ``r`` given as a list of floats: the element-wise sums and differences of
    neighbours are numpy's floats, their scales :func:`robust_sd_list`."""
    if len(r) < 10:
        return 0.0
    a, b = r[:-1], r[1:]
    return _lag1_of(robust_sd_list([u + v for u, v in zip(a, b)]), robust_sd_list([u - v for u, v in zip(a, b)]))


def segment_medians(x: np.ndarray, cps: np.ndarray) -> np.ndarray:
    """Per-point median of the segment it lies in (segments start at 0 and at ``cps``)."""
    bounds = [0, *np.asarray(cps, dtype=np.int64).tolist(), x.size]  # (Python ints: no np.r_, ~25 us a call)
    out = np.empty_like(x)
    for a, b in zip(bounds[:-1], bounds[1:]):
        out[a:b] = median(x[a:b])
    return out


def _float_list(a: np.ndarray, n_min: int, n_max: int) -> list | None:
    """``a.tolist()`` when ``a`` is a 1-D float64 array of ``n_min``..``n_max`` finite values, else None (the
    array path decides)."""
    if a.dtype != np.float64 or a.ndim != 1 or not n_min <= a.size <= n_max:
        return None
    v = a.tolist()
    total = sum(v)
    return v if total - total == 0.0 else None  # (a NaN or an infinity: not finite)


def _segment_residuals(v: list, cps) -> list:
    """``v`` minus the median of its segment (segments start at 0 and at ``cps``), on lists: the floats of
    ``x - segment_medians(x, cps)``."""
    out = []
    a = 0
    for b in (*cps, len(v)):
        seg = v[a:b]
        if seg:
            m = median_list(seg)
            out.extend([u - m for u in seg])
        a = b
    return out


class OPAsk:
    """A request of the post-mortem's generators (:func:`fpop_cps_steps`, :func:`estimate_noise_steps` and the
    classification built on them): the change points of ``y`` (a list of finite floats) by :func:`op_lists` at
    ``penalty`` with segments of ``min_size`` runs or more, FPOP's where that declines (:func:`answer_ops`)."""
    __slots__ = ("y", "penalty", "min_size")

    def __init__(self, y: list, penalty: float, min_size: int):
        self.y, self.penalty, self.min_size = y, float(penalty), int(min_size)


class NoiseIterAsk:
    """A request of :func:`estimate_noise_steps`: one iteration of the noise model on lists (:func:`_iterate_lists`
    of ``xl``, ``xcl``, ``s``, ``penalty``), answered with its (robust sd, lag-1 correlation) by :func:`answer_ops`
    (those of many series at once: :func:`_iterations_many`)."""
    __slots__ = ("xl", "xcl", "s", "penalty")

    def __init__(self, xl: list, xcl: list, s: float, penalty: float):
        self.xl, self.xcl, self.s, self.penalty = xl, xcl, s, penalty


#: From this many requests of one ``min_size`` :func:`answer_ops` runs them as one padded pass (:func:`op_many`,
#: ~0.2 ms for ~20 runs whatever the rows); below, :func:`op_lists` row by row (~30 us a row).
OP_MANY_MIN = 8


def answer_ops(asks: list) -> list:
    """The change points (lists of ints) that the :class:`OPAsk` requests ``asks`` ask for: :func:`op_lists` of
    each (those of one ``min_size``, :data:`OP_MANY_MIN` or more, together by :func:`op_many`: the same lists),
    and ``fpop`` of the values where op_lists declines (a near-tie on the optimal path); the (robust sd, lag-1) of
    the :class:`NoiseIterAsk` among them (:data:`OP_MANY_MIN` or more: :func:`_iterations_many`)."""
    out: list = [None] * len(asks)
    iters = [i for i, a in enumerate(asks) if type(a) is NoiseIterAsk]
    if iters:
        got = _iterations_many([asks[i] for i in iters]) if len(iters) >= OP_MANY_MIN else \
            [answer_op(asks[i]) for i in iters]
        for i, r in zip(iters, got):
            out[i] = r
    by_size: dict[int, list[int]] = {}
    for i, a in enumerate(asks):
        if type(a) is not NoiseIterAsk:
            by_size.setdefault(a.min_size, []).append(i)
    for ms, idx in by_size.items():
        if len(idx) >= OP_MANY_MIN:
            got = op_many([asks[i].y for i in idx], [asks[i].penalty for i in idx], ms)
            for i, cps in zip(idx, got):
                out[i] = _or_fpop(cps, asks[i].y, asks[i].penalty, ms)
        else:
            for i in idx:
                out[i] = answer_op(asks[i])
    return out


def _or_fpop(cps, y: list, penalty: float, min_size: int) -> list:
    """``cps``, the change points :func:`op_lists` (or :func:`op_many`) found for ``y``, or FPOP's where it declined
    (None: a near-tie on the optimal path)."""
    return fpop(np.array(y), penalty, min_size).tolist() if cps is None else cps


def drive(steps, answer_one):
    """Drive the generator ``steps`` to its end, sending each of its requests ``answer_one(request)``: its return
    value."""
    try:
        ask = next(steps)
        while True:
            ask = steps.send(answer_one(ask))
    except StopIteration as stop:
        return stop.value


def answer_op(a) -> list:
    """:func:`answer_ops` of the one request ``a``."""
    if type(a) is NoiseIterAsk:
        return _iterate_lists(a.xl, a.xcl, a.s, a.penalty)
    return _or_fpop(op_lists(a.y, a.penalty, a.min_size), a.y, a.penalty, a.min_size)


def run_ops(steps):
    """Drive a generator that yields :class:`OPAsk` requests to its end, answering each as it comes
    (:func:`answer_ops`): its return value."""
    return drive(steps, answer_op)


def fpop_cps(y: np.ndarray, penalty: float, min_size: int) -> list[int]:
    """``fpop(y, penalty, min_size).tolist()``; for 2 ``min_size`` .. ``fpop.LISTS_MAX`` finite float64 values and
    a finite penalty >= 0 (fpop's own checks) its plain optimal partitioning on ``y``'s list directly, which is
    where fpop starts (FPOP itself where that declines), without fpop's array checks and arrays."""
    return run_ops(fpop_cps_steps(y, penalty, min_size))


def fpop_cps_steps(y: np.ndarray, penalty: float, min_size: int):
    """:func:`fpop_cps` as a generator: where it runs :func:`op_lists` it yields an :class:`OPAsk` and is sent the
    change points (:func:`answer_ops`); returns them."""
    yl = _float_list(y, 2 * min_size, FPOP_LISTS_MAX) if min_size >= 1 else None
    if yl is not None and penalty >= 0 and math.isfinite(penalty):
        return (yield OPAsk(yl, penalty, min_size))
    return fpop(y, penalty, min_size).tolist()


def clipped_residuals(x: np.ndarray, cps: list, lo: float, hi: float) -> list | None:
    """``clip_to(x - segment_medians(x, cps), lo, hi).tolist()`` on lists (the same medians, subtractions and
    max-then-min), for 1..``LISTS_MAX`` finite float64 values and finite non-zero bounds; None otherwise."""
    if not (lo and hi and math.isfinite(lo) and math.isfinite(hi)):
        return None
    xl = _float_list(x, 1, LISTS_MAX)
    return None if xl is None else [min(max(v, lo), hi) for v in _segment_residuals(xl, cps)]


def _iteration_lists(x: np.ndarray, xc: np.ndarray, penalty: float) -> tuple[list, list] | None:
    """``x`` and its centred values ``xc`` as lists for :func:`_iterate_lists`, when that is estimate_noise's
    iteration: float64 values, all finite, 4..``fpop.LISTS_MAX`` of them, a finite penalty >= 0 (else None: the
    array path, and fpop's own checks)."""
    if not (penalty >= 0 and math.isfinite(penalty)):
        return None
    n_max = min(LISTS_MAX, FPOP_LISTS_MAX)
    xl = _float_list(x, 4, n_max)
    xcl = _float_list(xc, 4, n_max) if xl is not None else None
    return None if xcl is None else (xl, xcl)


def _iterate_lists(xl: list, xcl: list, s: float, penalty: float) -> tuple[float, float]:
    """One iteration of :func:`estimate_noise` on lists: (robust sd, lag-1 correlation) of the residuals of ``x``
    from the medians of the segments that ``fpop(xc / s, penalty, 2)`` finds - the same floats as the array path
    (the same divisions, subtractions and middle values; :func:`robust_sd` and :func:`lag1` on arrays where the
    lists' MAD is not their answer) without its ~20 numpy calls."""
    y = [v / s for v in xcl]
    cps = op_lists(y, penalty, 2)
    if cps is None:  # (a near-tie on the path: FPOP decides)
        cps = fpop(np.array(y), penalty, 2).tolist()
    resid = _segment_residuals(xl, cps)
    return robust_sd_list(resid), lag1_list(resid)


def _iterate_lists_steps(xl: list, xcl: list, s: float, penalty: float):
    """:func:`_iterate_lists` as a generator: the iteration asked for (a :class:`NoiseIterAsk`, answered by
    :func:`answer_ops`: those of a file's series at once)."""
    return (yield NoiseIterAsk(xl, xcl, s, penalty))


def _iterations_many(asks: list) -> list:
    """``[_iterate_lists(a.xl, a.xcl, a.s, a.penalty) for a in asks]``, the same floats: the segmentations by
    :func:`op_many` (FPOP where op_lists declines), then, for the series of one length, the residuals from the
    segment medians (one sort of every row by segment and value: the same middle values), their MADs and those of
    the sums and differences of neighbours (:func:`_mad_rows`: :func:`_mad_list`'s steps on the rows; the array
    path of :func:`robust_sd` for a row where that declines) at once."""
    out: list = [None] * len(asks)
    ys = [[v / a.s for v in a.xcl] for a in asks]
    cps_all = [_or_fpop(c, y, a.penalty, 2) for c, y, a in zip(op_many(ys, [a.penalty for a in asks], 2), ys, asks)]
    by_n: dict[int, list[int]] = {}
    for i, a in enumerate(asks):
        by_n.setdefault(len(a.xl), []).append(i)
    for n, idx in by_n.items():
        R = _segment_residual_rows(np.array([asks[i].xl for i in idx], dtype=np.float64).reshape(len(idx), n),
                                   [cps_all[i] for i in idx])
        sig = _robust_rows(R)
        if n < 10:  # (lag1_list of fewer than 10 residuals)
            rho = [0.0] * len(idx)
        else:
            plus, minus = _robust_rows(R[:, :-1] + R[:, 1:]), _robust_rows(R[:, :-1] - R[:, 1:])
            rho = [_lag1_of(a, b) for a, b in zip(plus, minus)]
        for k, i in enumerate(idx):
            out[i] = (sig[k], rho[k])
    return out


def _segment_residual_rows(X: np.ndarray, cps: list) -> np.ndarray:
    """:func:`_segment_residuals` of each row of ``X`` (B x n, finite) with its change points ``cps[row]``: each
    value minus the median of its segment (the middle value, or the mean of the two middle ones from +0.0)."""
    B, n = X.shape
    ind = np.zeros((B, n), dtype=np.int64)
    rr = [r for r, c in enumerate(cps) for _ in c]
    if rr:
        ind[rr, [k for c in cps for k in c]] = 1
    S = np.cumsum(ind, axis=1)  # (the segment of each value)
    XS = np.take_along_axis(X, np.lexsort((X, S), axis=-1), axis=1)  # (each segment sorted in its own place)
    pos = np.arange(n)[None, :]
    new = np.ones((B, n), dtype=bool)
    new[:, 1:] = S[:, 1:] != S[:, :-1]
    last = np.ones((B, n), dtype=bool)
    last[:, :-1] = new[:, 1:]
    start = np.maximum.accumulate(np.where(new, pos, 0), axis=1)
    end = np.minimum.accumulate(np.where(last, pos + 1, n)[:, ::-1], axis=1)[:, ::-1]
    L = end - start
    rows = np.arange(B)[:, None]
    lo, hi = XS[rows, start + (L - 1) // 2], XS[rows, start + L // 2]
    return X - np.where(L % 2 == 1, 0.0 + hi, (0.0 + lo + hi) / 2.0)


def _mad_rows(R: np.ndarray) -> list:
    """:func:`_mad_list` of each row of ``R`` (B x n float64) - the same middle values (a stable sort), tie count,
    distinct count (-0.0 and 0.0 one value, as a set has them) and tests: its MAD, or None where it declines."""
    with np.errstate(over="ignore", invalid="ignore"):  # (a row with a NaN or an infinity: declined below)
        return _mad_rows_of(R)


def _mad_rows_of(R: np.ndarray) -> list:
    n = R.shape[1]
    ok = np.isfinite(np.cumsum(R, axis=1)[:, -1])  # (sum(v) finite: no NaN, no infinity on the way)
    s = np.sort(R, axis=1, kind="stable")
    h = n // 2
    med = 0.0 + s[:, h] if n % 2 else (0.0 + s[:, h - 1] + s[:, h]) / 2.0
    d = np.sort(np.abs(R - med[:, None]), axis=1, kind="stable")
    mad = _MAD * (0.0 + d[:, h] if n % 2 else (0.0 + d[:, h - 1] + d[:, h]) / 2.0)
    tied = np.count_nonzero(R == med[:, None], axis=1)
    distinct_n = 1 + np.count_nonzero(s[:, 1:] != s[:, :-1], axis=1)
    good = ok & (mad > 0) & (tied < 0.25 * n) & ((tied < TIED_SHARE * n) | (distinct_n > n // 2))
    return [m if g else None for m, g in zip(mad.tolist(), good.tolist())]


def _robust_rows(R: np.ndarray) -> list:
    """:func:`robust_sd_list` of each row of ``R`` (at least 2 columns): :func:`_mad_rows`, else the array path."""
    return [robust_sd(R[i].copy()) if m is None else m for i, m in enumerate(_mad_rows(R))]


def _lag1_of(s_plus: float, s_minus: float) -> float:
    """:func:`lag1` from the robust scales of the sums and the differences of neighbours."""
    if s_plus + s_minus <= 0:
        return 0.0
    v = (s_plus ** 2 - s_minus ** 2) / (s_plus ** 2 + s_minus ** 2)
    return min(max(v, 0.0), 0.95)  # (np.clip's result on a Python float, NaN and -0.0 included; tested)


def estimate_noise(x: np.ndarray, *, penalty: float, noise_floor: float = 0.002, tick_rel: float | None = None,
                   within: float | None = None, n_iter: int = 4, two_level: tuple | None = None) -> RunNoise:
    """Noise model of ``x`` (log run means): alternate an L2 segmentation (segments of >= 2 runs, so
    that a spike cannot hide in its own segment) at ``penalty`` on ``x / sigma_lr`` and the robust
    scale of its residuals, from the first-difference scale, until the long-run scale settles."""
    return run_ops(estimate_noise_steps(x, penalty=penalty, noise_floor=noise_floor, tick_rel=tick_rel, within=within,
                                        n_iter=n_iter, two_level=two_level))


def estimate_noise_steps(x: np.ndarray, *, penalty: float, noise_floor: float = 0.002, tick_rel: float | None = None,
                         within: float | None = None, n_iter: int = 4, two_level: tuple | None = None):
    """:func:`estimate_noise` as a generator: the segmentation of each iteration on lists is asked for (an
    :class:`OPAsk`, answered by :func:`answer_ops`: the post-mortems of a file segment their series together);
    returns the :class:`RunNoise`."""
    floor = max(noise_floor, (tick_rel / 2.0) if tick_rel else 0.0, within or 0.0)
    n = x.size
    if n < 4:
        s = max(std(x), floor)
        return RunNoise(s, s, 0.0, floor, tick_rel, within)
    xc = x - median(x)  # (the same centred values every iteration)
    lists = _iteration_lists(x, xc, penalty)
    if lists is not None:  # (the first-difference scale on the list: the same differences and middle values)
        xl = lists[0]
        dl = [b - a for a, b in zip(xl, xl[1:])]
        md = median_list(dl)
        s = max(_MAD * median_list([abs(v - md) for v in dl]) / math.sqrt(2.0), floor)
    else:
        d = x[1:] - x[:-1]  # (np.diff's subtraction)
        s = max(_MAD * float(median(np.abs(d - median(d)))) / math.sqrt(2.0), floor)
    sigma, rho = s, 0.0
    nn = neighbour_scale(x)
    mix = two_level_sd(x, *two_level) if two_level else None
    if mix is not None:
        nn = min(nn, mix / NEIGHBOUR_CAP)
    for _ in range(n_iter):
        if lists is not None and s > 0 and nn > 0:
            sigma_r, rho = yield from _iterate_lists_steps(*lists, s, penalty)
            cap = NEIGHBOUR_CAP * nn
        else:
            cps = fpop(xc / s, penalty, 2)
            resid = x - segment_medians(x, cps)
            sigma_r, rho = robust_sd(resid), lag1(resid)
            # half the runs or more on their neighbour's tick (values on a clock tick): the neighbour scale is 0 and
            # says only that the noise is about a tick or less; the cap is then what a minority level does not
            # inflate - the smaller of the residuals' MAD interpolated in its grid cell and the one-sided tick scale
            # of the runs (noise of one tick: ~1 tick; sub-tick noise beside a minority level: the floor as before)
            # (plus the rounding to the tick, tick / sqrt(12), in quadrature: both estimate the noise before it, and a
            # run k ticks away may be k - 1/2 ticks away: noise of 0.7 tick over 3,000 runs, estimated at 0.64-0.73
            # tick, put runs 3 ticks away beyond `far`)
            if nn > 0:
                cap = NEIGHBOUR_CAP * nn
            else:
                tied_sd = min(_grouped_mad(resid), _one_sided_tick_sd(xc, tick_rel))
                cap = math.hypot(tied_sd, (tick_rel or 0.0) / math.sqrt(12.0))
        sigma = max(min(sigma_r, cap), floor)
        s_new = sigma * long_run_factor(rho)
        if math.isclose(s_new, s, rel_tol=1e-3):
            s = s_new
            break
        s = s_new
    return RunNoise(float(sigma), float(s), float(rho), float(floor), tick_rel, within, mix)
