"""The few special functions of the runner post-mortem, without importing ``scipy.special`` (≈ 0.2 s of
start-up: its array-API layer and docstring machinery) or ``scipy.ndimage``: a ``bandkit report`` of a
pyperf file calls each of them a few times per benchmark.

- :func:`erfc`, :func:`ndtr`: the C library's ``erfc`` (``math.erfc``), within 1e-14 (relative) of
  ``scipy.special.erfc`` / ``ndtr`` for arguments up to 10 (tested; the two differ by an ulp or two in
  most places; past 10, values below 2e-45, glibc's is the more accurate one).
- :func:`t_isf`: Student's t quantile (``scipy.special.stdtrit(df, 1 - p)`` for a small upper tail
  ``p``), :func:`chi2_isf`: chi-square quantile (``scipy.special.chdtri(df, p)``): Newton steps on the
  logarithm of the tail, the tails from the continued fractions of the regularised incomplete beta and
  gamma functions (Numerical Recipes 6.2, 6.4; modified Lentz). Within 1e-13 of scipy (tested).
- :func:`running_median`: the median of every ``w`` consecutive values (``scipy.ndimage.median_filter``
  inside the series), exact.
"""
from __future__ import annotations

import math

import numpy as np

_TINY = 1e-300
_EPS = 1e-16


def erfc(x: float) -> float:
    """Complementary error function."""
    return math.erfc(x)


def ndtr(x: float) -> float:
    """Standard normal CDF."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _lentz(b0: float, terms, max_iter: int = 100_000) -> float:
    """``1 / (b0 + a1 / (b1 + a2 / (b2 + ...)))`` with ``terms(m)`` = (a_m, b_m) (m >= 1), by the modified
    Lentz method."""
    f = _TINY if abs(b0) < _TINY else b0
    c, d = f, 0.0
    for m in range(1, max_iter):
        a, b = terms(m)
        d = b + a * d
        d = _TINY if abs(d) < _TINY else d
        c = b + a / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = c * d
        f *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return 1.0 / f


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (NR 6.4.5), for x < (a + 1) / (a + b + 2)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0

    def terms(m: int) -> tuple[float, float]:
        k = m // 2
        if m % 2:  # d_{2k+1}
            return -(a + k) * (qab + k) * x / ((a + 2 * k) * (qap + 2 * k)), 1.0
        return k * (b - k) * x / ((qam + 2 * k) * (a + 2 * k)), 1.0

    # I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * 1 / (1 + d1 / (1 + d2 / ...))
    return _lentz(1.0, terms)


def _lgamma_ratio(a: float, b: float) -> float:
    """log(Gamma(a + b) / (Gamma(a) Gamma(b))) = -log B(a, b); for b = 1/2 and large a (Student's t of many
    degrees of freedom) from the asymptotic series of log(Gamma(a + 1/2) / Gamma(a)), which the difference
    of two large ``lgamma`` values loses (1e-11 at a = 5,000)."""
    if 0.5 in (a, b) and max(a, b) >= 20.0:
        z = max(a, b)
        return (0.5 * math.log(z) - 1 / (8 * z) + 1 / (192 * z ** 3) - 1 / (640 * z ** 5) + 17 / (14336 * z ** 7)
                - 31 / (18432 * z ** 9) - 0.5 * math.log(math.pi))
    return math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)


def _beta_lower(a: float, b: float, x: float, one_minus_x: float) -> float:
    """Regularised incomplete beta I_x(a, b) for x < (a + 1) / (a + b + 2) (``one_minus_x`` = 1 - x, given
    exactly by the caller)."""
    if x <= 0.0:
        return 0.0
    lbt = _lgamma_ratio(a, b) + a * math.log(x) + b * math.log(one_minus_x)
    return math.exp(lbt) * _betacf(a, b, x) / a


def t_sf(t: float, df: float) -> float:
    """Upper tail P(T > t) of Student's t with ``df`` degrees of freedom, t >= 0: 0.5 I_x(df/2, 1/2) with
    x = df / (df + t^2) (computed directly in the tail, where the quantiles of :func:`t_isf` lie)."""
    t2 = t * t
    x = df / (df + t2)
    a, b = df / 2.0, 0.5
    if x < (a + 1.0) / (a + b + 2.0):
        return 0.5 * _beta_lower(a, b, x, t2 / (df + t2))
    # near the centre: 1 - I_{1-x}(b, a)
    return 0.5 * (1.0 - _beta_lower(b, a, t2 / (df + t2), x))


def t_logpdf(t: float, df: float) -> float:
    return (math.lgamma((df + 1.0) / 2.0) - math.lgamma(df / 2.0) - 0.5 * math.log(df * math.pi)
            - (df + 1.0) / 2.0 * math.log1p(t * t / df))


def _invert_tail(logsf, logpdf, p: float, x0: float, lo: float) -> float:
    """x with sf(x) = p (sf decreasing on [lo, inf)): Newton steps on log sf from ``x0``, kept inside a
    bracket that every evaluation narrows (bisection when a step leaves it)."""
    lp = math.log(p)
    hi = math.inf
    x = max(x0, lo)
    for _ in range(200):
        ls = logsf(x)
        f = ls - lp
        if f > 0:
            lo = x  # sf too large: the quantile is further out
        else:
            hi = x
        if f == 0:
            return x
        step = f * math.exp(ls - logpdf(x))  # d log sf / dx = -pdf / sf
        new = x + step
        if not lo < new < hi:
            new = (lo + hi) / 2.0 if math.isfinite(hi) else 2.0 * max(x, 1.0)
        if abs(new - x) <= 2e-16 * abs(new):
            return new
        x = new
    return x


def t_isf(p: float, df: float) -> float:
    """t with P(T > t) = p, for 0 < p < 0.5 (``scipy.special.stdtrit(df, 1 - p)``)."""
    if not 0.0 < p < 0.5:
        raise ValueError("t_isf: p must be in (0, 0.5)")
    x0 = math.sqrt(df * (p ** (-2.0 / df) - 1.0)) if df < 1e6 else 4.0
    return _invert_tail(lambda t: math.log(t_sf(t, df)), lambda t: t_logpdf(t, df), p, x0, 0.0)


def _gamma_q(a: float, y: float) -> float:
    """Upper regularised incomplete gamma Q(a, y) (NR 6.2: series for y < a + 1, else continued fraction)."""
    if y <= 0.0:
        return 1.0
    lpre = -y + a * math.log(y) - math.lgamma(a)
    if y < a + 1.0:
        ap, s, term = a, 1.0 / a, 1.0 / a
        for _ in range(100_000):
            ap += 1.0
            term *= y / ap
            s += term
            if abs(term) < abs(s) * _EPS:
                break
        return 1.0 - s * math.exp(lpre)
    # NR 6.2.7: 1 / (y + 1 - a - 1 (1 - a) / (y + 3 - a - 2 (2 - a) / (y + 5 - a - ...)))
    return math.exp(lpre) * _lentz(y + 1.0 - a, lambda i: (-i * (i - a), y + 1.0 - a + 2.0 * i))


def chi2_isf(p: float, df: float) -> float:
    """x with P(chi2_df > x) = p, 0 < p < 1 (``scipy.special.chdtri(df, p)``)."""
    if not 0.0 < p < 1.0:
        raise ValueError("chi2_isf: p must be in (0, 1)")
    a = df / 2.0

    def logsf(x: float) -> float:
        return math.log(_gamma_q(a, x / 2.0))

    def logpdf(x: float) -> float:
        return -x / 2.0 + (a - 1.0) * math.log(x / 2.0) - math.lgamma(a) - math.log(2.0)

    # Wilson-Hilferty start
    z = math.sqrt(2.0) * _erfc_inv(2.0 * p)
    x0 = df * max(1e-3, 1.0 - 2.0 / (9.0 * df) + z * math.sqrt(2.0 / (9.0 * df))) ** 3
    return _invert_tail(logsf, logpdf, p, x0, 0.0)


def _erfc_inv(y: float) -> float:
    """Rough inverse of erfc (a start for Newton; ~1e-3)."""
    x = 0.0
    for _ in range(60):
        f = math.erfc(x) - y
        if abs(f) < 1e-4 * y:
            break
        x += f / (2.0 / math.sqrt(math.pi) * math.exp(-x * x))
    return x


def running_median(x: np.ndarray, w: int) -> np.ndarray:
    """Median of each window of ``w`` consecutive values (odd ``w``): ``out[i]`` for the windows that fit,
    ``len(x) - w + 1`` of them (``scipy.ndimage.median_filter(x, w)[w // 2: len(x) - w // 2]``)."""
    h = w // 2
    # (the windows copied by one fancy index and partitioned in place: the same order statistics as
    # np.partition of sliding_window_view(x, w), without its ~15 us of checks - a post-mortem's run means)
    win = x[np.arange(x.size - w + 1)[:, None] + np.arange(w)]
    win.partition(h, axis=1)
    return win[:, h]
