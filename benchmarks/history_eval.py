"""False alarms and power of the history analysis (bandkit.history) on generated CI histories.

Null suite: stationary histories shaped like SAP HANA's (1,000-1,700 builds, 1-8 measurements per
build, build and measurement noise 0.3-5 %, Student-t tails, spikes, quantisation, optionally AR(1)
build-level noise): the right answer is "no regression". Power suite: the same noise plus a step
regression or an episode (a regression fixed later) of known size, place and length.

    python benchmarks/history_eval.py [--null 1000] [--power 100] [--seed 0] [--param alpha=1e-3 ...]

Prints markdown tables (results in benchmarks/RESULTS_history.md).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from bandkit.history.analysis import analyse_values
from bandkit.synthetic.history import generate_history


def noise_params(rng: np.random.Generator, ar: bool) -> dict:
    base = float(np.exp(rng.uniform(np.log(1.0), np.log(1e5))))
    p = dict(n_builds=int(rng.integers(1000, 1701)), base=base, per_build=float(rng.uniform(1.5, 6.0)),
             between_cv=float(np.exp(rng.uniform(np.log(0.003), np.log(0.05)))),
             within_cv=float(np.exp(rng.uniform(np.log(0.003), np.log(0.05)))),
             df=float(rng.choice([3.0, 5.0, 30.0])), spikes=float(rng.uniform(0.0, 0.02)),
             tick=float(base * rng.uniform(0.001, 0.02)) if rng.random() < 0.5 else 0.0,
             rho=float(rng.uniform(0.0, 0.5)) if ar else 0.0)
    return p


def run(h, **params):
    t = h.table
    return analyse_values(t["value"].to_numpy(), run=t["run"].to_numpy(), builds=t["build"].to_numpy(), **params)


def null_suite(n: int, seed: int, ar: bool, params: dict) -> dict:
    rng = np.random.default_rng(seed)
    from bandkit.history.section import history_findings

    reg = anych = epi = drift = small = moves = 0
    t0 = time.perf_counter()
    for i in range(n):
        p = noise_params(rng, ar)
        res = run(generate_history(seed=int(rng.integers(2**31)), **p), **params)
        st = [f for f in history_findings(res) if f["kind"] == "stable_history"]
        small += bool(st and st[0]["small_changes"])
        moves += bool(st and not st[0]["small_changes"] and st[0]["level_moves"])
        reg += bool(res.regressions or any(d.kind == "regression" for d in res.drifts))
        anych += bool(res.regressions or res.improvements or res.drifts)
        epi += bool(res.episodes)
        drift += bool(res.drifts)
    return {"n": n, "regression": reg / n, "any_change": anych / n, "episode": epi / n, "drift": drift / n,
            "small_change": small / n, "level_moves": moves / n, "s_per_history": (time.perf_counter() - t0) / n}


def power_step(n: int, seed: int, ratio: float, params: dict, tol: int = 5) -> dict:
    rng = np.random.default_rng(seed)
    hit = cover_loc = cover_ratio = 0
    for i in range(n):
        p = noise_params(rng, ar=False)
        c = int(rng.integers(int(0.2 * p["n_builds"]), int(0.8 * p["n_builds"])))
        res = run(generate_history(seed=int(rng.integers(2**31)), events=((c, None, ratio),), **p), **params)
        near = [r for r in res.regressions if abs(r.index - c) <= tol]
        if near:
            r = near[0]
            hit += 1
            lo, hi = r.build_ci
            cover_loc += bool(lo <= p_build(c) <= hi)
            cover_ratio += bool(r.ratio_ci[0] <= ratio <= r.ratio_ci[1])
    return {"n": n, "ratio": ratio, "detected": hit / n, "build_ci_covers": cover_loc / max(hit, 1),
            "ratio_ci_covers": cover_ratio / max(hit, 1)}


def power_small(n: int, seed: int, ratio: float, params: dict) -> dict:
    """Steps under the reporting threshold: how often the headline is not 'stable' (no location check)."""
    from bandkit.history.section import history_findings

    rng = np.random.default_rng(seed)
    hit = 0
    for _ in range(n):
        p = noise_params(rng, ar=False)
        c = int(p["n_builds"] * rng.uniform(0.2, 0.8))
        res = run(generate_history(seed=int(rng.integers(2**31)), events=((c, None, ratio),), **p), **params)
        st = [f for f in history_findings(res) if f["kind"] == "stable_history"]
        hit += not (st and not st[0]["small_changes"] and not st[0]["level_moves"])
    return {"n": n, "not_stable": hit / n}


def p_build(index: int, first: int = 515000) -> int:
    return first + index


def power_episode(n: int, seed: int, ratio: float, length: int, params: dict, tol: int = 5) -> dict:
    rng = np.random.default_rng(seed)
    hit = located = 0
    for i in range(n):
        p = noise_params(rng, ar=False)
        s = int(rng.integers(int(0.2 * p["n_builds"]), int(0.7 * p["n_builds"])))
        res = run(generate_history(seed=int(rng.integers(2**31)), events=((s, s + length, ratio),), **p), **params)
        eps = [e for e in res.episodes if abs(e.start_index - s) <= tol and abs(e.end_index - (s + length)) <= tol]
        hit += bool(eps)
        located += bool([r for r in res.regressions if abs(r.index - s) <= tol])
    return {"n": n, "ratio": ratio, "length": length, "episode": hit / n, "regression_located": located / n}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--null", type=int, default=1000)
    ap.add_argument("--power", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps-only", action="store_true", help="power suite: steps only")
    ap.add_argument("--param", action="append", default=[], help="history option, e.g. alpha=1e-3")
    args = ap.parse_args(argv)
    params = {}
    for kv in args.param:
        k, v = kv.split("=", 1)
        params[k] = float(v) if k != "min_builds" else int(v)
    print(f"params: {params or 'defaults'}\n")
    print("| null suite | histories | any regression | any change | episode | drift | headline 'smaller significant "
          "change' | headline 'level moves' | s / history |")
    print("|---|---|---|---|---|---|---|---|---|")
    for ar in ((False, True) if args.null else ()):
        r = null_suite(args.null, args.seed + ar, ar, params)
        print(f"| {'AR(1) rho 0-0.5' if ar else 'iid builds'} | {r['n']} | {r['regression']:.1%} | "
              f"{r['any_change']:.1%} | {r['episode']:.1%} | {r['drift']:.1%} | {r['small_change']:.1%} | "
              f"{r['level_moves']:.1%} | {r['s_per_history']:.3f} |")
    if args.power:
        print("\n| step regression | histories | detected (±5 builds) | build CI covers | ratio CI covers |")
        print("|---|---|---|---|---|")
        for ratio in (1.02, 1.05, 1.10, 1.20):
            r = power_step(args.power, args.seed + 10, ratio, params)
            print(f"| ×{ratio:.2f} | {r['n']} | {r['detected']:.0%} | {r['build_ci_covers']:.0%} | "
                  f"{r['ratio_ci_covers']:.0%} |")
        print("\n| step under the 2 % threshold | histories | headline not 'stable' (regression, smaller significant "
              "change or level moves) |")
        print("|---|---|---|")
        for ratio in (1.01, 1.015):
            r = power_small(args.power, args.seed + 30, ratio, params)
            print(f"| ×{ratio} | {r['n']} | {r['not_stable']:.0%} |")
    if args.power and not args.steps_only:
        print("\n| episode | histories | episode found (start and end ±5) | regression located |")
        print("|---|---|---|---|")
        for ratio in (1.05, 1.10, 1.20):
            for length in (5, 20, 100):
                r = power_episode(args.power, args.seed + 20, ratio, length, params)
                print(f"| ×{ratio:.2f} for {length} builds | {r['n']} | {r['episode']:.0%} | "
                      f"{r['regression_located']:.0%} |")


if __name__ == "__main__":
    main()
