"""Fleet heat-map: traces (rows) x time (columns), colour = work fraction per time bin."""
from __future__ import annotations

import numpy as np


def plot_fleet_heatmap(report, ax=None, order: str = "rank", max_rows: int | None = 400,
                       cmap: str = "viridis", vmin: float | None = None, vmax: float | None = None,
                       label_rows: int = 60):
    """Heat-map of each trace's work fraction per time bin (sum of counts / (trace max x quanta)).

    The colour scale runs from ``vmin`` (default: the 1st percentile of the cells, so that one dead
    bin does not wash out the rest) to ``vmax`` (default: 1, or the largest cell when one is above 1).
    Cells outside the scale are never clipped silently: the colour bar gets a pointed end on that side
    and its label says how many cells lie beyond.

    ``report``: a :class:`bandkit.fleet.FleetReport`. ``order``: "rank" (worst FTQ fraction on top) or
    "path" (natural file order: shows rack / node-number patterns). Outliers get a red label and a
    red mark left of their row. ``max_rows``: at most this many rows (the worst ones in rank order;
    the title says how many are shown). Time past a trace's end is grey. Returns the Axes.
    """
    import matplotlib as mpl

    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(layout="constrained", figsize=(10, min(2 + 0.12 * min(len(report.rows), max_rows or 10**9), 12)))
    mat, edges, rows = report.profile_matrix(order=order)
    total = len(rows)
    if max_rows is not None and len(rows) > max_rows:
        if order == "rank":
            keep = list(range(max_rows))
        else:
            worst = {id(r) for r in sorted(rows, key=lambda r: r.rank)[:max_rows]}
            keep = [i for i, r in enumerate(rows) if id(r) in worst]
        mat, rows = mat[keep], [rows[i] for i in keep]
    if not rows:
        ax.set_title("fleet: no traces")
        return ax
    finite = mat[np.isfinite(mat)]
    if vmax is None:
        vmax = max(1.0, float(finite.max())) if finite.size else 1.0
    if vmin is None:
        vmin = float(np.nanpercentile(finite, 1)) if finite.size else 0.0
        vmin = min(vmin, vmax - 1e-3)
    below, above = int(np.sum(finite < vmin)), int(np.sum(finite > vmax))
    extend = {(False, False): "neither", (True, False): "min", (False, True): "max", (True, True): "both"}[
        (below > 0, above > 0)]
    cm = mpl.colormaps[cmap].with_extremes(bad="#d0d0d0")
    mesh = ax.pcolormesh(edges, np.arange(len(rows) + 1), np.ma.masked_invalid(mat), cmap=cm,
                         vmin=vmin, vmax=vmax, shading="flat", rasterized=True)
    ax.set_ylim(len(rows), 0)
    in_s = bool(rows) and all(r.profile_bin and r.time_unit == "s" for r in rows)
    ax.set_xlabel("time (s)" if in_s else "time (fraction of the trace)")
    if len(rows) <= label_rows:
        ax.set_yticks(np.arange(len(rows)) + 0.5)
        prefix = report.common_prefix()
        labels = [_short(r.label[len(prefix):] if prefix and r.label.startswith(prefix) else r.label) for r in rows]
        ax.set_yticklabels(labels, fontsize=7 if len(rows) > 25 else 8)
        for tick, r in zip(ax.get_yticklabels(), rows):
            if r.outlier:
                tick.set_color("#c62828")
                tick.set_fontweight("bold")
    else:
        ax.set_ylabel(f"trace ({'rank' if order == 'rank' else 'file order'})")
    out_rows = [i for i, r in enumerate(rows) if r.outlier]
    if out_rows:
        x0 = edges[0] - 0.012 * (edges[-1] - edges[0])
        ax.scatter(np.full(len(out_rows), x0), np.array(out_rows) + 0.5, marker=">", color="#c62828",
                   s=18, clip_on=False, zorder=3)
    shown = f"{len(rows)} of {total} traces" if len(rows) < total else f"{total} traces"
    ax.set_title(f"Work fraction per time bin ({shown}, {'worst first' if order == 'rank' else 'file order'}"
                 f"{'; outliers in red' if out_rows else ''})")
    beyond = [f"{below:,} cells below {vmin:.3g}" if below else "", f"{above:,} above {vmax:.3g}" if above else ""]
    beyond = ", ".join(b for b in beyond if b)
    ax.figure.colorbar(mesh, ax=ax, pad=0.01, extend=extend,
                       label="work fraction (count / trace max)" + (f"\n({beyond}: end colours)" if beyond else ""))
    return ax


def _short(label: str, n: int = 28) -> str:
    if len(label) <= n:
        return label
    head = (n - 1) // 2
    return label[:head] + "…" + label[-(n - 1 - head):]
