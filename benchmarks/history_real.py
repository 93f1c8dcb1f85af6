"""The history analysis on real CI histories (default: the 100 SAP HANA histories of the shared data):
one line per history (builds, noise, open regressions, episodes, latest vs best) and the counts.

    python benchmarks/history_real.py [DIR_OR_FILES ...]
"""
from __future__ import annotations

import sys
from pathlib import Path

import bandkit
from bandkit.history import analyse_trace

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "ci-history" / "sap-hana-large-2022" / "data"


def main(argv=None) -> None:
    args = (argv if argv is not None else sys.argv[1:]) or [str(DEFAULT)]
    files = []
    for a in args:
        p = Path(a)
        files += sorted(p.glob("*.csv*")) if p.is_dir() else [p]
    n_open = n_ep = n_imp = n_stable = n_drift = 0
    print("| history | builds | noise | open regressions | episodes | improvements | latest vs best |")
    print("|---|---|---|---|---|---|---|")
    for f in files:
        r = analyse_trace(bandkit.load(f))
        opn = r.open_regressions
        imps = [c for c in r.improvements if c.reverts is None and c.fixed_at is None]
        n_open += bool(opn)
        n_ep += bool(r.episodes)
        n_imp += bool(imps)
        n_drift += bool(r.drifts)
        n_stable += not (r.regressions or r.improvements or r.drifts)
        print(f"| {f.name.split('__')[0]} | {r.builds} | {100 * r.eras[-1].cv:.2g} % | "
              + (", ".join(f"×{c.ratio:.3g} at {c.build}" for c in opn) or "–") + " | "
              + (", ".join(f"{e.kind[:4]}. ×{e.ratio:.3g} {e.start_build}–{e.end_build}" for e in r.episodes[:3])
                 + (" …" if len(r.episodes) > 3 else "") or "–")
              + f" | {len(imps) or '–'} | ×{r.latest.vs_best_ratio:.3g} |")
    print(f"\n{len(files)} histories: {n_open} with open regressions, {n_ep} with episodes, {n_imp} with lasting "
          f"improvements, {n_drift} with drifts, {n_stable} without any change.")


if __name__ == "__main__":
    main()
