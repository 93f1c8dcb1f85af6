"""Harmonic combs of one trace's lines: a fundamental (seen or inferred) and its aliased harmonics.

A periodic source that is not a sinusoid (a burst every 10 ms) puts lines at every multiple n·f of
its frequency; above Nyquist they fold back to ``alias(n·f)``, and since ``n·f ≡ ±n·a0 (mod fs)``
they are exactly the aliases of the multiples of the fundamental's alias ``a0``. So within one trace
a comb is described by ``a0`` alone, whatever the true frequency (the two-rate test finds that).

:func:`find_combs` chooses combs by likelihood, greedily:

- *Candidates*: every line as a *seen* fundamental, and the subharmonics f/n (n ≤ 16) of the
  strongest lines as *inferred* ones (no line there). Each candidate's comb is grown by least
  squares (``a0`` refined from the members, ``n·a0 = k·fs ± f_member``, so the reach in n grows as
  ``a0`` gets precise), over true harmonics n·a0 ≤ fs: beyond, the quantum's box filter has a null
  at fs and passes ≤ 1/π, and higher orders would let any multiple of a fundamental land on every
  line through aliasing. A line takes the lowest order whose tooth holds it.
- *Score*: each tooth (a distinct alias position n ≤ n_top) is hit (a line in its window) or
  missed. A comb's log-likelihood ratio against lines scattered at random (a tooth catches one
  with probability p0 = 1 - exp(-density × window)) is ``k·log(π/p0) + (T-k)·log((1-π)/(1-p0))``
  with π = k/T, maximised over n_top (and π ≥ 25 %: a few lines on many empty teeth are
  coincidences). So a comb must hit most of its teeth: a 100 Hz and a 250 Hz
  source stay two combs (each hits all its teeth), not one "50 Hz" comb with the odd multiples of
  50 Hz empty — and a 350 Hz comb folded onto a 50 Hz comb's lines loses to it.
- *Greedy*: the best-scoring comb is taken, its lines leave the pool (teeth whose line another comb
  took count neither way), the rest are scored again; a comb needs a log-likelihood ratio of
  ``log(candidates / max_chance)``: the chance of such a comb among random lines, look-elsewhere
  included, is below ``max_chance``. Lines of an inferred comb that also sit on a seen comb's teeth
  go to the seen comb. An inferred comb keeps its lowest member's order k: "inferred from
  harmonics n ≥ k".
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numba import njit
from scipy import special

from .aliasing import alias_of

#: Largest subharmonic order tried for an inferred fundamental.
N_INFER = 16
#: Lines (strongest first) whose subharmonics are tried as inferred fundamentals.
N_INFER_LINES = 30
#: Largest harmonic order considered (also bounded by n·a0 ≤ fs and the fundamental's precision).
N_CAP = 4000
#: Relative clock tolerance between a source and the sampling clock.
CLOCK_TOL = 1e-5
#: Smallest share of a comb's teeth (up to its highest member) that must hold a line.
MIN_COVERAGE = 0.25


@dataclass(frozen=True)
class Comb:
    """A fundamental (alias ``fundamental_hz`` ± ``tol_hz`` in this trace) and its member lines.

    ``members``: indices into the peak list, ``orders``: their harmonic order n (aligned);
    ``fundamental_seen``: a line at n = 1 is among the members; ``lowest_order``: smallest n among
    the members ("inferred from harmonics n ≥ k" when the fundamental is not seen); ``strongest``:
    index of the most powerful member; ``amplitude``: its amplitude (fraction of a full quantum's
    work); ``rms``: RMS of the comb's lines together, sqrt(Σ A²/2) (work fraction); ``power_fraction``:
    their share of the trace's variance; ``snr_db`` and ``p_value``: of the comb's most significant
    line (family-wise over the bins searched); ``chance``: probability that the members other than the
    defining line sit on the teeth by chance (look-elsewhere included; None for a lone line).
    ``fundamental_snr_db`` / ``fundamental_p_value``: the spectrum at the fundamental's own bin (a
    single, pre-named bin: no look-elsewhere), set by :func:`fundamental_evidence` — the
    fundamental's own evidence.
    """

    fundamental_hz: float
    tol_hz: float
    members: tuple[int, ...]
    orders: tuple[int, ...]
    fundamental_seen: bool
    lowest_order: int
    strongest: int
    amplitude: float
    rms: float
    power_fraction: float | None
    snr_db: float
    p_value: float | None
    chance: float | None
    fundamental_snr_db: float | None = None
    fundamental_p_value: float | None = None

    @property
    def n_lines(self) -> int:
        return len(self.members)

    @property
    def inferred(self) -> bool:
        return not self.fundamental_seen

    def to_dict(self, peaks=None) -> dict:
        r = lambda x, d=4: None if x is None else round(float(x), d)  # noqa: E731
        g = lambda x: None if x is None else float(f"{x:.3g}")  # noqa: E731
        d = {"fundamental_hz": r(self.fundamental_hz), "tol_hz": r(self.tol_hz, 5),
             "fundamental_seen": bool(self.fundamental_seen), "lowest_harmonic": int(self.lowest_order),
             "lines": self.n_lines, "harmonics": self.n_lines - (1 if self.fundamental_seen else 0),
             "orders": [int(n) for n in self.orders], "amplitude": float(self.amplitude),
             "rms": float(self.rms), "power_fraction": g(self.power_fraction), "snr_db": r(self.snr_db, 2),
             "p_value": g(self.p_value), "chance": g(self.chance),
             "fundamental_snr_db": r(self.fundamental_snr_db, 2), "fundamental_p_value": g(self.fundamental_p_value)}
        if peaks is not None:
            s = peaks[self.strongest]
            d["strongest_hz"] = r(s.freq_hz)
            d["strongest_harmonic"] = int(self.orders[self.members.index(self.strongest)])
            d["members_hz"] = [r(peaks[j].freq_hz) for j in self.members]
        return d


def _grow(a0: float, tol0: float, f, tol, fs, bin_hz, n_max, rounds: int = 5):
    """Members (harmonic order of every line, 0: none) and refined (a0, tol0) of the comb started at
    (a0, tol0). Each round:

    - *reach*: orders n ≤ n_hi with n·a0 ≤ fs (at least 8; or ``n_max``) and n·tol0 ≤ max(2 bins,
      5 % of a0), so that a tooth's window stays narrow;
    - *assign*: a line at f is on tooth n when alias(n·a0) = f within n·tol0 + its own tolerance;
      alias(n·a0) = f means n·a0 = k·fs ± f, so each line only has the candidates
      n = round((k·fs ± f)/a0); it takes the lowest valid n, and a tooth keeps its closest line;
    - *refine*: least squares over the members, n·a0 = k·fs + s·f (s = ±1 from the fold), weights
      n²/tol², which also gives tol0 (and so a longer reach next round);

    until the members stop changing. Compiled (numba): the comb search grows hundreds of candidates."""
    order, a1, t1 = _grow_kernel(float(a0), float(tol0), np.ascontiguousarray(f, dtype=np.float64),
                                 np.ascontiguousarray(tol, dtype=np.float64), float(fs), float(bin_hz),
                                 int(n_max or 0), int(rounds), CLOCK_TOL, N_CAP)
    return order, float(a1), float(t1)


@njit(cache=True, nogil=True)
def _grow_kernel(a0, tol0, f, tol, fs, bin_hz, n_max, rounds, clock, n_cap):
    m = f.shape[0]
    order = np.zeros(m, dtype=np.int64)
    err = np.empty(m)
    for r in range(rounds):
        # reach
        cap = n_max if n_max > 0 else min(n_cap, max(8, int(np.floor(fs / a0))))
        by_precision = int(max(2 * bin_hz, 0.05 * a0) / max(tol0 + clock * a0, 1e-12))
        n_hi = max(1, min(cap, by_precision))
        k_hi = int(np.ceil(n_hi * a0 / fs))
        new = np.zeros(m, dtype=np.int64)
        # assign: candidates n = round((k·fs ± f)/a0)
        for j in range(m):
            best = 0
            be = np.inf
            for k in range(k_hi + 1):
                for sg in (1.0, -1.0):
                    if k == 0 and sg < 0:
                        continue
                    target = k * fs + sg * f[j]
                    n = np.rint(target / a0)
                    if n < 1 or n > n_hi:
                        continue
                    e = abs(n * a0 - target)
                    if e <= n * (tol0 + clock * a0) + tol[j]:
                        ni = int(n)
                        if best == 0 or ni < best or (ni == best and e < be):
                            best = ni
                            be = e
            new[j] = best
            err[j] = be
        # one line per tooth: the closest keeps it
        keep = np.ones(m, dtype=np.bool_)
        for j in range(m):
            if new[j] == 0:
                continue
            for i in range(m):
                if i != j and new[i] == new[j] and (err[i] < err[j] or (err[i] == err[j] and i < j)):
                    keep[j] = False
                    break
        count = 0
        for j in range(m):
            if not keep[j]:
                new[j] = 0
            if new[j] > 0:
                count += 1
        if r == 0 and count < 2:
            return new, a0, tol0
        if count >= 2:  # refine
            sw = 0.0
            swe = 0.0
            for j in range(m):
                if new[j] > 0:
                    n = float(new[j])
                    kk = np.rint(n * a0 / fs)
                    sgn = 1.0 if n * a0 - kk * fs >= 0 else -1.0
                    est = (kk * fs + sgn * f[j]) / n
                    w = n * n / (tol[j] * tol[j])
                    sw += w
                    swe += w * est
            a1 = swe / sw
            if not (0 < a1 <= fs / 2):
                break
            a0 = a1
            tol0 = 1.0 / np.sqrt(sw)
        same = True
        for j in range(m):
            if new[j] != order[j]:
                same = False
                break
        if same:
            break
        order = new
    return order, a0, tol0


def _log_chance(order: np.ndarray, tol0: float, a0: float, tol: np.ndarray, fs: float, f_lo: float,
                n_others: int | None = None) -> float:
    """Natural log of the probability that ≥ (members − 1) of the other lines (all but the one that
    defines the candidate) fall on the comb's teeth by chance: Poisson with mean (other lines) × (share
    of the searched band [f_lo, fs/2] that the teeth n ≤ highest order cover, windows n·tol0 +
    a typical line's tolerance, overlaps counted once)."""
    extra = int((order > 0).sum()) - 1
    if extra <= 0:
        return 0.0
    ns = np.arange(1, int(order.max()) + 1)
    centre = alias_of(ns * a0, fs)
    half = ns * (tol0 + CLOCK_TOL * a0) + float(np.median(tol))
    o = np.argsort(centre - half)
    lo, hi = np.clip((centre - half)[o], f_lo, fs / 2), np.clip((centre + half)[o], f_lo, fs / 2)
    run_hi = np.maximum.accumulate(hi)
    covered = float(np.sum(np.maximum(hi - np.maximum(lo, np.concatenate([[f_lo], run_hi[:-1]])), 0.0)))
    q = min(1.0, covered / max(fs / 2 - f_lo, 1e-12))
    lam = (len(order) - 1 if n_others is None else n_others) * q
    sf = special.pdtrc(extra - 1, lam)
    if sf > 1e-300:
        return float(np.log(sf))
    return float(extra * np.log(max(lam, 1e-300)) - lam - special.gammaln(extra + 1))


@dataclass
class _Cand:
    """A candidate comb: start (seen line index or None), refined a0 / tol0, order of every line."""

    seen: int | None
    a0: float
    tol0: float
    order: np.ndarray
    teeth: np.ndarray  # teeth[n-1]: number of distinct tooth positions among orders 1..n
    n_tried: int = 1


def _distinct_teeth(a0: float, tol0: float, n_hi: int, fs: float, f_lo: float, w_line: float) -> np.ndarray:
    """Cumulative count of distinct tooth positions (aliases of n·a0 in [f_lo, fs/2]; teeth that fold
    onto the same place, within a line's window, count once) for n = 1..n_hi."""
    ns = np.arange(1, n_hi + 1)
    pos = alias_of(ns * a0, fs)
    inside = (pos >= f_lo) & (pos <= fs / 2)
    key = np.where(inside, np.round(pos / max(2 * w_line, 1e-9)).astype(np.int64), -1)
    _, first = np.unique(key, return_index=True)
    new = np.zeros(n_hi, dtype=np.int64)
    new[first] = 1
    new[~inside] = 0
    return np.cumsum(new)


def _llr(k, t, p0: float):
    """Log-likelihood ratio of k hits in t teeth (arrays): comb (π = k/t) against chance (p0 per tooth)."""
    k = np.asarray(k, dtype=np.float64)
    t = np.maximum(np.asarray(t, dtype=np.float64), k)
    pi = k / np.maximum(t, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        miss = np.where(t > k, (t - k) * np.log(np.maximum(1 - pi, 1e-300) / (1 - p0)), 0.0)
        return np.where(k > 0, k * np.log(np.maximum(pi, 1e-300) / p0) + miss, 0.0)


def _score(c: _Cand, pool: np.ndarray, taken: np.ndarray, p0: float) -> tuple[float, int]:
    """Best log-likelihood ratio of candidate ``c`` over the prefixes n ≤ n_top (coverage ≥
    ``MIN_COVERAGE``: a few lines on many empty teeth are coincidences), and that n_top."""
    live = (c.order > 0) & pool
    if c.seen is not None and not live[c.seen]:
        return -np.inf, 0
    ords = np.sort(c.order[live])
    if len(ords) < 2:
        return -np.inf, 0
    gone = np.sort(c.order[(c.order > 0) & taken])
    k = np.arange(1, len(ords) + 1)
    t = c.teeth[np.minimum(ords, len(c.teeth)) - 1] - np.searchsorted(gone, ords, side="right")
    v = _llr(k, t, p0)
    v = np.where((k >= 2) & (k >= MIN_COVERAGE * t), v, -np.inf)
    i = int(np.argmax(v))
    return float(v[i]), int(ords[i])


def find_combs(peaks, fs: float, *, bin_hz: float | None = None, n_max: int | None = None,
               max_chance: float = 1e-3, f_lo: float = 0.0) -> list["Comb"]:
    """Group ``peaks`` (one trace's lines) into combs (see the module docstring). ``f_lo``: lowest
    frequency searched (Hz). Every line ends in exactly one comb (a lone line is a comb of one).
    Sorted by the comb's power (Σ A²/2), largest first."""
    if not peaks:
        return []
    f = np.array([p.freq_hz for p in peaks], dtype=np.float64)
    tol = np.array([max(p.tol_hz, 1e-9) for p in peaks], dtype=np.float64)
    power = np.array([p.power for p in peaks], dtype=np.float64)
    bin_hz = bin_hz or 10 * float(tol.min())
    w_line = float(np.median(tol))
    cands = _all_candidates(f, tol, power, fs, bin_hz, n_max, f_lo, w_line)
    n_cands = max(1, len(cands))
    gate = float(np.log(n_cands / max_chance))
    band = max(fs / 2 - f_lo, 1e-12)
    pool = np.ones(len(f), dtype=bool)
    taken = np.zeros(len(f), dtype=bool)
    groups = []
    while pool.sum() >= 2 and cands:
        p0 = float(-np.expm1(-pool.sum() / band * 2 * w_line * 2))  # window ~ 2·(tooth + line) wide
        scored = [(_score(c, pool, taken, p0), c) for c in cands]
        (llr, n_top), c = max(scored, key=lambda x: (x[0][0], x[1].a0))
        if not llr >= gate:
            break
        split = _split(c, llr, cands, pool, taken, p0, gate)
        if split is not None:
            (llr, n_top), c = split
        sel = np.flatnonzero((c.order > 0) & (c.order <= n_top) & pool)
        if _pool_chance(c, sel, pool, tol, fs, f_lo) + np.log(n_cands) > np.log(max_chance):
            cands = [x for x in cands if x is not c]  # likely by chance after all: not a comb
            continue
        ords = c.order[sel]
        srt = np.argsort(ords, kind="stable")
        groups.append([sel[srt], ords[srt], c.a0, c.tol0, c])
        pool[sel] = False
        taken[sel] = True
        cands = [x for x in cands if x is not c and (x.seen is None or pool[x.seen])]
    groups = _to_seen(groups, f, tol, fs)
    out = []
    for mem, ords, a0, t0, c in groups:
        order = np.zeros(len(f), dtype=np.int64)
        order[mem] = ords
        ch = float(min(1.0, n_cands * np.exp(_log_chance(order, t0, a0, tol, fs, f_lo)))) if len(mem) > 1 else None
        out.append(_make_comb(peaks, mem, ords, a0, t0, ch))
    out += [_make_comb(peaks, np.array([j]), np.array([1]), float(f[j]), float(tol[j]), None)
            for j in np.flatnonzero(pool)]
    return sorted(out, key=lambda c: -c.rms)


def _pool_chance(c: _Cand, sel: np.ndarray, pool: np.ndarray, tol, fs: float, f_lo: float) -> float:
    """Log chance (see :func:`_log_chance`) of members ``sel`` among the lines still in the pool."""
    order = np.where(pool, 0, 0)
    order[sel] = c.order[sel]
    return _log_chance(order[pool], c.tol0, c.a0, tol[pool], fs, f_lo)


def _split(c: _Cand, llr: float, cands, pool, taken, p0: float, gate: float):
    """A coarser comb (fundamental m·a0, m ≥ 2) to take instead of ``c`` when it and the best comb
    left after it (also coarser than ``c``) explain the lines better than ``c`` alone, by more than
    the price of a second comb (``gate``): two sources at 100 and 250 Hz, each hitting every tooth,
    rather than one "50 Hz" comb whose odd teeth are empty."""
    def coarser(d):
        m = d.a0 / c.a0
        return d is not c and m >= 1.5 and abs(m - round(m)) * c.a0 <= round(m) * c.tol0 + d.tol0 + 1e-9

    subs = [(d, _score(d, pool, taken, p0)) for d in cands if coarser(d)]
    subs = sorted([x for x in subs if x[1][0] >= gate], key=lambda x: -x[1][0])[:6]
    best = None
    for d, s1 in subs:
        sel = (d.order > 0) & (d.order <= s1[1]) & pool
        pool2, taken2 = pool & ~sel, taken | sel
        s2 = max((_score(e, pool2, taken2, p0)[0] for e, _ in subs if e is not d), default=-np.inf)
        if s2 >= gate and s1[0] + s2 - gate > llr and (best is None or s1[0] + s2 > best[0]):
            best = (s1[0] + s2, s1, d)
    return None if best is None else (best[1], best[2])


def _all_candidates(f, tol, power, fs, bin_hz, n_max, f_lo, w_line) -> list[_Cand]:
    """Seen (every line) and inferred (subharmonics of the strongest lines) candidates, grown."""
    out = []
    starts = [(float(f[j]), float(tol[j]), int(j)) for j in range(len(f))]
    for j in np.argsort(-power)[:N_INFER_LINES]:
        for n in range(2, N_INFER + 1):
            a0, t0 = float(f[j]) / n, float(tol[j]) / n
            if a0 < max(f_lo, 2 * bin_hz):
                break
            if np.any(np.abs(f - a0) <= tol + t0):
                continue  # a line sits there: it is a seen candidate
            starts.append((a0, t0, None))
    done_a, done_t = np.zeros(len(starts)), np.zeros(len(starts))
    nd = 0
    for a0, t0, j in starts:
        order, a1, t1 = _grow(a0, t0, f, tol, fs, bin_hz, n_max)
        if (order > 0).sum() < 2 or (j is not None and order[j] != 1):
            continue
        if j is None and (order > 0).sum() < 3:
            continue
        if np.any(np.abs(done_a[:nd] - a1) <= t1 + done_t[:nd]):
            continue  # the same comb from another start
        done_a[nd], done_t[nd] = a1, t1
        nd += 1
        n_hi = max(int(order.max()), 1)
        out.append(_Cand(j, a1, t1, order, _distinct_teeth(a1, t1, n_hi, fs, f_lo, w_line)))
    return out


def _to_seen(groups, f, tol, fs):
    """Lines of inferred combs that sit on a seen comb's teeth move to the seen comb (lowest order)."""
    seen = [g for g in groups if g[4].seen is not None]
    if not seen:
        return groups
    for g in groups:
        if g[4].seen is not None:
            continue
        keep = np.ones(len(g[0]), dtype=bool)
        for i, j in enumerate(g[0]):
            for s in seen:
                n_hi = int(max(s[1].max(), 1))
                o, _, _ = _grow(s[2], s[3], f[j:j + 1], tol[j:j + 1], fs, 1.0, n_hi, rounds=1)
                if o[0] > 0:
                    s[0] = np.append(s[0], j)
                    s[1] = np.append(s[1], o[0])
                    keep[i] = False
                    break
        g[0], g[1] = g[0][keep], g[1][keep]
    out = []
    for g in groups:
        if len(g[0]) == 0:
            continue
        srt = np.argsort(g[1], kind="stable")
        out.append((g[0][srt], g[1][srt], g[2], g[3], g[4]))
    return out


def _make_comb(peaks, mem, ords, a0, t0, chance) -> Comb:
    amps = np.array([peaks[j].amplitude for j in mem])
    pw = 0.5 * amps ** 2
    s = int(mem[int(np.argmax(pw))])
    pfs = [peaks[j].power_fraction for j in mem]
    pvals = [peaks[j].p_value for j in mem if peaks[j].p_value is not None]
    best = int(mem[int(np.argmax([peaks[j].snr for j in mem]))])
    return Comb(fundamental_hz=float(a0), tol_hz=float(t0), members=tuple(int(j) for j in mem),
                orders=tuple(int(n) for n in ords), fundamental_seen=bool(ords[0] == 1),
                lowest_order=int(ords[0]), strongest=s, amplitude=float(peaks[s].amplitude),
                rms=float(np.sqrt(pw.sum())),
                power_fraction=None if any(p is None for p in pfs) else float(min(1.0, sum(pfs))),
                snr_db=float(peaks[best].snr_db), p_value=min(pvals) if pvals else None,
                chance=None if chance is None else float(chance))


def label_peaks(peaks, combs) -> list:
    """``peaks`` with ``fundamental_hz`` (the comb's fundamental alias) and ``harmonic`` set."""
    out = list(peaks)
    for c in combs:
        for j, n in zip(c.members, c.orders):
            out[j] = replace(peaks[j], fundamental_hz=float(c.fundamental_hz), harmonic=int(n))
    return out


def fundamental_evidence(comb: Comb, spec, calibration) -> Comb:
    """The comb with the spectrum's own evidence at its fundamental's bin: SNR (dB) and a local p-value
    (the bin is named by the harmonics, so no search over bins is charged)."""
    i = int(round(comb.fundamental_hz / spec.resolution_hz))
    lo, hi = max(i - 1, 0), min(i + 2, len(spec.psd))
    ratio = calibration.ratio[lo:hi]
    if not np.isfinite(ratio).any():
        return replace(comb, fundamental_snr_db=None, fundamental_p_value=None)
    j = lo + int(np.nanargmax(ratio))
    r = float(calibration.ratio[j])
    # three bins looked at: charge 3
    return replace(comb, fundamental_snr_db=float(10 * np.log10(max(r, 1e-12))),
                   fundamental_p_value=float(min(1.0, 3 * calibration.local_p_value(j))))
