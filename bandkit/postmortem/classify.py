"""Classification of a benchmark's run sequence: stable, step, bimodal / bands, trend, warm-up,
outliers.

Method (on ``x = log(per-run mean)``, so that levels compare as ratios):

1. Noise: ``sigma`` = 1.4826 x MAD of the first differences / sqrt(2) (insensitive to steps and
   to isolated outliers), floored at ``noise_floor`` (relative, default 0.2 %) so that runs that
   agree to a few ppm do not make every wiggle "significant".
2. Segmentation: exact penalised L2 segmentation of ``x / sigma`` (FPOP from
   :mod:`bandkit.changepoints.fpop`), penalty ``3 log n`` (BIC-like, a bit conservative for
   the short series runners produce).
3. Levels: segment levels are merged, smallest gap first, while neighbouring levels differ by
   less than ``max(log(min_ratio), 4 sigma)``. A level is a *band* when the runs hold it for three
   or more consecutive runs, or for two if it lies far from the most populated level (6 sigma at 20
   runs, 8 at 400: :data:`FAR_SIGMAS_BASE`), or when three or more isolated runs visit it that agree
   (sd <= 2 sigma) and lie as far out; the
   runs of other levels are *outliers* (heavy-tailed noise makes isolated runs far out, and a few of
   them at a similar level are no second band).
4. Verdict from the band sequence of the runs (outliers left out): one band -> ``stable`` (or
   ``trend`` when Kendall's tau is significant, p < 0.001, and the Theil-Sen drift over the
   series reaches ``min_ratio``; or ``outliers`` when there are some); every band one contiguous
   block -> ``step`` (one step per block boundary; ``warmup`` instead when the only step follows
   a short, slower first block of at most ``max(2, 10 % of runs)`` runs; ``trend`` instead when the
   drift is significant as above and a straight line has a lower BIC than the blocks - a linear
   drift cut into a staircase); a band that comes back -> ``bimodal`` (two bands) or ``bands``.

Step statistics: ``before`` / ``after`` are the means of the per-run means of the two blocks
(outliers excluded); ``ratio = after / before``; the 95 % CI and p-value come from Welch's t-test
on the log run means of the two blocks. The p-value is nominal: it does not correct for the step
location having been chosen by the data.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..changepoints.fpop import fpop
from ..robust import diff_noise_sd

#: How far (in noise sd) a level held only briefly must lie from the main level to count as a band:
#: ``FAR_SIGMAS_BASE + FAR_SIGMAS_PER_DECADE * log10(n)`` (6 sigma at 20 runs, 7.9 at 400): the more
#: runs, the more chance pairs of far runs heavy-tailed noise produces. Chosen on generated data
#: (benchmarks/bench_runners.py, part B: Student-t noise vs short bimodal episodes).
FAR_SIGMAS_BASE = 4.0
FAR_SIGMAS_PER_DECADE = 1.5

VERDICTS = ("stable", "step", "bimodal", "bands", "trend", "warmup", "outliers", "too_few_runs", "no_runs")


@dataclass(frozen=True)
class RunSegmentation:
    """Internal result: per-run band label (-1 = outlier), band levels (log), sigma, blocks."""

    labels: np.ndarray
    levels: np.ndarray
    sigma: float
    change_points: np.ndarray


def robust_sigma(x: np.ndarray) -> float:
    """Noise sd of a piecewise-constant series from first differences (MAD / sqrt 2)."""
    if len(x) < 3:
        return float(np.std(x)) if len(x) > 1 else 0.0
    return float(diff_noise_sd(x))


def merge_levels(seg_lv: np.ndarray, seg_len: np.ndarray, thr: float) -> list[list[int]]:
    """Agglomerate segment levels (1-D, weighted by run count): merge the closest neighbours until
    every gap is >= ``thr``; returns the groups of segment indices, lowest level first. Running
    sums: only the gaps next to a merge change (a 2,860-run series: 27 s -> 0.1 s)."""
    order = np.argsort(seg_lv)
    groups = [[int(i)] for i in order]
    wsum = seg_len[order].astype(np.float64)
    xwsum = seg_lv[order] * wsum
    level = xwsum / wsum
    gaps = np.diff(level)
    while len(groups) > 1:
        i = int(np.argmin(gaps))
        if gaps[i] >= thr:
            break
        groups[i] = groups[i] + groups.pop(i + 1)
        wsum[i] += wsum[i + 1]
        xwsum[i] += xwsum[i + 1]
        wsum, xwsum, level = np.delete(wsum, i + 1), np.delete(xwsum, i + 1), np.delete(level, i + 1)
        level[i] = xwsum[i] / wsum[i]
        gaps = np.delete(gaps, i)
        if i > 0:
            gaps[i - 1] = level[i] - level[i - 1]
        if i < len(gaps):
            gaps[i] = level[i + 1] - level[i]
    return groups


def segment_runs(x: np.ndarray, *, min_ratio: float = 1.05, noise_floor: float = 0.002,
                 penalty_factor: float = 3.0, min_block: int = 2) -> RunSegmentation:
    """Segment ``x`` (log run means) and group segments into levels; see the module docstring."""
    n = len(x)
    sigma = max(robust_sigma(x), noise_floor)
    pen = penalty_factor * math.log(max(n, 2))
    cps = fpop(x / sigma, pen, 1) if n >= 2 else np.zeros(0, np.int64)
    bounds = np.concatenate([[0], cps, [n]]).astype(np.int64)
    seg_lv = np.array([np.mean(x[a:b]) for a, b in zip(bounds[:-1], bounds[1:])])
    seg_len = np.diff(bounds)
    # agglomerate levels (1-D, weighted by run count)
    thr = max(math.log(min_ratio), 4.0 * sigma)
    groups = merge_levels(seg_lv, seg_len, thr)
    seg_group = np.empty(len(seg_lv), np.int64)
    for gi, g in enumerate(groups):
        seg_group[g] = gi
    run_group = np.repeat(seg_group, seg_len)
    # Which levels are bands (see the module docstring): held for > min_block consecutive runs
    # (or for exactly min_block when far from the most populated level), or visited by >= 3
    # isolated runs that agree with each other (sd <= 2 sigma) and stand as far out.
    # Heavy-tailed noise makes isolated far runs; a few of them at a similar level are no band.
    far_sigmas = FAR_SIGMAS_BASE + FAR_SIGMAS_PER_DECADE * math.log10(max(n, 10))
    ng = len(groups)
    longest = np.zeros(ng, dtype=np.int64)
    i = 0
    while i < n:
        j = i
        while j + 1 < n and run_group[j + 1] == run_group[i]:
            j += 1
        longest[run_group[i]] = max(longest[run_group[i]], j - i + 1)
        i = j + 1
    sizes = np.bincount(run_group, minlength=ng)
    main = int(np.argmax(sizes))
    main_lv = float(np.mean(x[run_group == main]))
    ok = np.zeros(ng, dtype=bool)
    for gi in range(ng):
        xs = x[run_group == gi]
        far = gi == main or abs(float(np.mean(xs)) - main_lv) >= far_sigmas * sigma
        if longest[gi] > min_block or (longest[gi] == min_block and far):
            ok[gi] = True
        elif sizes[gi] >= 3 and far and float(np.std(xs)) <= 2.0 * sigma:
            ok[gi] = True
    labels = run_group.copy()
    labels[~ok[run_group]] = -1
    keep = [gi for gi in range(len(groups)) if ok[gi]]
    remap = {g: k for k, g in enumerate(keep)}
    labels = np.array([remap.get(int(g), -1) if g >= 0 else -1 for g in labels], dtype=np.int64)
    levels = np.array([np.mean(x[labels == k]) for k in range(len(keep))])
    return RunSegmentation(labels, levels, sigma, cps)


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


def welch_ratio(a: np.ndarray, b: np.ndarray) -> tuple[float | None, float | None, float | None]:
    """95 % CI of exp(mean b - mean a) and Welch p-value for log run means ``a`` (before), ``b``."""
    if len(a) < 2 or len(b) < 2:
        return None, None, None
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    se = math.sqrt(va + vb)
    diff = float(np.mean(b) - np.mean(a))
    if se == 0:
        return _exp(diff), _exp(diff), (0.0 if diff != 0 else 1.0)
    df = (va + vb) ** 2 / ((va ** 2 / (len(a) - 1) if len(a) > 1 else 0) + (vb ** 2 / (len(b) - 1) if len(b) > 1 else 0))
    t = stats.t.ppf(0.975, df)
    p = float(2 * stats.t.sf(abs(diff / se), df))
    return _exp(diff - t * se), _exp(diff + t * se), p


def _exp(x: float) -> float:
    """exp without OverflowError (a CI end of a few runs spread over decades can be astronomical)."""
    return math.exp(x) if x < 709.0 else math.inf


@dataclass(frozen=True)
class Classification:
    """What :func:`classify` found (indices are 0-based positions in the run sequence)."""

    verdict: str
    labels: np.ndarray
    levels: np.ndarray
    sigma: float
    blocks: tuple[tuple[int, int, int], ...]
    outliers: tuple[int, ...]
    trend: dict | None


def classify(means: np.ndarray, *, min_ratio: float = 1.05, noise_floor: float = 0.002,
             min_runs: int = 4) -> Classification:
    """Classify a run sequence of per-run means (positive values); see the module docstring."""
    m = np.asarray(means, dtype=np.float64)
    n = len(m)
    empty = Classification("no_runs" if n == 0 else "too_few_runs", np.zeros(n, np.int64), np.zeros(0), 0.0,
                           (), (), None)
    if n < min_runs:
        return empty
    if np.any(m <= 0):
        x = m / np.median(np.abs(m)) if np.median(np.abs(m)) > 0 else m  # not ratio data: work on raw scale
    else:
        x = np.log(m)
    seg = segment_runs(x, min_ratio=min_ratio, noise_floor=noise_floor)
    labels = seg.labels
    outl = tuple(int(i) for i in np.flatnonzero(labels < 0))
    blocks = _blocks(labels)
    nb = len(seg.levels)
    trend = None
    if nb <= 1:
        trend = _trend(x, labels, min_ratio)
        verdict = "trend" if trend and trend["significant"] else ("outliers" if outl else "stable")
    else:
        bands_seen = [b[0] for b in blocks]
        revisited = len(bands_seen) != len(set(bands_seen))
        if revisited:
            verdict = "bimodal" if nb == 2 else "bands"
        else:
            verdict = "step"
            if len(blocks) == 2:
                first = blocks[0]
                length = first[2] - first[1] + 1
                if length <= max(2, int(0.1 * n)) and seg.levels[first[0]] > seg.levels[blocks[1][0]] \
                        and first[1] == 0:
                    verdict = "warmup"
            if verdict == "step":
                t = _trend(x, labels, min_ratio)
                if t and t["significant"] and t["linear_fits_better"]:
                    verdict, trend = "trend", t
    return Classification(verdict, labels, seg.levels, seg.sigma, tuple(blocks), outl, trend)


#: Most points Theil-Sen's slope is computed on (see :func:`_trend`).
THEIL_SEN_MAX = 2000


def _trend(x: np.ndarray, labels: np.ndarray, min_ratio: float) -> dict | None:
    keep = labels >= 0
    idx = np.flatnonzero(keep)
    if len(idx) < 6:
        return None
    y = x[idx]
    tau, p = stats.kendalltau(idx, y)
    # Theil-Sen takes every pair: O(m^2) time and memory (13,000 runs: 85M slopes, 4.5 GB). Above
    # THEIL_SEN_MAX points it runs on an even thinning of the runs (same trend, wider interval).
    thin = max(1, -(-len(y) // THEIL_SEN_MAX))
    slope, intercept, lo, hi = stats.theilslopes(y[::thin], idx[::thin])
    drift = slope * (idx[-1] - idx[0])
    resid_lin = y - (intercept + slope * idx)
    # piecewise-constant fit by label blocks vs a straight line (same data)
    pc = np.zeros_like(y)
    for lab in np.unique(labels[idx]):
        pc[labels[idx] == lab] = np.mean(y[labels[idx] == lab])
    sig = bool(p < 1e-3 and abs(drift) >= math.log(min_ratio))
    # BIC of a straight line (2 parameters) vs the blocks (levels + change locations)
    m = len(y)
    n_blocks = 1 + int(np.count_nonzero(np.diff(labels[idx])))
    tiny = 1e-300
    bic_lin = m * math.log(max(float(np.sum(resid_lin ** 2)) / m, tiny)) + 2 * math.log(m)
    bic_pc = m * math.log(max(float(np.sum((y - pc) ** 2)) / m, tiny)) + (2 * n_blocks - 1) * math.log(m)
    return {"kendall_tau": float(tau), "p_value": float(p), "slope_per_run": float(slope),
            "drift_ratio": float(math.exp(drift)), "significant": sig, "bic_linear": bic_lin, "bic_steps": bic_pc,
            "linear_fits_better": bool(bic_lin < bic_pc)}
