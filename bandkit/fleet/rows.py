"""The per-trace work of a fleet (runs in the workers): load, analyse as ``bandkit report`` does, and
reduce the trace report to one small JSON-ready row (no samples travel back)."""
from __future__ import annotations

import os
from typing import Any, Mapping

import numpy as np

from .._json import jsonable
from ..errors import BandkitError
from ..findings import fail_on_kinds
from .history import RANKED_KINDS

#: Columns (time bins) of each trace's work-fraction profile.
DEFAULT_BINS = 200
#: Finding kinds a row counts as steps, and those that carry a spectral line (``freq_hz`` / ``alias_hz``);
#: the band row fields come from ``band_levels`` findings (all registered in :mod:`bandkit.findings`).
STEP_KINDS = fail_on_kinds(["step"])
LINE_KINDS = ("spectral_line", "periodic_interference")
BANDS_KIND = "band_levels"


def work_profile(trace, n_bins: int = DEFAULT_BINS) -> tuple[list[float], float | None]:
    """Work fraction per time bin: counts summed over the bin / (trace's max count x quanta in the bin).

    Each bin holds whole quanta and is normalised by the quanta it holds: with the time in seconds,
    the grid slots of the sampling period (a bin swallowed by a stall gets 0, whatever the catch-up
    rows' timestamps); else the rows (each FTQ row stands for one grid quantum). So a steady trace is
    flat even when a bin is only a few quanta wide (5 or 6 quanta of a coarse two-file trace are not
    5.48). The trace's FTQ fraction is the mean over bins, weighted by quanta. Returns (values, mean
    bin width in the trace's time unit or None); bins without rows in a row-counted profile are None.
    """
    data = trace.data
    n = len(data)
    if n == 0:
        return [], None
    count = data["value"].to_numpy(dtype=np.float64)
    time = data["time"].to_numpy(dtype=np.float64)
    m = float(np.max(count))
    period = trace.period if trace.meta.time_unit == "s" else None
    width = None
    if np.isfinite(time).all() and time[-1] > time[0] and period:
        # grid slot of each row; the profile's bins are made of whole slots
        slot = np.floor((time - time[0]) / period + 0.5).astype(np.int64)
        n_slots = int(slot[-1]) + 1
        n_bins = int(max(1, min(n_bins, n_slots)))
        idx = (slot * n_bins) // n_slots
        quanta = np.bincount((np.arange(n_slots) * n_bins) // n_slots, minlength=n_bins).astype(np.float64)
        width = n_slots * period / n_bins
    else:
        n_bins = int(max(1, min(n_bins, n)))
        if not np.isfinite(time).all() or time[-1] <= time[0]:
            idx = (np.arange(n) * n_bins) // n
        else:
            span = float(time[-1] - time[0])
            width = span / n_bins
            idx = np.minimum(((time - time[0]) / width).astype(np.int64), n_bins - 1)
        quanta = np.bincount(idx, minlength=n_bins).astype(np.float64)
    sums = np.bincount(idx, weights=count, minlength=n_bins)
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


def row_from_report(tr, n_bins: int) -> dict[str, Any]:
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
    bands = next((x for x in findings if x.get("kind") == BANDS_KIND), None)
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
    lines = [x for x in findings if x.get("kind") in LINE_KINDS]
    # the most powerful first (largest line amplitude), then by SNR
    lines.sort(key=lambda x: (-(x.get("amplitude") or 0.0), -(x.get("snr_db") or 0.0)))
    row["lines_hz"] = [x.get("freq_hz", x.get("alias_hz")) for x in lines][:8]
    row["steps"] = sum(1 for x in findings if x.get("kind") in STEP_KINDS)
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
    from ..analyze import analyze_trace
    from ..loaders.registry import load_traces
    from ..section import AnalysisOptions
    from ..trace import Trace

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
            rows.append(row_from_report(analyze_trace(t, i, options), n_bins))
        except BandkitError as exc:
            rows.append({"path": t.path, "label": t.label, "error": str(exc)})
        except Exception as exc:  # a bug in one analysis must not lose the other 999 nodes: report it
            rows.append({"path": t.path, "label": t.label,
                         "error": f"{t.label}: internal error in the analysis ({type(exc).__name__}: {exc}); "
                                  "please report it"})
    return rows


def _ranked_row(tr, options) -> dict[str, Any]:
    """Row of a history or runner trace (:mod:`bandkit.fleet.history`)."""
    from .history import history_row, runner_row

    since = (options.for_section("history") if options is not None else {}).get("since")
    return history_row(tr, since) if tr.trace.kind == "history" else runner_row(tr, since)
