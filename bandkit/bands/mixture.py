"""One-dimensional Gaussian mixture (plus a uniform background) fitted on weighted points.

Why our own EM instead of :class:`sklearn.mixture.GaussianMixture`: scikit-learn's mixture has no
``sample_weight``, so it would have to run on all (up to 10^7) samples or on a subsample that loses
small bands. Here the data are first reduced to weighted points (the distinct values of integer FTQ
counts, or the bins of a fine histogram), which makes one EM iteration O(bins x components)
instead of O(samples x components): 10^7 samples cost about as much as 10^4; the EM itself is a
fused numba loop, with the exact binned likelihood for integer counts and histograms. It also adds a
uniform *background* component that absorbs heavy tails (interrupted quanta, stall-adjacent
samples) so that BIC does not spend Gaussians on them. ``benchmarks/bands_speed.py`` compares it
with scikit-learn on a subsample (see ``benchmarks/RESULTS_bands.md``).

All quantities are in the units of the values.
"""
from __future__ import annotations

from dataclasses import dataclass

import math

import numpy as np
from numba import njit

_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)


@dataclass(frozen=True)
class Mixture:
    """A fitted mixture: Gaussian weights/means/sds (sorted by mean) and the background weight."""

    weights: np.ndarray  # (k,) mixing weights of the Gaussians
    means: np.ndarray  # (k,)
    sds: np.ndarray  # (k,)
    background: float  # mixing weight of the uniform background
    bg_density: float  # density of the background (1 / width of the value range)
    loglik: float  # total log-likelihood of the weighted points
    n: float  # total weight (number of samples)
    iterations: int

    @property
    def k(self) -> int:
        return int(self.means.size)

    @property
    def n_params(self) -> int:
        # k means + k sds + (k + 1) weights - 1 constraint (background weight counts when present)
        return 3 * self.k - 1 + (1 if self.background > 0 else 0)

    @property
    def bic(self) -> float:
        """Bayesian information criterion (lower is better)."""
        return -2.0 * self.loglik + self.n_params * np.log(max(self.n, 2.0))

    def component_logpdf(self, x: np.ndarray) -> np.ndarray:
        """log(weight_j * N(x; mean_j, sd_j)) for every Gaussian j; shape (len(x), k)."""
        x = np.asarray(x, dtype=np.float64)[:, None]
        z = (x - self.means[None, :]) / self.sds[None, :]
        return (np.log(np.maximum(self.weights, 1e-300))[None, :] - np.log(self.sds)[None, :]
                - _LOG_SQRT_2PI - 0.5 * z * z)

    def density(self, x: np.ndarray, background: bool = True) -> np.ndarray:
        """Mixture density at ``x``."""
        d = np.exp(self.component_logpdf(x)).sum(axis=1)
        if background:
            d = d + self.background * self.bg_density
        return d


@njit(cache=True, nogil=True)
def _em(x, w, means, sds, weights, bgw, bg_density, sd_floor, var_prior, max_iter, tol):
    """Fused E+M steps over the weighted points (one pass per iteration, no temporaries)."""
    m = x.size
    k = means.size
    n = 0.0
    for i in range(m):
        n += w[i]
    use_bg = bg_density > 0.0
    nk = np.empty(k)
    sx = np.empty(k)
    sxx = np.empty(k)
    dens = np.empty(k)
    coef = np.empty(k)
    inv = np.empty(k)
    prev = -np.inf
    ll = -np.inf
    it = 0
    c0 = 1.0 / np.sqrt(2.0 * np.pi)
    for it in range(1, max_iter + 1):
        for j in range(k):
            coef[j] = weights[j] * c0 / sds[j]
            inv[j] = 1.0 / sds[j]
            nk[j] = 0.0
            sx[j] = 0.0
            sxx[j] = 0.0
        nbg = 0.0
        bgc = bgw * bg_density
        ll = 0.0
        for i in range(m):
            xi = x[i]
            tot = bgc
            for j in range(k):
                z = (xi - means[j]) * inv[j]
                if z > 12.0 or z < -12.0:
                    dens[j] = 0.0
                    continue
                d = coef[j] * np.exp(-0.5 * z * z)
                dens[j] = d
                tot += d
            if tot <= 0.0:
                tot = 1e-300
            ll += w[i] * np.log(tot)
            r = w[i] / tot
            for j in range(k):
                q = dens[j] * r
                nk[j] += q
                sx[j] += q * xi
                # second moment about the current mean (stable), corrected below
                dx = xi - means[j]
                sxx[j] += q * dx * dx
            nbg += bgc * r
        for j in range(k):
            g = max(nk[j], 1e-12)
            mu = sx[j] / g
            # sum q (x - mu)^2 = sum q (x - m_old)^2 - g (mu - m_old)^2
            ss = sxx[j] - g * (mu - means[j]) ** 2
            if ss < 0.0:
                ss = 0.0
            if var_prior > 0.0:
                var = (var_prior + ss) / (g + 6.0)
            else:
                var = ss / g
            means[j] = mu
            sds[j] = max(np.sqrt(var), sd_floor)
        if use_bg:
            bgw = min(nbg / n, 0.5)
        s = 0.0
        for j in range(k):
            s += nk[j]
        for j in range(k):
            weights[j] = nk[j] / n
        if use_bg:
            tw = 0.0
            for j in range(k):
                tw += weights[j]
            for j in range(k):
                weights[j] = weights[j] * (1.0 - bgw) / max(tw, 1e-300)
        if ll - prev < tol * n:
            break
        prev = ll
    return ll, bgw, it


@njit(cache=True, nogil=True)
def _bin_moments(a, b, mu, sd):
    """Probability of [a, b] under N(mu, sd) and E[z], E[z^2] of z = (x - mu) / sd inside it."""
    za = (a - mu) / sd
    zb = (b - mu) / sd
    r2 = 1.4142135623730951
    if za > 0.0:
        p = 0.5 * (math.erfc(za / r2) - math.erfc(zb / r2))
    elif zb < 0.0:
        p = 0.5 * (math.erfc(-zb / r2) - math.erfc(-za / r2))
    else:
        p = 0.5 * (math.erf(zb / r2) - math.erf(za / r2))
    c = 0.3989422804014327
    pa = c * math.exp(-0.5 * za * za)
    pb = c * math.exp(-0.5 * zb * zb)
    if p < 1e-250:
        zc = 0.5 * (za + zb)
        p = c * math.exp(-0.5 * zc * zc) * (zb - za)
        return p, zc, zc * zc
    ez = (pa - pb) / p
    ez2 = 1.0 + (za * pa - zb * pb) / p
    return p, ez, ez2


@njit(cache=True, nogil=True)
def _em_binned(x, w, halfs, means, sds, weights, bgw, bg_density, sd_floor, var_prior, max_iter,
               tol):
    """EM on binned data: each point is a bin [x - half, x + half] and a component's likelihood
    is its probability mass there (McLachlan & Jones 1988), so no component can win by collapsing
    onto one integer value; M-step with the truncated-normal moments of each bin."""
    m = x.size
    k = means.size
    n = 0.0
    for i in range(m):
        n += w[i]
    use_bg = bg_density > 0.0
    nk = np.empty(k)
    s1 = np.empty(k)
    s2 = np.empty(k)
    pr = np.empty(k)
    e1 = np.empty(k)
    e2 = np.empty(k)
    prev = -np.inf
    ll = -np.inf
    it = 0
    for it in range(1, max_iter + 1):
        for j in range(k):
            nk[j] = 0.0
            s1[j] = 0.0
            s2[j] = 0.0
        nbg = 0.0
        ll = 0.0
        for i in range(m):
            half = halfs[i]
            tot = bgw * bg_density * 2.0 * half
            bgc = tot
            for j in range(k):
                sdj = sds[j]
                zc = (x[i] - means[j]) / sdj
                if zc > 12.0 or zc < -12.0:
                    pr[j] = 0.0
                    e1[j] = 0.0
                    e2[j] = 0.0
                    continue
                hz = half / sdj
                if hz < 0.25:
                    # wide component: the mass is density x width (Sheppard-corrected moments)
                    p = 0.3989422804014327 * math.exp(-0.5 * zc * zc) * 2.0 * hz
                    ez = zc
                    ez2 = zc * zc + hz * hz / 3.0
                else:
                    p, ez, ez2 = _bin_moments(x[i] - half, x[i] + half, means[j], sdj)
                p *= weights[j]
                pr[j] = p
                e1[j] = means[j] + sds[j] * ez
                e2[j] = sds[j] * sds[j] * ez2 + 2.0 * sds[j] * ez * means[j] + means[j] * means[j]
                tot += p
            if tot <= 0.0:
                tot = 1e-300
            ll += w[i] * math.log(tot)
            r = w[i] / tot
            for j in range(k):
                q = pr[j] * r
                nk[j] += q
                s1[j] += q * e1[j]
                s2[j] += q * e2[j]
            nbg += bgc * r
        for j in range(k):
            g = max(nk[j], 1e-12)
            mu = s1[j] / g
            ss = s2[j] - g * mu * mu
            if ss < 0.0:
                ss = 0.0
            if var_prior > 0.0:
                var = (var_prior + ss) / (g + 6.0)
            else:
                var = ss / g
            means[j] = mu
            sds[j] = max(math.sqrt(var), sd_floor)
        if use_bg:
            bgw = min(nbg / n, 0.5)
        tw = 0.0
        for j in range(k):
            weights[j] = nk[j] / n
            tw += weights[j]
        if use_bg:
            for j in range(k):
                weights[j] = weights[j] * (1.0 - bgw) / max(tw, 1e-300)
        if ll - prev < tol * n:
            break
        prev = ll
    return ll, bgw, it


def fit_mixture(
    x: np.ndarray,
    w: np.ndarray,
    init_means: np.ndarray,
    init_sds: np.ndarray,
    *,
    sd_floor: float,
    bg_density: float | None,
    max_iter: int = 300,
    tol: float = 1e-6,
    var_prior: float = 0.0,
    init_weights: np.ndarray | None = None,
    bin_width: float | np.ndarray = 0.0,
) -> Mixture:
    """Weighted EM for a 1-D Gaussian mixture (+ optional uniform background).

    ``x``: point values (distinct values or bin centres); ``w``: their weights (sample counts).
    ``sd_floor``: lower bound of every sd (quantisation step / sqrt(12) at least, so that a
    component cannot collapse onto one integer value). ``bg_density``: 1 / value range, or None
    for no background (its weight is capped at 0.5: outliers are never the majority).
    ``var_prior``: scale of an inverse-gamma prior on each variance (the conjugate prior of Fraley
    & Raftery 2007, as in mclust: scale = variance of the data / k^2, 3 degrees of freedom):
    variances are the MAP estimates (scale + S_k) / (N_k + 6), so a component cannot collapse onto
    3 of 20 run means; with thousands of samples the prior is negligible. Converges when the
    log-likelihood improves by less than ``tol`` x total weight. The E and M steps are one fused
    numba loop (about 50x faster than the numpy version with its k x points temporaries).
    ``bin_width`` > 0 (scalar or one per point): the points are bins of that width (integer counts:
    1; log-spaced bins: proportional to x) and the likelihood is the exact binned one
    (see :func:`_em_binned`).
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    w = np.ascontiguousarray(w, dtype=np.float64)
    n = float(w.sum())
    k = len(init_means)
    means = np.asarray(init_means, dtype=np.float64).copy()
    sds = np.maximum(np.asarray(init_sds, dtype=np.float64).copy(), sd_floor)
    use_bg = bg_density is not None
    bgw = 0.02 if use_bg else 0.0
    if init_weights is None:
        weights = np.full(k, (1.0 - bgw) / k)
    else:
        weights = np.asarray(init_weights, dtype=np.float64).copy()
        weights *= (1.0 - bgw) / weights.sum()
    bgd = float(bg_density) if use_bg else 0.0
    if np.any(np.asarray(bin_width) > 0):
        halfs = np.ascontiguousarray(np.broadcast_to(0.5 * np.asarray(bin_width, dtype=np.float64),
                                                     x.shape))
        ll, bgw, it = _em_binned(x, w, halfs, means, sds, weights, bgw, bgd,
                                 float(sd_floor), float(var_prior), int(max_iter), float(tol))
    else:
        ll, bgw, it = _em(x, w, means, sds, weights, bgw, bgd, float(sd_floor), float(var_prior),
                          int(max_iter), float(tol))
    order = np.argsort(means)
    return Mixture(weights=weights[order], means=means[order], sds=sds[order], background=float(bgw),
                   bg_density=float(bg_density) if use_bg else 0.0, loglik=float(ll), n=n,
                   iterations=int(it))


def find_modes(mix: Mixture, tol: float = 1e-9, max_iter: int = 500) -> np.ndarray:
    """Mode reached from every Gaussian's mean by fixed-point ascent of the mixture density.

    Modal EM (Li, Ray & Lindsay 2007; Carreira-Perpinan 2000): ``x <- sum_j p_j(x) mu_j/s_j^2 /
    sum_j p_j(x)/s_j^2`` climbs the (Gaussian part of the) density from each mean. Returns an array
    of length k with the mode position for each component (components sharing a mode form one
    band). The uniform background has zero gradient and does not move modes.
    """
    x = mix.means.copy()
    inv_var = 1.0 / mix.sds ** 2
    for _ in range(max_iter):
        lp = mix.component_logpdf(x)
        lp -= lp.max(axis=1, keepdims=True)
        p = np.exp(lp) * inv_var[None, :]
        new = (p * mix.means[None, :]).sum(axis=1) / p.sum(axis=1)
        if np.all(np.abs(new - x) <= tol * (1.0 + np.abs(x))):
            x = new
            break
        x = new
    return x


def valley(mix: Mixture, a: float, b: float, points: int = 512) -> tuple[float, float]:
    """Lowest Gaussian-part density between ``a`` < ``b``: (position, density)."""
    g = np.linspace(a, b, points)
    d = mix.density(g, background=False)
    i = int(np.argmin(d))
    return float(g[i]), float(d[i])
