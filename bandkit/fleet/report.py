"""The ranked fleet: rows worst first, robust outlier flags, the heat-map matrix (no I/O, no drawing)."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from .._json import dumps, jsonable
from .._version import __version__
from ..display import DisplayMixin, render
from ..robust import modified_z
from .history import RANKED_KINDS
from .inputs import natural_key
from .rows import DEFAULT_BINS

#: Version of the fleet JSON document (``kind: "fleet"``).
FLEET_SCHEMA_VERSION = 1
#: Modified z-score beyond which a trace is an outlier.
DEFAULT_Z = 3.5


def common_prefix(report) -> str:
    """Directory prefix shared by every trace path (left out of tables' and plots' trace names)."""
    paths = [r.path for r in report.rows]
    if len(paths) < 2:
        return os.path.dirname(paths[0]) + os.sep if paths and os.path.dirname(paths[0]) else ""
    try:
        c = os.path.commonpath(paths)
    except ValueError:
        return ""
    if c in paths:
        c = os.path.dirname(c)
    return c + os.sep if c else ""


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
class FleetReport(DisplayMixin):
    """The ranked fleet: ``rows`` worst first (lowest FTQ fraction), ``errors`` (path, message) of
    inputs that could not be analysed, and the fleet statistics the outlier flags come from."""

    rows: tuple[FleetRow, ...]
    errors: tuple[tuple[str, str], ...]
    z_threshold: float
    n_bins: int
    median_ftq_fraction: float | None
    median_stall_share: float | None
    backend: str = "local"
    #: "ftq_fraction" (FTQ fleets) or "regressions" (histories / runner results first, see bandkit.fleet.history)
    ranking: str = "ftq_fraction"

    @property
    def outliers(self) -> tuple[FleetRow, ...]:
        return tuple(r for r in self.rows if r.outlier)

    def profile_matrix(self, order: str = "rank") -> tuple[np.ndarray, np.ndarray, list[FleetRow]]:
        """(matrix traces x bins on a common time grid, bin edges in seconds (or fraction of the trace
        when durations are unknown), rows in matrix order). Cells past a trace's end are NaN."""
        rows = list(self.rows) if order == "rank" else sorted(self.rows, key=lambda r: natural_key(r.path))
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
        from .history import flagged

        ex = [r.extra for r in self.rows if r.extra]
        return {"n_open_regressions": sum(len(e.get("open_regressions") or []) for e in ex),
                "n_with_open_regressions": sum(1 for e in ex if e.get("open_regressions")),
                "n_episodes": sum(len(e.get("episodes") or []) for e in ex),
                "flagged": [r.label for r in self.rows if r.extra and flagged(r.extra)]}

    def to_json(self, profiles: bool = True) -> str:
        return dumps(self.to_dict(profiles=profiles))

    def common_prefix(self) -> str:
        """Directory prefix shared by every trace path (see :func:`common_prefix`)."""
        return common_prefix(self)

    def to_text(self, width: int = 100, limit: int | None = None) -> str:
        return render(self, "text", width=width, limit=limit)

    def to_html(self) -> str:
        return render(self, "html")

    def plot(self, ax=None, **kwargs):
        """The heat-map (:func:`bandkit.plots.fleet.plot_fleet_heatmap`); returns the Axes."""
        return render(self, "plot", ax=ax, **kwargs)


def build_report(rows: Sequence[Mapping[str, Any]], z_threshold: float = DEFAULT_Z, n_bins: int = DEFAULT_BINS,
                 backend: str = "local") -> FleetReport:
    """Rank per-trace rows (from :func:`summarize_path`) and flag outliers."""
    good = [r for r in rows if not r.get("error")]
    errors = tuple((str(r.get("path")), str(r["error"])) for r in rows if r.get("error"))
    frac = [r.get("ftq_fraction") for r in good]
    share = [r.get("stall_share") for r in good]
    zf = modified_z(frac)
    zs = modified_z(share)
    order = sorted(range(len(good)), key=lambda i: (
        math.inf if frac[i] is None else frac[i], -(share[i] or 0.0), natural_key(good[i]["path"]),
        good[i].get("thread") or 0))
    ranked = [i for i in order if good[i].get("kind") in RANKED_KINDS]
    if ranked:  # histories / runner results first, by what matters to them (bandkit.fleet.history)
        from .history import order_rows

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
