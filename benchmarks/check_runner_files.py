"""Load every file of the project's shared runner data (../shared/data/runners) and print one line
per file: format, traces, per-run data or why not. Used for benchmarks/RESULTS_runners.md.

Run from the repository root:  python3 benchmarks/check_runner_files.py [DIR]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bandkit  # noqa: E402
from bandkit.errors import InputError  # noqa: E402
from bandkit.loaders import detect_format  # noqa: E402
from bandkit.loaders.source import Source  # noqa: E402


def main(argv):
    base = Path(argv[1]) if len(argv) > 1 else ROOT.parent / "shared" / "data" / "runners"
    files = sorted(p for p in base.rglob("*") if p.is_file() and p.name != "SOURCES.md")
    print("| file | format | traces | with per-run data | runs (min–max) | load s | note |")
    print("|---|---|---|---|---|---|---|")
    for p in files:
        rel = p.relative_to(base)
        try:
            fmt = detect_format(Source.open(p))
            t0 = time.perf_counter()
            ts = bandkit.load(p)
            dt = time.perf_counter() - t0
        except InputError as exc:
            print(f"| {rel} | {fmt} | – | – | – | – | refused: {exc.message} |")
            continue
        ts = ts if isinstance(ts, list) else [ts]
        per_run = [t for t in ts if not t.meta.extra.get("summary_only")]
        runs = [int(t.data["run"].nunique()) for t in per_run]
        note = ""
        if len(per_run) < len(ts):
            reasons = {t.meta.extra.get("no_runs_reason") for t in ts if t.meta.extra.get("summary_only")}
            note = "summary only: " + "; ".join(sorted(r for r in reasons if r))
        rr = f"{min(runs)}–{max(runs)}" if runs else "–"
        print(f"| {rel} | {fmt} | {len(ts)} | {len(per_run)} | {rr} | {dt:.2f} | {note} |")


if __name__ == "__main__":
    main(sys.argv)
