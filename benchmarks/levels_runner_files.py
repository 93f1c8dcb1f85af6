"""Verdicts, band shares, steps, episodes and outliers of every per-run trace in a folder of runner
files (default: the project's shared runner data), as JSON lines - to list what a classifier change
does to real files (issue 12, "levels").

    python3 benchmarks/levels_runner_files.py [DIR] > after.jsonl
    (cd OLD_CHECKOUT && PYTHONPATH=. python3 /path/to/benchmarks/levels_runner_files.py DIR) > before.jsonl
    python3 benchmarks/levels_runner_files.py --diff before.jsonl after.jsonl
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def scan(base: Path) -> None:
    import bandkit
    from bandkit.errors import InputError

    for p in sorted(q for q in base.rglob("*") if q.is_file() and q.name != "SOURCES.md"):
        try:
            ts = bandkit.load(p)
        except InputError:
            continue
        for t in ts if isinstance(ts, list) else [ts]:
            if t.meta.extra.get("summary_only"):
                continue
            try:
                d = bandkit.analyze(t).to_dict()["traces"][0]
            except Exception as exc:  # noqa: BLE001 - a row either way
                print(json.dumps({"file": str(p.relative_to(base)), "name": t.meta.name, "error": repr(exc)}))
                continue
            print(json.dumps({"file": str(p.relative_to(base)), "name": d.get("name"), "runs": d.get("runs"),
                              "verdict": d.get("verdict"),
                              "bands": [[round(b["level"], 6), b.get("share"), b.get("n_runs")] for b in d.get("bands") or []],
                              "steps": [s.get("run") for s in d.get("steps") or []],
                              "episodes": [[e.get("start_run"), e.get("end_run")] for e in d.get("episodes") or []],
                              "outliers": len(d.get("outlier_runs") or [])}), flush=True)


def diff(a: str, b: str) -> None:
    def rows(f):
        return {(r["file"], r["name"]): r for r in map(json.loads, open(f))}
    ra, rb = rows(a), rows(b)
    same = 0
    for k in ra:
        x, y = ra[k], rb.get(k)
        if y is None:
            print("missing after:", k)
        elif x == y:
            same += 1
        else:
            print(f"{k[0]} :: {k[1]} ({x.get('runs')} runs)")
            for f in ("verdict", "bands", "steps", "episodes", "outliers"):
                if x.get(f) != y.get(f):
                    print(f"    {f}: {x.get(f)} -> {y.get(f)}")
    print(f"{same} of {len(ra)} traces unchanged")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--diff":
        diff(sys.argv[2], sys.argv[3])
    else:
        here = Path(__file__).resolve().parent
        scan(Path(sys.argv[1]) if len(sys.argv) > 1 else here.parent.parent / "shared" / "data" / "runners")
