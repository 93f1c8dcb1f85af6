"""bandkit's commands against their peers, side by side: wall and CPU time of fresh processes, alternating.

    python benchmarks/speed_side_by_side.py runner  A.json.gz B.json.gz --rounds 7 [--before DIR]   # (run outside a checkout: python -m imports the current directory's bandkit first)
    python benchmarks/speed_side_by_side.py ftq data/ftq/ftq_f10000_quiet_0.dat.gz --rounds 5 [--before DIR] [--serial]
    python benchmarks/speed_side_by_side.py cold data/ftq/ftq_f10000_quiet_0.dat.gz --rounds 3

``runner``: ``bandkit report A`` vs ``python -m pyperf stats A`` and ``bandkit compare A B`` vs
``python -m pyperf compare_to A B`` (pyperf must be installed in this interpreter's environment);
``--before DIR`` adds a third contender, "bandkit before": the same commands with ``PYTHONPATH=DIR``
(a checkout of the code to compare with, e.g. ``git archive main | tar -x -C DIR``).
``ftq``: ``bandkit report FILE`` (warm cache), the bar of issue 17 is a wall time; ``--before DIR`` adds the
same command from that source tree (ratios are then to it), ``--serial`` the same with ``BANDKIT_THREADS=1``.
``cold``: the first ``bandkit report FILE`` with an empty numba cache (``NUMBA_CACHE_DIR`` = a fresh
temporary directory) against a warm one, alternating.
Each round runs the contenders in alternating order, each in a fresh process (``os.wait4``: wall time,
user + system CPU time, peak RSS); one untimed warm-up run each first (byte code, numba's cache).
Prints per-round figures, medians, the median of per-round ratios, and the 1-minute load average.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BANDKIT = [sys.executable, "-m", "bandkit"]


def run_once(cmd: list[str], env: dict | None = None) -> tuple[float, float, float]:
    """(wall s, CPU s user + system, peak RSS MB) of one child process; stdout discarded."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode() if p.stderr else ""
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise RuntimeError(f"{cmd} failed: {err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def side_by_side(contenders: dict[str, tuple[list[str], dict | None]], rounds: int, warm_up: bool = True,
                 before_each=None) -> dict[str, list[tuple[float, float, float]]]:
    names = list(contenders)
    if warm_up:
        for k in names:
            run_once(*contenders[k])
    res: dict[str, list] = {k: [] for k in names}
    for r in range(rounds):
        order = names if r % 2 == 0 else names[::-1]
        for k in order:
            if before_each:
                before_each(k)
            res[k].append(run_once(*contenders[k]))
        print(f"round {r + 1} ({' then '.join(order)}): " + " | ".join(
            f"{k} {res[k][-1][0]:.3f} s (cpu {res[k][-1][1]:.3f} s, {res[k][-1][2]:.0f} MB)" for k in names)
            + f" | load {os.getloadavg()[0]:.2f}", flush=True)
    return res


def summarise(res, base: str) -> None:
    for k, v in res.items():
        med = [statistics.median(x[i] for x in v) for i in range(3)]
        line = f"  {k}: median wall {med[0]:.3f} s, CPU {med[1]:.3f} s, peak RSS {med[2]:.0f} MB"
        if k != base:
            for i, what in ((0, "wall"), (1, "CPU")):
                ratios = [b[i] / a[i] for a, b in zip(res[base], v)]
                line += f"; {what} ratio to {base} {statistics.median(ratios):.2f}x (median of rounds)"
        print(line)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("runner", "ftq", "cold"))
    ap.add_argument("files", nargs="+")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--before", metavar="DIR", help="runner, ftq: also time bandkit from this source tree (PYTHONPATH)")
    ap.add_argument("--serial", action="store_true", help="ftq: also time it with BANDKIT_THREADS=1 (EM seeds serial)")
    args = ap.parse_args(argv)
    print(f"python {sys.version.split()[0]}; cores {os.cpu_count()}; load average (1 min) before "
          f"{os.getloadavg()[0]:.2f}")
    if args.what == "runner":
        a = args.files[0]
        b = args.files[1] if len(args.files) > 1 else args.files[0]
        before = {**os.environ, "PYTHONPATH": os.path.abspath(args.before)} if args.before else None
        for what, peer, cmd in (("report", [sys.executable, "-m", "pyperf", "stats", a], ["report", a, "--quiet"]),
                                ("compare", [sys.executable, "-m", "pyperf", "compare_to", a, b], ["compare", a, b])):
            print(f"{what} {a}" + (f" {b}" if what == "compare" else ""))
            base = f"pyperf {peer[3]}"
            contenders = {base: (peer, None), f"bandkit {what}": ([*BANDKIT, *cmd], None)}
            if before:
                contenders[f"bandkit {what} before"] = ([*BANDKIT, *cmd], before)
            res = side_by_side(contenders, args.rounds)
            summarise(res, base)
    elif args.what == "ftq":
        cmd = [*BANDKIT, "report", args.files[0], "--quiet"]
        contenders = {"bandkit report": (cmd, None)}
        if args.before:
            contenders["bandkit report before"] = (cmd, {**os.environ, "PYTHONPATH": os.path.abspath(args.before)})
        if args.serial:
            contenders["bandkit report serial"] = (cmd, {**os.environ, "BANDKIT_THREADS": "1"})
        res = side_by_side(contenders, args.rounds)
        summarise(res, "bandkit report before" if args.before else "bandkit report")
    else:
        cache = tempfile.mkdtemp(prefix="bandkit-cold-")
        cold_env = {**os.environ, "NUMBA_CACHE_DIR": cache}

        def empty(k):
            if k == "cold":
                shutil.rmtree(cache, ignore_errors=True)

        try:
            res = side_by_side({"warm": ([*BANDKIT, "report", args.files[0], "--quiet"], None),
                                "cold": ([*BANDKIT, "report", args.files[0], "--quiet"], cold_env)},
                               args.rounds, before_each=empty)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        summarise(res, "warm")
    print(f"load average (1 min) after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
