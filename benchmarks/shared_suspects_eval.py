"""False alarms and detection of the cross-benchmark ``shared_suspect`` finding (issue 12).

Seeded pyperf suites of ``--benchmarks`` benchmarks x ``--runs`` runs x 3 values, run one after the
other as pyperf does, with per-run metadata that behaves like the real files':

- ``mem_max_rss``: each benchmark has its own memory use (log-uniform 10-40 MB, 0.3 % run noise);
- ``load_avg_1min``: a slow random walk over the whole suite (benchmarks run at different loads);
- ``cpu_temp``: package temperature, a slow walk around 60 C plus 1 C sensor noise;
- ``cpu_freq``: four CPUs at 3,300 MHz +-40.

Null suites: in ~25 % of the benchmarks 1-3 runs are slow (x1.05-x1.5, unrelated to any metadata);
the right answer is no shared suspect. Power suites (``--power``): the same, but in those runs the
package is hot (+12 C over its walk), i.e. ``cpu_temp`` marks the slow runs in every affected
benchmark. Prints the share of suites with a ``shared_suspect`` finding and which column it names.

    python benchmarks/shared_suspects_eval.py --suites 40             # this checkout
    PYTHONPATH=<other checkout> python benchmarks/shared_suspects_eval.py --suites 40
"""
from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import sys
import tempfile
from collections import Counter

import numpy as np


def suite(seed: int, *, n_bench: int, n_runs: int, power: bool) -> dict:
    from bandkit.synthetic.pyperf import _freq_string

    rng = np.random.default_rng(seed)
    t = dt.datetime(2024, 3, 1, 12, 0, 0)
    load, temp = 1.0, 60.0
    benches = []
    for b in range(n_bench):
        level = 10 ** rng.uniform(-3.5, -1)  # 0.3-100 ms
        rss = 10 ** rng.uniform(7, 7.6)
        slow = set()
        if rng.random() < 0.25:
            slow = set(rng.choice(np.arange(1, n_runs + 1), size=int(rng.integers(1, 4)), replace=False).tolist())
        runs = []
        for k in range(n_runs + 1):
            factor = rng.uniform(1.05, 1.5) if k in slow else 1.0
            vals = (level * factor * (1 + 0.01 * rng.standard_normal(3))).tolist()
            duration = 0.05 + 4 * level * factor * 1.2 + 1.0
            load = max(0.0, load + 0.05 * rng.standard_normal())
            temp = 60.0 + (temp - 60.0) * 0.98 + 0.3 * rng.standard_normal()
            hot = 12.0 if (power and k in slow) else 0.0
            md = {
                "date": t.isoformat(sep=" "), "duration": duration,
                "load_avg_1min": round(load, 2),
                "cpu_temp": f"coretemp:Package id 0={int(round(temp + hot + rng.normal(0, 1.0)))} C",
                "cpu_freq": _freq_string({c: int(3300 + rng.integers(-40, 41)) for c in (1, 3, 5, 7)}),
                "mem_max_rss": int(rss * (1 + 0.003 * rng.standard_normal())),
            }
            run = {"metadata": md, "warmups": [[1, float(level * 1.05)]]}
            if k == 0:
                md["calibrate_loops"] = 1
            else:
                run["values"] = vals
            runs.append(run)
            t += dt.timedelta(seconds=duration)
        benches.append({"metadata": {"name": f"bm_{b:03d}", "loops": 1}, "runs": runs})
    return {"version": "1.0", "metadata": {"hostname": "synthetic", "unit": "second", "perf_version": "2.6.0"},
            "benchmarks": benches}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suites", type=int, default=40)
    ap.add_argument("--benchmarks", type=int, default=60)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    import bandkit
    from bandkit.analyze import analyze
    from bandkit.synthetic.pyperf import write_pyperf

    print(f"bandkit from {os.path.dirname(bandkit.__file__)}; {a.suites} suites of {a.benchmarks} benchmarks x "
          f"{a.runs} runs; load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as d:
        for power in (False, True):
            hits, named = 0, Counter()
            for i in range(a.suites):
                p = write_pyperf(os.path.join(d, f"s{i}.json"),
                                 suite(a.seed + 1000 * power + i, n_bench=a.benchmarks, n_runs=a.runs, power=power))
                rep = analyze(bandkit.load(p))
                fs = [f for f in rep.findings if f["kind"] == "shared_suspect"]
                if fs:
                    hits += 1
                    named[fs[0]["metadata"]] += 1
            lo, hi = _wilson(hits, a.suites)
            what = "power (cpu_temp marks the slow runs)" if power else "null (no column marks them)"
            print(f"{what:40s} shared_suspect in {hits}/{a.suites} = {100 * hits / a.suites:.1f} % "
                  f"(95 % {100 * lo:.1f}-{100 * hi:.1f} %); named: {dict(named.most_common())}")
    return 0


def _wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    c = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    den = 1 + z * z / n
    return max(0.0, (p + z * z / (2 * n) - c) / den), min(1.0, (p + z * z / (2 * n) + c) / den)


if __name__ == "__main__":
    sys.exit(main())
