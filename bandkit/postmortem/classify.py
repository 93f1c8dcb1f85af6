"""Classification of a benchmark's run sequence: stable, step, episode, bimodal / bands, trend,
warm-up, outliers - each through a documented gate (:class:`Gates`), with its effect size and a
p-value that holds under realistic noise (heavy tails, AR(1), slow wander, clock ticks, spikes;
measured by ``benchmarks/calibration.py``).

Method, on ``x = log(per-run mean)`` (levels compare as ratios):

1. **Noise** (:mod:`.noise`): robust run-to-run sd ``sigma`` (capped by scales that levels
   alternating run by run cannot inflate), lag-1 autocorrelation ``rho`` and long-run sd
   ``sigma_lr``, floored by half the clock tick of the values and by the within-run standard error.
   When the scale inside two groups of the values capped ``sigma`` but fewer than two levels come
   out, the runs are classified again with the noise of one level (its own spread): the unit a
   report gives is the one its levels and outliers were judged by.
2. **Far runs**: farther than ``far = max(c sigma, log min_ratio)`` from the level around them,
   ``c`` the two-sided Student-t quantile (n - 1 degrees of freedom) that ``outlier_alpha`` (1 %) of
   Gaussian series exceed once in ``n`` runs (4.2 sd at 20 runs, 4.9 at 10,000). The level around
   a run is first a running median of 7 runs (the last 2 runs: of the last 5), then the level of the segment
   around it (step 3),
   alternating until the far runs settle. ``min_block`` (3) or more consecutive far runs on one
   side whose median distance is at least 0.6 of the largest are an **excursion** (a level held);
   a shock fading away in AR(1) noise (d, rho d, rho^2 d) is not.
3. **Segmentation** of the other runs: exact penalised L2 segmentation (FPOP,
   :mod:`bandkit.changepoints.fpop`) of ``x / sigma_lr``, penalty ``3 log n``, then backward
   pruning: a change stays only if it is significant (:func:`change_p` < ``alpha`` = 0.001: both
   sides winsorised at ``clip`` = 2.5 sigma around their common median, two-sample z with the
   long-run sd of the winsorised residuals, Bonferroni over the places the change could have
   been) and large: ``|effect| >= max(log min_ratio, visible x sigma)`` (a shift a person can see,
   and that slow 1/f wander of the environment does not produce).
4. **Levels and the support gate**: segments of ``min_block`` runs or more and excursions are
   grouped, nearest first, while two levels differ by less than ``max(log min_ratio, 3 standard
   errors)``; these levels are **bands** (each rests on ``min_block`` consecutive runs). The other
   far runs are *scattered*: they join the band around them when within ``far`` of it; they are
   visits of another band when near it, that band stands ``band_sigmas`` (4) sd from the one
   around them, and such visits number ``min_scattered`` (5) and ``min_share`` (5 %) of the runs
   outside the band; scattered runs at a common level make a band of their own with
   ``min_scattered`` runs and ``min_share`` of all runs that agree (sd <= 1.5 sigma and <= 1/4 of
   their distance from the main band, which is >= 4 sd). A band made of scattered runs (no run-order
   support) needs, besides, values that hold two groups beyond what one level of noise makes: the
   two-group t (:func:`.noise.two_group_t`) at or above its Gaussian 99 % quantile for ``n`` runs
   (:data:`TWO_GROUP_T99`; 4.40 at 20 runs, 3.56 at 50). A **second level** needs no common
   cluster: the far runs on one side of the main band (or a group of them) that hold
   ``level_share`` (10 %) of the runs and ``min_block`` runs, as tight as one level of this noise
   is (sd <= sigma sqrt(chi2_{k-1}(1 - alpha) / k) for k runs; with ``min_scattered`` runs or more,
   at the main band's own spread if wider than sigma) and as far apart (>= 4 sd, sd <=
   1/4 of the distance), are a band however they alternate with the main one (3 of 24 runs at
   x1.33, visited one run at a time); visits of an existing band count the same way. Everything
   else is an **outlier**: a handful of scattered points (or far runs of many sizes) is never a
   band. Once the bands are known, the runs between two of them of which one alternates with the
   other (is reached by scattered runs) belong to the level they are nearest to: band medians to
   a fixed point, then the split moved to the widest gap in the values within 1 sd of the
   midpoint (not ``far`` from the main band: runs at 153-155 us beside levels 147 and 157); no
   band is created or emptied, outliers stay, a step's stretches keep their runs. A band made of
   scattered runs that this step widens into runs of many sizes (sd over the one-level bound, at the
   noise or the main band's own spread if wider) is dropped: its scattered runs are outliers.
5. **Verdict** from the sequence of band blocks (outliers left out): one band -> ``stable``, or
   ``trend`` (least-squares drift with a long-run standard error, ``p < alpha``,
   ``|drift| >= max(log min_ratio, visible x sigma)``, and a straight line that fits better than one step at
   its best place: BIC, the step charged 4 log n - a x1.025 step read "drift x1.037"), or ``outliers``. The only block of a band
   other than the most populated one, between two blocks of one band, is an **episode** (a step
   and its return) - unless outlier runs at its level (2 or more, together ``level_share`` of the runs,
   spread within one level) make it a level visited again (:func:`_visits_of_the_episode`). After
   removing episodes: a band that comes back -> ``bimodal`` (two bands) or ``bands``; two or more
   blocks -> ``step``; only episodes -> ``episode``. Any of these becomes ``trend`` when the drift is
   significant and a straight line has a lower BIC than the band levels of the blocks (a drift cut
   into a staircase), and a ``step`` whose 3-4 blocks only rise (or fall) does when the line beats the best
   single step and the changes add nothing significant to the line (:func:`_ramp`, :data:`RAMP_LR99`).
   Leading runs (at most max(3, min(10 %, 10))) slower by ``min_ratio`` than the one band that holds every
   later run, with slow outliers rare later on, are a ``warmup`` (the last runs of
   that stretch under ``min_ratio`` end it; later runs at the warm-up's level, as rare and never ``min_block``
   in a row, are slow outliers, not a second level; a band run beside leading outliers that is 2 sds and
   ``min_ratio`` slow is a warm-up run too: :func:`_warmup_runs`).
6. **The step / episode gate** (:func:`change_holds`, sequences of up to ``GATE_MAX_RUNS`` (200) runs): a
   ``step`` or ``episode`` stands only when one of its changes is larger than one level of noise makes in
   0.1 % of series, judged with the spread inside the levels it reports (every run, outliers against the level
   before them, winsorised), the AR(1) standard error of the two block means at the lag-1 correlation of those
   residuals (corrected for its small-sample bias: :func:`gate_rho`, :func:`gap_t`) and a quantile calibrated for
   the number of runs over every place the change could have been (:data:`STEP_T999`, :data:`EPISODE_T999`: 5.51
   / 6.25 at 20 runs; a step's also keeps AR(1) 0.3 noise under 0.5 %). An episode whose return is only the last
   run or two holds as the step at the end it may be. A ``step`` verdict must also beat AR(1) noise of any
   lag-1: the likelihood ratio of one mean shift under AR(1) noise (:func:`step_lr`) at its AR(1) 0.5 99 %
   quantile (:data:`STEP_LR99`) up to 20 runs, 18 from 30 runs (:data:`STEP_LR_CRIT`) - the residuals around
   a step fitted to AR(1) 0.5 noise hide its lag-1; a staircase of two or more changes, which the no-shift model can take for a wander, passes when every change passes it on
   the runs of its two blocks (at :data:`STEP_LR99`). A one-level
   verdict reached once the outlier gate (7) put back runs the classifier had set apart becomes the step at the
   best split when that passes this gate (:func:`step_missed`: a step's new level read as outlier runs). On 10-30 runs the noise scale of
   steps 1-4, measured on those same runs, can come out at a third of the true one and make pure noise a
   "step"; otherwise the runs are one level with the noise of its own spread (stable, outliers, trend or warm-up).
7. **The outlier gate** (:func:`gate_outliers`, up to ``GATE_MAX_RUNS`` runs): a far run stays an outlier only
   when the generalized ESD test (Rosner 1983; the first step is Grubbs' test) at ``outlier_alpha`` finds it among
   the runs' distances from the medians of their bands, at levels simulated per number of runs
   (:data:`ESD_ALPHA_RATIO`) - where ``far`` rests on a scale measured from the same runs (6-10 % of Gaussian series
   of 10-50 runs had "outlier runs" without it). Its outliers on t3 or right-skewed noise are runs in that tail.

Every change carries its effect (log ratio of the levels on each side) and its p-value; step and
episode ratios get a 95 % interval from the long-run standard error of the block means.
"""
from __future__ import annotations

import dataclasses
import functools
import heapq
import math
from dataclasses import dataclass, field

import numpy as np
from ..changepoints.penalty import long_run_factor
from ..robust import distinct, exp_ratio
from .distributions import chi2_isf, erfc, running_median, t_isf
from .noise import (RunNoise, clip_to, clipped_residuals, estimate_noise, estimate_noise_steps, fpop_cps,  # noqa: F401
                    fpop_cps_steps, lag1, lag1_list, mean, median, robust_sd, run_ops, segment_medians, std,
                    two_group_t)

VERDICTS = ("stable", "step", "episode", "bimodal", "bands", "trend", "warmup", "outliers", "too_few_runs",
            "no_runs")
#: Verdicts of runs that were not classified: no noise was estimated (``noise_rel`` null).
NOT_CLASSIFIED = ("no_runs", "too_few_runs")

#: Width (runs) of the running median that outlier candidates are measured from.
LOCAL_WIDTH = 7
#: A band run among or right after leading outlier runs joins their warm-up when it is this many run-to-run sds (and
#: ``min_ratio``) slower than the band (:func:`_warmup_runs`): with ``min_ratio`` alone, at 5-10 % noise a run
#: 0.3-0.6 sd slow joined a far first run (a one-run spike at run 1 or 2 of outlier_null.py's power read "warm-up").
WARMUP_JOIN_SIGMAS = 2.0

#: One-sided false-alarm level of the leading-runs test of :func:`_warmup_runs` (:func:`_leading_slow`: the first k
#: runs, all in the one band and all ``min_ratio`` slower than its later runs, against those runs; Bonferroni over
#: the k tried): a warm-up whose runs both sit within ``far`` - once a later spike has raised the noise scale,
#: or at the scale's own error at 20 runs - is still set apart (benchmarks/warmup_spike.py).
WARMUP_LEAD_ALPHA = 0.001

#: Width (runs) of the window whose median is the level of the last ``END_WIDTH // 2`` runs (``2 min_block - 1``).
END_WIDTH = 5


@dataclass(frozen=True)
class Gates:
    """The gates a finding passes to reach the verdict (defaults measured by
    ``benchmarks/calibration.py``, see benchmarks/RESULTS_calibration.md).

    ``min_ratio``: smallest level change, episode, band distance, drift or outlier reported
    (1.03 = 3 %). ``alpha``: significance of a level change or a drift. ``visible``: a change or
    drift must also reach this many run-to-run sds. ``min_block``: consecutive runs that make a
    level a band, an episode or a step's side. ``min_share``: share of the runs that makes a
    scattered level a band, with at least ``min_scattered`` runs. ``level_share``: share of the runs
    (with at least ``min_block`` runs) that makes scattered runs a band however they alternate (run
    by run), when they sit at one level (spread within the noise) clearly apart from the main
    band. ``band_sigmas``: scattered runs count as visits of a band (and form a
    band of their own) only that many run-to-run sds away from the band around them. ``outlier_alpha``: chance that a series of pure Gaussian noise has an
    outlier (the level of ``far`` and of the ESD test of :func:`gate_outliers`). ``penalty_factor``: FPOP penalty per change in units of ``log n``. ``clip``:
    winsorising bound (sigmas) of the values the tests see.
    """

    min_ratio: float = 1.03
    alpha: float = 0.001
    visible: float = 1.0
    min_block: int = 3
    min_share: float = 0.05
    min_scattered: int = 5
    level_share: float = 0.10
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
    log ratio of the segment means (after / before); ``p_value`` from :func:`change_p`."""

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
@functools.lru_cache(maxsize=256)
def outlier_sigmas(n: int, alpha: float = 0.01) -> float:
    """Two-sided quantile exceeded with probability ``alpha`` somewhere in ``n`` runs of Gaussian
    noise whose sd is estimated from those runs: Student's t with ``n - 1`` degrees of freedom, so
    short sequences do not flag runs by the estimate's own error (4.4 sd at 20 runs, 4.1 at 100,
    4.9 at 10,000). Cached (a pure function of its arguments; a file's benchmarks share a few run counts)."""
    return t_isf(alpha / (2.0 * max(n, 1)), max(3.0, n - 1.0))


def _flat(dist: np.ndarray) -> bool:
    """A stretch of far runs (distances from the level around them) holds a level, rather than one
    disturbance fading away (a heavy-tailed shock in AR(1) noise: d, rho d, rho^2 d, ...), when its
    median distance is at least 0.6 of its largest."""
    return bool(median(dist) >= 0.6 * dist.max())


def _groups(mask: np.ndarray, side: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) of maximal stretches of True in ``mask`` with the same ``side``."""
    out = []
    i, n = 0, mask.size
    mask, side = mask.tolist(), side.tolist()  # (Python bools and floats: the same tests, no numpy scalars)
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
    for i, lab in enumerate(labels.tolist()):  # (Python ints: the same tests, no numpy scalars)
        if lab < 0:
            continue
        if out and out[-1][0] == lab:
            out[-1] = (lab, out[-1][1], i)
        else:
            out.append((lab, i, i))
    return out


# --------------------------------------------------------------------------- segmentation
def _test_scale(x: np.ndarray, cps: np.ndarray, noise: RunNoise, clip: float) -> float:
    """Long-run sd of the residuals from the segment medians, winsorised at ``clip`` sigma: the
    scale of the tests on block means."""
    rl = clipped_residuals(x, cps, -clip * noise.sigma, clip * noise.sigma) if x.size > 1 else None
    if rl is not None:  # (on lists: the same floats)
        return max(std(np.array(rl)), noise.floor) * long_run_factor(max(lag1_list(rl), noise.rho))
    r = clip_to(x - segment_medians(x, cps), -clip * noise.sigma, clip * noise.sigma)
    rho = lag1(r)
    sd = std(r) if r.size > 1 else noise.sigma
    return max(sd, noise.floor) * long_run_factor(max(rho, noise.rho))


def change_p(left: np.ndarray, right: np.ndarray, scale: float, clip: float) -> float:
    """p-value of a level change between the values ``left`` and ``right`` (log run means) at a
    location that was searched: both sides winsorised at ``clip`` (absolute) around their common
    median (so that a few heavy-tailed runs cannot make a short segment), two-sample z with the
    long-run sd ``scale``, Bonferroni over the ``len(left) + len(right) - 1`` places the change
    could have been."""
    nl, nr = left.size, right.size
    if nl == 0 or nr == 0 or scale <= 0:
        return 1.0
    both = np.concatenate([left, right])
    med = float(median(both))
    w = clip_to(both, med - clip, med + clip)
    z = (mean(w[nl:]) - mean(w[:nl])) / (scale * math.sqrt(1.0 / nl + 1.0 / nr))
    return float(min(1.0, (nl + nr - 1) * erfc(abs(z) / math.sqrt(2.0))))


def _prune(x: np.ndarray, cps: list[int], scale: float, clip: float, min_effect: float,
           alpha: float) -> list[Change]:
    """Backward elimination: drop the weakest change (too small, else least significant) until every
    change is significant (:func:`change_p` between its neighbouring changes) and large enough.
    Removing a change only alters its two neighbours' tests, so only those are recomputed."""
    k = len(cps)
    if k == 0:
        return []
    pos = np.asarray(cps, dtype=np.int64)
    prev = np.arange(-1, k - 1)
    nxt = np.arange(1, k + 1)
    active = np.ones(k, dtype=bool)
    eff = np.zeros(k)
    pval = np.ones(k)

    def bounds(j: int) -> tuple[int, int, int]:
        a = 0 if prev[j] < 0 else int(pos[prev[j]])
        b = x.size if nxt[j] >= k else int(pos[nxt[j]])
        return a, int(pos[j]), b

    def update(j: int) -> None:
        a, c, b = bounds(j)
        eff[j] = mean(x[c:b]) - mean(x[a:c])
        pval[j] = change_p(x[a:c], x[c:b], scale, clip)

    for j in range(k):
        update(j)
    while active.any():
        small = active & (np.abs(eff) < min_effect)
        if small.any():
            j = int(small.nonzero()[0][np.abs(eff[small]).argmin()])
        else:
            j = int(active.nonzero()[0][pval[active].argmax()])
            if pval[j] < alpha:
                break
        active[j] = False
        pj, nj = prev[j], nxt[j]
        if pj >= 0:
            nxt[pj] = nj
        if nj < k:
            prev[nj] = pj
        for m in (pj, nj):
            if 0 <= m < k and active[m]:
                update(m)
    return [Change(int(pos[j]), float(eff[j]), float(pval[j])) for j in active.nonzero()[0]]


def _group_levels(means: list[float], sizes: list[int], ses: list[float], thr_min: float) -> list[list[int]]:
    """Group 1-D levels, nearest first, while neighbours differ by less than max(thr_min, 3 SE).

    Each step merges the adjacent pair with the smallest gap / threshold (the leftmost among equals); a
    heap of the pairs that qualify, with a version per pair, makes it O(k log k) instead of rescanning
    all k pairs per merge (a fuzzed pytest-benchmark file with 12,000 segments took 60 s)."""
    order = sorted(range(len(means)), key=lambda i: means[i])
    k = len(order)
    groups = [[i] for i in order]
    gm = [means[i] for i in order]
    gn = [sizes[i] for i in order]
    gv = [ses[i] ** 2 for i in order]  # variance of the group's mean
    nxt = list(range(1, k + 1))
    prv = list(range(-1, k - 1))
    alive = [True] * k
    ver = [0] * k  # version of the pair (i, nxt[i])
    heap: list[tuple[float, int, int]] = []

    def push(i: int) -> None:
        j = nxt[i]
        if j < k:
            gap = gm[j] - gm[i]
            thr = max(thr_min, 3.0 * math.sqrt(gv[i] + gv[j]))
            if gap < thr:
                heapq.heappush(heap, (gap / thr, i, ver[i]))

    for i in range(k - 1):
        push(i)
    while heap:
        _, i, v = heapq.heappop(heap)
        if not alive[i] or v != ver[i] or nxt[i] >= k:
            continue
        j = nxt[i]
        n_a, n_b = gn[i], gn[j]
        gm[i] = (gm[i] * n_a + gm[j] * n_b) / (n_a + n_b)
        gv[i] = (gv[i] * n_a ** 2 + gv[j] * n_b ** 2) / (n_a + n_b) ** 2
        gn[i] = n_a + n_b
        groups[i].extend(groups[j])
        alive[j] = False
        nxt[i] = nxt[j]
        if nxt[j] < k:
            prv[nxt[j]] = i
        ver[i] += 1
        push(i)
        if prv[i] >= 0:
            ver[prv[i]] += 1
            push(prv[i])
    return [groups[i] for i in range(k) if alive[i]]


# --------------------------------------------------------------------------- classification
def ratio_scale(m: np.ndarray) -> tuple[np.ndarray, float | None]:
    """The run means ``m`` on the scale the post-mortem compares them on: ``(log m, None)``, levels as ratios;
    when some are <= 0 (not ratio data) ``(m / median |m|, that median)``, or ``(m, 0.0)`` when it is 0."""
    if (m <= 0).any():
        scale = median(np.abs(m))
        return (m / scale if scale > 0 else m.copy()), scale
    return np.log(m), None


def classify(means: np.ndarray, *, min_ratio: float | None = None, noise_floor: float = 0.002, min_runs: int = 4,
             within: float | None = None, tick: float | None = None, gates: Gates | None = None) -> Classification:
    """Classify a run sequence of per-run means (positive values); see the module docstring.

    ``within``: relative standard error of a run mean from the values inside runs (floor of the
    noise); ``tick``: quantisation step of the values (value unit); ``gates``: the decision gates
    (``min_ratio`` overrides ``gates.min_ratio``)."""
    return run_ops(classify_steps(means, min_ratio=min_ratio, noise_floor=noise_floor, min_runs=min_runs,
                                  within=within, tick=tick, gates=gates))


def classify_steps(means: np.ndarray, *, min_ratio: float | None = None, noise_floor: float = 0.002,
                   min_runs: int = 4, within: float | None = None, tick: float | None = None,
                   gates: Gates | None = None):
    """:func:`classify` as a generator: it yields its segmentations on lists (:class:`.noise.OPAsk`: the noise
    model's and the structure's), is sent their change points (:func:`.noise.answer_ops`) and returns the
    :class:`Classification` - so that the post-mortems of a file segment their series together
    (:func:`bandkit.postmortem.postmortems`)."""
    g = gates or Gates()
    if min_ratio is not None:
        g = dataclasses.replace(g, min_ratio=float(min_ratio))
    m = np.asarray(means, dtype=np.float64)
    n = len(m)
    if n < min_runs or n == 0:
        return Classification("no_runs" if n == 0 else "too_few_runs", np.zeros(n, np.int64), np.zeros(0), 0.0,
                              (), (), None, gates=g)
    x, scale = ratio_scale(m)
    if scale is None:
        tick_rel = tick / float(median(m)) if tick else None
    else:
        tick_rel = tick / scale if tick and scale > 0 else None
    if tick_rel is not None and tick_rel >= 1.0:
        tick_rel = None  # a "tick" as large as the values (0 s and 1 s) is no timer's resolution
    pen = g.penalty_factor * math.log(max(n, 2))
    noise = yield from estimate_noise_steps(x, penalty=pen, noise_floor=noise_floor, tick_rel=tick_rel, within=within,
                                            two_level=(g.min_share, g.min_scattered, g.band_sigmas))
    out = yield from _classify_x_steps(x, noise, g, pen)
    if noise.two_level is not None and (len(out.levels) < 2 or (out.verdict in ("bimodal", "bands")
                                                                and not two_groups_apart(x, g))):
        # the noise was measured inside two groups of values that the bands do not report: then it is the
        # spread of the one level they do report (a hyperfine file: "noise 1.30 %" beside runs at 5.9-6.1 s
        # and 6.35-6.5 s called one level, and its far runs outliers)
        plain = yield from estimate_noise_steps(x, penalty=pen, noise_floor=noise_floor, tick_rel=tick_rel,
                                                within=within)
        if plain.sigma != noise.sigma:
            out = yield from _classify_x_steps(x, plain, g, pen)
    return gate_outliers(gate_steps(out))


def gate_steps(c: Classification) -> Classification:
    """``c``, or the runs as one level (:func:`_one_level`) when ``c`` is a step or an episode of at most
    ``GATE_MAX_RUNS`` runs whose changes do not pass :func:`change_holds`."""
    if c.verdict in ("step", "episode") and c.x is not None and c.x.size <= GATE_MAX_RUNS and not change_holds(c):
        return _one_level(c.x, c.noise, c.gates)
    return c


def _classify_x(x: np.ndarray, noise: RunNoise, g: Gates, pen: float) -> Classification:
    """:func:`classify` of the log run means ``x`` with the noise model ``noise``."""
    return run_ops(_classify_x_steps(x, noise, g, pen))


def _classify_x_steps(x: np.ndarray, noise: RunNoise, g: Gates, pen: float):
    """:func:`_classify_x` as a generator (its segmentations asked for: :class:`.noise.OPAsk`)."""
    n = x.size
    log_min = math.log(g.min_ratio)
    far = max(outlier_sigmas(n, g.outlier_alpha) * noise.sigma, log_min)

    level0 = local_level(x)  # (the first level around each run: both passes of _structure start from it)
    sustained, scattered, changes, test_scale = yield from _structure_steps(x, noise, g, far, pen, level0)
    # far runs inflate the first noise estimate: once they are set apart, measure it again on the
    # sustained stretches and, if clearly smaller, decide again with it
    resid = np.concatenate([x[s_] - median(x[s_]) for s_ in sustained]) if sustained else np.zeros(0)
    if resid.size >= 10:
        s2 = max(robust_sd(resid), noise.floor)
        if s2 < 0.8 * noise.sigma:
            noise = dataclasses.replace(noise, sigma=s2, sigma_lr=s2 * long_run_factor(noise.rho))
            far = max(outlier_sigmas(n, g.outlier_alpha) * noise.sigma, log_min)
            sustained, scattered, changes, test_scale = yield from _structure_steps(x, noise, g, far, pen, level0)
    labels, levels = _label_runs(x, sustained, scattered, noise, g, far)
    labels = _return_at_the_end(x, labels, levels, far, g)
    labels, levels = _visits_of_the_episode(x, labels, levels, noise.sigma, far, g)
    labels, levels = _tail_bands(x, labels, levels, noise.sigma, far, g)
    return _verdict(x, labels, levels, noise, g, changes, test_scale)


def local_level(x: np.ndarray, width: int = LOCAL_WIDTH) -> np.ndarray:
    """Running median over ``width`` runs; the window is shifted inside the series at its ends (the
    first and last ``width // 2`` runs get the median of the first / last ``width`` runs), so that a
    few far runs at an end stand out as they do in the middle - but the last ``END_WIDTH // 2`` runs get the
    median of the last ``END_WIDTH``: with 7, a step on the last 3 runs (``min_block``) was measured from the 4 runs
    before it, two of its runs were outliers and the third stayed in the main level (a x1.15 step on the last 3 of
    50 runs at 3 % noise: step in 176 of 300 series, c1bce99 213, with this 200; benchmarks/step_at_the_end.py)."""
    n = x.size
    w = min(width, n)
    h = w // 2
    if not h:
        return x.copy()
    rm = np.empty(n)
    if w % 2:  # (an even window is w = n: every run gets the median of all of them, below)
        rm[h:n - h] = running_median(x, w)
    rm[:h] = median(x[:w])
    rm[n - h:] = median(x[n - w:])
    e = min(END_WIDTH, n)
    if e < w:
        # the last runs: ``END_WIDTH`` of them make the level there, so that a step on the last ``min_block`` runs
        # is their level, not two outliers and a run measured from the runs before the step
        rm[n - e // 2:] = median(x[n - e:])
    return rm


def _segments(x: np.ndarray, keep: np.ndarray, noise: RunNoise, g: Gates, pen: float):
    """Pruned segmentation of the runs ``keep``: (segments as arrays of run indices, changes in run
    indices, test scale)."""
    return run_ops(_segments_steps(x, keep, noise, g, pen))


def _segments_steps(x: np.ndarray, keep: np.ndarray, noise: RunNoise, g: Gates, pen: float):
    """:func:`_segments` as a generator (its segmentation asked for: :class:`.noise.OPAsk`)."""
    xk = x[keep]
    cps0 = (yield from fpop_cps_steps((xk - median(xk)) / noise.sigma_lr, pen, 1)) if xk.size >= 2 else []
    test_scale = _test_scale(xk, cps0, noise, g.clip)
    min_effect = max(math.log(g.min_ratio), g.visible * noise.sigma)
    changes_k = _prune(xk, [int(c) for c in cps0], test_scale, g.clip * noise.sigma, min_effect, g.alpha)
    bounds = [0] + [c.index for c in changes_k] + [xk.size]
    segs = [keep[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    changes = tuple(Change(int(keep[c.index]), c.effect, c.p_value) for c in changes_k)
    return segs, changes, test_scale


def _structure(x: np.ndarray, noise: RunNoise, g: Gates, far: float, pen: float, level0: np.ndarray | None = None):
    """:func:`_structure_steps` driven to its end (each segmentation answered as asked)."""
    return run_ops(_structure_steps(x, noise, g, far, pen, level0))


def _structure_steps(x: np.ndarray, noise: RunNoise, g: Gates, far: float, pen: float,
                     level0: np.ndarray | None = None):
    """Sustained stretches (segments of >= ``min_block`` runs, and excursions: >= ``min_block``
    consecutive far runs on one side) and scattered far runs, by alternating a segmentation of the
    runs that are not far and the test of every run against the level of the segment around it
    (``level0``: :func:`local_level` of ``x``, if at hand)."""
    n = x.size
    ref = local_level(x) if level0 is None else level0
    cand = np.abs(x - ref) > far
    segs: list[np.ndarray] = []
    changes: tuple[Change, ...] = ()
    test_scale = noise.sigma_lr
    excursions: list[np.ndarray] = []
    for _ in range(5):
        side = np.sign(x - ref)
        excursions = [np.arange(a, b + 1) for a, b in _groups(cand, side)
                      if b - a + 1 >= g.min_block and _flat(np.abs(x[a:b + 1] - ref[a:b + 1]))]
        keep = (~cand).nonzero()[0]
        if keep.size == 0:
            segs, changes = [], ()
            break
        segs, changes, test_scale = yield from _segments_steps(x, keep, noise, g, pen)
        long = [s_ for s_ in segs if len(s_) >= g.min_block] or [keep]
        # the level around every run: its long segment, else the long segment before (or after) it
        if len(long) == 1:  # (one level around every run)
            ref = np.full(n, mean(x[long[0]]))
        else:
            firsts = np.array([s_[0] for s_ in long])
            lv = np.array([mean(x[s_]) for s_ in long])
            k = np.minimum(np.maximum(firsts.searchsorted(np.arange(n), side="right") - 1, 0), len(long) - 1)  # (np.clip of ints)
            ref = lv[k]
        new = np.abs(x - ref) > far
        if (new == cand).all():  # (np.array_equal of two masks of n runs)
            break
        cand = new
    sustained = [s_ for s_ in segs if len(s_) >= g.min_block and not cand[s_].any()]
    if not sustained and not excursions:
        sustained = [(~cand).nonzero()[0]] if (~cand).any() else [np.arange(n)]
        cand[sustained[0]] = False
    in_exc = np.zeros(n, dtype=bool)
    for e in excursions:
        in_exc[e] = True
    covered = in_exc.copy()
    for s_ in sustained:
        covered[s_] = True
    scattered = (~covered).nonzero()[0]
    return sustained + excursions, scattered, changes, test_scale


def _label_runs(x: np.ndarray, seg_runs: list[np.ndarray], scattered: np.ndarray, noise: RunNoise, g: Gates,
                far: float) -> tuple[np.ndarray, np.ndarray]:
    """Band per run (-1 = outlier) and band levels, in value order (see the module docstring, 4.)."""
    n = x.size
    log_min = math.log(g.min_ratio)
    labels = np.full(n, -1, np.int64)
    seg_mean = [mean(x[r]) for r in seg_runs]
    seg_size = [len(r) for r in seg_runs]
    seg_se = [max(noise.sigma_lr, std(x[r])) / math.sqrt(len(r)) for r in seg_runs]
    groups = _group_levels(seg_mean, seg_size, seg_se, log_min) if seg_runs else []
    for gi, grp in enumerate(groups):
        for s in grp:
            labels[seg_runs[s]] = gi
    if len(groups) == 1 and not scattered.size:
        # one level and no far run to place: the labels and the level are final (what the steps below come to
        # with nothing scattered, pending or visited: band 0, the mean of its runs)
        return labels, np.array([mean(x[labels == 0])])
    lv = [float(median(x[labels == gi])) for gi in range(len(groups))]
    tol = [max(far, 2.0 * std(x[labels == gi])) for gi in range(len(groups))]
    n_held = len(lv)  # bands held by run-order segments; those from n_held on are made of scattered runs
    sep = g.band_sigmas * noise.sigma
    pending = []
    visits: dict[int, list[int]] = {}
    sustained = (labels >= 0).nonzero()[0]
    mixed: set[int] = set()  # bands that scattered runs away from them visit (interleaved levels)
    for i in scattered:
        if not lv:
            pending.append(i)
            continue
        k = sustained.searchsorted(i)
        around = int(labels[sustained[k - 1]] if k > 0 else labels[sustained[min(k, sustained.size - 1)]])
        near = int(np.argmin([abs(x[i] - v) for v in lv]))
        if near != around and abs(x[i] - lv[near]) < tol[near] and abs(lv[near] - lv[around]) >= sep:
            visits.setdefault(near, []).append(i)  # a visit of another band, clearly apart from this one
        elif abs(x[i] - lv[around]) < far:
            labels[i] = around
        else:
            pending.append(i)
    # scattered visits count when they are a pattern - at least min_scattered, and min_share of the
    # runs outside the band - not the few heavy-tailed runs of a long series that land there
    for k, runs in visits.items():
        outside = np.count_nonzero(labels != k)
        if (len(runs) >= max(g.min_scattered, g.min_share * outside)
                or len(runs) >= max(g.min_block, g.level_share * outside)):
            labels[runs] = k
            mixed.add(k)
        else:
            pending.extend(runs)
    # scattered far runs at a common level: a band when they have a share and agree (a gap of 2 sd
    # splits them into groups); or, all the far runs on one side of the main band, when they are
    # a second level (level_share of the runs, spread within the noise) however they alternate
    if pending:
        main_k = int(np.argmax(np.bincount(labels[labels >= 0]))) if lv else -1
        main_lv = lv[main_k] if lv else float(median(x))
        # one level's spread of min_scattered runs or more: at the noise, or at the main band's own spread if wider
        # (as _settle_levels judges it): the robust sigma of heavy-tailed noise is below its sd (t3: 0.65 of it);
        # 10 of 37 runs at x0.541-0.554 beside the main level read "10 outlier runs" (benchmarks/two_level_power.py).
        # Fewer runs keep the noise's bound: 3 slow runs of a real file at x1.053, 1.070, 1.095 are no level.
        wide_sd = max(noise.sigma, std(x[labels == main_k])) if lv else noise.sigma

        def level_sd(k: int) -> float:
            return wide_sd if k >= g.min_scattered else noise.sigma

        def apart(v: np.ndarray) -> tuple[float, float, bool]:
            dist = abs(mean(v) - main_lv)
            spread = std(v)
            return dist, spread, spread <= 0.25 * dist and dist >= sep

        groups = []
        pend = np.asarray(pending)
        for side in (pend[x[pend] < main_lv], pend[x[pend] >= main_lv]):
            if side.size == 0:
                continue
            dist, spread, ok = apart(x[side])
            if ok and _second_level(side.size, n, g) and spread <= one_level_spread(side.size, level_sd(side.size), g.alpha):
                groups.append(side)
                continue
            order = np.argsort(x[side])
            groups.extend(np.split(side[order], np.flatnonzero(np.diff(x[side][order]) > 2.0 * noise.sigma) + 1))
        two_groups = None  # (do the values hold two groups at all? computed once, when a scattered band is at stake)
        for cl in groups:
            v = x[cl]
            dist, spread, ok = apart(v)
            common = len(cl) >= max(g.min_scattered, g.min_share * n) and spread <= 1.5 * noise.sigma
            level = _second_level(len(cl), n, g) and spread <= one_level_spread(len(cl), level_sd(len(cl)), g.alpha)
            if ok and (common or level):
                near = int(np.argmin([abs(mean(v) - u) for u in lv])) if lv else -1
                if near >= 0 and abs(mean(v) - lv[near]) < far:
                    labels[cl] = near  # at a band's level already: visits of it
                    mixed.add(near)
                    continue
                if lv and two_groups is None:
                    two_groups = two_groups_apart(x, g)
                if lv and not two_groups:
                    continue  # scattered runs, no run-order support, in values that one level of noise makes
                mixed.add(len(lv))
                labels[cl] = len(lv)
                lv.append(mean(v))
    if mixed and len(lv) >= 2:
        labels, lv = _settle_levels(x, labels, lv, mixed, n_held, noise.sigma, far, g.alpha)
    if not lv:  # everything far from everything (tiny series): one band of all runs
        labels[:] = 0
        lv = [mean(x)]
    order = np.argsort(lv)
    remap = np.full(len(lv), -1, np.int64)
    remap[order] = np.arange(len(lv))
    labels = np.where(labels >= 0, remap[np.maximum(labels, 0)], -1)
    levels = np.array([mean(x[labels == k]) for k in range(len(lv))])
    return labels, levels


def _settle_levels(x: np.ndarray, labels: np.ndarray, lv: list, mixed: set, n_held: int, sigma: float, far: float,
                   alpha: float) -> tuple[np.ndarray, list]:
    """:func:`_nearest_level` of the labels, then a check of the bands made of scattered runs (indices from
    ``n_held`` on): one that the nearest-level step widened into runs of many sizes (sd over
    :func:`one_level_spread`) is no level - its scattered runs are outliers again and the others keep their
    bands (speedpython 2020 fannkuch: 3 runs at x1.25-1.44 took in 3 at x1.11-1.17 and read "2 levels: 853 ms
    (70 %), 1.08 s (30 %)", a level no run sits at)."""
    snap = GAP_SNAP * sigma
    out = _nearest_level(x, labels, sorted(mixed), far, snap=snap)
    sizes = np.bincount(out[out >= 0], minlength=len(lv))
    ref = max(sigma, std(x[out == int(np.argmax(sizes))]))  # (the noise, or the main band's own spread if wider)
    loose = [k for k in range(n_held, len(lv)) if sizes[k] > 1 and std(x[out == k]) > one_level_spread(int(sizes[k]), ref, alpha)]
    if not loose:
        return out, lv
    keep = [k for k in range(len(lv)) if k not in loose]
    ren = np.full(len(lv), -1, np.int64)
    ren[keep] = np.arange(len(keep))
    labels = np.where(labels >= 0, ren[np.maximum(labels, 0)], -1)
    lv = [lv[k] for k in keep]
    mixed = {int(ren[k]) for k in mixed if k not in loose}
    if mixed and len(lv) >= 2:
        labels = _nearest_level(x, labels, sorted(mixed), far, snap=snap)
    return labels, lv


GAP_SNAP = 1.0  # the split between alternating levels goes to the widest gap within this many sd of the midpoint


def _nearest_level(x: np.ndarray, labels: np.ndarray, mixed: list[int], far: float,
                   max_iter: int = 20, snap: float = 0.0) -> np.ndarray:
    """Labels with every non-outlier run at the level it is nearest to, among its own band and the
    ``mixed`` bands (those reached by scattered runs: levels that alternate with others), once the
    levels are known - the split between two alternating levels is the midpoint between them, not
    ``far`` from the main one (a criterion file: runs at 153-155 us labelled 147 beside a level at
    157). Band levels are the medians of their runs, moved to a fixed point (a k-means step at a
    time, at most ``max_iter``). No band is created or emptied (then the labels stay as they were);
    outliers stay outliers; a run moves only to a level within ``far`` of it, and only between two
    bands one of which is mixed (a step's stretches, which alternate with nothing, keep their runs). ``snap`` > 0: then the split
    goes to the widest gap in the values within ``snap`` of the midpoint (:func:`_snap_to_gap`)."""
    nb = int(labels.max()) + 1
    ok = np.flatnonzero(labels >= 0)
    is_mixed = np.zeros(nb, dtype=bool)
    is_mixed[mixed] = True
    new = labels.copy()
    for _ in range(max_iter):
        lv = np.array([median(x[new == k]) for k in range(nb)])
        d = np.abs(x[ok, None] - lv[None, :])
        own = labels[ok]
        allowed = is_mixed[None, :] | is_mixed[own][:, None] | (np.arange(nb)[None, :] == own[:, None])
        d = np.where(allowed & (d < far), d, np.inf)
        d[np.arange(ok.size), own] = np.abs(x[ok] - lv[own])  # (its own band always remains a choice)
        nxt = new.copy()
        nxt[ok] = np.argmin(d, axis=1)
        if np.array_equal(nxt, new):
            break
        if np.any(np.bincount(nxt[ok], minlength=nb) == 0):
            return labels
        new = nxt
    if snap:
        new = _snap_to_gap(x, labels, new, is_mixed, far, snap)
    return new


def _snap_to_gap(x: np.ndarray, labels: np.ndarray, new: np.ndarray, is_mixed: np.ndarray, far: float,
                 width: float) -> np.ndarray:
    """``new`` labels with the split between two adjacent levels (one of them mixed) moved to the
    widest gap in the values within ``width`` of their midpoint: where the runs thin out is where a
    person draws the line (the midpoint is uncertain by about the noise). No run moves beyond
    ``far`` of its level; no band is emptied."""
    nb = is_mixed.size
    lv = np.array([median(x[new == k]) for k in range(nb)])
    order = np.argsort(lv)
    out = new.copy()
    for a, b in zip(order[:-1], order[1:]):
        if not (is_mixed[a] or is_mixed[b]):
            continue
        mov = np.flatnonzero((labels >= 0) & ((new == a) | (new == b)))
        v = np.sort(x[mov])
        lo, hi = v[:-1], v[1:]
        mid = 0.5 * (lv[a] + lv[b])
        cand = (lo < mid + width) & (hi > mid - width) & (lo >= lv[a]) & (hi <= lv[b])
        if not cand.any():
            continue
        j = np.flatnonzero(cand)[np.argmax((hi - lo)[cand])]
        to = np.where(x[mov] < 0.5 * (lo[j] + hi[j]), a, b)
        fits = np.abs(x[mov] - lv[to]) < far
        out[mov[fits]] = to[fits]
    if np.any(np.bincount(out[out >= 0], minlength=nb) == 0):
        return new
    return out


#: 99 % quantile (Gaussian noise) of the two-group statistic :func:`.noise.two_group_t` - (mean gap) /
#: (pooled within-group sd) at the best least-squares split of the sorted values, groups of >= ``min_block``
#: (3) runs and ``level_share`` (10 %) of them - by number of runs: ``benchmarks/two_level_null.py null
#: --statistic ls --min-count 3 --min-share 0.10``, 20,000 seeded series a row (RESULTS_calibration.md,
#: "Trust, stop 26 (second pass)"). Interpolated linearly in n; beyond the last row, its value (the quantile still falls).
TWO_GROUP_T99 = ((10, 5.72), (15, 4.84), (20, 4.40), (25, 4.20), (30, 3.96), (40, 3.73), (50, 3.56),
                 (70, 3.37), (100, 3.23), (150, 3.09), (200, 3.02))


def two_group_threshold(n: int) -> float:
    """The two-group statistic that ``n`` values of one level of Gaussian noise exceed in 1 % of series
    (:data:`TWO_GROUP_T99`)."""
    ns, qs = zip(*TWO_GROUP_T99)
    return float(np.interp(n, ns, qs))


def two_groups_apart(x: np.ndarray, g: Gates) -> bool:
    """The values ``x`` (all runs, in any order) hold two groups that one level of Gaussian noise makes
    in fewer than 1 % of series (:func:`two_group_threshold`): the gate of a band made of scattered
    runs, which has no run-order support (fc_bm-20240604 pprint_pformat: 3 of 20 runs at x1.07-1.12
    beside runs spread 0.975-1.032 read "2 levels"; statistic 4.0, 4.40 needed at 20 runs)."""
    t = two_group_t(x, g.level_share, g.min_block)
    return t is not None and t >= two_group_threshold(x.size)


#: Critical values of the statistics of :func:`change_holds`, by number of runs: the largest over every place of a
#: step (sides of >= ``min_block`` runs) / of an episode (a stretch of >= ``min_block`` runs between two others)
#: of (mean gap) / (pooled within-level sd x AR(1) standard error of the two block means, :func:`gap_t`, at the
#: bias-corrected lag-1 :func:`gate_rho`). Episodes: its Gaussian 99.9 % quantile (AR(1) 0.3 noise exceeds it in
#: ~1 % of series, the episode bar is 5 %); steps: the larger of that and its AR(1) 0.3 99.5 % quantile (a step's
#: bar is 1 %: with few runs the lag-1 is uncertain, and AR noise whose estimate comes out low exceeds the
#: Gaussian quantile in ~1 % of series) - ``benchmarks/step_null_short.py gate``, 20,000 seeded series a row
#: (RESULTS_calibration.md, "The step gate, AR-robust"). Interpolated linearly in n; beyond the last row, its value.
STEP_T999 = ((10, 7.12), (12, 6.40), (15, 5.95), (20, 5.51), (25, 5.31), (30, 5.23), (40, 4.83), (50, 4.75),
             (70, 4.48), (100, 4.38), (150, 4.45), (200, 4.49))
EPISODE_T999 = ((10, 9.13), (12, 7.92), (15, 7.53), (20, 6.25), (25, 5.96), (30, 5.82), (40, 5.52), (50, 5.46),
                (70, 5.20), (100, 5.12), (150, 5.23), (200, 5.17))


def _interp(table: tuple, n: int) -> float:
    ns, qs = zip(*table)
    return float(np.interp(n, ns, qs))


#: Run sequences up to this long pass :func:`change_holds` (the range of its tables): there the noise scale the
#: classifier works with is measured on few runs and its z-tests ignore that; longer ones rest on those tests.
GATE_MAX_RUNS = 200
GATE_CLIP = 2.5  # winsorising bound (robust sds) of the residuals whose sd is the scale of change_holds


def gate_scale(r: np.ndarray, k: int) -> tuple[float, np.ndarray]:
    """sd of the residuals ``r`` from ``k`` fitted levels, winsorised at ``GATE_CLIP`` robust sds (a few spikes do
    not inflate it; ``k`` degrees of freedom off), and the winsorised residuals."""
    b = GATE_CLIP * robust_sd(r)
    w = np.clip(r, -b, b)
    return math.sqrt(float(np.sum(w * w)) / max(r.size - k, 1)), w


GATE_RHO_MAX = 0.9  # largest lag-1 autocorrelation change_holds corrects for (long-run factor 4.4)


def gate_rho(w: np.ndarray, n_levels: int, keep: np.ndarray | None = None) -> float:
    """Lag-1 autocorrelation of the residuals ``w`` around ``n_levels`` fitted levels, corrected for the bias of the
    estimate on few runs, clipped to [0, ``GATE_RHO_MAX``]: the plain estimate ``sum w_i w_i+1 / sum w_i^2`` (not
    the robust one of :func:`lag1`, whose MAD scales on 20 runs read rho 0.5-0.8 in independent noise) is low by
    about ``(1 + 3 rho) / n`` around one level (Marriott & Pope 1954), ``(n_levels (1 + rho) + 2 rho) / n`` around
    ``n_levels`` (each fitted level takes its own share). Measured on the residuals of the reported levels, so that
    a step does not inflate it (the noise model's rho, from a segmentation that may miss the step, read 0.46 on
    independent noise with a x1.05 step in the last 4 of 20 runs). ``keep``: the runs that count (the others, runs
    set apart as outliers, are no persistence: a spike times the neighbours on its side read 0.24 where the runs
    around it give 0.11 - speedpython 2017-03-31 json_loads)."""
    w = np.asarray(w, dtype=np.float64)
    pairs = np.ones(max(w.size - 1, 0), dtype=bool)
    if keep is not None:
        pairs = keep[:-1] & keep[1:]
        w = np.where(keep, w, 0.0)
    d = float(np.dot(w, w))
    n = int(np.count_nonzero(keep)) if keep is not None else w.size
    if n < 3 or d <= 0:
        return 0.0
    r = float(np.dot(w[:-1][pairs], w[1:][pairs])) / d
    r += (n_levels * (1.0 + r) + 2.0 * r) / n
    return min(max(r, 0.0), GATE_RHO_MAX)


def ar1_correlation(n: int, rho: float) -> np.ndarray | None:
    """The correlation matrix ``rho^|i - j|`` of ``n`` runs of AR(1) noise (None when ``rho`` is 0)."""
    if rho <= 0:
        return None
    i = np.arange(n)
    return rho ** np.abs(i[:, None] - i[None, :])


def gap_t(x: np.ndarray, ia: np.ndarray, ib: np.ndarray, s: float, corr: np.ndarray | None) -> float:
    """(mean of ``x[ia]`` - mean of ``x[ib]``) over its standard error for noise of marginal sd ``s`` and run-to-run
    correlation ``corr`` (:func:`ar1_correlation`; None: independent runs): ``s sqrt(c' R c)`` with ``c`` the
    contrast (1 / n_a on ``ia``, -1 / n_b on ``ib``). Not ``sqrt((1 + rho) / (1 - rho))`` times the independent
    error: that is the error of long blocks far apart, while 4 runs next to 16 others, at rho 0.5, have a
    standard error 1.42 times the independent one, not 1.73 (their means are correlated and short blocks
    average little of the persistence)."""
    if ia.size == 0 or ib.size == 0:
        return 0.0
    if corr is None:
        var = 1.0 / ia.size + 1.0 / ib.size
    else:
        c = np.zeros(corr.shape[0])
        c[ia] = 1.0 / ia.size
        c[ib] -= 1.0 / ib.size
        var = float(c @ corr @ c)
    return abs(mean(x[ia]) - mean(x[ib])) / (s * math.sqrt(max(var, 1e-300)))


def change_holds(c: Classification) -> bool:
    """A step or an episode of the classification ``c`` is there beyond what one level of noise makes in 0.1 % of
    series (``alpha``): some step between two blocks, or some episode against the blocks around it, has a
    (mean gap) / (pooled sd inside the reported levels x the AR(1) standard error of the two means, :func:`gap_t`,
    at the lag-1 of those residuals, :func:`gate_rho`) at or above the quantile of the largest such statistic over
    every place it could have been, for ``n`` runs (:data:`STEP_T999`, :data:`EPISODE_T999`); an episode whose
    return is only the last run or two (fewer than ``min_block``) also holds as the step at the end it cannot be
    told from. The scale is the spread inside the levels the verdict reports, not
    the noise the classifier worked with: on 10-30 runs that estimate, from the same runs, can come out at a third
    of the true noise and let pure noise read "step" (1.7 % of Gaussian 20-run series at 5 % sd). A "step" verdict
    must also pass :func:`step_lr` - on the whole series at :func:`step_lr_crit` of its runs, or, for two or more
    changes, on the runs of the two blocks around every change at :data:`STEP_LR99`."""
    x, labels = c.x, c.labels
    nb = len(c.levels)
    if x is None or x.size <= nb + 1:
        return True
    # every run's distance from its level - an outlier's from the level of the run before it (the first ones: of
    # the first run in a level): the runs a scale too small set apart must not leave a spread that small -
    # winsorised at GATE_CLIP robust sds
    ok = np.flatnonzero(labels >= 0)
    if ok.size == 0:
        return True
    k = np.clip(np.searchsorted(ok, np.arange(x.size), side="right") - 1, 0, ok.size - 1)
    r = x - c.levels[labels[ok[k]]]
    s, w = gate_scale(r, nb)
    x = x - r + w  # (the values winsorised around their levels: the gaps too are those of the winsorised values)
    rho = gate_rho(w, nb, labels >= 0)
    # (floored by half the clock tick, not by the within-run standard error: the runs' own scatter is what the
    # quantiles were calibrated with; a pyperf djangocms of 20 runs, within-run se 2.4 %, scatter 1.7 %)
    tick = c.noise.tick_rel if c.noise is not None and c.noise.tick_rel else 0.0
    s = max(s, tick / 2.0)
    if s <= 0:
        return True
    corr = ar1_correlation(x.size, rho)

    def t(a: tuple[int, int, int], b: tuple[int, int, int] | list) -> float:
        ia = np.arange(a[1], a[2] + 1)
        ia = ia[labels[ia] == a[0]]
        ib = np.concatenate([np.arange(u[1], u[2] + 1)[labels[u[1]:u[2] + 1] == u[0]] for u in b])
        return gap_t(x, ia, ib, s, corr)

    n = x.size
    blocks = list(c.blocks)
    ep = [i for i, b in enumerate(blocks) if b in c.episodes]
    for i in ep:
        if t(blocks[i], episode_neighbours(blocks, ep, i)) >= _interp(EPISODE_T999, n):
            return True
        # an episode whose return is only the last run or two cannot be told from a step at the end: it holds as
        # that step does (against the block before it, at the step's quantile)
        last = blocks[i + 1]
        if (i + 1 == len(blocks) - 1 and last[2] - last[1] + 1 < c.gates.min_block
                and t(blocks[i], [blocks[i - 1]]) >= _interp(STEP_T999, n)):
            return True
    rest = collapse_blocks(blocks, ep)
    thr = _interp(STEP_T999, n)
    held = [(a, b) for a, b in zip(rest[:-1], rest[1:]) if t(a, [b]) >= thr]
    if not held:
        return False
    if c.verdict != "step":
        return True
    # a "step" verdict must also beat AR(1) noise whose lag-1 the step's own fit hides (step_lr; outlier runs at
    # the level before them: a spike is no persistence, as in gate_rho)
    v = np.where(labels >= 0, x, x - w)
    if step_lr(v) >= step_lr_crit(n):
        return True
    # a staircase of two or more changes is no one shift: on the whole series the AR(1) model without a shift (its
    # lag-1 near 1: a wander) fits two clear steps better than one shift does - x1.10 twice at 1 % noise in 20 runs
    # read "trend" or "stable" in 144 of 300 series. Then every change must hold, each on the runs of the two blocks
    # around it (the same statistic at STEP_LR99, not at the raised critical value of longer series: the false
    # steps of AR(1) 0.5 noise do not come this way - 1-3 series of 18,000 at 30-100 runs - while that value on the
    # two blocks' runs costs 2 % sd staircases of 50 runs 3-5 % of power, on the whole series' runs 10 % at 30)
    return len(rest) > 2 and len(held) == len(rest) - 1 and all(step_lr(v[a[1]:b[2] + 1]) >= STEP_LR99
                                                                 for a, b in held)


#: Critical value of :func:`step_lr` for a ``step`` verdict of :func:`change_holds`: its 99 % quantile on AR(1) noise
#: of lag-1 0.5, the worst case over lag-1 0-0.5 (the statistic's null grows with the lag-1: q99 10.8 / 13.3 / 15.0
#: at 0 / 0.3 / 0.5, 20 runs) and flat in the number of runs (14.4-15.6 over 10-200 runs, within the simulation's
#: error): ``benchmarks/step_null_short.py gate lr --reps 20000``. Why: with 20-50 runs the lag-1 of the residuals
#: around a fitted step hides AR(1) 0.5 noise - the fit takes its slow wander for the step and leaves residuals
#: that look independent (median bias-corrected lag-1 0.0 in the AR(1) 0.5 series of 20 runs that read "step"), so
#: the t-statistic alone let 1.5-3 % of such series read "step". The 99.5 % quantile (16.5) would bring them to
#: ~1 % at 20-30 runs but cost x1.05 steps at 1 % noise on the last 4 of 20 runs ~4 points of power, below the 90 %
#: bar (RESULTS_calibration.md, "ar05": the frontier).
STEP_LR99 = 15.0
#: Critical value of :func:`step_lr` for a ``step`` verdict, by the number of runs: ``STEP_LR99`` up to 20 runs (there
#: a higher value costs x1.05 steps at 1 % sd on the last 4 runs the 90 % power bar), then raised so that AR(1) 0.5
#: noise reads "step" in <= 1 % of series (the statistic's null is flat in n, but the series that reach it are
#: those the classifier and the t-gate already read as a step: a selected tail). Interpolated linearly in n.
STEP_LR_CRIT = ((10, STEP_LR99), (20, STEP_LR99), (30, 18.0), (200, 18.0))


def step_lr_crit(n: int) -> float:
    """The critical value of :func:`step_lr` for a ``step`` verdict on ``n`` runs (:data:`STEP_LR_CRIT`)."""
    return _interp(STEP_LR_CRIT, n)


#: The grid of lag-1 correlations over which :func:`step_lr` profiles the AR(1) likelihood.
LR_RHOS = np.arange(0.0, 0.981, 0.02)


def step_lr(x: np.ndarray, min_side: int = 3, rhos: np.ndarray = LR_RHOS) -> float | np.ndarray:
    """Likelihood-ratio statistic (2 log) of "one mean shift + AR(1) noise" against "AR(1) noise, no shift" for the
    values ``x`` (or per row of a 2-d ``x``): exact Gaussian AR(1) likelihood (stationary first value), the mean(s)
    and the innovation variance profiled out by generalised least squares (Prais-Winsten), the lag-1 correlation
    profiled over ``rhos`` in each model, the shift at its best place (sides of >= ``min_side`` values)."""
    x = np.asarray(x, dtype=np.float64)
    X = np.atleast_2d(x)[:, None, :]  # (series, 1, runs); the lag-1s along axis 1
    n = X.shape[2]
    if n < 2 * min_side:
        return 0.0 if x.ndim == 1 else np.zeros(X.shape[0])
    rho = np.asarray(rhos, dtype=np.float64)[None, :, None]
    a = np.sqrt(1.0 - rho * rho)
    b = 1.0 - rho
    y = np.concatenate([a * X[:, :, :1], X[:, :, 1:] - rho * X[:, :, :-1]], 2)  # Prais-Winsten: white residuals
    cc = (a * a + b * b * (n - 1))[..., 0]  # the constant's column (a, b, b, ...) squared
    cy = a[..., 0] * y[:, :, 0] + b[..., 0] * np.sum(y[:, :, 1:], 2)
    yy = np.einsum("ijk,ijk->ij", y, y)
    ks = np.arange(min_side, n - min_side + 1)  # first run after the shift; its column is (0.., 1, b, b, ...)
    m = (n - 1 - ks)[None, None, :]
    tail = np.concatenate([np.cumsum(y[:, :, ::-1], 2)[:, :, ::-1], np.zeros(y.shape[:2] + (1,))], 2)
    sy = y[:, :, ks] + b * tail[:, :, ks + 1]
    ss = 1.0 + b * b * m
    cs = b + b * b * m
    cy3 = cy[:, :, None]
    fit = (ss * cy3 * cy3 - 2.0 * cs * cy3 * sy + cc[:, :, None] * sy * sy) / (cc[:, :, None] * ss - cs * cs)
    logdet = -np.log(1.0 - rho[..., 0] ** 2)  # log det of the AR(1) correlation over the innovation variance
    nll0 = n * np.log(np.maximum(yy - cy * cy / cc, 1e-300)) + logdet
    nll1 = n * np.log(np.maximum(np.min(yy[:, :, None] - fit, 2), 1e-300)) + logdet
    out = np.maximum(nll0.min(1) - nll1.min(1), 0.0)
    return float(out[0]) if x.ndim == 1 else out


def _one_level(x: np.ndarray, noise: RunNoise, g: Gates) -> Classification:
    """The runs as one level with the noise of its own spread (robust sd around the median, floored as the
    noise model is): the classification when no step or episode of the first one holds (:func:`change_holds`);
    runs beyond ``far`` of the median are outliers."""
    med = median(x)
    sigma = max(robust_sd(x - med), noise.floor)
    noise = dataclasses.replace(noise, sigma=sigma, sigma_lr=sigma * long_run_factor(noise.rho), two_level=None)
    far = max(outlier_sigmas(x.size, g.outlier_alpha) * sigma, math.log(g.min_ratio))
    labels = np.where(np.abs(x - med) > far, -1, 0).astype(np.int64)
    if not (labels == 0).any():
        labels[:] = 0
    levels = np.array([mean(x[labels == 0])])
    return _verdict(x, labels, levels, noise, g, (), noise.sigma_lr)


def _return_at_the_end(x: np.ndarray, labels: np.ndarray, levels: np.ndarray, far: float, g: Gates) -> np.ndarray:
    """Labels with the last runs - fewer than ``min_block``, outliers after the last block, which is not of the
    most populated band - given to the band of the block before it when every one of them is within ``far``
    of that band's level and none within ``far`` of the last block's: a stretch that ends before the series
    does, its return seen in the last runs (speedpython 2020 sqlite_synth: runs 17-20 at x1.42-1.53, the last
    run back at x1.01, read "step at run 17 (x1.47)" with the last run an outlier). (Not when the last block
    is the main band: a last run back at an episode's level stays an outlier, not a second visit.)"""
    ok = (labels >= 0).nonzero()[0]
    if ok.size == 0 or levels.size < 2:
        return labels
    tail = np.arange(ok[-1] + 1, x.size)
    if not 0 < tail.size < g.min_block:
        return labels
    last = int(labels[ok[-1]])
    if last == int(np.bincount(labels[ok]).argmax()):
        return labels
    before = labels[ok][labels[ok] != last]
    if before.size == 0:
        return labels
    prev = int(before[-1])
    d_prev, d_last = np.abs(x[tail] - levels[prev]), np.abs(x[tail] - levels[last])
    if (d_prev < far).all() and (d_last >= far).all():
        labels = labels.copy()
        labels[tail] = prev
    return labels


def _visits_of_the_episode(x: np.ndarray, labels: np.ndarray, levels: np.ndarray, sigma: float, far: float,
                           g: Gates) -> tuple[np.ndarray, np.ndarray]:
    """Labels (and levels) with the outlier runs that sit at the level of the one block of the other band - a
    block between two of the main band, which alone reads "episode" - given to that band when they are a
    pattern: at least 2, within ``far`` of its level, the block and they together ``level_share`` (10 %) and
    ``min_block`` of the runs, spread within one level of the noise (:func:`one_level_spread`, at the noise or
    the main band's own spread if wider), and no run on the other side of the main band as far from it as half
    the gap (tails that reach past the split there put runs at the episode's level too: of the episodes of
    ``benchmarks/two_level_power.py --effect episode`` that would read "bimodal" without it, 12 of 14, t3 noise;
    of the 34 two-level cases the rest turns right, 30 stay). Then the level is visited again and again: "2
    levels", not "episode" with outlier runs at the episode's own level (5 of 41 runs at x0.897: runs 6, 8 and
    35-37 read "episode at runs 35-37" and 2 outliers). Not for a block at either end (a step with a few far
    runs before it stays a step)."""
    ok = labels >= 0
    if levels.size != 2 or not ok.any():
        return labels, levels
    n = x.size
    sizes = np.bincount(labels[ok], minlength=2)
    main = int(np.argmax(sizes))
    k = 1 - main
    blocks = _blocks(labels)
    at = [i for i, b in enumerate(blocks) if b[0] == k]
    if len(at) != 1 or at[0] in (0, len(blocks) - 1):
        return labels, levels
    side = levels[k] > levels[main]
    vis = np.flatnonzero(~ok & (np.abs(x - levels[k]) < far) & ((x > levels[main]) == side))
    if vis.size < 2 or vis.size + sizes[k] < max(g.min_block, g.level_share * n):
        return labels, levels
    gap = levels[k] - levels[main]
    if np.any((x - levels[main]) * np.sign(gap) <= -0.5 * abs(gap)):
        return labels, levels  # the noise reaches as far on the other side: far runs here may be its tails
    grp = np.concatenate([np.flatnonzero(labels == k), vis])
    ref = max(sigma, std(x[labels == main]))
    if std(x[grp]) > one_level_spread(grp.size, ref, g.alpha):
        return labels, levels
    labels = labels.copy()
    labels[vis] = k
    levels = levels.copy()
    levels[k] = mean(x[labels == k])
    return labels, levels


#: Mean length of a band's stretches of consecutive runs up to which its runs are scattered in time (no dwell).
TAIL_MAX_DWELL = 2.0
#: One-sided p-value under which a window of run values beyond the emptiest window on the way out from the main
#: level holds more runs than it (a valley, then a second mode) - see :func:`valley_beyond`.
VALLEY_P = 0.001


def stretch_count(sel: np.ndarray) -> int:
    """Number of stretches of consecutive True in the 1-D bool mask ``sel`` (its runs that start at 0 or after a
    False): ``np.count_nonzero(np.diff(np.r_[0, sel.astype(np.int8)]) == 1)`` without np.r_'s ~25 us."""
    if not sel.size:
        return 0
    return int(sel[0]) + int(np.count_nonzero(sel[1:] > sel[:-1]))


def _tail_bands(x: np.ndarray, labels: np.ndarray, levels: np.ndarray, sigma: float, far: float,
                g: Gates) -> tuple[np.ndarray, np.ndarray]:
    """Labels (and levels) without the bands that are the slow (or fast) tail of the main band, not a level of
    their own: runs scattered in time (their stretches of consecutive runs ``TAIL_MAX_DWELL`` long at most, on
    average), spread wider than one level of the main band's noise (:func:`one_level_spread`) and no valley
    between them and the main band (:func:`valley_beyond`). Their runs go to the main band when within ``far`` of
    its level, else are outliers. (SAP 00941: 1,077 builds in a tight band at 5.7 s with 28 % of the runs scattered
    over 6-9.5 s read "2 levels: 5.72 s (72 %), 6.71 s (28 %)".)"""
    ok = labels >= 0
    if levels.size < 2 or not ok.any():
        return labels, levels
    sizes = np.bincount(labels[ok], minlength=levels.size)
    main = int(np.argmax(sizes))
    ref = max(sigma, std(x[labels == main]))
    tails = []
    for k in range(levels.size):
        sel = labels == k
        if k == main or sizes[k] < 2:
            continue
        stretches = stretch_count(sel)
        if sizes[k] / stretches > TAIL_MAX_DWELL or std(x[sel]) <= one_level_spread(int(sizes[k]), ref, g.alpha):
            continue
        if not valley_beyond(x, levels[main], levels[k], std(x[sel]), ref):
            tails.append(k)
    if not tails:
        return labels, levels
    labels = labels.copy()
    for k in tails:
        sel = labels == k
        labels[sel] = np.where(np.abs(x[sel] - levels[main]) < far, main, -1)
    keep = [k for k in range(levels.size) if k not in tails]
    remap = np.full(levels.size, -1, np.int64)
    remap[keep] = np.arange(len(keep))
    labels = np.where(labels >= 0, remap[np.maximum(labels, 0)], -1)
    return labels, np.array([mean(x[labels == j]) for j in range(len(keep))])


def valley_beyond(x: np.ndarray, main: float, level: float, spread: float, width: float) -> bool:
    """Do the values ``x`` dip between the level ``main`` and a band at ``level`` (its values spread ``spread``)?
    Windows of width ``max(width, gap / 5)`` stepped out from ``main`` (from one width away) to ``spread`` twice
    past ``level``: a window holds more runs than the emptiest window passed on the way, one-sided binomial
    p < ``VALLEY_P``, or a window on the way to ``level`` is empty and a later one holds 3 runs or more. A skewed
    tail thins out monotonically and has none; a second level has one however far it is."""
    gap = abs(level - main)
    w = max(width, gap / 5.0)
    if w <= 0:
        return True
    d = 1.0 if level > main else -1.0
    grid = main + d * np.arange(w, gap + 2.0 * spread + w, w / 4.0)
    xs = np.sort(x)
    cnt = np.searchsorted(xs, grid + w / 2.0) - np.searchsorted(xs, grid - w / 2.0)
    low = np.minimum.accumulate(cnt)
    for j in range(1, cnt.size):
        cv, cp = int(low[j - 1]), int(cnt[j])
        if cp <= cv:
            continue
        if cv == 0 and cp >= 3 and abs(grid[j - 1] - main) < gap:
            return True
        if _binom_upper(cp, cp + cv) < VALLEY_P:
            return True
    return False


def _binom_upper(k: int, n: int) -> float:
    """P(X >= k), X ~ Binomial(n, 1/2)."""
    lg = math.lgamma(n + 1) - n * math.log(2.0)
    return min(1.0, sum(math.exp(lg - math.lgamma(i + 1) - math.lgamma(n - i + 1)) for i in range(k, n + 1)))


def _second_level(k: int, n: int, g: Gates) -> bool:
    """``k`` scattered runs of ``n`` are numerous enough to be a second level (however they
    alternate with the first): ``level_share`` of the runs and ``min_block`` runs at least."""
    return k >= max(g.min_block, g.level_share * n)


def one_level_spread(k: int, sigma: float, alpha: float = 0.001) -> float:
    """Largest sd (ddof 0) of ``k`` runs that one level with run-to-run sd ``sigma`` reaches with
    probability ``1 - alpha``: ``sigma sqrt(chi2_{k-1}(1 - alpha) / k)`` (at alpha 0.001: 2.15
    sigma for 3 runs, 1.92 for 5, 1.22 for 100). Spikes (sizes spread far wider than the noise)
    exceed it."""
    if k < 2:
        return 0.0
    return sigma * math.sqrt(chi2_isf(alpha, k - 1) / k)


MAX_RARE_VISITS = 3  # a band under min_share visited at most this often is episodes, not a second level


def _episodes(blocks: list[tuple[int, int, int]], labels: np.ndarray, min_block: int,
              min_share: float = 1.0) -> list[int]:
    """Indices (into ``blocks``) of episodes: a block of a band other than the most populated one,
    between two blocks of one band, when it is that band's only block - or when the band holds less
    than ``min_share`` of the runs in at most ``MAX_RARE_VISITS`` such blocks (a few brief visits
    of a level are episodes, not "2 levels: 287 (94 %), 339 (0 %)")."""
    count: dict[int, int] = {}
    for b in blocks:
        count[b[0]] = count.get(b[0], 0) + 1
    sizes = np.bincount(labels[labels >= 0])
    main = int(sizes.argmax())
    n = labels.size
    flanked = [0 < i < len(blocks) - 1 and blocks[i - 1][0] == blocks[i + 1][0]
               and blocks[i][2] - blocks[i][1] + 1 >= min_block for i in range(len(blocks))]
    out = []
    for i in range(1, len(blocks) - 1):
        band = blocks[i][0]
        if band == main or not flanked[i]:
            continue
        if count[band] == 1:
            out.append(i)
        elif (count[band] <= MAX_RARE_VISITS and sizes[band] < min_share * n
              and all(flanked[j] for j, b in enumerate(blocks) if b[0] == band)):
            out.append(i)
    return sorted(set(out) | set(_staged_episodes(blocks, count, main, min_block)))


def _staged_episodes(blocks: list[tuple[int, int, int]], count: dict[int, int], main: int,
                     min_block: int) -> list[int]:
    """Indices (into ``blocks``) of the stages of episodes that go in stages: two or more consecutive blocks,
    each of ``min_block`` runs at least, of bands that have no block elsewhere, all on one side of the most
    populated band ``main`` (bands are in value order), between two blocks of ``main`` (SAP 05360: 1,077 builds
    at 6.15 s, runs 401-428 at 5.55 s then 429-454 at 5.85 s, then back: one dip in two stages, not "3
    levels"; a dip whose stages go x0.90, x0.95 and x0.90 again, then back, is one episode in three stages)."""
    out: list[int] = []
    i = 1
    while i < len(blocks) - 1:
        j = i
        while (j < len(blocks) - 1 and blocks[j][0] != main
               and blocks[j][2] - blocks[j][1] + 1 >= min_block
               and (blocks[j][0] > main) == (blocks[i][0] > main)):
            j += 1
        inside: dict[int, int] = {}
        for b in blocks[i:j]:
            inside[b[0]] = inside.get(b[0], 0) + 1
        if (j - i >= 2 and blocks[i - 1][0] == main and j < len(blocks) and blocks[j][0] == main
                and all(count[k] == c for k, c in inside.items())):
            out.extend(range(i, j))
        i = max(j, i + 1)
    return out


def episode_neighbours(blocks: list, episodes: list[int], i: int) -> list:
    """The blocks around the episode block ``blocks[i]``: the nearest blocks on either side that are not episode
    blocks (``episodes``: indices), past the other stages of an episode that goes in stages."""
    a, b = i - 1, i + 1
    while a > 0 and a in episodes:
        a -= 1
    while b < len(blocks) - 1 and b in episodes:
        b += 1
    return [blocks[a], blocks[b]]


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


def _warmup_runs(x: np.ndarray, labels: np.ndarray, levels: np.ndarray, g: Gates,
                 sigma: float = 0.0, floor: float = 0.0) -> tuple[int, int, np.ndarray]:
    """(number of leading runs - outliers or the first block of a band - before one band that holds
    every later non-outlier run, when they are at most ``max(min_block, min(10 %, 10))``, all
    slower than that band by ``min_ratio``, while slow outlier runs are rare after them (fewer than
    the warm-up runs or than ``min_share`` of the later runs), 0 otherwise; the later band; the later runs in the
    warm-up's band, which are slow outliers). The last runs of the leading stretch that are not ``min_ratio``
    slower are the end of the warm-up, not part of it (pyperf sqlglot_normalize: runs 1-3 at x1.045 / 1.047 /
    1.027 of the later level made one block, not a warm-up). Later runs at the warm-up's level, as rare as slow
    outliers must be and never ``min_block`` in a row, are such outliers: 2 warm-up runs and one later spike at
    their level are 3 runs of 20 at one level, which read "bimodal" (benchmarks/step_null_short.py power). When
    every non-outlier run is in one band, the leading stretch is the leading outlier runs and the band's runs among
    or right after them that are slower than it by ``min_ratio`` and :data:`WARMUP_JOIN_SIGMAS` ``sigma``: a
    warm-up's runs on both sides of ``far`` (one an outlier, one in the band) are one warm-up, and a later spike no
    longer outnumbers it (benchmarks/warmup_spike.py). When no run leads outside that one band, the leading stretch
    is the longest first ``k`` runs (2 <= k <= the limit) that :func:`_leading_slow` finds slower than the rest of
    the band: two warm-up runs x1.05 at 1 % noise both within ``far`` (a later spike inflating the noise scale
    1.1-1.5x, or its own error at 20 runs) read "stable", or "outliers" = the spike."""
    none = (0, -1, np.zeros(0, np.int64))
    n = x.size
    limit = max(g.min_block, min(int(0.1 * n), 10))
    ok_idx = (labels >= 0).nonzero()[0]
    if ok_idx.size == 0:
        return none
    lab = labels.tolist()  # (the scan on Python ints: ~0.3 us a run less than on numpy scalars)
    first = lab[ok_idx[0]]
    L = 0
    while L < n and (lab[L] < 0 or lab[L] == first):
        L += 1
    rest = labels[L:][labels[L:] >= 0]
    if L == n or rest.size == 0:  # one band throughout: leading outliers only
        L = int(ok_idx[0])
        # ... and the band's runs among or right after them that are slower than the band by min_ratio and
        # WARMUP_JOIN_SIGMAS run-to-run sds: a warm-up whose slow runs straddle `far` (x1.06 then x1.04 at 1 % noise:
        # the first an outlier, the second in the band), lest a later spike outnumber the one outlier run
        ref, bar, j = levels[first], max(math.log(g.min_ratio), WARMUP_JOIN_SIGMAS * sigma), 0
        while j < limit and (lab[j] < 0 or x[j] - ref >= bar):
            j += 1
        if j > L and any(k < 0 for k in lab[:j]):
            L = j
        elif L == 0:
            L = _leading_slow(x, labels, first, g, limit, floor)
        rest = labels[L:][labels[L:] >= 0]
    if not 1 <= L <= limit or 4 * L > n or rest.size < g.min_block:
        return none  # (half the runs slower first is a step, not a warm-up)
    later = int(rest[0])
    visits = L + np.flatnonzero(labels[L:] == first) if first != later else np.zeros(0, np.int64)
    if np.any((rest != later) & (rest != first)) or (visits.size and _longest_stretch(visits) >= g.min_block):
        return none
    # trailing runs of the leading stretch that sit near the later band's level are not warm-up
    ref = levels[later]
    lead = L
    while L > 0 and x[L - 1] - ref < math.log(g.min_ratio):
        L -= 1
    if L < 1 or not (x[:L] - ref >= math.log(g.min_ratio)).all():
        return none
    if any(k >= 0 and not (labels[:L] == k).any() for k in labels[L:lead]):
        return none  # (the warm-up would leave a band of its own stretch without a run)
    if visits.size and not (x[visits] - ref >= math.log(g.min_ratio)).all():
        return none
    # the first runs are special only if slow runs are rare later on: fewer than the warm-up runs,
    # or than min_share of the later runs
    later_slow = np.count_nonzero((labels[L:] < 0) & (x[L:] - ref >= math.log(g.min_ratio))) + visits.size
    return (L, later, visits) if later_slow < max(L, g.min_share * (n - L)) else none


def _leading_slow(x: np.ndarray, labels: np.ndarray, band: int, g: Gates, limit: int, floor: float = 0.0) -> int:
    """The largest k (2 <= k <= ``limit``, 4 k <= n) whose first k runs are all in ``band``, each slower than the
    mean of the band's later runs by ``min_ratio`` and by :data:`WARMUP_JOIN_SIGMAS` of their sd (as a band run
    joins a far first run's warm-up: one large run - a spike at run 1 within ``far`` at 5 % noise - does not carry
    a neighbour slow by noise alone into a "warm-up"), and whose mean is above that mean by Student's t (one-sided, at
    :data:`WARMUP_LEAD_ALPHA` / the number of k tried) on the sd of those later runs and their lag-1 correlation
    (AR noise moves neighbours together: the variance of a mean of k consecutive runs, and the long-run factor for
    the later runs' mean), that sd no smaller than the noise model's ``floor`` (within-run noise, a clock tick: a
    pyperf async_tree_io with runs 1-2 at +8.5 % beside a within-run noise of 3.7 % and run-to-run of 0.35 % stays
    "stable", as the floor says); 0 if none. The scale is the later runs' own: the
    series' noise scale counts a later spike's neighbourhood and the warm-up itself (x1.05 at 1 % noise: 1.1-1.5x,
    and a lag-1 correlation of 0.1-0.3 made of the warm-up's two slow runs side by side)."""
    n = x.size
    kmax = min(limit, n // 4)
    if kmax < 2 or labels[0] != band:
        return 0
    lo = math.log(g.min_ratio)
    for k in range(kmax, 1, -1):
        if not (labels[:k] == band).all():
            continue
        after = x[k:][labels[k:] == band]
        if after.size < max(g.min_block, 4):
            continue
        ref = mean(after)
        m = after.size
        sd = max(math.sqrt(float(np.sum((after - ref) ** 2)) / (m - 1)), floor)
        if not (x[:k] - ref >= max(lo, WARMUP_JOIN_SIGMAS * sd)).all():
            continue
        rho = lag1(after - ref)
        # variance of the k runs' mean under AR(1) (k consecutive runs: 1 + 2 sum (1 - d/k) rho^d, not the long-run
        # factor of a long mean), and of the later runs' mean (long-run); their covariance (>= 0) left out
        f_k = 1.0 + 2.0 * sum((1.0 - d / k) * rho ** d for d in range(1, k))
        se = sd * math.sqrt(f_k / k + long_run_factor(rho) ** 2 / m)
        if mean(x[:k]) - ref >= t_isf(WARMUP_LEAD_ALPHA / (kmax - 1), m - 1.0) * se:
            return k
    return 0


def _longest_stretch(idx: np.ndarray) -> int:
    """Longest run of consecutive positions in the sorted positions ``idx``."""
    breaks = np.flatnonzero(np.diff(idx) != 1)
    edges = np.concatenate(([-1], breaks, [idx.size - 1]))
    return int(np.max(np.diff(edges)))


def _verdict(x, labels, levels, noise, g, changes, test_scale) -> Classification:
    blocks = _blocks(labels)
    nb = len(levels)
    trend = None
    warm = 0
    episodes: list[tuple[int, int, int]] = []
    if nb <= 1:
        verdict = "stable"
    else:
        ep = _episodes(blocks, labels, g.min_block, g.min_share)
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
    if verdict in ("stable", "step", "outliers", "bimodal"):
        warm, later, visits = _warmup_runs(x, labels, levels, g, noise.sigma if noise is not None else 0.0,
                                             noise.floor if noise is not None else 0.0)
        if warm:
            verdict = "warmup"
            episodes = []
            tail = np.flatnonzero(labels[warm:] >= 0)
            end = warm + int(tail[np.argmax(labels[warm + tail] == later)]) if tail.size else warm
            inside = np.flatnonzero(labels[:warm] == later)
            if end > warm or visits.size or inside.size:
                # the warm-up block's runs after the warm-up are the later band's; its later visits, outliers; the
                # later band's runs inside the warm-up (slower by min_ratio, beside a far one), warm-up runs
                labels = labels.copy()
                labels[warm:end][labels[warm:end] >= 0] = later
                labels[visits] = -1
                labels[inside] = -1
                levels = np.array([mean(x[labels == k]) if (labels == k).any() else levels[k]
                                   for k in range(len(levels))])
                blocks = _blocks(labels)
    outl = tuple(int(i) for i in (labels < 0).nonzero()[0] if i >= warm)
    if verdict == "stable":
        trend = _trend(x, labels, g, noise, test_scale, n_params=1)
        verdict = "trend" if trend and trend["significant"] else ("outliers" if outl else "stable")
    elif verdict in ("step", "episode", "bimodal", "bands"):
        # a drift cut into a staircase (whose levels noise may even interleave) is a trend
        t = _trend(x, labels, g, noise, test_scale, n_params=nb + len(blocks) - 1)
        if t and t["significant"] and (t["linear_fits_better"] or (verdict == "step" and _ramp(x, labels, blocks,
                                                                                               levels, g, t))):
            verdict, trend, episodes = "trend", t, []
    return Classification(verdict, labels, levels, noise.sigma, tuple(blocks), outl, trend, tuple(episodes),
                          changes, noise, test_scale, warm, x, g)


def _ramp(x: np.ndarray, labels: np.ndarray, blocks: list, levels: np.ndarray, g: Gates, t: dict) -> bool:
    """Whether a ``step`` verdict is a drift cut into a staircase that the band-level BIC of :func:`_trend` kept: its
    blocks (3 or 4: two or three changes, at most ``GATE_MAX_RUNS`` runs) have levels that only rise (or only fall) in
    run order, and both hold on its non-outlier runs -

    1. a straight line beats the best *one*-step fit (BIC, the step charged 4 log m as :func:`_trend` charges it on
       one level): a real step, and a staircase with one real step in it, fits a single step far better than a line;
    2. the changes add nothing to the line: the likelihood ratio (2 log) of "line + the staircase's changes" against
       the line alone is under :data:`RAMP_LR99`, the 99 % quantile of its largest value over every place of that many
       changes on Gaussian noise (the same for any slope: the line is in both models) - real steps of a staircase
       stand out from the line that runs through them (two x1.05 steps at 1 % noise at a third and two thirds of
       20 / 30 / 50 runs: 12 / 2 / 0 of 300 more read "trend" than without this rule).

    Why: the BIC of a line against the band levels charges a staircase its levels and change places, so a drift of
    x1.10 over 30 runs at 2 % noise cut into 3 blocks kept "step" in 7 of 500 series (at 50 runs 12 of 500), while
    the staircase's changes were nothing a line does not explain. Sets ``t["bic_one_step"]`` and ``t["ramp_lr"]``."""
    k = len(blocks) - 1
    if k not in RAMP_LR99 or x.size > GATE_MAX_RUNS:
        return False
    d = np.diff([levels[b[0]] for b in blocks])
    if not ((d > 0).all() or (d < 0).all()):
        return False
    idx = np.flatnonzero(labels >= 0)
    y = x[idx]
    m = y.size
    bic_one = m * math.log(max(_one_step_sse(y, g.min_block) / m, 1e-300)) + 4 * math.log(m)
    t["bic_one_step"] = bic_one
    if not t["bic_linear"] < bic_one:
        return False
    lr = ramp_lr(y, idx, [b[1] for b in blocks[1:]])
    t["ramp_lr"] = lr
    return lr < _interp(RAMP_LR99[k], m)


def ramp_lr(y: np.ndarray, at: np.ndarray, places: list[int]) -> float:
    """Likelihood ratio (2 log, Gaussian) of "a straight line + a mean shift at each of ``places``" against the
    straight line alone, for the values ``y`` at the run positions ``at`` (a shift at p: runs at p or later); it does
    not change when a line is added to ``y`` (the line is in both models)."""
    tt = np.asarray(at, dtype=np.float64)
    design = np.column_stack([np.ones(tt.size), tt] + [(tt >= p).astype(np.float64) for p in places])
    sse = [y - a @ np.linalg.lstsq(a, y, rcond=None)[0] for a in (design[:, :2], design)]
    return y.size * math.log(max(float(sse[0] @ sse[0]), 1e-300) / max(float(sse[1] @ sse[1]), 1e-300))


#: 99 % quantiles of the largest likelihood ratio (2 log) of "line + k mean shifts" against a line over every place of
#: the k shifts (sides of >= 3 runs) on Gaussian noise, by number of runs, for k = 2 and 3 (:func:`_ramp`;
#: ``benchmarks/step_null_short.py gate ramp``: 10,000 series a row for k = 2, 4,000 for k = 3 (2,000 over 70 runs);
#: flat in the number of runs, as :data:`STEP_LR99`'s null).
RAMP_LR99 = {2: ((10, 18.81), (12, 20.56), (15, 20.71), (20, 20.48), (25, 20.45), (30, 20.58), (40, 20.92),
                 (50, 21.33), (70, 21.72), (100, 22.23), (150, 22.55), (200, 23.14)),
             3: ((12, 18.58), (15, 22.89), (20, 25.11), (25, 25.89), (30, 26.90), (40, 26.95), (50, 27.48),
                 (70, 28.92), (100, 28.74), (150, 30.80), (200, 30.74))}


def _trend(x: np.ndarray, labels: np.ndarray, g: Gates, noise: RunNoise, scale: float, n_params: int) -> dict | None:
    """Least-squares drift of the non-outlier runs, with a long-run standard error of the slope
    (winsorised residuals), and the BIC of a straight line (2 parameters) vs the band levels of the
    blocks (``n_params``: levels + change locations)."""
    idx = (labels >= 0).nonzero()[0]
    if idx.size < 6:
        return None
    # (np.add.reduce / size is np.mean's and np.sum's float, x * x numpy's square: the same floats without the
    # wrappers' per-call costs)
    add = np.add.reduce
    y = x[idx]
    m = y.size
    t = idx.astype(np.float64)
    tc = t - add(t) / m
    sxx = float(add(tc * tc))
    ym = add(y) / m
    slope = float(add(tc * (y - ym)) / sxx) if sxx > 0 else 0.0
    resid_lin = y - (ym + slope * tc)
    c = g.clip * noise.sigma
    r = clip_to(resid_lin, -c, c)
    rho = max(lag1(r), noise.rho)
    s_lr = max(std(r), noise.floor) * long_run_factor(rho)
    se = s_lr / math.sqrt(sxx) if sxx > 0 else math.inf
    zstat = slope / se if se > 0 else 0.0
    p = erfc(abs(zstat) / math.sqrt(2.0))
    drift = slope * (t[-1] - t[0])
    li = labels[idx]
    if li[0] == li[-1] and (li == li[0]).all():  # (one band: its mean everywhere, as the loop below gives it)
        pc = np.full(m, mean(y))
    else:
        pc = np.zeros_like(y)
        for lab in distinct(li):
            at = li == lab
            pc[at] = mean(y[at])
    tiny = 1e-300
    d = y - pc
    bic_lin = m * math.log(max(float(add(resid_lin * resid_lin)) / m, tiny)) + 2 * math.log(m)
    bic_pc = m * math.log(max(float(add(d * d)) / m, tiny)) + n_params * math.log(m)
    sig = bool(p < g.alpha and abs(drift) >= max(math.log(g.min_ratio), g.visible * noise.sigma))
    out = {"slope_per_run": slope, "drift_ratio": exp_ratio(drift), "p_value": p, "z": float(zstat),
           "significant": sig, "bic_linear": bic_lin, "bic_steps": bic_pc, "linear_fits_better": bool(bic_lin < bic_pc)}
    if n_params == 1 and sig:
        # one level: a step under min_ratio in the middle (x1.025 at 0.3 % noise) has a least-squares drift of
        # 1.5 times its size and read as "drift x1.037"; a drift needs a line to beat one step at its best place.
        # The step is charged 4 log m: two levels and its place, which was searched, counted twice (with 3 log m
        # drifts of x1.10 at 2 % noise in 20 runs were found 2.7 points less often; with 4, 0.7: benchmarks/
        # shifts_null.py --only trend, RESULTS_calibration.md)
        bic_one = m * math.log(max(_one_step_sse(y, g.min_block) / m, tiny)) + 4 * math.log(m)
        out["bic_one_step"] = bic_one
        out["significant"] = bool(bic_lin < bic_one)
    return out


def _time_split(y: np.ndarray, min_side: int) -> tuple[float, int, float]:
    """The best least-squares split of ``y`` in run order into two means, ``min_side`` values or more on each side:
    (sum of squares about one mean, size of the first side, the sum of squares the split removes); (total, 0, 0.0)
    when ``y`` is too short to split."""
    m = y.size
    yc = y - mean(y)
    total = float(np.dot(yc, yc))
    if m < 2 * min_side:
        return total, 0, 0.0
    c = np.cumsum(yc)[min_side - 1:m - min_side]
    k = np.arange(min_side, m - min_side + 1, dtype=np.float64)
    # SSE of a split after k values = total - S_k^2 / k - S_k^2 / (m - k) (S_k: sum of the first k centred values)
    gain = c * c * (m / (k * (m - k)))
    j = int(gain.argmax())
    return total, min_side + j, float(gain[j])


def _one_step_sse(y: np.ndarray, min_side: int) -> float:
    """Smallest sum of squared residuals of ``y`` about two means, one before and one after a split with
    ``min_side`` values or more on each side (the sum about one mean when ``y`` is too short to split)."""
    total, _, gain = _time_split(y, min_side)
    return max(total - gain, 0.0)


def block_ratio(x: np.ndarray, a: np.ndarray, b: np.ndarray, scale: float) -> tuple[float, float, float]:
    """exp(mean x[b] - mean x[a]) with its 95 % interval from the long-run sd ``scale``."""
    d = mean(x[b]) - mean(x[a])
    se = scale * math.sqrt(1.0 / max(len(a), 1) + 1.0 / max(len(b), 1))
    return exp_ratio(d), exp_ratio(d - 1.959964 * se), exp_ratio(d + 1.959964 * se)


# --------------------------------------------------------------------------- the outlier gate
@functools.lru_cache(maxsize=4096)
def esd_lambda(m: int, alpha: float) -> float:
    """Rosner's (1983) critical value of the generalized ESD test for the largest of ``m`` remaining values
    (two-sided, ``alpha`` the chance that Gaussian noise has an outlier): ``(m - 1) t / sqrt((m - 2 + t^2) m)``,
    ``t`` Student's ``1 - alpha / (2 m)`` quantile with ``m - 2`` degrees of freedom."""
    t = t_isf(alpha / (2.0 * m), max(m - 2.0, 1.0))
    return (m - 1) * t / math.sqrt((m - 2.0 + t * t) * m)


#: Ratio to ``outlier_alpha`` of the level the ESD test of :func:`gate_outliers` runs at, by number of runs: with up
#: to half the runs as outliers, Rosner's critical values find one in 2.5 % of Gaussian series of 10 runs at 1 %
#: (they hold for a few outliers among 25 values or more); at these levels, in 1 %. 50,000 seeded Gaussian series
#: a row: ``python benchmarks/outlier_null.py --part esd --reps 50000`` (1.0 from 30 runs on: 0.997 at 30, 0.924
#: at 40, within the simulation's error of 1).
ESD_ALPHA_RATIO = ((6, 0.32), (8, 0.36), (10, 0.42), (12, 0.47), (15, 0.63), (20, 0.74), (25, 0.89), (30, 1.0))


def esd_count(r: np.ndarray, r_max: int, alpha: float, floor: float = 0.0) -> tuple[int, np.ndarray]:
    """Generalized ESD (Rosner 1983) of the values ``r`` with at most ``r_max`` outliers: (number of outliers,
    indices of ``r`` in the order the test removed them). Step i removes the value farthest from the mean of those
    left, ``R_i = |r - mean| / max(sd, floor)`` (sd with ddof 1); the count is the largest i with ``R_i > lambda_i``
    (:func:`esd_lambda`), so outliers that mask each other in the first steps are still found. (The value farthest
    from the mean is the smallest or the largest left: the values left are a slice of the sorted ones, and the
    sums of the slice are updated one value at a time.)"""
    order = np.argsort(r, kind="stable")
    v = r[order] - median(r)  # (centred: the running sums of squares lose nothing)
    lo, hi = 0, v.size - 1
    s1, s2 = float(np.sum(v)), float(np.sum(v * v))
    removed = []
    count = 0
    for i in range(max(0, min(r_max, v.size - 3))):
        m = hi - lo + 1
        mu = s1 / m
        sd = max(math.sqrt(max(s2 - s1 * mu, 0.0) / (m - 1)), floor)
        if sd <= 0:
            break
        k = lo if mu - v[lo] > v[hi] - mu else hi
        if abs(float(v[k]) - mu) / sd > esd_lambda(m, alpha):
            count = i + 1
        removed.append(int(order[k]))
        s1 -= float(v[k])
        s2 -= float(v[k]) * float(v[k])
        if k == lo:
            lo += 1
        else:
            hi -= 1
    return count, np.asarray(removed, np.int64)


def gate_outliers(c: Classification) -> Classification:
    """``c`` with only the outlier runs that a calibrated test of the most extreme runs confirms (sequences of up
    to ``GATE_MAX_RUNS`` runs): every run's distance from the median of its band (an outlier's: of the band around
    it, that of the run before it, else after it), warm-up runs left out, goes through the generalized ESD test
    (:func:`esd_count`) at ``outlier_alpha`` (times :data:`ESD_ALPHA_RATIO` below 30 runs) with up to half the
    runs as outliers (or as many as there are outlier runs, if more): slow runs of many sizes do not mask each
    other (speedpython 2020 raytrace: 8 of 20 runs at x1.08-1.31). An outlier run that it does not find joins the
    band around it and the verdict is decided again (:func:`_verdict`).

    Why: ``far`` is ``outlier_sigmas`` times a noise scale measured from the same runs, and on 10-50 runs of
    Gaussian noise that scale comes out at a third to a half of the true sd in the series that end up with an
    "outlier" (steps 1-4 of the module docstring take it inside segments, or inside two groups of values): 6-10 %
    of pure Gaussian series of 10-50 runs at >= 2 % sd had "outlier runs" (benchmarks/outlier_null.py). The ESD
    statistic measures the scale with the plain sd of the runs left, whose Gaussian quantiles are known for every
    count, so the series-level rate on Gaussian noise is at most ``outlier_alpha``."""
    if not c.outliers or c.x is None or c.x.size > GATE_MAX_RUNS:
        return c
    x, labels, g = c.x, c.labels, c.gates
    around = labels.copy()
    ok = np.flatnonzero(labels >= 0)
    if ok.size == 0:
        return c
    for i in c.outliers:
        k = ok.searchsorted(i)
        around[i] = labels[ok[k - 1]] if k > 0 else labels[ok[0]]
    start = c.warmup
    med = np.array([median(x[labels == k]) if (labels == k).any() else 0.0 for k in range(len(c.levels))])
    r = x[start:] - med[around[start:]]
    floor = c.noise.floor if c.noise is not None else 0.0
    ns, ratios = zip(*ESD_ALPHA_RATIO)
    level = g.outlier_alpha * float(np.interp(r.size, ns, ratios))
    count, order = esd_count(r, max(len(c.outliers), r.size // 2), level, floor)
    found = {int(i) + start for i in order[:count]}
    drop = [i for i in c.outliers if i not in found]
    if not drop:
        return c
    labels = labels.copy()
    labels[drop] = around[drop]
    levels = np.array([mean(x[labels == k]) for k in range(len(c.levels))])
    return step_missed(_verdict(x, labels, levels, c.noise, g, c.changes, c.test_scale), drop)


def step_missed(c: Classification, back) -> Classification:
    """The step at the best least-squares split of the runs (sides of >= ``min_block`` runs), when ``c`` reads one
    level (stable or outliers, <= ``GATE_MAX_RUNS`` runs), two or more of the runs ``back`` (outlier runs that the
    outlier gate put back into their band), most of those and at least half the runs of the shorter side of the
    split, sit there beyond the other side's level in the step's direction (the step's new level had been read as
    outlier runs), and the step passes the step
    gate (:func:`change_holds`: the statistic its quantiles were simulated for, the largest over every place);
    else ``c``. Called by :func:`gate_outliers`: x1.05 in the last 4 of 20 runs at 1 % noise - runs at +3.0 / +2.9 /
    +3.6 / +4.3 % after 16 within +-1.6 % - read "outliers" 19, 20, then "stable" once the ESD test put them back
    (5 % of such series). (Without the condition on ``back``, Student-t3 noise of 100 runs read "step" in 0.8 %
    of series, 0 before, and a 28 % exponential tail of 200 runs in 12 %: its tail runs, put back, leave best
    splits that the Gaussian-calibrated gate passes; counting every run set apart before the outlier gate, not
    only those put back: t3 0.25 %.)"""
    if c.verdict not in ("stable", "outliers") or c.x is None or c.x.size > GATE_MAX_RUNS:
        return c
    x, g = c.x, c.gates
    n = x.size
    mb = g.min_block
    if n < 2 * mb or len(back) < 2:
        return c
    kk = _time_split(x, mb)[1]
    lo, hi = mean(x[:kk]), mean(x[kk:])
    side, other = (np.arange(kk, n), lo) if n - kk <= kk else (np.arange(kk), hi)
    sign = 1.0 if mean(x[side]) > other else -1.0
    on_side = set(side.tolist())
    hits = sum(1 for i in back if i in on_side and sign * (x[i] - other) > 0)
    if hits < 2 or 2 * hits < side.size or 2 * hits <= len(back):
        return c
    labels = np.where(np.arange(n) >= kk, int(hi > lo), int(hi <= lo)).astype(np.int64)
    levels = np.array(sorted((lo, hi)))
    cand = _verdict(x, labels, levels, c.noise, g, c.changes, c.test_scale)
    if cand.verdict == "step" and change_holds(cand):
        return cand
    return c
