"""CPU seconds of bandkit's stages on a result file of many one-value (summary-only) benchmarks (issue 14:
the fuzz run's asv:36270 / asv:48827 "hangs"). Results in RESULTS_fuzz.md.

Each measurement runs in a fresh interpreter (``--python``, several to compare installations side by
side; they alternate, ``--repeat`` rounds) and prints load / analyse / JSON / text CPU seconds and
the CLI's cost (load + analyse + one renderer, the slower of JSON and text), with the
``max_benchmarks`` limit lifted. Inputs: generated asv v1
files of ``--n`` one-value benchmarks (seeded), or ``--file`` paths (e.g. a fuzz mutant kept with
``fuzz.py --replay FMT:INDEX --keep DIR``)::

    python benchmarks/many_benchmarks.py --n 5000 20000 60000 --python /old/bin/python /new/bin/python
    python benchmarks/many_benchmarks.py --file /tmp/m/pvlib-py3.8.json --repeat 3
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

_CHILD = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
import bandkit
from bandkit import analyze
from bandkit.loaders.registry import load_traces
try:  # (the cost is what is measured: no max_benchmarks refusal; older installations have no such limit)
    limits = bandkit.Limits(max_benchmarks=10 ** 9)
except TypeError:
    limits = None
c = time.process_time(); tr = load_traces(sys.argv[1], limits=limits); c1 = time.process_time()
rep = analyze(tr); c2 = time.process_time()
rep.to_json(); c3 = time.process_time()
rep.to_text(color=False); c4 = time.process_time()
print(json.dumps({"n": len(tr), "load": c1 - c, "analyse": c2 - c1, "json": c3 - c2, "text": c4 - c3,
                  "bandkit": bandkit.__file__}))
"""


def asv_file(n: int, path: Path, seed: int = 1) -> Path:
    """An asv v1 result file: one benchmark with ``n`` parameter values, each one result with stats
    for one in ten (the shape of the fuzz mutants: a parameter list expanded into one-value benchmarks)."""
    rng = random.Random(seed)
    result = [10 ** rng.uniform(-6, 0) for _ in range(n)]
    stats = [{"mean": r, "std": r / 20, "min": r * 0.9, "max": r * 1.2, "repeat": 10, "number": 5}
             if i % 10 == 0 else None for i, r in enumerate(result)]
    doc = {"version": 1, "commit_hash": "0" * 40, "env_name": "conda-py3.8", "python": "3.8",
           "date": 1600000000000, "params": {"machine": "m", "arch": "x86_64", "cpu": "c", "os": "Linux"},
           "results": {"bench.Suite.time_f": {"result": result, "stats": stats,
                                              "params": [[str(i) for i in range(n)]]}}}
    path.write_text(json.dumps(doc))
    return path


def measure(python: str, path: Path) -> dict:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([python, "-c", _CHILD, str(path)], capture_output=True, text=True, env=env,
                         cwd=tempfile.gettempdir(), check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    r["cli"] = r["load"] + r["analyse"] + max(r["json"], r["text"])
    r["all"] = r["load"] + r["analyse"] + r["json"] + r["text"]
    return r


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="*", default=[], help="generated asv files of N one-value benchmarks")
    ap.add_argument("--file", nargs="*", default=[], help="existing result files")
    ap.add_argument("--python", nargs="*", default=[sys.executable])
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bandkit-many-"))
    inputs = [asv_file(n, tmp / f"asv_{n}.json") for n in args.n] + [Path(f) for f in args.file]
    print(f"load average {os.getloadavg()[0]:.1f}")
    print("| input | benchmarks | python | load | analyse | JSON | text | CLI (load+analyse+slower renderer) | all four |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for path in inputs:
        for _ in range(args.repeat):
            for py in args.python:
                r = measure(py, path)
                print(f"| {path.name} | {r['n']:,} | {py} | {r['load']:.2f} | {r['analyse']:.2f} | {r['json']:.2f} | "
                      f"{r['text']:.2f} | {r['cli']:.2f} | {r['all']:.2f} |", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
