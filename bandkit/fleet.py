"""Rank a fleet of FTQ traces (one per node / CPU): same per-trace analyses as ``bandkit report``,
one compact row per trace, robust outlier flags, a work-fraction profile per trace for the heat-map.

Work is spread over local processes (``jobs``) or a Dask cluster (``client`` / ``scheduler``); only
paths travel to the workers, which load and analyse the file themselves and send back a small dict
(no samples). The ranking and outlier statistics are computed afterwards from those rows, so the
result does not depend on where or in which order the files were analysed.

Outliers: modified z-score (Iglewicz & Hoaglin 1993) ``z = 0.6745 (x - median) / MAD`` of the FTQ
fraction (both directions) and of the stall share of time (high side only), flagged at
``|z| > z_threshold`` (3.5). When MAD is 0 the mean absolute deviation (x 1.2533) is used instead; when
that is 0 too, every value equal to the median gets z = 0 and any other value is flagged (z None).
"""
from __future__ import annotations

import glob
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from . import __version__
from ._json import dumps, jsonable
from .errors import BandkitError, InputError, UsageError
from .fleet_history import RANKED_KINDS

#: Version of the fleet JSON document (``kind: "fleet"``).
FLEET_SCHEMA_VERSION = 1
#: Columns (time bins) of each trace's work-fraction profile.
DEFAULT_BINS = 200
#: Modified z-score beyond which a trace is an outlier.
DEFAULT_Z = 3.5
#: File names picked up when a directory is given.
FTQ_NAME = re.compile(r"\.(dat|ftq)(\.gz)?$", re.I)
#: Tables (histories, result tables) picked up in a directory without FTQ files.
TABLE_NAME = re.compile(r"\.(csv|tsv|parquet)(\.gz)?$", re.I)


# ----------------------------------------------------------------------------------------------
# Inputs
# ----------------------------------------------------------------------------------------------
def _natural_key(p: str):
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", p)]


def expand_inputs(items: Iterable[str | os.PathLike]) -> list[str]:
    """Directories (searched recursively for ``*.dat[.gz]`` and ``*.ftq[.gz]``; a two-file FTQ
    pair counts once, by its ``times`` file), glob patterns and plain paths -> sorted unique
    file list.

    Raises InputError for a path or pattern that matches nothing.
    """
    from .loaders.ftq2009 import is_counts_name

    out: list[str] = []
    for item in items:
        s = os.fspath(item)
        if os.path.isdir(s):
            found = [str(p) for p in Path(s).rglob("*") if p.is_file() and FTQ_NAME.search(p.name)
                     and not is_counts_name(p.name)]
            if not found:  # a directory of histories / result tables
                found = [str(p) for p in Path(s).rglob("*") if p.is_file() and TABLE_NAME.search(p.name)]
            if not found:
                raise InputError(s, "directory holds no FTQ trace files (*.dat, *.dat.gz) and no tables "
                                    "(*.csv, *.tsv, *.parquet)")
            out.extend(sorted(found, key=_natural_key))
        elif any(ch in s for ch in "*?["):
            found = [p for p in glob.glob(s, recursive=True) if os.path.isfile(p)]
            if not found:
                raise InputError(s, "pattern matches no file")
            out.extend(sorted(found, key=_natural_key))
        elif os.path.exists(s):
            out.append(s)
        else:
            raise InputError(s, "no such file")
    seen: set[str] = set()
    uniq = []
    for p in out:
        if p not in seen:
            seen.add(p)
            uniq.append(p)
    return uniq


# ----------------------------------------------------------------------------------------------
# Per trace (runs in the workers)
# ----------------------------------------------------------------------------------------------
def work_profile(trace, n_bins: int = DEFAULT_BINS) -> tuple[list[float], float | None]:
    """Work fraction per time bin: counts summed over the bin / (trace's max count x quanta in the bin).

    Quanta in the bin = bin width / period when the time is in seconds (a bin swallowed by a stall
    gets 0, whatever the catch-up rows' timestamps), else the number of rows in the bin (each FTQ row
    stands for one grid quantum). The trace's FTQ fraction is the mean over bins (up to the grid
    jitter at bin edges). Returns (values, bin width in the trace's time unit or None); bins without
    rows in a row-counted profile are None.
    """
    data = trace.data
    n = len(data)
    if n == 0:
        return [], None
    count = data["value"].to_numpy(dtype=np.float64)
    time = data["time"].to_numpy(dtype=np.float64)
    m = float(np.max(count))
    n_bins = int(max(1, min(n_bins, n)))
    period = trace.period if trace.meta.time_unit == "s" else None
    if not np.isfinite(time).all() or time[-1] <= time[0]:
        idx = (np.arange(n) * n_bins) // n
        width = None
    else:
        span = float(time[-1] - time[0]) + (period or 0.0)
        width = span / n_bins
        idx = np.minimum(((time - time[0]) / width).astype(np.int64), n_bins - 1)
    sums = np.bincount(idx, weights=count, minlength=n_bins)
    if width is not None and period:
        quanta = np.full(n_bins, width / period)
    else:
        quanta = np.bincount(idx, minlength=n_bins).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = sums / (m * quanta) if m > 0 else np.full(n_bins, np.nan)
    return [float(v) if np.isfinite(v) else None for v in frac], width


def _compact_finding(f: Mapping[str, Any]) -> dict[str, Any]:
    """Finding without per-sample lists (keeps scalars and short lists)."""
    out = {}
    for k, v in f.items():
        if k in ("trace", "path"):
            continue
        if isinstance(v, (list, tuple)) and len(v) > 16:
            continue
        out[k] = v
    return jsonable(out)


def _row_from_report(tr, n_bins: int) -> dict[str, Any]:
    t = tr.trace
    m = t.meta
    row: dict[str, Any] = {
        "path": m.path, "label": t.label, "node": (m.header.get("uname") or {}).get("nodename"),
        "thread": m.thread, "cpu": m.cpu, "format": m.format, "kind": m.kind, "error": None,
    }
    summ = tr.section("summary")
    f = dict(summ.fields) if summ is not None else {}
    st = f.get("stalls") or {}
    row.update({
        "samples": f.get("samples", len(t.data)),
        "sampling_hz": f.get("sampling_hz", m.sampling_hz),
        "duration_s": f.get("duration_s"),
        "ftq_fraction": f.get("ftq_fraction"),
        "stall_count": st.get("count"),
        "stall_total_s": st.get("total_s"),
        "stall_share": st.get("share_of_time"),
        "longest_stall_s": st.get("longest_s"),
    })
    findings = [_compact_finding(x) for x in tr.findings]
    bands = next((x for x in findings if x.get("kind") == "band_levels"), None)
    bsec = tr.section("bands")
    if bands is not None:
        row["n_bands"] = bands.get("n_bands")
        row["band_levels"] = bands.get("levels")
        row["band_shares"] = bands.get("shares")
        row["degraded_share"] = bands.get("degraded_share")
    else:
        nb = len(bsec.fields.get("bands") or []) if bsec is not None else None
        row["n_bands"] = nb
        row["band_levels"] = [b.get("level") for b in bsec.fields.get("bands") or []] if bsec is not None else None
        row["band_shares"] = [b.get("share") for b in bsec.fields.get("bands") or []] if bsec is not None else None
        row["degraded_share"] = 0.0 if nb else None
    lines = [x for x in findings if x.get("kind") in ("spectral_line", "periodic_interference")]
    # the most powerful first (largest line amplitude), then by SNR
    lines.sort(key=lambda x: (-(x.get("amplitude") or 0.0), -(x.get("snr_db") or 0.0)))
    row["lines_hz"] = [x.get("freq_hz", x.get("alias_hz")) for x in lines][:8]
    row["steps"] = sum(1 for x in findings if x.get("kind") in ("step", "changepoint", "changepoints", "level_shift"))
    row["finding_kinds"] = sorted({x.get("kind") for x in findings if x.get("kind")})
    row["findings"] = findings
    prof, width = work_profile(t, n_bins)
    row["profile"] = prof
    row["profile_bin"] = width
    row["time_unit"] = m.time_unit
    return jsonable(row)


def summarize_path(item, options=None, n_bins: int = DEFAULT_BINS, format: str | None = None,
                   load_options: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Load ``item`` (a path, or a Trace) and analyse it; one JSON-ready row per trace in it.

    Errors in the input become a row with ``error`` set (the fleet goes on); this is the function
    the process pool and the Dask workers run.
    """
    from .analyze import AnalysisOptions, analyze_trace
    from .loaders.registry import load_traces
    from .trace import Trace

    options = options or AnalysisOptions()
    if isinstance(item, Trace):
        traces, path = [item], item.path
    else:
        path = os.fspath(item)
        try:
            traces = load_traces(path, format=format, **dict(load_options or {}))
        except BandkitError as exc:
            return [{"path": path, "error": str(exc)}]
    rows = []
    for i, t in enumerate(traces):
        try:
            if t.kind in RANKED_KINDS:
                rows.append(_ranked_row(analyze_trace(t, i, options), options))
                continue
            rows.append(_row_from_report(analyze_trace(t, i, options), n_bins))
        except BandkitError as exc:
            rows.append({"path": t.path, "label": t.label, "error": str(exc)})
        except Exception as exc:  # a bug in one analysis must not lose the other 999 nodes: report it
            rows.append({"path": t.path, "label": t.label,
                         "error": f"{t.label}: internal error in the analysis ({type(exc).__name__}: {exc}); "
                                  "please report it"})
    return rows


def _ranked_row(tr, options) -> dict[str, Any]:
    """Row of a history or runner trace (:mod:`bandkit.fleet_history`)."""
    from .fleet_history import history_row, runner_row

    since = (options.for_section("history") if options is not None else {}).get("since")
    return history_row(tr, since) if tr.trace.kind == "history" else runner_row(tr, since)


# ----------------------------------------------------------------------------------------------
# Ranking
# ----------------------------------------------------------------------------------------------
def robust_z(x: Sequence[float | None]) -> list[float | None]:
    """Modified z-scores 0.6745 (x - median) / MAD (None for missing values; see module doc)."""
    a = np.array([np.nan if v is None else float(v) for v in x], dtype=np.float64)
    ok = np.isfinite(a)
    out: list[float | None] = [None] * len(a)
    if ok.sum() < 3:
        return out
    med = float(np.median(a[ok]))
    dev = np.abs(a[ok] - med)
    mad = float(np.median(dev))
    if mad > 0:
        scale = mad / 0.6745
    else:
        meanad = float(np.mean(dev))
        scale = meanad * 1.2533 if meanad > 0 else 0.0
    for i in np.flatnonzero(ok):
        d = a[i] - med
        if scale > 0:
            out[i] = float(d / scale)
        else:
            out[i] = 0.0 if d == 0 else (math.inf if d > 0 else -math.inf)
    return out


@dataclass(frozen=True)
class FleetRow:
    """One trace of the fleet: the figures of its report plus rank and outlier flags.

    ``stall_share``: fraction of the trace's duration lost in stalls; ``profile``: work fraction per
    time bin (see :func:`work_profile`), bin width ``profile_bin`` in ``time_unit``.
    ``z_fraction`` / ``z_stall``: modified z-scores (None when undefined, ±inf when MAD is 0 — shown
    as None in JSON); ``outlier_reasons``: "low_fraction", "high_fraction", "stalls".
    """

    rank: int
    path: str
    label: str
    node: str | None
    thread: int | None
    samples: int | None
    duration_s: float | None
    sampling_hz: float | None
    ftq_fraction: float | None
    stall_count: int | None
    stall_share: float | None
    longest_stall_s: float | None
    n_bands: int | None
    band_levels: tuple | None
    band_shares: tuple | None
    degraded_share: float | None
    lines_hz: tuple
    steps: int
    finding_kinds: tuple
    z_fraction: float | None
    z_stall: float | None
    outlier_reasons: tuple
    profile: tuple
    profile_bin: float | None
    time_unit: str
    findings: tuple = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def outlier(self) -> bool:
        return bool(self.outlier_reasons)

    def to_dict(self, profile: bool = True) -> dict[str, Any]:
        d = {
            "rank": self.rank, "path": self.path, "label": self.label, "node": self.node, "thread": self.thread,
            "samples": self.samples, "duration_s": self.duration_s, "sampling_hz": self.sampling_hz,
            "ftq_fraction": self.ftq_fraction, "stall_count": self.stall_count, "stall_share": self.stall_share,
            "longest_stall_s": self.longest_stall_s, "n_bands": self.n_bands,
            "band_levels": list(self.band_levels) if self.band_levels is not None else None,
            "band_shares": list(self.band_shares) if self.band_shares is not None else None,
            "degraded_share": self.degraded_share, "lines_hz": list(self.lines_hz), "steps": self.steps,
            "finding_kinds": list(self.finding_kinds), "z_fraction": self.z_fraction, "z_stall": self.z_stall,
            "outlier": self.outlier, "outlier_reasons": list(self.outlier_reasons),
            "findings": [dict(f) for f in self.findings],
        }
        if profile:
            d["profile_bin"] = self.profile_bin
            d["time_unit"] = self.time_unit
            d["profile"] = list(self.profile)
        if self.extra:  # history / runner rows: what the regression ranking is made of
            d["kind"] = self.extra.get("kind")
            d.update({k: v for k, v in self.extra.items() if profile or not k.startswith("sparkline")})
        return jsonable(d)


@dataclass(frozen=True)
class FleetReport:
    """The ranked fleet: ``rows`` worst first (lowest FTQ fraction), ``errors`` (path, message) of
    inputs that could not be analysed, and the fleet statistics the outlier flags come from."""

    rows: tuple[FleetRow, ...]
    errors: tuple[tuple[str, str], ...]
    z_threshold: float
    n_bins: int
    median_ftq_fraction: float | None
    median_stall_share: float | None
    backend: str = "local"
    #: "ftq_fraction" (FTQ fleets) or "regressions" (histories / runner results first, see fleet_history)
    ranking: str = "ftq_fraction"

    @property
    def outliers(self) -> tuple[FleetRow, ...]:
        return tuple(r for r in self.rows if r.outlier)

    def profile_matrix(self, order: str = "rank") -> tuple[np.ndarray, np.ndarray, list[FleetRow]]:
        """(matrix traces x bins on a common time grid, bin edges in seconds (or fraction of the trace
        when durations are unknown), rows in matrix order). Cells past a trace's end are NaN."""
        rows = list(self.rows) if order == "rank" else sorted(self.rows, key=lambda r: _natural_key(r.path))
        if not rows:
            return np.zeros((0, 0)), np.zeros(1), rows
        spans = [r.profile_bin * len(r.profile) if r.profile_bin and r.time_unit == "s" else None for r in rows]
        nb = max(len(r.profile) for r in rows) or 1
        if all(s is not None for s in spans):
            total = max(spans)
            edges = np.linspace(0.0, total, nb + 1)
        else:
            total, edges = None, np.linspace(0.0, 1.0, nb + 1)
        centers = 0.5 * (edges[:-1] + edges[1:])
        mat = np.full((len(rows), nb), np.nan)
        for i, (r, s) in enumerate(zip(rows, spans)):
            p = np.array([np.nan if v is None else v for v in r.profile], dtype=np.float64)
            if not len(p):
                continue
            pos = centers / (s if total is not None else 1.0) * len(p)
            inside = pos < len(p)
            mat[i, inside] = p[np.minimum(pos[inside].astype(np.int64), len(p) - 1)]
        return mat, edges, rows

    def to_dict(self, profiles: bool = True) -> dict[str, Any]:
        return jsonable({
            "schema_version": FLEET_SCHEMA_VERSION,
            "kind": "fleet",
            "bandkit_version": __version__,
            "n_traces": len(self.rows),
            "n_errors": len(self.errors),
            "z_threshold": self.z_threshold,
            "median_ftq_fraction": self.median_ftq_fraction,
            "median_stall_share": self.median_stall_share,
            "outliers": [r.path if r.thread is None else r.label for r in self.outliers],
            "n_bins": self.n_bins,
            "ranking": self.ranking,
            **self._regression_summary(),
            "rows": [r.to_dict(profile=profiles) for r in self.rows],
            "errors": [{"path": p, "error": e} for p, e in self.errors],
        })

    def _regression_summary(self) -> dict[str, Any]:
        if self.ranking != "regressions":
            return {}
        from .fleet_history import flagged

        ex = [r.extra for r in self.rows if r.extra]
        return {"n_open_regressions": sum(len(e.get("open_regressions") or []) for e in ex),
                "n_with_open_regressions": sum(1 for e in ex if e.get("open_regressions")),
                "n_episodes": sum(len(e.get("episodes") or []) for e in ex),
                "flagged": [r.label for r in self.rows if r.extra and flagged(r.extra)]}

    def to_json(self, profiles: bool = True) -> str:
        return dumps(self.to_dict(profiles=profiles))

    def to_text(self, width: int = 100, limit: int | None = None) -> str:
        if self.ranking == "regressions":
            from .render.fleet_history import render_history_fleet_text

            return render_history_fleet_text(self, width=width, limit=limit)
        from .render.text_fleet import render_fleet_text

        return render_fleet_text(self, width=width, limit=limit)

    def to_html(self) -> str:
        if self.ranking == "regressions":
            from .render.fleet_history import render_history_fleet_html

            return render_history_fleet_html(self)
        from .render.text_fleet import render_fleet_html

        return render_fleet_html(self)

    def _repr_html_(self) -> str:
        if self.ranking == "regressions":
            from .render.fleet_history import history_fleet_html_fragment

            return history_fleet_html_fragment(self)
        from .render.text_fleet import fleet_html_fragment

        return fleet_html_fragment(self)

    def plot(self, ax=None, **kwargs):
        from .plots.fleet import plot_fleet_heatmap

        return plot_fleet_heatmap(self, ax=ax, **kwargs)


def build_report(rows: Sequence[Mapping[str, Any]], z_threshold: float = DEFAULT_Z, n_bins: int = DEFAULT_BINS,
                 backend: str = "local") -> FleetReport:
    """Rank per-trace rows (from :func:`summarize_path`) and flag outliers."""
    good = [r for r in rows if not r.get("error")]
    errors = tuple((str(r.get("path")), str(r["error"])) for r in rows if r.get("error"))
    frac = [r.get("ftq_fraction") for r in good]
    share = [r.get("stall_share") for r in good]
    zf = robust_z(frac)
    zs = robust_z(share)
    order = sorted(range(len(good)), key=lambda i: (
        math.inf if frac[i] is None else frac[i], -(share[i] or 0.0), _natural_key(good[i]["path"]),
        good[i].get("thread") or 0))
    ranked = [i for i in order if good[i].get("kind") in RANKED_KINDS]
    if ranked:  # histories / runner results first, by what matters to them (bandkit.fleet_history)
        from .fleet_history import order_rows

        sub = order_rows([good[i] for i in ranked])
        order = [ranked[j] for j in sub] + [i for i in order if good[i].get("kind") not in RANKED_KINDS]
    out = []
    for rank, i in enumerate(order, start=1):
        r = good[i]
        reasons = []
        if zf[i] is not None and zf[i] < -z_threshold:
            reasons.append("low_fraction")
        if zf[i] is not None and zf[i] > z_threshold:
            reasons.append("high_fraction")
        if zs[i] is not None and zs[i] > z_threshold:
            reasons.append("stalls")
        out.append(FleetRow(
            rank=rank, path=r["path"], label=r.get("label") or r["path"], node=r.get("node"),
            thread=r.get("thread"), samples=r.get("samples"), duration_s=r.get("duration_s"),
            sampling_hz=r.get("sampling_hz"), ftq_fraction=r.get("ftq_fraction"),
            stall_count=r.get("stall_count"), stall_share=r.get("stall_share"),
            longest_stall_s=r.get("longest_stall_s"), n_bands=r.get("n_bands"),
            band_levels=tuple(r["band_levels"]) if r.get("band_levels") is not None else None,
            band_shares=tuple(r["band_shares"]) if r.get("band_shares") is not None else None,
            degraded_share=r.get("degraded_share"), lines_hz=tuple(r.get("lines_hz") or ()),
            steps=int(r.get("steps") or 0), finding_kinds=tuple(r.get("finding_kinds") or ()),
            z_fraction=zf[i], z_stall=zs[i], outlier_reasons=tuple(reasons),
            profile=tuple(r.get("profile") or ()), profile_bin=r.get("profile_bin"),
            time_unit=r.get("time_unit") or "s", findings=tuple(r.get("findings") or ()),
            extra=_ranked_extra(r),
        ))
    fin = [v for v in frac if v is not None]
    sh = [v for v in share if v is not None]
    return FleetReport(tuple(out), errors, float(z_threshold), int(n_bins),
                       float(np.median(fin)) if fin else None, float(np.median(sh)) if sh else None, backend,
                       ranking="regressions" if ranked else "ftq_fraction")


_FTQ_ROW_KEYS = frozenset({"path", "label", "node", "thread", "cpu", "format", "error", "findings",
                           "finding_kinds"})


def _ranked_extra(r: Mapping[str, Any]) -> dict[str, Any]:
    """The history / runner part of a row (kept in FleetRow.extra)."""
    if r.get("kind") not in RANKED_KINDS:
        return {}
    return {k: v for k, v in r.items() if k not in _FTQ_ROW_KEYS}


# ----------------------------------------------------------------------------------------------
# Execution back ends
# ----------------------------------------------------------------------------------------------
def _mp_context():
    """Start method of the worker processes.

    ``fork`` when this process runs no other thread (the CLI): workers inherit the imported modules
    and the numba functions :func:`_warm_up` loaded, so a worker starts in milliseconds instead of
    re-importing bandkit, scipy and numba (~1-2 s each). With other threads alive (a notebook kernel,
    a Dask client) forking is unsafe, so ``forkserver`` (bandkit preloaded in the server) is used.
    """
    import multiprocessing as mp
    import threading

    methods = mp.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return mp.get_context("fork")
    if "forkserver" in methods:
        ctx = mp.get_context("forkserver")
        try:
            ctx.set_forkserver_preload(["bandkit.fleet", "bandkit.analyze", "bandkit.loaders.ftq"])
        except Exception:  # pragma: no cover
            pass
        return ctx
    return mp.get_context("spawn")  # pragma: no cover


def _warm_up(options, n_bins: int) -> None:
    """Run the whole per-trace pipeline once on a tiny synthetic trace (imports every section's
    modules, loads numba's cached machine code) so that forked workers start warm."""
    from .synthetic.ftq import generate_ftq
    from .trace import Trace, TraceMeta
    import pandas as pd

    g = generate_ftq(4000, stall_rate_hz=5.0, seed=0)
    df = pd.DataFrame({"time": g.time_ns * 1e-9, "value": g.count, "catchup": g.catchup})
    t = Trace(df, TraceMeta(path="<warm-up>", format="ftq", sampling_hz=g.freq_hz))
    try:
        summarize_path(t, options=options, n_bins=n_bins)
    except Exception:  # pragma: no cover - warming up is an optimisation only
        pass


def _all_tables(items) -> bool:
    return bool(items) and all(isinstance(x, str) and TABLE_NAME.search(x) for x in items)


def _warm_up_history(options) -> None:
    """Run the history pipeline once on a small generated table (imports what a history row needs,
    loads numba's cached code) so that forked workers start warm."""
    import io

    from .synthetic.history import generate_history

    buf = io.StringIO()
    generate_history(60, seed=0).to_csv(buf)
    src = io.BytesIO(buf.getvalue().encode())
    src.name = "<warm-up>.csv"
    try:
        from .loaders.registry import load_traces

        for t in load_traces(src):
            summarize_path(t, options=options)
    except Exception:  # pragma: no cover - warming up is an optimisation only
        pass


_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def _run_local(items, jobs: int, kwargs: dict, progress: Callable | None) -> list[list[dict]]:
    if jobs <= 1 or len(items) <= 1:
        it = progress(items) if progress else items
        return [summarize_path(x, **kwargs) for x in it]
    from concurrent.futures import ProcessPoolExecutor

    jobs = min(jobs, len(items))
    # small chunks: the last chunk of a worker is the idle tail of the other (8 chunks per worker
    # left up to 12 traces, ~0.5 s, on one worker at the end of a 200-trace fleet)
    chunksize = max(1, len(items) // (jobs * 64))
    # one thread per worker process: N processes x N BLAS/OpenMP threads would oversubscribe the cores
    saved = {k: os.environ.get(k) for k in _THREAD_VARS}
    for k in _THREAD_VARS:
        os.environ.setdefault(k, "1")
    try:
        ctx = _mp_context()
        if ctx.get_start_method() == "fork":
            if _all_tables(items):  # histories: warm only what they use (no FTQ analyses in the workers)
                _warm_up_history(kwargs.get("options"))
            else:
                _warm_up(kwargs.get("options"), kwargs.get("n_bins", DEFAULT_BINS))
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as ex:
            results = ex.map(_call_summarize, [(x, kwargs) for x in items], chunksize=chunksize)
            if progress:
                results = progress(_Sized(results, len(items)))
            return list(results)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _call_summarize(arg):
    item, kwargs = arg
    return summarize_path(item, **kwargs)


class _Sized:
    """An iterator that knows its length, so a progress bar can show the total."""

    def __init__(self, it, n: int):
        self._it, self._n = it, n

    def __iter__(self):
        return iter(self._it)

    def __len__(self) -> int:
        return self._n


def _run_dask(items, client, kwargs: dict, progress: Callable | None) -> list[list[dict]]:
    futures = client.map(summarize_path, list(items), pure=False, **kwargs)
    if progress:  # advance as results arrive on the cluster; gather keeps the input order
        from distributed import as_completed

        for _ in progress(_Sized(as_completed(futures), len(futures))):
            pass
    return client.gather(futures)


def rank_fleet(paths_or_traces: Iterable[Any], *, jobs: int = 1, client=None, scheduler: str | None = None,
               options=None, n_bins: int = DEFAULT_BINS, z_threshold: float = DEFAULT_Z,
               format: str | None = None, load_options: Mapping[str, Any] | None = None,
               progress: Callable | None = None) -> FleetReport:
    """Analyse every trace and rank the fleet (worst FTQ fraction first).

    ``paths_or_traces``: files, directories, glob patterns (expanded with :func:`expand_inputs`) or
    Trace objects. Back end: ``client`` (a ``dask.distributed.Client``) or ``scheduler`` (its address)
    run :func:`summarize_path` on a Dask cluster — the workers must see the same paths; otherwise
    ``jobs`` local processes (1: in this process). ``options``: :class:`~bandkit.AnalysisOptions`.
    """
    from .trace import Trace

    if jobs < 1:
        raise UsageError("jobs must be at least 1")
    if client is not None and scheduler is not None:
        raise UsageError("give either a Dask client or a scheduler address, not both")
    if not 0 < z_threshold < math.inf:
        raise UsageError("z_threshold must be positive")
    raw = list(paths_or_traces) if not isinstance(paths_or_traces, (str, os.PathLike, Trace)) else [paths_or_traces]
    items: list[Any] = []
    pending: list[str] = []
    for x in raw:
        if isinstance(x, Trace):
            if pending:
                items.extend(expand_inputs(pending))
                pending = []
            items.append(x)
        else:
            pending.append(os.fspath(x))
    if pending:
        items.extend(expand_inputs(pending))
    if not items:
        raise UsageError("no traces given")
    kwargs = {"options": options, "n_bins": int(n_bins), "format": format,
              "load_options": dict(load_options or {})}
    if scheduler is not None:
        try:
            from distributed import Client
        except ImportError:  # pragma: no cover
            raise UsageError("--dask-scheduler needs the 'distributed' package") from None
        try:
            c = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise UsageError(f"cannot connect to the Dask scheduler at {scheduler} ({exc})") from None
        with c:
            results, backend = _run_dask(items, c, kwargs, progress), "dask"
    elif client is not None:
        results, backend = _run_dask(items, client, kwargs, progress), "dask"
    else:
        results, backend = _run_local(items, jobs, kwargs, progress), "local"
    rows = [r for rs in results for r in rs]
    return build_report(rows, z_threshold=z_threshold, n_bins=n_bins, backend=backend)
