"""Where the CPU time of ``bandkit report A`` and ``bandkit compare A B`` goes, phase by phase, in fresh
processes (``time.process_time``; the phases the CLI runs, in its order; one process per command, compare's
loads inside ``metadata_on_read`` as ``compare_files`` does where the tree has it), one or two source trees
alternating:

    python benchmarks/runner_phases.py A.json.gz B.json.gz --rounds 3 [--tree DIR ...]

Each ``--tree DIR`` is a checkout (``git archive REV | tar -x -C DIR``; byte-compile it first, as an install
would be) put first on ``PYTHONPATH``; without one, the installed bandkit. Run it outside a checkout (the
current directory comes first on ``sys.path``). Prints per round and tree the phases in ms, then medians.
The CLI's processes use one OpenBLAS thread (bandkit_entry); the child sets it the same way before numpy.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import contextlib, json, os, sys, time
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # (as bandkit_entry.main)
T = time.process_time
out = {}
t = T()
def mark(name):
    global t
    now = T(); out[name] = round(1000 * (now - t), 1); t = now
mode, A, B = sys.argv[1], sys.argv[2], sys.argv[3]
import numpy
mark("import numpy")
import bandkit.cli
mark("import bandkit.cli")
from bandkit.loaders.registry import load_traces
try:  # (compare_files loads in it: metadata parsed on first read, where the tree has it)
    from bandkit.loaders.runner_common import metadata_on_read
except ImportError:
    metadata_on_read = contextlib.nullcontext
if mode == "report":
    a = load_traces(A)
    mark("load A")
    import bandkit.postmortem as pm
    mark("import postmortem")
    from bandkit.analyze import analyze
    rep = analyze(a)
    mark("report: analyze A")
    rep.to_text(color=False)
    mark("report: text")
else:
    with metadata_on_read():
        a = load_traces(A)
        mark("compare: load A")
        b = load_traces(B)
        mark("compare: load B")
    import bandkit.postmortem as pm
    mark("import postmortem")
    from bandkit.compare import compare
    spent = [0.0]
    def timing(orig):
        def timed(*x, **k):
            s = T()
            try:
                return orig(*x, **k)
            finally:
                spent[0] += T() - s
        return timed
    pm.run_verdict = timing(pm.run_verdict)
    if hasattr(pm, "run_verdicts"):  # (compare classifies the pairs' sides together where the tree has it)
        pm.run_verdicts = timing(pm.run_verdicts)
    cmp = compare(a, b)
    mark("compare(A, B)")
    out["  of which verdicts"] = round(1000 * spent[0], 1)
    cmp.to_text()
    mark("compare: text")
print(json.dumps(out))
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tree", action="append", default=[], metavar="DIR")
    args = ap.parse_args(argv)
    trees = args.tree or [None]
    res: dict = {t: [] for t in trees}
    for r in range(args.rounds):
        for tree in (trees if r % 2 == 0 else trees[::-1]):
            env = dict(os.environ)
            if tree:
                env["PYTHONPATH"] = tree + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
            row = {}
            for mode in ("report", "compare"):  # (each in its own process, in the CLI's order of phases)
                out = subprocess.run([sys.executable, "-c", CHILD, mode, args.a, args.b], capture_output=True,
                                     text=True, env=env, check=True)
                got = json.loads(out.stdout.strip().splitlines()[-1])
                row.update({(k if k.startswith(("report", "compare", "  ")) else f"{mode}: {k}"): v
                            for k, v in got.items()})
            res[tree].append(row)
            print(f"round {r + 1} {tree or 'installed'}: {res[tree][-1]} | load {os.getloadavg()[0]:.2f}", flush=True)
    for tree, rows in res.items():
        print(f"median, {tree or 'installed'}:")
        for k in rows[0]:
            print(f"  {k:30s} {statistics.median(x[k] for x in rows):7.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
