"""Runner loaders and post-mortem: speed and accuracy figures for benchmarks/RESULTS_runners.md.

Run from the repository root:  python3 benchmarks/bench_runners.py [--quick]

A. Load speed: bandkit.load vs pyperf.BenchmarkSuite.load (pyperf 2.10, if installed) on the
   same pyperf files, CPU time (time.process_time, robust to a shared machine), best of 3,
   measured side by side in one process.
B. Classification accuracy on generated run sequences with known truth (seeded): stable, step,
   bimodal, trend; per-run noise 1 % and 3 %; 20 / 60 / 400 runs. Compared with pyperf check's
   rule "stdev >= 10 % of the mean" (it can flag, not locate or classify).
C. Suspect ranking on the generated 400-run pyperf file (bandkit.synthetic.pyperf), 20 seeds.
D. The real speedpython 2020 file: verdict counts, pickle_list, pooled cpu_freq evidence.
"""
from __future__ import annotations

import argparse
import gzip
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bandkit  # noqa: E402
from bandkit.postmortem import classify, postmortem, summarize  # noqa: E402
from bandkit.synthetic.pyperf import pyperf_step_suite, write_pyperf  # noqa: E402

DATA = ROOT / "data" / "runners"
SHARED = ROOT.parent / "shared" / "data" / "runners" / "pyperf"


def cpu_best(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def part_a():
    print("## A. Load speed (CPU s, best of 3)\n")
    files = sorted(DATA.glob("speedpython_*.json.gz"))
    if SHARED.exists():
        files += [SHARED / "speedpython_pypy2_571_warmups.json.gz",
                  SHARED / "fc_bm-20240604-linux-x86_64-python-6725c78d376eadb01a9d-3.13.0b1+-6725c78.json.gz"]
    try:
        import pyperf
    except ImportError:
        pyperf = None
    print("| file | benchmarks | values | bandkit.load | pyperf.BenchmarkSuite.load | ratio |")
    print("|---|---|---|---|---|---|")
    for f in files:
        if not f.exists():
            continue
        ts = bandkit.load(f)
        nv = sum(len(t.values) for t in ts)
        tb = cpu_best(lambda: bandkit.load(f))
        if pyperf is not None:
            tp = cpu_best(lambda: pyperf.BenchmarkSuite.load(str(f)))
            print(f"| {f.name[:48]} | {len(ts)} | {nv} | {tb:.3f} | {tp:.3f} | {tb / tp:.1f} |")
        else:
            print(f"| {f.name[:48]} | {len(ts)} | {nv} | {tb:.3f} | – | – |")
    ts = bandkit.load(DATA / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz")
    tpm = cpu_best(lambda: [postmortem(t) for t in ts])
    print(f"\npost-mortem of all {len(ts)} benchmarks of speedpython 2020: {tpm:.3f} CPU s "
          f"({1e3 * tpm / len(ts):.1f} ms per benchmark)")
    g = bandkit.load(write_pyperf(Path(tempfile.mkdtemp()) / "g.json", pyperf_step_suite()))
    print(f"post-mortem of the 400-run generated benchmark: {cpu_best(lambda: postmortem(g)):.3f} CPU s\n")


def gen(kind, n, rel, rng):
    """(levels, truth) for one generated run sequence."""
    lv = np.ones(n)
    truth = {"kind": kind}
    if kind == "step":
        k = int(rng.integers(max(3, n // 10), n - max(3, n // 10)))
        r = float(rng.uniform(1.1, 1.8))
        lv[k:] = r if rng.random() < 0.5 else 1 / r
        truth["run"] = k + 1
    elif kind == "bimodal":
        r = float(rng.uniform(1.2, 1.7))
        n_ep = int(rng.integers(2, 4))
        for _ in range(n_ep):
            a = int(rng.integers(0, n - 3))
            lv[a:a + int(rng.integers(2, max(3, n // 8)))] = r
        # the levels must really come back: ensure the first and last runs are at the base level
        lv[0] = lv[-1] = 1.0
    elif kind == "trend":
        lv = np.linspace(1.0, float(rng.uniform(1.15, 1.4)), n)
    if kind == "stable_t3":  # heavy-tailed noise (Student t, 3 degrees of freedom)
        return lv * (1 + rel * rng.standard_t(3, n)), truth
    return lv * (1 + rel * rng.standard_normal(n)), truth


def part_b(seeds):
    print("## B. Classification of generated run sequences\n")
    print(f"{seeds} sequences per cell; step ratio uniform in 1.1-1.8 (up or down), at a random run; bimodal: "
          "2-3 episodes of 2..n/8 runs at 1.2-1.7x; trend: linear drift of 15-40 %; stable_t3: no change, Student-t "
          "(3 dof) noise. Correct for stable: 'stable' or 'outliers'.\n")
    print("| runs | noise | truth | bandkit correct verdict | step run exact (±0) | pyperf-check rule flags |")
    print("|---|---|---|---|---|---|")
    for n in (20, 60, 400):
        for rel in (0.01, 0.03):
            for kind in ("stable", "stable_t3", "step", "bimodal", "trend"):
                rng = np.random.default_rng(hash((n, int(rel * 1000), kind)) % 2**32)
                ok = exact = flagged = steps = 0
                for _ in range(seeds):
                    x, truth = gen(kind, n, rel, rng)
                    c = classify(x)
                    expect = {"stable": ("stable", "outliers"), "stable_t3": ("stable", "outliers"), "step": ("step",),
                              "bimodal": ("bimodal", "bands"), "trend": ("trend",)}[kind]
                    ok += c.verdict in expect
                    flagged += np.std(x, ddof=1) >= 0.10 * np.mean(x)
                    if kind == "step" and c.verdict == "step":
                        steps += 1
                        firsts = [b[1] + 1 for b in c.blocks[1:]]
                        exact += truth["run"] in firsts
                step_txt = f"{exact}/{seeds}" if kind == "step" else "–"
                print(f"| {n} | {100 * rel:.0f} % | {kind} | {ok}/{seeds} | {step_txt} | {flagged}/{seeds} |")
    print()


def part_c(seeds):
    print("## C. Suspects on the generated 400-run pyperf file\n")
    tmp = Path(tempfile.mkdtemp())
    ok_step = ok_top = load_above = 0
    for s in range(seeds):
        pm = postmortem(bandkit.load(write_pyperf(tmp / f"g{s}.json", pyperf_step_suite(seed=s))))
        ok_step += pm.verdict == "step" and [st.run for st in pm.steps] == [106]
        names = [x.metadata for x in pm.suspects]
        ok_top += bool(names) and names[0].startswith("cpu_temp_c")
        if "load_avg_1min" in names and names.index("load_avg_1min") == 0:
            load_above += 1
    print(f"step found at run 106 (and only there): {ok_step}/{seeds}; temperature top suspect: {ok_top}/{seeds}; "
          f"load average ranked first: {load_above}/{seeds}\n")


def part_d():
    print("## D. speedpython 2020 (real file)\n")
    ts = bandkit.load(DATA / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz")
    pms = [postmortem(t) for t in ts]
    cs = summarize(pms)
    print("verdict counts:", cs.counts)
    pl = next(p for p in pms if p.name == "pickle_list")
    st = pl.steps[0]
    print(f"pickle_list: {pl.verdict} at run {st.run} ({st.before * 1e6:.2f} -> {st.after * 1e6:.2f} us, "
          f"x{st.factor:.2f}, 95 % CI of ratio {st.ci_low:.3f}-{st.ci_high:.3f}); top suspect {pl.suspects[0].metadata}")
    print(f"pooled: {cs.pooled_affected} slow runs of {cs.pooled_runs}")
    for s in cs.shared_suspects:
        e = s.evidence
        print(f"  {s.metadata}: score {s.score:.3f}, AUC {e['auc']:.3f}, threshold {e['affected_when']} "
              f"{e['threshold']:.1f}: {e['affected_on_side']}/{e['affected']} slow vs "
              f"{e['reference_on_side']}/{e['reference']} other runs")
    print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    print(f"# bench_runners.py — {time.strftime('%Y-%m-%d %H:%M')} — Python {platform.python_version()}, "
          f"{platform.machine()}, numpy {np.__version__}\n")
    part_a()
    part_b(30 if args.quick else 100)
    part_c(5 if args.quick else 20)
    part_d()


if __name__ == "__main__":
    main()
