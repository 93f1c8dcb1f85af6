"""A warm-up with a later spike (issue 12, stop 29): how often ``classify`` reads "warmup" when the first runs are
slow and one later run is a spike at about their level, or when the last warm-up run is already nearly back.

    python benchmarks/warmup_spike.py [--reps 400]
    PYTHONPATH=/path/to/other/checkout python benchmarks/warmup_spike.py   # the same for another bandkit

Cells: Gaussian noise of 1 / 2 % sd on the log run means, 20 / 50 runs; warm-up = the first 2 runs x1.05 (1 % sd) or
x1.10 (2 % sd), then a third run at x1.00 or x1.02 (half back); a later spike (a random run from the 5th on) of
x1.06 / x1.10 (1 % sd) or x1.12 / x1.20 (2 % sd), or none. A cell: share of "warmup" verdicts, and of "bimodal" /
"bands" (a second level made of the warm-up runs and the spike). Seeded per cell; Markdown.
"""
from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from bandkit.postmortem.classify import classify


def cell(n: int, sd: float, warm: float, third: float, spike: float | None, reps: int, seed: tuple) -> Counter:
    rng = np.random.default_rng(seed)
    out: Counter = Counter()
    for _ in range(reps):
        x = sd * rng.standard_normal(n)
        x[:2] += np.log(warm)
        x[2] += np.log(third)
        if spike:
            x[rng.integers(4, n)] += np.log(spike)
        out[classify(np.exp(x)).verdict] += 1
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=400)
    a = ap.parse_args(argv)
    print("| sd | runs | warm-up | 3rd run | spike | warmup % | bimodal / bands % | other verdicts |")
    print("|---|---|---|---|---|---|---|---|")
    for sd, warm, spikes in ((0.01, 1.05, (None, 1.06, 1.10)), (0.02, 1.10, (None, 1.12, 1.20))):
        for n in (20, 50):
            for third in (1.0, 1.02):
                for spike in spikes:
                    c = cell(n, sd, warm, third, spike, a.reps, (int(sd * 100), n, int(third * 100), int((spike or 1) * 100)))
                    lv = c["bimodal"] + c["bands"]
                    rest = ", ".join(f"{k} {v}" for k, v in c.most_common() if k not in ("warmup", "bimodal", "bands"))
                    print(f"| {100 * sd:g} % | {n} | x{warm:g} | x{third:g} | {f'x{spike:g}' if spike else '-'} | "
                          f"{100 * c['warmup'] / a.reps:.1f} | {100 * lv / a.reps:.1f} | {rest} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
