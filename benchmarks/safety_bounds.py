"""Small hostile inputs (each under 1 MB): peak RSS, wall time and the first stderr line of
``bandkit report FILE -f json -o OUT``, for one or more bandkit source trees side by side.

Run:  python3 benchmarks/safety_bounds.py [--src NAME=DIR ...] [--workdir /tmp/bandkit-safety]
                                          [--timeout 60] [--max-gb 4] [--out RESULTS_safety.md]

``--src main=/tmp/main-checkout --src branch=.`` runs each input under each tree (PYTHONPATH=DIR),
interleaved, in fresh child processes. A child is limited to ``--max-gb`` of address space and
``--timeout`` seconds, so that an unbounded version fails ("killed") instead of exhausting a shared
machine. Inputs are generated (seeded) in the work directory; nothing is read from ../shared.
The bar (issue 18, checked by the fuzz harness of issue 14): no run above 2 GB RSS or 10 s. On a
shared machine the CPU seconds (user + system, from ``wait4``) say more than the wall time.
"""
from __future__ import annotations

import argparse
import gzip
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


#: Extra options per input (the wide-first-line table is only an FTQ file when forced).
EXTRA_ARGS = {"wide_first.dat": ["-F", "ftq"]}


def make_inputs(d: Path) -> dict[str, Path]:
    d.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    out: dict[str, Path] = {}

    def put(name: str, data: bytes) -> None:
        (d / name).write_bytes(data)
        out[name] = d / name

    put("gap.dat", b"# Frequency 10000\n0 100\n100000 101\n9000000000000000000 99\n")
    body = b"# Frequency 10000\n" + b"".join(b"%d 1000\n" % (i * 100000) for i in range(1000))
    with gzip.open(d / "bomb.dat.gz", "wb", 9) as fh:  # ~0.45 GB inside, written in chunks
        fh.write(body)
        for _ in range(45):
            fh.write(b"# padding\n" * (1024 * 1024))
    out["bomb.dat.gz"] = d / "bomb.dat.gz"
    put("zeros5m.dat.gz", gzip.compress(b"0 1000\n" * 750_000, 9))  # 5 MB of equal times
    put("wide_line.csv", (",".join(["value"] + [f"c{i}" for i in range(10_000)]) + "\n"
                          + "".join(",".join([str(1.5 + r % 2)] + ["1"] * 10_000) + "\n" for r in range(1))).encode())
    put("wide_first.dat", (" ".join(["1"] * 30_000) + "\n"
                           + "".join(f"{i * 100000} 5\n" for i in range(60_000))).encode())
    put("runs40k.csv", ("name,value,cpu,host\n" + "".join(
        f"bench{i % 3},{rng.gauss(10, 1):.4f},{i % 4},h{i % 2}\n" for i in range(40_000))).encode())
    put("count_above_header.dat", b"# Frequency 10000\n# Max possible work is 3000\n"
                                  + b"".join(b"%d 1000\n" % (i * 100000) for i in range(2))
                                  + b"200000 1000000000\n")
    put("all_zero.dat", b"# Frequency 10000\n" + b"".join(b"%d 0\n" % (i * 100000) for i in range(5000)))
    put("ghz_header.dat", b"# Frequency 1000000000\n" + b"".join(b"%d 1000\n" % (i * 100000) for i in range(50_000)))
    return out


def _limits(max_gb: float):
    def set_limits():
        b = int(max_gb * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (b, b))
    return set_limits


def run(src: Path, path: Path, out: Path, timeout: float, max_gb: float, extra: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src))
    cmd = [sys.executable, "-c", "import sys; from bandkit.cli import main; sys.exit(main(sys.argv[1:]))",
           "report", str(path), "-f", "json", "-q", "-o", str(out), *extra]
    load = os.getloadavg()[0]
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=out.parent,
                         preexec_fn=_limits(max_gb))  # cwd: not a source tree, so PYTHONPATH decides
    killed = False
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - t > timeout and not killed:
            p.kill()
            killed = True
        time.sleep(0.05)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode("utf-8", "replace")
    code = os.waitstatus_to_exitcode(status)
    rss = ru.ru_maxrss / 1024
    cpu = ru.ru_utime + ru.ru_stime  # CPU seconds: on a loaded shared machine, wall time is mostly waiting
    first = err.strip().splitlines()[-1] if err.strip() else ""
    return {"code": "timeout" if killed else code, "wall": wall, "cpu": cpu, "rss": rss, "lines": len(err.splitlines()),
            "err": first[:110], "load": load}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--workdir", default="/tmp/bandkit-safety")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--max-gb", type=float, default=4.0)
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    srcs = [tuple(s.split("=", 1)) for s in a.src] or [("this tree", str(ROOT))]
    wd = Path(a.workdir)
    inputs = make_inputs(wd / "inputs")
    lines = [f"`python3 benchmarks/safety_bounds.py {' '.join(argv if argv is not None else sys.argv[1:])}` "
             f"— {time.strftime('%Y-%m-%d %H:%M')}, load average at start "
             f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}, nproc {os.cpu_count()}; children limited to "
             f"{a.max_gb:g} GB of address space and {a.timeout:g} s", "",
             "| input | bytes | tree | exit | wall s | CPU s | peak RSS MB | stderr lines | last stderr line | load |",
             "|---|---:|---|---|---:|---:|---:|---:|---|---:|"]
    for name, path in inputs.items():
        for label, src in srcs:
            r = run(Path(src), path, wd / f"out-{label}.json", a.timeout, a.max_gb, EXTRA_ARGS.get(name, []))
            row = (f"| {name} {' '.join(EXTRA_ARGS.get(name, []))} | {path.stat().st_size:,} | {label} | {r['code']} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['rss']:.0f} | "
                   f"{r['lines']} | {r['err'].replace('|', '/')} | {r['load']:.1f} |")
            print(row, flush=True)
            lines.append(row)
    if a.out:
        Path(a.out).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
