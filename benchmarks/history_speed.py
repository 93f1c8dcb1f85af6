"""Speed of the history path: one 6,000-row history (`bandkit report` wall and in-process analysis,
each against pandas.read_csv of the same file), and a fleet of generated histories shaped like the
SAP HANA ones (`bandkit fleet --jobs 1` vs `--jobs 2`, against a perfectly parallel control loop
measured in the same rounds). Contenders alternate within each round; medians; load average
written down (the machine is shared).

    python benchmarks/history_speed.py [--file F.csv.gz] [--fleet 1000] [--rounds 3] [--workdir DIR]

Generated files go to --workdir (default: a temporary directory; nothing is committed).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def wall(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def sap_shaped(n: int, outdir: Path, seed: int = 0) -> list[Path]:
    """``n`` histories like the shared SAP ones: 1,000-1,700 builds, ~4 measurements per build (4,000-7,000
    rows), noise 0.5-5 %, spikes, some quantised; 10 % with a regression, 5 % with a fixed episode."""
    from bandkit.synthetic.history import generate_history

    rng = np.random.default_rng(seed)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        nb = int(rng.integers(1000, 1701))
        base = float(np.exp(rng.uniform(0, np.log(1e5))))
        u = rng.random()
        events = ((int(nb * 0.7), None, 1.1),) if u < 0.1 else (((int(nb * 0.4), int(nb * 0.45), 1.2),)
                                                                 if u < 0.15 else ())
        h = generate_history(nb, base=base, per_build=float(rng.uniform(3.0, 5.0)),
                             between_cv=float(rng.uniform(0.005, 0.05)), within_cv=float(rng.uniform(0.005, 0.05)),
                             spikes=float(rng.uniform(0, 0.01)), tick=base * 0.005 if rng.random() < 0.3 else 0.0,
                             events=events, seed=int(rng.integers(2**31)))
        p = outdir / f"{i:05d}__elapsed-time__ms.csv.gz"
        h.to_csv(p)
        paths.append(p)
    return paths


def _control_task(k: int) -> float:
    """Fixed CPU work (sorting), independent of everything else: the perfectly parallel control."""
    rng = np.random.default_rng(k)
    x = rng.random(150_000)
    return float(np.sort(x)[k % 1000])


def control(n: int, jobs: int) -> float:
    t0 = time.perf_counter()
    if jobs == 1:
        [_control_task(k) for k in range(n)]
    else:
        import multiprocessing as mp

        with ProcessPoolExecutor(jobs, mp_context=mp.get_context("fork")) as ex:
            list(ex.map(_control_task, range(n), chunksize=max(1, n // (jobs * 64))))
    return time.perf_counter() - t0


def single(file: Path, rounds: int) -> None:
    import pandas as pd

    import bandkit
    from bandkit.analyze import analyze

    rows = len(pd.read_csv(file))
    bk, pdc = [], []
    for _ in range(max(rounds, 5)):
        bk.append(wall([sys.executable, "-m", "bandkit", "report", str(file), "-q"]))
        pdc.append(wall([sys.executable, "-c", f"import pandas as pd; pd.read_csv({str(file)!r})"]))
    print(f"### One history: {file.name} ({rows:,} rows), load {load()}\n")
    print("| what | median of rounds (s) | ratio |\n|---|---|---|")
    print(f"| `bandkit report FILE` (wall, new process) | {statistics.median(bk):.3f} | "
          f"{statistics.median(bk) / statistics.median(pdc):.2f} × control |")
    print(f"| control: `python -c 'import pandas; pandas.read_csv(FILE)'` | {statistics.median(pdc):.3f} | 1 |")
    analyze(bandkit.load(file))  # warm (numba cache, imports)
    a, r, ld = [], [], []
    for _ in range(7):
        t0 = time.perf_counter()
        tr = bandkit.load(file)
        t1 = time.perf_counter()
        analyze(tr)
        t2 = time.perf_counter()
        pd.read_csv(file)
        t3 = time.perf_counter()
        ld.append(t1 - t0)
        a.append(t2 - t1)
        r.append(t3 - t2)
    m = statistics.median
    print(f"| in-process `bandkit.load` | {m(ld) * 1e3:.1f} ms | {m(ld) / m(r):.2f} × read_csv |")
    print(f"| in-process `analyze` (history section) | {m(a) * 1e3:.1f} ms | {m(a) / m(r):.2f} × read_csv |")
    print(f"| in-process load + analyze | {(m(ld) + m(a)) * 1e3:.1f} ms | {(m(ld) + m(a)) / m(r):.2f} × read_csv |")
    print(f"| `pandas.read_csv(FILE)` | {m(r) * 1e3:.1f} ms | 1 |\n")


def fleet(paths: list[Path], rounds: int, workdir: Path) -> None:
    d = paths[0].parent
    n = len(paths)
    res = {"f1": [], "f2": [], "c1": [], "c2": []}
    loads = []
    outs = {}
    for r in range(rounds):
        loads.append(load())
        for jobs in ((1, 2) if r % 2 == 0 else (2, 1)):  # alternate which goes first
            out = workdir / f"fleet_j{jobs}.json"
            res[f"f{jobs}"].append(wall([sys.executable, "-m", "bandkit", "fleet", str(d), "--jobs", str(jobs),
                                         "-f", "json", "-o", str(out), "-q"]))
            outs[jobs] = out.read_bytes()
            res[f"c{jobs}"].append(control(n, jobs))
    m = {k: statistics.median(v) for k, v in res.items()}
    s_f, s_c = m["f1"] / m["f2"], m["c1"] / m["c2"]
    print(f"### Fleet of {n:,} generated histories, {rounds} rounds (loads at the start of each: {'; '.join(loads)})\n")
    print("| run | per round (s) | median (s) | histories/s |\n|---|---|---|---|")
    for k, name in (("f1", "`bandkit fleet DIR --jobs 1`"), ("f2", "`bandkit fleet DIR --jobs 2`"),
                    ("c1", "control loop, 1 process"), ("c2", "control loop, 2 processes")):
        print(f"| {name} | {', '.join(f'{x:.1f}' for x in res[k])} | {m[k]:.1f} | "
              f"{n / m[k]:.1f} |")
    per_round = [(a / b) / (c / d) for a, b, c, d in zip(res["f1"], res["f2"], res["c1"], res["c2"])]
    print(f"\nspeed-up jobs 2 / jobs 1 (medians): fleet {s_f:.2f}, control {s_c:.2f}, ratio {s_f / s_c:.2f}; "
          f"per round (fleet speed-up / control speed-up, same round): {', '.join(f'{x:.2f}' for x in per_round)}, "
          f"median {statistics.median(per_round):.2f} (bar ≥ 0.9); "
          f"JSON of --jobs 1 and --jobs 2 identical: {outs[1] == outs[2]}\n")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--file", type=Path, help="a history file (default: a generated 6,000-row one)")
    ap.add_argument("--fleet", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workdir", type=Path)
    ap.add_argument("--skip-single", action="store_true")
    args = ap.parse_args(argv)
    tmp = None
    if args.workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="bandkit-history-speed-")
        args.workdir = Path(tmp.name)
    args.workdir.mkdir(parents=True, exist_ok=True)
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs, python {sys.version.split()[0]}\n")
    if not args.skip_single:
        f = args.file
        if f is None:
            from bandkit.synthetic.history import generate_history

            f = args.workdir / "00001__elapsed-time__ms.csv.gz"
            generate_history(1500, per_build=4.0, seed=1, events=((1100, None, 1.1),)).to_csv(f)
        single(f, args.rounds)
    if args.fleet:
        fd = args.workdir / "fleet"
        paths = sorted(fd.glob("*.csv.gz")) if fd.exists() else []
        if len(paths) != args.fleet:
            paths = sap_shaped(args.fleet, fd)
        fleet(paths, args.rounds, args.workdir)
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
