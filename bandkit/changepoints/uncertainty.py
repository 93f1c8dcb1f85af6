"""Location confidence intervals of change points, in closed form (O(1) per change).

For a jump of ``delta`` long-run noise SDs between two segments, the least-squares location error times
``delta^2`` converges to the argmax of a two-sided Brownian motion with drift, ``W(s) - |s| / 2`` (Yao 1987;
Bai 1994 for linear processes, where the long-run variance is the one that counts; Bai 1997 for the
regression case). Its distribution function is, for x > 0,

    G(x) = 1 + sqrt(x / (2 pi)) exp(-x / 8) - (x + 5) / 2 Phi(-sqrt(x) / 2) + 3/2 e^x Phi(-3 sqrt(x) / 2)

and G(-x) = 1 - G(x). A level-``L`` interval is ``index +- q / delta^2`` with ``q`` the (1 + L) / 2 quantile
(q = 11.03 for 95 %), rounded to whole values (at least +-1 when the jump is under 4 SDs, where an error of one
value still has a few per cent probability), and clipped to the neighbouring change points. This replaces the
residual bootstrap of earlier versions: same coverage on generated data (benchmarks/RESULTS_calibration.md),
autocorrelation taken into account through the long-run scale, and no random numbers.

The special functions are written here with :mod:`math` (``erfcx``, ``ndtr``, Kolmogorov's survival function)
rather than imported from scipy.special: importing scipy.special costs 0.2-0.4 s of every ``bandkit report``
of a CI history, which uses nothing else from scipy (``tests/test_uncertainty_math.py`` checks them against
scipy: the Kolmogorov function bit for bit, the others to 1e-13).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

_SQRT_PI = math.sqrt(math.pi)
_SQRT2PI = math.sqrt(2.0 * math.pi)
_SQRT1_2 = math.sqrt(0.5)


def erfcx(x: float) -> float:
    """Scaled complementary error function exp(x^2) erfc(x), for x >= 0 (relative error < 1e-13 up to x = 25,
    an asymptotic series beyond, where erfc underflows)."""
    if x < 25.0:
        return math.exp(x * x) * math.erfc(x)
    u = 1.0 / (2.0 * x * x)  # 1/(x sqrt(pi)) * sum_k (-1)^k (2k-1)!! / (2 x^2)^k
    term, total = 1.0, 1.0
    for k in range(1, 12):
        term *= -(2 * k - 1) * u
        total += term
    return total / (x * _SQRT_PI)


def ndtr(x: float) -> float:
    """Standard normal distribution function Phi(x) (erf near 0, erfc in the tails, as scipy.special.ndtr)."""
    z = x * _SQRT1_2
    if abs(z) < _SQRT1_2:
        return 0.5 + 0.5 * math.erf(z)
    y = 0.5 * math.erfc(abs(z))
    return 1.0 - y if z > 0 else y


def kolmogorov_sf(x: float) -> float:
    """Survival function of Kolmogorov's distribution (the supremum of a Brownian bridge's absolute value),
    P(K > x): the two theta-function series of scipy.special.kolmogorov, in the same order of operations (so the
    same value bit for bit: checked in tests), switching at x = 0.82."""
    if x != x:
        return math.nan
    if x <= math.pi / math.sqrt(746 * 8):  # exp() of what the small-x series needs underflows: P(K <= x) = 0
        return 1.0
    if x <= 0.82:  # P(K <= x) = sqrt(2 pi)/x u (1 + u^8 + u^24 + ...), u = exp(-pi^2 / (8 x^2))
        w = _SQRT2PI / x
        logu8 = -math.pi * math.pi / (x * x)
        u = math.exp(logu8 / 8)
        if u == 0:
            cdf = math.exp(logu8 / 8 + math.log(w))
        else:
            u8 = math.exp(logu8)
            p = 1 + math.pow(u8, 3)
            p = 1 + u8 * u8 * p
            p = 1 + u8 * p
            cdf = w * u * p
        return min(max(1 - cdf, 0.0), 1.0)
    v = math.exp(-2 * x * x)  # P(K > x) = 2 (v - v^4 + v^9 - v^16), v = exp(-2 x^2)
    v3 = math.pow(v, 3)
    p = 1 - v3 * v3 * v
    p = 1 - v3 * (v * v) * p
    p = 1 - v3 * p
    return min(max(2 * v * p, 0.0), 1.0)


def argmax_cdf(x: float) -> float:
    """CDF of argmax_s W(s) - |s|/2 (two-sided Brownian motion with drift), see the module docstring."""
    if x < 0:
        return 1.0 - argmax_cdf(-x)
    if x == 0:
        return 0.5
    r = math.sqrt(x)
    # e^x Phi(-3 r / 2) overflows for large x: use erfcx for the product
    tail = 1.5 * 0.5 * erfcx(1.5 * r / math.sqrt(2.0)) * math.exp(x - 1.125 * x)
    return float(1.0 + math.sqrt(x / (2.0 * math.pi)) * math.exp(-x / 8.0)
                 - 0.5 * (x + 5.0) * ndtr(-r / 2.0) + tail)


@lru_cache(maxsize=64)
def argmax_quantile(level: float) -> float:
    """``q`` with G(q) = (1 + level) / 2 (bisection; q(0.95) = 11.03)."""
    target = 0.5 * (1.0 + level)
    lo, hi = 0.0, 1.0
    while argmax_cdf(hi) < target:
        hi *= 2.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if argmax_cdf(mid) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def closed_form_location_ci(index: int, delta_z: float, start: int, end: int, *, level: float = 0.95,
                min_size: int = 1) -> tuple[int, int]:
    """Confidence interval (inclusive indices) for a change at ``index`` between segments ``[start, index)`` and
    ``[index, end)``, for a jump of ``delta_z`` long-run noise SDs (see the module docstring)."""
    lo, hi = location_cis(np.array([index]), np.array([delta_z]), np.array([start]), np.array([end]), level=level,
                          min_size=min_size)
    return int(lo[0]), int(hi[0])


def location_cis(index: np.ndarray, delta_z: np.ndarray, start: np.ndarray, end: np.ndarray, *,
                 level: float = 0.95, min_size: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """:func:`closed_form_location_ci` for arrays of changes at once (int64 arrays of the lower and upper bounds)."""
    index = np.asarray(index, dtype=np.int64)
    d2 = np.square(np.asarray(delta_z, dtype=np.float64))
    q = argmax_quantile(float(level))
    with np.errstate(divide="ignore", invalid="ignore"):
        half = np.where(d2 > 0, q / d2, np.inf)
    span = np.asarray(end) - np.asarray(start)
    w = np.where(np.isfinite(half), np.ceil(half - 0.5), span).astype(np.int64)
    w = np.where(d2 < 16.0, np.maximum(w, 1), w)
    m = max(min_size, 1)
    lo = np.minimum(np.maximum(index - w, np.asarray(start) + m), index)
    hi = np.maximum(np.minimum(index + w, np.asarray(end) - m), index)
    return lo, hi


# ------------------------------- helpers of bandkit.history and bandkit.postmortem (their own gates)

def cusum_p_value(z: np.ndarray, start: int, end: int, scale: float = 1.0) -> float:
    """p-value of the sup-CUSUM statistic of ``z[start:end]`` (noise SD ``scale``): Kolmogorov's
    distribution (supremum of a Brownian bridge); not adjusted for the choice of the stretch."""
    seg = np.asarray(z[start:end], dtype=np.float64)
    m = seg.size
    if m < 2:
        return 1.0
    s = np.cumsum(seg - seg.mean())[:-1]
    t = float(np.max(np.abs(s))) / (scale * np.sqrt(m))
    return kolmogorov_sf(t)


def _best_split(w: np.ndarray, min_size: int) -> np.ndarray:
    """Least-squares single change location in each row of ``w`` (B, L): index in 1..L-1."""
    L = w.shape[1]
    cs = np.cumsum(w, axis=1)
    tot = cs[:, -1:]
    k = np.arange(1, L, dtype=np.float64)
    # maximise the between-segment sum of squares S_k^2/k + (S-S_k)^2/(L-k)
    sk = cs[:, :-1]
    gain = sk * sk / k + (tot - sk) ** 2 / (L - k)
    lo = max(min_size, 1) - 1
    hi = L - max(min_size, 1)
    if hi < lo:
        return np.full(w.shape[0], L // 2)
    return np.argmax(gain[:, lo:hi + 1], axis=1) + lo + 1


def location_ci(z: np.ndarray, index: int, start: int, end: int, *, min_size: int = 1,
                level: float = 0.95, n_boot: int = 200, max_window: int = 2000,
                rng: np.random.Generator | None = None) -> tuple[int, int]:
    """Residual-bootstrap confidence interval (inclusive indices; Huskova & Kirch 2008) for a change at
    ``index`` between segments ``z[start:index]`` and ``z[index:end]`` of a standardised series ``z``: the two
    segments rebuilt from their levels plus residuals resampled within each side (in a window of
    ~40 (sigma/delta)^2 values, at most ``max_window``), the change re-located by least squares, the basic
    interval from the displacements. Used by :mod:`bandkit.history` and :mod:`bandkit.postmortem`;
    :func:`detect_changepoints` uses the closed form :func:`location_cis`."""
    rng = np.random.default_rng(0) if rng is None else rng
    left = z[start:index]
    right = z[index:end]
    ml, mr = left.mean(), right.mean()
    delta = abs(mr - ml)
    resid = np.concatenate([left - ml, right - mr])
    sd = float(np.std(resid)) or 1.0
    reach = 40.0 * (sd / delta) ** 2 if delta > 0 else np.inf
    W = int(min(max_window, max(20.0, np.ceil(reach))))
    wa = max(start, index - W)
    wb = min(end, index + W)
    el = z[wa:index] - ml
    er = z[index:wb] - mr
    nl, nr = el.size, er.size
    boot = np.empty((n_boot, nl + nr))
    boot[:, :nl] = ml + el[rng.integers(0, nl, size=(n_boot, nl))]
    boot[:, nl:] = mr + er[rng.integers(0, nr, size=(n_boot, nr))]
    est = wa + _best_split(boot, min_size)
    d = est - index
    alpha = 1.0 - level
    q_lo = int(np.quantile(d, alpha / 2, method="lower"))
    q_hi = int(np.quantile(d, 1 - alpha / 2, method="higher"))
    lo = max(start + min_size, index - q_hi, start + 1)
    hi = min(end - min_size, index - q_lo, end - 1)
    lo = min(lo, index)
    hi = max(hi, index)
    return int(lo), int(hi)
