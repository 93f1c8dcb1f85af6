"""Does the mixed-run rule (``bandkit.postmortem.mixed``) ever take a true second level away? Two-level run
sequences where every value of the slow runs moved (20 runs, 6 of them x(1 + gap)), m values a run with noise sd
inside the run; counts the series reported with two levels and those whose band was read as mixed runs.

    python benchmarks/mixed_runs_guard.py [--reps 60]

Seeded; prints a Markdown table (a demoted true level is a miss the rule caused).
"""
from __future__ import annotations

import argparse
import itertools

import numpy as np

from bandkit.loaders.runner_common import build_runner_trace
from bandkit.loaders.source import Source
from bandkit.postmortem import postmortem


def _trace(values_per_run):
    return build_runner_trace(Source(name="guard.csv"), "csv", "guard", [(list(v), {}) for v in values_per_run],
                              value_unit="s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=60)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(7)
    print("| values a run | sd inside a run | gap | two levels (or mixed) reported | read as mixed runs |")
    print("|---|---|---|---|---|")
    total = [0, 0]
    for m, sd, gap in itertools.product((3, 10, 40), (0.01, 0.05, 0.10), (0.05, 0.10, 0.20)):
        found = dem = 0
        for _ in range(a.reps):
            slow = rng.permutation(20)[:6]
            vs = [np.exp(sd * rng.standard_normal(m)) * ((1 + gap) if r in slow else 1.0) for r in range(20)]
            pm = postmortem(_trace(vs))
            mixed = (pm.gate or {}).get("mixed_runs") or []
            if pm.verdict in ("bimodal", "bands") or mixed:
                found += 1
                dem += bool(mixed)
        total[0] += found
        total[1] += dem
        print(f"| {m} | {100 * sd:g} % | {100 * gap:g} % | {found}/{a.reps} | {dem} |")
    print(f"| all | | | {total[0]} | {total[1]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
