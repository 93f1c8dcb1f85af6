"""Across benchmarks: counts of verdicts, and the metadata that marks the affected runs of all
benchmarks together (pooled: every run of every analysed benchmark, affected or not)."""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
from .._lazy import pandas as pd  # (imported on first use: compare never uses it)

from .._json import jsonable
from ..metadata import Coded
from ..robust import distinct, median
from .classify import NOT_CLASSIFIED
from .magnitude import slowdown_of
from .suspects import Suspect, candidate, category_codes, column_entry, numeric_dtype, rank_suspects

#: Verdicts that count as "affected".
AFFECTED_VERDICTS = ("step", "episode", "bimodal", "bands", "trend", "warmup", "outliers")


@dataclass(frozen=True)
class CrossSummary:
    """``counts``: verdict -> number of benchmarks; ``affected``: names of benchmarks whose verdict
    is in :data:`AFFECTED_VERDICTS` (outliers and warm-up included); ``shared_suspects``: metadata
    ranked on the pooled runs (the slow runs of every affected benchmark -
    see ``PostMortem.slow_runs`` - vs all other runs of all benchmarks);
    ``pooled_runs`` / ``pooled_affected``: how many runs that ranking saw. Its permutation null keeps
    each benchmark's number of slow runs (labels permuted within benchmarks), and a shared suspect must
    mark the slow runs (:data:`MIN_MARK`)."""

    n_benchmarks: int
    counts: dict[str, int]
    affected: tuple[str, ...]
    shared_suspects: tuple[Suspect, ...] = ()
    pooled_runs: int = 0
    pooled_affected: int = 0
    top_suspect_counts: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return jsonable({"n_benchmarks": self.n_benchmarks, "counts": dict(self.counts),
                      "affected": list(self.affected),
                      "shared_suspects": [s.to_dict() for s in self.shared_suspects],
                      "pooled_runs": self.pooled_runs, "pooled_affected": self.pooled_affected,
                      "top_suspect_counts": dict(self.top_suspect_counts)})


def summarize(postmortems: Sequence[Any], *, include_outliers: bool = True, max_suspects: int = 5) -> CrossSummary:
    """Summarise post-mortems (of one result file, normally). Pooled suspects use the steps / bands
    of every affected benchmark (the slow outlier runs of outlier-only benchmarks too, unless
    ``include_outliers`` is False)."""
    counts = Counter(pm.verdict for pm in postmortems)
    affected = tuple(pm.name for pm in postmortems if pm.verdict in AFFECTED_VERDICTS)
    frames, labels, strata, rel = [], [], [], []
    top = Counter()
    pooled_verdicts = set(AFFECTED_VERDICTS) - ({"outliers"} if not include_outliers else set())
    for pm in postmortems:
        if pm.run_table is None or pm.n_runs == 0 or pm.verdict in NOT_CLASSIFIED:
            continue
        aff = np.isin(pm.run_numbers, np.asarray(pm.slow_runs, dtype=np.int64)) \
            if pm.verdict in pooled_verdicts else np.zeros(pm.n_runs, dtype=bool)
        cols = getattr(pm.run_table, "raw_columns", None)  # (string columns as Coded: no pandas)
        frames.append(pm.metadata.reset_index(drop=True) if cols is None else _Columns(cols, pm.n_runs))
        labels.append(aff)
        strata.append(np.full(pm.n_runs, len(strata), dtype=np.int64))
        rel.append(_relative_means(pm.run_means, aff))
        if pm.suspects and pm.verdict in AFFECTED_VERDICTS:
            top[pm.suspects[0].metadata] += 1
    shared: list[Suspect] = []
    n_pool = n_aff = 0
    if frames:
        lab = np.concatenate(labels)
        n_pool, n_aff = len(lab), int(lab.sum())
        if n_aff and n_aff < n_pool:
            # labels permuted within each benchmark: a column that differs between benchmarks (memory use,
            # the time each one ran) is not a suspect of their slow runs
            cols = _pooled(frames)
            # the slowdown the magnitude gate weighs a shared suspect against: each run's mean over its
            # benchmark's median reference run, pooled
            shared = rank_suspects(cols, lab, max_suspects=max_suspects, lags=(0,), min_score=0.1,
                                   strata=np.concatenate(strata), slowdown=slowdown_of(np.concatenate(rel), lab))
            shared = _marking(shared, cols, lab)
    return CrossSummary(len(postmortems), dict(sorted(counts.items())), affected, tuple(shared), n_pool, n_aff,
                        dict(top.most_common()))


def _relative_means(means: np.ndarray, aff: np.ndarray) -> np.ndarray:
    """Run means over the median of the benchmark's unaffected runs (NaN when it has none, or <= 0)."""
    m = np.asarray(means, dtype=np.float64)
    ref = float(median(m[~aff])) if (~aff).any() else math.nan
    return m / ref if ref > 0 else np.full(m.shape, math.nan)


#: A shared suspect must *mark* the slow runs: some threshold (or value) of the column holds this much
#: larger a share of the slow runs than of the others (two-sample Kolmogorov-Smirnov distance; Youden's J
#: of the best value for text columns). Significance alone is not enough over ~2,000 pooled runs: on a
#: real file 17 slow runs sat at 3,701 MHz against 3,700.75 MHz for the others (p_adjusted 0.006, KS 0.44).
MIN_MARK = 0.5


def _marking(shared: list[Suspect], cols: list, lab: np.ndarray) -> list[Suspect]:
    """The suspects whose column separates the slow runs by at least :data:`MIN_MARK` (evidence ``ks``)."""
    entries = {c[0]: c for c in cols}
    out = []
    for sus in shared:
        _, numeric, data = entries[sus.metadata]
        if numeric:
            v = np.asarray(data, dtype=np.float64)
            ok = np.isfinite(v)
            a, r = np.sort(v[ok & lab]), np.sort(v[ok & ~lab])
            if a.size == 0 or r.size == 0:
                continue
            grid = distinct(v[ok])  # (np.unique imports numpy.ma)
            ca, cr = np.searchsorted(a, grid, "right"), np.searchsorted(r, grid, "right")
            gap = cr / r.size - ca / a.size  # > 0: more of the other runs than of the slow ones at or below
            j = int(np.argmax(np.abs(gap)))
            d = float(abs(gap[j]))
            if grid.size > 1 and not _mark_cut(sus.evidence, grid, j, gap[j] > 0, ca[j], cr[j], a.size, r.size):
                continue
        else:
            d = float(sus.score)
        sus.evidence["ks"] = d
        if d >= MIN_MARK:
            out.append(sus)
    return out


def _mark_cut(ev: dict, grid: np.ndarray, j: int, above: bool, a_below: int, r_below: int, na: int, nr: int) -> bool:
    """Put the cut that marks the slow runs - after ``grid[j]``, where the two groups' distribution functions
    are farthest apart (the Kolmogorov-Smirnov distance :func:`_marking` gates on; Youden's J) - into the
    suspect's evidence: ``threshold``, ``affected_when``, the counts on the affected side and ``correct``.
    The per-benchmark threshold maximises the runs it classifies right, which over pooled runs (248 slow of
    1,200) can be the trivial cut below one extreme value ("<= 1,654: 1/248 vs 0/952" beside medians 3,332 vs
    2,629 MHz). False when that cut and the medians point opposite ways (the row would say two things)."""
    ma, mr = ev.get("median_affected"), ev.get("median_reference")
    if ma is not None and mr is not None and ma != mr and (ma > mr) != above:
        return False
    tp, fp = (na - a_below, nr - r_below) if above else (a_below, r_below)
    ev.update(threshold=float((grid[j] + grid[j + 1]) / 2), affected_when="above" if above else "below",
              affected_on_side=int(tp), reference_on_side=int(fp), correct=int(tp + (nr - fp)))
    return True


#: A pooled column is ranked only when this share of the pooled runs has it (a column that some
#: benchmarks lack would mark benchmarks, not runs).
MIN_PRESENT = 0.9


class _Columns:
    """A run table's metadata given as arrays (``RunTable.metadata_columns``), standing in for its frame
    in :func:`_pooled`: ``columns``, ``len`` and ``[name]`` (a Series, only for the rare mixed-kind
    column)."""

    def __init__(self, cols: dict[str, Any], n: int):
        self.cols, self.n, self.columns = cols, n, list(cols)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, name: str) -> pd.Series:
        a = self.cols[name]
        return pd.Series(a.to_pandas() if isinstance(a, Coded) else a)

    @property
    def index(self) -> pd.RangeIndex:
        return pd.RangeIndex(self.n)


def _pooled(frames: list):
    """The suspect columns of the runs of all ``frames`` stacked (``pd.concat(frames)``: columns in
    order of first appearance, missing = NaN) held by more than :data:`MIN_PRESENT` of the runs, as
    :func:`~.suspects.column_entry` gives them. Built column by column from each frame's arrays (numbers
    stacked, categories joined by their text), not through a concatenated frame of every column
    (~0.3 s for 60 benchmarks); a column of mixed kinds takes pandas' concat (text of its values)."""
    n = sum(len(f) for f in frames)
    names: dict[str, None] = {}
    for f in frames:
        names.update(dict.fromkeys(f.columns))
    starts = np.cumsum([0] + [len(f) for f in frames])
    cols = [_frame_columns(f) for f in frames]
    out = []
    for c in names:
        parts = [(k, cols[k][c]) for k in range(len(frames)) if c in cols[k]]
        kinds = [_kind(s) for _, s in parts]
        if not candidate(c, None) or all(k == "date" for k in kinds):
            continue  # (excluded names and dates: never suspects)
        if all(k == "num" for k in kinds):
            v = np.full(n, np.nan)
            for k, s in parts:
                v[starts[k]:starts[k + 1]] = s if isinstance(s, np.ndarray) else \
                    s.to_numpy(dtype=np.float64, na_value=np.nan)
            present = np.count_nonzero(~np.isnan(v))
            data, numeric = v, True
        elif all(k == "cat" for k in kinds):
            codes = np.full(n, -1, np.int64)
            text: dict[str, int] = {}
            for k, s in parts:
                cats = s.categories
                remap = np.array([text.setdefault(str(x), len(text)) for x in cats] + [-1], dtype=np.int64)
                codes[starts[k]:starts[k + 1]] = remap[np.asarray(s.codes, dtype=np.int64)]
            present = np.count_nonzero(codes >= 0)
            data, numeric = (codes, np.array(list(text), dtype=object)), False
        else:  # mixed kinds: as pandas stacks them (object values, compared as text)
            s = pd.concat([f[c] if c in f.columns else pd.Series(np.nan, index=f.index) for f in frames],
                          ignore_index=True)
            if not candidate(c, s.dtype):
                continue
            present = int(s.notna().sum())
            numeric = numeric_dtype(s.dtype)
            data = s.to_numpy(dtype=np.float64, na_value=np.nan) if numeric else category_codes(s)
        if present / n > MIN_PRESENT and not _marks_benchmarks(data if numeric or not isinstance(data, tuple)
                                                               else data[0], starts):
            entry = column_entry(c, numeric, data)
            if entry is not None:
                out.append(entry)
    return out


def _kind(a) -> str:
    """"num", "cat", "date" or "other": a column's kind for :func:`_pooled` (numpy arrays and
    :class:`~bandkit.metadata.Coded` read without pandas)."""
    if isinstance(a, Coded):
        return "cat"
    d = a.dtype
    if isinstance(d, np.dtype):
        return "date" if d.kind == "M" else "num" if numeric_dtype(d) else "other"
    if pd.api.types.is_datetime64_any_dtype(d):
        return "date"
    return "num" if numeric_dtype(d) else "cat" if isinstance(d, pd.CategoricalDtype) else "other"


def _marks_benchmarks(values: np.ndarray, starts: np.ndarray) -> bool:
    """True when a pooled column is constant within every benchmark (missing values aside): then it
    tells benchmarks apart, not runs (a benchmark's description, its loops), and ranking it against
    the pooled slow runs would name the benchmarks that have slow runs, not a cause."""
    if values.dtype.kind in "fi" and values.size and bool(np.all(np.diff(starts) > 0)):
        # all segments at once: a segment varies when its smallest present value is below its largest
        # (float: NaN ignored by fmin/fmax, a segment of NaNs only gives NaN and does not vary; codes: -1 missing)
        at = starts[:-1]
        if values.dtype.kind == "f":
            lo, hi = np.fmin.reduceat(values, at), np.fmax.reduceat(values, at)
        else:
            present = values >= 0
            lo = np.minimum.reduceat(np.where(present, values, np.iinfo(values.dtype).max), at)
            hi = np.maximum.reduceat(np.where(present, values, -1), at)
        return not bool(np.any(lo < hi))
    for a, b in zip(starts[:-1], starts[1:]):
        seg = values[a:b]
        if seg.dtype.kind == "f":
            seg = seg[~np.isnan(seg)]
        elif seg.dtype.kind in "iu":
            seg = seg[seg >= 0]  # category codes: -1 = missing
        else:
            seg = seg[pd.notna(seg)]
        if seg.size > 1 and not np.all(seg == seg[0]):
            return False
    return True


def _array_column(a):
    """A column of a :class:`_Columns` as :func:`_frame_columns` gives it: Coded and categorical as they
    are, numeric as float64, others as a Series."""
    if isinstance(a, Coded):
        return a
    if isinstance(a, np.ndarray):  # (a date or other kind is read by its dtype only: kept as it is)
        return np.asarray(a, dtype=np.float64) if numeric_dtype(a.dtype) else a
    if isinstance(a, pd.Categorical):
        return a
    return np.asarray(a, dtype=np.float64) if numeric_dtype(a.dtype) else pd.Series(a)


def _frame_columns(f) -> dict[str, Any]:
    """A frame's columns by name, read in bulk: numeric ones as float64 arrays (one block read), categorical
    ones as their ``pd.Categorical``, others as Series (each has ``.dtype``). A :class:`_Columns`: its
    arrays, numeric ones as float64."""
    if isinstance(f, _Columns):
        return {c: _array_column(a) for c, a in f.cols.items()}
    names, dts = list(f.columns), list(f.dtypes)
    num = [i for i, d in enumerate(dts) if numeric_dtype(d)]
    block = f.iloc[:, num].to_numpy(dtype=np.float64, na_value=np.nan) if num else None
    out: dict[str, Any] = {}
    pos = {i: j for j, i in enumerate(num)}
    for i, (c, d) in enumerate(zip(names, dts)):
        if c in out:
            continue
        if i in pos:
            out[c] = block[:, pos[i]]
        else:
            s = f.iloc[:, i]
            out[c] = s.array if isinstance(d, pd.CategoricalDtype) else s
    return out
