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
from scipy import stats

from ..metadata import metadata_unit

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
    ranks = stats.rankdata(vv)
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
    vals = v[ok].astype(str).to_numpy()
    lab = aff[ok]
    if lab.sum() == 0 or (~lab).sum() == 0:
        return None
    best = None
    for val in pd.unique(vals):
        ind = vals == val
        j = ind[lab].mean() - ind[~lab].mean()
        if best is None or abs(j) > abs(best[0]) + 1e-12 or (abs(abs(j) - abs(best[0])) <= 1e-12 and j > best[0]):
            best = (float(j), str(val), int(ind[lab].sum()), int(lab.sum()), int(ind[~lab].sum()), int((~lab).sum()))
    if best is None:
        return None
    j, val, ka, na, kr, nr = best
    return {"separation": abs(j), "value": val[:200], "affected_with_value": ka, "affected": na,
            "reference_with_value": kr, "reference": nr}


def rank_suspects(metadata: pd.DataFrame, affected: np.ndarray, *, step_index: int | None = None,
                  max_suspects: int = 5, min_score: float = 0.3, lags: tuple[int, ...] = (0, 1, -1)) -> list[Suspect]:
    """Rank the columns of ``metadata`` (one row per run) by how well they separate ``affected``.

    ``step_index``: for a step, the 0-based index of the first run after it (enables the
    coincidence factor and the monotone-column exclusion). Returns at most ``max_suspects`` with
    ``score >= min_score``, best first.
    """
    aff = np.asarray(affected, dtype=bool)
    n = len(aff)
    if n < 3 or aff.all() or not aff.any():
        return []
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
                rho = stats.spearmanr(idx[ok], v[ok])[0]
                if np.isfinite(rho) and abs(rho) > 0.98:
                    continue
        else:
            if s.nunique(dropna=True) >= s.notna().sum():  # every run different: no pattern
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
            if best is None or score > best.score:
                best = Suspect(col, float(score), ev)
            else:
                ev.pop("_data", None)
        if best is not None and best.score >= min_score:
            data = best.evidence.pop("_data", None)
            if data is not None:
                best.evidence["p_value"] = float(stats.mannwhitneyu(data[0], data[1], alternative="two-sided")[1])
            out.append(best)
    out.sort(key=lambda s: (-round(s.score, 6), "." in s.metadata, s.evidence.get("p_value", 1.0), s.metadata))
    return _dedupe(out)[:max_suspects]


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
