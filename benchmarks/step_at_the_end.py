"""Steps in the last runs of a sequence: how often ``classify`` says "step" (the level stays) or "episode" -
the guard of ``classify._return_at_the_end`` (a slow stretch whose last run is back is an episode; a step that
stays to the end must stay a step).

    python benchmarks/step_at_the_end.py [--reps 300]
    PYTHONPATH=/path/to/other/checkout python benchmarks/step_at_the_end.py   # the same for another bandkit

Cells: Gaussian / Student-t3 noise, 20 / 50 runs, 1 / 3 % sd, the step 3 / 4 / 6 runs before the end, x1.15 /
x1.3; seeded. Prints one line a cell (kind, runs, sd, runs after the step, ratio, step, episode) and the totals.
"""
from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from bandkit.postmortem.classify import classify


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=300)
    a = ap.parse_args(argv)
    tot: Counter = Counter()
    for kind in ("gauss", "t3"):
        for n in (20, 50):
            for sd in (0.01, 0.03):
                for k in (3, 4, 6):
                    for eff in (1.15, 1.3):
                        rng = np.random.default_rng((n, k, int(eff * 100), int(sd * 1000), kind == "t3"))
                        c: Counter = Counter()
                        for _ in range(a.reps):
                            e = rng.standard_normal(n) if kind == "gauss" else rng.standard_t(3, n) / np.sqrt(3)
                            x = sd * e
                            x[n - k:] += np.log(eff)
                            c[classify(np.exp(x)).verdict] += 1
                        tot.update(c)
                        print(kind, n, sd, k, eff, c["step"], c["episode"], flush=True)
    print("total", dict(tot))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
