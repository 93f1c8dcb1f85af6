"""Start-up cost of ``bandkit report FILE`` for two installations, measured side by side.

    python benchmarks/startup_side_by_side.py --a /path/venv-old/bin/bandkit --b /path/venv-new/bin/bandkit \\
        data/ftq/ftq_f10000_quiet_0.dat.gz --rounds 5

Each round runs A then B (alternating which goes first), each in a fresh process with its wall time and
peak RSS and CPU time (``os.wait4``; on a loaded machine the CPU time is the steadier figure); one untimed warm-up run each first (byte code, numba's cache).
Prints the per-round figures, the medians, the median of the per-round ratios B/A, and the 1-minute load
average before and after. Extra arguments after ``--`` go to ``bandkit report``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time


def run_once(cmd: list[str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS MB, CPU seconds user + system) of one child process."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode() if p.stderr else ""
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise RuntimeError(f"{cmd} failed: {err}")
    return wall, usage.ru_maxrss / 1024.0, usage.ru_utime + usage.ru_stime


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--a", required=True, help="bandkit executable of the baseline")
    ap.add_argument("--b", required=True, help="bandkit executable of the contender")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("extra", nargs="*")
    args = ap.parse_args(argv)
    cmd = {k: [exe, "report", args.file, "--quiet", *args.extra] for k, exe in (("A", args.a), ("B", args.b))}
    load0 = os.getloadavg()[0]
    for k in "AB":
        run_once(cmd[k])
    res: dict[str, list[tuple[float, float, float]]] = {"A": [], "B": []}
    for r in range(args.rounds):
        order = "AB" if r % 2 == 0 else "BA"
        for k in order:
            res[k].append(run_once(cmd[k]))
        a, b = res["A"][-1], res["B"][-1]
        print(f"round {r + 1} ({order}): A {a[0]:.3f} s (cpu {a[2]:.3f} s) {a[1]:.0f} MB | "
              f"B {b[0]:.3f} s (cpu {b[2]:.3f} s) {b[1]:.0f} MB | load {os.getloadavg()[0]:.2f}", flush=True)
    load1 = os.getloadavg()[0]
    med = {k: [statistics.median(x[i] for x in v) for i in range(3)] for k, v in res.items()}
    for i, what in ((0, "wall"), (2, "CPU")):
        ratios = [b[i] / a[i] for a, b in zip(res["A"], res["B"])]
        print(f"median {what}: A {med['A'][i]:.3f} s, B {med['B'][i]:.3f} s; B/A {med['B'][i] / med['A'][i]:.3f}; "
              f"median of per-round ratios {statistics.median(ratios):.3f}")
    print(f"median peak RSS: A {med['A'][1]:.0f} MB, B {med['B'][1]:.0f} MB")
    print(f"load average (1 min): {load0:.2f} before, {load1:.2f} after; cores: {os.cpu_count()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
