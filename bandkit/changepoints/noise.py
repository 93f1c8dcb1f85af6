"""The noise model of the change-point detector, estimated once in O(n) (no segmentation for stationary data).

Short-range part (an AR(1) model, robust to steps and outliers): the Huber-type scales (:func:`robust.m_scale`)
of the lag-1 and lag-2 differences give the variogram v(1), v(2); for AR(1) noise v(1) = g0 (1 - rho) and
v(2) = g0 (1 - rho^2), so ``rho = v(2) / v(1) - 1`` (clipped to [0, 0.9]), the marginal SD ``sqrt(g0)`` and the
long-run SD ``sigma_lr = sqrt(g0 (1 + rho) / (1 - rho))``, the SD that governs a mean of many values. A level
change moves one difference of each lag (two at lag 2), so even a change every 20 values leaves these scales
almost untouched: the scale neither collapses nor explodes on dense changes. Long series use 65,536 evenly
spaced differences per lag. On quantised data the scales are tie-aware.

Short series (up to ``SPLIT_MAX_N`` = 30 values): the differences across the strongest single split
(:func:`best_split`, the largest two-sample statistic of the series) are left out of both lags. On 20 values
one step is one of 19 lag-1 and two of 18 lag-2 differences; the Huber scale winsorises them at 2.5 robust SDs
but still counts them, so a 20-SD step read as autocorrelation (median rho 0.31) and the long-run scale grew
with it: 1 in 8 such steps was missed. The bias is O(1/n). Up to 100 values the exclusion helped 5-SD steps in
AR(1) noise (67 -> 83 % at 50 values) but its recalibrated table rows (the worst family, t3 + AR 0.5, got
worse) cost 2-SD steps at 50 values 10 points; from 50 values on the estimator and its table rows are the
previous ones. The unit-root decision (below) stays on all the differences: without the one jump a smooth or
trending series (annual GDP, a fertility curve in TCPD) fell under the cap, left the drift guard and got 3-6
changes.

Short series, the unit (``SHORT_MIN_N`` = 20 to ``SHORT_MAX_N`` = 49 values, :func:`short_unit`): even so the two-lag rho of 20
values reads white noise as rho ~ 0.45 in the series that miss a 5-SD step, and the step itself sends a series
to the unit-root branch: bandkit found 50-86 % of 5-SD steps at 20 values where a scan with the pooled
within-segment SD finds 95-99.5 %. So a short series is segmented exactly into 0, 1 and 2 changes
(:func:`segment_fits`) and the BIC picks one (n ln(RSS / n), k + 1 levels and ``LOCATION_BIC`` ln n per location).
If it picks one or two changes, and they explain the series better than the two smooth alternatives (the drift
guard: a straight line must leave at least ``DRIFT_GUARD[k]`` times their residual sum of squares and a worse
BIC; a random-walk level plus noise, :func:`walk_bic`, a BIC worse by ``WALK_GUARD``), the unit is the pooled
SD around them times the long-run factor of their residuals' lag-1 autocorrelation r1 (model "segments"; a
series the rhos sent to the unit-root branch stays there if r1 >= 0.5). Otherwise (no change, a drift, a walk)
the estimate above stands. The r1 of the residuals of 20 values around 1-2 fitted changes is mostly noise
(their residuals absorb the wander: r1 ~ 0 in the t3 + AR 0.5 null series that alarmed, 0.15-0.5 in AR 0.5
series whose 5-SD step was missed), so the unit takes ``r1_weight(n)`` r1: none of it at ``R1_FREE_N`` = 20
values, all of it from ``R1_FULL_N`` = 40 on, linear in between; the table absorbs AR(1) up to 0.5 (at 20
values 5 % steps in AR 0.5 noise 88.5 -> 94 %, no family lower; benchmarks/RESULTS_changepoints.md §10). A ramp fits a drift at least as well as two steps but not an episode or a step;
without the guards the unit made gentle drifts and random walks look like steps (AR 0.5 + 3-SD drift at 30
values 14 -> 21 %, random walk rw=3 23 -> 35 %; benchmarks/RESULTS_changepoints.md §9). The table rows for 20,
30 and 40 values were recalibrated with this estimator; from 50 values on nothing changes. Below 20 values
(thresholds of the 20-value row, not calibrated there) the unit raised null alarms (AR 0.5 at 15 values 0.7 ->
1.4 %), so it starts at 20.

Unit-root branch: when the short lags look like a random walk or a smooth trend (``rho`` at its cap, i.e. v(2)
>= 1.9 v(1)) a long-run SD from two lags is meaningless. The scale then comes from the residuals of a
segmentation, iterated (segment at the current scale with penalty 3 log n, take the residuals from the segment
medians, their robust lag-1 autocorrelation rho_r <= 0.95, sigma = max(difference scale, MAD-scale of the
residuals x sqrt((1 + rho_r) / (1 - rho_r)))), started from the marginal MAD: a trending series keeps a
large scale and only its clear level changes. (This was the previous default for every series; restricted
to trend-like series it no longer hurts dense changes.)

Coarse quantisation: when the values sit mostly on one or two grid points (a clock tick, or for log-quantised
timings the smallest non-zero step, of >= 2 noise SDs), the scales are floored at half the grid step: a run of
two or three values one tick off is then common, not a 3-4 sigma event, and no level difference under half a
tick can be told from rounding (two adjacent values one tick up were a change at p = 0.003 on whole-unit
timings with a tick of 3.3 SDs).

Slow wander: a 1/f component cannot be told from a slow succession of small steps by any statistic of one
series, so the model carries an explicit allowance: ``wander`` = the SD of a 1/f ("pink") component, as a
fraction of the noise SD, that the significance test must tolerate. Its variance at every scale is
``kappa = 3 wander^2 / (ln(n / 2) + 0.58)`` in marginal-variance units (measured on generated 1/f noise of
unit SD over n values: the variance of a difference of adjacent means is flat in the window length), added to
the variance of every difference of segment means.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import robust as _r

RHO_MAX = 0.9  # AR(1) coefficients beyond this are treated as a unit root (see the module docstring)
RHO_RESID_MAX = 0.95
WANDER = 0.3  # default allowance for 1/f wander, as a fraction of the noise SD


@dataclass(frozen=True)
class NoiseModel:
    """Noise of the search series, in value units (robust cost: of the winsorised values).

    ``sigma``: short-range SD (lag-1 differences / sqrt 2); ``rho``: AR(1) coefficient; ``sigma_marg``: marginal
    SD; ``sigma_lr``: long-run SD, the unit of the test statistics; ``tick``: clock tick of quantised values (0:
    continuous); ``wander``: 1/f allowance (fraction of the noise SD) and ``kappa`` its variance per difference
    of segment means in ``sigma_lr^2`` units; ``model``: "ar1", "unit_root" (scale from segmentation residuals,
    ``rho_resid`` their lag-1 autocorrelation), "segments" (series up to 49 values: pooled SD around the 1-2
    changes the BIC picks, ``rho`` the share ``r1_weight(n)`` of their residuals' lag-1 autocorrelation that
    the unit takes, ``sigma_marg`` the pooled SD),
    "white" (explicit penalty: the short-range SD is used) or "degenerate" (constant data: unit scale)."""

    sigma: float
    rho: float
    sigma_marg: float
    sigma_lr: float
    tick: float = 0.0
    wander: float = 0.0
    kappa: float = 0.0
    model: str = "ar1"
    rho_resid: float | None = None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def wander_kappa(wander: float, n: int) -> float:
    """Variance of a difference of adjacent means of 1/f noise with SD ``wander`` over ``n`` values (see the
    module docstring), in units of the noise variance."""
    if wander <= 0 or n < 8:
        return 0.0
    return 3.0 * wander * wander / (math.log(n / 2.0) + 0.58)


SPLIT_MAX_N = 30  # series up to this length leave the differences across their strongest split out (docstring)


def best_split(x: np.ndarray, min_size: int = 2) -> int:
    """Index c (min_size <= c <= n - min_size) of the strongest single level change of ``x``: the split that
    maximises (mean after - mean before)^2 n_before n_after / n (one pass of prefix sums); 0 when the series
    is too short to split."""
    n = x.size
    m = max(int(min_size), 1)
    if n < 2 * m or n < 4:
        return 0
    S = np.cumsum(x - x.mean())
    c = np.arange(m, n - m + 1)
    stat = S[c - 1] ** 2 * n / (c * (n - c))
    return int(c[np.argmax(stat)])


def _variogram(x: np.ndarray, tick: float, split: int = 0) -> tuple[float, float]:
    stride = _r.stride_for(x.size)
    d1 = _r.lag_diffs(x, 1, stride)
    d2 = _r.lag_diffs(x, 2, stride)
    if split > 0 and stride == 1:  # the differences across the strongest split measure the step, not the noise
        d1 = np.delete(d1, [split - 1])
        d2 = np.delete(d2, [i for i in (split - 2, split - 1) if 0 <= i < d2.size])
    s1 = _r.m_scale(d1, tick)
    s2 = _r.m_scale(d2, tick) if d2.size else s1
    if not s1 > 0:  # more than half the differences are 0 and no grid: use the classical SD
        s1 = float(np.std(d1)) if d1.size else 0.0
        s2 = max(s2, float(np.std(d2)) if d2.size else 0.0)
    return s1 * s1 / 2.0, s2 * s2 / 2.0


def short_range(x: np.ndarray, tick: float = 0.0, rho_from: np.ndarray | None = None,
                split: int = 0) -> NoiseModel:
    """AR(1) noise model of ``x`` from its lag-1 / lag-2 variogram (module docstring). ``rho_from``: estimate
    rho on this series instead (the raw values, when ``x`` is winsorised: winsorising around a running median
    changes the short-lag correlation but not the long-run behaviour)."""
    v1, v2 = _variogram(x, tick, split)
    if not v1 > 0:
        return NoiseModel(1.0, 0.0, 1.0, 1.0, tick, model="degenerate")
    if rho_from is not None:
        w1, w2 = _variogram(rho_from, tick, split)
        ratio = w2 / w1 if w1 > 0 else 1.0
    else:
        ratio = v2 / v1
    rho = float(min(max(ratio - 1.0, 0.0), RHO_MAX))
    g0 = v1 / (1.0 - rho)
    return NoiseModel(math.sqrt(v1), rho, math.sqrt(g0), math.sqrt(g0 * (1.0 + rho) / (1.0 - rho)), tick)


def robust_lag1(resid: np.ndarray) -> float:
    """Robust lag-1 autocorrelation (Gnanadesikan-Kettenring with MAD scales), clipped to [0, 0.95]."""
    r = np.asarray(resid, dtype=np.float64)
    if r.size < 10:
        return 0.0
    a, b = r[:-1], r[1:]
    s_plus = _r.robust_sd(a + b)
    s_minus = _r.robust_sd(a - b)
    if s_plus + s_minus <= 0:
        return 0.0
    rho = (s_plus**2 - s_minus**2) / (s_plus**2 + s_minus**2)
    return float(np.clip(rho, 0.0, RHO_RESID_MAX))


def _segment_residuals(x: np.ndarray, cps: np.ndarray) -> np.ndarray:
    bounds = np.r_[0, cps, x.size].astype(np.int64)
    med = _r.segment_level_medians(x, bounds)
    return x - np.repeat(med, np.diff(bounds))


def unit_root_scale(x: np.ndarray, sigma: float, min_size: int, n_iter: int = 3) -> tuple[float, float]:
    """(sigma, rho_r) of the unit-root branch (module docstring): residual long-run SD at the fixed point of
    segmentation (penalty 3 log n) and noise estimation, started from the marginal MAD."""
    from .fpop import fpop

    n = x.size
    pen = 3.0 * math.log(max(n, 2))
    s = max(_r.robust_sd(x), sigma)
    rho = 0.0
    if not s > 0:
        return sigma, 0.0
    for _ in range(n_iter):
        resid = _segment_residuals(x, fpop(x / s, pen, min_size))
        rho = robust_lag1(resid)
        s_new = max(sigma, _r.robust_sd(resid) * math.sqrt((1.0 + rho) / (1.0 - rho)))
        done = abs(s_new - s) <= 1e-3 * s
        s = s_new
        if done:
            break
    return float(s), float(rho)


SHORT_MAX_N = 49  # series up to this length take the unit of their best 0/1/2-change segmentation (docstring)
SHORT_MIN_N = 20  # ... and from this length (the shortest the table was calibrated at)
LOCATION_BIC = 1.0  # BIC charge of a change's location, in ln n (its level is one more parameter)
DRIFT_GUARD = {1: 1.6, 2: 2.3}  # k changes explain the series only if a line leaves this x their residual SS
WALK_GUARD = 3.0  # ... and a random-walk level has a BIC larger by at least this much
WALK_Q = np.array([0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0])  # level / noise variance ratios tried


def walk_bic(x: np.ndarray) -> float:
    """BIC, n ln(sigma^2) + sum ln F_t + 2 ln n, of a random-walk level plus white noise (the local level
    model; Kalman filter started at the first value, the noise variance concentrated out), minimised over the
    signal-to-noise ratios WALK_Q."""
    n = x.size
    a = np.full(WALK_Q.size, float(x[0]))
    P = 1.0 + WALK_Q
    sv = np.zeros(WALK_Q.size)
    sl = np.zeros(WALK_Q.size)
    for t in range(1, n):
        F = P + 1.0
        v = x[t] - a
        K = P / F
        sv += v * v / F
        sl += np.log(F)
        a += K * v
        P = P * (1.0 - K) + WALK_Q
    crit = n * np.log(np.maximum(sv / (n - 1), 1e-300)) + sl + 2.0 * math.log(n)
    return float(crit.min())


def segment_fits(x: np.ndarray, m: int = 2) -> dict:
    """Least-squares fits of a short series: ``{k: (rss, residuals)}`` around its best segmentation into k + 1
    segments (k = 0, 1, 2; each segment >= m values; exact, O(n^2)) and ``"line"``: the residual sum of squares
    around a straight line."""
    n = x.size
    xc = x - x.mean()
    S = np.r_[0.0, np.cumsum(xc)]
    rss0 = float(xc @ xc)
    out: dict = {0: (rss0, xc)}
    c = np.arange(m, n - m + 1)
    if c.size:
        f1 = S[c] ** 2 * n / (c * (n - c))
        a = int(c[np.argmax(f1)])
        r = np.r_[xc[:a] - xc[:a].mean(), xc[a:] - xc[a:].mean()]
        out[1] = (float(r @ r), r)
    if n >= 3 * m:
        c1, c2 = np.meshgrid(np.arange(m, n - 2 * m + 1), np.arange(2 * m, n - m + 1), indexing="ij")
        ok = c2 - c1 >= m
        fit = S[c1] ** 2 / c1 + (S[c2] - S[c1]) ** 2 / np.maximum(c2 - c1, 1) + S[c2] ** 2 / (n - c2)
        k = int(np.argmax(np.where(ok, fit, -np.inf)))
        a, b = int(c1.flat[k]), int(c2.flat[k])
        r = np.concatenate([xc[:a] - xc[:a].mean(), xc[a:b] - xc[a:b].mean(), xc[b:] - xc[b:].mean()])
        out[2] = (float(r @ r), r)
    t = np.arange(n) - (n - 1) / 2.0
    out["line"] = max(rss0 - float(xc @ t) ** 2 / float(t @ t), 0.0)
    out["x"] = x
    return out


def segments_choice(fits: dict, n: int) -> int | str:
    """Number of changes (0, 1, 2) the BIC picks, n ln(RSS / n) + (k + 1 + LOCATION_BIC k) ln n, or ``"line"``
    (the drift guard) when a straight line (2 parameters) has a BIC at most the k changes' or leaves less than
    ``DRIFT_GUARD[k]`` times their residual SS; ``"walk"`` when a random-walk level (:func:`walk_bic`) is
    within ``WALK_GUARD`` of their BIC. (Needs the series: ``fits["x"]``.)"""
    ln = math.log(n)
    crit = {k: n * math.log(max(fits[k][0], 1e-300) / n) + (k + 1 + LOCATION_BIC * k) * ln
            for k in (0, 1, 2) if k in fits}
    k = min(crit, key=crit.get)
    if k and (n * math.log(max(fits["line"], 1e-300) / n) + 2 * ln <= crit[k]
              or fits["line"] < DRIFT_GUARD[k] * fits[k][0]):
        return "line"
    if k and walk_bic(fits["x"]) < crit[k] + WALK_GUARD:
        return "walk"
    return k


R1_FREE_N = 20  # at this length the unit ignores its residuals' r1 ...
R1_FULL_N = 40  # ... from this length on it takes the full long-run factor; linear in between (docstring)


def r1_weight(n: int) -> float:
    """Share of the residuals' lag-1 autocorrelation r1 that enters the short-series unit at ``n`` values."""
    return float(min(max((n - R1_FREE_N) / (R1_FULL_N - R1_FREE_N), 0.0), 1.0))


def short_unit(x: np.ndarray, nm: NoiseModel, min_size: int, tick: float, grid: float,
               wander: float) -> NoiseModel | None:
    """The noise model of a short series with a clear step structure (module docstring, "Short series"), or
    None when the criterion finds no change or a line (a drift) explains the series as well: ``nm`` stays."""
    m = max(int(min_size), 2)
    if x.size < 3 * m + 1:
        return None
    fits = segment_fits(x, m)
    k = segments_choice(fits, x.size)
    if k in ("line", "walk", 0):
        return None
    ss, r = fits[k]
    r1 = float(np.clip(r[:-1] @ r[1:] / ss, 0.0, RHO_MAX)) if ss > 0 else 0.0
    if nm.model == "unit_root" and r1 >= 0.5:  # the steps do not explain the series' memory: a random walk
        return None
    r1 = r1 * r1_weight(x.size)  # on 20 values r1 is noise: the table absorbs AR(1) up to 0.5 (docstring)
    sp = math.sqrt(ss / (x.size - k - 1))  # pooled within-segment SD
    s = sp * math.sqrt((1.0 + r1) / (1.0 - r1))
    if grid > 0:
        s = max(s, min(nm.sigma_marg, 0.5 * grid))
    if not s > 0:
        return None
    return NoiseModel(nm.sigma, r1, min(max(sp, 1e-300), s), s, tick, float(wander), wander_kappa(wander, x.size),
                      "segments")


def estimate(x: np.ndarray, *, tick: float = 0.0, raw: np.ndarray | None = None, min_size: int = 2,
             wander: float = WANDER, grid: float = 0.0) -> NoiseModel:
    """Noise model of the search series ``x`` (``raw``: the values before winsorising, for rho; ``grid``: the
    resolution of coarsely quantised values, :func:`robust.local_grid`: the scales are floored at half of it)."""
    split = best_split(x, min_size) if x.size <= SPLIT_MAX_N else 0
    nm = short_range(x, tick, rho_from=raw, split=split)
    # the unit-root decision stays on all the differences (a smooth series is not taken off its branch)
    rho_full = short_range(x, tick, rho_from=raw).rho if split else nm.rho
    if nm.model == "degenerate":
        return nm
    if grid > 0 and nm.sigma_marg < 0.5 * grid:
        # values mostly on one or two grid points (a tick >= 2 noise SDs): a run of 2-3 values one tick off is
        # common, not a 3-4 sigma event; no level difference under half a tick is told from rounding
        f = 0.5 * grid / nm.sigma_marg
        nm = NoiseModel(nm.sigma * f, nm.rho, nm.sigma_marg * f, nm.sigma_lr * f, tick)
    if max(nm.rho, rho_full) >= RHO_MAX:
        s, rho_r = unit_root_scale(x, nm.sigma, min_size)
        nm = NoiseModel(nm.sigma, nm.rho, s, s, tick, model="unit_root", rho_resid=rho_r)
    if SHORT_MIN_N <= x.size <= SHORT_MAX_N:
        su = short_unit(x, nm, min_size, tick, grid, wander)
        if su is not None:
            return su
    kappa = wander_kappa(wander, x.size) * min(1.0, (nm.sigma_marg / nm.sigma_lr) ** 2)
    return NoiseModel(nm.sigma, nm.rho, nm.sigma_marg, nm.sigma_lr, tick, float(wander), kappa, nm.model,
                      nm.rho_resid)


def white(x: np.ndarray, tick: float = 0.0) -> NoiseModel:
    """White-noise model (explicit penalties): the short-range SD as the unit, no autocorrelation."""
    v1, _ = _variogram(x, tick)
    s = math.sqrt(v1) if v1 > 0 else 1.0
    return NoiseModel(s, 0.0, s, s, tick, model="white" if v1 > 0 else "degenerate")
