"""Reduce up to 10^7 samples to weighted points (distinct values or histogram bins), vectorised.

The mixture is fitted on the points; every sample is then mapped back to its point with one
integer index, so labelling 10^7 samples is a single gather.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

#: Integer data whose range is at most this many values are counted exactly (np.bincount).
MAX_INT_RANGE = 2_000_000
#: Float data with at most this many samples are reduced to their distinct values (exact).
MAX_EXACT = 4096


@njit(cache=True, nogil=True)
def _gather(v, lo, hi, offset, step, is_int, dense_label, missing):
    n = v.size
    out = np.empty(n, dtype=np.int8)
    m = dense_label.size
    for i in range(n):
        x = v[i]
        if not (x >= lo and x <= hi):
            out[i] = missing
            continue
        if is_int:
            j = int(np.rint(x - offset))
        else:
            j = int(np.floor((x - offset) / step))
        if j < 0:
            j = 0
        elif j >= m:
            j = m - 1
        out[i] = dense_label[j]
    return out


@dataclass(frozen=True)
class Reduced:
    """Weighted points plus the rule that maps a sample to its point.

    ``x``: point values (ascending); ``w``: sample counts; ``step``: quantisation step of the points
    (1 for integer counts, the bin width for a histogram -- the narrowest one for log-spaced bins --,
    0 for exact distinct floats); ``kind``: "int" | "exact" | "hist" | "loghist"; ``lo``/``hi``: the fitted value range (samples outside are
    not fitted: tail samples of a histogram reduction).
    """

    x: np.ndarray
    w: np.ndarray
    step: float
    kind: str
    lo: float
    hi: float
    _offset: float
    _nz: np.ndarray  # for "int"/"hist": dense index -> point index (or -1 when empty)
    _logwidth: float = 0.0  # for "loghist": bin width in log(value)

    def labels(self, values: np.ndarray, point_label: np.ndarray, missing: int) -> np.ndarray:
        """``point_label`` of every value's point (``missing`` outside the fitted range), int8.
        Integer and linear-histogram reductions use one numba pass (no n-sized temporaries)."""
        v = np.ascontiguousarray(values, dtype=np.float64)
        pl = np.ascontiguousarray(point_label, dtype=np.int8)
        if self.kind in ("int", "hist"):
            dense_label = np.where(self._nz >= 0, pl[np.maximum(self._nz, 0)], missing).astype(np.int8)
            return _gather(v, self.lo, self.hi, self._offset, self.step if self.kind == "hist" else 1.0,
                           self.kind == "int", dense_label, np.int8(missing))
        idx = self.index(v)
        return np.where(idx >= 0, pl[np.maximum(idx, 0)], missing).astype(np.int8)

    def index(self, values: np.ndarray) -> np.ndarray:
        """Point index of every value (-1 for values outside the fitted range / non-finite)."""
        v = np.asarray(values, dtype=np.float64)
        out = np.full(v.shape, -1, dtype=np.int64)
        ok = np.isfinite(v) & (v >= self.lo) & (v <= self.hi)
        if self.kind == "exact":
            i = np.searchsorted(self.x, v[ok])
            i = np.clip(i, 0, self.x.size - 1)
            hit = self.x[i] == v[ok]
            j = np.where(hit, i, -1)
            out[ok] = j
            return out
        if self.kind == "int":
            dense = np.rint(v[ok] - self._offset).astype(np.int64)
        elif self.kind == "loghist":
            dense = np.floor((np.log(v[ok]) - self._offset) / self._logwidth).astype(np.int64)
        else:
            dense = np.floor((v[ok] - self._offset) / self.step).astype(np.int64)
        dense = np.clip(dense, 0, self._nz.size - 1)
        out[ok] = self._nz[dense]
        return out


def reduce_values(v: np.ndarray, max_bins: int = 8192, tail: float = 1e-5) -> Reduced:
    """Reduce finite 1-D values ``v`` to weighted points.

    Integer-valued data (FTQ counts) with a range of at most :data:`MAX_INT_RANGE` are counted
    exactly. Other data: exact distinct values when small, else a ``max_bins`` histogram over the
    [tail, 1 - tail] quantile range (the few samples outside are left unfitted).
    """
    v = np.asarray(v, dtype=np.float64)
    vmin, vmax = float(v.min()), float(v.max())
    if vmax - vmin <= MAX_INT_RANGE and np.array_equal(v, np.rint(v)):
        off = vmin
        counts = np.bincount((v - off).astype(np.int64))
        nz = np.flatnonzero(counts)
        dense = np.full(counts.size, -1, dtype=np.int64)
        dense[nz] = np.arange(nz.size)
        return Reduced(x=nz + off, w=counts[nz].astype(np.float64), step=1.0, kind="int",
                       lo=vmin, hi=vmax, _offset=off, _nz=dense)
    if v.size <= MAX_EXACT:
        x, w = np.unique(v, return_counts=True)
        return Reduced(x=x, w=w.astype(np.float64), step=0.0, kind="exact", lo=vmin, hi=vmax,
                       _offset=0.0, _nz=np.empty(0, dtype=np.int64))
    lo, hi = (float(q) for q in np.quantile(v, [tail, 1.0 - tail]))
    if hi <= lo:
        lo, hi = vmin, vmax
    if hi <= lo:
        hi = lo + 1.0
    if lo > 0 and hi / lo > 2.0:
        # levels several times apart: log-spaced bins keep the *relative* resolution constant
        # (8192 bins over 1000..25000 are 0.04 % wide everywhere, linear ones 0.3 % at 1000)
        llo, lhi = np.log(lo), np.log(hi)
        width = (lhi - llo) / max_bins
        with np.errstate(divide="ignore", invalid="ignore"):
            lv = np.log(v)
        counts, _ = np.histogram(lv, bins=max_bins, range=(llo, lhi + width * 1e-9))
        nz = np.flatnonzero(counts)
        dense = np.full(counts.size, -1, dtype=np.int64)
        dense[nz] = np.arange(nz.size)
        centres = np.exp(llo + (nz + 0.5) * width)
        return Reduced(x=centres, w=counts[nz].astype(np.float64), step=lo * np.expm1(width),
                       kind="loghist", lo=lo, hi=hi, _offset=llo, _nz=dense, _logwidth=width)
    width = (hi - lo) / max_bins
    counts, _ = np.histogram(v, bins=max_bins, range=(lo, hi + width * 1e-9))
    nz = np.flatnonzero(counts)
    dense = np.full(counts.size, -1, dtype=np.int64)
    dense[nz] = np.arange(nz.size)
    centres = lo + (nz + 0.5) * width
    return Reduced(x=centres, w=counts[nz].astype(np.float64), step=width, kind="hist", lo=lo,
                   hi=hi, _offset=lo, _nz=dense)


#: Longest comb period searched (counts).
MAX_COMB_PERIOD = 4096.0


def comb_period(x: np.ndarray, w: np.ndarray, max_period: float, min_ratio: float = 0.05,
                min_period: float = 2.0) -> float | None:
    """Period (in counts) of a *comb* in integer counts, or None.

    FTQ's work loop makes counts cluster on a comb (e.g. 1338, 1333, 1329, 1324 at 10 kHz, about
    0.35 % apart): one performance level, not several. A comb shows as a local peak of the
    magnitude spectrum of the count histogram at frequency 1/period, far above the Poisson noise
    floor. Only periods in [min_period, max_period] are considered (max_period = the
    resolution ``min_separation x level``: structure finer than that is not a band by definition).
    Returns the period when the peak reaches ``min_ratio`` x the spectrum at frequency 0 and 1.75x
    the lowest spectrum between frequency 0 and the peak.
    """
    # FTQ combs are a few counts wide; searching periods beyond MAX_COMB_PERIOD would size the
    # histogram by the level itself (a level of 1e9 counts: arrays of 1e8+, minutes of FFT)
    max_period = min(max_period, MAX_COMB_PERIOD)
    if max_period < min_period or x.size < 8:
        return None
    # a window around the most frequent count (+- 6 max periods), Hann-tapered: the spectrum of
    # one band and its comb, without the beating between distant bands (which also makes peaks)
    med = float(x[int(np.argmax(w))])
    half = int(np.ceil(6 * max_period))
    a, b = int(med) - half, int(med) + half
    h = np.zeros(b - a + 1)
    sel = (x >= a) & (x <= b)
    h[(x[sel] - a).astype(np.int64)] = w[sel]
    h *= np.hanning(h.size)
    nfft = 1 << int(np.ceil(np.log2(max(8 * h.size, 1024))))
    spec = np.abs(np.fft.rfft(h - 0.0, nfft))
    f = np.fft.rfftfreq(nfft)
    band = (f >= 1.0 / max_period) & (f <= 1.0 / min_period)
    idx = np.flatnonzero(band)
    if idx.size < 3:
        return None
    s = spec[idx]
    loc = np.flatnonzero((s[1:-1] > s[:-2]) & (s[1:-1] >= s[2:])) + 1
    if loc.size == 0:
        return None
    j = loc[np.argmax(s[loc])]
    if s[j] < min_ratio * spec[0]:
        return None
    # a real comb peak rises well above the valley between it and frequency 0; the smooth spectrum
    # of a wide band (a Gaussian decaying into the searched range, with window ripples) does not
    if s[j] < 1.75 * float(spec[1: idx[j]].min()):
        return None
    return float(1.0 / f[idx[j]])


def box_smooth(x: np.ndarray, w: np.ndarray, period: float) -> tuple[np.ndarray, np.ndarray]:
    """Integer histogram (points ``x``, weights ``w``) averaged over a box one comb period wide
    (fractional end weights), which removes a comb of that period exactly. Returns dense points."""
    lo, hi = int(x[0]), int(x[-1])
    h = np.zeros(hi - lo + 1)
    h[(x - lo).astype(np.int64)] = w
    half = period / 2.0
    m = int(np.floor(half))
    ker = np.ones(2 * m + 1)
    frac = half - m
    if frac > 0:
        ker = np.r_[frac, ker, frac]
    ker /= ker.sum()
    sm = np.convolve(h, ker, mode="full")
    k = (ker.size - 1) // 2
    xs = np.arange(lo - k, hi + k + 1, dtype=np.float64)
    keep = sm > 1e-12 * sm.max()
    return xs[keep], sm[keep]
