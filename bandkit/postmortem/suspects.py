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
this column does (its ``separation``, before the lag discount and the coincidence factor, divided by
``sqrt(variance_inflation)``: below). Unlike a
Bonferroni correction it is not fooled by dependent columns (twelve per-CPU frequencies count as
about one test). ``evidence`` also keeps the column's own ``p_value`` (Mann-Whitney, or Fisher's
exact test of the best value against the rest) and ``tests`` (columns x lags tried). Serial
dependence: the permutation null exchanges runs one by one, which a smooth column (a 1-minute load
average, AR(1) ~0.8) and a contiguous set of affected runs (a warm-up, a step, an episode) violate: such
a column agrees with a block far more often than exchangeable values do. So a column whose lag-1
autocorrelation within the affected and within the reference runs (``serial_rho``; ranks, or the best
value's indicator) is significant (> ``SERIAL_Z`` standard errors) has its separation divided by
``sqrt(variance_inflation)`` before the max-T comparison: the variance of the affected-minus-reference
contrast under an AR(1) of that rho over its variance for exchangeable runs (1 for scattered affected
runs, up to (1 + rho) / (1 - rho) for long blocks). ``serial_rho`` 0 and ``variance_inflation`` 1: no
serial dependence found. A key that
separates 1 affected run from 19 others is no suspect: with one run, any of a handful of noisy
keys does that by chance.

Magnitude gate (:mod:`.magnitude`): a significant numeric suspect whose difference a person would call
negligible - a unit or two of the column's readings, or a frequency / load / temperature change that
cannot explain the slowdown (3,334 vs 3,330 MHz for a x1.42 slowdown) - is not reported
(``evidence["negligible"]``; ``rank_suspects(keep_negligible=True)`` lists such suspects after the others).

Left out: columns that cannot be causes (``duration`` - the run's own wall time, which the
values drive - and time counters ``date``, ``uptime``, ``boot_time``, ``time``), and for steps any
numeric column that is monotone in the run order (Spearman |rho| > 0.98), since such a column
separates before/after of any step. Constant columns carry no information and are skipped.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from .._lazy import pandas as pd  # (imported on first use: compare never uses it)

from ..metadata import Coded, metadata_unit
from ..robust import distinct
from .distributions import ndtr
from .exact_tests import fisher_exact_p, mannwhitney_exact_p
from .magnitude import assess, freq_scale_of, physical_kind
from .noise import LISTS_MAX, NoiseIterAsk, OPAsk, answer_op, answer_ops, drive, median, median_list

#: Family-wise significance a suspect needs (max-T permutation p-value over every column and lag tried).
SUSPECT_ALPHA = 0.05
#: Permutations of the max-T test (seeded).
PERMUTATIONS = 999
#: Fewest affected (and reference) runs a suspect can rest on.
MIN_SUPPORT = 3
#: A column is serially dependent when the lag-1 autocorrelation of its reference runs exceeds this many
#: standard errors (1 / sqrt(pairs)); its separation is then judged in units of its AR(1) spread.
SERIAL_Z = 2.326
#: Largest lag-1 autocorrelation used for the variance inflation.
SERIAL_RHO_MAX = 0.98

#: Columns never proposed as suspects.
EXCLUDED = frozenset({"duration", "date", "uptime", "boot_time", "time", "commit_date", "context_date",
                      "Time_Of_Day_Seconds", "repetition_index", "iters",
                      "test_run_time_s"})  # (PTS: the run's own wall time, which its values drive)


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


def _tie_runs(v: np.ndarray):
    """(order, sorted values, start and end of each run of equal sorted values, 1-based ranks with ties
    averaged) of ``v``: one stable sort for the ranks and for the thresholds of :func:`_numeric_score`."""
    order = np.argsort(v, kind="mergesort")
    sv = v[order]
    new = np.empty(max(len(v), 1), dtype=bool)  # (np.r_[True, sv[1:] != sv[:-1]], without np.r_'s cost)
    new[0] = True
    np.not_equal(sv[1:], sv[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], len(v))
    r = np.empty(len(v))
    r[order] = ((starts + ends + 1) / 2.0)[np.cumsum(new) - 1]
    return order, sv, starts, ends, r


def _ranks(v: np.ndarray) -> np.ndarray:
    """1-based ranks with ties averaged (scipy.stats.rankdata "average", without its per-call cost)."""
    return _tie_runs(v)[4]


def _mannwhitney_p(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided Mann-Whitney U p-value with ``scipy.stats.mannwhitneyu``'s defaults (method "auto",
    continuity correction), bit-equal (tested), without its per-call cost (~1 ms, paid for every
    reported suspect of 60 benchmarks) nor the import of scipy.stats: the normal approximation with tie
    correction, or the exact distribution (either group <= 8 runs, no ties; :mod:`.exact_tests`)."""
    n1, n2 = len(x), len(y)
    if n1 + n2 <= LISTS_MAX:
        p = _mannwhitney_p_lists(x.tolist(), y.tolist())
        if p is not None:
            return p
    xy = np.concatenate((x, y))
    _, _, starts, ends, ranks = _tie_runs(xy)
    # tie counts in value order: the runs of equal sorted values (np.unique's counts; it groups NaNs)
    t = ends - starts if not np.isnan(xy).any() else np.unique(xy, return_counts=True)[1]
    u1 = float(np.add.reduce(ranks[:n1])) - n1 * (n1 + 1) / 2
    if (n1 <= 8 or n2 <= 8) and not np.any(t > 1):
        return mannwhitney_exact_p(u1, n1, n2)
    u = max(u1, n1 * n2 - u1)
    n = n1 + n2
    tie_term = float(np.add.reduce(t.astype(np.float64) ** 3 - t))
    sd = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.float64(u - n1 * n2 / 2 - 0.5) / np.float64(sd)
    return float(np.clip(2.0 * ndtr(-z), 0.0, 1.0))


def _mannwhitney_p_lists(x: list, y: list) -> float | None:
    """:func:`_mannwhitney_p` of two short samples given as lists of floats, in Python (a sorted() of ~20
    values costs less than the numpy calls around it): the same ranks (ties averaged over the runs of equal
    sorted values), rank sums and tie terms (halves of integers and integers: exact in any order) and the
    same floating-point steps. None (numpy's path then) with a NaN or a zero spread."""
    xy = x + y
    if any(v != v for v in xy):
        return None
    n1, n2 = len(x), len(y)
    n = n1 + n2
    order = sorted(range(n), key=xy.__getitem__)
    ranks = [0.0] * n
    ties = []
    i = 0
    while i < n:
        j = i + 1
        while j < n and xy[order[j]] == xy[order[i]]:
            j += 1
        r = (i + j + 1) / 2.0
        for q in range(i, j):
            ranks[order[q]] = r
        ties.append(j - i)
        i = j
    u1 = sum(ranks[:n1]) - n1 * (n1 + 1) / 2
    if (n1 <= 8 or n2 <= 8) and max(ties) <= 1:
        return mannwhitney_exact_p(u1, n1, n2)
    u = max(u1, n1 * n2 - u1)
    tie_term = float(sum(t ** 3 - t for t in ties))
    sd = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
    if not sd > 0:
        return None
    z = (u - n1 * n2 / 2 - 0.5) / sd
    return min(max(2.0 * ndtr(-z), 0.0), 1.0)


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
    groups' medians and the Mann-Whitney p-value are added later, only for reported suspects:
    :func:`_finish_numeric`). ``"_ranks"``: the ranks of the finite values, for the max-T test."""
    ok = np.isfinite(v)
    vv, lab = v[ok], aff[ok]
    na = int(np.count_nonzero(lab))
    nr = lab.size - na
    if na < 1 or nr < 1 or np.ptp(vv) == 0:
        return None
    # one stable sort serves the ranks (ties averaged, as scipy.stats.rankdata) and the thresholds
    order, sv, _, ends, ranks = _tie_runs(vv)
    sl = lab[order]
    auc = (float(ranks[lab].sum()) - na * (na + 1) / 2.0) / (na * nr)
    # best threshold: cut between distinct sorted values, either direction
    last = ends[:-1] - 1  # cut after these positions (the last of each run of equal values)
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
    return {"auc": auc, "separation": abs(2 * auc - 1), "median_affected": None, "median_reference": None,
            "threshold": thr, "affected_when": direction, "correct": best_correct, "of": int(ok.sum()),
            "affected_on_side": tp, "affected": na, "reference_on_side": fp, "reference": nr,
            "_data": (vv[lab], vv[~lab]), "_ranks": ranks}


def _median(a: np.ndarray):
    """``np.median``, by :func:`noise.median` (bit-equal, without np.median's per-call overhead) for float64."""
    return median(a) if a.dtype == np.float64 and a.ndim == 1 else np.median(a)


def _finish_numeric(ev: dict[str, Any]) -> None:
    """The medians of both groups and the Mann-Whitney p-value of a reported numeric suspect."""
    a, r = ev.pop("_data")
    if 0 < a.size and 0 < r.size and a.size + r.size <= LISTS_MAX and a.dtype == r.dtype == np.float64:
        al, rl = a.tolist(), r.tolist()
        p = _mannwhitney_p_lists(al, rl)
        if p is not None:
            ev["median_affected"], ev["median_reference"], ev["p_value"] = median_list(al), median_list(rl), p
            return
    ev["median_affected"], ev["median_reference"] = float(_median(a)), float(_median(r))
    ev["p_value"] = _mannwhitney_p(a, r)


def _block_ranks(V: np.ndarray):
    """:func:`_tie_runs` of every column of ``V`` (m x k, finite) at once: (order, sorted values, mask of
    the last position of each run of equal sorted values, ranks with ties averaged), each m x k."""
    m = V.shape[0]
    order = np.argsort(V, axis=0, kind="stable")  # (stable: the permutation of a per-column mergesort)
    cols = np.arange(V.shape[1])
    sv = V[order, cols]  # (np.take_along_axis(V, order, axis=0), without its index building)
    new = np.ones(V.shape, dtype=bool)
    new[1:] = sv[1:] != sv[:-1]
    last = np.ones(V.shape, dtype=bool)
    last[:-1] = new[1:]
    pos = np.arange(m)[:, None]
    start = np.maximum.accumulate(np.where(new, pos, 0), axis=0)
    end = np.minimum.accumulate(np.where(last, pos + 1, m)[::-1], axis=0)[::-1]
    R = np.empty(V.shape)
    R[order, cols] = (start + end + 1) / 2.0  # (np.put_along_axis(R, order, ..., axis=0))
    return order, sv, last, R


def _block_scores(V: np.ndarray, lab: np.ndarray):
    """:func:`_numeric_score` of every column of ``V`` (m x k, finite, none constant) for the labels
    ``lab`` (m; or m x k, a column's own labels: ``na`` and ``nr`` are then arrays of k), at once: a dict of length-k arrays (``auc``, ``separation``, ``correct``, ``above``
    (direction), ``tp``, ``fp``, ``threshold``) and the ranks (m x k); the same numbers, bit for bit
    (rank sums and counts are exact in float64 in any order)."""
    m, k = V.shape
    order, sv, last, R = _block_ranks(V)
    if lab.ndim == 1:
        na = int(np.count_nonzero(lab))
        nr = m - na
        auc = (R[lab].sum(axis=0) - na * (na + 1) / 2.0) / (na * nr)
        sl = lab[order]
    else:  # (a label per run and column: rank sums and counts are exact, so the same floats)
        na = np.count_nonzero(lab, axis=0)
        nr = m - na
        auc = (np.where(lab, R, 0.0).sum(axis=0) - na * (na + 1) / 2.0) / (na * nr)
        sl = lab[order, np.arange(k)]
    aff_below = np.cumsum(sl, axis=0)
    ref_below = np.arange(1, m + 1)[:, None] - aff_below
    cut = last.copy()
    cut[-1] = False  # cut after the last of each run of equal values, not after the largest value
    above = np.where(cut, ref_below + (na - aff_below), -1)
    below = np.where(cut, aff_below + (nr - ref_below), -1)
    ia, ib = np.argmax(above, axis=0), np.argmax(below, axis=0)
    cols = np.arange(k)
    amax, bmax = above[ia, cols], below[ib, cols]
    up = amax >= bmax
    j = np.where(up, ia, ib)
    aj, rj = aff_below[j, cols], ref_below[j, cols]
    return {"auc": auc, "separation": np.abs(2 * auc - 1), "correct": np.where(up, amax, bmax), "above": up,
            "tp": np.where(up, na - aj, aj), "fp": np.where(up, nr - rj, rj),
            "threshold": (sv[j, cols] + sv[j + 1, cols]) / 2, "na": na, "nr": nr}, R


def _block_splits(V: np.ndarray) -> np.ndarray:
    """:func:`_best_split` of every column of ``V`` (m x k) at once."""
    n = V.shape[0]
    c = np.cumsum(V, axis=0)
    k = np.arange(1, n)[:, None]
    tot = c[-1]
    bss = (c[:-1] ** 2) / k + ((tot - c[:-1]) ** 2) / (n - k) - tot ** 2 / n
    return np.argmax(bss, axis=0) + 1


def _categorical_score(codes: np.ndarray, labels, aff: np.ndarray) -> tuple[dict[str, Any], np.ndarray] | None:
    """Youden J of the best single value of a categorical column (``codes`` into ``labels``, -1 =
    missing, aligned with ``aff``), and the column's codes renumbered by first appearance (what
    ``pd.factorize`` gives; -1 kept) for the max-T test."""
    ok = codes >= 0
    lab = aff[ok]
    na = int(np.count_nonzero(lab))
    nr = lab.size - na
    if na == 0 or nr == 0:
        return None
    u, first, inv = np.unique(codes[ok], return_index=True, return_inverse=True)
    order = np.argsort(first)  # values in order of first appearance
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    c = rank[inv.ravel()]
    ka = np.bincount(c[lab], minlength=len(u))
    kr = np.bincount(c[~lab], minlength=len(u))
    j = ka / na - kr / nr
    # largest |J|; ties: the value more common among the affected runs, then first seen
    best = int(np.lexsort((np.arange(len(j)), -j, -np.round(np.abs(j), 12)))[0])
    full = np.full(codes.size, -1, np.int64)
    full[ok] = c
    return ({"separation": float(abs(j[best])), "value": str(labels[u[order[best]]])[:200],
             "affected_with_value": int(ka[best]), "affected": na, "reference_with_value": int(kr[best]),
             "reference": nr}, full)


def _columns(metadata: pd.DataFrame):
    """(name, numeric, data) of the columns that can be suspects, in column order: numeric data is
    a float64 array (NaN = missing), categorical data ``(codes, labels)`` (-1 = missing; values
    compared as text). Read from the frame in one go where it can (a per-column ``frame[col]``
    costs ~20 us, and a 60-benchmark file asks ~6,000 of them)."""
    names = list(metadata.columns)
    dtypes = list(metadata.dtypes)
    keep = [i for i, c in enumerate(names) if candidate(c, dtypes[i])]
    num = [i for i in keep if numeric_dtype(dtypes[i])]
    block = metadata.iloc[:, num].to_numpy(dtype=np.float64, na_value=np.nan) if num else None
    numcol = {i: k for k, i in enumerate(num)}
    out = []
    for i in keep:
        if i in numcol:
            entry = column_entry(names[i], True, np.ascontiguousarray(block[:, numcol[i]]))
        else:
            entry = column_entry(names[i], False, category_codes(metadata.iloc[:, i]))
        if entry is not None:
            out.append(entry)
    return out


def _array_columns(cols: dict[str, Any]):
    """:func:`_columns` of a frame given as its columns (name -> float / int / datetime64 array or
    ``pd.Categorical``), read without a frame (same entries). The plain numeric arrays of one length are
    converted to float64 as one (columns x runs) block, whose rows are the entries' data, and tested for
    variation (:func:`column_entry`'s test) by one row reduction each of ``np.fmin`` / ``np.fmax`` (exact)."""
    out: list = []
    plain: list[tuple[int, str, np.ndarray]] = []  # (position in out, name, array): numeric ndarrays
    for c, a in cols.items():
        if isinstance(a, Coded):
            if not candidate(c, None):
                continue
            entry = column_entry(c, False, (a.codes, a.categories))
            if entry is not None:
                out.append(entry)
            continue
        if not candidate(c, a.dtype):
            continue
        if isinstance(a, np.ndarray) and numeric_dtype(a.dtype):  # (before pd.Categorical: no pandas)
            if a.ndim == 1 and a.dtype.kind in "iuf":
                plain.append((len(out), c, a))
                out.append(None)
                continue
            entry = column_entry(c, True, np.array(a, dtype=np.float64))
        elif isinstance(a, pd.Categorical):
            entry = column_entry(c, False, (np.asarray(a.codes, dtype=np.int64), a.categories))
        elif numeric_dtype(a.dtype):
            entry = column_entry(c, True, np.array(a, dtype=np.float64))
        else:
            entry = column_entry(c, False, category_codes(pd.Series(a)))
        if entry is not None:
            out.append(entry)
    if plain:
        n = plain[0][2].size
        if n and all(a.size == n for _, _, a in plain):
            M = np.array([a for _, _, a in plain], dtype=np.float64)  # (each row: np.array(a, dtype=np.float64))
            varies = (np.fmin.reduce(M, axis=1) < np.fmax.reduce(M, axis=1)).tolist()
            for (at, c, _), row, ok in zip(plain, M, varies):
                out[at] = (c, True, row) if ok else None
        else:
            for at, c, a in plain:
                out[at] = column_entry(c, True, np.array(a, dtype=np.float64))
    return [e for e in out if e is not None]


def candidate(name: str, dtype) -> bool:
    """A column that may be a suspect (not a time counter nor the run's own duration, not a date)."""
    if name in EXCLUDED or name.endswith("_date"):
        return False
    if dtype is None:
        return True
    if isinstance(dtype, np.dtype):  # (numpy dtypes without pandas: the report path's)
        return dtype.kind != "M"
    return not pd.api.types.is_datetime64_any_dtype(dtype)


def numeric_dtype(dtype) -> bool:
    if isinstance(dtype, np.dtype) and dtype.kind in "biufcmMOSUV":  # (numpy dtypes without pandas)
        return dtype.kind in "iufc"
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def category_codes(s: pd.Series) -> tuple[np.ndarray, Any]:
    """(codes, labels) of a non-numeric column: -1 = missing; ``str(labels[code])`` is the value's text."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        return np.asarray(s.array.codes, dtype=np.int64), s.array.categories
    ok = s.notna().to_numpy()
    codes = np.full(len(s), -1, np.int64)
    c, labels = pd.factorize(s[ok].astype(str), sort=False)
    codes[ok] = c
    return codes, labels


def column_entry(name: str, numeric: bool, data):
    """``(name, numeric, data)`` for :func:`rank_suspects`, or None for a column that cannot separate
    anything: constant, or categorical with (nearly) every run different."""
    if numeric:
        # (nunique < 2: no two non-NaN values differ - the smallest is not below the largest, NaN ignored)
        if not data.size or not np.fmin.reduce(data) < np.fmax.reduce(data):
            return None
        return name, True, data
    present = data[0][data[0] >= 0]
    k = int(np.count_nonzero(np.bincount(present))) if present.size else 0  # (np.unique(present).size)
    if k < 2 or k > 0.5 * present.size:
        return None
    return name, False, data


def _shift_codes(codes: np.ndarray, lag: int) -> np.ndarray:
    """``Series.shift(-lag)`` of categorical codes: run i gets the value of run i + lag (-1 beyond)."""
    if lag == 0:
        return codes
    out = np.full(codes.size, -1, np.int64)
    if lag > 0:
        out[:codes.size - lag] = codes[lag:]
    else:
        out[-lag:] = codes[:codes.size + lag]
    return out


def rank_suspects(metadata: pd.DataFrame | list, affected: np.ndarray, *, step_index: int | None = None,
                  max_suspects: int = 5, min_score: float = 0.3, lags: tuple[int, ...] = (0, 1, -1),
                  alpha: float = SUSPECT_ALPHA, min_support: int = MIN_SUPPORT,
                  strata: np.ndarray | None = None, slowdown: float | None = None,
                  keep_negligible: bool = False) -> list[Suspect]:
    """Rank the columns of ``metadata`` (one row per run) by how well they separate ``affected``.

    ``metadata`` may also be its columns as arrays (a dict, as ``RunTable.metadata_columns``) or as
    :func:`column_entry` gives them (a list of ``(name, numeric, data)``). ``step_index``: for a step, the 0-based index of the first run after it (enables the
    coincidence factor and the monotone-column exclusion). Returns at most ``max_suspects`` with
    ``score >= min_score`` that pass the gate (see the module docstring: ``min_support`` affected
    and reference runs, max-T permutation p-value < ``alpha``), best first. ``strata``: a group label per
    run (the benchmark of each pooled run): the labels are then permuted within each group only, so a column
    that differs between groups (a benchmark's memory use) does not pass for one that marks the affected runs.
    Then the magnitude gate (:mod:`.magnitude`): a numeric suspect whose difference is negligible (a unit or
    two of the column's readings, or a frequency / load / temperature change too small to explain
    ``slowdown``, the timing ratio of the affected runs) is left out - or, with ``keep_negligible``, listed
    after the others with ``evidence["negligible"]`` True (at most ``max_suspects`` of each).
    """
    return run_steps(rank_steps(metadata, affected, step_index=step_index, max_suspects=max_suspects,
                                min_score=min_score, lags=lags, alpha=alpha, min_support=min_support, strata=strata,
                                slowdown=slowdown, keep_negligible=keep_negligible))


def run_steps(steps):
    """Drive a generator of :func:`rank_steps` (or one that delegates to it) to its end, answering what it
    asks for (:func:`answer`): its return value."""
    return drive(steps, _answer_one)


#: The requests of the classification (:func:`.classify.classify_steps`), answered by :func:`.noise.answer_ops`.
_CLASSIFY_ASKS = (OPAsk, NoiseIterAsk)


def _answer_one(ask):
    """:func:`answer` of the one request ``ask``."""
    return answer_op(ask) if type(ask) in _CLASSIFY_ASKS else answer([ask])[0]


def answer(asks: list) -> list:
    """The answers to requests of :func:`rank_steps` generators (of one or of many benchmarks): a
    :class:`_BlockJob` gets its :func:`_block_suspects` (the jobs of all benchmarks scored together,
    :func:`_block_suspects_many`), a max-T null (:class:`_MaxT`) its :meth:`~_MaxT.null_max`; the classification's
    segmentations (:class:`.noise.OPAsk`, from :func:`bandkit.postmortem._postmortem_steps`) their change points
    (:func:`.noise.answer_ops`: those of all benchmarks in one padded pass)."""
    out: list = [None] * len(asks)
    jobs = [i for i, a in enumerate(asks) if isinstance(a, _BlockJob)]
    for i, found in zip(jobs, _block_suspects_many([asks[i] for i in jobs]) if jobs else ()):
        out[i] = found
    ops = [i for i, a in enumerate(asks) if type(a) in _CLASSIFY_ASKS]
    for i, cps in zip(ops, answer_ops([asks[i] for i in ops]) if ops else ()):
        out[i] = cps
    for i, a in enumerate(asks):
        if isinstance(a, _MaxT):
            out[i] = a.null_max()
        elif not isinstance(a, _BlockJob) and type(a) not in _CLASSIFY_ASKS:
            raise TypeError(f"not a request of rank_steps or of the classification: {a!r}")
    return out


def rank_steps(metadata, affected: np.ndarray, *, step_index: int | None = None, max_suspects: int = 5,
               min_score: float = 0.3, lags: tuple[int, ...] = (0, 1, -1), alpha: float = SUSPECT_ALPHA,
               min_support: int = MIN_SUPPORT, strata: np.ndarray | None = None, slowdown: float | None = None,
               keep_negligible: bool = False):
    """:func:`rank_suspects` as a generator: it yields its requests - the scores of its numeric columns
    without gaps (a :class:`_BlockJob`), then its max-T null (a :class:`_MaxT`), each at most once - is sent
    their answers (:func:`answer`) and returns the list of suspects. :func:`run_steps` drives one;
    :func:`bandkit.postmortem.postmortems` drives those of a file's benchmarks together, so that their
    column blocks are scored in one pass (:func:`_block_suspects_many`)."""
    aff = np.asarray(affected, dtype=bool)
    n = len(aff)
    if n < 3 or aff.sum() < min_support or (~aff).sum() < min_support:
        return []
    perm = _MaxT(aff, strata=strata)
    w = max(1.0, n / 50.0)
    out: list[Suspect] = []
    idx = np.arange(n)
    cols = _array_columns(metadata) if isinstance(metadata, dict) else \
        metadata if isinstance(metadata, list) else _columns(metadata)
    # numeric columns without gaps: scored all at once (_block_suspects); the others one by one
    dense = [(i, cols[i]) for i in _dense_columns(cols)]
    found: dict[int, Suspect] = {}
    ranks0: dict[str, tuple] = {}  # (the block's ranks of each column at lag 0, for the serial gate)
    if dense:
        found = yield _BlockJob([c for _, c in dense], [i for i, _ in dense], aff, step_index, tuple(lags),
                                min_score, w, perm, ranks0)
    dense_at = {i for i, _ in dense}
    for i, (col, numeric, data) in enumerate(cols):
        if i in dense_at:
            if i in found:
                out.append(found[i])
            continue
        if numeric:
            v = data
            ok = np.isfinite(v)
            if step_index is not None and ok.sum() > 3:
                rv = _ranks(v[ok])
                rho = np.corrcoef(idx[ok], rv)[0, 1] if np.ptp(rv) > 0 else 0.0
                if np.isfinite(rho) and abs(rho) > 0.98:
                    continue
        best: Suspect | None = None
        for lag in lags:
            if numeric:
                mv, sl = _shift(v, lag)
                ev = _numeric_score(mv, aff[sl])
                if ev is None:
                    continue
                perm.add_ranks(mv, sl, ev.pop("_ranks"))
            else:
                res = _categorical_score(_shift_codes(data[0], lag), data[1], aff)
                if res is None:
                    continue
                ev, codes = res
                perm.add_codes(codes)
            score = ev["separation"] * (0.9 if lag else 1.0)
            if step_index is not None and numeric:
                ok2 = np.isfinite(mv)
                if ok2.sum() >= 4:
                    full = np.full(n, np.nan)
                    full[sl] = mv
                    good = np.flatnonzero(np.isfinite(full))
                    k = good[_best_split(full[good])]
                    score *= _coincide(ev, int(k), step_index, w)
            _tail(ev, lag, numeric, col)
            if best is None or score > best.score:
                best = Suspect(col, float(score), ev)
        if best is not None and best.score >= min_score:
            best.evidence["p_value"] = None  # (its place in the evidence; computed for the reported ones below)
            out.append(best)
    gated = []
    null_max = (yield perm) if out else None
    entry_of = {c[0]: c for c in cols} if out else {}
    # the serial gate only for the suspects that can pass: its inflation is >= 1, so a suspect whose
    # separation alone is not beyond the null (or that lacks support) cannot pass with it either
    out = _can_pass(out, null_max, alpha, min_support) if out else out
    serial = _serial_all(out, entry_of, aff, strata, ranks0) if out else []
    for sus, (rho, infl) in zip(out, serial):
        ev = sus.evidence
        sep = ev.pop("_separation")
        ev["tests"] = perm.n_tests
        # serial dependence: the separation in units of the permutation null's spread for this column
        ev["serial_rho"], ev["variance_inflation"] = rho, infl
        sep = sep / math.sqrt(infl)
        ev["p_adjusted"] = float((1 + np.count_nonzero(null_max >= sep - 1e-12)) / (len(null_max) + 1))
        if ev["affected"] >= min_support and ev["reference"] >= min_support and ev["p_adjusted"] < alpha:
            gated.append(sus)
    kept, negligible = _report_order(gated, max_suspects, entry_of, slowdown)
    return kept + negligible if keep_negligible else kept


def _can_pass(sus: list[Suspect], null_max: np.ndarray, alpha: float, min_support: int) -> list[Suspect]:
    """The suspects of ``sus`` that the gate of :func:`rank_suspects` could let through: enough affected and
    reference runs and, without the serial inflation (>= 1, which only lowers the separation), a max-T
    p-value below ``alpha`` (the same expression; the inflated one is never smaller). The others are left out
    before the serial gate, whose numbers for a suspect that fails anyway are never shown (about half of the
    ~740 suspects checked in a 60-benchmark file). Rows of the serial gate are computed row by row
    (:func:`_lag1_rows`), so a subset's values are the whole list's."""
    sep = np.array([s.evidence["_separation"] for s in sus], dtype=np.float64) - 1e-12
    beyond = np.count_nonzero(null_max[None, :] >= sep[:, None], axis=1).tolist()  # (each row's count)
    top = len(null_max) + 1
    return [s for s, b in zip(sus, beyond) if s.evidence["affected"] >= min_support
            and s.evidence["reference"] >= min_support and (1 + b) / top < alpha]


def _lag1(x: np.ndarray, groups: np.ndarray, same: np.ndarray | None = None) -> tuple[float, int]:
    """Lag-1 autocorrelation of ``x`` within groups (bool per run: affected or not): each value about
    its group's mean, over the consecutive pairs of runs of one group that both have values (an
    offset between the groups - what a suspect is - is no autocorrelation); bias-corrected for the
    short series (+(1 + 3 rho) / pairs, Marriott & Pope). ``same``: per pair of neighbours, whether they
    are in one stratum (pairs across strata are not used). Returns (rho, pairs)."""
    ok = np.isfinite(x)
    d = np.zeros(x.size)
    ss = 0.0
    for g in (groups, ~groups):
        sel = ok & g
        if sel.any():
            d[sel] = x[sel] - np.mean(x[sel])
            ss += float(np.sum(d[sel] ** 2))
    pair = ok[:-1] & ok[1:] & (groups[:-1] == groups[1:])
    if same is not None:
        pair &= same
    m = int(np.count_nonzero(pair))
    if m < 3 or ss <= 0:
        return 0.0, m
    rho = float(np.sum(d[:-1][pair] * d[1:][pair]) / (ss * m / int(np.count_nonzero(ok))))
    return rho + (1.0 + 3.0 * rho) / m, m


def _serial_inflation(entry, ev: dict[str, Any], aff: np.ndarray,
                      strata: np.ndarray | None = None) -> tuple[float, float]:
    """(rho, f) of a suspect column: ``rho`` the lag-1 autocorrelation of its ranks (numeric) or of
    its best value's indicator (categorical) over consecutive *reference* runs (0 unless it exceeds
    ``SERIAL_Z`` standard errors), and ``f`` the variance inflation of the affected-minus-reference
    contrast of an AR(1) column of that ``rho`` over a column whose runs are exchangeable:
    c' G c / c' c, with G_ij = rho^|i-j| and c_i = 1/n_affected, -1/n_reference (0 without a value).
    The separation is linear in that contrast, so separation / sqrt(f) is what the permutation null
    (which exchanges runs one by one) can judge: a smooth column (a 1-minute load average) agrees with
    a contiguous block of affected runs (a warm-up, a step) far more often than exchangeable runs do.
    With ``strata`` (pooled benchmarks) only neighbours of one stratum count, for rho and for G."""
    _, numeric, data = entry
    lag = int(ev.get("lag", 0))
    n = aff.size
    if numeric:
        x = np.asarray(data, dtype=np.float64)
        ok = np.isfinite(x)
        if ok.sum() > 1:
            x = x.copy()
            x[ok] = _ranks(x[ok])
    else:
        codes, labels = data
        hit = [i for i in range(len(labels)) if str(labels[i])[:200] == ev.get("value")]
        x = np.where(codes >= 0, np.isin(codes, hit).astype(np.float64), np.nan)
    mv, sl = _shift(x, lag)
    lab = aff[sl]
    st = None if strata is None else np.asarray(strata)[sl]
    same = None if st is None else st[:-1] == st[1:]
    rho, m = _lag1(mv, lab, same)
    return _inflation(rho, m, np.isfinite(mv), lab, st)


def _inflation(rho: float, m: int, ok: np.ndarray, lab: np.ndarray, st: np.ndarray | None,
               memo: dict | None = None) -> tuple[float, float]:
    """(rho, f) of :func:`_serial_inflation` from the lag-1 autocorrelation ``rho`` over ``m`` pairs of the
    shifted column (``ok``: the runs with a value, ``lab``: their labels, ``st``: their strata or None).
    ``memo``: a dict kept by the caller for columns of the same ``ok``, ``lab`` and ``st``, whose contrast
    and its lagged sums (which depend on nothing else) are then computed once."""
    if not (rho * math.sqrt(max(m, 1)) > SERIAL_Z):
        return 0.0, 1.0
    rho = min(rho, SERIAL_RHO_MAX)
    memo = {} if memo is None else memo
    if "c" not in memo:
        na, nr = int(np.count_nonzero(lab & ok)), int(np.count_nonzero(~lab & ok))
        c = np.where(ok, np.where(lab, 1.0 / na, -1.0 / nr), 0.0) if na and nr else None
        memo["c"], memo["sums"] = c, [float(c @ c)] if c is not None else []
    c, sums = memo["c"], memo["sums"]
    if c is None:
        return 0.0, 1.0
    cc = sums[0]
    num = cc
    L = min(len(c) - 1, int(math.ceil(math.log(1e-6) / math.log(rho))) if rho > 0 else 0)
    if st is not None and "reach" not in memo:
        # strata in one stretch each (pooled benchmarks: ~20 runs each, L up to ~680): no two runs of one
        # stratum are k apart from the longest stretch on, the products there are all +0.0 and so is their sum
        edges = np.flatnonzero(st[1:] != st[:-1])
        one_each = len(st) and edges.size + 1 == distinct(st).size
        memo["reach"] = int(np.diff(np.concatenate(([-1], edges, [len(st) - 1]))).max()) if one_each else len(st)
    for k in range(len(sums), L + 1):  # (the lagged sums of the contrast not computed yet)
        if st is not None and k >= memo["reach"]:
            sums.append(0.0)
            continue
        prod = c[:-k] * c[k:] if st is None else np.where(st[:-k] == st[k:], c[:-k] * c[k:], 0.0)
        sums.append(float(np.sum(prod)))
    for k in range(1, L + 1):
        num += 2.0 * rho ** k * sums[k]
    return float(rho), float(max(1.0, num / cc))


def _serial_all(sus: list, entry_of: dict, aff: np.ndarray, strata: np.ndarray | None,
                ranks0: dict | None = None) -> list[tuple[float, float]]:
    """:func:`_serial_inflation` of every suspect of ``sus`` (the same floats): the numeric columns without gaps
    that share a lag at once - their ranks by :func:`_block_ranks`, the lag-1 autocorrelations of
    :func:`_lag1_rows` (a 60-benchmark file has ~740 suspects to check, ~20 us of numpy calls each one by one);
    the other columns one by one. ``ranks0``: {name: (data, ranks)} of :func:`_block_suspects` (lag 0: the ranks
    of the whole column, which the gate ranks again otherwise; each column's ranks are its own, whatever block
    it was ranked in)."""
    res: list = [None] * len(sus)
    by_lag: dict[int, list[int]] = {}
    for i, s in enumerate(sus):
        e = entry_of[s.metadata]
        r0 = ranks0.get(s.metadata) if ranks0 else None
        if (r0 is not None and r0[0] is e[2] and e[2].size > 1) or (  # (ranked in _block_suspects: no gaps)
                e[1] and e[2].size > 1 and bool(np.isfinite(e[2]).all())):
            by_lag.setdefault(int(s.evidence.get("lag", 0)), []).append(i)
        else:
            res[i] = _serial_inflation(e, s.evidence, aff, strata)
    for lag, at in by_lag.items():
        names = [sus[i].metadata for i in at]
        if ranks0 and all(c in ranks0 and ranks0[c][0] is entry_of[c][2] for c in names):
            R = np.stack([ranks0[c][1] for c in names], axis=1)
        else:
            R = _block_ranks(np.stack([entry_of[c][2] for c in names], axis=1))[3]
        mv, sl = _shift(R, lag)
        lab = aff[sl]
        st = None if strata is None else np.asarray(strata)[sl]
        same = None if st is None else st[:-1] == st[1:]
        rhos, m = _lag1_rows(np.ascontiguousarray(mv.T), lab, same)
        ok = np.ones(lab.size, dtype=bool)
        serial = (rhos * math.sqrt(max(m, 1)) > SERIAL_Z).tolist()  # (_inflation's first test, at once)
        memo: dict = {}
        for i, rho, dep in zip(at, rhos.tolist(), serial):
            res[i] = _inflation(rho, m, ok, lab, st, memo) if dep else (0.0, 1.0)
    return res


def _lag1_rows(M: np.ndarray, groups: np.ndarray, same: np.ndarray | None) -> tuple[np.ndarray, int]:
    """:func:`_lag1` of every row of ``M`` (k x n, finite values): (rho per row, pairs). Row reductions of
    C-contiguous arrays are numpy's pairwise sums of each row, as the 1-D calls' (bit-equal, tested)."""
    k, n = M.shape
    D = np.zeros((k, n))
    ss = np.zeros(k)
    for g in (groups, ~groups):
        if g.any():
            G = np.ascontiguousarray(M[:, g])
            Dg = G - G.mean(axis=1)[:, None]
            D[:, g] = Dg
            ss = ss + (Dg ** 2).sum(axis=1)
    pair = groups[:-1] == groups[1:]
    if same is not None:
        pair &= same
    m = int(np.count_nonzero(pair))
    if m < 3:
        return np.zeros(k), m
    prod = np.ascontiguousarray(D[:, :-1][:, pair]) * np.ascontiguousarray(D[:, 1:][:, pair])
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = prod.sum(axis=1) / (ss * m / n)
        rho = rho + (1.0 + 3.0 * rho) / m
    return np.where(ss <= 0, 0.0, rho), m


def _dense_columns(cols: list) -> list[int]:
    """Positions of the numeric columns without gaps (scored as one block); tested in one pass where the
    numeric columns share a length."""
    num = [i for i, c in enumerate(cols) if c[1]]
    if not num:
        return []
    n = cols[num[0]][2].size
    if all(cols[i][2].ndim == 1 and cols[i][2].size == n for i in num):
        ok = np.isfinite(np.array([cols[i][2] for i in num], dtype=np.float64)).all(axis=1).tolist()
        return [i for i, good in zip(num, ok) if good]
    return [i for i in num if bool(np.isfinite(cols[i][2]).all())]


def _coincide(ev: dict[str, Any], k: int, step_index: int, w: float) -> float:
    """Record the metadata's own change point ``k`` and its coincidence factor with the step."""
    d = max(0, abs(k - step_index) - 1)  # +-1 run: sampling around the run
    ev["changepoint_index"] = k
    ev["coincidence"] = math.exp(-d / w)
    return ev["coincidence"]


def _tail(ev: dict[str, Any], lag: int, numeric: bool, col: str) -> None:
    ev["lag"] = lag
    ev["kind"] = "numeric" if numeric else "categorical"
    ev["unit"] = metadata_unit(col) if numeric else ""
    ev["_separation"] = ev["separation"]


def _finish(sus: Suspect) -> None:
    """The p-value of a suspect (and a numeric one's group medians)."""
    ev = sus.evidence
    if "_data" in ev:
        _finish_numeric(ev)
    elif ev["p_value"] is None:
        ka, na = ev["affected_with_value"], ev["affected"]
        kr, nr = ev["reference_with_value"], ev["reference"]
        ev["p_value"] = fisher_exact_p(ka, na - ka, kr, nr - kr)


def _report_order(gated: list[Suspect], max_suspects: int, entry_of: dict, slowdown: float | None
                  ) -> tuple[list[Suspect], list[Suspect]]:
    """The reported suspects: best score first (ties: plain before per-CPU names, then smaller p-value,
    then name), at most 2 of a family (:func:`_dedupe`), ``max_suspects`` of them; and apart, those the
    magnitude gate finds negligible (:func:`.magnitude.assess`, same order, at most ``max_suspects``). The
    p-values (and medians) are computed only for the suspects that can reach the list: those of the groups
    of equal score and kind that the list reaches (most gated suspects of a 60-benchmark file are never shown)."""
    gated = sorted(gated, key=lambda s: (-round(s.score, 6), "." in s.metadata))
    done: list[Suspect] = []
    small: list[Suspect] = []
    cache: dict = {}
    i = 0
    while i < len(gated) and len(_dedupe(done)) < max_suspects:
        key = (-round(gated[i].score, 6), "." in gated[i].metadata)
        j = i
        while j < len(gated) and (-round(gated[j].score, 6), "." in gated[j].metadata) == key:
            j += 1
        grp = gated[i:j]
        for sus in grp:
            _finish(sus)
            _magnitude(sus, entry_of, slowdown, cache)
        grp = sorted(grp, key=lambda s: (s.evidence.get("p_value", 1.0), s.metadata))
        done.extend(s for s in grp if not s.evidence.get("negligible"))
        small.extend(s for s in grp if s.evidence.get("negligible"))
        i = j
    return _dedupe(done)[:max_suspects], _dedupe(small)[:max_suspects]


def _magnitude(sus: Suspect, entry_of: dict, slowdown: float | None, cache: dict) -> None:
    """The magnitude fields of a numeric suspect (:func:`.magnitude.assess`); ``cache`` keeps the
    machine's frequency scale once a frequency suspect has needed it."""
    if sus.evidence.get("kind") != "numeric":
        return
    scale = None
    if physical_kind(sus.metadata) == "frequency":
        if "freq" not in cache:
            cache["freq"] = freq_scale_of(list(entry_of.values()))
        scale = cache["freq"]
    assess(sus.metadata, entry_of[sus.metadata][2], sus.evidence, slowdown, scale)


class _BlockJob(NamedTuple):
    """The arguments of :func:`_block_suspects` (one benchmark's numeric columns without gaps)."""

    entries: list
    where: list
    aff: np.ndarray
    step_index: int | None
    lags: tuple
    min_score: float
    w: float
    perm: "_MaxT"
    ranks0: dict | None


def _block_suspects(entries: list, where: list[int], aff: np.ndarray, step_index: int | None, lags, min_score: float,
                    w: float, perm: "_MaxT", ranks0: dict | None = None) -> dict[int, Suspect]:
    """The best (lag) suspect of each numeric column without gaps (``entries`` of :func:`column_entry`, at
    positions ``where`` of the column list), scored all columns at once per lag; the same suspects and
    evidence as the column-by-column loop of :func:`rank_suspects` (which handles columns with gaps).
    Their ranks join the max-T null ``perm`` (and, at lag 0, ``ranks0``: name -> (data, ranks)). Returns
    {position: suspect} for scores >= ``min_score``. (:func:`_block_suspects_many` of this one job.)"""
    return _block_suspects_many([_BlockJob(entries, where, aff, step_index, tuple(lags), min_score, w, perm,
                                           ranks0)])[0]


def _block_suspects_many(jobs: list[_BlockJob]) -> list[dict[int, Suspect]]:
    """:func:`_block_suspects` of each job, the jobs of one run count and lags scored together: their columns
    side by side in one block per lag (each with its own benchmark's labels; :func:`_block_scores` reduces
    along the runs, column by column, so a column's numbers are those of its own benchmark's block), the
    monotone test, the splits and the best lag of every column at once. The same suspects, evidence and
    max-T statistics (added to each job's ``perm`` in the same order) as one job at a time."""
    out: list = [None] * len(jobs)
    groups: dict[tuple, list[int]] = {}
    for i, job in enumerate(jobs):
        groups.setdefault((job.aff.size, job.lags), []).append(i)
    for (n, lags), at in groups.items():
        for i, found in zip(at, _block_group([jobs[i] for i in at], n, lags)):
            out[i] = found
    return out


def _block_group(jobs: list[_BlockJob], n: int, lags: tuple) -> list[dict[int, Suspect]]:
    """:func:`_block_suspects_many` of jobs that share the run count ``n`` and ``lags``."""
    Vs = [np.stack([e[2] for e in job.entries], axis=1) for job in jobs]
    keeps = [np.arange(V.shape[1]) for V in Vs]
    steps = [q for q, job in enumerate(jobs) if job.step_index is not None and n > 3]
    if steps:
        # leave out columns monotone in the run order (Spearman |rho| > 0.98), as the loop does
        # (one correlation matrix for all columns, not one np.corrcoef per column: only its comparison
        # with 0.98 is used, which a last-digit difference of the summation order cannot move in practice)
        for q, drop in zip(steps, _monotone([Vs[q] for q in steps])):
            keeps[q] = keeps[q][~drop]
    jobs_v = [(q, Vs[q][:, keeps[q]]) for q in range(len(jobs)) if keeps[q].size]
    found: list[dict[int, Suspect]] = [{} for _ in jobs]
    if not jobs_v:
        return found
    one = len(jobs) == 1  # (one benchmark, as rank_suspects alone: its labels as a vector)
    V = jobs_v[0][1] if one else np.concatenate([v for _, v in jobs_v], axis=1)  # (n, columns of every job)
    owner = np.concatenate([np.full(v.shape[1], q) for q, v in jobs_v])  # (the job of each column)
    first = {q: c for (q, _), c in zip(jobs_v, np.cumsum([0] + [v.shape[1] for _, v in jobs_v[:-1]]).tolist())}
    k = V.shape[1]
    step_at = np.array([-1 if jobs[q].step_index is None else jobs[q].step_index for q in range(len(jobs))])
    stepped = step_at[owner] >= 0  # (the columns of jobs with a step)
    affs = np.stack([job.aff for job in jobs], axis=1)  # (n, jobs)
    best_score = np.full(k, -np.inf)
    best_lag = np.zeros(k, dtype=np.int64)
    have = np.zeros(k, dtype=bool)
    stats_of: dict[int, tuple] = {}
    for lag in lags:
        mv, sl = _shift(V, lag)
        labs = affs[sl]  # (rows, jobs)
        na = np.count_nonzero(labs, axis=0)
        usable = (na >= 1) & (na < labs.shape[0])
        live = np.flatnonzero(usable[owner] & (np.ptp(mv, axis=0) > 0))
        if live.size == 0:
            continue
        sub = mv[:, live]
        own = owner[live]
        st, R = _block_scores(sub, labs[:, 0] if one else labs[:, own])
        Rf = np.zeros((n, live.size))
        Rf[sl] = R
        ok = np.zeros(n)
        ok[sl] = 1.0
        bounds = [0, live.size] if one else \
            np.flatnonzero(np.r_[True, own[1:] != own[:-1], True]).tolist()  # (each job's live columns)
        for c0, c1 in zip(bounds[:-1], bounds[1:]):
            q = int(own[c0])
            jobs[q].perm.add_rank_block(Rf[:, c0:c1], ok)
            if lag == 0 and jobs[q].ranks0 is not None:
                for j, c in zip(range(c0, c1), live[c0:c1].tolist()):
                    e = jobs[q].entries[keeps[q][c - first[q]]]
                    jobs[q].ranks0[e[0]] = (e[2], R[:, j])
        score = st["separation"] * (0.9 if lag else 1.0)
        split = np.zeros(live.size, dtype=np.int64)
        if sub.shape[0] >= 4 and stepped[live].any():
            sj = np.flatnonzero(stepped[live])
            split[sj] = _block_splits(sub[:, sj]) + (sl.start or 0)
            d = np.maximum(0, np.abs(split[sj] - step_at[own[sj]]) - 1)
            fac = np.array([math.exp(-int(di) / jobs[q].w) for di, q in zip(d.tolist(), own[sj].tolist())])
            score[sj] = score[sj] * fac  # (libm's exp, as _coincide)
        stats_of[lag] = (live, st, mv, labs, split)
        better = score > best_score[live]
        upd = live[better]
        best_score[upd] = score[better]
        best_lag[upd] = lag
        have[upd] = True
    # the statistics of each lag as Python lists, read by position (float(a[j]) of every field was ~15 us
    # a suspect: a 60-benchmark file builds ~740 of them)
    lists = {lag: ({c: j for j, c in enumerate(live.tolist())}, {f: st[f].tolist() for f in _BLOCK_FIELDS},
                   split.tolist(), [st["na"]] * live.size if one else st["na"].tolist(),
                   [st["nr"]] * live.size if one else st["nr"].tolist())
             for lag, (live, st, _, _, split) in stats_of.items()}
    min_score = np.array([job.min_score for job in jobs])[owner]
    owner_l = owner.tolist()
    for c in np.flatnonzero(have & (best_score >= min_score)).tolist():
        q = owner_l[c]
        job = jobs[q]
        lag = int(best_lag[c])
        _, st, mv, labs, _ = stats_of[lag]
        pos, f, splits, na, nr = lists[lag]
        j = pos[c]
        vv = mv[:, c]
        lab = labs[:, q]
        ev = {"auc": f["auc"][j], "separation": f["separation"][j], "median_affected": None,
              "median_reference": None, "threshold": f["threshold"][j],
              "affected_when": "above" if f["above"][j] else "below", "correct": f["correct"][j],
              "of": int(vv.size), "affected_on_side": f["tp"][j], "affected": na[j],
              "reference_on_side": f["fp"][j], "reference": nr[j], "_data": (vv[lab], vv[~lab])}
        score = ev["separation"] * (0.9 if lag else 1.0)
        kc = int(keeps[q][c - first[q]])
        name = job.entries[kc][0]
        if job.step_index is not None and vv.size >= 4:
            score *= _coincide(ev, splits[j], job.step_index, job.w)
        _tail(ev, lag, True, name)
        ev["p_value"] = None
        found[q][job.where[kc]] = Suspect(name, float(score), ev)
    return found


def _monotone(Vs: list[np.ndarray]) -> list[np.ndarray]:
    """For each block of columns (n x k, one n), which columns are monotone in the run order: Spearman |rho|
    > 0.98, by :func:`_index_correlations` of their ranks; the blocks ranked and correlated side by side
    (per column the same exact sums), each block on its own when any column is near the 0.98 boundary."""
    V = np.concatenate(Vs, axis=1) if len(Vs) > 1 else Vs[0]
    R0 = _block_ranks(V)[3]
    live0 = np.ptp(R0, axis=0) > 0
    rho = np.zeros(V.shape[1])
    if live0.any():
        r = _index_sums(R0[:, live0])
        if _index_sums_doubtful(r):
            if len(Vs) > 1:  # (np.corrcoef decides, on each block's own columns)
                return [_monotone([v])[0] for v in Vs]
            r = _index_correlations(R0[:, live0])
        rho[live0] = r
    drop = np.isfinite(rho) & (np.abs(rho) > 0.98)
    bounds = np.cumsum([0] + [v.shape[1] for v in Vs]).tolist()
    return [drop[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


#: The per-column statistics of :func:`_block_scores` that a suspect's evidence reads.
_BLOCK_FIELDS = ("auc", "separation", "threshold", "above", "correct", "tp", "fp")


def _index_correlations(R: np.ndarray) -> np.ndarray:
    """Pearson correlation of each column of ``R`` (n x k, none constant) with the run index, as
    ``np.corrcoef`` gives it in the first row of the matrix of both: for the test |rho| > 0.98 only,
    computed by numpy's own sums (np.corrcoef's k x k product goes through BLAS, whose threads cost
    more CPU than the sums; 1.8 ms a call) - and by np.corrcoef itself when any of them comes within
    1e-9 of 0.98, so that the test's outcome is np.corrcoef's."""
    rho = _index_sums(R)
    if _index_sums_doubtful(rho):
        with np.errstate(divide="ignore", invalid="ignore"):
            rho = np.corrcoef(np.vstack([np.arange(R.shape[0], dtype=np.float64), R.T]))[0, 1:]
    return rho


def _index_sums(R: np.ndarray) -> np.ndarray:
    """The correlations of :func:`_index_correlations` by numpy's sums (of ranks: halves of integers, so that
    every sum is exact and each column's value is the same whatever columns stand beside it)."""
    n = R.shape[0]
    t = np.arange(n, dtype=np.float64)
    tc = t - t.mean()
    Rc = R - R.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (tc[:, None] * Rc).sum(axis=0) / np.sqrt((tc * tc).sum() * (Rc * Rc).sum(axis=0))


def _index_sums_doubtful(rho: np.ndarray) -> bool:
    """Whether any of :func:`_index_sums`' correlations is within 1e-9 of 0.98 (or not finite): then
    np.corrcoef decides."""
    return bool(np.any(np.abs(np.abs(rho) - 0.98) < 1e-9) or not np.all(np.isfinite(rho)))


class _MaxT:
    """Westfall-Young max-T permutation null of the separation statistics of every (column, lag)
    for the affected labels ``aff``: permute the labels, recompute every separation, keep the
    largest per permutation (vectorised: rank sums by gathering, value counts by bincount)."""

    def __init__(self, aff: np.ndarray, n_perm: int = PERMUTATIONS, seed: int = 0,
                 strata: np.ndarray | None = None):
        self.aff = aff
        self.strata = strata
        self.n = len(aff)
        self.n_perm = n_perm
        self.seed = seed
        self.blocks: list[tuple[np.ndarray, np.ndarray]] = []  # (ranks n x k, valid n) of numeric statistics
        self.n_ranks = 0
        self.cats: list[tuple[np.ndarray, int]] = []

    @property
    def n_tests(self) -> int:
        return self.n_ranks + len(self.cats)

    def add_ranks(self, values: np.ndarray, sl: slice, ranks: np.ndarray) -> None:
        """A numeric statistic: metadata ``values`` paired with the runs ``sl``, ``ranks`` of its finite
        values (in order)."""
        full = np.full(self.n, np.nan)
        full[sl] = values
        ok = np.isfinite(full)
        r = np.zeros(self.n)
        r[ok] = ranks
        self.add_rank_block(r[:, None], ok.astype(np.float64))

    def add_rank_block(self, ranks: np.ndarray, valid: np.ndarray) -> None:
        """Numeric statistics sharing one set of runs: ``ranks`` (n x k, 0 where a run has no value; 1-based
        ranks with ties averaged, halves of integers), ``valid`` (n, 1.0 where the runs have values)."""
        self.blocks.append((ranks, valid))
        self.n_ranks += ranks.shape[1]

    def add_codes(self, codes: np.ndarray) -> None:
        """A categorical statistic: value codes 0..k-1 of every run (-1 = missing)."""
        self.cats.append((codes, int(codes.max()) + 1))

    def _rank_sets(self) -> tuple[list[np.ndarray], np.ndarray, list[int]]:
        """The numeric statistics grouped by their set of runs with values (they share a few, one per lag):
        (rank blocks, set by set in order of first appearance; the sets' 0/1 patterns, sets x n; the
        number of columns of each set)."""
        sets: dict[bytes, tuple[np.ndarray, list]] = {}
        for Rb, v in self.blocks:
            sets.setdefault(v.tobytes(), (v, []))[1].append(Rb)
        pats = np.stack([v for v, _ in sets.values()])  # (sets, n) 0/1
        width = [sum(b.shape[1] for b in bs) for _, bs in sets.values()]
        return [b for _, bs in sets.values() for b in bs], pats, width

    def _int32(self) -> bool:
        """Whether the doubled rank sums fit in int32 (then summed as such)."""
        return 2.0 * self.n * (self.n + 1) < _INT32_SUMS

    def permutations(self) -> int:
        """How many permutations the null draws: fewer for long sequences (work ~ n_perm x n), never below
        199 (p >= 0.005)."""
        return int(np.clip(4_000_000 // max(self.n, 1), 199, self.n_perm))

    def null_max(self) -> np.ndarray:
        n_perm = self.permutations()
        na = int(self.aff.sum())
        sub = _permuted_subsets(self.n, na, n_perm, self.seed) if self.strata is None else \
            _stratified_subsets(self.strata, self.aff, n_perm, self.seed)
        best = np.zeros(n_perm)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.blocks:
                ranks, pats, width = self._rank_sets()
                k = sum(width)
                # one pass of row gathers sums, per permutation, the ranks of every column (twice their value:
                # integers) and each set's 0/1 pattern (the affected runs with values); int32 where no sum can
                # overflow (half the memory of float64). Exact in any order, as float64 sums of these are.
                A = np.concatenate(ranks + [pats.T * 0.5], axis=1) * 2.0
                if self._int32():
                    A = A.astype(np.int32)
                ST = np.ascontiguousarray(_subset_sums(A, sub).T)  # (columns + sets, n_perm)
                NA = ST[k:].astype(np.float64)  # (sets, n_perm): affected runs with values
                NR = pats.sum(axis=1)[:, None] - NA
                # the separation |2 auc - 1| is monotone in the rank sum on either side of its centre, so the
                # largest over a set's columns is at their largest or smallest rank sum (the same floats)
                for S_ in _set_extremes(ST[:k], width):
                    S_ = S_ * 0.5  # (the rank sums)
                    auc = (S_ - NA * (NA + 1) / 2.0) / (NA * NR)
                    sep = np.where((NA > 0) & (NR > 0), np.abs(2.0 * auc - 1.0), 0.0)
                    best = np.maximum(best, sep.max(axis=0))
        return self._cats_max(best, sub, n_perm, na)

    def _cats_max(self, best: np.ndarray, sub: np.ndarray, n_perm: int, na: int) -> np.ndarray:
        """``best`` raised to the categorical statistics' largest separation in each permutation."""
        with np.errstate(divide="ignore", invalid="ignore"):
            rows = np.repeat(np.arange(n_perm), na) if self.cats else None
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


def _set_extremes(ST: np.ndarray, width: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(largest, smallest) of each set of consecutive rows of ``ST`` (``width``: rows per set): the results of
    ``np.maximum.reduceat`` / ``np.minimum.reduceat`` over the sets' first rows (axis 0), by one ``max`` /
    ``min`` of each set's slice (~5x faster than reduceat along axis 0 for ~100 x 1,000 rank sums; exact)."""
    if not all(width):  # (an empty set: reduceat's own rule)
        at = np.cumsum([0] + width[:-1])
        return np.maximum.reduceat(ST, at, axis=0), np.minimum.reduceat(ST, at, axis=0)
    hi = np.empty((len(width), ST.shape[1]), dtype=ST.dtype)
    lo = np.empty_like(hi)
    a = 0
    for i, w in enumerate(width):
        np.max(ST[a:a + w], axis=0, out=hi[i])
        np.min(ST[a:a + w], axis=0, out=lo[i])
        a += w
    return hi, lo


#: Bound of the max-T null's doubled rank sums (2 n (n + 1)) below which they are summed in int32.
_INT32_SUMS = 2.0 ** 31

_SUBSETS: dict[tuple[int, int, int, int], np.ndarray] = {}
_SUBSET_KEEP = 131_072  # indices


def _permuted_subsets(n: int, na: int, n_perm: int, seed: int) -> np.ndarray:
    """The affected runs of ``n_perm`` seeded permutations of ``na`` affected labels among ``n`` runs
    (n_perm x na indices; read-only). A permutation of the labels = a random set of na runs (one row
    per permutation): the na smallest of each row of uniforms, the set argsort's first na give (rank
    sums and counts are exact in float64 whatever the order, so the statistics are the same without
    sorting whole rows). A pure function of its arguments, kept for the next call: the benchmarks of a
    file mostly share their run count, and often their number of affected runs (a few sets kept)."""
    key = (n, na, n_perm, seed)
    sub = _SUBSETS.get(key)
    if sub is None:
        u = np.random.default_rng(seed).random((n_perm, n))
        sub = np.argpartition(u, na - 1, axis=1)[:, :na] if 0 < na < n else np.argsort(u, axis=1)[:, :na]
        if sub.size <= _SUBSET_KEEP:  # (small sets only: at most 16 x 1 MB kept)
            sub = np.ascontiguousarray(sub)
            sub.flags.writeable = False
            if len(_SUBSETS) >= 16:
                _SUBSETS.pop(next(iter(_SUBSETS)))
            _SUBSETS[key] = sub
    return sub


def _stratified_subsets(strata: np.ndarray, aff: np.ndarray, n_perm: int, seed: int) -> np.ndarray:
    """Like :func:`_permuted_subsets`, with the affected labels permuted within each stratum: each row
    holds, for every stratum, as many of its runs as it has affected runs (n_perm x aff.sum() indices)."""
    rng = np.random.default_rng(seed)
    strata = np.asarray(strata)
    parts = []
    for g in distinct(strata[aff]):  # (np.unique imports numpy.ma)
        idx = np.flatnonzero(strata == g)
        k = int(np.count_nonzero(aff[idx]))
        if k == idx.size:
            parts.append(np.broadcast_to(idx, (n_perm, k)))
            continue
        u = rng.random((n_perm, idx.size))
        parts.append(idx[np.argpartition(u, k - 1, axis=1)[:, :k]])
    return np.concatenate(parts, axis=1) if parts else np.zeros((n_perm, 0), np.int64)


def _subset_sums(A: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """``A[sub].sum(axis=1)``: for each row of ``sub`` (indices of a subset of A's rows) the column sums
    of those rows of ``A`` (n x k), one row gather per subset member (of the subset or of its
    complement, whichever is smaller) instead of an (n_perm x members x k) array. Exact for the
    integer-valued and half-integer-valued sums of the max-T test (any order of summation)."""
    n_perm, m = sub.shape
    n = A.shape[0]
    if m <= n - m:
        out = np.zeros((n_perm, A.shape[1]), dtype=A.dtype)
        for j in range(m):
            out += A[sub[:, j]]
        return out
    mask = np.ones((n_perm, n), dtype=bool)
    mask[np.arange(n_perm)[:, None], sub] = False
    rest = np.nonzero(mask)[1].reshape(n_perm, n - m)
    out = np.broadcast_to(A.sum(axis=0), (n_perm, A.shape[1])).copy()
    for j in range(n - m):
        out -= A[rest[:, j]]
    return out


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
