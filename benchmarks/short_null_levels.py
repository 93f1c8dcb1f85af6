"""False alarms and detection of ``classify`` on short run sequences (10-50 runs) with noise from 1 to 5 %
per run - the corner where a 20-run pyperf or hyperfine benchmark sits and where the noise model's scale
inside two groups of the values (``postmortem.noise.two_level_sd``) fires on ~10 % of Gaussian series.

    python benchmarks/short_null_levels.py [--reps 1000]
    PYTHONPATH=/path/to/other/checkout python benchmarks/short_null_levels.py   # the same for another bandkit

Null: i.i.d. Gaussian or Student-t3 log run means (a false alarm is any verdict but ``stable``).
Power: one spike (x1.25 at 1 % sd, x1.40 at 5 %: ``outliers``), two levels alternating at random (a third
of the runs x1.15 at 2 % sd: ``bimodal``). Seeded; prints a Markdown table.
"""
from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from bandkit.postmortem.classify import classify


def _null(rng, n, sd, tails):
    e = rng.standard_normal(n) if tails == "gauss" else rng.standard_t(3, n) / np.sqrt(3.0)
    return sd * e


def _spike(rng, n, sd, tails):
    x = _null(rng, n, sd, tails)
    x[rng.integers(n)] += np.log(1.25 if sd <= 0.01 else 1.40)
    return x


def _two_level(rng, n, sd, tails):
    x = _null(rng, n, sd, tails)
    x[rng.permutation(n)[: n // 3]] += np.log(1.15)
    return x


CASES = [("null", _null, n, sd, t, None) for t in ("gauss", "t3") for sd in (0.01, 0.05) for n in (10, 20, 50)]
CASES += [("spike", _spike, 20, sd, "gauss", "outliers") for sd in (0.01, 0.05)]
CASES += [("two levels", _two_level, n, 0.02, "gauss", "bimodal") for n in (20, 50)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=1000)
    a = ap.parse_args(argv)
    print("| suite | runs | sd | tails | rate | verdicts |\n|---|---|---|---|---|---|")
    for k, (suite, make, n, sd, tails, want) in enumerate(CASES):
        rng = np.random.default_rng(1000 + k)
        c = Counter(classify(np.exp(make(rng, n, sd, tails))).verdict for _ in range(a.reps))
        hit = (a.reps - c["stable"]) if want is None else c[want]
        what = "false alarms" if want is None else f"{want} found"
        print(f"| {suite} | {n} | {100 * sd:g} % | {tails} | {what} {100 * hit / a.reps:.1f} % ({hit}/{a.reps}) | "
              + ", ".join(f"{v} {m}" for v, m in c.most_common()) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
