"""Seeded generator of pyperf JSON result files with a known glitch (ground truth for tests).

The default reproduces the classic post-mortem: 400 runs (one worker process each) of a
benchmark; runs 1-105 take ~20.3 ms and runs 106-400 ~11.0 ms; at the switch the CPU package
temperature falls from ~70 C to ~58 C (sensor noise +-1 C, settling within ``temp_tau_runs`` runs)
and the 1-minute load average relaxes towards a new level with pyperf's exponential smoothing
(time constant 60 s), so it changes *around* the switch but lags it. ``cpu_freq`` strings look
like pyperf's (``"1,3,5=3332 MHz; 13=1828 MHz"``) and do not change at the switch.

The output follows pyperf 1.0: a calibration run first (warm-ups only), metadata equal in every
run hoisted to benchmark level, suite metadata at top level.
"""
from __future__ import annotations

import datetime as _dt
import gzip
import json
import math
from pathlib import Path
from typing import Any

import numpy as np


def _freq_string(freqs: dict[int, int]) -> str:
    groups: dict[int, list[int]] = {}
    for cpu, f in sorted(freqs.items()):
        groups.setdefault(f, []).append(cpu)
    parts = sorted(groups.items(), key=lambda kv: kv[1][0])
    return "; ".join(",".join(map(str, cpus)) + f"={f} MHz" for f, cpus in parts)


def pyperf_step_suite(*, n_runs: int = 400, step_run: int = 106, before: float = 20.3e-3, after: float = 11.0e-3,
                      values_per_run: int = 3, noise: float = 0.01, temp_before: float = 70.0,
                      temp_after: float = 58.0, temp_tau_runs: float = 1.0, load_before: float = 1.0,
                      load_after: float = 2.0, name: str = "bm_glitch", seed: int = 0) -> dict[str, Any]:
    """A pyperf 1.0 suite (dict) with one benchmark whose runs step at ``step_run`` (1-based,
    first run after the step; calibration run not counted). Values in seconds."""
    if not 2 <= step_run <= n_runs:
        raise ValueError("step_run must be within 2..n_runs")
    rng = np.random.default_rng(seed)
    t = _dt.datetime(2024, 3, 1, 12, 0, 0)
    uptime = 86400.0
    load = load_before
    temp_now = temp_before
    runs: list[dict[str, Any]] = []
    cpus = [1, 3, 5, 7]
    for k in range(n_runs + 1):  # k = 0: calibration run
        run_no = k
        level = before if (run_no < step_run) else after
        vals = (level * (1.0 + noise * rng.standard_normal(values_per_run))).tolist()
        duration = 0.05 + (values_per_run + 1) * level * 1.2
        target_temp = temp_before if run_no < step_run else temp_after
        temp_now = target_temp + (temp_now - target_temp) * math.exp(-1.0 / max(temp_tau_runs, 1e-9))
        target_load = load_before if run_no < step_run else load_after
        load = target_load + (load - target_load) * math.exp(-duration / 60.0)
        freqs = {c: int(3300 + rng.integers(-40, 41)) for c in cpus}
        md = {
            "date": t.isoformat(sep=" "),
            "duration": duration,
            "uptime": uptime,
            "load_avg_1min": round(load + 0.05 * rng.standard_normal(), 2),
            "cpu_temp": f"coretemp:Package id 0={int(round(temp_now + rng.normal(0, 1.0)))} C, "
                        f"coretemp:Core 0={int(round(temp_now - 3 + rng.normal(0, 1.0)))} C",
            "cpu_freq": _freq_string(freqs),
            "mem_max_rss": int(9_000_000 + rng.integers(0, 200_000)),
        }
        run: dict[str, Any] = {"metadata": md, "warmups": [[1, float(level * (1.05 + noise * rng.standard_normal()))]]}
        if k == 0:
            md["calibrate_loops"] = 1
        else:
            run["values"] = vals
        runs.append(run)
        t += _dt.timedelta(seconds=duration + 0.02)
        uptime += duration + 0.02
    bench_md = {"name": name, "loops": 1, "description": "synthetic step (bandkit.synthetic.pyperf)",
                "runnable_threads": 1}
    suite_md = {"hostname": "synthetic", "cpu_count": 8, "cpu_affinity": "1,3,5,7", "perf_version": "2.6.0",
                "unit": "second", "cpu_model_name": "Synthetic CPU @ 3.30GHz",
                "cpu_config": "1,3,5,7=driver:intel_pstate, intel_pstate:no turbo, governor:performance, isolated",
                "boot_time": (_dt.datetime(2024, 3, 1, 12, 0, 0) - _dt.timedelta(days=1)).isoformat(sep=" ")}
    return {"version": "1.0", "metadata": suite_md, "benchmarks": [{"metadata": bench_md, "runs": runs}]}


def write_pyperf(path: str | Path, suite: dict[str, Any]) -> Path:
    """Write a suite dict as pyperf JSON (gzip-compressed when the name ends in ``.gz``)."""
    path = Path(path)
    data = json.dumps(suite, sort_keys=True).encode()
    if path.suffix == ".gz":
        data = gzip.compress(data, mtime=0)
    path.write_bytes(data)
    return path
