"""How well the run classifier's band shares and run labels match the truth on two-level run
sequences (issue 12, "levels": the runs between two alternating levels went to the main band).

    python3 benchmarks/levels_shares.py [--against OLD_CHECKOUT] [--count 400] [--seed 0]

Seeded cases: n in 40-400 runs, a minority level on 10-50 % of the runs (runs drawn independently,
or switching in dwells of 1-4 runs), the levels 4-10 noise sd apart (sd 0.5-3 %), Gaussian or t3
noise. For every checkout: the share of cases called two levels (bimodal/bands), and among those
the mean absolute error of the minority share (points of %), the mean share of runs labelled
with the wrong level (outliers not counted), and the cases whose minority share is off by more
than 5 points. ``--against DIR`` runs the same cases through the bandkit of another checkout.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def cases(count: int, seed: int):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(40, 401))
        share = float(rng.uniform(0.10, 0.50))
        gap = float(rng.uniform(4.0, 10.0))
        sd = float(rng.uniform(0.005, 0.03))
        dwell = int(rng.integers(1, 5))
        up = np.repeat(rng.random(n // dwell + 1) < share, dwell)[:n]
        e = rng.standard_normal(n) if rng.random() < 0.5 else rng.standard_t(3, n) / np.sqrt(3.0)
        x = 100.0 * np.exp(sd * e + gap * sd * up)
        out.append((x.tolist(), up.astype(int).tolist()))
    return out


def run_here(count: int, seed: int) -> list[dict]:
    from bandkit.postmortem.classify import classify

    res = []
    for x, up in cases(count, seed):
        c = classify(np.asarray(x))
        res.append({"verdict": c.verdict, "labels": c.labels.tolist(), "levels": c.levels.tolist()})
    return res


def summarise(res: list[dict], count: int, seed: int) -> dict:
    hit, err, wrong, off5 = 0, [], [], 0
    for r, (x, up) in zip(res, cases(count, seed)):
        if r["verdict"] not in ("bimodal", "bands") or len(r["levels"]) != 2:
            continue
        hit += 1
        lab = np.asarray(r["labels"])
        up = np.asarray(up)
        ok = lab >= 0
        e = abs(np.mean(lab[ok] == 1) - np.mean(up)) * 100
        err.append(e)
        off5 += e > 5
        wrong.append(np.mean(lab[ok] != up[ok]) * 100)
    return {"two_levels_%": 100.0 * hit / len(res), "share_abs_err_pts": float(np.mean(err)) if err else float("nan"),
            "runs_mislabelled_%": float(np.mean(wrong)) if wrong else float("nan"), "share_off_gt5pts": off5, "n": hit}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against")
    ap.add_argument("--count", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--raw", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.raw:
        json.dump(run_here(a.count, a.seed), sys.stdout)
        return
    cols = {}
    if a.against:
        env_py = [sys.executable, str(Path(__file__).resolve()), "--raw", "--count", str(a.count), "--seed", str(a.seed)]
        out = subprocess.run(env_py, cwd=a.against, capture_output=True, text=True, check=True,
                             env={"PYTHONPATH": str(Path(a.against).resolve()), "PATH": "/usr/bin:/bin"})
        cols["before"] = summarise(json.loads(out.stdout), a.count, a.seed)
    sys.path.insert(0, str(ROOT))
    cols["after"] = summarise(run_here(a.count, a.seed), a.count, a.seed)
    keys = list(next(iter(cols.values())))
    print("| measure | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for k in keys:
        print(f"| {k} | " + " | ".join(f"{c[k]:.2f}" if isinstance(c[k], float) else str(c[k]) for c in cols.values()) + " |")


if __name__ == "__main__":
    main()
