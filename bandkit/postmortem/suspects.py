"""Suspects: which per-run metadata separates the affected runs from the others.

For a grouping of runs (``affected``: bool per run - the runs after a step, or the runs outside
the main band) every metadata column that varies is scored in [0, 1]:

- numeric columns: ``separation = |2 AUC - 1|`` where AUC is the Mann-Whitney probability that
  an affected run's value exceeds a reference run's (1 = a threshold splits the groups exactly,
  0 = no better than chance); ``evidence`` holds both groups' medians, the best threshold, how
  many runs it classifies correctly, how many affected / reference runs lie on the affected side
  of it (``affected_on_side`` of ``affected``, ``reference_on_side`` of ``reference``) and the
  Mann-Whitney p-value.
- string columns with 2 .. n-1 distinct values: the best single value's Youden J
  (share of affected runs with the value minus share of reference runs with it, in absolute value).
- For steps the score is multiplied by ``coincidence = exp(-d / w)`` where ``d`` is the distance
  (runs, less one for the sampling of metadata around a run) between the step and the metadata's own
  best single change point (exact L2 split of its values) and ``w = max(1, n / 50)``: a metadata value that changes *at* the step ranks above one that
  merely drifts (e.g. a 1-minute load average that follows the change late).
- ``lag``: metadata is sampled once per run (pyperf: around the worker process), so a value may
  describe the state one run early or late; lags -1 and +1 are tried too, at a 10 % discount, and
  the lag used is reported.

Gate (a suspect is reported only with support and significance): at least ``MIN_SUPPORT`` (3)
affected and 3 reference runs, and a family-wise p-value below ``SUSPECT_ALPHA`` (0.05) that
accounts for every column, lag and (categorical) value tried: Westfall & Young's max-T permutation
test - the affected labels are permuted among the runs ``PERMUTATIONS`` (999; fewer, down to 199, beyond 4,000 runs) times, and
``p_adjusted`` = share of permutations in which *some* column separates them at least as well as
this column does (its ``separation``, before the lag discount and the coincidence factor). Unlike a
Bonferroni correction it is not fooled by dependent columns (twelve per-CPU frequencies count as
about one test). ``evidence`` also keeps the column's own ``p_value`` (Mann-Whitney, or Fisher's
exact test of the best value against the rest) and ``tests`` (columns x lags tried). A key that
separates 1 affected run from 19 others is no suspect: with one run, any of a handful of noisy
keys does that by chance.

Left out: columns that cannot be causes (``duration`` - the run's own wall time, which the
values drive - and time counters ``date``, ``uptime``, ``boot_time``, ``time``), and for steps any
numeric column that is monotone in the run order (Spearman |rho| > 0.98), since such a column
separates before/after of any step. Constant columns carry no information and are skipped.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from ..metadata import metadata_unit
from .exact_tests import fisher_exact_p, mannwhitney_exact_p

#: Family-wise significance a suspect needs (max-T permutation p-value over every column and lag tried).
SUSPECT_ALPHA = 0.05
#: Permutations of the max-T test (seeded).
PERMUTATIONS = 999
#: Fewest affected (and reference) runs a suspect can rest on.
MIN_SUPPORT = 3

#: Columns never proposed as suspects.
EXCLUDED = frozenset({"duration", "date", "uptime", "boot_time", "time", "commit_date", "context_date",
                      "Time_Of_Day_Seconds", "repetition_index", "iters"})


@dataclass(frozen=True)
class Suspect:
    """One metadata column and how well it separates the affected runs (``score`` in [0, 1])."""

    metadata: str
    score: float
    evidence: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from .._json import jsonable as plain

        return {"metadata": self.metadata, "score": plain(round(float(self.score), 4)),
                "evidence": plain(self.evidence)}


def _best_split(v: np.ndarray) -> int:
    """Index of the best single change in mean of ``v`` (exact L2 split), 1..n-1."""
    r = np.asarray(v, dtype=np.float64)
    n = len(r)
    c = np.cumsum(r)
    k = np.arange(1, n)
    tot = c[-1]
    # between-group sum of squares of a split at k
    bss = (c[:-1] ** 2) / k + ((tot - c[:-1]) ** 2) / (n - k) - tot ** 2 / n
    return int(np.argmax(bss)) + 1


def _ranks(v: np.ndarray) -> np.ndarray:
    """1-based ranks with ties averaged (scipy.stats.rankdata "average", without its per-call cost)."""
    order = np.argsort(v, kind="mergesort")
    sv = v[order]
    new = np.r_[True, sv[1:] != sv[:-1]]
    starts = np.flatnonzero(new)
    ends = np.r_[starts[1:], len(v)]
    r = np.empty(len(v))
    r[order] = ((starts + ends + 1) / 2.0)[np.cumsum(new) - 1]
    return r


def _mannwhitney_p(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided Mann-Whitney U p-value with ``scipy.stats.mannwhitneyu``'s defaults (method "auto",
    continuity correction), bit-equal (tested), without its per-call cost (~1 ms, paid for every
    reported suspect of 60 benchmarks) nor the import of scipy.stats: the normal approximation with tie
    correction, or the exact distribution (either group <= 8 runs, no ties; :mod:`.exact_tests`)."""
    n1, n2 = len(x), len(y)
    xy = np.r_[x, y]
    t = np.unique(xy, return_counts=True)[1]
    u1 = float(np.sum(_ranks(xy)[:n1])) - n1 * (n1 + 1) / 2
    if (n1 <= 8 or n2 <= 8) and not np.any(t > 1):
        return mannwhitney_exact_p(u1, n1, n2)
    u = max(u1, n1 * n2 - u1)
    n = n1 + n2
    tie_term = float(np.sum(t.astype(np.float64) ** 3 - t))
    sd = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.float64(u - n1 * n2 / 2 - 0.5) / np.float64(sd)
    return float(np.clip(2.0 * special.ndtr(-z), 0.0, 1.0))


def _shift(a: np.ndarray, lag: int) -> tuple[np.ndarray, slice]:
    """Pair metadata of run i+lag with run i: returns (metadata slice, slice of runs)."""
    n = len(a)
    if lag == 0:
        return a, slice(0, n)
    if lag > 0:
        return a[lag:], slice(0, n - lag)
    return a[:lag], slice(-lag, n)


def _numeric_score(v: np.ndarray, aff: np.ndarray) -> dict[str, Any] | None:
    """AUC, separation and best threshold of metadata ``v`` for labels ``aff`` (vectorised; the
    Mann-Whitney p-value is added later, only for reported suspects)."""
    ok = np.isfinite(v)
    vv, lab = v[ok], aff[ok]
    na, nr = int(lab.sum()), int((~lab).sum())
    if na < 1 or nr < 1 or np.ptp(vv) == 0:
        return None
    ranks = _ranks(vv)
    auc = (float(ranks[lab].sum()) - na * (na + 1) / 2.0) / (na * nr)
    # best threshold: cut between distinct sorted values, either direction
    order = np.argsort(vv, kind="stable")
    sv, sl = vv[order], lab[order]
    last = np.flatnonzero(np.diff(sv) > 0)  # cut after these positions
    best_correct, thr, direction, tp, fp = 0, None, None, 0, 0
    if len(last):
        aff_below = np.cumsum(sl)[last]
        ref_below = (last + 1) - aff_below
        above = ref_below + (na - aff_below)  # reference below + affected above
        below = aff_below + (nr - ref_below)
        ia, ib = int(np.argmax(above)), int(np.argmax(below))
        if above[ia] >= below[ib]:
            best_correct, j, direction = int(above[ia]), ia, "above"
            tp, fp = int(na - aff_below[j]), int(nr - ref_below[j])
        else:
            best_correct, j, direction = int(below[ib]), ib, "below"
            tp, fp = int(aff_below[j]), int(ref_below[j])
        k = last[j]
        thr = float((sv[k] + sv[k + 1]) / 2)
    return {"auc": auc, "separation": abs(2 * auc - 1),
            "median_affected": float(np.median(vv[lab])), "median_reference": float(np.median(vv[~lab])),
            "threshold": thr, "affected_when": direction, "correct": best_correct, "of": int(ok.sum()),
            "affected_on_side": tp, "affected": na, "reference_on_side": fp, "reference": nr,
            "_data": (vv[lab], vv[~lab])}


def _categorical_score(v: pd.Series, aff: np.ndarray) -> dict[str, Any] | None:
    ok = v.notna().to_numpy()
    lab = aff[ok]
    na, nr = int(lab.sum()), int((~lab).sum())
    if na == 0 or nr == 0:
        return None
    codes, uniq = pd.factorize(v[ok].astype(str), sort=False)
    ka = np.bincount(codes[lab], minlength=len(uniq))
    kr = np.bincount(codes[~lab], minlength=len(uniq))
    j = ka / na - kr / nr
    # largest |J|; ties: the value more common among the affected runs, then first seen
    best = int(np.lexsort((np.arange(len(j)), -j, -np.round(np.abs(j), 12)))[0])
    return {"separation": float(abs(j[best])), "value": str(uniq[best])[:200], "affected_with_value": int(ka[best]),
            "affected": na, "reference_with_value": int(kr[best]), "reference": nr}


def rank_suspects(metadata: pd.DataFrame, affected: np.ndarray, *, step_index: int | None = None,
                  max_suspects: int = 5, min_score: float = 0.3, lags: tuple[int, ...] = (0, 1, -1),
                  alpha: float = SUSPECT_ALPHA, min_support: int = MIN_SUPPORT) -> list[Suspect]:
    """Rank the columns of ``metadata`` (one row per run) by how well they separate ``affected``.

    ``step_index``: for a step, the 0-based index of the first run after it (enables the
    coincidence factor and the monotone-column exclusion). Returns at most ``max_suspects`` with
    ``score >= min_score`` that pass the gate (see the module docstring: ``min_support`` affected
    and reference runs, max-T permutation p-value < ``alpha``), best first.
    """
    aff = np.asarray(affected, dtype=bool)
    n = len(aff)
    if n < 3 or aff.sum() < min_support or (~aff).sum() < min_support:
        return []
    perm = _MaxT(aff)
    w = max(1.0, n / 50.0)
    out: list[Suspect] = []
    idx = np.arange(n)
    for col in metadata.columns:
        if col in EXCLUDED or col.endswith("_date"):
            continue
        s = metadata[col]
        if pd.api.types.is_datetime64_any_dtype(s) or s.nunique(dropna=True) < 2:
            continue
        numeric = pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)
        if numeric:
            v = s.to_numpy(dtype=np.float64, na_value=np.nan)
            ok = np.isfinite(v)
            if step_index is not None and ok.sum() > 3:
                rv = _ranks(v[ok])
                rho = np.corrcoef(idx[ok], rv)[0, 1] if np.ptp(rv) > 0 else 0.0
                if np.isfinite(rho) and abs(rho) > 0.98:
                    continue
        else:
            if s.nunique(dropna=True) > 0.5 * s.notna().sum():  # (nearly) every run different: no pattern
                continue
        best: Suspect | None = None
        for lag in lags:
            if numeric:
                mv, sl = _shift(v, lag)
                ev = _numeric_score(mv, aff[sl])
            else:
                mv_s = s.shift(-lag) if lag else s
                sl = slice(0, n)
                ev = _categorical_score(mv_s, aff)
            if ev is None:
                continue
            perm.add(mv if numeric else mv_s, sl, numeric)
            score = ev["separation"] * (0.9 if lag else 1.0)
            if step_index is not None and numeric:
                ok2 = np.isfinite(mv)
                if ok2.sum() >= 4:
                    full = np.full(n, np.nan)
                    full[sl] = mv
                    good = np.flatnonzero(np.isfinite(full))
                    k = good[_best_split(full[good])]
                    d = max(0, abs(int(k) - step_index) - 1)  # +-1 run: sampling around the run
                    ev["changepoint_index"] = int(k)
                    ev["coincidence"] = math.exp(-d / w)
                    score *= ev["coincidence"]
            ev["lag"] = lag
            ev["kind"] = "numeric" if numeric else "categorical"
            ev["unit"] = metadata_unit(col) if numeric else ""
            ev["_separation"] = ev["separation"]
            if best is None or score > best.score:
                best = Suspect(col, float(score), ev)
            else:
                ev.pop("_data", None)
                ev.pop("_separation", None)
        if best is not None and best.score >= min_score:
            ev = best.evidence
            data = ev.pop("_data", None)
            if data is not None:
                ev["p_value"] = _mannwhitney_p(data[0], data[1])
            else:
                ka, na = ev["affected_with_value"], ev["affected"]
                kr, nr = ev["reference_with_value"], ev["reference"]
                ev["p_value"] = fisher_exact_p(ka, na - ka, kr, nr - kr)
            out.append(best)
    gated = []
    null_max = perm.null_max() if out else None
    for sus in out:
        ev = sus.evidence
        sep = ev.pop("_separation")
        ev["tests"] = perm.n_tests
        ev["p_adjusted"] = float((1 + np.count_nonzero(null_max >= sep - 1e-12)) / (len(null_max) + 1))
        if ev["affected"] >= min_support and ev["reference"] >= min_support and ev["p_adjusted"] < alpha:
            gated.append(sus)
    gated.sort(key=lambda s: (-round(s.score, 6), "." in s.metadata, s.evidence.get("p_value", 1.0), s.metadata))
    return _dedupe(gated)[:max_suspects]


class _MaxT:
    """Westfall-Young max-T permutation null of the separation statistics of every (column, lag)
    for the affected labels ``aff``: permute the labels, recompute every separation, keep the
    largest per permutation (vectorised: rank sums by gathering, value counts by bincount)."""

    def __init__(self, aff: np.ndarray, n_perm: int = PERMUTATIONS, seed: int = 0):
        self.aff = aff
        self.n = len(aff)
        self.n_perm = n_perm
        self.seed = seed
        self.ranks: list[np.ndarray] = []
        self.valid: list[np.ndarray] = []
        self.cats: list[tuple[np.ndarray, int]] = []

    @property
    def n_tests(self) -> int:
        return len(self.ranks) + len(self.cats)

    def add(self, values, sl: slice, numeric: bool) -> None:
        """One statistic: metadata ``values`` paired with the runs ``sl`` (numeric array, or a
        pandas Series of categories aligned with all runs)."""
        if numeric:
            full = np.full(self.n, np.nan)
            full[sl] = values
            ok = np.isfinite(full)
            r = np.zeros(self.n)
            r[ok] = _ranks(full[ok])
            self.ranks.append(r)
            self.valid.append(ok.astype(np.float64))
        else:
            ok = values.notna().to_numpy()
            codes = np.full(self.n, -1, np.int64)
            c, uniq = pd.factorize(values[ok].astype(str), sort=False)
            codes[ok] = c
            self.cats.append((codes, len(uniq)))

    def null_max(self) -> np.ndarray:
        rng = np.random.default_rng(self.seed)
        # fewer permutations for long sequences (work ~ n_perm x n): never below 199 (p >= 0.005)
        n_perm = int(np.clip(4_000_000 // max(self.n, 1), 199, self.n_perm))
        na = int(self.aff.sum())
        # a permutation of the labels = a random set of na affected runs (one row per permutation)
        sub = np.argsort(rng.random((n_perm, self.n)), axis=1)[:, :na]
        best = np.zeros(n_perm)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.ranks:
                R = np.stack(self.ranks, axis=1)
                V = np.stack(self.valid, axis=1)
                S = R[sub].sum(axis=1)           # (n_perm, columns): rank sums of the affected
                NA = V[sub].sum(axis=1)
                NR = V.sum(axis=0)[None, :] - NA
                auc = (S - NA * (NA + 1) / 2.0) / (NA * NR)
                sep = np.where((NA > 0) & (NR > 0), np.abs(2.0 * auc - 1.0), 0.0)
                best = np.maximum(best, sep.max(axis=1))
            rows = np.repeat(np.arange(n_perm), na)
            for codes, k in self.cats:
                c = codes[sub].ravel()
                ok = c >= 0
                KA = np.bincount(rows[ok] * k + c[ok], minlength=n_perm * k).reshape(n_perm, k).astype(np.float64)
                NA = ok.reshape(n_perm, na).sum(axis=1)[:, None].astype(np.float64)
                tot = np.bincount(codes[codes >= 0], minlength=k)[None, :]
                NR = float(np.count_nonzero(codes >= 0)) - NA
                j = np.where((NA > 0) & (NR > 0), np.abs(KA / NA - (tot - KA) / NR), 0.0)
                best = np.maximum(best, j.max(axis=1))
        return best


def _dedupe(sus: list[Suspect]) -> list[Suspect]:
    """Keep per-CPU / per-sensor columns from crowding the list: at most 2 of one family
    (``cpu_freq_mhz.cpu3`` and ``cpu_freq_mhz.cpu5`` are one family)."""
    seen: dict[str, int] = {}
    out = []
    for s in sus:
        fam = s.metadata.split(".", 1)[0]
        seen[fam] = seen.get(fam, 0) + 1
        if seen[fam] <= 2:
            out.append(s)
    return out
