"""Render every bundled input in data/ (alone, plus the two-rate and multi-file pairs) to JSON and text
with one bandkit installation, so that a refactor can be checked byte for byte:

    python benchmarks/report_snapshot.py /tmp/before --python /path/to/old-venv/bin/python
    python benchmarks/report_snapshot.py /tmp/after  --python /path/to/new-venv/bin/python
    diff -r /tmp/before /tmp/after
    python benchmarks/report_snapshot.py /tmp/after --compare /tmp/before   # numbers: largest relative change

The interpreter runs in OUTDIR (not in a checkout: ``python -m`` would import the package of the
current directory), so it uses its own installation (or PYTHONPATH). Each case writes ``NAME.json``, ``NAME.txt`` and ``NAME.status`` (exit code and stderr of the CLI).
Also analyses the TCPD Nile series (kind ``series``) through the library, and each FTQ trace with
``AnalysisOptions(skip=...)`` of every section name.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"

SERIES_SNIPPET = r"""
import json, sys
import numpy as np, pandas as pd
import bandkit
d = json.load(open(sys.argv[1]))
v = np.asarray([s["raw"] for s in d["series"]][0], dtype=float)
t = bandkit.Trace(pd.DataFrame({"value": v, "time": np.arange(v.size, dtype=float)}),
                  bandkit.TraceMeta(path="nile", format="tcpd", kind="series", value_unit="volume", sampling_hz=1.0))
sys.stdout.write(bandkit.analyze(t).to_json())
"""

SKIP_SNIPPET = r"""
import sys
import bandkit
from bandkit.analyze import AnalysisOptions
skip = frozenset(sys.argv[2].split(","))
rep = bandkit.analyze(bandkit.load_many([sys.argv[1]]), AnalysisOptions(skip=skip))
sys.stdout.write(",".join(s.name for s in rep.traces[0].sections) + "\n")
"""


def cases() -> list[tuple[str, list[str]]]:
    out = []
    for p in sorted(DATA.rglob("*")):
        rel = p.relative_to(DATA)
        if p.is_dir() and (p / "times.dat").exists():
            out.append((str(rel), [str(p / "times.dat")]))
            out.append((str(rel) + "@clock", [str(p / "times.dat"), "--clock-hz", "2.6e9"]))
        elif p.is_file() and p.name not in ("README.md", "times.dat", "counts.dat") and "interferer_log" not in p.name:
            out.append((str(rel), [str(p)]))
    ftq = DATA / "ftq"
    out.append(("pair-intf", [str(ftq / "ftq_f10000_intf100Hz_1ms_0.dat.gz"), str(ftq / "ftq_f7777_intf100Hz_1ms_0.dat.gz")]))
    out.append(("pair-quiet", [str(ftq / "ftq_f10000_quiet_0.dat.gz"), str(ftq / "ftq_f7777_quiet_0.dat.gz")]))
    out.append(("four-ftq", [str(p) for p in sorted(ftq.glob("*.dat.gz"))]))
    runners = DATA / "runners"
    out.append(("runners-pyperf", [str(runners / "speedpython_2017-01-13_19-18-default-3486425ed82b.json.gz"),
                                   str(runners / "pyperf-tests_telco.json.gz")]))
    return out


def _walk(a, b, path, out):
    """Differences of two parsed JSON documents: (path, a, b, relative difference or None)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            out.append((path, sorted(a), sorted(b), None))
        for k in a:
            if k in b:
                _walk(a[k], b[k], f"{path}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append((path, f"{len(a)} items", f"{len(b)} items", None))
        for i, (x, y) in enumerate(zip(a, b)):
            _walk(x, y, f"{path}[{i}]", out)
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) \
            and not isinstance(b, bool) and type(a) is type(b):
        if a != b:
            out.append((path, a, b, abs(a - b) / max(abs(a), abs(b))))
    elif a != b:
        out.append((path, a, b, None))


def compare(before: Path, after: Path) -> int:
    """Numeric diff of two snapshots: per JSON file, the largest relative change of a number, and every
    change of structure, string, integer count or type. Returns 1 when anything but numbers differs."""
    other = 0
    for fa in sorted(before.glob("*.json")):
        fb = after / fa.name
        if fa.read_bytes() == fb.read_bytes():
            continue
        try:
            da, db = json.loads(fa.read_text()), json.loads(fb.read_text())
        except ValueError:
            print(f"{fa.name}: not JSON on one side")
            other += 1
            continue
        diffs = []
        _walk(da, db, "", diffs)
        num = [d for d in diffs if d[3] is not None and isinstance(d[1], float)]
        rest = [d for d in diffs if d not in num]
        worst = max(num, key=lambda d: d[3]) if num else None
        print(f"{fa.name}: {len(num)} numbers differ" + (f", largest relative {worst[3]:.2e} at {worst[0]}"
                                                          if worst else "") + (f"; {len(rest)} other" if rest else ""))
        for d in rest[:10]:
            print(f"    {d[0]}: {d[1]!r} -> {d[2]!r}")
        other += bool(rest)
    return 1 if other else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--python", default=sys.executable, help="interpreter of the bandkit installation to snapshot")
    ap.add_argument("--compare", type=Path, metavar="BEFORE",
                    help="do not render: compare the snapshot OUTDIR with the snapshot BEFORE, number by number")
    args = ap.parse_args(argv)
    if args.compare:
        return compare(args.compare, args.outdir)
    args.outdir.mkdir(parents=True, exist_ok=True)
    for name, cli_args in cases():
        stem = args.outdir / name.replace("/", "__")
        for fmt in ("json", "text"):
            r = subprocess.run([args.python, "-m", "bandkit.cli", "report", "--quiet", "--format", fmt, *cli_args],
                               capture_output=True, text=True, cwd=args.outdir)
            stem.with_suffix(".json" if fmt == "json" else ".txt").write_text(r.stdout)
            if fmt == "json":
                stem.with_suffix(".status").write_text(f"exit {r.returncode}\n{r.stderr}")
        print(name, flush=True)
    r = subprocess.run([args.python, "-c", SERIES_SNIPPET, str(DATA / "tcpd" / "nile.json")],
                       capture_output=True, text=True, cwd=args.outdir)
    (args.outdir / "series-nile.json").write_text(r.stdout + r.stderr)
    quiet = str(DATA / "ftq" / "ftq_f10000_quiet_0.dat.gz")
    lines = []
    for skip in ("summary", "bands", "spectrum", "changepoints"):
        r = subprocess.run([args.python, "-c", SKIP_SNIPPET, quiet, skip], capture_output=True, text=True, cwd=args.outdir)
        lines.append(f"skip={skip}: {r.stdout.strip() or r.stderr.strip().splitlines()[-1]}")
    (args.outdir / "skip.txt").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
