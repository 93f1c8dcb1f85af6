"""By-eye check of bandkit's verdicts on real CI histories (``../shared/data/ci-history/``).

    python3 benchmarks/ci_history_byeye.py verdicts DATA_DIR out.json      # bandkit on every history
    python3 benchmarks/ci_history_byeye.py plots DATA_DIR PNG_DIR [a.json [b.json]]

``verdicts`` loads each ``*.csv.gz`` with ``bandkit.load`` (a history trace, one measurement per
row) and records the report's headline finding (the history section's) and the post-mortem's
verdict on the same values (kind, the text renderer's phrase, the numbers). Run it with ``PYTHONPATH=OTHER_CHECKOUT`` to record another version's verdicts.
``plots`` draws each history (the post-mortem's run means: one per build, in build order; log scale when the values span more
than a factor 3) on contact sheets of 8, titled with the verdicts of the given JSON files, marking
the post-mortem's steps (red lines), episodes (orange) and band levels (blue dashes) of the last one, and
the history section's era levels (green steps), episodes/drifts (green bar at the top) and smaller
significant changes (green dots).
The data set is SAP's "Performance Regression Data Set (Large)", CC-BY-4.0, © SAP SE (Thomas Bach
et al.); see ../shared/data/ci-history/SOURCES.md.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

ATTRIBUTION = ("Data: SAP Performance Regression Data Set (Large), © SAP SE, CC-BY-4.0 "
               "(github.com/SAP/performance-regression-data-set)")


def verdicts(data_dir: Path, out: Path) -> None:
    """Per history: the report's headline finding (the history section reads these files since it
    landed) and the post-mortem's verdict on the same values (one run per row)."""
    import bandkit
    from bandkit.errors import BandkitError
    from bandkit.postmortem import postmortem
    from bandkit.postmortem.section import _finding
    from bandkit.render.text import phrase

    rows = []
    t_all = time.process_time()
    for p in sorted(data_dir.glob("*.csv.gz")):
        t = time.process_time()
        try:
            trace = bandkit.load(p)
        except BandkitError as exc:
            rows.append({"file": p.name, "error": str(exc)})
            continue
        rep = bandkit.analyze(trace)
        head = next((f for f in rep.findings if f.get("trace") == 0), None)
        hist = rep.traces[0].result("history")  # the HistoryResult behind the headline
        pm = postmortem(trace)
        f = _finding(pm)
        rows.append({"file": p.name, "runs": pm.n_runs, "headline_kind": head and head["kind"],
                     "headline": phrase(head) if head else "", "verdict": pm.verdict, "kind": f["kind"],
                     "phrase": phrase(f),
                     "steps": [s.run for s in pm.steps],
                     "episodes": [[e.start_run, e.end_run] for e in pm.episodes],
                     "levels": [b.level for b in pm.bands],
                     "outlier_runs": len(pm.outlier_runs),
                     "suspects": [s.metadata for s in pm.suspects],
                     # what the history section drew its headline from (build positions, 0-based)
                     "history": {"eras": [[e.start_index, e.level] for e in hist.eras],
                                 "changes": [c.index for c in (*hist.regressions, *hist.improvements)],
                                 "episodes": [[e.start_index, e.end_index] for e in hist.episodes],
                                 "drifts": [[d.start_index, d.end_index] for d in hist.drifts],
                                 "small": [int(np.searchsorted(hist.build_ids, c["build"]))
                                           for c in hist.small_changes]},
                     "cpu_s": round(time.process_time() - t, 2)})
        print(f"{p.name}: [{rows[-1]['headline']}] {rows[-1]['phrase']}", flush=True)
    out.write_text(json.dumps({"bandkit": bandkit.__file__, "cpu_s": time.process_time() - t_all,
                               "rows": rows}, indent=1))


def plots(data_dir: Path, png_dir: Path, jsons: list[Path]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import bandkit
    from bandkit.postmortem.runs import run_table

    runs = [{r["file"]: r for r in json.loads(j.read_text())["rows"]} for j in jsons]
    png_dir.mkdir(parents=True, exist_ok=True)
    files = sorted(data_dir.glob("*.csv.gz"))
    per = 8
    for sheet in range(0, len(files), per):
        fig, axes = plt.subplots(per // 2, 2, figsize=(16, 2.6 * per // 2), squeeze=False)
        for ax, p in zip(axes.ravel(), files[sheet:sheet + per]):
            v = run_table(bandkit.load(p)).means  # what the post-mortem sees: one mean per run (build)
            x = np.arange(1, len(v) + 1)
            ax.plot(x, v, ".", ms=1.5, color="k", alpha=0.6)
            if len(v) and np.nanmin(v) > 0 and np.nanmax(v) / np.nanmin(v) > 3:
                ax.set_yscale("log")
            title = [f"{p.name}  (n={len(v)})"]
            for k, r in enumerate(runs):
                row = r.get(p.name, {})
                title.append(f"[{'ABCD'[k]}] " + (row.get("phrase") or row.get("error") or "–")[:110])
                if row.get("headline"):
                    title.append(f"    report: {row['headline'][:100]}")
            if runs:
                row = runs[-1].get(p.name, {})
                for s in row.get("steps", []):
                    ax.axvline(s - 0.5, color="tab:red", lw=1)
                for a, b in row.get("episodes", []):
                    ax.axvspan(a - 0.5, b + 0.5, color="tab:orange", alpha=0.25)
                for lv in row.get("levels", []) if row.get("verdict") in ("bimodal", "bands") else []:
                    ax.axhline(lv, color="tab:blue", lw=0.8, ls="--")
                h = row.get("history") or {}
                eras = h.get("eras") or []
                if eras:  # the history section's era levels (green steps), its episodes and drifts (green bands)
                    xs = [e[0] + 0.5 for e in eras] + [len(v) + 0.5]
                    ax.stairs([e[1] for e in eras], xs, baseline=None, color="tab:green", lw=1.2)
                for a, b in h.get("episodes", []) + h.get("drifts", []):
                    ax.axvspan(a + 0.5, b + 0.5, ymin=0.92, ymax=1.0, color="tab:green", alpha=0.5)
                for c in h.get("small", []):
                    ax.axvline(c + 0.5, color="tab:green", lw=0.8, ls=":")
            ax.set_title("\n".join(title), fontsize=7, loc="left")
            ax.tick_params(labelsize=6)
        for ax in axes.ravel()[len(files[sheet:sheet + per]):]:
            ax.axis("off")
        fig.text(0.01, 0.002, ATTRIBUTION, fontsize=6)
        fig.tight_layout()
        fig.savefig(png_dir / f"sheet{sheet // per + 1:02d}.png", dpi=90)
        plt.close(fig)


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[0] == "verdicts":
        verdicts(Path(argv[1]), Path(argv[2]))
        return 0
    if len(argv) >= 3 and argv[0] == "plots":
        plots(Path(argv[1]), Path(argv[2]), [Path(a) for a in argv[3:]])
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
