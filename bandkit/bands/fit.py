"""Band finding, step by step (no scikit-learn here: the report path imports this module only).

Method (choices measured in ``benchmarks/bands_suite.py``, see ``benchmarks/RESULTS_bands.md``):

1. *Reduce* the samples to weighted points (distinct integer counts, or a fine histogram), so the
   cost of fitting does not grow with the number of samples (:mod:`.reduce`); FTQ count combs are
   averaged over one comb period.
2. *Fit* 1-D Gaussian mixtures plus a uniform background (absorbs heavy tails) for
   k = 1, 2, ... components by weighted EM, each k from several seeds (density peaks, quantiles,
   and a split at the largest misfit of the k-1 fit); keep the k with the lowest BIC
   (:mod:`.mixture`). Every sd is floored at the quantisation step / sqrt(12).
3. *Merge* components into bands by the modes of the fitted density (modal EM from each mean:
   components that climb to the same mode are one band, e.g. a skewed band fitted by two
   Gaussians); then merge adjacent bands whose valley is shallow (density at the valley above
   ``max_valley`` x the lower peak), whose levels are closer than ``min_separation`` (relative),
   or that are too small (``min_share``, ``min_count``: dropped to the background).
4. *Assign* each point to the band with the largest posterior; a band's level and spread are the
   weighted median and robust sd of its points, trimmed to level +- ``core_width`` sds (the larger
   of the robust sd and the sd of the band's heaviest Gaussian, which the variance prior keeps
   sensible for 20 run means).
5. *Drop* what is not a level: small wide bands (tail bumps), bands between two others that are wide
   compared with their gaps (bridges of straddling samples).
6. *Label* the samples (vectorised through the points); a band most of whose samples sit alone
   between two other bands is a transit, not a level; unassigned samples are intermediate (between
   two bands next to a switch) or outliers (:mod:`.dwell`).
7. *Summarise*: dwell times, transitions, degraded episodes (:class:`~.result.BandResult`).

:func:`fit_bands` runs the steps; :class:`bandkit.bands.BandDetector` is the scikit-learn estimator
around it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np

from .._cpus import available_cpus
from ..errors import InvalidValueError
from ..filters1d import gaussian_filter1d  # = scipy.ndimage's, without its import (bit-identical)
from ..peaks1d import local_maxima, peak_prominences_widths
from ..robust import MAD_TO_SD as _MAD_TO_SD
from ..robust import median_period
from . import dwell as dw
from .mixture import Mixture, find_modes, fit_mixture, valley
from .reduce import Reduced, box_smooth, comb_period, reduce_values
from .result import Band, BandResult, DegradedEpisode

@dataclass(frozen=True)
class BandParams:
    """The parameters of band finding (see :class:`bandkit.bands.BandDetector` for their meaning)."""

    n_bands: int | None = None
    min_separation: float = 0.008
    max_valley: float = 0.8
    min_share: float = 0.002
    min_count: int = 3
    max_components: int = 10
    core_width: float = 5.0
    tail_spread: float = 0.05
    tail_share: float = 0.1
    bridge_ratio: float = 0.3
    max_transit: float = 0.5
    background: bool = True
    max_bins: int = 8192
    higher_is_better: bool = True
    max_gap: int = 2

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def check(self) -> None:
        """Raise :class:`~bandkit.errors.InvalidValueError` (a UsageError and a ValueError) for a bad value."""
        def bad(msg):
            raise InvalidValueError(msg)

        def number(name, integer=False):
            x = getattr(self, name)
            if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)) or x != x:
                bad(f"{name} must be a number, got {x!r}")
            if integer and int(x) != x:
                bad(f"{name} must be an integer, got {x!r}")
            return x

        if self.n_bands is not None and (number("n_bands", integer=True) < 1):
            bad(f"n_bands must be a positive integer, got {self.n_bands!r}")
        if not (0 <= number("min_separation") < 1):
            bad(f"min_separation is relative (0.01 = 1 %), got {self.min_separation!r}")
        if not (0 < number("max_valley") <= 1):
            bad(f"max_valley must be in (0, 1], got {self.max_valley!r}")
        if not (0 <= number("min_share") < 0.5):
            bad(f"min_share must be in [0, 0.5), got {self.min_share!r}")
        if number("max_components", integer=True) < 1 or number("core_width") <= 0 or \
                number("max_bins", integer=True) < 16:
            bad("max_components >= 1, core_width > 0 and max_bins >= 16 are required")
        for name in ("min_count", "max_gap"):
            if number(name, integer=True) < 0:
                bad(f"{name} must be >= 0, got {getattr(self, name)!r}")
        for name in ("tail_spread", "tail_share", "bridge_ratio", "max_transit"):
            if number(name) < 0:
                bad(f"{name} must be >= 0, got {getattr(self, name)!r}")


@dataclass
class BandFit:
    """What :func:`fit_bands` found: the :class:`BandResult` and the model behind it (the fitted
    attributes of :class:`bandkit.bands.BandDetector`)."""

    result: BandResult
    labels: np.ndarray
    levels: np.ndarray
    mixture: Mixture
    bic: dict
    band_of_component: np.ndarray
    comb_period: float | None


def fit_bands(values, times=None, exclude=None, params: BandParams | None = None) -> BandFit:
    """Find the bands of ``values`` (1-D, in time order).

    ``times`` (s, same length; ignored unless all finite) give dwell times in seconds; ``exclude``
    (bool mask) marks samples not to analyse (stall-adjacent quanta); non-finite values are not
    analysed either (label -3).
    """
    p = params or BandParams()
    p.check()
    v, t, ok = _prepare(values, times, exclude)
    va = v[ok]
    if va.size == 0:
        raise InvalidValueError("no finite samples to find bands in")
    red = reduce_values(va, max_bins=p.max_bins)                       # 1. reduce
    search = _MixtureSearch(p, red, va.size)
    mix, groups = search.run()                                         # 2.-3. fit, merge
    bands = _assign_points(red, mix, groups, search.sd_floor, search.comb_period, p)   # 4. assign
    bands = _drop_non_levels(bands, red.w, va.size, p)                 # 5. drop tails and bridges
    labels = _label_samples(bands, red, va, ok, p)                     # 6. label the samples
    result = _summarise(labels, ok, v, t, bands, mix, search.bic, p)   # 7. summarise
    return BandFit(result, labels, bands.levels, mix, search.bic, bands.band_of_comp, search.comb_period)


# -- 0. input ------------------------------------------------------------------------------------------
def _prepare(values, times, exclude):
    """(values as float64, times or None, mask of the samples to analyse)."""
    v = np.asarray(values, dtype=np.float64).ravel()
    n_total = v.size
    t = None
    if times is not None:
        t = np.asarray(times, dtype=np.float64).ravel()
        if t.size != n_total:
            raise InvalidValueError(f"times has {t.size} entries, values {n_total}")
        if not np.isfinite(t).all():
            t = None
    ok = np.isfinite(v)
    if exclude is not None:
        ex = np.asarray(exclude, dtype=bool).ravel()
        if ex.size != n_total:
            raise InvalidValueError(f"exclude has {ex.size} entries, values {n_total}")
        ok &= ~ex
    return v, t, ok


# -- 2.-3. mixture and merging --------------------------------------------------------------------------
def _wquantile(x: np.ndarray, w: np.ndarray, q: float) -> float:
    """Weighted quantile of sorted points ``x`` with weights ``w`` (lower interpolation)."""
    c = np.cumsum(w)
    i = int(np.searchsorted(c, q * c[-1], side="left"))
    return float(x[min(i, x.size - 1)])


def _wmedian_mad(x: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    med = _wquantile(x, w, 0.5)
    d = np.abs(x - med)
    o = np.argsort(d, kind="stable")
    mad = _wquantile(d[o], w[o], 0.5)
    return med, mad


#: Smallest EM problem (points x components) whose seeds are fitted in parallel threads: the EM kernel
#: releases the GIL, so the 2-4 seeds of one k run at once on a multi-core machine (the same fits,
#: the same winner: only the wall time changes). Below it a thread costs more than it saves.
PARALLEL_MIN_WORK = 2048


def seed_threads() -> int:
    """Threads for the seeds of one k: ``BANDKIT_THREADS`` if set (1: serial), else the CPUs this process
    may run on, at most 4 (a k has at most 4 seeds)."""
    return available_cpus(4)


def _map_seeds(fit, seeds: list, work: int) -> list:
    """``[fit(s) for s in seeds]``, in threads when the problem is big enough (see PARALLEL_MIN_WORK)."""
    threads = min(seed_threads(), len(seeds))
    if threads < 2 or work < PARALLEL_MIN_WORK:
        return [fit(s) for s in seeds]
    from concurrent.futures import ThreadPoolExecutor  # (a pool per k: nothing left running, fork-safe)

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="bandkit-em") as ex:
        return list(ex.map(fit, seeds))


class _MixtureSearch:
    """Steps 2 and 3 on the reduced points: the BIC-chosen mixture and its components grouped into bands.

    After :meth:`run`: ``bic`` (k -> BIC), ``sd_floor``, ``comb_period`` (None without a comb)."""

    def __init__(self, params: BandParams, red: Reduced, n: int):
        self.p = params
        self.red = red
        self.n = n
        self.bic: dict[int, float] = {}
        self.step = red.step
        # integer counts and linear histograms are binned data: exact binned likelihood
        self.bin_width = red.step if red.kind in ("int", "hist") else 0.0
        if red.kind == "loghist":
            self.bin_width = 2.0 * red.x * np.sinh(0.5 * red._logwidth)
        self.var_total: float | None = None
        scale = max(float(np.max(np.abs(red.x))), 1e-300)
        self.sd_floor = max(red.step / math.sqrt(12.0), 1e-9 * scale)
        self.sd_floor_fit = self.sd_floor  # the floor of the current fit (set by _fit_k)
        self.comb_period: float | None = None

    def run(self) -> tuple[Mixture, list[list[int]]]:
        p, red, n = self.p, self.red, self.n
        x, w = red.x, red.w
        # FTQ count combs: fit on the histogram averaged over one comb period (see comb_period)
        xf, wf = x, w
        if red.kind == "int" and p.n_bands is None:
            med = abs(_wquantile(x, w, 0.5))
            per = comb_period(x, w, p.min_separation * med)
            if per is not None:
                self.comb_period = per
                xf, wf = box_smooth(x, w, per)
                self.sd_floor = max(self.sd_floor, per / math.sqrt(12.0))
        span = float(red.hi - red.lo) + max(red.step, 0.0)
        # the uniform background models heavy tails of long series; with fewer than 100 samples it
        # would compete with the bands themselves (a lone outlier run becomes a too-small band)
        bg = (1.0 / span) if (p.background and span > 0 and n >= 100) else None
        min_count = max(int(p.min_count), int(math.ceil(p.min_share * n)))
        if x.size == 1 or span <= 0:
            mix = Mixture(np.array([1.0]), np.array([float(x[0])]), np.array([self.sd_floor]), 0.0, 0.0,
                          0.0, float(n), 0)
            return mix, [[0]]
        mix = self._select(xf, wf, self.sd_floor, bg, n, min_count)
        return mix, self._group(mix, n, min_count)

    def _seeds(self, x, w, k, prev: Mixture | None, sd0: float):
        """Candidate starts (means, sds, weights or None) for k components: cold starts at
        quantiles and at density peaks; warm starts that split the (k-1) fit at its largest misfit
        or split its widest component (these converge in a few iterations)."""
        c = np.cumsum(w) / w.sum()
        qs = (np.arange(k) + 0.5) / k
        quant = x[np.minimum(np.searchsorted(c, qs), x.size - 1)]
        cold = np.full(k, sd0)
        cands = [(quant, cold, None)]
        # peaks of a lightly smoothed histogram (log-spaced when the levels are far apart), ranked
        # by Poisson significance (prominence / sqrt(height)), each with its own width
        logx = x[0] > 0 and x[-1] / x[0] > 1.5
        g = np.log(x) if logx else x
        width = (g[-1] - g[0]) / 4096.0 if logx else max(self.step, (x[-1] - x[0]) / 4096.0)
        nb = int(min(4096, max(16, math.ceil((g[-1] - g[0]) / max(width, 1e-300)) + 1)))
        hist_g, edges_g = np.histogram(g, bins=nb, weights=w)
        cg = 0.5 * (edges_g[1:] + edges_g[:-1])
        sm = gaussian_filter1d(hist_g.astype(float), 2.0)
        padded = np.r_[0, sm, 0]
        pk = local_maxima(padded)
        prom, widths = peak_prominences_widths(padded, pk)
        if pk.size:
            score = prom / np.sqrt(sm[pk - 1] + 1.0)
            order = np.argsort(-score)[:k]
            pos = cg[pk[order] - 1]
            wid = widths[order] * (edges_g[1] - edges_g[0]) / 2.355
            means_p = np.exp(pos) if logx else pos
            sds_p = np.maximum(wid * means_p if logx else wid, self.sd_floor_fit)
            if means_p.size < k:
                extra = np.array([q for q in quant if np.all(np.abs(means_p - q) > 0)])
                extra = extra[: k - means_p.size]
                means_p = np.r_[means_p, extra]
                sds_p = np.r_[sds_p, np.full(extra.size, sd0)]
            if means_p.size == k:
                o = np.argsort(means_p)
                cands.append((means_p[o], sds_p[o], None))
        # linear histogram for the misfit of the previous fit
        width = max(self.step, (x[-1] - x[0]) / 4096.0)
        nb = int(min(4096, max(16, math.ceil((x[-1] - x[0]) / width) + 1)))
        hist, edges = np.histogram(x, bins=nb, weights=w)
        centres = 0.5 * (edges[1:] + edges[:-1])
        if prev is not None:
            pw = np.maximum(prev.weights, 1e-6)
            # split at the largest misfit of the previous fit
            pred = prev.density(centres) * w.sum() * (edges[1] - edges[0])
            resid = gaussian_filter1d(hist - pred, 2.0)
            i = int(np.argmax(resid))
            mass = max(float(resid[resid > 0].sum()) / w.sum(), 0.01)
            near = int(np.argmin(np.abs(prev.means - centres[i])))
            cands.append((np.r_[prev.means, centres[i]],
                          np.r_[prev.sds, max(prev.sds[near] / 2, self.sd_floor_fit)],
                          np.r_[pw * (1 - mass), mass]))
            # split the widest-by-mass component
            j = int(np.argmax(prev.weights * prev.sds))
            cands.append((np.r_[np.delete(prev.means, j), prev.means[j] - prev.sds[j],
                                prev.means[j] + prev.sds[j]],
                          np.r_[np.delete(prev.sds, j), prev.sds[j] / 2, prev.sds[j] / 2],
                          np.r_[np.delete(pw, j), pw[j] / 2, pw[j] / 2]))
        return cands

    def _fit_k(self, x, w, k, sd_floor, bg, prev):
        if self.var_total is None:
            self.var_total = float(np.average((x - np.average(x, weights=w)) ** 2, weights=w))
        _, mad = _wmedian_mad(x, w)
        sd0 = max(_MAD_TO_SD * mad / k, sd_floor)
        self.sd_floor_fit = sd_floor
        var_prior = self.var_total / k ** 2

        def fit(seed):
            means, sds, weights = seed
            return fit_mixture(x, w, means, sds, sd_floor=sd_floor, bg_density=bg, var_prior=var_prior,
                               init_weights=weights, bin_width=self.bin_width)

        best = None
        for m in _map_seeds(fit, self._seeds(x, w, k, prev, sd0), x.size * k):
            if best is None or m.loglik > best.loglik:  # (seed order: the same fit wins as in a serial run)
                best = m
        return best

    def _select(self, x, w, sd_floor, bg, n, min_count) -> Mixture:
        if self.p.n_bands is not None:
            k = int(self.p.n_bands)
            prev = None
            fit = None
            for kk in range(1, k + 1):
                fit = self._fit_k(x, w, kk, sd_floor, bg, prev)
                prev = fit
                self.bic[kk] = float(fit.bic)
            return fit
        kmax = int(min(self.p.max_components, max(1, n // max(min_count, 1)), x.size))
        best, prev, worse = None, None, 0
        for k in range(1, kmax + 1):
            fit = self._fit_k(x, w, k, sd_floor, bg, prev)
            self.bic[k] = float(fit.bic)
            prev = fit
            if best is None or fit.bic < best.bic:
                best, worse = fit, 0
            else:
                worse += 1
                if worse >= 3:
                    break
        return best

    def _group(self, mix: Mixture, n: float, min_count: int) -> list[list[int]]:
        """Components -> bands (lists of component indices, ascending level)."""
        k = mix.k
        if self.p.n_bands is not None:
            return [[j] for j in range(k)]
        modes = find_modes(mix)
        order = np.argsort(modes, kind="stable")
        groups: list[list[int]] = []
        gmode: list[float] = []
        tol = 1e-3 * float(np.min(mix.sds))
        for j in order:
            if groups and abs(modes[j] - gmode[-1]) <= max(tol, 1e-12 * abs(modes[j])):
                groups[-1].append(int(j))
            else:
                groups.append([int(j)])
                gmode.append(float(modes[j]))
        # iteratively merge the weakest adjacent pair that violates a criterion
        while len(groups) > 1:
            peak = mix.density(np.array(gmode), background=False)
            worst, worst_score = None, 0.0
            for i in range(len(groups) - 1):
                a, b = gmode[i], gmode[i + 1]
                sep = (b - a) / max(abs(a), abs(b), 1e-300)
                _, dv = valley(mix, a, b)
                ratio = dv / max(min(peak[i], peak[i + 1]), 1e-300)
                score = 0.0
                if sep < self.p.min_separation:
                    score = max(score, 2.0 + (self.p.min_separation - sep))
                if ratio > self.p.max_valley:
                    score = max(score, 1.0 + ratio)
                if score > worst_score:
                    worst, worst_score = i, score
            if worst is None:
                break
            i = worst
            # the merged band keeps the mode of the heavier part
            keep_mode = gmode[i] if peak[i] >= peak[i + 1] else gmode[i + 1]
            groups[i] = groups[i] + groups[i + 1]
            gmode[i] = keep_mode
            del groups[i + 1], gmode[i + 1]
        # too small bands: dropped to the background (their samples become outliers/intermediate)
        counts = [mix.weights[g].sum() * n for g in groups]
        big = [g for g, c in zip(groups, counts) if c >= min_count]
        if not big:
            big = [groups[int(np.argmax(counts))]]
        return big


# -- 4.-5. bands on the points ----------------------------------------------------------------------------
@dataclass
class _Bands:
    """Bands on the reduced points: ``point_band`` (band per point, -1 none), ``band_of_comp`` (band
    per mixture component, -1 none), and per band level, spread and the value range [lo, hi]."""

    point_band: np.ndarray
    band_of_comp: np.ndarray
    levels: np.ndarray
    spreads: np.ndarray
    los: np.ndarray
    his: np.ndarray
    sample_labels: np.ndarray = field(default=None, repr=False)

    @property
    def k(self) -> int:
        return int(self.levels.size)

    def keep_only(self, keep) -> None:
        """Keep the bands ``keep`` (ascending indices) and renumber them 0..; the others' points and
        components become unassigned (-1)."""
        keep = np.asarray(keep, dtype=np.int64)
        remap = np.full(self.k + 1, -1)  # index -1 (unassigned) maps to -1 through remap[k]
        remap[keep] = np.arange(keep.size)
        self.point_band = np.where(self.point_band >= 0, remap[self.point_band], -1)
        self.band_of_comp = np.where(self.band_of_comp >= 0, remap[self.band_of_comp], -1)
        self.levels, self.spreads = self.levels[keep], self.spreads[keep]
        self.los, self.his = self.los[keep], self.his[keep]


def _assign_points(red: Reduced, mix: Mixture, groups, sd_floor: float, comb: float | None,
                   p: BandParams) -> _Bands:
    """Each point to the band with the largest posterior (a band is a group of components; the
    background and dropped components compete as "none"); then each band's robust level and spread
    from its points, trimmed to its core."""
    x, w = red.x, red.w
    band_of_comp = np.full(mix.k, -1, dtype=np.int64)
    for b, g in enumerate(groups):
        band_of_comp[g] = b
    kb = len(groups)
    lp = mix.component_logpdf(x) if mix.k else np.zeros((x.size, 0))
    post = np.full((x.size, kb + 1), -np.inf)
    for b, g in enumerate(groups):
        post[:, b] = np.logaddexp.reduce(lp[:, g], axis=1)
    others = [j for j in range(mix.k) if band_of_comp[j] < 0]
    rest = [np.log(max(mix.background, 1e-300)) + np.log(max(mix.bg_density, 1e-300))] \
        if mix.background > 0 else []
    if others:
        rest.append(np.logaddexp.reduce(lp[:, others], axis=1))
    if rest:
        post[:, kb] = np.logaddexp.reduce(np.broadcast_arrays(*rest), axis=0) if len(rest) > 1 \
            else rest[0]
    point_band = np.argmax(post, axis=1)
    point_band[point_band == kb] = -1
    # robust level / spread per band and core trimming (on points: exact and O(points))
    scale = max(float(np.max(np.abs(x))), 1e-300)
    levels = np.zeros(kb)
    spreads = np.zeros(kb)
    los, his = np.zeros(kb), np.zeros(kb)
    for b in range(kb):
        m = point_band == b
        if not m.any():
            levels[b] = float(np.average(mix.means[groups[b]], weights=mix.weights[groups[b]]))
            spreads[b] = sd_floor
            continue
        med, mad = _wmedian_mad(x[m], w[m])
        g = groups[b]
        main_sd = float(mix.sds[g][int(np.argmax(mix.weights[g]))])
        sd = max(_MAD_TO_SD * mad, main_sd, sd_floor, red.step, comb or 0.0)
        out = m & (np.abs(x - med) > p.core_width * sd)
        point_band[out] = -1
        m = point_band == b
        med, mad = _wmedian_mad(x[m], w[m])
        levels[b] = med
        spreads[b] = max(_MAD_TO_SD * mad, red.step / math.sqrt(12.0), 1e-9 * scale)
        los[b], his[b] = float(x[m].min()), float(x[m].max())
    return _Bands(point_band, band_of_comp, levels, spreads, los, his)


def _drop_non_levels(bands: _Bands, w: np.ndarray, n: int, p: BandParams) -> _Bands:
    """Small wide bands are tail bumps; a band between two others that is wide compared with its
    gaps is a bridge of switch-straddling samples; bands emptied by trimming go too."""
    kb, levels, spreads = bands.k, bands.levels, bands.spreads
    bw = np.array([w[bands.point_band == b].sum() for b in range(kb)])
    tail = (spreads > p.tail_spread * np.abs(levels)) & (bw < p.tail_share * n)
    while True:  # drop the worst bridge among the remaining bands, repeat
        alive = np.flatnonzero(~tail)
        worst, worst_r = None, p.bridge_ratio
        for i in range(1, alive.size - 1):
            a, b, c = alive[i - 1], alive[i], alive[i + 1]
            r = spreads[b] / max(min(levels[b] - levels[a], levels[c] - levels[b]), 1e-300)
            if r > worst_r:
                worst, worst_r = b, r
        if worst is None:
            break
        tail[worst] = True
    if p.n_bands is not None or tail.all():
        tail[:] = False
    bands.point_band[np.isin(bands.point_band, np.flatnonzero(tail))] = -1
    keep = [b for b in range(kb) if (bands.point_band == b).any()]
    if len(keep) < kb:
        bands.keep_only(keep)
    return bands


# -- 6. sample labels --------------------------------------------------------------------------------------
def _label_samples(bands: _Bands, red: Reduced, va: np.ndarray, ok: np.ndarray, p: BandParams) -> np.ndarray:
    """Labels of every input sample (band, or INTERMEDIATE / OUTLIER / EXCLUDED)."""
    labels = np.full(ok.size, dw.EXCLUDED, dtype=np.int8)
    lab_a = red.labels(va, np.where(bands.point_band >= 0, bands.point_band, dw.OUTLIER), dw.OUTLIER)
    # a "band" whose samples mostly sit alone between two *other* bands is made of quanta that
    # straddle switches (a transit, not a level): unassign it (its samples become intermediate)
    if bands.k >= 3 and p.n_bands is None:
        transit = dw.transit_share(lab_a, bands.k)
        drop = np.flatnonzero(transit > p.max_transit)
        if drop.size:
            keep = np.setdiff1d(np.arange(bands.k), drop)
            remap = np.full(bands.k, -1)
            remap[keep] = np.arange(keep.size)
            lab_a = np.where(lab_a >= 0, remap[np.maximum(lab_a, 0)], lab_a).astype(np.int8)
            lab_a[lab_a == -1] = dw.OUTLIER
            bands.keep_only(keep)
    labels[ok] = lab_a
    # intermediate vs outlier on the analysed sub-sequence (excluded samples skipped)
    if bands.k >= 2:
        labels[ok] = dw.classify_unassigned(lab_a, va, bands.levels, p.max_gap)
    return labels


# -- 7. summary --------------------------------------------------------------------------------------------
def _summarise(labels, ok, v, t, bands: _Bands, mix: Mixture, bic: dict, p: BandParams) -> BandResult:
    kb, levels = bands.k, bands.levels
    n_total = labels.size
    lab_a = labels[ok]
    ta = t[ok] if t is not None else None
    period = median_period(ta) if ta is not None else None
    ep = dw.find_episodes(lab_a, ta, period)
    counts = np.bincount(lab_a[lab_a >= 0].astype(np.int64), minlength=kb)
    n_an = int(ok.sum())
    if ep.duration_s is not None:
        tot_t = float(ep.duration_s.sum())
    overlap = band_overlap(levels, bands.spreads, bands.los, bands.his)
    out = []
    for b in range(kb):
        sel = ep.band == b
        ds = dw.quantiles(ep.duration_s[sel]) if ep.duration_s is not None else (None,) * 3
        dn = dw.quantiles(ep.samples[sel].astype(np.float64))
        share_t = (float(ep.duration_s[sel].sum()) / tot_t
                   if ep.duration_s is not None and tot_t > 0 else None)
        out.append(Band(
            index=b, level=float(levels[b]), spread=float(bands.spreads[b]), lo=float(bands.los[b]),
            hi=float(bands.his[b]), count=int(counts[b]), share=float(counts[b]) / max(n_an, 1),
            share_time=share_t, episodes=int(sel.sum()), dwell_median_s=ds[0],
            dwell_p95_s=ds[1], dwell_max_s=ds[2], dwell_median_samples=dn[0],
            dwell_p95_samples=dn[1], dwell_max_samples=None if dn[2] is None else int(dn[2]),
            overlap=overlap[b]))
    trans = dw.transition_counts(ep.band, kb)
    best = kb - 1 if p.higher_is_better else 0
    where = np.flatnonzero(ok)
    sel = np.flatnonzero(ep.band != best)
    st = (ep.start_s[sel].tolist() if ep.start_s is not None else [None] * sel.size)
    du = (ep.duration_s[sel].tolist() if ep.duration_s is not None else [None] * sel.size)
    bands_sel = ep.band[sel].tolist()
    deg = [DegradedEpisode(start_s=a, duration_s=b_, start_index=c, samples=d, band=e,
                           level=float(levels[e]))
           for a, b_, c, d, e in zip(st, du, where[ep.start[sel]].tolist(),
                                     ep.samples[sel].tolist(), bands_sel)]
    comps = tuple({"weight": float(mix.weights[j]), "mean": float(mix.means[j]),
                   "sd": float(mix.sds[j]), "band": int(bands.band_of_comp[j])}
                  for j in range(mix.k))
    method = "fixed" if p.n_bands is not None else "bic+modes"
    return BandResult(
        bands=tuple(out), labels=labels, n_samples=int(n_total), n_analysed=n_an,
        intermediate=int((lab_a == dw.INTERMEDIATE).sum()),
        outliers=int((lab_a == dw.OUTLIER).sum()), excluded=int(n_total - n_an),
        transition_counts=trans, degraded_episodes=tuple(deg),
        higher_is_better=bool(p.higher_is_better), has_times=ta is not None,
        method=method, components=comps, bic=tuple(sorted(bic.items())), values=v, times=t)


def band_overlap(levels, spreads, los, his) -> list[float | None]:
    """Per band, the share of a Gaussian (``level``, ``spread``) beyond the boundaries with its
    neighbours (half-way between one band's ``hi`` and the next one's ``lo``); None for one band."""
    k = len(levels)
    if k < 2:
        return [None] * k
    bounds = [0.5 * (float(his[b]) + float(los[b + 1])) for b in range(k - 1)]
    out = []
    for b in range(k):
        sd = max(float(spreads[b]), 1e-300)
        p = 0.0
        if b > 0:
            p += 0.5 * math.erfc((float(levels[b]) - bounds[b - 1]) / (sd * math.sqrt(2.0)))
        if b < k - 1:
            p += 0.5 * math.erfc((bounds[b] - float(levels[b])) / (sd * math.sqrt(2.0)))
        out.append(min(p, 1.0))
    return out
