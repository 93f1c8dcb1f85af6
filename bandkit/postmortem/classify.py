"""Classification of a benchmark's run sequence: stable, step, episode, bimodal / bands, trend,
warm-up, outliers - each through a documented gate (:class:`Gates`), with its effect size and a
p-value that holds under realistic noise.

Method, on ``x = log(per-run mean)`` (levels compare as ratios):

1. **Noise** (:mod:`.noise`): robust run-to-run sd ``sigma``, lag-1 autocorrelation ``rho`` and
   long-run sd ``sigma_lr``, floored by the quantisation step of the values and the within-run
   standard error.
2. **Outlier candidates**: runs farther than ``far = max(c x sigma, log min_ratio)`` from the
   running median of 7 runs, ``c`` the Gaussian quantile that ``outlier_alpha`` (1 %) of pure-noise
   series exceed once in ``n`` runs (3.5 sigma at 20 runs, 5 at 10,000). A group of
   ``min_block`` (3) or more consecutive candidates on the same side is a short level, not outliers.
3. **Segmentation** of the other runs: exact penalised L2 segmentation (FPOP,
   :mod:`bandkit.changepoints.fpop`) of ``x / sigma_lr`` with penalty ``3 log n``, then backward
   pruning: a change stays only if its CUSUM test on the values between its neighbouring changes is
   significant (``p < alpha`` = 0.001; Kolmogorov's distribution of the supremum of a Brownian
   bridge, which accounts for the location having been searched; values winsorised at
   ``clip`` = 2.5 sigma around their segment level, scale = long-run sd of the winsorised
   residuals, so heavy tails and AR(1) noise keep the p-value honest) and large
   (``|effect| >= max(log min_ratio, visible x sigma)``: a shift a person can see, and that slow
   1/f wander of the environment does not produce).
4. **Levels**: segment levels and outlier candidates (as one-run segments) are grouped, nearest
   first, while two levels differ by less than ``max(log min_ratio, 3 standard errors)``. The
   most populated level is the main band; another level is a **band** only with support: a
   stretch of ``min_block`` consecutive runs, or ``min_share`` (5 %) of the runs (at least
   ``min_block``) that agree with each other (sd <= 2 sigma). The runs of other levels are
   **outliers** when they lie ``far`` from every band, else they join the nearest band.
5. **Verdict** from the sequence of band blocks (outliers left out): one band -> ``stable``, or
   ``trend`` (least-squares drift of the winsorised values with a long-run standard error,
   ``p < alpha`` and ``|drift| >= max(log min_ratio, visible x sigma)``), or ``outliers``. A block
   of a band seen only there, between two blocks of the same band, is an **episode** (a step and
   its return). After removing episodes: a band that comes back -> ``bimodal`` (two bands) or
   ``bands``; two or more blocks -> ``step`` (``trend`` instead when the drift is significant and a
   straight line has a lower BIC than the blocks; ``warmup`` when the first block is at most
   ``max(2, 10 %)`` runs, slower, and the rest is one band); only episodes -> ``episode``.
   Slower leading runs (at most ``max(2, 10 %)``) before one stable band are a warm-up too.

Every change carries its effect (log ratio of the levels on each side) and its CUSUM p-value;
step ratios get a 95 % interval from the long-run standard error of the two block means.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special
from scipy.ndimage import median_filter

from ..changepoints.fpop import fpop
from ..changepoints.penalty import long_run_factor, robust_lag1
from .noise import RunNoise, estimate_noise, segment_medians

VERDICTS = ("stable", "step", "episode", "bimodal", "bands", "trend", "warmup", "outliers", "too_few_runs",
            "no_runs")

#: Width (runs) of the running median that outlier candidates are measured from.
LOCAL_WIDTH = 7
_MAD = 1.482602218505602


@dataclass(frozen=True)
class Gates:
    """The gates a finding passes to reach the verdict (defaults measured by
    ``benchmarks/calibration.py``, see benchmarks/RESULTS_calibration.md).

    ``min_ratio``: smallest level change, episode, band distance, drift or outlier reported
    (1.03 = 3 %). ``alpha``: significance of a level change or a drift. ``visible``: a change or
    drift must also reach this many run-to-run sds. ``min_block``: consecutive runs that make a
    level a band, an episode or a step's side. ``min_share``: share of the runs that makes a
    scattered level a band. ``band_sigmas``: scattered runs count as visits of a band (and form a
    band of their own) only that many run-to-run sds away from the band around them. ``outlier_alpha``: chance that a series of pure Gaussian noise has an
    outlier. ``penalty_factor``: FPOP penalty per change in units of ``log n``. ``clip``:
    winsorising bound (sigmas) of the values the tests see.
    """

    min_ratio: float = 1.03
    alpha: float = 0.001
    visible: float = 1.0
    min_block: int = 3
    min_share: float = 0.05
    band_sigmas: float = 4.0
    outlier_alpha: float = 0.01
    penalty_factor: float = 3.0
    clip: float = 2.5

    def __post_init__(self) -> None:
        if self.min_ratio <= 1.0:
            raise ValueError("min_ratio must be > 1")
        if not 0 < self.alpha < 1 or not 0 < self.outlier_alpha < 1:
            raise ValueError("alpha and outlier_alpha must be in (0, 1)")
        if self.min_block < 1:
            raise ValueError("min_block must be >= 1")


@dataclass(frozen=True)
class Change:
    """A retained level change: ``index`` = first run (0-based) of the new segment; ``effect`` =
    log ratio of the segment means (after / before); ``p_value`` of its CUSUM test."""

    index: int
    effect: float
    p_value: float


@dataclass(frozen=True)
class Classification:
    """What :func:`classify` found (indices are 0-based positions in the run sequence).

    ``labels``: band per run (-1 = outlier); ``levels``: band levels (log, in band order = value
    order); ``blocks``: (band, first, last) contiguous blocks of non-outlier runs; ``episodes``:
    (band, first, last) blocks that are episodes; ``changes``: the significant level changes;
    ``noise``: the noise model; ``test_scale``: long-run sd the block tests use; ``warmup``:
    number of leading warm-up runs."""

    verdict: str
    labels: np.ndarray
    levels: np.ndarray
    sigma: float
    blocks: tuple[tuple[int, int, int], ...]
    outliers: tuple[int, ...]
    trend: dict | None
    episodes: tuple[tuple[int, int, int], ...] = ()
    changes: tuple[Change, ...] = ()
    noise: RunNoise | None = None
    test_scale: float = 0.0
    warmup: int = 0
    x: np.ndarray | None = field(default=None, repr=False)
    gates: Gates = field(default_factory=Gates)


# --------------------------------------------------------------------------- helpers
def outlier_sigmas(n: int, alpha: float = 0.01) -> float:
    """Two-sided Gaussian quantile exceeded with probability ``alpha`` somewhere in ``n`` runs."""
    return float(-special.ndtri(alpha / (2.0 * max(n, 1))))


def cusum_p(z: np.ndarray, scale: float) -> float:
    """p-value of "no change in ``z``": sup of |CUSUM| / (scale sqrt m) against Kolmogorov's law."""
    m = z.size
    if m < 2 or scale <= 0:
        return 1.0
    s = np.cumsum(z - z.mean())[:-1]
    return float(special.kolmogorov(float(np.max(np.abs(s))) / (scale * math.sqrt(m))))


def _groups(mask: np.ndarray, side: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) of maximal stretches of True in ``mask`` with the same ``side``."""
    out = []
    i, n = 0, mask.size
    while i < n:
        if not mask[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and mask[j + 1] and side[j + 1] == side[i]:
            j += 1
        out.append((i, j))
        i = j + 1
    return out


def _blocks(labels: np.ndarray) -> list[tuple[int, int, int]]:
    """Contiguous blocks (band, first index, last index) of the non-outlier runs, in order."""
    out: list[tuple[int, int, int]] = []
    for i, lab in enumerate(labels):
        if lab < 0:
            continue
        if out and out[-1][0] == lab:
            out[-1] = (int(lab), out[-1][1], i)
        else:
            out.append((int(lab), i, i))
    return out


# --------------------------------------------------------------------------- segmentation
def _test_series(x: np.ndarray, cps: np.ndarray, noise: RunNoise, clip: float) -> tuple[np.ndarray, float]:
    """Values winsorised at ``clip`` sigma around their segment median, and the long-run sd of the
    winsorised residuals (the scale of the CUSUM and block-mean tests)."""
    lev = segment_medians(x, cps)
    r = np.clip(x - lev, -clip * noise.sigma, clip * noise.sigma)
    rho = robust_lag1(r) if r.size >= 10 else 0.0
    sd = float(np.std(r)) if r.size > 1 else noise.sigma
    scale = max(sd, noise.floor) * long_run_factor(max(rho, noise.rho))
    return lev + r, scale


def _prune(z: np.ndarray, cps: list[int], scale: float, min_effect: float, alpha: float) -> list[Change]:
    """Backward elimination: drop the weakest change (too small, else least significant) until every
    change is significant and large enough; p-values on the stretch between the neighbours."""
    cps = list(cps)
    while cps:
        bounds = [0] + cps + [z.size]
        stats = []
        for j in range(1, len(bounds) - 1):
            a, c, b = bounds[j - 1], bounds[j], bounds[j + 1]
            eff = float(np.mean(z[c:b]) - np.mean(z[a:c]))
            stats.append((eff, cusum_p(z[a:b], scale)))
        small = [j for j, (e, _) in enumerate(stats) if abs(e) < min_effect]
        if small:
            cps.pop(min(small, key=lambda j: abs(stats[j][0])))
            continue
        worst = max(range(len(stats)), key=lambda j: stats[j][1])
        if stats[worst][1] >= alpha:
            cps.pop(worst)
            continue
        return [Change(c, e, p) for c, (e, p) in zip(cps, stats)]
    return []


def _group_levels(means: list[float], sizes: list[int], ses: list[float], thr_min: float) -> list[list[int]]:
    """Group 1-D levels, nearest first, while neighbours differ by less than max(thr_min, 3 SE)."""
    order = sorted(range(len(means)), key=lambda i: means[i])
    groups = [[i] for i in order]
    gm = [means[i] for i in order]
    gn = [sizes[i] for i in order]
    gv = [ses[i] ** 2 for i in order]  # variance of the group's mean
    while len(groups) > 1:
        gaps = [gm[i + 1] - gm[i] for i in range(len(groups) - 1)]
        thr = [max(thr_min, 3.0 * math.sqrt(gv[i] + gv[i + 1])) for i in range(len(gaps))]
        cand = [i for i in range(len(gaps)) if gaps[i] < thr[i]]
        if not cand:
            break
        i = min(cand, key=lambda k: gaps[k] / thr[k])
        n_a, n_b = gn[i], gn[i + 1]
        gm[i] = (gm[i] * n_a + gm[i + 1] * n_b) / (n_a + n_b)
        gv[i] = (gv[i] * n_a ** 2 + gv[i + 1] * n_b ** 2) / (n_a + n_b) ** 2
        gn[i] = n_a + n_b
        groups[i] = groups[i] + groups.pop(i + 1)
        gm.pop(i + 1), gn.pop(i + 1), gv.pop(i + 1)
    return groups


# --------------------------------------------------------------------------- classification
def classify(means: np.ndarray, *, min_ratio: float | None = None, noise_floor: float = 0.002, min_runs: int = 4,
             within: float | None = None, tick: float | None = None, gates: Gates | None = None) -> Classification:
    """Classify a run sequence of per-run means (positive values); see the module docstring.

    ``within``: relative standard error of a run mean from the values inside runs (floor of the
    noise); ``tick``: quantisation step of the values (value unit); ``gates``: the decision gates
    (``min_ratio`` overrides ``gates.min_ratio``)."""
    g = gates or Gates()
    if min_ratio is not None:
        g = dataclasses.replace(g, min_ratio=float(min_ratio))
    m = np.asarray(means, dtype=np.float64)
    n = len(m)
    if n < min_runs or n == 0:
        return Classification("no_runs" if n == 0 else "too_few_runs", np.zeros(n, np.int64), np.zeros(0), 0.0,
                              (), (), None, gates=g)
    if np.any(m <= 0):
        scale = np.median(np.abs(m))
        x = m / scale if scale > 0 else m.copy()  # not ratio data: work on the raw scale
        tick_rel = tick / scale if tick and scale > 0 else None
    else:
        x = np.log(m)
        tick_rel = tick / float(np.median(m)) if tick else None
    pen = g.penalty_factor * math.log(max(n, 2))
    noise = estimate_noise(x, penalty=pen, noise_floor=noise_floor, tick_rel=tick_rel, within=within)
    log_min = math.log(g.min_ratio)
    far = max(outlier_sigmas(n, g.outlier_alpha) * noise.sigma, log_min)

    sustained, scattered, changes, test_scale = _structure(x, noise, g, far, pen)
    # far runs inflate the first noise estimate: once they are set apart, measure it again on the
    # sustained stretches and, if clearly smaller, decide again with it
    resid = np.concatenate([x[s_] - np.median(x[s_]) for s_ in sustained]) if sustained else np.zeros(0)
    if resid.size >= 10:
        s2 = max(_MAD * float(np.median(np.abs(resid - np.median(resid)))), noise.floor)
        if s2 < 0.8 * noise.sigma:
            noise = dataclasses.replace(noise, sigma=s2, sigma_lr=s2 * long_run_factor(noise.rho))
            far = max(outlier_sigmas(n, g.outlier_alpha) * noise.sigma, log_min)
            sustained, scattered, changes, test_scale = _structure(x, noise, g, far, pen)
    labels, levels = _label_runs(x, sustained, scattered, noise, g, far)
    return _verdict(x, labels, levels, noise, g, changes, test_scale)


def local_level(x: np.ndarray, width: int = LOCAL_WIDTH) -> np.ndarray:
    """Running median over ``width`` runs; the first and last ``width // 2`` runs get the median of
    the first / last ``3 width`` runs (so that a few far runs at an end stand out as well)."""
    n = x.size
    w = min(width, n)
    rm = median_filter(x, size=w, mode="nearest")
    h = w // 2
    if h:
        e = min(3 * width, n)
        rm[:h] = np.median(x[:e])
        rm[n - h:] = np.median(x[n - e:])
    return rm


def _segments(x: np.ndarray, keep: np.ndarray, noise: RunNoise, g: Gates, pen: float):
    """Pruned segmentation of the runs ``keep``: (segments as arrays of run indices, changes in run
    indices, test scale)."""
    xk = x[keep]
    cps0 = fpop((xk - np.median(xk)) / noise.sigma_lr, pen, 1) if xk.size >= 2 else np.zeros(0, np.int64)
    z, test_scale = _test_series(xk, cps0, noise, g.clip)
    min_effect = max(math.log(g.min_ratio), g.visible * noise.sigma)
    changes_k = _prune(z, [int(c) for c in cps0], test_scale, min_effect, g.alpha)
    bounds = [0] + [c.index for c in changes_k] + [xk.size]
    segs = [keep[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    changes = tuple(Change(int(keep[c.index]), c.effect, c.p_value) for c in changes_k)
    return segs, changes, test_scale


def _structure(x: np.ndarray, noise: RunNoise, g: Gates, far: float, pen: float):
    """Sustained stretches (segments of >= ``min_block`` runs, and excursions: >= ``min_block``
    consecutive far runs on one side) and scattered far runs, by alternating a segmentation of the
    runs that are not far and the test of every run against the level of the segment around it."""
    n = x.size
    ref = local_level(x)
    cand = np.abs(x - ref) > far
    segs: list[np.ndarray] = []
    changes: tuple[Change, ...] = ()
    test_scale = noise.sigma_lr
    excursions: list[np.ndarray] = []
    for _ in range(5):
        side = np.sign(x - ref)
        excursions = [np.arange(a, b + 1) for a, b in _groups(cand, side) if b - a + 1 >= g.min_block]
        keep = np.flatnonzero(~cand)
        if keep.size == 0:
            segs, changes = [], ()
            break
        segs, changes, test_scale = _segments(x, keep, noise, g, pen)
        long = [s_ for s_ in segs if len(s_) >= g.min_block] or [keep]
        # the level around every run: its long segment, else the long segment before (or after) it
        firsts = np.array([s_[0] for s_ in long])
        lv = np.array([float(np.mean(x[s_])) for s_ in long])
        k = np.clip(np.searchsorted(firsts, np.arange(n), side="right") - 1, 0, len(long) - 1)
        ref = lv[k]
        new = np.abs(x - ref) > far
        if np.array_equal(new, cand):
            break
        cand = new
    sustained = [s_ for s_ in segs if len(s_) >= g.min_block and not cand[s_].any()]
    if not sustained and not excursions:
        sustained = [np.flatnonzero(~cand)] if (~cand).any() else [np.arange(n)]
        cand[sustained[0]] = False
    in_exc = np.zeros(n, dtype=bool)
    for e in excursions:
        in_exc[e] = True
    covered = in_exc.copy()
    for s_ in sustained:
        covered[s_] = True
    scattered = np.flatnonzero(~covered)
    return sustained + excursions, scattered, changes, test_scale


def _label_runs(x: np.ndarray, seg_runs: list[np.ndarray], scattered: np.ndarray, noise: RunNoise, g: Gates,
                far: float) -> tuple[np.ndarray, np.ndarray]:
    """Band per run (-1 = outlier) and band levels, in value order (see the module docstring, 4.)."""
    n = x.size
    log_min = math.log(g.min_ratio)
    labels = np.full(n, -1, np.int64)
    seg_mean = [float(np.mean(x[r])) for r in seg_runs]
    seg_size = [len(r) for r in seg_runs]
    seg_se = [max(noise.sigma_lr, float(np.std(x[r]))) / math.sqrt(len(r)) for r in seg_runs]
    groups = _group_levels(seg_mean, seg_size, seg_se, log_min) if seg_runs else []
    for gi, grp in enumerate(groups):
        for s in grp:
            labels[seg_runs[s]] = gi
    lv = [float(np.mean(x[labels == gi])) for gi in range(len(groups))]
    tol = [max(far, 2.0 * float(np.std(x[labels == gi]))) for gi in range(len(groups))]
    sep = g.band_sigmas * noise.sigma
    pending = []
    sustained = np.flatnonzero(labels >= 0)
    for i in scattered:
        if not lv:
            pending.append(i)
            continue
        k = np.searchsorted(sustained, i)
        around = int(labels[sustained[k - 1]] if k > 0 else labels[sustained[min(k, sustained.size - 1)]])
        near = int(np.argmin([abs(x[i] - v) for v in lv]))
        if near != around and abs(x[i] - lv[near]) < tol[near] and abs(lv[near] - lv[around]) >= sep:
            labels[i] = near  # a visit of another band, clearly apart from the one around it
        elif abs(x[i] - lv[around]) < far:
            labels[i] = around
        else:
            pending.append(i)
    # scattered far runs at a common level: a band when they have a share and agree
    if pending:
        main_lv = lv[int(np.argmax(np.bincount(labels[labels >= 0])))] if lv else float(np.median(x))
        xs = x[pending]
        order = np.argsort(xs)
        cuts = np.flatnonzero(np.diff(xs[order]) > 2.0 * noise.sigma) + 1
        for cl in np.split(np.asarray(pending)[order], cuts):
            v = x[cl]
            dist = abs(float(np.mean(v)) - main_lv)
            spread = float(np.std(v))
            if (len(cl) >= max(g.min_block, g.min_share * n) and spread <= 1.5 * noise.sigma
                    and spread <= 0.25 * dist and dist >= sep):
                labels[cl] = len(lv)
                lv.append(float(np.mean(v)))
    if not lv:  # everything far from everything (tiny series): one band of all runs
        labels[:] = 0
        lv = [float(np.mean(x))]
    order = np.argsort(lv)
    remap = np.full(len(lv), -1, np.int64)
    remap[order] = np.arange(len(lv))
    labels = np.where(labels >= 0, remap[np.maximum(labels, 0)], -1)
    levels = np.array([float(np.mean(x[labels == k])) for k in range(len(lv))])
    return labels, levels


def _episodes(blocks: list[tuple[int, int, int]], labels: np.ndarray, min_block: int) -> list[int]:
    """Indices (into ``blocks``) of episodes: the only block of a band other than the most populated
    one, between two blocks of one band."""
    count: dict[int, int] = {}
    for b in blocks:
        count[b[0]] = count.get(b[0], 0) + 1
    main = int(np.argmax(np.bincount(labels[labels >= 0])))
    out = []
    for i in range(1, len(blocks) - 1):
        band, s, e = blocks[i]
        if band != main and count[band] == 1 and blocks[i - 1][0] == blocks[i + 1][0] and e - s + 1 >= min_block:
            out.append(i)
    return out


def collapse_blocks(blocks: list[tuple[int, int, int]], drop: list[int]) -> list[tuple[int, int, int]]:
    """Blocks without the ``drop`` ones, neighbours of the same band merged."""
    out: list[tuple[int, int, int]] = []
    for i, b in enumerate(blocks):
        if i in drop:
            continue
        if out and out[-1][0] == b[0]:
            out[-1] = (b[0], out[-1][1], b[2])
        else:
            out.append(b)
    return out


def _warmup_runs(x: np.ndarray, labels: np.ndarray, levels: np.ndarray, g: Gates) -> int:
    """Number of leading runs (at most ``max(min_block, 10 %)``) slower by ``min_ratio`` than the
    band of the ``min_block`` non-outlier runs that follow them and not in it; 0 otherwise."""
    n = x.size
    limit = max(g.min_block, int(0.1 * n))
    for L in range(1, min(limit, n - 1) + 1):
        b = labels[L]
        if b < 0:
            continue
        nxt = labels[L:][labels[L:] >= 0][:g.min_block]
        if len(nxt) < g.min_block or np.any(nxt != b):
            continue
        ok = np.all(labels[:L] != b) and np.all(x[:L] - levels[int(b)] >= math.log(g.min_ratio))
        return L if ok else 0
    return 0


def _verdict(x, labels, levels, noise, g, changes, test_scale) -> Classification:
    blocks = _blocks(labels)
    nb = len(levels)
    trend = None
    warm = 0
    episodes: list[tuple[int, int, int]] = []
    if nb <= 1:
        verdict = "stable"
    else:
        ep = _episodes(blocks, labels, g.min_block)
        episodes = [blocks[i] for i in ep]
        rest = collapse_blocks(blocks, ep)
        seen = [b[0] for b in rest]
        if len(seen) != len(set(seen)):
            verdict = "bimodal" if nb == 2 else "bands"
            episodes = []
        elif len(rest) >= 2:
            verdict = "step"
        else:
            verdict = "episode"
    if verdict in ("stable", "step"):
        warm = _warmup_runs(x, labels, levels, g)
        rest_bands = set(labels[warm:][labels[warm:] >= 0].tolist())
        if warm and len(rest_bands) == 1:
            verdict = "warmup"
        else:
            warm = 0
    outl = tuple(int(i) for i in np.flatnonzero(labels < 0) if i >= warm)
    if verdict == "stable":
        trend = _trend(x, labels, g, noise, test_scale, nb_blocks=1)
        verdict = "trend" if trend and trend["significant"] else ("outliers" if outl else "stable")
    elif verdict == "step":
        t = _trend(x, labels, g, noise, test_scale, nb_blocks=len(collapse_blocks(blocks, [])))
        if t and t["significant"] and t["linear_fits_better"]:
            verdict, trend = "trend", t
    return Classification(verdict, labels, levels, noise.sigma, tuple(blocks), outl, trend, tuple(episodes),
                          changes, noise, test_scale, warm, x, g)


def _trend(x: np.ndarray, labels: np.ndarray, g: Gates, noise: RunNoise, scale: float, nb_blocks: int) -> dict | None:
    """Least-squares drift of the winsorised non-outlier runs, with a long-run standard error, and
    the BIC of a straight line vs the blocks (2 parameters vs 2 per block - 1)."""
    idx = np.flatnonzero(labels >= 0)
    if idx.size < 6:
        return None
    y = x[idx]
    t = idx.astype(np.float64)
    tc = t - t.mean()
    sxx = float(np.sum(tc * tc))
    slope = float(np.sum(tc * (y - y.mean())) / sxx) if sxx > 0 else 0.0
    resid_lin = y - (y.mean() + slope * tc)
    r = np.clip(resid_lin, -g.clip * noise.sigma, g.clip * noise.sigma)
    rho = max(robust_lag1(r), noise.rho)
    s_lr = max(float(np.std(r)), noise.floor) * long_run_factor(rho)
    se = s_lr / math.sqrt(sxx) if sxx > 0 else math.inf
    zstat = slope / se if se > 0 else 0.0
    p = float(special.erfc(abs(zstat) / math.sqrt(2.0)))
    drift = slope * (t[-1] - t[0])
    pc = np.zeros_like(y)
    for lab in np.unique(labels[idx]):
        pc[labels[idx] == lab] = np.mean(y[labels[idx] == lab])
    m = y.size
    tiny = 1e-300
    bic_lin = m * math.log(max(float(np.sum(resid_lin ** 2)) / m, tiny)) + 2 * math.log(m)
    bic_pc = m * math.log(max(float(np.sum((y - pc) ** 2)) / m, tiny)) + (2 * nb_blocks - 1) * math.log(m)
    sig = bool(p < g.alpha and abs(drift) >= max(math.log(g.min_ratio), g.visible * noise.sigma))
    return {"slope_per_run": slope, "drift_ratio": float(math.exp(drift)), "p_value": p, "z": float(zstat),
            "significant": sig, "bic_linear": bic_lin, "bic_steps": bic_pc, "linear_fits_better": bool(bic_lin < bic_pc)}


def block_ratio(x: np.ndarray, a: np.ndarray, b: np.ndarray, scale: float) -> tuple[float, float, float]:
    """exp(mean x[b] - mean x[a]) with its 95 % interval from the long-run sd ``scale``."""
    d = float(np.mean(x[b]) - np.mean(x[a]))
    se = scale * math.sqrt(1.0 / max(len(a), 1) + 1.0 / max(len(b), 1))
    return math.exp(d), math.exp(d - 1.959964 * se), math.exp(d + 1.959964 * se)
