"""Speed of exact change-in-mean segmentation: bandkit's FPOP against other Python-usable tools.

Usage: python benchmarks/changepoints_speed.py [--sizes 1e4,1e5,1e6,1e7] [--budget 6] [--repeat 3]
       python benchmarks/changepoints_speed.py --suite defaults [--sizes ...] [--rounds 5] [--methods "skchange FPOP"]

``--suite defaults`` (issue 17): ``detect_changepoints(x)`` with its defaults, including the location
intervals and p-values of the reported changes, against the fastest peers (skchange ``FPOP`` and fastcpd
``detect_mean``, both given the penalty 2 log n and unit noise SD, i.e. spared the noise estimation) on
piecewise-constant signals with segments of 500-1500 values (uniform) and jumps of 1-3 SD (random signs),
Gaussian noise SD 1. The contenders alternate (the order rotates every round), each is timed ``--rounds``
times per size and the median is kept; a contender whose single call exceeds ``--budget-defaults`` seconds
runs once at that size and is skipped at larger ones. Printed: median wall seconds and median CPU seconds
of the process (``time.process_time``: on a shared, loaded machine the wall time is mostly waiting for a
core), each as a ratio to the fastest peer (ratio of the medians), changes found, F1 (margin 5) and
Hausdorff distance against the truth, load average before and after, and the peak RSS of the process
after the size (``ru_maxrss``; it only grows).

Kernel suite (the default):

Every method minimises the same objective (sum of squared errors + penalty per change,
penalty = 2 log n, noise SD 1 known, no minimum segment length unless stated), on the same
seeded signals, one after the other in one process:
  * "sparse": 10 segments whatever n (long segments: PELT's pruning fails, O(n^2));
  * "dense": a change every 1000 values on average.
Jumps are N(0, 2^2) between segments, noise N(0, 1). Reported: wall seconds (one run, or the best
of ``--repeat`` runs for the methods in ``--fast``, which run first and alternate between each
other, after a warm-up call on 1000 values, so JIT compilation is excluded), changes found, F1 against the
truth (margin 5) and whether the change points equal bandkit.fpop's (same optimum).
A method is skipped at larger sizes (and at that size for later signal kinds) once it took more
than ``--budget`` seconds, and at the next size when its growth between the last two sizes
predicts more than ``--max-predicted`` seconds there.
Optional packages (pip): skchange, fastcpd, ruptures. They are benchmark-only dependencies.
"""
from __future__ import annotations

import argparse
import math
import platform
import sys
import time
import warnings

import numpy as np

from bandkit.changepoints import detect_changepoints, fpop, pelt
from bandkit.changepoints.scoring import f_measure

warnings.filterwarnings("ignore")


def signal(n: int, kind: str, seed: int = 0):
    rng = np.random.default_rng(seed)
    k = 10 if kind == "sparse" else max(1, n // 1000)
    cps = np.sort(rng.choice(np.arange(20, n - 20), size=k - 1, replace=False))
    # keep segments >= 10 long so all methods see the same problem
    cps = cps[np.r_[True, np.diff(cps) >= 10]]
    levels = np.cumsum(rng.normal(0, 2, size=cps.size + 1))
    y = np.repeat(levels, np.diff(np.r_[0, cps, n])) + rng.standard_normal(n)
    return y, cps


def methods():
    out = {
        "bandkit.fpop": lambda y, pen: fpop(y, pen, 1),
        "bandkit.fpop min_size=2": lambda y, pen: fpop(y, pen, 2),
        "bandkit.detect_changepoints (defaults)": lambda y, pen: detect_changepoints(y, ci=False).indices,
        "bandkit.pelt (numba)": lambda y, pen: pelt(y, pen, 1),
    }
    try:
        from skchange.detectors import FPOP, PELT

        out["skchange FPOP"] = lambda y, pen: np.asarray(FPOP(penalty=pen).fit(y[:, None]).predict(y[:, None])).ravel()
        out["skchange PELT (L2)"] = lambda y, pen: np.asarray(
            PELT(penalty=pen, min_segment_length=1).fit(y[:, None]).predict(y[:, None])).ravel()
    except ImportError:
        pass
    try:
        import fastcpd

        # fastcpd's mean cost is half the squared error: beta = penalty / 2
        out["fastcpd detect_mean"] = lambda y, pen: np.asarray(fastcpd.detect_mean(
            y[:, None], beta=pen / 2, cost_adjustment=None, variance_estimation=np.eye(1), cp_only=True).cp_set)
    except ImportError:
        pass
    try:
        import ruptures as rpt

        out["ruptures KernelCPD linear"] = lambda y, pen: np.asarray(
            rpt.KernelCPD(kernel="linear", min_size=1, jump=1).fit(y).predict(pen=pen)[:-1])
        out["ruptures Pelt l2"] = lambda y, pen: np.asarray(
            rpt.Pelt(model="l2", min_size=1, jump=1).fit(y).predict(pen=pen)[:-1])
    except ImportError:
        pass
    return out


def signal_500_1500(n: int, seed: int = 0):
    """Segments of uniform 500-1500 values, jumps uniform 1-3 SD with random signs, Gaussian noise SD 1."""
    rng = np.random.default_rng(seed)
    lens = rng.integers(500, 1501, size=n // 500 + 2)
    cps = np.cumsum(lens)
    cps = cps[cps < n]
    jumps = rng.uniform(1, 3, cps.size) * rng.choice([-1.0, 1.0], cps.size)
    levels = np.r_[0.0, np.cumsum(jumps)]
    return np.repeat(levels, np.diff(np.r_[0, cps, n])) + rng.standard_normal(n), cps


def hausdorff(a: np.ndarray, b: np.ndarray) -> float:
    """Largest distance from a change point of either set to the nearest one of the other (values)."""
    if a.size == 0 or b.size == 0:
        return float("nan") if a.size == b.size else float("inf")

    def one_way(p, q):  # for every p, distance to the nearest q (q sorted)
        j = np.clip(np.searchsorted(q, p), 1, q.size - 1) if q.size > 1 else np.zeros(p.size, dtype=int)
        return np.minimum(np.abs(p - q[j - 1 if q.size > 1 else j]), np.abs(p - q[j])).max()

    a, b = np.sort(a), np.sort(b)
    return float(max(one_way(a, b), one_way(b, a)))


def defaults_suite(sizes, rounds: int, budget: float, only: str = "") -> int:
    import os
    import resource
    import statistics

    peers = {k: v for k, v in methods().items() if k in ("skchange FPOP", "fastcpd detect_mean")}
    contenders = {"bandkit detect_changepoints (defaults)": lambda y, pen: detect_changepoints(y).indices, **peers}
    if only:  # e.g. leave fastcpd out at 1e7 (17x skchange's time at 1e6)
        keep = set(only.split(","))
        contenders = {k: v for k, v in contenders.items() if k in keep or k.startswith("bandkit")}
    versions = {}
    for mod in ("numba", "skchange", "fastcpd"):
        try:
            versions[mod] = __import__(mod).__version__
        except Exception:
            pass
    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cpus, versions {versions}")
    warm = signal_500_1500(5000, 99)[0]
    for f in contenders.values():
        f(warm, 2 * np.log(warm.size))
    skipped: set[str] = set()
    names = list(contenders)
    print(f"{'n':>9s} {'contender':40s} {'wall s':>8s} {'cpu s':>8s} {'runs':>4s} {'wall/peer':>9s} {'cpu/peer':>8s} "
          f"{'found':>6s} {'truth':>6s} {'F1':>6s} {'Hausd.':>6s}  load  peak RSS")
    for n in sizes:
        y, truth = signal_500_1500(n, seed=n)
        pen = 2 * np.log(n)
        wall: dict[str, list[float]] = {k: [] for k in names}
        cpu: dict[str, list[float]] = {k: [] for k in names}
        found: dict[str, np.ndarray] = {}
        load0 = os.getloadavg()[0]
        for r in range(rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for name in order:
                if name in skipped or (wall[name] and wall[name][-1] > budget):
                    continue
                c0, t0 = time.process_time(), time.perf_counter()
                cps = np.asarray(contenders[name](y, pen), dtype=np.int64)
                wall[name].append(time.perf_counter() - t0)
                cpu[name].append(time.process_time() - c0)
                found[name] = cps
        load1 = os.getloadavg()[0]
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        best_w = min((statistics.median(wall[k]) for k in names[1:] if wall[k]), default=float("nan"))
        best_c = min((statistics.median(cpu[k]) for k in names[1:] if cpu[k]), default=float("nan"))
        for name in names:
            if not wall[name]:
                print(f"{n:9d} {name:40s}   skipped (over budget at a smaller size)")
                continue
            mw, mc = statistics.median(wall[name]), statistics.median(cpu[name])
            f1 = f_measure({"truth": truth.tolist()}, found[name].tolist()) if n <= 10**6 else float("nan")
            hd = hausdorff(truth, found[name])
            print(f"{n:9d} {name:40s} {mw:8.4f} {mc:8.4f} {len(wall[name]):4d} {mw / best_w:9.2f} {mc / best_c:8.2f} "
                  f"{found[name].size:6d} {truth.size:6d} {f1:6.3f} {hd:6.0f}  {load0:.1f}->{load1:.1f}  {rss:.0f} MB",
                  flush=True)
            if mw > budget:
                skipped.add(name)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="kernels", choices=["kernels", "defaults"])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--budget-defaults", type=float, default=30.0)
    ap.add_argument("--sizes", default="1e4,1e5,1e6,1e7")
    ap.add_argument("--budget", type=float, default=6.0)
    ap.add_argument("--max-predicted", type=float, default=60.0)
    ap.add_argument("--repeat", type=int, default=1, help="best of this many runs for the methods named in --fast")
    ap.add_argument("--fast", default="bandkit.fpop,bandkit.fpop min_size=2,skchange FPOP",
                    help="comma-separated method names")
    ap.add_argument("--methods", default="", help="only these methods (comma-separated names; with --suite defaults: "
                    "the peers, bandkit always runs); default all")
    ap.add_argument("--kinds", default="sparse,dense")
    a = ap.parse_args(argv)
    sizes = [int(float(s)) for s in a.sizes.split(",")]
    if a.suite == "defaults":
        return defaults_suite(sizes, a.rounds, a.budget_defaults, a.methods)
    ms = methods()
    if a.methods:
        keep = set(a.methods.split(","))
        ms = {k: v for k, v in ms.items() if k in keep}
    fast = set(a.fast.split(","))
    versions = {}
    for mod in ("numba", "skchange", "fastcpd", "ruptures"):
        try:
            versions[mod] = __import__(mod).__version__
        except Exception:
            pass
    print(f"python {platform.python_version()}, {platform.machine()}, {platform.processor() or ''} "
          f"versions {versions}")
    warm = np.random.default_rng(1).standard_normal(1000)
    for f in ms.values():
        f(warm, 2 * np.log(1000))
    slow_at: dict[str, int] = {}  # method -> smallest n where it exceeded the budget (any kind)
    prev: dict[tuple[str, str], list[float]] = {}  # (kind, method) -> times at the sizes so far
    for kind in a.kinds.split(","):
        print(f"\n== {kind} signals ==")
        print(f"{'method':42s} {'n':>9s} {'seconds':>8s} {'found':>6s} {'truth':>6s} {'F1':>6s}  same as fpop")
        for n in sizes:
            slow = {m for m, n0 in slow_at.items() if n0 <= n}
            y, truth = signal(n, kind)
            pen = 2 * np.log(n)
            ref = None
            # the methods in --fast run first, alternating, --repeat rounds (best time kept), so
            # a burst of load on the shared machine hits all of them alike
            timed: dict[str, tuple[float, np.ndarray]] = {}
            for _ in range(a.repeat):
                for name, f in ms.items():
                    if name in fast and name not in slow:
                        t0 = time.perf_counter()
                        cps = np.asarray(f(y, pen), dtype=np.int64)
                        dt = time.perf_counter() - t0
                        timed[name] = (min(dt, timed.get(name, (math.inf,))[0]), cps)
            for name, f in ms.items():
                if name in slow:
                    print(f"{name:42s} {n:9d}   skipped (over budget, or predicted > {a.max_predicted:g} s)")
                    continue
                if name in timed:
                    dt, cps = timed[name]
                else:
                    t0 = time.perf_counter()
                    cps = np.asarray(f(y, pen), dtype=np.int64)
                    dt = time.perf_counter() - t0
                if ref is None:
                    ref = cps
                f1 = f_measure({"truth": truth.tolist()}, cps.tolist()) if n <= 10**6 else float("nan")
                same = "yes" if np.array_equal(cps, ref) else "no"
                print(f"{name:42s} {n:9d} {dt:8.3f} {cps.size:6d} {truth.size:6d} {f1:6.3f}  {same}", flush=True)
                hist = prev.setdefault((kind, name), [])
                hist.append(dt)
                # skip the next size if over budget now, or if the growth seen so far predicts
                # more than --max-predicted seconds there (PELT-type methods are quadratic here)
                growth = hist[-1] / hist[-2] if len(hist) >= 2 and hist[-2] > 0 else 10.0
                if dt > a.budget or dt * max(growth, 1.0) > a.max_predicted:
                    nxt = next((m for m in sizes if m > n), None)
                    if dt > a.budget:
                        slow_at[name] = min(slow_at.get(name, n), n)
                    elif nxt is not None:
                        slow_at[name] = min(slow_at.get(name, nxt), nxt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
