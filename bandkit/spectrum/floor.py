"""The noise floor a spectral line is measured against, and the threshold that makes a line significant.

Floor: a local order statistic (the OS-CFAR detector of radar)
-------------------------------------------------------------
FTQ spectra are anything but flat: the work rate's slow wander rises steeply (~1/f to 1/f²) towards
DC, band switching gives a Lorentzian shoulder, stalls a broad sinc²-shaped hump, and quasi-periodic
scheduling (a 125 Hz round-robin with jitter, say) broad bumps tens of Hz wide. A line is narrower
than all of them: the Hann window's main lobe, ±2 bins. So the floor at bin ``i`` is the median of
the PSD over the *training cells* ``G < |j - i| ≤ M`` (``G = 2`` guard bins keep the line's own main
lobe out, ``M = 26``), corrected for the median's bias so that it estimates the mean noise power.
Near DC the window shrinks *symmetrically* (``M_i = min(M, i - 2)``), so a monotone slope, however
steep, still has its median at the centre; with few cells left the floor is noisy, and the threshold
below says so (lines in the lowest bins must be much stronger). Near Nyquist, where the spectrum is
smooth (the quantum's box filter), the window keeps its cells and shifts left.
The previous floor (a median over fs/100 padded with the DC bin's value) sat far below the 1/f rise:
that is where 11 of 47 clean traces got "spectral lines".

Threshold: calibrated on the null distribution, per trace
--------------------------------------------------------
Under the null (no line) a Welch bin is ``S·χ²_ν/ν`` (``ν`` = :attr:`Spectrum.dof`), and so is each
training cell; the ratio ``R = P_i / Y`` of a bin to the ``k``-th smallest of its ``m`` training
cells has a known tail, ``P(R > t) = E_Y[χ²_ν.sf(ν·t·Y)]`` (:func:`ratio_sf`: an integral over the
order statistic's quantiles with scipy.special). A trace searches ``N`` bins, so a line needs
``N·P(R > t) ≤ α`` (Bonferroni; ``α = 1 %`` by default: at most one clean trace in a hundred gets a
line anywhere in its spectrum). The line's ``p_value`` is ``min(1, N·P(R > r))``: a family-wise
p-value over every bin searched. Adjacent Welch bins are correlated (Hann window, 50 % overlap), so
the ``m`` cells count as ``m / CELL_CORRELATION`` independent ones: the factor is the one measured
on white noise (a 1,000-trace simulation: 0.8 % of traces with a false line at α = 1 %) and checked
on generated clean FTQ traces (benchmarks/spectral_calibration.py, results in
benchmarks/RESULTS_calibration.md, "spectral lines and interference"). Welch's ν assumes a
stationary trace; where the trace's own bins vary more (long band dwell, a burst of stalls in a few
segments), ν is lowered to what the lower half of their distribution shows (:func:`effective_dof`),
so that such traces do not get a crop of weak "lines".
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import special

from ..filters1d import window_rank

#: Guard bins each side of the bin under test (the Hann main lobe is ±2 bins).
GUARD = 2
#: Training bins each side (beyond the guard) at full width.
HALF_WIDTH = 26
#: First bin used as a training cell (bins 0 and 1 carry the segments' removed means).
FIRST_BIN = 2
#: Fewest training cells on each side for a bin to be searched at all.
MIN_CELLS_SIDE = 3
#: Neighbouring Welch bins are correlated: m training cells are worth m / CELL_CORRELATION independent
#: ones in the order statistic's spread (measured; see the module docstring).
CELL_CORRELATION = 2.0


@dataclass(frozen=True)
class Floor:
    """Local floor of a PSD and its per-bin calibration.

    ``level``: floor (≈ mean noise PSD, same units as the PSD; NaN where not searchable); ``cells``:
    number of training cells per bin (0: not searched); ``rank``: rank k (1-based) of the order
    statistic used; ``bias``: median/mean of that order statistic (``level = Y / bias``); ``dof``: ν
    per bin (the Welch estimate's, or less where the trace's own spectrum is more variable: see
    :func:`effective_dof`).
    """

    level: np.ndarray
    cells: np.ndarray
    rank: np.ndarray
    bias: np.ndarray
    dof: np.ndarray

    @property
    def searched(self) -> np.ndarray:
        return self.cells > 0


def _rank(m: int) -> int:
    return max(1, (m + 1) // 2)


def local_floor(psd: np.ndarray, dof: float, *, guard: int = GUARD, half_width: int = HALF_WIDTH) -> Floor:
    """Median of the training cells ``guard < |j - i| ≤ half_width`` of every bin (window shrinking
    symmetrically near DC; near Nyquist, where the spectrum is smooth, the same number of cells with
    the window shifted left), divided by the median's bias (see module docstring)."""
    psd = np.asarray(psd, dtype=np.float64)
    n = len(psd)
    last = n - 1
    level = np.full(n, np.nan)
    cells = np.zeros(n, dtype=np.int64)
    rank = np.zeros(n, dtype=np.int64)
    idx = np.arange(n)
    h = np.minimum(np.minimum(idx - FIRST_BIN, last - 1 - idx), half_width)
    ok = h - guard >= MIN_CELLS_SIDE
    full = h == half_width
    # (the bin next to Nyquist is not searched: a line at Nyquist itself leaks into it, off by half a bin)
    top = (idx > last - 1 - half_width) & (idx < last - 1) & (idx - guard - 2 * (half_width - guard) >= FIRST_BIN)
    if full.any():
        m = 2 * (half_width - guard)
        k = _rank(m)
        # NOTE: the k-th of the FULL 2·half_width + 1 window, guard bins included, is what this floor has
        # computed since it used scipy.ndimage.rank_filter with a footprint that leaves the guard bins
        # out: scipy's 1-D path uses only the footprint's size (scipy 1.17; checked in
        # tests/test_lite_numerics.py). The spectral calibration was measured on this floor, so it is
        # kept as it is here; excluding the guard bins is a separate change that needs a recalibration.
        rk = window_rank(psd, k - 1, 2 * half_width + 1)
        level[full] = rk[full]
        cells[full], rank[full] = m, k
    m_full = 2 * (half_width - guard)
    for i in np.flatnonzero(top):  # near Nyquist the spectrum is smooth: a full window, shifted left
        right = psd[i + guard + 1: last]  # (the Nyquist bin itself is not a cell)
        left = psd[i - guard - (m_full - len(right)): i - guard]
        tr = np.concatenate([left, right])
        k = _rank(m_full)
        level[i] = np.partition(tr, k - 1)[k - 1]
        cells[i], rank[i] = m_full, k
    for i in np.flatnonzero(ok & ~full & ~top):  # the few bins near DC
        hi = int(h[i])
        tr = np.concatenate([psd[i - hi: i - guard], psd[i + guard + 1: i + hi + 1]])
        m = len(tr)
        k = _rank(m)
        level[i] = np.partition(tr, k - 1)[k - 1]
        cells[i], rank[i] = m, k
    return _with_dof(level, cells, rank, np.full(n, float(dof)))


def _with_dof(order_stat: np.ndarray, cells: np.ndarray, rank: np.ndarray, dof: np.ndarray) -> Floor:
    """Floor from the raw order statistic Y of every bin, debiased for each bin's ν."""
    bias = np.ones(len(cells))
    for m, nu in set(zip(cells[cells > 0].tolist(), dof[cells > 0].tolist())):
        sel = (cells == m) & (dof == nu)
        bias[sel] = order_stat_median(float(nu), int(m), int(rank[sel][0]))
    return Floor(level=order_stat / bias, cells=cells, rank=rank, bias=bias, dof=dof)


def _effective(m: int, k: int) -> tuple[float, float]:
    """Effective (m, k) of m correlated cells: fewer, the same quantile."""
    me = max(2.0, m / CELL_CORRELATION)
    return me, max(1.0, me * k / m)


@lru_cache(maxsize=256)
def _y_quantiles(dof: float, m: int, k: int, n_grid: int = 150) -> tuple[np.ndarray, np.ndarray]:
    """Quantiles of Y = k-th order statistic of m χ²_ν/ν cells (m, k made effective), with weights."""
    me, ke = _effective(m, k)
    # dense near u = 0 (a low floor estimate is what makes false alarms)
    edges = np.unique(np.concatenate([np.logspace(-14, -2, n_grid // 3), np.linspace(0.01, 1.0, n_grid)]))
    u = 0.5 * (edges[1:] + edges[:-1])
    w = np.diff(edges)
    v = special.betaincinv(ke, me - ke + 1.0, u)  # F(Y) quantiles
    y = special.chdtri(dof, 1.0 - v) / dof
    return y, w


@lru_cache(maxsize=256)
def order_stat_median(dof: float, m: int, k: int) -> float:
    """Median of the k-th of m χ²_ν/ν cells, divided by its mean 1: the floor's bias."""
    me, ke = _effective(m, k)
    v = special.betaincinv(ke, me - ke + 1.0, 0.5)
    return float(special.chdtri(dof, 1.0 - v) / dof)


def ratio_sf(t, dof: float, m: int, k: int):
    """P(X / Y > t) for X ~ χ²_ν/ν and Y the k-th of m χ²_ν/ν training cells (t scalar or array)."""
    y, w = _y_quantiles(float(dof), int(m), int(k))
    t = np.atleast_1d(np.asarray(t, dtype=np.float64))
    sf = special.chdtrc(dof, dof * t[:, None] * y[None, :]) @ w
    return sf


@lru_cache(maxsize=4096)
def threshold(p: float, dof: float, m: int, k: int) -> float:
    """Ratio t (bin / order statistic) with P(R > t) = p (to 1e-6 relative)."""
    lo, hi = -3.0, 7.0  # log t
    for _ in range(22):
        mid = 0.5 * (lo + hi)
        if ratio_sf(np.exp(mid), dof, m, k)[0] > p:
            lo = mid
        else:
            hi = mid
    return float(np.exp(hi))


@dataclass(frozen=True)
class Calibration:
    """Per-bin detection threshold and p-values of one spectrum.

    ``ratio``: PSD / floor (power ratio: the SNR); ``threshold``: the ratio a bin must exceed (NaN
    where not searched); ``n_searched``: bins searched (the Bonferroni count); ``alpha``: family-wise
    false-alarm probability per trace.
    """

    floor: Floor
    ratio: np.ndarray
    threshold: np.ndarray
    n_searched: int
    alpha: float

    def p_value(self, i: int) -> float:
        """Family-wise p-value of bin ``i``: N·P(R > observed) under the null, capped at 1."""
        fl = self.floor
        if fl.cells[i] <= 0:
            return 1.0
        r = self.ratio[i] / fl.bias[i]  # back to bin / order statistic
        return float(min(1.0, self.n_searched * ratio_sf(r, float(fl.dof[i]), int(fl.cells[i]), int(fl.rank[i]))[0]))

    def local_p_value(self, i: int) -> float:
        """P(R > observed) at one bin chosen in advance (no search over bins): for a frequency named by
        other evidence, e.g. the fundamental of a comb its harmonics located."""
        fl = self.floor
        if fl.cells[i] <= 0:
            return 1.0
        r = self.ratio[i] / fl.bias[i]
        return float(min(1.0, ratio_sf(r, float(fl.dof[i]), int(fl.cells[i]), int(fl.rank[i]))[0]))


#: Effective ν: at most this many blocks of at least BLOCK_BINS full-window bins.
MAX_BLOCKS, BLOCK_BINS = 16, 1024


@lru_cache(maxsize=1024)
def _log_spread(dof: float, m: int, k: int) -> float:
    """Model distance between the median and the 10th percentile of log(bin / floor) for ν = ``dof``:
    log χ²_ν/ν's (exact) combined with the floor's spread (log of the order statistic, ~normal)."""
    sx = float(np.log(special.chdtri(dof, 0.5) / special.chdtri(dof, 0.9)))
    y, w = _y_quantiles(float(dof), int(m), int(k))
    ly = np.log(y)
    sd = float(np.sqrt(np.sum(w * (ly - np.sum(w * ly)) ** 2) / np.sum(w)))
    return float(np.hypot(sx, 1.2816 * sd))


def effective_dof(ratio: np.ndarray, fl: Floor, dof: float) -> np.ndarray:
    """ν per bin from the trace's own spectrum, never above the Welch ν (``dof``).

    Welch's ν assumes a stationary trace; a trace whose segments differ (long band dwell, a burst of
    stalls in one segment) has bins that vary more, so more of them cross a threshold set for ν. The
    lower half of the distribution of bin / floor (the median to the 10th percentile of its log: lines
    do not reach there) measures the real variability: per block of ≥ 1,024 bins, the ν whose model
    spread (:func:`_log_spread`, floor noise included) matches it. Blocks within 7 % of the Welch ν
    keep it; others take the next lower value of a geometric grid (so that few thresholds are needed).
    """
    out = np.full(len(ratio), float(dof))
    full = np.flatnonzero(fl.searched & (fl.cells == fl.cells.max()))
    if len(full) < BLOCK_BINS:
        return out
    m, k = int(fl.cells[full[0]]), int(fl.rank[full[0]])
    grid = np.geomspace(max(2.0, 0.25 * dof), dof, 10)
    spread = np.array([_log_spread(round(float(g), 3), m, k) for g in grid])  # decreasing in ν
    blocks = np.array_split(full, min(MAX_BLOCKS, len(full) // BLOCK_BINS))
    nus = []
    for b in blocks:
        lr = np.log(np.maximum(ratio[b], 1e-300))
        s = float(np.quantile(lr, 0.5) - np.quantile(lr, 0.1))
        nu = float(np.interp(-s, -spread, grid))  # spread → ν (np.interp needs increasing x)
        if nu < 0.93 * dof:
            nu = float(grid[grid <= nu + 1e-9].max(initial=grid[0]))
        else:
            nu = float(dof)
        nus.append(nu)
        out[b[0]: b[-1] + 1] = nu
    out[: full[0]] = nus[0]  # bins near DC and Nyquist: their nearest block's
    out[full[-1] + 1:] = nus[-1]
    return np.round(out, 3)


def calibrate(psd: np.ndarray, dof: float, *, alpha: float = 0.01, first: int = 0,
              adapt: bool = True) -> Calibration:
    """Floor, ratio and family-wise threshold (``alpha`` per trace) of a PSD; bins below ``first``
    are not searched. With ``adapt``, ν per bin is the trace's own (:func:`effective_dof`)."""
    fl = local_floor(psd, dof)
    if first > 0:
        cells = fl.cells.copy()
        cells[:first] = 0
        fl = Floor(fl.level, cells, fl.rank, fl.bias, fl.dof)
    searched = fl.searched
    n = int(searched.sum())
    ratio = np.where(searched, psd / np.where(searched, fl.level, 1.0), np.nan)
    if adapt:
        nu = effective_dof(ratio, fl, dof)
        if np.any(nu < dof):
            fl = _with_dof(fl.level * fl.bias, fl.cells, fl.rank, nu)
            ratio = np.where(searched, psd / np.where(searched, fl.level, 1.0), np.nan)
    thr = np.full(len(psd), np.nan)
    # the few bins near DC and Nyquist with a short window share the threshold of the shortest window
    # of their class (conservative): a handful of threshold computations, not one per window length
    m_class = np.where(fl.cells >= fl.cells.max(), fl.cells, _EDGE_CLASSES[np.searchsorted(_EDGE_CLASSES, fl.cells,
                                                                                             side="right") - 1])
    for m, nu in set(zip(m_class[searched].tolist(), fl.dof[searched].tolist())):
        sel = searched & (m_class == m) & (fl.dof == nu)
        t = threshold(alpha / max(n, 1), float(nu), int(m), _rank(int(m)))  # on bin / order statistic
        thr[sel] = t * fl.bias[sel]  # in units of the floor (ratio = PSD / level = bias · PSD / Y)
    return Calibration(floor=fl, ratio=ratio, threshold=thr, n_searched=n, alpha=float(alpha))


#: Window classes (training cells) for the short windows near DC and Nyquist.
_EDGE_CLASSES = np.array([0, 2 * MIN_CELLS_SIDE, 10, 14, 20, 28, 36, 44])
