"""Is a lone line steady? The persistence gate: a sinusoid has the same power in every Welch segment.

Why a second test after the threshold
-------------------------------------
The threshold of :mod:`bandkit.spectrum.floor` is exact for *stationary* noise: a Welch bin is then
``S·χ²_ν/ν``. Real FTQ spectra are not always stationary. In the quiet 7777 Hz recording a 75-90 Hz
bump is 7-16 times stronger in the last half of the trace than in the first, so the Welch average of
that region is carried by two or three of its eight segments and varies like far fewer than ν
degrees of freedom; its top bins cross a threshold set for ν. Narrow-band noise (a resonance, a
quasi-periodic scheduler) is worse still: it can be as narrow as the window's main lobe, so neither
the floor nor the width test (:func:`bandkit.spectrum.peaks._line_shaped`) tells it from a line.

What does tell them apart is *time*: a sinusoid puts the same power into every segment's periodogram,
a noise peak (or a short burst) puts it into a few. So every *lone* line (a comb of one: no
harmonics to vouch for it; comb members are left alone) must pass this gate:

- **persistence**: per segment ``k``, the line's excess ``e_k = P_k(i) - N_k(i)`` at its top bin
  ``i``, over the noise under it in that segment, ``N_k`` (debiased median of bins ``2 < |j - i| ≤ 8``:
  narrow, so that a line on a bump is measured against the bump's own fluctuating power). A steady
  sinusoid keeps ``E[e_k]`` constant whatever the noise level of each segment (stalls come and go;
  so may a bump), so the statistic is the **median** of ``e_k`` (a few segments where a real line is
  weaker do not move it). Its null is a steady sinusoid of ``ALLOWANCE`` × the mean excess over the
  segments' own noise levels, ``P_k = |√L + √N_k·z_k|²`` with ``z_k`` complex normal, floor estimation
  noise included, by Monte Carlo (fixed seed). The line fails when a steady line gives a median this
  low with probability below ``GATE_P``;
- **unsteady floor**: the per-segment floors over the trace's training cells (``2 < |j - i| ≤ 26``)
  give the ν the Welch average really has there (:func:`local_dof`: segments with unequal noise
  levels are fewer effective segments). When it is below the trace's ν (by > 7 %), the line's
  family-wise p-value is recomputed with it; a line that is no longer significant (``> α``) fails
  when its time structure does not vouch for it either (persistence p-value below
  ``FLOOR_STEADY_P``).

A line that fails leaves the line list (and so the verdict, the combs and the two-rate test) and
is reported as a *transient* (:class:`Transient`: frequency, SNR, per-segment ratios, the segments
and time spans that hold its power, the reason and both p-values).

Calibration (benchmarks/spectral_calibration.py, RESULTS_calibration.md "linebump"): null traces with
narrow-band noise, AR(2) resonances and bursts of band-limited noise, and the same traces with a
steady sinusoid on top.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .welch import hann, segment_power

#: A lone line is not steady when a steady sinusoid gives a median this low with at most this probability.
GATE_P = 0.01
#: Share of the observed mean excess a steady line must keep in every segment (room for selection bias
#: and modest amplitude modulation).
ALLOWANCE = 0.75
#: A line whose local floor is unsteady (its p-value with the local ν exceeds the trace's α) fails
#: when its own time structure does not vouch for it either: steady p-value below this.
FLOOR_STEADY_P = 0.1
#: Monte Carlo draws of the steady-line null (fixed seed: the same trace always gets the same answer).
DRAWS = 4000
#: Training cells of the per-segment floor: guard and half-width in bins (as the trace's floor) ...
GUARD, HALF = 2, 26
#: ... and of the noise level under the line in each segment: a narrow window, so that a line on a
#: bump is measured against the bump's own (fluctuating) power there, not the wider floor.
NEAR = 8
#: A segment "carries" the line when its excess is at least this share of the mean excess.
ACTIVE_SHARE = 0.5


@dataclass(frozen=True)
class Transient:
    """A lone peak that failed the persistence gate: not a steady line.

    ``freq_hz``, ``snr_db``, ``amplitude``, ``p_value``: as the line it would have been (Welch
    average over the whole trace); ``segment_ratios``: per-segment power over that segment's own
    floor at the line's bin; ``median_ratio`` / ``mean_ratio``: their median and mean;
    ``steady_p``: probability that a steady sinusoid gives a median this low (the gate's p-value);
    ``active_segments``: segments whose excess is ≥ half the mean excess; ``active_share``: their
    share of the total excess; ``start_s`` / ``end_s``: the time span those segments cover, ``spans_s``
    the stretches they cover (overlapping segments merged); ``reason``: "not steady" (the persistence
    test failed) or "unsteady floor" (the floor around it changes over time, and with the ν of its own
    neighbourhood, ``local_dof``, its family-wise p-value ``local_p_value`` exceeds the trace's α)."""

    freq_hz: float
    snr_db: float
    amplitude: float
    p_value: float | None
    segment_ratios: tuple[float, ...]
    median_ratio: float
    mean_ratio: float
    steady_p: float
    active_segments: tuple[int, ...]
    active_share: float
    start_s: float
    end_s: float
    segment_s: float
    local_dof: float | None = None
    local_p_value: float | None = None
    reason: str = "not steady"
    spans_s: tuple[tuple[float, float], ...] = ()

    def to_dict(self) -> dict:
        return {"freq_hz": round(float(self.freq_hz), 4), "snr_db": round(float(self.snr_db), 2),
                "amplitude": float(self.amplitude),
                "p_value": None if self.p_value is None else float(f"{self.p_value:.3g}"),
                "segment_ratios": [round(float(r), 2) for r in self.segment_ratios],
                "median_ratio": round(float(self.median_ratio), 3), "mean_ratio": round(float(self.mean_ratio), 3),
                "steady_p": float(f"{self.steady_p:.3g}"),
                "active_segments": [int(k) for k in self.active_segments],
                "active_share": round(float(self.active_share), 3),
                "start_s": round(float(self.start_s), 3), "end_s": round(float(self.end_s), 3),
                "segment_s": round(float(self.segment_s), 4),
                "local_dof": None if self.local_dof is None else round(float(self.local_dof), 2),
                "local_p_value": None if self.local_p_value is None else float(f"{self.local_p_value:.3g}"),
                "reason": self.reason,
                "spans_s": [[round(float(a), 3), round(float(b), 3)] for a, b in self.spans_s]}


def segment_periodograms(x: np.ndarray, fs: float, nperseg: int, bins: np.ndarray) -> np.ndarray:
    """Each Welch segment's periodogram (the same window, detrending and density scaling as
    :func:`bandkit.spectrum.welch.welch`, which averages them) at ``bins``: shape (segments, len(bins))."""
    x = np.asarray(x, dtype=np.float64)
    step = nperseg - nperseg // 2
    scale = 2.0 / (fs * np.sum(hann(nperseg) ** 2))
    out = np.empty((1 + (len(x) - nperseg) // step, len(bins)))
    for a, p in segment_power(x, nperseg, step):
        out[a:a + len(p)] = p[:, bins] * scale
    return out


def _cells(i: int, n_bins: int, half: int = HALF) -> np.ndarray:
    j = np.r_[i - half: i - GUARD, i + GUARD + 1: i + half + 1]
    return j[(j > 0) & (j < n_bins - 1)]


@lru_cache(maxsize=64)
def _null_draws(k: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Noise of the steady-line null for ``k`` segments (fixed seed): unit complex normals ``z`` and
    per-segment floors ``Ŝ`` from ``m`` correlated χ²₂ cells (debiased median)."""
    rng = np.random.default_rng([k, m, 20261125])
    z = (rng.standard_normal((DRAWS, k)) + 1j * rng.standard_normal((DRAWS, k))) / np.sqrt(2.0)
    me = max(4, int(m / 1.5))  # adjacent Hann bins are correlated: fewer independent cells
    s_hat = np.median(rng.exponential(size=(DRAWS, k, me)), axis=2) / np.log(2.0)
    return z, s_hat


def steady_null_medians(line: float, floors: np.ndarray, m: int) -> np.ndarray:
    """Medians over the segments of the excess ``P_k - Ŝ_k`` for a steady sinusoid of power ``line``
    (per bin) over noise of power ``floors[k]`` in segment k: ``P_k = |√line + √S_k·z_k|²``, ``Ŝ_k``
    the floor as estimated from ``m`` cells (see :func:`_null_draws`)."""
    s = np.asarray(floors, dtype=np.float64)
    z, s_hat = _null_draws(len(s), int(m))
    p = np.abs(np.sqrt(max(line, 0.0)) + np.sqrt(s) * z) ** 2
    return np.median(p - s * s_hat, axis=1)


def segment_floors(seg_psd: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Each segment's noise level from the columns ``cells`` of ``seg_psd`` (debiased median of χ²₂ bins,
    never 0)."""
    return np.maximum(np.median(seg_psd[:, cells], axis=1) / np.log(2.0), np.finfo(float).tiny)


def persistence(seg_psd: np.ndarray, col: int, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Per-segment floors ``S_k`` (from columns ``cells`` of ``seg_psd``), excess ``P_k - S_k`` at column
    ``col``, and the gate's p-value: the probability that a steady line of ``ALLOWANCE`` × the mean
    excess gives a median excess this low. The line's power, not its ratio to each segment's floor,
    is what a steady sinusoid keeps constant: floors that change over time (stalls, a bump that comes
    and goes) change the ratio, not the excess."""
    floors = segment_floors(seg_psd, cells)
    e = seg_psd[:, col] - floors
    null = steady_null_medians(ALLOWANCE * float(np.mean(e)), floors, len(cells))
    return floors, e, float((1 + np.sum(null <= float(np.median(e)))) / (1 + len(null)))


def local_dof(floors: np.ndarray, m: int, rho: float = 0.167) -> float:
    """Degrees of freedom of a Welch average whose segments have noise levels ``floors`` (estimates
    from ``m`` cells each): ``2(ΣS)² / (ΣS² + 2ρ²ΣS_k S_k+1)`` (Satterthwaite; ρ: correlation of
    half-overlapping Hann segments, as :func:`bandkit.spectrum.psd.welch_dof`). Equal levels give
    Welch's ν; levels that change over time give fewer. The estimates' own scatter (relative variance
    ≈ 3.1/m for a median of m correlated χ²₂ cells) is taken out of ΣS²."""
    s = np.asarray(floors, dtype=np.float64)
    s = s / max(float(np.mean(s)), np.finfo(float).tiny)
    k = len(s)
    sq = float(np.sum(s ** 2)) / (1.0 + 3.1 / max(m, 1))
    sq = max(sq, float(k))  # never more dof than equal levels give
    cross = float(np.sum(s[1:] * s[:-1])) if k > 1 else 0.0
    return 2.0 * float(np.sum(s)) ** 2 / (sq + 2.0 * rho ** 2 * cross)


class SegmentSpectra:
    """Each Welch segment's periodogram of one trace, computed on first use and kept (all bins: the
    gate may run more than once on a trace; (segments × bins) floats, ≤ ~20 MB for the longest traces)."""

    def __init__(self, x: np.ndarray, spec):
        self.x, self.spec, self._p = x, spec, None

    def at(self, bins: np.ndarray) -> np.ndarray:
        if self._p is None:
            self._p = segment_periodograms(self.x, self.spec.fs, self.spec.nperseg,
                                           np.arange(len(self.spec.psd)))
        return self._p[:, bins]


def gate_lone_lines(x, spec, peaks, lone: list[int], cal=None) -> tuple[list[int], list[Transient]]:
    """Apply the gate to the lines ``lone`` (indices into ``peaks``) of ``spec`` (the Welch spectrum of
    the grid ``x``, an array or its :class:`SegmentSpectra`; ``cal`` its
    :class:`~bandkit.spectrum.floor.Calibration`). Returns the indices that fail and their
    :class:`Transient` records. Spectra of fewer than 4 segments are not gated (a median of 3 says
    little)."""
    if not lone or spec.n_segments < 4:
        return [], []
    df = spec.resolution_hz
    n_bins = len(spec.psd)
    centre = {}
    for j in lone:
        i = int(round(peaks[j].freq_hz / df))
        lo, hi = max(i - 1, 1), min(i + 2, n_bins - 1)
        centre[j] = lo + int(np.argmax(spec.psd[lo:hi]))  # the line's top bin
    need = np.unique(np.concatenate([np.r_[[centre[j]], _cells(centre[j], n_bins)] for j in lone]))
    segs = x if isinstance(x, SegmentSpectra) else SegmentSpectra(x, spec)
    seg = segs.at(need)
    pos = {int(b): c for c, b in enumerate(need)}
    step = (spec.nperseg - spec.nperseg // 2) / spec.fs
    seg_s = spec.nperseg / spec.fs
    failed, out = [], []
    for j in lone:
        i = centre[j]
        cells = np.array([pos[int(b)] for b in _cells(i, n_bins)])
        near = np.array([pos[int(b)] for b in _cells(i, n_bins, NEAR)])
        _, ex, p = persistence(seg, pos[i], near)
        floors = segment_floors(seg, cells)
        r = seg[:, pos[i]] / floors
        nu_loc, p_loc = _local_significance(cal, i, floors, len(cells))
        unsteady_floor = p_loc is not None and p_loc > cal.alpha and p < FLOOR_STEADY_P
        if p >= GATE_P and not unsteady_floor:
            continue
        e = np.maximum(ex, 0.0)
        act = np.flatnonzero(e >= ACTIVE_SHARE * max(float(np.mean(ex)), 0.0))
        q = peaks[j]
        failed.append(j)
        out.append(Transient(freq_hz=q.freq_hz, snr_db=q.snr_db, amplitude=q.amplitude, p_value=q.p_value,
                             segment_ratios=tuple(float(v) for v in r), median_ratio=float(np.median(r)),
                             mean_ratio=float(np.mean(r)), steady_p=p, active_segments=tuple(int(a) for a in act),
                             active_share=float(np.sum(e[act]) / max(float(np.sum(e)), 1e-300)),
                             start_s=float(act.min() * step) if len(act) else 0.0,
                             end_s=float(act.max() * step + seg_s) if len(act) else 0.0, segment_s=seg_s,
                             spans_s=_spans(act, step, seg_s),
                             local_dof=nu_loc, local_p_value=p_loc,
                             reason="not steady" if p < GATE_P else "unsteady floor"))
    return failed, out


def _spans(act: np.ndarray, step: float, seg_s: float) -> tuple[tuple[float, float], ...]:
    """Time spans (s) covered by the segments ``act`` (overlapping segments merged)."""
    out: list[list[float]] = []
    for a in act:
        lo, hi = float(a * step), float(a * step + seg_s)
        if out and lo <= out[-1][1]:
            out[-1][1] = hi
        else:
            out.append([lo, hi])
    return tuple((a, b) for a, b in out)


def _local_significance(cal, i: int, floors: np.ndarray, m: int) -> tuple[float | None, float | None]:
    """(ν of the bin's own neighbourhood, the line's family-wise p-value with that ν) when the local
    floor varies over time more than the bin's ν allows; (ν, None) otherwise."""
    if cal is None or cal.floor.cells[i] <= 0:
        return None, None
    from .floor import ratio_sf

    fl = cal.floor
    nu = float(fl.dof[i])
    nu_loc = min(nu, local_dof(floors, m))
    if nu_loc >= 0.93 * nu:  # as effective_dof: within 7 % keeps the trace's ν
        return round(nu, 3), None
    nu_loc = max(2.0, round(nu_loc * 4) / 4)  # a grid: few distinct (cached) null distributions
    raw = cal.ratio[i] / fl.bias[i]  # bin / order statistic
    sf = float(ratio_sf(raw, nu_loc, int(fl.cells[i]), int(fl.rank[i]))[0])
    return nu_loc, float(min(1.0, cal.n_searched * sf))
